"""The one workspace discovery of ``catalog``, ``manifest`` and ``lint``: roots, the walk, the scan.

Sections cited as ``§N`` are those of ``docs/contract.md``.

The workspace is the operator's ``/`` (:class:`LocalFileOperator`); what the
commands show is relative to it: the root ``/.agents/skills`` is displayed as
``.agents/skills`` and a package's file as ``.agents/skills/name/SKILL.md``,
the way an agent whose working directory is the workspace would name them
(Codex's pointer line reads "list .agents/skills/ and .claude/skills/").

Roots (§8 "Roots and layouts"):

* ``catalog`` and ``manifest`` default to :data:`DEFAULT_ROOTS`, what an agent sees in a
  checkout: ``.agents/skills`` (Codex, Copilot), ``.claude/skills`` (Claude Code,
  Copilot) and ``.github/skills`` (GitHub Copilot's documented project location), all
  optional. ``--nested`` adds the same three folders found in subfolders of a monorepo
  (:func:`nested_roots`, at most :data:`NESTED_DEPTH` levels down).
* ``lint`` with no ``--root`` finds every skill however the repository lays them out
  (:func:`layout_roots`): a bounded walk of the workspace (at most :data:`WALK_DEPTH`
  levels, :data:`WALK_ENTRIES` listed entries) whose roots are the folders holding
  skill folders (``skills/``, ``skills/.curated``, ``plugins/*/skills``,
  ``scientific-skills/``, a nested ``.agents/skills``); the workspace itself when it
  holds ``SKILL.md`` or skill folders.
* Every walk goes through the workspace's operator, descends only into directories
  (never a symbolic link), and skips :data:`SKIPPED_FOLDERS` and any folder holding
  ``pyvenv.cfg`` (a virtual environment): nothing outside the workspace is listed.
* ``--root`` is taken as users type it (:func:`namespace_root`).

The scan is the library's (``SkillManager.inspect`` with :meth:`SkillsPolicy.checkout`,
the one discovery engine) run through a :class:`BlockingLocalFileOperator` by
:func:`run_blocking`: no event loop, so a command does not pay for importing
``asyncio``; what it finds is exactly what the asynchronous scan finds
(``properties/test_cli_scan.py``). Every operation scans afresh.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from a13n_harness.capabilities import (
    FileSkillSource,
    SkillCatalogItem,
    SkillManager,
    SkillScan,
    SkillsPolicy,
)
from a13n_harness.cli._output import Progress
from a13n_harness.context.catalog import CatalogEntry, SkillCatalog
from a13n_harness.context.errors import DefinitionError
from a13n_harness.environment.local import BlockingLocalFileOperator, run_blocking

if TYPE_CHECKING:
    from typing import Literal

    from a13n_harness.environment import DirectoryEntry, LocalFileOperator

DEFAULT_ROOTS = ("/.agents/skills", "/.claude/skills", "/.github/skills")
"""The roots ``catalog`` and ``manifest`` scan when no ``--root`` is given (all optional)."""

AGENT_FOLDERS = (".agents", ".claude", ".github")
"""The folders whose ``skills`` subfolder an agent reads (:data:`DEFAULT_ROOTS`)."""

SOURCE_ID = "workspace"

SKIPPED_FOLDERS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        "bower_components",
        ".venv",
        "venv",
        ".tox",
        ".nox",
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        "site-packages",
        ".direnv",
    }
)
"""Folders a walk never enters: version control, dependencies, virtual environments, caches."""

# 8 levels: plugins/NAME/skills/SKILL/ is 4, a monorepo's pkg/sub/.agents/skills/SKILL/ 5;
# 100,000 listed entries: a large monorepo's source tree (dependencies skipped) in about
# a second, while a walk pointed at a huge tree ends with an error instead of crawling it.
WALK_DEPTH = 8
WALK_ENTRIES = 100_000
NESTED_DEPTH = 4
"""``--nested``: ``.agents/skills`` in folders up to four levels below the workspace."""

SKILL_FILE = "SKILL.md"


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


# ------------------------------------------------------------------ roots as typed


def _outside(given: str) -> DefinitionError:
    return DefinitionError(
        "skill_root_invalid",
        f"--root {given!r} is not inside the workspace",
        path=given,
        reason="outside_workspace",
    )


def namespace_root(workspace: str, given: str) -> str:
    """The root ``given`` on the command line, in the workspace's namespace (``/...``).

    Accepted: the namespace form (``/.agents/skills``), with or without a trailing
    ``/``; a path relative to the workspace (``skills``, ``./skills``, ``skills/``);
    a host path inside the workspace (``"$PWD/skills"``: an absolute path that has
    the workspace's own absolute or real path as its prefix). ``.`` and ``..``
    segments are resolved on their spelling; one that climbs above the workspace is
    ``skill_root_invalid`` (reason ``outside_workspace``) with the root as given. An
    absolute path that is not the workspace's is read in its namespace, where a host
    path elsewhere names nothing (``skill_root_missing``, reported as given).
    """
    if not given or "\x00" in given:
        raise DefinitionError(
            "skill_root_invalid", f"--root {given!r} is not a path", path=repr(given)
        )
    relative: str | None = None
    if given.startswith("/"):
        for prefix in {os.path.abspath(workspace), os.path.realpath(workspace)}:
            if given == prefix or given.rstrip("/") == prefix.rstrip("/"):
                relative = ""
                break
            base = prefix.rstrip("/") + "/"
            if given.startswith(base):
                relative = given[len(base) :]
                break
    else:
        relative = given
    segments: list[str] = []
    for segment in (given if relative is None else relative).split("/"):
        if segment in ("", "."):
            continue
        if segment == "..":
            if not segments:
                raise _outside(given)
            segments.pop()
            continue
        segments.append(segment)
    return "/" + "/".join(segments)


# ------------------------------------------------------------------------ the walks


class _Walk:
    """A bounded breadth-first walk of the workspace through its operator."""

    def __init__(self, files: LocalFileOperator, depth: int, entries: int) -> None:
        self.files = files
        self.depth = depth
        self.budget = entries

    async def listing(self, path: str) -> Sequence[DirectoryEntry] | None:
        try:
            listed = await self.files.list_directory(path)
        except DefinitionError:
            return None  # a folder the operator refuses is not walked (nothing outside is)
        self.budget -= len(listed)
        if self.budget < 0:
            raise DefinitionError(
                "skill_root_overflow",
                f"the workspace walk listed more than {WALK_ENTRIES} entries; "
                "name the skill roots with --root",
                path=path,
                reason="workspace_walk",
            )
        return sorted(listed, key=lambda entry: entry.name)


def _walked(entry: DirectoryEntry, listing: Sequence[DirectoryEntry]) -> bool:
    del listing
    return entry.kind == "directory" and entry.name not in SKIPPED_FOLDERS


def _join(parent: str, name: str) -> str:
    return f"{parent.rstrip('/')}/{name}"


async def layout_roots(
    files: LocalFileOperator, conventional: Sequence[str] = ()
) -> tuple[str, ...]:
    """Every folder of the workspace that holds skill folders (module docstring), in path
    order; ``/`` first when the workspace itself is a skill or holds skill folders. A
    ``conventional`` root the walk meets is a root even when no skill folder shows in its
    listing (its entries may be links, which the walk does not follow: discovery does)."""
    walk = _Walk(files, WALK_DEPTH, WALK_ENTRIES)
    roots: set[str] = set()
    wanted = set(conventional)
    level = ["/"]
    for depth in range(WALK_DEPTH + 1):
        following: list[str] = []
        for folder in level:
            listing = await walk.listing(folder)
            if listing is None:
                continue
            names = {entry.name for entry in listing}
            if folder in wanted:
                roots.add(folder)
            if SKILL_FILE in names and folder != "/":
                parent = folder.rsplit("/", 1)[0] or "/"
                roots.add(parent)
                continue  # a skill folder's content is the skill's
            if SKILL_FILE in names:
                roots.add("/")
            if "pyvenv.cfg" in names or depth == WALK_DEPTH:
                continue
            following.extend(
                _join(folder, entry.name) for entry in listing if _walked(entry, listing)
            )
        level = following
    return tuple(sorted(roots))


async def nested_roots(files: LocalFileOperator) -> tuple[str, ...]:
    """``.agents/skills``, ``.claude/skills`` and ``.github/skills`` folders in subfolders
    of the workspace, at most :data:`NESTED_DEPTH` levels down, in path order (the
    workspace's own are :data:`DEFAULT_ROOTS`)."""
    walk = _Walk(files, NESTED_DEPTH, WALK_ENTRIES)
    found: list[str] = []
    level = [
        _join("/", entry.name)
        for entry in (await walk.listing("/") or ())
        if _walked(entry, ()) and not entry.name.startswith(".")
    ]
    for depth in range(1, NESTED_DEPTH + 1):
        following: list[str] = []
        for folder in level:
            listing = await walk.listing(folder)
            if listing is None:
                continue
            for entry in listing:
                if entry.name in AGENT_FOLDERS and entry.kind == "directory":
                    inner = await walk.listing(_join(folder, entry.name))
                    if any(e.name == "skills" and e.kind == "directory" for e in inner or ()):
                        found.append(_join(_join(folder, entry.name), "skills"))
            if "pyvenv.cfg" in {entry.name for entry in listing} or depth == NESTED_DEPTH:
                continue
            following.extend(
                _join(folder, entry.name)
                for entry in listing
                if _walked(entry, listing) and not entry.name.startswith(".")
            )
        level = following
    return tuple(sorted(found))


# ------------------------------------------------------------------------- the scan


class WorkspaceScan:
    """What one scan of a workspace found, with the roots as configured.

    A plain class, not a dataclass: generating one costs the command's start-up
    about a millisecond, and nothing compares or prints a workspace scan.
    """

    __slots__ = ("roots", "scan", "shown_roots", "workspace")

    def __init__(
        self,
        roots: tuple[str, ...],
        scan: SkillScan,
        workspace: str = ".",
        shown_roots: tuple[str, ...] | None = None,
    ) -> None:
        self.roots = roots
        self.scan = scan
        self.workspace = workspace
        self.shown_roots = shown_roots

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

    def nothing_found(self) -> str | None:
        """The never-silent message when no skill was found (§8), else ``None``."""
        if self.scan.items:
            return None
        looked = self.shown_roots or tuple(f"{root}/" for root in self.display_roots)
        broken = sum(1 for d in self.scan.diagnostics if d.code in ("skill_frontmatter_skipped",))
        extra = f" ({broken} skipped as invalid)" if broken else ""
        return (
            f"no skills found in {self.workspace} (looked in {', '.join(looked)}){extra}; "
            "pass a folder of skill folders with --root PATH, or --nested for "
            ".agents/skills and .claude/skills in subfolders"
        )


def entry_of(item: SkillCatalogItem) -> CatalogEntry:
    return CatalogEntry(item.name, item.description, display_path(item.path))


def policy_for(invalid: Literal["error", "skip"]) -> SkillsPolicy:
    """The command line's discovery policy: checkout mode (skip bad entries, list every
    root completely); ``--invalid error`` fails on the first bad entry instead."""
    return SkillsPolicy.checkout(invalid=invalid)


def source_for(roots: Sequence[str], *, required: bool | None = None) -> FileSkillSource:
    """Explicit ``--root`` values are required (a typo must fail); the defaults are not."""
    if roots:
        unique = tuple(dict.fromkeys(roots))
        return FileSkillSource(SOURCE_ID, unique, required=True if required is None else required)
    return FileSkillSource(SOURCE_ID, DEFAULT_ROOTS, required=False)


def _as_given(error: DefinitionError, given: dict[str, str]) -> DefinitionError:
    """``error`` naming the root as the user typed it, when it is about a ``--root``."""
    typed = given.get(error.path or "")
    if typed is None:
        return error
    message = f"--root {typed!r}: {error.message}"
    if error.code == "skill_root_missing" and typed.startswith("/"):
        message += " in the workspace (a host path must be inside WORKSPACE)"
    return DefinitionError(
        error.code,
        message,
        reason=error.reason,
        path=typed,
        line=error.line,
        column=error.column,
    )


def translate_roots(workspace: str, given: Sequence[str]) -> dict[str, str]:
    """Namespace root -> the root as given, for every ``--root`` (in order)."""
    translated: dict[str, str] = {}
    for typed in given:
        translated.setdefault(namespace_root(workspace, typed), typed)
    return translated


def scan_workspace(
    workspace: str,
    roots: Sequence[str],
    invalid: Literal["error", "skip"],
    progress: Progress,
    *,
    nested: bool = False,
) -> WorkspaceScan:
    """Scan ``workspace`` (the operator's ``/``) once, every root in one source."""
    given = translate_roots(workspace, roots)
    manager_roots: tuple[str, ...]
    with BlockingLocalFileOperator(check_workspace(workspace)) as files:
        if given:
            source = source_for(tuple(given))
            sources = [source]
        else:
            source = source_for(())
            sources = [source]
            if nested:
                progress.show(f"looking for nested skill roots in {workspace}")
                try:
                    found = run_blocking(nested_roots(files))
                finally:
                    progress.clear()
                if found:
                    sources.append(FileSkillSource("nested", found, required=False))
        manager_roots = tuple(root for s in sources for root in s.roots)
        manager = SkillManager(sources, policy=policy_for(invalid))
        progress.show(f"scanning {workspace} ({', '.join(manager_roots)})")
        try:
            scan = run_blocking(manager.inspect(files=files))
        except DefinitionError as error:
            raise _as_given(error, given) from None
        finally:
            progress.clear()
    shown = tuple(given.values()) if given else None
    return WorkspaceScan(manager_roots, scan, workspace, shown)
