"""The confinement walk: how a path below a pinned host directory is resolved.

This module is the security boundary of :class:`~a13n_harness.environment.LocalFileOperator`
(which keeps the operations and the async facade). The argument that no
path and no symbolic link reaches outside the root:

1. **Paths are canonical** (:mod:`a13n_harness.environment.paths`): no ``..``,
   ``.`` or empty segment, no NUL. So a path by itself names only segments
   below the root; nothing is normalized, so there is no spelling to exploit.
2. **The root is a descriptor, not a path.** :func:`pin_root` opens it once and
   checks the real path names the very directory opened (same device and
   inode). Every walk starts from that descriptor, so renaming the root or
   swapping it for a link afterwards changes nothing: the walk never looks
   the root up by name again.
3. **One segment at a time, never following.** :class:`Walker` opens each
   directory relative to the descriptor of its parent, with ``O_NOFOLLOW``
   (:data:`WALK_FLAGS`), and inspects every entry with ``lstat``. A link is
   therefore never followed by the kernel; the walk meets it as a link. Since
   every step is relative to a descriptor already checked, a directory
   swapped for a link between two steps is refused (``ELOOP``/``ENOTDIR``),
   never followed.
4. **Links are resolved lexically, then walked the same way.** A link met on
   the way is read with ``readlinkat``; its target is resolved on its
   spelling alone by :func:`~a13n_harness.environment.paths.resolve_link_target`
   (``//x``, ``/./x``, ``a/../b``, trailing ``/`` are spellings, not escapes),
   to segments below the root or to "outside". Outside is refused with
   :class:`FilePermissionDenied` *before* anything behind the target is
   touched, so whether an outside path exists never shows through an error.
   Inside, the walk restarts from the deepest directory the old and new chain
   share, by the same rules (3), so a chain of links is confined link by link.
5. **It ends.** More than :data:`MAX_LINK_HOPS` links in one walk is a loop:
   :class:`FileUnsupported`, never a hang; every other step consumes a
   segment.
6. **The fast path is confined by the kernel.** On Linux 5.6+, a link-free
   read resolves in one ``openat2`` with ``RESOLVE_BENEATH |
   RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS`` to an ``O_PATH`` handle
   (:meth:`Walker.open_beneath`); it refuses any link and anything outside,
   and every refusal falls back to the walk above, which decides the error.
   The cached directory chain of :meth:`Walker.locate` is rule (3) with the
   descriptors of a previous path reused.

The oracle. :class:`~a13n_harness.environment.MemoryFileOperator` resolves
links with its own walk over plain dictionaries, written independently of
this one on purpose and sharing only the lexical spelling
(:func:`~a13n_harness.environment.paths.resolve_link_target`).
``properties/test_operator_differential.py`` draws trees of relative,
absolute, escaping, looping and hidden links, builds each on disk and in
memory, and requires the same answer or the same error class for every
operation and path; its negative controls (a disk walk that follows one
escaping link, one that stops resolving spelling lexically) fail it.
``fuzz/fuzz_operator.py`` runs the same comparison
(:mod:`a13n_harness.testing.operator_trees`) on trees the fuzzer draws. A walk
shared by both operators would make that property agree with itself whatever
the walk did, so the model stays a second implementation (decision in
``docs/decisions.md``).

Requires POSIX ``dir_fd`` support (Linux, macOS, the BSDs).
"""

from __future__ import annotations

import _thread  # threading.Lock itself; the threading module is not needed (start-up)
import errno
import os
import stat as stat_module
import sys
from collections import deque
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from a13n_harness.environment.errors import (
    FileNotFound,
    FileOperatorError,
    FilePermissionDenied,
    FileProviderError,
    FileUnsupported,
    NotADirectory,
)
from a13n_harness.environment.paths import path_segments, resolve_link_target

if TYPE_CHECKING:
    from typing import Self

__all__ = [
    "LIST_FLAGS",
    "MAX_LINK_HOPS",
    "READ_FLAGS",
    "WALK_FLAGS",
    "WRITE_FLAGS",
    "Located",
    "Walker",
    "host_segments",
    "os_error",
    "pin_root",
]

