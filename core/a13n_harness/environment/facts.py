"""Collecting checkout facts from the host (docs/contract.md §6).

This is the I/O half of :mod:`a13n_harness.context.facts`: it runs git, reads
``$SHELL``, the platform, the clock and the time zone, and hands the values to
the pure core. Collection never fails because of git: a missing binary, a
directory that is not a repository, a git that hangs past its timeout or
prints something the parser refuses all give ``git=None`` (rendered as
``not a git repository``).

The checkout is untrusted (docs/contract.md §6): git never reads its configuration
and nothing of the caller's environment but ``PATH`` reaches git (see
:func:`collect_git_status`); a checkout git could not be asked about safely
gives ``git=None`` too.

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
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from functools import partial
from typing import TYPE_CHECKING, NamedTuple

if sys.platform != "win32":
    import resource

from a13n_harness.context._checks import plain_str, type_name
from a13n_harness.context.defaults import GIT_TIMEOUT_SECONDS
from a13n_harness.context.errors import DefinitionError
from a13n_harness.environment.paths import resolve_link_target

if TYPE_CHECKING:
    from collections.abc import Callable
from a13n_harness.context.facts import (
    EnvironmentFacts,
    GitStatus,
    civil_date,
    parse_git_status,
)

__all__ = [
    "GIT_MEMORY_LIMIT_BYTES",
    "GIT_TIMEOUT_SECONDS",
    "collect_environment_facts",
    "collect_git_status",
]

# An IANA zone name: slash-separated components of letters, digits, ``_``,
# ``+`` and ``-`` (``America/Argentina/Buenos_Aires``, ``Etc/GMT+5``, ``UTC``).
_ZONE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_+\-]*(?:/[A-Za-z0-9_+\-]+)*")
_ZONEINFO_MARK = "zoneinfo/"


def _text(value: str | bytes) -> str:
    """A host string as plain UTF-8 text: undecodable bytes become U+FFFD."""
    raw = value if isinstance(value, bytes) else os.fsencode(value)
    return raw.decode("utf-8", errors="replace")


def _checked_directory(cwd: object) -> str:
    """``cwd`` as a ``str`` path; a caller's wrong type is ``context_value_invalid``.

    ``cwd`` becomes the ``<cwd>`` fact, so the code is the one for facts; the
    reason names the argument. Bytes paths are refused too: the fact is text.
    """
    path: object = None
    if isinstance(cwd, (str, os.PathLike)):
        try:
            path = plain_str(os.fspath(cwd))  # a Host's str subclass: its characters
        except Exception:  # a __fspath__ that returns neither str nor bytes, or fails
            path = None
    if type(path) is not str:
        raise DefinitionError(
            "context_value_invalid",
            f"cwd must be a str or os.PathLike[str] path, not {type_name(type(cwd))}",
            reason="cwd",
        )
    return path


def _check_timeout(timeout: object) -> None:
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
        raise DefinitionError(
            "git_status_invalid",
            f"the git timeout must be a number of seconds, not {type(timeout).__name__}",
            reason="timeout",
        )


def collect_git_status(
    cwd: str | os.PathLike[str], timeout: float = GIT_TIMEOUT_SECONDS
) -> GitStatus | None:
    """The git status of the checkout holding ``cwd``; ``None`` when it cannot be had safely.

    The checkout is untrusted (docs/contract.md §6), so git never reads its
    configuration: the checkout is found here (``.git`` directory or gitdir
    file, up to a file-system boundary), and git runs with ``GIT_DIR`` set to a
    private scratch directory whose ``config`` this function writes. The
    scratch directory borrows the checkout's objects, refs, index and
    ``info/exclude`` by symbolic link, so git reads them but can run nothing
    the checkout configures (fsmonitor, hooks, filters, drivers, pager, helpers,
    includes, lazy fetches, submodule configs). The only values taken from the
    checkout's config are listed by ``git config --file --no-includes`` and
    carried over from a fixed list of inert keys (upstream tracking, file-system
    flags, the object format); an unknown repository extension gives ``None``.
    The environment git sees is built from nothing but ``PATH`` (absolute
    entries only), so no ``GIT_*`` variable, ``HOME`` or ``XDG_CONFIG_HOME`` of
    the caller reaches it. ``timeout`` bounds every git run together.
    """
    start = _checked_directory(cwd)
    _check_timeout(timeout)
    if not timeout > 0:  # also NaN: no time at all to run git
        return None
    # An hour at most, the CLI's bound too: "no limit" would let git hold the turn.
    deadline = time.monotonic() + min(timeout, _LONGEST_TIMEOUT_SECONDS)
    try:
        checkout = _find_checkout(os.path.abspath(start))
    except (OSError, ValueError, _Unsafe):
        return None
    if checkout is None:
        return None
    search_path = _search_path(os.environ.get("PATH", os.defpath), checkout)
    git = _find_program("git", search_path)
    if git is None:
        return None
    try:
        scratch = tempfile.mkdtemp(prefix="a13n-git-")
    except OSError:
        return None
    try:
        return _status_in_scratch(git, search_path, checkout, scratch, deadline)
    except (OSError, ValueError, UnicodeError, _Unsafe):
        return None
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


_LONGEST_TIMEOUT_SECONDS = 3600.0

GIT_MEMORY_LIMIT_BYTES = 512 * 2**20
"""The data limit (``RLIMIT_DATA``: heap and private writable mappings) each git child
runs under, set in the child before git starts. ``git status`` on a checkout of a
million files needs a few hundred MiB; a file the collector did not think of that
makes git read without end (``/dev/zero`` behind a link) ends there, in under a
second, instead of at the timeout. Files git maps read-only (packs, the index) do
not count against it."""

# Bounds on the files of the checkout's git directory that git is given (each must
# be a regular file within its bound, or the fact is unknown). A loose ref, HEAD, a
# gitdir file, commondir hold one name; config, info/exclude, shallow and alternates
# are short listings; packed-refs and the index grow with the repository and git
# maps them rather than reading them into memory.
_LISTING_FILE_BYTES = 16 * 2**20
_PACKED_REFS_BYTES = 512 * 2**20
_INDEX_FILE_BYTES = 4 * 2**30
# Loose refs copied into the scratch directory (refs/heads and refs/remotes), and
# entries of ``objects`` linked: more is not a git directory git made.
_MAX_LOOSE_REFS = 50_000
_MAX_OBJECT_ENTRIES = 1024
# Entries of the object store looked at, at every depth, to find links in it: git packs
# loose objects once 6,700 of them lie about (gc.auto), so a million is far past any
# store git keeps, and listing that many costs about a second, not an unbounded walk.
_MAX_OBJECT_FILES = 1_000_000
# Links followed resolving one path of a git directory: the kernel's own bound
# (Linux MAXSYMLINKS, the operators' MAX_LINK_HOPS); a longer chain is a loop.
_MAX_LINK_HOPS = 40


class _Unsafe(Exception):
    """A file of the checkout's git directory that git must not be given: the fact is unknown."""


