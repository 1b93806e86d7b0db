"""The file-operator protocols (docs/contract.md §7), exported by ``environment.operator``.

Kept apart from the values of ``operator`` so that a scan, which needs only
those, does not import ``typing`` (defining a protocol does).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal, Protocol, runtime_checkable

if TYPE_CHECKING:
    from a13n_harness.environment.errors import FileOperatorError
    from a13n_harness.environment.operator import DirectoryEntry, FileStat

__all__ = ["BatchReader", "EntryKind", "FileOperator"]

EntryKind = Literal["file", "directory", "symlink", "other"]


class FileOperator(Protocol):
    """Async access to one path namespace, whose ``/`` is the operator's root.

    Paths are canonical absolute paths (:mod:`a13n_harness.environment.paths`).
    Errors are :class:`~a13n_harness.environment.errors.FileOperatorError`
    subclasses: ``FileNotFound``, ``FilePermissionDenied``, ``NotADirectory``,
    ``FileUnsupported``, ``FileProviderError``.
    """

    async def list_directory(self, path: str) -> Sequence[DirectoryEntry]:
        """Every entry of the directory ``path``, in any order."""
        ...

    async def read_bytes(self, path: str, limit: int) -> bytes:
        """At most ``limit`` bytes from the start of the regular file ``path``."""
        ...

    async def stat(self, path: str) -> FileStat:
        """What ``path`` names, links followed."""
        ...

    async def write_bytes(self, path: str, data: bytes) -> None:
        """Create or replace the regular file ``path`` (its directory must exist)."""
        ...

    async def make_directory(self, path: str) -> None:
        """Create the directory ``path`` and any missing parents; an existing one is fine."""
        ...

    async def remove(self, path: str) -> None:
        """Remove the file or link ``path``, or the directory tree ``path`` (links not followed)."""
        ...


@runtime_checkable
class BatchReader(Protocol):
    """Optional extension: read several files in one call.

    Discovery hands each of its (at most eight) workers a contiguous chunk of
    reads; an operator that can do a chunk in one hop (one thread switch for
    :class:`~a13n_harness.environment.LocalFileOperator`) implements this.
    A chunk is read sequentially, so a worker still has one read in flight.
    Each result is the bytes (as :meth:`FileOperator.read_bytes` would return
    them) or the :class:`FileOperatorError` that read would raise.

    ``read_concurrency`` says how many chunks the reader serves well in
    parallel (1 for a local disk, where threads only contend for the
    interpreter; up to 8 for a network provider). Discovery never uses more
    than eight.
    """

    @property
    def read_concurrency(self) -> int:
        """How many ``read_many`` calls are worth having in flight at once."""
        ...

    async def read_many(
        self, paths: Sequence[str], limit: int
    ) -> Sequence[bytes | FileOperatorError]:
        """``read_bytes(path, limit)`` for each path, in order, errors as values."""
        ...