# 40: Linux's MAXSYMLINKS; a walk that follows more links than the kernel
# would is a loop (or an attack), and ends as an error instead of a hang.
MAX_LINK_HOPS = 40

_O_PATH = getattr(os, "O_PATH", 0)
_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_O_NOCTTY = getattr(os, "O_NOCTTY", 0)
# O_PATH: walk through directories without needing read permission on them
# and without "opening" them in any way a driver could observe.
WALK_FLAGS = (_O_PATH or os.O_RDONLY) | _O_DIRECTORY | _O_NOFOLLOW | _O_CLOEXEC
LIST_FLAGS = os.O_RDONLY | _O_DIRECTORY | _O_NOFOLLOW | _O_CLOEXEC
READ_FLAGS = os.O_RDONLY | _O_NOFOLLOW | _O_NONBLOCK | _O_NOCTTY | _O_CLOEXEC
# The root alone is opened following links: its path is the caller's, trusted once, here.
ROOT_FLAGS = (_O_PATH or os.O_RDONLY) | _O_DIRECTORY | _O_CLOEXEC
WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | _O_NOFOLLOW | _O_NONBLOCK | _O_CLOEXEC


# An O_PATH handle opens nothing a driver sees; the reopen through /proc/self/fd
# follows that magic link by design, to the inode the handle already holds.
_HANDLE_FLAGS = (_O_PATH or os.O_RDONLY) | _O_NOFOLLOW | _O_CLOEXEC
_REOPEN_FLAGS = os.O_RDONLY | _O_NONBLOCK | _O_NOCTTY | _O_CLOEXEC
_SYS_OPENAT2 = 437  # the same number on every architecture using the generic syscall table
# RESOLVE_NO_MAGICLINKS | RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH: no link of any kind is
# followed and nothing outside the starting directory is reached.
_RESOLVE_CONFINED = 0x02 | 0x04 | 0x08
_Opener = Callable[[int, bytes], int]
_openat2_state: list[tuple[_Opener, _Opener] | None] = []
# os.fsencode's encoding and error handler, read once (fsencode looks them up per call).
_FS_ENCODING = sys.getfilesystemencoding()
_FS_ERRORS = sys.getfilesystemencodeerrors()
_probe_lock = _thread.allocate_lock()


def _probe_openat2() -> tuple[_Opener, _Opener] | None:
    """Two ``openat2(dir_fd, path)`` calls with a confined resolution, when the kernel has
    it and ``/proc/self/fd`` can reopen an ``O_PATH`` handle: the first for an ``O_PATH``
    handle, the second for a read descriptor (:data:`_REOPEN_FLAGS`).

    The fast path of a read: one call resolves a whole link-free path below
    the root, refusing (``ELOOP``/``EXDEV``) any link and anything outside, and
    opens nothing a driver sees; ``fstat`` on the handle says what it is, and
    only a regular file is reopened (the same inode) for reading. Any failure
    sends the read down the general walk, which decides the error. The second
    call serves :meth:`Walker.open_again` only.
    """
    if sys.platform != "linux":
        return None
    # Imported here, on the first read that asks for the fast path: ctypes costs a
    # one-shot command (which reads through the walk alone) more than it saves.
    import ctypes  # noqa: PLC0415

    class OpenHow(ctypes.Structure):
        """Linux's ``struct open_how`` for ``openat2(2)``."""

        _fields_ = (
            ("flags", ctypes.c_uint64),
            ("mode", ctypes.c_uint64),
            ("resolve", ctypes.c_uint64),
        )

    try:
        syscall = ctypes.CDLL(None, use_errno=True).syscall
    except (OSError, AttributeError):
        return None
    handle_how = OpenHow(_HANDLE_FLAGS, 0, _RESOLVE_CONFINED)
    read_how = OpenHow(_REOPEN_FLAGS | _O_NOFOLLOW, 0, _RESOLVE_CONFINED)
    handle_reference = ctypes.byref(handle_how)
    read_reference = ctypes.byref(read_how)
    size = ctypes.sizeof(handle_how)

    # ctypes' default result type is a C int, returned as a Python int: a descriptor or -1.
    def openat2(dir_fd: int, path: bytes) -> int:
        return syscall(_SYS_OPENAT2, dir_fd, path, handle_reference, size)  # type: ignore[no-any-return]

    def openat2_read(dir_fd: int, path: bytes) -> int:
        return syscall(_SYS_OPENAT2, dir_fd, path, read_reference, size)  # type: ignore[no-any-return]

    try:
        directory = os.open("/", WALK_FLAGS)
    except OSError:
        return None
    handle = -1
    try:
        handle = openat2(directory, b".")
        if handle < 0:
            return None  # ENOSYS (before Linux 5.6) or refused by a sandbox
        os.close(os.open(f"/proc/self/fd/{handle}", _REOPEN_FLAGS | _O_DIRECTORY))
    except OSError:
        return None  # no /proc to reopen through
    finally:
        if handle >= 0:
            os.close(handle)
        os.close(directory)
    return openat2, openat2_read


