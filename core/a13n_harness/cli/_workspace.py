"""Scanning a workspace directory for the commands: roots, display paths, catalog entries.

Sections cited as ``§N`` are those of ``docs/contract.md``.

The workspace is the operator's ``/`` (:class:`LocalFileOperator`); what the
commands show is relative to it: the root ``/.agents/skills`` is displayed as
``.agents/skills`` and a package's file as ``.agents/skills/name/SKILL.md``,
the way an agent whose working directory is the workspace would name them
(Codex's pointer line reads "list .agents/skills/ and .claude/skills/").

The scan is the library's (``SkillManager.inspect``, the one discovery
engine) run through a :class:`BlockingLocalFileOperator` by
:func:`run_blocking`: no event loop, so a command does not pay for importing
``asyncio``; what it finds is exactly what the asynchronous scan finds
(``properties/test_cli_scan.py``).
"""

from __future__ import annotations

import errno
import os
from collections.abc import Sequence

from a13n_harness.capabilities import (
    FileSkillSource,
    SkillCatalogItem,
    SkillManager,
    SkillScan,
    SkillsPolicy,
)
from a13n_harness.cli._output import Progress
from a13n_harness.context.catalog import CatalogEntry, SkillCatalog
from a13n_harness.environment.local import BlockingLocalFileOperator, run_blocking

# Spelled here rather than imported from ``typing``: see ``a13n_harness/__init__.py``.
TYPE_CHECKING = False

if TYPE_CHECKING:
    from typing import Literal

DEFAULT_ROOTS = ("/.agents/skills", "/.claude/skills")
"""The roots ``catalog``, ``lint`` and ``manifest`` scan when no ``--root`` is given."""

SOURCE_ID = "workspace"


def display_path(path: str) -> str:
    """An operator path shown relative to the workspace (``/`` itself is ``.``)."""
    return path.lstrip("/") or "."


def shown_in(workspace: str, path: str) -> str:
    """An operator path of ``workspace`` as the user can open it from the current directory."""
    shown = display_path(path)
    return shown if workspace in (".", "") else os.path.join(workspace, shown)


def check_workspace(workspace: str) -> str:
    """``workspace`` if it is a directory; an ``OSError`` naming it otherwise."""
    if not os.path.isdir(workspace):
        if os.path.exists(workspace):
            raise NotADirectoryError(errno.ENOTDIR, "not a directory", workspace)
        raise FileNotFoundError(errno.ENOENT, "no such directory", workspace)
    return workspace


class WorkspaceScan:
    """What one scan of a workspace found, with the roots as configured.

    A plain class, not a dataclass: generating one costs the command's start-up
    about a millisecond, and nothing compares or prints a workspace scan.
    """

    __slots__ = ("roots", "scan")

    def __init__(self, roots: tuple[str, ...], scan: SkillScan) -> None:
        self.roots = roots
        self.scan = scan

    @property
    def display_roots(self) -> tuple[str, ...]:
        return tuple(display_path(root) for root in self.roots)

    @property
    def scanned_roots(self) -> tuple[str, ...]:
        """The display roots that were scanned: a skipped optional root is not named (§7)."""
        skipped = {d.path for d in self.scan.diagnostics if d.code == "skill_root_skipped"}
        return tuple(display_path(root) for root in self.roots if root not in skipped)

    def entries(self) -> tuple[CatalogEntry, ...]:
        return tuple(entry_of(item) for item in self.scan.items)

    def catalog(self) -> SkillCatalog:
        return SkillCatalog(self.entries(), 0, self.scanned_roots)


def entry_of(item: SkillCatalogItem) -> CatalogEntry:
    return CatalogEntry(item.name, item.description, display_path(item.path))


def source_for(roots: Sequence[str]) -> FileSkillSource:
    """Explicit ``--root`` values are required (a typo must fail); the defaults are not."""
    if roots:
        return FileSkillSource(SOURCE_ID, tuple(roots), required=True)
    return FileSkillSource(SOURCE_ID, DEFAULT_ROOTS, required=False)


def scan_workspace(
    workspace: str,
    roots: Sequence[str],
    invalid: Literal["error", "skip"],
    progress: Progress,
) -> WorkspaceScan:
    """Scan ``workspace`` (the operator's ``/``) once, every root in one source."""
    source = source_for(roots)
    manager = SkillManager([source], policy=SkillsPolicy(invalid=invalid))
    progress.show(f"scanning {workspace} ({', '.join(source.roots)})")
    try:
        with BlockingLocalFileOperator(check_workspace(workspace)) as files:
            scan = run_blocking(manager.inspect(files=files))
    finally:
        progress.clear()
    return WorkspaceScan(source.roots, scan)
