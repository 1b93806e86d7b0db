"""Files named on the command line: read without blocking, written without following links.

- :func:`read_regular_file` opens non-blocking (a FIFO with no writer, a
  terminal or a device never holds the command), checks the opened descriptor
  is a regular file, and reads at most ``limit`` bytes.
- :func:`replace_file` writes ``data`` to a fresh temporary file beside
  ``path`` (``O_CREAT | O_EXCL | O_NOFOLLOW``: never an existing file, never
  through a link) and renames it over ``path``. A symbolic link, a FIFO or a
  socket at ``path`` is replaced, not followed or opened; a character device
  (``/dev/null``) is written in place; a directory or a block device at
  ``path`` is an error; on any failure the temporary file is removed. Both
  steps use a descriptor of the parent directory, so a parent swapped in
  between cannot redirect the rename.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat

from a13n_harness.cli._output import NotRegularFileError

__all__ = ["read_regular_file", "replace_file"]

_READ_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
)
_CREATE_FLAGS = (
    os.O_WRONLY
    | os.O_CREAT
    | os.O_EXCL
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
)
# Tries at a fresh temporary name: 16 random hex digits collide only when
# something else creates names in the directory on purpose.
_NAME_TRIES = 16


def _not_regular(name: str, mode: int) -> OSError:
    if stat.S_ISDIR(mode):
        return IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), name)
    return NotRegularFileError(errno.EINVAL, "not a regular file", name)


def read_regular_file(name: str, limit: int) -> bytes:
    """At most ``limit`` bytes of the regular file ``name``; ``OSError`` for anything else."""
    descriptor = os.open(name, _READ_FLAGS)
    try:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            raise _not_regular(name, mode)
        chunks: list[bytes] = []
        remaining = limit
        while remaining > 0:
            chunk = os.read(descriptor, min(remaining, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(descriptor)


def _write_all(descriptor: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(descriptor, view)
        view = view[written:]


def _write_device(
    directory: int, name: str, path: str, expected: os.stat_result, data: bytes
) -> None:
    flags = os.O_WRONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NOCTTY", 0)
    descriptor = os.open(name, flags | getattr(os, "O_CLOEXEC", 0), dir_fd=directory)
    try:
        found = os.fstat(descriptor)
        if not stat.S_ISCHR(found.st_mode) or found.st_rdev != expected.st_rdev:
            raise OSError(errno.EAGAIN, "changed while being opened", path)
        _write_all(descriptor, data)
    finally:
        os.close(descriptor)


def replace_file(path: str, data: bytes) -> None:
    """Make ``path`` a regular file holding ``data``, never writing through a link."""
    parent, name = os.path.split(path)
    if not name or name in (".", ".."):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
    try:
        directory = os.open(parent or ".", os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError as error:
        raise OSError(error.errno, error.strerror, path) from error
    try:
        mode = 0o666  # before the umask, as open() would create it
        try:
            existing = os.lstat(name, dir_fd=directory)
        except FileNotFoundError:
            existing = None
        if existing is not None and stat.S_ISCHR(existing.st_mode):
            # /dev/null, a terminal: written in place (renaming over a device node
            # would replace it for everyone when run as root).
            _write_device(directory, name, path, existing, data)
            return
        if existing is not None and (
            stat.S_ISDIR(existing.st_mode) or stat.S_ISBLK(existing.st_mode)
        ):
            raise _not_regular(path, existing.st_mode)
        temporary = ""
        descriptor = -1
        for _ in range(_NAME_TRIES):
            temporary = f".a13n-skills.{secrets.token_hex(8)}.tmp"  # any name length
            try:
                descriptor = os.open(temporary, _CREATE_FLAGS, mode, dir_fd=directory)
                break
            except FileExistsError:
                continue
        if descriptor < 0:
            raise FileExistsError(errno.EEXIST, "no free temporary name", path)
        try:
            try:
                if existing is not None and stat.S_ISREG(existing.st_mode):
                    os.fchmod(descriptor, stat.S_IMODE(existing.st_mode))
                _write_all(descriptor, data)
            finally:
                os.close(descriptor)
            os.replace(temporary, name, src_dir_fd=directory, dst_dir_fd=directory)
        except BaseException as failure:
            with contextlib.suppress(OSError):
                os.unlink(temporary, dir_fd=directory)
            if isinstance(failure, OSError) and failure.filename is not None:
                raise OSError(failure.errno, failure.strerror, path) from failure
            raise
    finally:
        os.close(directory)
