"""A root-confined file operator over a host directory.

:class:`LocalFileOperator` maps its ``/`` to a host directory and never lets a
path or a symbolic link reach outside it. *How* a path is resolved without
escaping (the pinned root, the ``O_NOFOLLOW`` walk, lexical links, the link
bound, the ``openat2`` fast path) is :mod:`a13n_harness.environment._confinement`,
whose docstring is the confinement argument. This module holds the operations
on what that walk finds and the async facade:

* A file is ``lstat``-ed before it is opened: a FIFO, socket or device is
  :class:`FileUnsupported` and never opened; regular files are opened with
  ``O_NONBLOCK | O_NOFOLLOW`` and checked again with ``fstat``.
* Reads stop at ``limit`` bytes and allocate for what the file holds (its
  measured size, then doubling), never for ``limit``; no method recurses with
  the depth of a tree (``remove`` empties a deep tree iteratively).

Blocking work runs in one shared pool of :data:`EXECUTOR_THREADS` threads. A
cancelled call waits for its thread to finish before it re-raises, so no read outlives the task (and
the file scope) that started it. :meth:`LocalFileOperator.read_many` reads a
chunk of files in one thread hop, reusing the directory descriptors the paths
share. :func:`run_in_place` goes further for a whole scan: one job on a file
thread, where every call of the operator is done in place (``SkillManager.scan``
through a ``LocalFileOperator``); that is what keeps a scan near the cost of plain reads.

:class:`BlockingLocalFileOperator` is the same operator with the thread hop
left out: every call does its work on the calling thread, so its coroutines
never suspend, and :func:`run_blocking` drives a scan through it to the end
without an event loop. That is the command line's scan: importing ``asyncio``
alone costs several times a bare interpreter start (``scripts/bench.py cli``),
and a one-shot command gains nothing from overlapping its reads. The
confinement walk, the FIFO and device refusal and the read bounds are the same
code either way. ``asyncio`` and the thread pool are imported on first use.

Requires POSIX ``dir_fd`` support (Linux, macOS, the BSDs).
"""

from __future__ import annotations

import _thread  # threading.Lock itself; the threading module is not needed (start-up)
import contextlib
import os
import stat as stat_module
import weakref
from collections import deque
from collections.abc import Callable, Coroutine, Sequence
from typing import TYPE_CHECKING

from a13n_harness.context._checks import describe, is_bytes_like, plain_bytes, plain_str
from a13n_harness.context.errors import DefinitionError
from a13n_harness.environment._confinement import (
    LIST_FLAGS,
    MAX_LINK_HOPS,
    READ_FLAGS,
    WRITE_FLAGS,
    Walker,
    host_segments,
    os_error,
    pin_root,
)
from a13n_harness.environment.errors import (
    FileNotFound,
    FileOperatorError,
    FilePermissionDenied,
    FileProviderError,
    FileUnsupported,
    NotADirectory,
    check_limit,
)
from a13n_harness.environment.operator import DirectoryEntry, FileStat, plain_sequence
from a13n_harness.environment.paths import is_canonical_path, path_segments

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor
    from typing import Any, ClassVar, TypeVar

    from a13n_harness.environment.operator import EntryKind

    _T = TypeVar("_T")

__all__ = [
    "EXECUTOR_THREADS",
    "MAX_LINK_HOPS",
    "BlockingLocalFileOperator",
    "LocalFileOperator",
    "check_host_directory",
    "run_blocking",
]


# 8 threads: the same bound as discovery's read workers, shared by every
# operator and every event loop, so a scan neither starts threads nor waits
# for a fresh default executor to shut down at the end of ``asyncio.run``.
EXECUTOR_THREADS = 8
_executor: ThreadPoolExecutor | None = None
_executor_lock = _thread.allocate_lock()

# Set on a file thread for the length of a job of run_in_place: while its ``job`` is set,
# every call of a LocalFileOperator on that thread does its work where it is (the thread
# is already off the event loop), and a cancelled job's next call fails.
_in_place = _thread._local()


