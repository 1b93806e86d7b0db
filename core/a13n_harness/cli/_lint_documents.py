"""Lint's reads: each ``SKILL.md`` of a run read once and its YAML parsed once.

Lint's scans (discovery of each root, discovery's final re-read, the scan of the roots an
agent loads together) and its document checks all ask for the same ``SKILL.md`` files.
:class:`LintDocuments` is the operator they are given: the first request for a ``SKILL.md``
reads the whole file (up to :data:`~a13n_harness.context.lint.DOCUMENT_MAX_BYTES` and one
byte, what the checks take) and parses it once
(:func:`~a13n_harness.context.lint.parse_document`: the verdict, the fences and the YAML
nodes); a later request at any limit is answered from those bytes (a read of an unchanged
regular file at ``limit`` is its first ``limit`` bytes), and the verdict is handed to
discovery's memo (:func:`~a13n_harness.capabilities.verdicts.remember_verdict`), so
discovery does not parse the file again. A read that failed fails again the same way,
without a second read. Listings, ``stat`` and every other file go to the operator itself.

What this changes, besides the work: discovery and the checks judge the very same bytes
(before, a file rewritten between discovery's read and lint's was checked in its newer
state), and discovery's final re-read compares those bytes with themselves. A document is
kept until the checks have taken it, and after that only when a later scan reads it again
(:attr:`LintDocuments.keep`), so a run holds what one root's scan reads at a time.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from typing import TYPE_CHECKING

from a13n_harness.capabilities.discovery import read_limit
from a13n_harness.capabilities.verdicts import remember_verdict
from a13n_harness.context.errors import DefinitionError
from a13n_harness.context.frontmatter import FrontmatterLimits
from a13n_harness.context.lint import DOCUMENT_MAX_BYTES, DocumentParse, parse_document
from a13n_harness.environment import FileOperatorError, FilePermissionDenied
from a13n_harness.environment.errors import check_limit

if TYPE_CHECKING:
    from a13n_harness.environment import DirectoryEntry, FileStat, LocalFileOperator

__all__ = ["LintDocuments"]

SKILL_FILE = "SKILL.md"
_WHOLE = DOCUMENT_MAX_BYTES + 1  # what the checks read: one byte past their bound tells "too large"
_LINT_LIMITS = FrontmatterLimits()  # the limits the checks parse at (parse_document)


class _Read:
    """One ``SKILL.md`` as read: its bytes (at :data:`_WHOLE`) and their one parse (dropped
    once the checks have taken it), or the error reading it raised."""

    __slots__ = ("data", "error", "parsed")

    def __init__(
        self,
        data: bytes = b"",
        parsed: DocumentParse | None = None,
        error: DefinitionError | None = None,
    ) -> None:
        self.data = data
        self.parsed = parsed
        self.error = error


class LintDocuments:
    """``files`` as lint's scans and checks see it: each ``SKILL.md`` read once and parsed
    once (module docstring). A batch reader with one lane, like the operator it wraps, and
    whose ``root`` is that operator's."""

    __slots__ = ("_documents", "_first", "_limits", "files", "keep")

    def __init__(self, files: LocalFileOperator, limits: FrontmatterLimits = _LINT_LIMITS):
        self.files = files
        """The operator read through."""
        # Discovery's limits and first read: its verdict is the checks' only at the same limits.
        self._limits = limits if limits == _LINT_LIMITS else None
        self._first = read_limit(limits)
        self._documents: dict[str, _Read] = {}
        self.keep: tuple[str, ...] = ()
        """Roots whose documents a later scan reads again: kept after the checks took them."""

    @property
    def root(self) -> str:
        return self.files.root

    @property
    def read_concurrency(self) -> int:
        return 1

    async def list_directory(self, path: str) -> Sequence[DirectoryEntry]:
        return await self.files.list_directory(path)

    async def stat(self, path: str) -> FileStat:
        return await self.files.stat(path)

    async def read_bytes(self, path: str, limit: int) -> bytes:
        bound = check_limit(limit)
        if posixpath.basename(path) != SKILL_FILE or bound > _WHOLE:
            return await self.files.read_bytes(path, bound)
        read = await self._read(path)
        if read.error is not None:
            raise read.error
        parsed = read.parsed
        whole = len(read.data) < _WHOLE
        if bound == self._first and whole and parsed is not None and self._limits is not None:
            # Discovery's first read of a whole file: its verdict is the one parse's.
            verdict = parsed.frontmatter if parsed.error is None else parsed.error
            assert verdict is not None
            remember_verdict(path, read.data, bound, self._limits, verdict)
        return read.data[:bound]

    async def read_many(
        self, paths: Sequence[str], limit: int
    ) -> Sequence[bytes | FileOperatorError]:
        results: list[bytes | FileOperatorError] = []
        for path in paths:
            try:
                results.append(await self.read_bytes(path, limit))
            except FileOperatorError as error:
                results.append(error)
        return results

    # Lint's scans have no materializers: this operator reads, and refuses to write.
    async def write_bytes(self, path: str, data: bytes) -> None:
        raise FilePermissionDenied("lint reads the workspace and writes nothing", path=path)

    async def make_directory(self, path: str) -> None:
        raise FilePermissionDenied("lint reads the workspace and writes nothing", path=path)

    async def remove(self, path: str) -> None:
        raise FilePermissionDenied("lint reads the workspace and writes nothing", path=path)

    async def document(self, path: str) -> tuple[bytes, DocumentParse]:
        """The whole ``SKILL.md`` at ``path`` (at most :data:`_WHOLE` bytes) and its one parse,
        for the checks; raises what reading it raised. Afterwards the parse is dropped, and
        the bytes too unless a later scan reads them (:attr:`keep`)."""
        read = await self._read(path)
        if read.error is not None:
            raise read.error
        parsed = read.parsed if read.parsed is not None else parse_document(read.data)
        if any(path.startswith(root.rstrip("/") + "/") for root in self.keep):
            read.parsed = None
        else:
            self._documents.pop(path, None)
        return read.data, parsed

    async def _read(self, path: str) -> _Read:
        read = self._documents.get(path)
        if read is None:
            try:
                data = await self.files.read_bytes(path, _WHOLE)
            except DefinitionError as error:
                read = _Read(error=error)
            else:
                read = _Read(data, parse_document(data))
            self._documents[path] = read
        return read