def _openat2() -> tuple[_Opener, _Opener] | None:
    if not _openat2_state:
        with _probe_lock:
            if not _openat2_state:
                _openat2_state.append(_probe_openat2())
    return _openat2_state[0]


# The descriptor of /proc/self/fd, opened on the first fast read: the reopen names a
# handle relative to it instead of resolving "/proc/self/fd/N" from "/" each time
# (measured: a fifth of a fast read's cost). A forked child forgets it, since the
# parent's /proc/self/fd names the parent's descriptor table.
_proc_fd_state: list[int] = []


def _proc_fd() -> int:
    if not _proc_fd_state:
        with _probe_lock:
            if not _proc_fd_state:
                _proc_fd_state.append(os.open("/proc/self/fd", WALK_FLAGS))
    return _proc_fd_state[0]


def _forget_proc_fd() -> None:
    if _proc_fd_state:
        os.close(_proc_fd_state.pop())


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_proc_fd)


def os_error(error: OSError, path: str) -> FileOperatorError:
    code = error.errno
    if code == errno.ENOENT:
        return FileNotFound("no such file or directory", path=path)
    if code in (errno.EACCES, errno.EPERM):
        return FilePermissionDenied("permission denied", path=path)
    if code == errno.ENOTDIR:
        return NotADirectory("not a directory", path=path)
    if code in (errno.ELOOP, errno.EISDIR, errno.ENXIO, errno.ENODEV):
        return FileUnsupported(error.strerror or "unsupported file", path=path)
    return FileProviderError(f"{error.strerror or 'I/O error'} (errno {code})", path=path)


def _keep_shared_prefix(names: list[str], fds: list[int], wanted: Sequence[str]) -> int:
    """Cut the directory chain ``names`` (open as ``fds``) back to the prefix it shares with
    ``wanted``, closing the descriptors past it; the length of that prefix.

    Both walks reuse a chain this way: :meth:`Walker.locate` the chain of the
    previous path, :meth:`Walker._slow` the chain walked before a link
    redirected it. What is kept was opened by rule (3); what is not shared is
    closed, never reused for another name.
    """
    shared = 0
    for have, want in zip(names, wanted, strict=False):
        if have != want:
            break
        shared += 1
    while len(names) > shared:
        names.pop()
        os.close(fds.pop())
    return shared


class Located:
    """``name`` inside the directory ``parent`` (``name is None``: ``parent`` itself).

    A plain class, not a dataclass: generating one costs a command's start-up
    about a millisecond, and nothing compares or prints what a walk found.
    """

    __slots__ = ("mode", "name", "parent", "size")

    def __init__(
        self, parent: int, name: str | None, mode: int | None, size: int | None = None
    ) -> None:
        self.parent = parent
        self.name = name
        self.mode = mode  # lstat mode of name; None when it does not exist
        self.size = size  # st_size of that same lstat, when one was made of name