def _shared_executor() -> ThreadPoolExecutor:
    global _executor  # noqa: PLW0603 - one lazily created pool for the process
    with _executor_lock:
        if _executor is None:
            # Imported here: a blocking scan (the command line's) never starts the pool.
            from concurrent.futures import ThreadPoolExecutor  # noqa: PLC0415

            _executor = ThreadPoolExecutor(EXECUTOR_THREADS, thread_name_prefix="a13n-files")
        return _executor


def _kind(mode: int) -> EntryKind:
    if stat_module.S_ISREG(mode):
        return "file"
    if stat_module.S_ISDIR(mode):
        return "directory"
    if stat_module.S_ISLNK(mode):
        return "symlink"
    return "other"


def _check_path(path: object) -> str:
    path = plain_str(path)  # a Host's str subclass: its characters, none of its methods
    if not is_canonical_path(path):
        raise FilePermissionDenied("path is not a canonical absolute path", path=describe(path))
    assert isinstance(path, str)
    return path


def _check_data(data: object) -> bytes:
    # bytes(5) would allocate five NULs and bytes(10**10) ten gigabytes: only byte strings.
    if not is_bytes_like(data):
        raise FileProviderError(f"data must be bytes, not {type(data).__name__}")
    plain: bytes = bytes(plain_bytes(data))  # type: ignore[call-overload]  # no __bytes__ of its own
    return plain


def _check_paths(paths: object) -> list[object]:
    """``paths`` as a plain list of plain ``str`` (a ``list`` or ``tuple`` subclass read by
    the base type); another sequence is the Host's own object and is iterated."""
    plain = plain_sequence(paths)
    if plain is None:
        if isinstance(paths, str | bytes) or not isinstance(paths, Sequence):
            raise FileProviderError("paths must be a sequence of paths")
        plain = list(paths)
    return [plain_str(path) for path in plain]


def check_host_directory(root: object) -> str:
    """``root`` as a host path string (``str`` or ``os.PathLike[str]``, non-empty, no NUL).

    Anything else is ``DefinitionError(code="skill_root_invalid", reason="host_root")``.
    """
    try:
        path = plain_str(os.fspath(root))  # type: ignore[call-overload]
    except Exception:  # a Host's __fspath__ failing in its own way: not a path
        path = None
    try:
        encodable = isinstance(path, str) and bool(os.fsencode(path))
    except UnicodeEncodeError:
        encodable = False
    if not encodable or not isinstance(path, str) or "\x00" in path:
        raise DefinitionError(
            "skill_root_invalid",
            f"an operator root must be a non-empty host path: {describe(root)}",
            reason="host_root",
        )
    return path


# 64 KiB: the first read after the measured size when a file turns out
# larger than fstat said (growing, or procfs-like with size 0); each later
# read doubles, so a read costs O(size) whatever ``limit`` is.
_GROWTH_CHUNK = 65_536
# 32 descriptors: how many directory levels ``remove`` keeps open while it
# empties a deep tree; deeper levels are reopened from the nearest open one,
# so a tree of any depth needs neither recursion nor one descriptor per level.
_REMOVE_WINDOW = 32


def _read_file(fd: int, limit: int, size: int) -> bytes:
    """At most ``limit`` bytes of the open file ``fd``, allocating for what it holds."""
    if limit == 0:
        return b""
    # One byte past the measured size detects growth (comparisons, not min/max: once a read).
    want = size + 1 if 0 <= size < limit else (limit if size >= 0 else min(limit, 1))
    data = os.read(fd, want)
    if len(data) < want or len(data) == limit:
        return data
    parts = [data]
    total = len(data)
    step = max(_GROWTH_CHUNK, total)
    while total < limit:
        chunk = os.read(fd, min(step, limit - total))
        if not chunk:
            break
        parts.append(chunk)
        total += len(chunk)
        step = total
    return b"".join(parts)


