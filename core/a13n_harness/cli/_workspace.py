"""The one workspace discovery of ``catalog``, ``manifest`` and ``lint``: roots, the walk, the scan.

Sections cited as ``§N`` are those of ``docs/contract.md``.

The workspace is the operator's ``/`` (:class:`LocalFileOperator`); what the
commands show is relative to it: the root ``/.agents/skills`` is displayed as
``.agents/skills`` and a package's file as ``.agents/skills/name/SKILL.md``,
the way an agent whose working directory is the workspace would name them
(Codex's pointer line reads "list .agents/skills/ and .claude/skills/").

Roots (§8 "What an agent loads", "Roots as typed", "What lint checks"):

* What an agent loads is one definition, :func:`walk_workspace`'s ``agent_roots``: the
  ``skills`` folder of every agent folder (:data:`AGENT_FOLDERS`: ``.agents``, ``.claude``,
  ``.github``, ``.gemini``, ``.cursor``, ``.codex``) at any depth of the workspace, up to
  :data:`WALK_DEPTH` levels, reached through links that stay inside the workspace.
* ``catalog`` and ``manifest`` default to :data:`DEFAULT_ROOTS`, the workspace's own
  agent roots, all optional; ``--nested`` adds the agent roots the walk finds in
  subfolders.
* ``lint`` with no ``--root`` scans every agent root the walk finds, every folder holding
  a skill folder (``skills/``, ``skills/.curated``, ``plugins/*/skills``,
  ``scientific-skills/``; the workspace itself when it is a skill) and the
  :data:`LAYOUT_ROOTS` it meets: a superset of what ``catalog --nested`` lists, on every
  tree (``properties/test_lint_gate.py``).
* The walk goes through the workspace's operator, descends only into directories (never
  a symbolic link) and skips :data:`SKIPPED_FOLDERS`; a folder holding ``pyvenv.cfg`` (a
  virtual environment) and what is below it hold no skill of the repository's, but their
  agent folders are looked for like any other. An agent folder or its
  ``skills`` may be a link: one that stays inside is followed (as discovery follows it),
  one that leaves is a problem. Nothing is skipped silently: a folder that cannot be
  listed, a link leaving the workspace at an agent root, an agent root that is not a
  directory and the depth and entry bounds are :class:`WalkProblem` values, and a
  ``SKILL.md`` below another skill's folder is listed in ``nested``.
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
from dataclasses import dataclass
from typing import TYPE_CHECKING

from a13n_harness.capabilities import (
    FileSkillSource,
    SkillCatalogItem,
    SkillManager,
    SkillScan,
    SkillsPolicy,
)
from a13n_harness.cli._output import Progress
from a13n_harness.context._checks import has_lone_surrogate
from a13n_harness.context.catalog import CatalogEntry, SkillCatalog
from a13n_harness.context.errors import DefinitionError
from a13n_harness.environment.errors import FileNotFound, FilePermissionDenied, NotADirectory
from a13n_harness.environment.local import BlockingLocalFileOperator, run_blocking

if TYPE_CHECKING:
    from typing import Literal

    from a13n_harness.environment import DirectoryEntry, LocalFileOperator

AGENT_FOLDERS = (".agents", ".claude", ".github", ".gemini", ".cursor", ".codex")
"""The folders whose ``skills`` subfolder an agent reads, as the platforms document them
(docs/contract.md §8 cites each): ``.agents`` (Codex, GitHub Copilot, Gemini CLI, Cursor),
``.claude`` (Claude Code, Copilot, Cursor), ``.github`` (Copilot), ``.gemini`` (Gemini CLI),
``.cursor`` (Cursor) and ``.codex`` (Cursor's Codex compatibility). In this order a later
root beats an earlier one of the same name (§7 precedence)."""

DEFAULT_ROOTS = tuple(f"/{folder}/skills" for folder in AGENT_FOLDERS)
"""The roots ``catalog`` and ``manifest`` scan when no ``--root`` is given (all optional)."""

LAYOUT_ROOTS = ("/skills", "/skills/.curated", "/skills/.system", "/skills/.experimental")
"""Authoring layouts lint treats as roots when the walk meets them: anthropics/skills'
``/skills`` and openai/skills' ``/skills/.curated``, ``.system`` and ``.experimental``."""

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

# 32 levels: the deepest real checkouts (Java packages under src/main/java, generated code)
# stay below 20 folder levels, and a path 32 folders deep is still short; a deeper chain
# ends with a skill_root_overflow finding (a path of length n costs O(n) at each level).
WALK_DEPTH = 32
# 100,000 listed entries: a large monorepo's source tree (dependencies skipped) in about
# a second, while a walk pointed at a huge tree ends with a finding instead of crawling it.
WALK_ENTRIES = 100_000

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


def _below_logical(workspace: str, given: str) -> str | None:
    """The part of the host path ``given`` below ``workspace`` when ``given`` spells the
    workspace another way (``"$PWD/skills"`` in a directory entered through a symbolic
    link: ``$PWD`` keeps the link, the workspace's own path does not), else ``None``.

    The shortest leading part of ``given`` that is the workspace directory itself (same
    device and inode) decides; nothing below it is looked at, so no link inside the
    workspace is followed here."""
    try:
        here = os.stat(workspace)
    except OSError:
        return None
    parts = given.split("/")
    for cut in range(2, len(parts) + 1):
        if parts[cut - 1] in ("", ".", ".."):
            continue  # the spelling of a folder already tried, or one that climbs
        try:
            found = os.stat("/".join(parts[:cut]))
        except (OSError, ValueError):
            return None  # a prefix that does not exist: nothing longer does either
        if (found.st_dev, found.st_ino) == (here.st_dev, here.st_ino):
            return "/".join(parts[cut:])
    return None


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
        if relative is None:
            relative = _below_logical(workspace, given)
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


# ------------------------------------------------------------------------ the walk


@dataclass(frozen=True, slots=True)
class WalkProblem:
    """A part of the workspace the walk could not check: reported, never skipped silently.

    ``code`` is a lint rule and scan error code: ``skill_root_overflow`` (the walk's
    depth or entry bound, ``reason`` ``workspace_depth`` or ``workspace_walk``),
    ``skill_permission_denied`` (a folder the operator refuses, or a link at an agent
    root leaving the workspace, ``reason`` ``link_escapes``), ``skill_provider_failed``
    (a listing that failed) or ``skill_entry_skipped`` (an agent root that is not a
    directory). ``path`` is an operator path."""

    code: str
    path: str
    message: str
    reason: str


@dataclass(frozen=True, slots=True)
class WorkspaceWalk:
    """What one walk of the workspace found (:func:`walk_workspace`), every tuple in path order.

    ``agent_roots``: every ``<agent folder>/skills`` directory (:data:`AGENT_FOLDERS`), the
    workspace's own included, reached through links that stay inside. ``layout_roots``: every
    folder holding a skill folder (``/`` when the workspace itself is a skill).
    ``conventional``: the :data:`LAYOUT_ROOTS` the walk met. ``nested``: each ``SKILL.md``
    below another skill's folder, with that folder. ``problems``: what could not be checked.
    """

    agent_roots: tuple[str, ...]
    layout_roots: tuple[str, ...]
    conventional: tuple[str, ...]
    nested: tuple[tuple[str, str], ...]
    problems: tuple[WalkProblem, ...]

    @property
    def lint_roots(self) -> tuple[str, ...]:
        """Every root lint scans: agent roots, authoring layouts and conventional roots."""
        return tuple(sorted({*self.agent_roots, *self.layout_roots, *self.conventional}))


def _join(parent: str, name: str) -> str:
    return f"{parent.rstrip('/')}/{name}"


def _problem(error: DefinitionError, path: str, what: str) -> WalkProblem:
    if isinstance(error, FilePermissionDenied):
        reason = error.reason or "permission_denied"
        if reason == "link_escapes":
            message = f"{what} is a symbolic link that leads out of the workspace; not followed"
        else:
            message = f"{what} cannot be read: {error.message}"
        return WalkProblem("skill_permission_denied", path, message, reason)
    return WalkProblem(
        "skill_provider_failed", path, f"{what} cannot be read: {error.message}", "unreadable"
    )


_Place = tuple[str, "str | None", bool]


class _Walk:
    """One bounded breadth-first walk of the workspace through its operator."""

    def __init__(self, files: LocalFileOperator, depth: int, entries: int) -> None:
        self.files = files
        self.depth = depth
        self.entries = entries
        self.budget = entries
        self.agent_roots: set[str] = set()
        self.layout_roots: set[str] = set()
        self.conventional: set[str] = set()
        self.nested: list[tuple[str, str]] = []
        self.problems: list[WalkProblem] = []

    async def listing(self, path: str) -> list[DirectoryEntry] | None:
        """The entries of ``path`` in name order, or ``None`` (the problem recorded)."""
        try:
            listed = await self.files.list_directory(path)
        except DefinitionError as error:
            self.problems.append(_problem(error, path, f"the folder {display_path(path)}"))
            return None
        self.budget -= len(listed)
        return sorted(listed, key=lambda entry: entry.name)

    async def agent_root(self, root: str, linked: bool) -> bool:
        """Whether ``root`` (``<folder>/.agents/skills`` ...) is a directory an agent reads.

        Looked up through the operator, so a link that stays inside the workspace is
        followed (as discovery follows it) and one that leaves it is a problem. ``linked``:
        the agent folder is a link (one naming nothing is a problem too)."""
        try:
            found = await self.files.stat(root)
        except (FileNotFound, NotADirectory):
            if linked or await self._has_entry(root):
                self.problems.append(
                    WalkProblem(
                        "skill_entry_skipped",
                        root,
                        f"the agent skill root {display_path(root)} is a link to nothing "
                        "or to something that is not a directory; no agent loads skills "
                        "from it",
                        "not_a_directory",
                    )
                )
            return False
        except DefinitionError as error:
            what = f"the agent skill root {display_path(root)}"
            self.problems.append(_problem(error, root, what))
            return False
        if found.kind == "directory":
            return True
        self.problems.append(
            WalkProblem(
                "skill_entry_skipped",
                root,
                f"the agent skill root {display_path(root)} is not a directory ({found.kind}); "
                "no agent loads skills from it",
                "not_a_directory",
            )
        )
        return False

    async def _has_entry(self, root: str) -> bool:
        """Whether ``root``'s folder lists an entry named like ``root`` (a dangling link)."""
        folder, name = root.rsplit("/", 1)
        try:
            listed = await self.files.list_directory(folder)
        except DefinitionError:
            return False
        self.budget -= len(listed)
        return any(entry.name == name for entry in listed)

    async def run(self) -> WorkspaceWalk:
        # (folder, the skill folder it is in or None, inside a virtual environment).
        level: list[_Place] = [("/", None, False)]
        for depth in range(self.depth + 1):
            following: list[_Place] = []
            for place in level:
                if self.budget < 0:
                    break
                following.extend(await self.folder(*place))
            if self.budget < 0:
                self.problems.append(
                    WalkProblem(
                        "skill_root_overflow",
                        "/",
                        f"the workspace walk listed more than {self.entries} entries and "
                        "stopped; what it did not reach is not checked: name the skill "
                        "roots with --root",
                        "workspace_walk",
                    )
                )
                break
            if depth == self.depth and following:
                first = following[0][0]
                self.problems.append(
                    WalkProblem(
                        "skill_root_overflow",
                        first,
                        f"the workspace walk stops {self.depth} levels down: "
                        f"{len(following)} folder(s) below that depth (the first: "
                        f"{display_path(first)}) are not checked; name the skill roots "
                        "there with --root",
                        "workspace_depth",
                    )
                )
            level = following
        return WorkspaceWalk(
            tuple(sorted(self.agent_roots)),
            tuple(sorted(self.layout_roots)),
            tuple(sorted(self.conventional)),
            tuple(sorted(self.nested)),
            tuple(self.problems),
        )

    async def folder(self, folder: str, skill: str | None, venv: bool) -> list[_Place]:
        """Look at one folder; return the folders to walk next."""
        listing = await self.listing(folder)
        if listing is None:
            return []
        # A root's entries are packages in their own right, whatever holds the root.
        is_root = folder == "/" or folder in self.agent_roots or folder in LAYOUT_ROOTS
        if is_root:
            skill = None
        if folder in self.agent_roots:
            venv = False
        if folder in LAYOUT_ROOTS and not venv:
            self.conventional.add(folder)
        names = {entry.name for entry in listing}
        # A virtual environment (a folder holding pyvenv.cfg, and all below it) holds no
        # skill of the repository's, but its agent folders are looked for like any other:
        # an agent reads .agents/skills wherever it is.
        venv = venv or "pyvenv.cfg" in names
        if SKILL_FILE in names and not venv:
            if skill is not None:
                self.nested.append((_join(folder, SKILL_FILE), skill))
            else:
                self.layout_roots.add(folder.rsplit("/", 1)[0] or "/")
                if not is_root:
                    skill = folder  # what lies below is this skill's content
        for entry in listing:
            if entry.name in AGENT_FOLDERS and entry.kind in ("directory", "symlink"):
                root = _join(_join(folder, entry.name), "skills")
                if await self.agent_root(root, entry.kind == "symlink"):
                    self.agent_roots.add(root)
        following: list[_Place] = []
        for entry in listing:
            if entry.kind != "directory" or entry.name in SKIPPED_FOLDERS:
                continue
            path = _join(folder, entry.name)
            if has_lone_surrogate(entry.name):
                # No path of the operator can name it; discovery says the same of a
                # package folder (reason name_not_unicode).
                self.problems.append(
                    WalkProblem(
                        "skill_entry_skipped",
                        path,
                        "the folder's name is not valid Unicode; it is not walked",
                        "name_not_unicode",
                    )
                )
                continue
            following.append((path, skill, venv))
        return following


async def walk_workspace(
    files: LocalFileOperator, *, depth: int | None = None, entries: int | None = None
) -> WorkspaceWalk:
    """Walk the workspace once (module docstring): the one definition of what an agent
    loads (:attr:`WorkspaceWalk.agent_roots`), shared by ``catalog --nested``, ``manifest
    --nested`` and ``lint``, plus lint's authoring layouts. Never raises for the tree's
    content: every folder it cannot check is a :class:`WalkProblem`."""
    return await _Walk(
        files,
        WALK_DEPTH if depth is None else depth,
        WALK_ENTRIES if entries is None else entries,
    ).run()


# ------------------------------------------------------------------------- the scan


class WorkspaceScan:
    """What one scan of a workspace found, with the roots as configured.

    A plain class, not a dataclass: generating one costs the command's start-up
    about a millisecond, and nothing compares or prints a workspace scan.
    """

    __slots__ = ("problems", "roots", "scan", "shown_roots", "workspace")

    def __init__(
        self,
        roots: tuple[str, ...],
        scan: SkillScan,
        workspace: str = ".",
        shown_roots: tuple[str, ...] | None = None,
        problems: tuple[WalkProblem, ...] = (),
    ) -> None:
        self.roots = roots
        self.scan = scan
        self.workspace = workspace
        self.shown_roots = shown_roots
        self.problems = problems  # what ``--nested``'s walk could not check

    @property
    def display_roots(self) -> tuple[str, ...]:
        return tuple(display_path(root) for root in self.roots)

    @property
    def scanned_roots(self) -> tuple[str, ...]:
        """The display roots that were scanned: a skipped optional root is not named (§7)."""
        skipped = {d.path for d in self.scan.diagnostics if d.code == "skill_root_skipped"}
        return tuple(display_path(root) for root in self.roots if root not in skipped)

    def entries(self) -> tuple[CatalogEntry, ...]:
        """The model's entries: a ``disable-model-invocation`` skill is the user's only
        (docs/contract.md §10), left out of the catalog and the manifest."""
        return tuple(
            entry_of(item) for item in self.scan.items if not item.disable_model_invocation
        )

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
            "the same folders in subfolders"
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


def as_given(error: DefinitionError, given: dict[str, str]) -> DefinitionError:
    """``error`` naming the root as the user typed it, when it is about a ``--root``."""
    typed = given.get(error.path or "")
    if typed is None:
        return error
    message = f"--root {typed!r}: {error.message}"
    if error.code == "skill_root_missing" and typed.startswith("/"):
        if os.path.exists(typed):
            # The user's own argument names a folder of this machine outside WORKSPACE:
            # say so (looking at the path they typed reads nothing of the checkout).
            return _outside(typed)
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
    problems: tuple[WalkProblem, ...] = ()
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
                    walk = run_blocking(walk_workspace(files))
                finally:
                    progress.clear()
                problems = walk.problems
                found = tuple(root for root in walk.agent_roots if root not in DEFAULT_ROOTS)
                if found:
                    sources.append(FileSkillSource("nested", found, required=False))
        manager_roots = tuple(root for s in sources for root in s.roots)
        manager = SkillManager(sources, policy=policy_for(invalid))
        progress.show(f"scanning {workspace} ({', '.join(manager_roots)})")
        try:
            scan = run_blocking(manager.inspect(files=files))
        except DefinitionError as error:
            raise as_given(error, given) from None
        finally:
            progress.clear()
    shown = tuple(given.values()) if given else None
    return WorkspaceScan(manager_roots, scan, workspace, shown, problems)


_as_given = as_given  # the name the scan-agreement tests knew it by