# ------------------------------------------------- finding the checkout safely

# Bounds on the small files read by hand: a gitdir file, HEAD, commondir hold
# one path or one ref name (PATH_MAX is 4096 on Linux).
_SMALL_FILE_BYTES = 4096
_HEX = frozenset(b"0123456789abcdef")


class _Checkout(NamedTuple):
    top: str  # the work tree: the directory holding ``.git``
    gitdir: str  # HEAD and index live here (per worktree)
    commondir: str  # config, objects, refs, packed-refs, info/exclude


def _read_small(path: str) -> bytes | None:
    """A regular file's bytes, at most :data:`_SMALL_FILE_BYTES`; ``None`` otherwise.

    Opened non-blocking so a FIFO or a device never holds the caller, and
    checked with ``fstat`` on the opened descriptor (no race with a swap).
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    flags |= getattr(os, "O_NOCTTY", 0)
    try:
        descriptor = os.open(path, flags)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            return None
        data = os.read(descriptor, _SMALL_FILE_BYTES + 1)
    except OSError:
        return None
    finally:
        os.close(descriptor)
    return data if len(data) <= _SMALL_FILE_BYTES else None


def _confined(place: str, name: str) -> str | None:
    """The path of ``name`` below the git directory ``place`` with every link resolved;
    ``None`` when nothing is there; :class:`_Unsafe` when a link leads out of ``place``.

    ``place`` is a real path (no link in it) and ``name`` a relative path of fixed
    segments (``objects``, ``info/exclude``). Each segment is looked at with ``lstat``;
    a link is read with ``readlink`` and resolved on its spelling alone
    (:func:`~a13n_harness.environment.paths.resolve_link_target`, the operators' rule)
    against ``place``, then walked the same way. A link that leaves is refused before
    anything behind it is looked at, so whether the outside path exists never shows;
    the answer is a path of ``place`` whose every segment was seen not to be a link,
    which is what git is given (never the checkout's own link, which the kernel would
    resolve on its own terms).
    """
    root = [segment for segment in place.split("/") if segment]
    done: list[str] = []
    pending = [segment for segment in name.split("/") if segment][::-1]
    hops = 0
    while pending:
        segment = pending.pop()
        here = os.path.join(place, *done, segment)
        try:
            mode = os.lstat(here).st_mode
        except FileNotFoundError:
            return None
        except OSError:
            raise _Unsafe(here) from None
        if stat.S_ISLNK(mode):
            hops += 1
            if hops > _MAX_LINK_HOPS:
                raise _Unsafe(here)
            resolved = resolve_link_target(done, os.readlink(here), root)
            if resolved is None:
                raise _Unsafe(here)
            done = []
            pending.extend(reversed(resolved))
            continue
        if pending and not stat.S_ISDIR(mode):
            return None  # a file where a folder should be: git finds nothing there either
        done.append(segment)
    return os.path.join(place, *done)


def _confined_directory(place: str, name: str) -> str:
    """:func:`_confined` of a directory git needs: :class:`_Unsafe` when it is not one."""
    found = _confined(place, name)
    if found is None or not _is_directory(found):
        raise _Unsafe(os.path.join(place, name))
    return found


def _head_of(gitdir: str) -> bytes | None:
    """The checkout's HEAD normalised (``ref: refs/...`` or an object name), or ``None``.

    ``gitdir`` is a real path; a HEAD that is a link leading out of it is :class:`_Unsafe`.
    """
    head = _confined(gitdir, "HEAD")
    data = None if head is None else _read_small(head)
    if data is None:
        return None
    text = data.rstrip(b"\r\n")
    if text.startswith(b"ref:"):
        name = text[4:].lstrip(b" \t")
        if not name.startswith(b"refs/") or any(c < 0x20 or c == 0x7F for c in name):
            return None
        return b"ref: " + name + b"\n"
    if len(text) in (40, 64) and set(text) <= _HEX:
        return text + b"\n"
    return None


def _is_directory(path: str) -> bool:
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def _git_directory(gitdir: str) -> _Checkout | None:
    """``gitdir`` as a git directory (HEAD, objects, refs), with its common directory.

    Both are kept as real paths: a ``.git`` link, a gitdir file and ``commondir`` name
    them, and are followed as git follows them; below them, every file and folder is
    reached through :func:`_confined`, so a link there that leaves is :class:`_Unsafe`
    (the fact is unknown) whether its target exists or not.
    """
    gitdir = os.path.realpath(gitdir)
    if not _is_directory(gitdir) or _head_of(gitdir) is None:
        return None
    commondir = gitdir
    pointer_file = _confined(gitdir, "commondir")
    if pointer_file is not None:
        pointer = _read_small(pointer_file)
        if pointer is None:
            return None
        commondir = os.path.realpath(os.path.join(gitdir, os.fsdecode(pointer.rstrip(b"\r\n"))))
        if not _is_directory(commondir):
            return None
    objects = _confined(commondir, "objects")
    refs = _confined(commondir, "refs")
    if objects is None or refs is None or not (_is_directory(objects) and _is_directory(refs)):
        return None
    return _Checkout("", gitdir, commondir)


def _find_checkout(start: str) -> _Checkout | None:
    """The checkout holding ``start``, found as git finds it, or ``None``.

    At each directory from ``start`` up: a ``.git`` directory or a gitdir file
    (``gitdir: PATH``) naming a git directory makes this the work tree. A
    directory that is itself a git directory (a bare repository, or ``start``
    inside ``.git``) has no work tree: ``None``, as ``git status`` refuses it.
    The walk stops where the file system changes, as git's does by default,
    and before entering a directory named in ``GIT_CEILING_DIRECTORIES`` (the
    one variable of the caller's honoured: it can only narrow the search).
    """
    if not _is_directory(start):
        return None
    device = os.stat(start).st_dev
    ceilings = {
        os.path.normpath(entry)
        for entry in os.environ.get("GIT_CEILING_DIRECTORIES", "").split(os.pathsep)
        if os.path.isabs(entry)
    }
    directory = start
    while True:
        marker = os.path.join(directory, ".git")
        found: _Checkout | None = None
        if _is_directory(marker):
            found = _git_directory(marker)
        elif os.path.lexists(marker):
            pointer = _read_small(marker)
            if pointer is not None and pointer.startswith(b"gitdir:"):
                target = os.fsdecode(pointer[7:].strip(b" \t\r\n"))
                found = _git_directory(os.path.join(directory, target)) if target else None
        if found is not None:
            return found._replace(top=directory)
        if _git_directory(directory) is not None:
            return None
        parent = os.path.dirname(directory)
        if parent == directory or parent in ceilings or os.stat(parent).st_dev != device:
            return None
        directory = parent


# ------------------------------------------------------ running git safely

# Only these keys of the checkout's config reach git, each validated: they
# change what git reports (upstream, file-system behaviour, object format) and
# none of them makes git run, read or fetch anything.
_FILE_SYSTEM_KEYS = (
    b"core.filemode",
    b"core.symlinks",
    b"core.precomposeunicode",
    b"core.trustctime",
    b"core.checkstat",
    b"core.autocrlf",
    b"core.eol",
)
_INERT_VALUE = re.compile(rb"[A-Za-z0-9]{1,16}")
# Repository extensions that change nothing for a read-only status through the
# scratch directory (partialClone is dropped: a missing object fails instead of
# being fetched). Any other extension may change what the files mean: unknown.
_IGNORED_EXTENSIONS = frozenset(
    (b"noop", b"noop-v1", b"preciousobjects", b"partialclone", b"worktreeconfig")
)
_OBJECT_FORMATS = frozenset((b"sha1", b"sha256"))
# Settings given on the command line too, so that they hold whatever the
# scratch config says: no fsmonitor, no hooks, no transport at all (a lazy
# fetch would run ssh or upload-pack), no pager.
_SAFE_OPTIONS = (
    "--no-optional-locks",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.hooksPath=/dev/null/no-hooks",
    "-c",
    "protocol.allow=never",
    "-c",
    "core.pager=cat",
    "-c",
    "core.quotepath=off",
)


def _absolute_path_entries(path_value: str) -> list[str]:
    """``PATH`` without relative or empty entries (they name the current directory,
    which may be the untrusted checkout)."""
    return [entry for entry in path_value.split(os.pathsep) if os.path.isabs(entry)]


def _search_path(path_value: str, checkout: _Checkout) -> list[str]:
    """The absolute ``PATH`` entries that lie outside the checkout and its git directories.

    A CI job that puts ``$PWD/bin`` or ``$PWD/node_modules/.bin`` on ``PATH`` would
    otherwise run a ``git`` that the pull request ships.
    """
    untrusted = [
        os.path.realpath(place) for place in (checkout.top, checkout.gitdir, checkout.commondir)
    ]
    kept = []
    for entry in _absolute_path_entries(path_value):
        real = os.path.realpath(entry)
        if not any(
            real == place or real.startswith(place.rstrip(os.sep) + os.sep) for place in untrusted
        ):
            kept.append(entry)
    return kept


def _find_program(name: str, search_path: list[str]) -> str | None:
    for entry in search_path:
        candidate = os.path.join(entry, name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def _clean_environment(scratch: str, search_path: list[str], top: str) -> dict[str, str]:
    """Everything git is told by the environment, built from nothing."""
    home = os.path.join(scratch, "home")
    environment = {
        "PATH": os.pathsep.join(search_path),
        "HOME": home,
        "XDG_CONFIG_HOME": os.path.join(home, ".config"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_SYSTEM": os.devnull,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_ATTR_NOSYSTEM": "1",
        "GIT_DIR": scratch,
        "GIT_WORK_TREE": top,
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_OPTIONAL_LOCKS": "0",
        "GIT_NO_REPLACE_OBJECTS": "1",
        "LC_ALL": "C",
    }
    system_root = os.environ.get("SYSTEMROOT")
    if sys.platform == "win32" and system_root:  # pragma: no cover - Windows only
        environment["SYSTEMROOT"] = system_root
    return environment


# A split index names one shared index (``sharedindex.<hex>``); a few stale ones
# may linger until git expires them. More than this is not a git directory git made.
_MAX_SHARED_INDEXES = 64


def _shared_index_names(gitdir: str) -> list[str]:
    names = []
    try:
        with os.scandir(gitdir) as entries:
            for entry in entries:
                if entry.name.startswith("sharedindex."):
                    names.append(entry.name)
                    if len(names) > _MAX_SHARED_INDEXES:
                        return []
    except OSError:
        return []
    return names


def _link_regular(place: str, name: str, link: str, bound: int) -> None:
    """Link ``link`` to ``name`` of the git directory ``place`` when that is a regular
    file of at most ``bound`` bytes.

    Nothing when it does not exist (git then finds nothing either); :class:`_Unsafe`
    for anything else: a link leading out of ``place`` (:func:`_confined`), a link to
    ``/dev/zero``, a FIFO, a device, a directory, a file past its bound. The link names
    the resolved file, so no link of the checkout is followed again when git opens it.
    """
    target = _confined(place, name)
    if target is None:
        return
    try:
        found = os.stat(target)
    except OSError:
        raise _Unsafe(target) from None
    if not stat.S_ISREG(found.st_mode) or found.st_size > bound:
        raise _Unsafe(target)
    os.symlink(target, link)


def _read_bounded(path: str, bound: int) -> bytes:
    """A regular file's bytes, at most ``bound``; :class:`_Unsafe` for anything else.

    Opened non-blocking and without following a final link (a FIFO never holds the
    caller, a link to a device is refused), checked with ``fstat`` on the descriptor.
    """
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    flags |= getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        descriptor = os.open(path, flags)
    except OSError:
        raise _Unsafe(path) from None
    try:
        found = os.fstat(descriptor)
        if not stat.S_ISREG(found.st_mode) or found.st_size > bound:
            raise _Unsafe(path)
        data = os.read(descriptor, bound + 1)
    except OSError:
        raise _Unsafe(path) from None
    finally:
        os.close(descriptor)
    if len(data) > bound:
        raise _Unsafe(path)
    return data


def _copy_loose_refs(source: str, target: str) -> None:
    """Copy ``refs/heads`` and ``refs/remotes`` of the checkout into the scratch ``refs``.

    ``git status --branch`` reads the branch's ref and its upstream's; git reads a
    loose ref whole whatever it is (a link to ``/dev/zero`` grows without end). So
    git is given copies: every entry must be a directory or a regular file of at
    most :data:`_SMALL_FILE_BYTES` (a link, a FIFO or a device is :class:`_Unsafe`),
    and more than :data:`_MAX_LOOSE_REFS` entries is too. Tags and other namespaces
    are not copied: status does not read them.
    """
    os.mkdir(target)
    budget = _MAX_LOOSE_REFS
    pending = [
        (os.path.join(source, name), os.path.join(target, name)) for name in ("heads", "remotes")
    ]
    while pending:
        here, there = pending.pop()
        try:
            mode = os.lstat(here).st_mode
        except FileNotFoundError:
            continue
        if not stat.S_ISDIR(mode):
            raise _Unsafe(here)
        os.mkdir(there)
        with os.scandir(here) as entries:
            for entry in entries:
                budget -= 1
                if budget < 0:
                    raise _Unsafe(here)
                inner, copy = os.path.join(here, entry.name), os.path.join(there, entry.name)
                if entry.is_dir(follow_symlinks=False):
                    pending.append((inner, copy))
                    continue
                data = _read_bounded(inner, _SMALL_FILE_BYTES)
                with open(copy, "xb") as file:
                    file.write(data)


def _link_objects(place: str, target: str) -> None:
    """The scratch ``objects``: the checkout's object store, ``info`` left out, given to
    git with no link that leaves ``place`` (the common git directory).

    Git maps loose objects and packs read-only (a link to a device there maps
    nothing, and the memory limit holds whatever it does). ``objects/info`` is not
    given: its ``alternates`` would have git read other object directories, outside
    the checkout, and their own alternates in turn (a read outside the root),
    so a checkout that borrows objects has an unknown git fact; the
    commit graphs there only speed up ahead/behind counting.

    Git follows a link wherever it meets one in the store (``objects`` itself,
    ``objects/pack``, a loose object, a pack's index), so the whole store is looked
    at: a folder holding no link and no folder (a loose-object folder, ``pack``) is
    linked whole at its real path; any other folder is made in the scratch store
    and its entries given one by one, each link resolved by :func:`_confined` and
    given at its resolved path. A link that leaves ``place``, at any depth, makes the
    fact unknown, as alternates do; more than :data:`_MAX_OBJECT_FILES` entries too.
    """
    source = _confined_directory(place, "objects")
    alternates = _confined(place, "objects/info/alternates")
    if alternates is not None:
        listing = _read_bounded(alternates, _LISTING_FILE_BYTES)
        if any(line.strip() and not line.startswith(b"#") for line in listing.splitlines()):
            raise _Unsafe(alternates)
    budget = _MAX_OBJECT_FILES
    pending = [(source, target)]
    while pending:
        folder, copy = pending.pop()
        with os.scandir(folder) as entries:  # the kinds come with the listing (d_type)
            listed = [(entry.name, _kind(entry)) for entry in entries]
        budget -= len(listed)
        if budget < 0 or (folder == source and len(listed) > _MAX_OBJECT_ENTRIES):
            raise _Unsafe(folder)
        if folder != source and all(kind == "other" for _, kind in listed):
            os.symlink(folder, copy)  # the common case: nothing in it to look into
            continue
        os.mkdir(copy)
        for name, kind in listed:
            inner = os.path.join(folder, name)
            if folder == source and name == "info":
                continue
            if kind == "link":
                resolved = _confined(place, os.path.relpath(inner, place))
                if resolved is None:
                    continue  # a link to nothing: git finds nothing there either
                inner = resolved
                kind = "folder" if _is_directory(inner) else "other"
            if kind == "folder":
                pending.append((inner, os.path.join(copy, name)))
            else:
                os.symlink(inner, os.path.join(copy, name))


def _kind(entry: os.DirEntry[str]) -> str:
    """``link``, ``folder`` or ``other`` (a file, a FIFO, a device), never following."""
    if entry.is_symlink():
        return "link"
    return "folder" if entry.is_dir(follow_symlinks=False) else "other"


def _quoted(value: bytes) -> bytes:
    """A config value or subsection in double quotes (no control characters reach here)."""
    return b'"' + value.replace(b"\\", b"\\\\").replace(b'"', b'\\"') + b'"'


def _config_entries(listing: bytes) -> list[tuple[bytes, bytes | None]] | None:
    """``git config --list -z`` output as (key, value) pairs; ``None`` if malformed."""
    if listing and not listing.endswith(b"\0"):
        return None
    entries: list[tuple[bytes, bytes | None]] = []
    for record in listing.split(b"\0")[:-1]:
        key, newline, value = record.partition(b"\n")
        if not key:
            return None
        entries.append((key, value if newline else None))
    return entries


def _case_insensitive(top: str) -> bool:
    """Whether the work tree's file system folds case, probed as ``git init`` does.

    ``core.ignorecase`` is never taken from the checkout: on a case-sensitive file system a
    checkout claiming ``true`` would make git take ``one.txt`` for the tracked ``One.txt``
    and change the untracked count. ``.git`` and ``.GIT`` naming one inode means folding;
    a separate ``.GIT`` (a checkout can hold one) means the file system keeps case.
    """
    try:
        return os.path.samestat(
            os.lstat(os.path.join(top, ".git")), os.lstat(os.path.join(top, ".GIT"))
        )
    except OSError:
        return False


def _scratch_config(
    entries: list[tuple[bytes, bytes | None]], head: bytes, *, ignore_case: bool = False
) -> bytes | None:
    """The scratch directory's config: inert keys of the checkout only, or ``None``.

    ``ignore_case`` is the work tree's own file system's (:func:`_case_insensitive`).
    """
    last: dict[bytes, bytes | None] = {}
    for key, value in entries:
        last[key] = value
    version = last.get(b"core.repositoryformatversion", b"0")
    if version not in (b"0", b"1"):
        return None
    lines = [b"[core]", b"\trepositoryformatversion = " + version, b"\tbare = false"]
    lines.append(b"\tignorecase = " + (b"true" if ignore_case else b"false"))
    for key in _FILE_SYSTEM_KEYS:
        value = last.get(key)
        if value is not None and _INERT_VALUE.fullmatch(value):
            lines.append(b"\t" + key[5:] + b" = " + value)
    if version == b"1":
        lines.append(b"[extensions]")
        for key, value in last.items():
            if not key.startswith(b"extensions."):
                continue
            name = key[11:].lower()
            if name == b"objectformat" and value in _OBJECT_FORMATS:
                lines.append(b"\tobjectformat = " + value)
            elif name not in _IGNORED_EXTENSIONS:
                return None
    if head.startswith(b"ref: refs/heads/"):
        branch = head[16:-1]
        remote_key = b"branch." + branch + b".remote"
        merge_key = b"branch." + branch + b".merge"
        remote = last.get(remote_key) or b"origin"
        merges = [v for k, v in entries if k == merge_key and v is not None]
        fetches = [v for k, v in entries if k == b"remote." + remote + b".fetch" and v]
        urls = [v for k, v in entries if k == b"remote." + remote + b".url" and v]
        carried = [remote, *merges, *fetches, *urls]
        if any(c < 0x20 or c == 0x7F for value in carried for c in value):
            return None
        if merges:
            lines.append(b"[branch " + _quoted(branch) + b"]")
            lines.append(b"\tremote = " + _quoted(remote))
            lines.extend(b"\tmerge = " + _quoted(merge) for merge in merges)
        if remote != b"." and (fetches or urls):
            lines.append(b"[remote " + _quoted(remote) + b"]")
            lines.extend(b"\turl = " + _quoted(url) for url in urls)
            lines.extend(b"\tfetch = " + _quoted(fetch) for fetch in fetches)
    return b"\n".join(lines) + b"\n"


def _status_in_scratch(
    git: str, search_path: list[str], checkout: _Checkout, scratch: str, deadline: float
) -> GitStatus | None:
    head = _head_of(checkout.gitdir)
    if head is None:
        return None
    with open(os.path.join(scratch, "HEAD"), "wb") as file:
        file.write(head)
    with open(os.path.join(scratch, "config"), "wb") as file:
        file.write(b"[core]\n\trepositoryformatversion = 0\n\tbare = false\n")
    # Every file git is given is a regular file within a bound (_Unsafe otherwise:
    # the fact is unknown); what git reads whole is copied, what it maps is linked.
    # Both are real paths (_git_directory); nothing below them is given to git through
    # a link that leaves them (_confined), whatever its depth: the fact is unknown then.
    common, own = checkout.commondir, checkout.gitdir
    _link_objects(common, os.path.join(scratch, "objects"))
    _copy_loose_refs(_confined_directory(common, "refs"), os.path.join(scratch, "refs"))
    packed_refs = os.path.join(scratch, "packed-refs")
    _link_regular(common, "packed-refs", packed_refs, _PACKED_REFS_BYTES)
    _link_regular(common, "shallow", os.path.join(scratch, "shallow"), _LISTING_FILE_BYTES)
    _link_regular(own, "index", os.path.join(scratch, "index"), _INDEX_FILE_BYTES)
    for name in _shared_index_names(own):  # a split index reads these by name
        _link_regular(own, name, os.path.join(scratch, name), _INDEX_FILE_BYTES)
    os.mkdir(os.path.join(scratch, "info"))
    exclude = os.path.join(scratch, "info", "exclude")
    _link_regular(common, "info/exclude", exclude, _LISTING_FILE_BYTES)
    environment = _clean_environment(scratch, search_path, checkout.top)

    config = _confined(common, "config")
    entries: list[tuple[bytes, bytes | None]] = []
    if config is not None:
        try:
            found = os.stat(config)
        except OSError:
            return None
        if not stat.S_ISREG(found.st_mode) or found.st_size > _LISTING_FILE_BYTES:
            return None
        listing = _run_git(
            [git, *_SAFE_OPTIONS, "config", "--file", config, "--no-includes", "--list", "-z"],
            scratch,
            environment,
            deadline,
        )
        parsed = None if listing is None else _config_entries(listing)
        if parsed is None:
            return None
        entries = parsed
    scratch_config = _scratch_config(entries, head, ignore_case=_case_insensitive(checkout.top))
    if scratch_config is None:
        return None
    with open(os.path.join(scratch, "config"), "wb") as file:
        file.write(scratch_config)

    output = _run_git(
        [
            git,
            *_SAFE_OPTIONS,
            "status",
            "--porcelain=v2",
            "--branch",
            "-z",
            "--untracked-files=normal",
            "--ignore-submodules=all",
        ],
        checkout.top,
        environment,
        deadline,
    )
    if output is None:
        return None
    try:
        return parse_git_status(output)
    except DefinitionError:
        return None


def _run_git(
    command: list[str], cwd: str, environment: dict[str, str], deadline: float
) -> bytes | None:
    """``command``'s stdout if it exits 0 before ``deadline``; ``None`` otherwise.

    No standard input, stderr discarded, in a new session so that a timeout
    kills git and everything it started.
    """
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        return None
    try:
        process = subprocess.Popen(
            command,
            cwd=cwd,
            env=environment,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=sys.platform != "win32",
            preexec_fn=_memory_limit(),  # noqa: PLW1509 - see _memory_limit
        )
    except (OSError, ValueError, subprocess.SubprocessError):
        return None
    try:
        output, _ = process.communicate(timeout=remaining)
    except subprocess.TimeoutExpired:
        _kill(process)
        return None
    if process.returncode != 0:
        return None
    return output


def _memory_limit() -> Callable[[], None] | None:
    """What the git child calls before ``exec``: ``setrlimit(RLIMIT_DATA, ...)`` at
    :data:`GIT_MEMORY_LIMIT_BYTES` (or the caller's own hard limit when that is lower).

    Everything is computed here, in the parent: the child only calls the C function
    ``resource.setrlimit`` with ready arguments (no import, no allocation of ours),
    which is what makes ``preexec_fn`` safe enough in a threaded Host. A limit the
    system refuses makes ``Popen`` fail, and the fact unknown.
    """
    if sys.platform == "win32":  # pragma: no cover - no rlimits there
        return None
    _, hard = resource.getrlimit(resource.RLIMIT_DATA)
    limit = GIT_MEMORY_LIMIT_BYTES
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    return partial(resource.setrlimit, resource.RLIMIT_DATA, (limit, limit))


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
    outside years 1..9999. A ``cwd`` that is not a ``str`` path is
    ``context_value_invalid`` (reason ``cwd``), a ``git_timeout`` that is not a
    number ``git_status_invalid`` (reason ``timeout``).
    """
    start = _checked_directory(cwd)
    _check_timeout(git_timeout)
    now = int(time.time())
    offset = time.localtime(now).tm_gmtoff
    return EnvironmentFacts(
        cwd=_text(os.path.abspath(start)),
        shell=_shell(),
        os=platform.system().lower() or "unknown",
        current_date=civil_date(now, offset),
        timezone=_timezone(offset),
        git=collect_git_status(cwd, git_timeout),
    )