def _read_opened(opened: tuple[int, int], limit: int, path: str) -> bytes:
    """:func:`_read_file` of a descriptor a fast path opened (with its measured size), then
    closed; an ``OSError`` is ``path``'s operator error."""
    fd, size = opened
    try:
        return _read_file(fd, limit, size)
    except OSError as error:
        raise os_error(error, path) from None
    finally:
        os.close(fd)


class _Operations(Walker):
    """The file operations of one blocking call, each on what the confinement walk found."""

    def read(self, path: str, limit: int) -> bytes:
        fast = self.open_beneath(path)
        return self._read_walking(path, limit) if fast is None else _read_opened(fast, limit, path)

    def read_again(self, path: str, limit: int) -> bytes:
        """``read`` of a path the caller has just read as a regular file (see
        :meth:`~a13n_harness.environment._confinement.Walker.open_again`): the same bytes
        or the same error ``read`` gives, in fewer system calls."""
        fast = self.open_again(path)
        # Anything but a regular file reached at once: ``read`` decides.
        return self.read(path, limit) if fast is None else _read_opened(fast, limit, path)

    def read_each(
        self, paths: Sequence[object], limit: int, *, again: bool
    ) -> list[bytes | FileOperatorError]:
        """``read`` (``again``: ``read_again``) of every path in order, each error as that
        path's result: ``read_many``'s loop, with the fast path taken here and the rest
        left to ``read`` (it runs once per document of a scan, so it saves the calls)."""
        opener = self.open_again if again else self.open_beneath
        fallback = self.read if again else self._read_walking
        results: list[bytes | FileOperatorError] = []
        append = results.append
        for path in paths:
            try:
                checked = _check_path(path)
                fast = opener(checked)
                append(
                    fallback(checked, limit) if fast is None else _read_opened(fast, limit, checked)
                )
            except FileOperatorError as error:
                append(error)
        return results

    def _read_walking(self, path: str, limit: int) -> bytes:
        """``read`` through the general walk (the fast path declined ``path``)."""
        found = self.locate(path, follow_last=True)
        if found.mode is None:
            raise FileNotFound("no such file or directory", path=path)
        if found.name is None or not stat_module.S_ISREG(found.mode):
            raise FileUnsupported(f"not a regular file ({_kind(found.mode)})", path=path)
        try:
            fd = os.open(found.name, READ_FLAGS, dir_fd=found.parent)
        except OSError as error:
            raise os_error(error, path) from None
        try:
            measured = os.fstat(fd)
            if not stat_module.S_ISREG(measured.st_mode):
                raise FileUnsupported("not a regular file", path=path)
            return _read_file(fd, limit, measured.st_size)
        except OSError as error:
            raise os_error(error, path) from None
        finally:
            os.close(fd)

    def list(self, path: str) -> list[DirectoryEntry]:
        found = self.locate(path, follow_last=True)
        if found.mode is None:
            raise FileNotFound("no such file or directory", path=path)
        if not stat_module.S_ISDIR(found.mode):
            raise NotADirectory("not a directory", path=path)
        try:
            fd = os.open(found.name or ".", LIST_FLAGS, dir_fd=found.parent)
        except OSError as error:
            raise os_error(error, path) from None
        entries: list[DirectoryEntry] = []
        try:
            with os.scandir(fd) as listing:
                for entry in listing:
                    kind: EntryKind
                    if entry.is_symlink():
                        kind = "symlink"
                    elif entry.is_dir(follow_symlinks=False):
                        kind = "directory"
                    elif entry.is_file(follow_symlinks=False):
                        kind = "file"
                    else:
                        kind = "other"
                    entries.append(DirectoryEntry(entry.name, kind))
        except OSError as error:
            raise os_error(error, path) from None
        finally:
            os.close(fd)
        return entries

    def stat(self, path: str) -> FileStat:
        found = self.locate(path, follow_last=True)
        if found.mode is None:
            raise FileNotFound("no such file or directory", path=path)
        if found.size is not None:  # what the walk's lstat of the last segment said
            return FileStat(_kind(found.mode), found.size)
        try:
            if found.name is None:
                result = os.fstat(found.parent)
            else:
                result = os.stat(found.name, dir_fd=found.parent, follow_symlinks=False)
        except OSError as error:
            raise os_error(error, path) from None
        return FileStat(_kind(result.st_mode), result.st_size)

    def write(self, path: str, data: bytes) -> None:
        found = self.locate(path, follow_last=True)
        if found.name is None or (found.mode is not None and not stat_module.S_ISREG(found.mode)):
            raise FileUnsupported("not a regular file", path=path)
        try:
            fd = os.open(found.name, WRITE_FLAGS, 0o644, dir_fd=found.parent)
        except OSError as error:
            raise os_error(error, path) from None
        try:
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
        except OSError as error:
            raise os_error(error, path) from None
        finally:
            os.close(fd)

    def make_directory(self, path: str) -> None:
        segments = path_segments(path)
        for depth in range(1, len(segments) + 1):
            prefix = "/" + "/".join(segments[:depth])
            found = self.locate(prefix, follow_last=True)
            if found.mode is None:
                assert found.name is not None
                try:
                    os.mkdir(found.name, 0o755, dir_fd=found.parent)
                except FileExistsError:
                    continue
                except OSError as error:
                    raise os_error(error, prefix) from None
            elif not stat_module.S_ISDIR(found.mode):
                raise NotADirectory("not a directory", path=prefix)

    def remove(self, path: str) -> None:
        if path == "/":
            raise FilePermissionDenied("the root cannot be removed", path=path)
        found = self.locate(path, follow_last=False)
        if found.mode is None or found.name is None:
            raise FileNotFound("no such file or directory", path=path)
        try:
            if stat_module.S_ISDIR(found.mode):
                _remove_tree(found.parent, found.name)
            else:
                os.unlink(found.name, dir_fd=found.parent)
        except OSError as error:
            raise os_error(error, path) from None