class Walker:
    """Resolves paths below the pinned root for the length of one blocking call (module rules 3-6).

    ``root_fd`` is borrowed from the operator and never closed here. Keeps the
    descriptors of the last link-free directory chain, so paths that share
    directories (every SKILL.md of one root) open only what differs.
    """

    def __init__(self, root_fd: int, root_segments: Sequence[str]) -> None:
        self._root_fd = root_fd
        self._root_segments = root_segments
        self._chain_fds: list[int] = []  # fds of _chain_names, below the root
        self._chain_names: list[str] = []
        self._scratch: list[int] = []  # descriptors owned by the last slow walk

    def close(self) -> None:
        self._release_scratch()
        for fd in self._chain_fds:
            os.close(fd)
        self._chain_fds = []
        self._chain_names = []

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _release_scratch(self) -> None:
        for fd in self._scratch:
            os.close(fd)
        self._scratch = []

    def locate(self, path: str, *, follow_last: bool) -> Located:
        """Find what ``path`` names; a missing last segment gives ``mode=None``."""
        self._release_scratch()
        segments = path_segments(path)
        if not segments:
            return Located(self._root_fd, None, stat_module.S_IFDIR)
        directories = segments[:-1]
        names = self._chain_names
        fds = self._chain_fds
        shared = _keep_shared_prefix(names, fds, directories)
        for segment in directories[shared:]:
            try:
                fd = os.open(segment, WALK_FLAGS, dir_fd=fds[-1] if fds else self._root_fd)
            except OSError:
                return self._slow(path, segments, follow_last=follow_last)
            fds.append(fd)
            names.append(segment)
        parent = fds[-1] if fds else self._root_fd
        last = segments[-1]
        try:
            status = os.stat(last, dir_fd=parent, follow_symlinks=False)
        except FileNotFoundError:
            return Located(parent, last, None)
        except OSError as error:
            raise os_error(error, path) from None
        if follow_last and stat_module.S_ISLNK(status.st_mode):
            return self._slow(path, segments, follow_last=follow_last)
        return Located(parent, last, status.st_mode, status.st_size)

    def _slow(self, path: str, segments: list[str], *, follow_last: bool) -> Located:
        """The general walk: follows links lexically, refusing any that leave the root.

        ``resolved`` is the link-free chain walked so far (``fds`` holds its
        descriptors); a link replaces it with the segments its target names
        (:func:`~a13n_harness.environment.paths.resolve_link_target`), keeping
        the descriptors of the prefix both share.
        """
        fds = self._scratch
        resolved: list[str] = []
        pending = deque(segments)
        hops = 0
        try:
            while pending:
                segment = pending.popleft()
                current = fds[-1] if fds else self._root_fd
                last = not pending
                try:
                    mode = os.stat(segment, dir_fd=current, follow_symlinks=False).st_mode
                except FileNotFoundError:
                    if last:
                        return Located(current, segment, None)
                    raise FileNotFound("no such file or directory", path=path) from None
                except OSError as error:
                    raise os_error(error, path) from None
                if stat_module.S_ISLNK(mode) and (follow_last or not last):
                    hops += 1
                    if hops > MAX_LINK_HOPS:
                        raise FileUnsupported("symbolic link loop", path=path, reason="link_loop")
                    try:
                        target = os.readlink(segment, dir_fd=current)
                    except OSError as error:
                        raise os_error(error, path) from None
                    if not target:
                        raise FileNotFound("empty symbolic link", path=path)
                    leads = resolve_link_target(resolved, target, self._root_segments)
                    if leads is None:
                        raise FilePermissionDenied(
                            "symbolic link leads outside the root", path=path, reason="link_escapes"
                        )
                    shared = _keep_shared_prefix(resolved, fds, leads)
                    pending.extendleft(reversed(leads[shared:]))
                    continue
                if last:
                    return Located(current, segment, mode)
                if not stat_module.S_ISDIR(mode):
                    raise NotADirectory("not a directory", path=path)
                try:
                    fds.append(os.open(segment, WALK_FLAGS, dir_fd=current))
                except OSError as error:
                    raise os_error(error, path) from None
                resolved.append(segment)
            return Located(fds[-1] if fds else self._root_fd, None, stat_module.S_IFDIR)
        except BaseException:
            self._release_scratch()
            raise

    def open_beneath(self, path: str) -> tuple[int, int] | None:
        """A read descriptor and measured size when ``path`` is a regular file reached
        without any link, else ``None`` (the caller then walks, which decides the error).

        Nothing outside the root and nothing that is not a regular file is
        touched: ``openat2`` resolves the path to an ``O_PATH`` handle refusing
        any link and anything outside, ``fstat`` on the handle says what it is,
        and only a regular file is reopened, through ``/proc/self/fd``, as the
        very inode the handle holds (so it cannot have been swapped meanwhile).
        The caller closes the descriptor.
        """
        handle = self._open_confined(path, 0)
        if handle < 0:
            return None
        try:
            measured = os.fstat(handle)
            if not stat_module.S_ISREG(measured.st_mode):
                return None
            try:
                procfd = _proc_fd_state[0] if _proc_fd_state else _proc_fd()
                return os.open(str(handle), _REOPEN_FLAGS, dir_fd=procfd), measured.st_size
            except OSError:
                return None
        finally:
            os.close(handle)

    def _open_confined(self, path: str, which: int) -> int:
        """``openat2`` of ``path`` from the root with the confined resolution: ``which`` 0
        for an ``O_PATH`` handle, 1 for a read descriptor; -1 when it failed, the fast path
        is unavailable, or ``path`` is the root."""
        openers = _openat2_state[0] if _openat2_state else _openat2()
        if openers is None or path == "/":
            return -1
        return openers[which](self._root_fd, path[1:].encode(_FS_ENCODING, _FS_ERRORS))

    def open_again(self, path: str) -> tuple[int, int] | None:
        """A read descriptor and measured size when ``path`` is a regular file reached
        without any link, opened at once, else ``None`` (the caller then reads as
        :meth:`open_beneath`'s caller does, which decides the error).

        For a path the caller has just read as a regular file (discovery's final
        re-read): the one ``openat2`` both confines the resolution, as
        :meth:`open_beneath`'s does, and opens for reading (``O_NONBLOCK |
        O_NOCTTY | O_NOFOLLOW``), which saves the handle and its reopen. What it
        opens can only be other than a regular file if the path was replaced since
        that read; ``fstat`` then says so and it is closed unread, never waited on
        (docs/security.md, the re-read). The caller closes the descriptor.
        """
        fd = self._open_confined(path, 1)
        if fd < 0:
            return None
        try:
            measured = os.fstat(fd)
        except OSError:
            measured = None
        if measured is None or not stat_module.S_ISREG(measured.st_mode):
            os.close(fd)
            return None
        return fd, measured.st_size


