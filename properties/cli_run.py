"""Running ``a13n-skills`` as a user does, for every command-line test module.

One subprocess helper instead of one per module: the environment (the package under
test first on the path, no user or system git configuration),
the checks every run shares (never a traceback on stderr) and the shape of a
failure (exit 1, one line ``a13n-skills: ...`` on stderr).
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Literal

import a13n_harness
from bounded import call_bounded, run_bounded

REPO = Path(__file__).resolve().parent.parent
# The folder holding the a13n_harness under test: core/ in a source-tree run, the fresh
# environment's site-packages in the gate's wheel run (scripts/verify.py --target wheel).
CORE = Path(a13n_harness.__file__).resolve().parent.parent
DEMO = REPO / "examples" / "demo-workspace"
SCRIPT = Path(sys.executable).with_name("a13n-skills")

# How a test runs the command: the installed console script, ``python -m a13n_harness.cli``,
# or ``here``: ``main(ARGS)`` called in the test's own process (see ``run_here``).
Via = Literal["script", "module", "here"]


def command(via: Via = "script") -> list[str]:
    """The installed console script (``module``: ``python -m a13n_harness.cli``; also the
    fallback when the package is not installed)."""
    if via == "script" and SCRIPT.exists():
        return [str(SCRIPT)]
    return [sys.executable, "-m", "a13n_harness.cli"]


def cli_environment(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """This process's environment with this checkout's package first and git configured by
    nothing outside the test (no global or system file)."""
    return {
        **os.environ,
        "PYTHONPATH": str(CORE),
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        **(extra or {}),
    }


def run_cli(
    *args: str | os.PathLike[str],
    via: Via = "script",
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    stdin: bytes | None = None,
    close: str = "",
    cpu_seconds: float = 60,
) -> subprocess.CompletedProcess[bytes]:
    """``a13n-skills ARGS`` in ``cwd`` (default the repository) with ``env`` added to the
    environment and the descriptors named in ``close`` ("0", "1", "2", "12") shut, under a CPU
    budget (``bounded.run_bounded``). ``via="here"`` runs it in this process instead
    (``run_here``)."""
    if via == "here":
        assert not close, "closing a standard descriptor needs a process of its own"
        return run_here(*args, cwd=cwd, env=env, stdin=stdin, cpu_seconds=cpu_seconds)
    argv = [*command(via), *map(str, args)]
    if close:
        redirections = " ".join(f"{fd}>&-" for fd in close)
        argv = ["/bin/sh", "-c", f'exec "$@" {redirections}', "sh", *argv]
    result = run_bounded(
        argv,
        cpu_seconds=cpu_seconds,
        cwd=cwd or REPO,
        env=cli_environment(env),
        input=stdin,
        capture_output=True,
    )
    assert b"Traceback" not in result.stderr, result.stderr.decode(errors="replace")
    return result


def one_error_line(result: subprocess.CompletedProcess[bytes]) -> str:
    """The single stderr line of a command that failed (exit 1)."""
    assert result.returncode == 1, result
    lines = result.stderr.decode().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("a13n-skills: "), lines
    return lines[0]


@contextlib.contextmanager
def _process_state(cwd: Path, env: Mapping[str, str]) -> Iterator[None]:
    """This process's working directory and environment as a child's would be, restored after."""
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    os.environ.clear()
    os.environ.update(env)
    time.tzset()  # the environment facts read the local time zone from TZ
    os.chdir(cwd)
    try:
        yield
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
        time.tzset()


def run_here(
    *args: str | os.PathLike[str],
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    stdin: bytes | None = None,
    cpu_seconds: float = 60,
    whole_env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """``a13n-skills ARGS`` as ``main(ARGS)`` in this process: the working directory, the
    environment (``cli_environment(env)``, or ``whole_env`` as it is: nothing of this process's
    own) and the three standard streams a child would have, its
    exit code, stdout and stderr as bytes; under a CPU budget (``bounded.call_bounded``: a
    command that never ends fails the test, it does not hang it).

    For the tests of what a command decides (its findings, its output, its exit code), the
    same code without a new interpreter's start (a tenth to a quarter of a CPU second, and a
    tokenizer loaded again each time). What needs a process boundary (closed or failing
    descriptors, a file size limit, the console script, what a fresh interpreter reads)
    keeps ``run_cli``'s child."""
    from a13n_harness.cli import main  # noqa: PLC0415 - the package under test, at call time

    argv = [os.fspath(arg) for arg in args]
    out, err = io.BytesIO(), io.BytesIO()
    streams = (
        io.TextIOWrapper(io.BytesIO(stdin or b""), encoding="utf-8"),
        io.TextIOWrapper(out, encoding="utf-8", write_through=True),
        io.TextIOWrapper(err, encoding="utf-8", errors="backslashreplace", write_through=True),
    )
    saved = (sys.stdin, sys.stdout, sys.stderr)
    environment = cli_environment(env) if whole_env is None else whole_env
    with _process_state(cwd or REPO, environment):
        sys.stdin, sys.stdout, sys.stderr = streams
        try:
            code = call_bounded(
                lambda: main(argv), cpu_seconds=cpu_seconds, what=f"a13n-skills {argv[:2]}"
            )
        finally:
            sys.stdin, sys.stdout, sys.stderr = saved
            for stream in streams[1:]:
                stream.flush()
    result = subprocess.CompletedProcess(
        ["a13n-skills", *argv], code, out.getvalue(), err.getvalue()
    )
    assert b"Traceback" not in result.stderr, result.stderr.decode(errors="replace")
    return result