class _WalkOnlyOperations(_Operations):
    """The operations of a one-shot command: every read takes the general walk.

    The ``openat2`` fast path saves a few system calls a read; a command that
    reads a handful of files pays more for setting it up (``ctypes`` and a
    probe of the kernel) than it saves. The walk alone decides every read the
    fast path would have taken (it falls back to the walk on any doubt), so
    what is read and refused is the same.
    """

    def open_beneath(self, path: str) -> tuple[int, int] | None:
        return None

    def open_again(self, path: str) -> tuple[int, int] | None:
        return None


def _list_kinds(fd: int) -> list[tuple[str, bool]]:
    with os.scandir(fd) as listing:
        return [(entry.name, entry.is_dir(follow_symlinks=False)) for entry in listing]


def _remove_tree(top_parent: int, top_name: str) -> None:
    """Remove the directory ``top_name`` of ``top_parent`` and all below it, links unfollowed.

    Iterative, with at most :data:`_REMOVE_WINDOW` directory descriptors open:
    ``names`` is the chain from ``top_name`` down to the directory being
    emptied, ``fds`` its descriptors (``-1`` once closed to stay in the
    window), ``pending`` the children of each level still to remove. A closed
    level is reopened by name from the top, one ``O_NOFOLLOW`` step at a time,
    so a directory swapped for a link meanwhile is refused, never followed.
    """
    names: list[str] = []
    fds: list[int] = []
    pending: list[list[tuple[str, bool]]] = []
    opened: deque[int] = deque()  # the levels whose descriptor is open, shallowest first

    def parent_of(level: int) -> int:
        return top_parent if level == 0 else fds[level - 1]

    def keep_window() -> None:
        while len(opened) > _REMOVE_WINDOW:
            level = opened.popleft()
            os.close(fds[level])
            fds[level] = -1

    def reopen(level: int) -> None:
        # Every level above a closed one is closed too (the window keeps the deepest).
        for index in range(level + 1):
            if fds[index] < 0:
                fds[index] = os.open(names[index], LIST_FLAGS, dir_fd=parent_of(index))
                opened.append(index)
        ordered = sorted(opened)
        opened.clear()
        opened.extend(ordered)
        keep_window()

    def descend(name: str, parent: int) -> None:
        fd = os.open(name, LIST_FLAGS, dir_fd=parent)
        names.append(name)
        fds.append(fd)
        opened.append(len(fds) - 1)
        pending.append(_list_kinds(fd))
        keep_window()

    try:
        descend(top_name, top_parent)
        while names:
            level = len(names) - 1
            if fds[level] < 0:
                reopen(level)
            children = pending[level]
            while children:
                child, is_directory = children.pop()
                if is_directory:
                    descend(child, fds[level])
                    break
                os.unlink(child, dir_fd=fds[level])
            else:
                os.close(fds[level])
                opened.pop()
                name = names.pop()
                fds.pop()
                pending.pop()
                if level > 0 and fds[level - 1] < 0:
                    reopen(level - 1)
                os.rmdir(name, dir_fd=parent_of(level))
    finally:
        for fd in fds:
            if fd >= 0:
                os.close(fd)


