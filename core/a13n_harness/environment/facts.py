"""Collecting checkout facts from the host (SPEC section 6).

This is the I/O half of :mod:`a13n_harness.context.facts`: it runs git, reads
``$SHELL``, the platform, the clock and the time zone, and hands the values to
the pure core. Collection never fails because of git: a missing binary, a
directory that is not a repository, a git that hangs past its timeout or
prints something the parser refuses all give ``git=None`` (rendered as
``not a git repository``).

Decisions (also in ``docs/decisions.md``):

- ``cwd`` is ``os.path.abspath(cwd)`` without resolving symbolic links (the
  directory as the caller named it).
- ``shell`` is the basename of ``$SHELL`` (``/bin/bash`` -> ``bash``, Codex's
  form); ``unknown`` when it is unset or empty.
- ``os`` is ``platform.system().lower()`` (``linux``, ``darwin``, ``windows``),
  ``unknown`` when Python cannot tell.
- ``current_date`` is :func:`civil_date` of ``int(time.time())`` at the local
  offset ``time.localtime(now).tm_gmtoff`` (so ``TZ`` is honoured).
- ``timezone``: ``TZ`` when set (a leading ``:`` and any ``.../zoneinfo/``
  prefix removed; an empty ``TZ`` means UTC to the C library, so ``UTC``; a
  POSIX rule such as ``EST5EDT,M3.2.0,M11.1.0`` is reported as written since no
  IANA name describes it), else the first line of ``/etc/timezone``, else the
  part after ``zoneinfo/`` of the ``/etc/localtime`` link target, else ``UTC``
  when the local offset is zero and ``unknown`` otherwise.
- Every text taken from the host (path, ``$SHELL``, ``TZ``, file contents) is
  turned into a ``str`` with ``errors="replace"``: bytes that are not UTF-8
  become U+FFFD, the same rule as git names, so the facts always survive the
  manifest's strict UTF-8.
"""

from __future__ import annotations

import os
import platform
import re
import signal
import subprocess
import sys
import time

from a13n_harness.context.errors import DefinitionError
from a13n_harness.context.facts import (
    EnvironmentFacts,
    GitStatus,
    civil_date,
    parse_git_status,
)

__all__ = ["GIT_TIMEOUT_SECONDS", "collect_environment_facts", "collect_git_status"]

GIT_TIMEOUT_SECONDS = 5.0
"""How long ``git status`` may run. Git answers in milliseconds on a healthy
checkout; a network file system, a huge untracked tree or a credential prompt
can hang it, and the facts must not hold a turn hostage (Codex uses a few
seconds too)."""

# An IANA zone name: slash-separated components of letters, digits, ``_``,
# ``+`` and ``-`` (``America/Argentina/Buenos_Aires``, ``Etc/GMT+5``, ``UTC``).
_ZONE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_+\-]*(?:/[A-Za-z0-9_+\-]+)*")
_ZONEINFO_MARK = "zoneinfo/"


def _text(value: str | bytes) -> str:
    """A host string as plain UTF-8 text: undecodable bytes become U+FFFD."""
    raw = value if isinstance(value, bytes) else os.fsencode(value)
    return raw.decode("utf-8", errors="replace")


def collect_git_status(
    cwd: str | os.PathLike[str], timeout: float = GIT_TIMEOUT_SECONDS
) -> GitStatus | None:
    """``git status --porcelain=v2 --branch -z`` in ``cwd``, parsed; ``None`` on any failure.

    Git runs with ``--no-optional-locks`` (a status must not take the index
    lock from a concurrent git), no standard input and its stderr discarded,
    in a new session so that a timeout kills it and everything it started.
    """
    command = [
        "git",
        "--no-optional-locks",
        "-c",
        "core.quotepath=off",
        "status",
        "--porcelain=v2",
        "--branch",
        "-z",
    ]
    environment = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0"}
    try:
        process = subprocess.Popen(
            command,
            cwd=cwd,
            env=environment,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=sys.platform != "win32",
        )
    except (OSError, ValueError, subprocess.SubprocessError):
        return None
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill(process)
        return None
    if process.returncode != 0:
        return None
    try:
        return parse_git_status(output)
    except DefinitionError:
        return None


def _kill(process: subprocess.Popen[bytes]) -> None:
    """Kill ``process`` and its process group (children hold our pipe), then reap it."""
    if sys.platform == "win32":  # pragma: no cover - no process groups there
        process.kill()
    else:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except OSError:
            process.kill()
    # The pipe closes once every holder is dead; never wait on it unbounded.
    try:
        process.communicate(timeout=1.0)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _shell() -> str:
    shell = os.environ.get("SHELL", "")
    name = os.path.basename(shell.rstrip("/\\")) if shell else ""
    return _text(name) if name else "unknown"


def _zone_from(candidate: str) -> str | None:
    marker = candidate.rfind(_ZONEINFO_MARK)
    if marker >= 0:
        candidate = candidate[marker + len(_ZONEINFO_MARK) :]
    return candidate if _ZONE_NAME.fullmatch(candidate) else None


def _timezone(offset_seconds: int) -> str:
    tz = os.environ.get("TZ")
    if tz is not None:
        tz = _text(tz)
        stripped = tz.removeprefix(":")
        if not stripped:
            return "UTC"
        return _zone_from(stripped) or tz
    try:
        with open("/etc/timezone", "rb") as file:
            first_line = file.read(4096).split(b"\n", 1)[0].strip()
        zone = _zone_from(_text(first_line))
        if zone is not None:
            return zone
    except OSError:
        pass
    try:
        zone = _zone_from(_text(os.readlink("/etc/localtime")))
        if zone is not None:
            return zone
    except (OSError, ValueError):
        pass
    return "UTC" if offset_seconds == 0 else "unknown"


def collect_environment_facts(
    cwd: str | os.PathLike[str], *, git_timeout: float = GIT_TIMEOUT_SECONDS
) -> EnvironmentFacts:
    """The :class:`EnvironmentFacts` of ``cwd`` on this host, now.

    Never raises because of git (see the module docstring); the date raises
    ``DefinitionError(code="date_out_of_range")`` only if the host clock is
    outside years 1..9999.
    """
    now = int(time.time())
    offset = time.localtime(now).tm_gmtoff
    return EnvironmentFacts(
        cwd=_text(os.path.abspath(os.fspath(cwd))),
        shell=_shell(),
        os=platform.system().lower() or "unknown",
        current_date=civil_date(now, offset),
        timezone=_timezone(offset),
        git=collect_git_status(cwd, git_timeout),
    )