def host_segments(real: str) -> list[str]:
    """The segments of the real host path ``real`` (what absolute link targets are read against)."""
    return [segment for segment in real.split("/") if segment]


def pin_root(path: str) -> tuple[int, str]:
    """Open the host directory ``path`` once; its descriptor and its real path.

    The real path is only used to recognise absolute link targets that name
    the root; it is checked to name the very directory opened (same device
    and inode), so a swap between the two steps is refused, not half-pinned.
    """
    fd = os.open(path, ROOT_FLAGS)
    try:
        opened = os.fstat(fd)
        real = _held_path(fd, opened)
        if real is None:
            real = os.path.realpath(path)
            named = os.stat(real)
            if (named.st_dev, named.st_ino) != (opened.st_dev, opened.st_ino):
                raise FileProviderError("the root changed while the operator was built", path="/")
    except BaseException:
        os.close(fd)
        raise
    return fd, real


def _held_path(fd: int, opened: os.stat_result) -> str | None:
    """The path the kernel gives the directory ``fd`` holds (``/proc/self/fd``: one
    ``readlink``, where ``realpath`` looks at every segment of the path), when it is
    absolute and names that very directory (same device and inode); ``None`` otherwise
    (no ``/proc``, a directory removed or out of reach), and ``realpath`` decides."""
    try:
        held = os.readlink(str(fd), dir_fd=_proc_fd())
        named = os.stat(held)
    except (OSError, ValueError):
        return None
    if not held.startswith("/") or (named.st_dev, named.st_ino) != (opened.st_dev, opened.st_ino):
        return None
    return held