class LocalFileOperator:
    """A :class:`~a13n_harness.environment.FileOperator` whose ``/`` is the host directory ``root``.

    The root is opened once, here, and pinned: every later call walks from
    that descriptor, so renaming ``root`` or replacing it by a link afterwards
    changes nothing the operator reads. A root that cannot be opened now
    (missing, not a directory, denied) stays so: every call raises the error
    opening it raised, even if the directory appears later.

    The descriptor lives as long as the operator: :meth:`close` (or leaving
    ``with LocalFileOperator(...) as files:``) releases it once the calls in
    flight finish, and a finalizer releases it when the operator is
    collected. A closed operator raises :class:`FileProviderError`. The
    descriptor is close-on-exec; a forked child inherits it and may keep using
    the operator (it only ever walks from it with ``*at`` calls, sharing no
    offset).
    """

    __slots__ = (
        "__weakref__",
        "_closed",
        "_error",
        "_fd",
        "_finalizer",
        "_lock",
        "_root",
        "_segments",
        "_users",
    )

    _operations: ClassVar[type[_Operations]] = _Operations

    def __init__(self, root: str | os.PathLike[str]) -> None:
        path = check_host_directory(root)
        self._lock = _thread.allocate_lock()
        self._users = 0
        self._closed = False
        self._fd = -1
        self._error: FileOperatorError | None = None
        try:
            self._fd, self._root = pin_root(path)
        except OSError as error:
            self._root = os.path.abspath(path)
            self._error = os_error(error, "/")
        except FileOperatorError as error:
            self._root = os.path.abspath(path)
            self._error = error
        self._segments = host_segments(self._root)
        self._finalizer = weakref.finalize(self, os.close, self._fd) if self._fd >= 0 else None

    @property
    def read_concurrency(self) -> int:
        """1: a page of reads is one call on one worker thread (docs/decisions.md, "One lane
        for local reads": a second lane only contends with the caller for the interpreter)."""
        return 1

    @property
    def root(self) -> str:
        """The real host path of this operator's ``/`` when it was built."""
        return self._root

    @property
    def closed(self) -> bool:
        return self._closed

    def __repr__(self) -> str:
        return f"LocalFileOperator({self._root!r})"

    def close(self) -> None:
        """Release the root descriptor (after the calls in flight); later calls fail."""
        with self._lock:
            self._closed = True
            self._release_if_idle()

    def __enter__(self) -> LocalFileOperator:
        return self

    def __copy__(self) -> LocalFileOperator:
        return self  # a handle: a copy would share (and could close) the one descriptor

    def __deepcopy__(self, memo: object) -> LocalFileOperator:
        return self

    def __reduce__(self) -> tuple[object, ...]:
        # Rebuilding from the path in another process would re-open the root by
        # path, which is exactly what pinning rules out: build one there instead.
        raise FileProviderError("a pinned LocalFileOperator cannot be pickled", path="/")

    def __exit__(self, *_: object) -> None:
        self.close()

    def _release_if_idle(self) -> None:
        if self._users == 0 and self._finalizer is not None:
            self._finalizer()  # closes the descriptor once
            self._finalizer = None

    def _acquire(self) -> int:
        with self._lock:
            if self._closed:
                raise FileProviderError("the file operator is closed", path="/")
            if self._error is not None:
                raise self._error.__class__(self._error.message, path=self._error.path)
            self._users += 1
            return self._fd

    def _release(self) -> None:
        with self._lock:
            self._users -= 1
            if self._closed:
                self._release_if_idle()

    def _call(self, operation: Callable[[_Operations], _T]) -> _T:
        fd = self._acquire()
        try:
            with self._operations(fd, self._segments) as walker:
                return operation(walker)
        finally:
            self._release()

    async def _run(self, operation: Callable[[_Operations], _T]) -> _T:
        job = getattr(_in_place, "job", None)
        if job is not None:  # inside run_in_place, on its file thread
            if job.cancelled:
                raise FileProviderError("the operation was cancelled", path="/")
            return self._call(operation)
        return await _off_the_loop(self._call, operation)

    async def list_directory(self, path: str) -> Sequence[DirectoryEntry]:
        checked = _check_path(path)
        return await self._run(lambda walker: walker.list(checked))

    async def read_bytes(self, path: str, limit: int) -> bytes:
        checked = _check_path(path)
        bound = check_limit(limit)
        return await self._run(lambda walker: walker.read(checked, bound))

    async def read_many(
        self, paths: Sequence[str], limit: int
    ) -> Sequence[bytes | FileOperatorError]:
        return await self._read_many(paths, limit, again=False)

    async def read_many_again(
        self, paths: Sequence[str], limit: int
    ) -> Sequence[bytes | FileOperatorError]:
        """``read_many`` of paths the caller has just read as regular files through this
        operator (discovery's final re-read, :func:`~a13n_harness.capabilities.pool.read_all`
        with ``again=True``): the same results, each file opened in one confined call
        instead of a handle and its reopen. A path replaced since by anything but a
        regular file is opened without blocking, never read, and refused as ``read_many``
        refuses it (docs/security.md)."""
        return await self._read_many(paths, limit, again=True)

    async def _read_many(
        self, paths: Sequence[str], limit: int, *, again: bool
    ) -> Sequence[bytes | FileOperatorError]:
        bound = check_limit(limit)
        checked = _check_paths(paths)

        try:
            return await self._run(lambda walker: walker.read_each(checked, bound, again=again))
        except FileOperatorError as error:  # the root itself failed: every read fails alike
            return [error] * len(checked)

    async def stat(self, path: str) -> FileStat:
        checked = _check_path(path)
        return await self._run(lambda walker: walker.stat(checked))

    async def write_bytes(self, path: str, data: bytes) -> None:
        checked = _check_path(path)
        payload = _check_data(data)
        await self._run(lambda walker: walker.write(checked, payload))

    async def make_directory(self, path: str) -> None:
        checked = _check_path(path)
        await self._run(lambda walker: walker.make_directory(checked))

    async def remove(self, path: str) -> None:
        checked = _check_path(path)
        await self._run(lambda walker: walker.remove(checked))


async def _off_the_loop(
    function: Callable[..., _T], *arguments: object, on_cancel: Callable[[], None] | None = None
) -> _T:
    """``function(*arguments)`` on the shared file threads, awaited from the event loop.

    A cancelled caller calls ``on_cancel`` (when given), then waits for the thread to
    finish before it re-raises."""
    import asyncio  # noqa: PLC0415 - a blocking scan runs without it (module docstring)

    loop = asyncio.get_running_loop()
    future = loop.run_in_executor(_shared_executor(), function, *arguments)
    try:
        return await asyncio.shield(future)
    except asyncio.CancelledError:
        if on_cancel is not None:
            on_cancel()
        # The thread cannot be interrupted; wait for it so no read
        # outlives the task (and the file scope) that started it.
        while not future.done():
            try:
                await asyncio.wait((future,))
            except asyncio.CancelledError:
                continue
        if not future.cancelled():
            future.exception()
        raise


class _Job:
    """One job of :func:`run_in_place`: whether its caller was cancelled."""

    __slots__ = ("cancelled",)

    def __init__(self) -> None:
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


async def run_in_place(operation: Callable[[], Coroutine[Any, Any, _T]]) -> _T:
    """Run the coroutine ``operation()`` to its end on one shared file thread, with every
    call of a :class:`LocalFileOperator` made there done in place (``_run`` checks the job).

    For a whole scan through a ``LocalFileOperator`` (``SkillManager.scan`` and
    ``inspect`` with one, and no materializers): one thread hop for the scan instead
    of one per listing and per batch of reads, and the documents handled on the
    thread that read them. The event loop is never blocked: everything runs on the
    file thread. Like :func:`run_blocking`, the coroutine must never suspend on
    anything else (a scan through a ``LocalFileOperator`` does not: its reads run
    one batch at a time); one that does is refused with :class:`FileProviderError`.
    A cancelled caller marks the job: the next operator call in it fails, and the
    caller waits for the thread before it re-raises (as every call does).
    Internal (the manager's), so not in ``__all__``.
    """
    job = _Job()

    def work() -> _T:
        _in_place.job = job
        try:
            return run_blocking(operation())
        finally:
            _in_place.job = None

    return await _off_the_loop(work, on_cancel=job.cancel)


class BlockingLocalFileOperator(LocalFileOperator):
    """A :class:`LocalFileOperator` whose calls do their work on the calling thread.

    Its coroutines never suspend, so :func:`run_blocking` can drive a scan
    through it without an event loop (the command line does). Awaited inside an
    event loop it would block the loop: use :class:`LocalFileOperator` there.
    Everything else (pinned root, confinement, refusals, bounds) is inherited;
    its reads take the confinement walk without the ``openat2`` fast path
    (:class:`_WalkOnlyOperations`).
    """

    __slots__ = ()
    _operations = _WalkOnlyOperations

    def __repr__(self) -> str:
        return f"BlockingLocalFileOperator({self.root!r})"

    @property
    def read_concurrency(self) -> int:
        """1: with nothing to overlap, the pool reads every path in one call (and one job)."""
        return 1

    async def _run(self, operation: Callable[[_Operations], _T]) -> _T:
        return self._call(operation)


def run_blocking(coroutine: Coroutine[Any, Any, _T]) -> _T:
    """Run ``coroutine`` to its end on this thread, without an event loop.

    For a coroutine that never suspends: a scan whose only I/O goes through a
    :class:`BlockingLocalFileOperator` completes in one step. One that suspends
    all the same (it awaited a future, a sleep, an asynchronous operator) is
    closed, never resumed or waited on, and refused with
    :class:`FileProviderError`; so is one that asks ``asyncio`` for the running
    loop (a task group, an executor), which raises ``RuntimeError`` here.
    Anything but a coroutine is refused the same way.
    """
    if not isinstance(coroutine, Coroutine):
        raise FileProviderError(f"run_blocking takes a coroutine, not {type(coroutine).__name__}")
    try:
        coroutine.send(None)
    except StopIteration as finished:
        result: _T = finished.value
        return result
    except RuntimeError as error:
        raise FileProviderError(f"the operation needs an event loop: {error}", path="/") from None
    # RuntimeError: it awaited again while closing; it is dropped all the same.
    with contextlib.suppress(RuntimeError):
        coroutine.close()
    raise FileProviderError(
        "the operation suspended: it needs an event loop, not run_blocking", path="/"
    )
