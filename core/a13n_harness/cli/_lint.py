"""``a13n-skills lint``: the Agent Skills specification's checks and more, with clickable positions.

A PATH is a ``SKILL.md`` file, a skill folder (a folder holding ``SKILL.md``) or
a workspace (or a folder of skill folders, which is one). A workspace is scanned
through :class:`LocalFileOperator` (nothing outside it is read, symbolic links
included; its blocking form, driven without an event loop as ``catalog`` does)
with the ``--root`` values (typed as ``catalog`` takes them), or by default with
every folder of skill folders the workspace walk of :mod:`a13n_harness.cli._workspace`
finds (``skills/``, ``skills/.curated``, ``plugins/*/skills``, a top-level folder of
skills, nested ``.agents/skills``). Each root is scanned on its own in checkout mode
(``SkillsPolicy.checkout``: a bad entry is a finding, never the end of the scan),
so a hard error in one root does not hide the others; one more scan of the roots an
agent loads together (the ``--root`` values, or those of :data:`LINT_ROOTS` found)
reports overrides. Skipped entries are told apart by their reason codes
(:data:`~a13n_harness.capabilities.SKIP_REASONS`), never by message text.

Each skill's whole ``SKILL.md`` is then read and checked by the pure
:func:`a13n_harness.context.lint.check_document` under the profile asked for, and
the file references of its body (already normalised there) are resolved here: a
reference inside the skill folder through an operator whose ``/`` is the skill
folder (a link whose target leaves it is refused by construction and reported as
``skill_reference_escapes``); one that climbs out of the skill folder through an
operator whose ``/`` is the repository (the git work tree holding the skill, found
without running git, or else the workspace), so a target in the repository is
``skill_reference_outside_skill`` and one beyond it ``skill_reference_escapes``.
A path in inline code counts only when its first folder exists in the skill (`agents/`,
where Codex keeps its metadata, does not count).

Every finding has a path, a 1-based line and column (1:1 when it concerns a
whole file or folder), a severity and a rule id from :data:`RULES`. Zero skills
checked for a PATH is the error ``no_skills_found``.
"""

from __future__ import annotations

import dataclasses
import os
import posixpath
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from a13n_harness.capabilities import FileSkillSource, SkillDiagnostic, SkillManager
from a13n_harness.cli._findings import Finding, LintResult
from a13n_harness.cli._findings import finding as _finding
from a13n_harness.cli._fix import FixResult, apply_fixes
from a13n_harness.cli._github import github_lines, located
from a13n_harness.cli._gitignore import GitIgnore, gitignore_for
from a13n_harness.cli._lint_config import ConfigProblem, LintConfig, config_for, load_config
from a13n_harness.cli._lint_documents import LintDocuments
from a13n_harness.cli._output import PROGRAM, Progress, json_text, safe_line
from a13n_harness.cli._sarif import sarif_document
from a13n_harness.cli._workspace import (
    AGENT_FOLDERS,
    DEFAULT_ROOTS,
    LAYOUT_ROOTS,
    SOURCE_ID,
    WALK_DEPTH,
    WalkProblem,
    as_given,
    policy_for,
    shown_in,
    translate_roots,
    walk_workspace,
)
from a13n_harness.context._lint_suppressions import (
    Suppressions,
    find_suppressions,
    mask_directives,
)
from a13n_harness.context.errors import DefinitionError, format_location
from a13n_harness.context.lint import (
    DEFAULT_PROFILE,
    PLUGIN_MANIFESTS,
    RULES,
    DocumentParse,
    Reference,
    check_parsed,
    installation_unit,
    rule_for_error,
)
from a13n_harness.environment import (
    FileNotFound,
    FileOperatorError,
    FilePermissionDenied,
    FileUnsupported,
    LocalFileOperator,
    NotADirectory,
)
from a13n_harness.environment.facts import _find_checkout  # finds a work tree, runs no git
from a13n_harness.environment.local import BlockingLocalFileOperator, run_blocking

if TYPE_CHECKING:
    from a13n_harness.context.tokens import TokenCounter

__all__ = [
    "JSON_FORMAT_VERSION",
    "LINT_ROOTS",
    "Finding",
    "LintResult",
    "failed",
    "fix",
    "format_findings",
    "lint",
    "run_level",
    "run_lines",
    "run_lint",
]

LINT_ROOTS = (*DEFAULT_ROOTS, *LAYOUT_ROOTS)
"""The conventional roots: the workspace's agent roots (``/.agents/skills``,
``/.claude/skills``, ``/.github/skills``, ...), anthropics/skills' ``/skills`` and
openai/skills' ``/skills/.curated``, ``/skills/.system`` and ``/skills/.experimental``.
The walk finds them like any other; overrides are reported across the ones it finds, and
a folder without ``SKILL.md`` in one of them (or in any agent root) is a warning
(elsewhere it is just a folder).
"""

JSON_FORMAT_VERSION = 1
"""The version of ``--format json``'s document; it changes when a field changes meaning."""

SKILL_FILE = "SKILL.md"
# Skipped entries by reason code (capabilities.SKIP_REASONS):
_QUIET_REASONS = frozenset({"hidden", "not_a_package_folder"})  # beside the skills, not skills
_UNSUPPORTED_REASONS = frozenset({"not_a_regular_file", "link_loop"})  # a broken skill
_REFUSED_RULES = {  # an entry the operator refuses or cannot read: the scan error's rule
    "link_escapes": "skill_permission_denied",
    "permission_denied": "skill_permission_denied",
    "unreadable": "skill_provider_failed",
}


class _Linter:
    def __init__(
        self,
        progress: Progress,
        profile: str = DEFAULT_PROFILE,
        counter: TokenCounter | None = None,
    ) -> None:
        self.progress = progress
        self.profile = profile
        self.counter = counter  # the body's size in its tokens, else in lines
        self.findings: list[Finding] = []
        self.skills = 0
        self.seen: set[str] = set()
        self.scanning: str | None = None  # the workspace being scanned, if any
        self.tops: dict[str, str | None] = {}  # a skill's parent -> its repository's top
        self.suppressed: list[Finding] = []  # what inline directives suppressed
        self.checked: list[str] = []  # every SKILL.md checked, as shown
        self.reals: dict[str, str] = {}  # a folder -> its real path (real())

    def real(self, path: str) -> str:
        """``os.path.realpath(path)`` for a path without ``.`` or ``..`` (a file below an
        operator's root), the real path of every folder on the way remembered: thousands of
        skills share the folders above them, which realpath would look at again for each.
        Each name not seen before is looked at once (a link is resolved by realpath)."""
        names: list[str] = []
        folder = path
        while folder not in self.reals:
            parent, name = os.path.split(folder)
            if not name:  # "/" (or "" for a relative path): realpath decides
                self.reals[folder] = os.path.realpath(folder)
                break
            names.append(name)
            folder = parent
        real = self.reals[folder]
        for name in reversed(names):
            folder = os.path.join(folder, name)
            joined = os.path.join(real, name)
            real = os.path.realpath(joined) if os.path.islink(joined) else joined
            self.reals[folder] = real
        return real

    # ---------------------------------------------------------------- one skill

    async def skill(
        self, files: LintDocuments, document: str, shown: str, folder: str
    ) -> tuple[str, int] | None:
        """Check the skill whose SKILL.md is ``document`` (an operator path of ``files``);
        its name as discovery reads it and the line of its ``name`` key, when it has one
        and was not checked before."""
        host = os.path.join(files.root, document.lstrip("/"))
        key = self.real(host)
        if key in self.seen:
            return None
        self.seen.add(key)
        self.skills += 1
        self.checked.append(shown)
        first = len(self.findings)
        try:
            data, parsed = await files.document(document)  # read and parsed once (LintDocuments)
        except FilePermissionDenied as error:
            self.findings.append(_finding(shown, 1, 1, "skill_permission_denied", error.message))
            return None
        except (FileUnsupported, NotADirectory, FileNotFound) as error:
            self.findings.append(_finding(shown, 1, 1, "skill_document_unsupported", error.message))
            return None
        except DefinitionError as error:
            self.findings.append(_finding(shown, 1, 1, rule_for_error(error.code), error.message))
            return None
        suppressions = find_suppressions(data, RULES)
        check = check_parsed(
            mask_directives(data, suppressions), parsed, folder, self.profile, self.counter
        )
        self.findings.extend(
            _finding(shown, issue.line, issue.column, issue.rule, issue.message)
            for issue in check.issues
        )
        named = _name_of(data, parsed)
        if check.references:
            await self._references(check.references, host, shown)
        self._suppress(suppressions, shown, first)
        return named

    def _suppress(self, suppressions: Suppressions, shown: str, first: int) -> None:
        """Move the findings of this skill (from index ``first``) that an inline directive
        covers to :attr:`suppressed`, and report the directives that do not say what they
        mean (:mod:`a13n_harness.context._lint_suppressions`)."""
        if suppressions.problems:
            self.findings.extend(
                _finding(shown, p.line, p.column, "skill_suppression_invalid", p.message)
                for p in suppressions.problems
            )
            # In line order with the file's other findings (a stable sort: ties keep theirs).
            self.findings[first:] = sorted(self.findings[first:], key=lambda f: f.line)
        if not suppressions.directives:
            return
        kept = []
        for finding in self.findings[first:]:
            if finding.path == shown and suppressions.covers(finding.rule, finding.line):
                self.suppressed.append(finding)
            else:
                kept.append(finding)
        self.findings[first:] = kept

    async def _references(self, references: Sequence[Reference], host: str, shown: str) -> None:
        """Resolve one skill's references (module docstring); ``host`` is its SKILL.md."""
        skill = self.real(os.path.dirname(host))
        parent = os.path.dirname(skill)
        if parent not in self.tops:
            self.tops[parent] = find_repository(parent, self.scanning)
        top = self.tops[parent] or skill
        with BlockingLocalFileOperator(skill) as inside:
            resolver = _Resolver(inside, top, _relative(skill, top))
            try:
                for reference in references:
                    problem = await resolver.problem(reference)
                    if problem is not None:
                        rule, message = problem
                        self.findings.append(
                            _finding(shown, reference.line, reference.column, rule, message)
                        )
            finally:
                resolver.close()

    async def skill_folder(self, path: str) -> None:
        """A PATH that is a skill folder (or its SKILL.md)."""
        folder = os.path.basename(os.path.abspath(path))
        shown = os.path.normpath(os.path.join(path, SKILL_FILE))
        self.progress.show(f"linting {shown}")
        with BlockingLocalFileOperator(path) as files:
            await self.skill(LintDocuments(files), "/" + SKILL_FILE, shown, folder)

    def _run_error(self, error: DefinitionError) -> None:
        """A problem of the run (a ``--root`` that is not usable): a tool-level finding
        naming the root as given."""
        rule = rule_for_error(error.code)
        self.findings.append(_finding(error.path or ".", 1, 1, rule, error.message))

    # ------------------------------------------------------------- a workspace

    async def workspace(self, workspace: str, roots: Sequence[str]) -> None:
        self.scanning = workspace
        try:
            with BlockingLocalFileOperator(workspace) as files:
                await self._workspace(LintDocuments(files), workspace, roots)
        finally:
            self.scanning = None

    async def _workspace(self, files: LintDocuments, workspace: str, roots: Sequence[str]) -> None:
        try:
            given = translate_roots(workspace, roots)
        except DefinitionError as error:
            self._run_error(error)
            return
        explicit = bool(given)
        nested: tuple[tuple[str, str], ...] = ()
        agent: tuple[str, ...] = ()
        problems: tuple[WalkProblem, ...] = ()
        if explicit:
            chosen = tuple(given)
        else:
            self.progress.show(f"looking for skills in {workspace}")
            walk = await walk_workspace(files.files)
            chosen = walk.lint_roots
            nested, agent, problems = walk.nested, walk.agent_roots, walk.problems
        policy = policy_for("skip")
        before = self.skills
        failed = False
        conventional = set(LINT_ROOTS) | set(agent) | set(chosen if explicit else ())
        together = chosen if explicit else tuple(r for r in LINT_ROOTS if r in chosen)
        files.keep = together if len(together) > 1 else ()  # scanned again below
        for root in chosen:
            self.progress.show(f"linting {root}")
            first = len(self.findings)
            source = FileSkillSource(SOURCE_ID, (root,), required=explicit)
            try:
                scan = await SkillManager([source], policy=policy).inspect(files=files)
            except DefinitionError as error:
                if explicit:
                    self._run_error(as_given(error, given))
                else:
                    self._scan_error(workspace, root, error)
                failed = True
                continue
            documents = {item.path: item.path for item in scan.items}
            for diagnostic in scan.diagnostics:
                self._diagnostic(workspace, diagnostic, documents, root in conventional)
            # Every SKILL.md of the root, whatever precedence or conflict policy kept.
            documents.update((d, d) for d in await _documents_of(files, root))
            names: dict[str, list[tuple[str, int]]] = {}
            for document in sorted(documents):
                directory = posixpath.dirname(document)
                folder = posixpath.basename(directory) or os.path.basename(
                    os.path.abspath(workspace)
                )
                shown = shown_in(workspace, document)
                named = await self.skill(files, document, shown, folder)
                if named is not None:
                    names.setdefault(named[0], []).append((shown, named[1]))
            self._conflicts(names)
            # Within a root, findings in path order (the sort is stable: each file keeps its order).
            self.findings[first:] = sorted(self.findings[first:], key=lambda f: f.path)
        for document, parent in nested:
            shown = shown_in(workspace, document)
            self.findings.append(
                _finding(
                    shown,
                    1,
                    1,
                    "skill_nested",
                    f"this SKILL.md is inside the skill folder {shown_in(workspace, parent)}; "
                    "no agent discovers a skill there: move it to a skill root, or rename it "
                    "if it is a file of that skill",
                )
            )
            folder = posixpath.basename(posixpath.dirname(document))
            await self.skill(files, document, shown, folder)
        # What the walk could not check, unless a root's scan said it already.
        said = {(f.path, f.rule) for f in self.findings}
        for problem in problems:
            shown = shown_in(workspace, problem.path)
            if (shown, problem.code) not in said:
                self.findings.append(_finding(shown, 1, 1, problem.code, problem.message))
        if not failed and len(together) > 1:
            self.progress.show("checking overrides across roots")
            configured = FileSkillSource(SOURCE_ID, together, required=explicit)
            try:
                scan = await SkillManager([configured], policy=policy).inspect(files=files)
            except DefinitionError as error:
                self._scan_error(workspace, "/", error)
            else:
                self.findings.extend(
                    _finding(shown_in(workspace, d.path), 1, 1, "skill_overridden", d.message)
                    for d in scan.diagnostics
                    if d.code == "skill_overridden"
                )
        if self.skills == before and not failed:
            if explicit:
                looked = ", ".join(f"{typed.rstrip('/')}/" for typed in given.values())
            else:
                looked = (
                    f"every folder up to {WALK_DEPTH} levels down for the agents' skill folders "
                    "(.agents/skills, .claude/skills, .github/skills, .gemini/skills, "
                    ".cursor/skills, .codex/skills) and folders of skill folders such as "
                    "skills/, skills/.curated/ and plugins/*/skills/, skipping .git and "
                    "dependency folders"
                )
            self.findings.append(
                _finding(
                    workspace,
                    1,
                    1,
                    "no_skills_found",
                    f"no skill found in {workspace} (looked in {looked}); pass a skill "
                    "folder, a SKILL.md or a folder of skill folders, or name the roots with "
                    "--root PATH",
                )
            )

    def _conflicts(self, names: dict[str, list[tuple[str, int]]]) -> None:
        """Two packages of one name below one root: an error on each (discovery would keep
        one of them, the gate checks and reports both)."""
        for name, places in names.items():
            if len(places) < 2:
                continue
            for shown, line in places:
                others = ", ".join(other for other, _ in places if other != shown)
                self.findings.append(
                    _finding(
                        shown,
                        line,
                        1,
                        "skill_name_conflict",
                        f"another skill of this root is also named {name!r}: {others}; "
                        "an agent loads only one of them",
                    )
                )

    def _diagnostic(
        self,
        workspace: str,
        diagnostic: SkillDiagnostic,
        documents: dict[str, str],
        conventional: bool,
    ) -> None:
        """What one scan diagnostic of a root becomes, by its code and reason code."""
        code, reason = diagnostic.code, diagnostic.reason
        if code == "skill_frontmatter_skipped":
            documents[diagnostic.path] = diagnostic.path
            return
        if code != "skill_entry_skipped" or reason in _QUIET_REASONS:
            return
        if reason == "duplicate_name":
            documents[diagnostic.path] = diagnostic.path  # checked; the conflict is an error
            return
        document = posixpath.join(diagnostic.path, SKILL_FILE)
        if reason in _UNSUPPORTED_REASONS:
            # A folder whose SKILL.md is a directory, a FIFO, a device or a link loop: a
            # broken skill, not a folder that is no skill.
            self.skills += 1
            rule = "skill_document_unsupported"
        elif reason in _REFUSED_RULES:
            rule = _REFUSED_RULES[reason]
        elif reason == "no_skill_file" and not conventional:
            return  # a folder beside skill folders the walk found: just a folder
        else:
            rule = "skill_entry_skipped"
            document = diagnostic.path
        self.findings.append(
            _finding(shown_in(workspace, document), 1, 1, rule, diagnostic.message)
        )

    def _scan_error(self, workspace: str, root: str, error: DefinitionError) -> None:
        self.findings.append(
            _finding(
                shown_in(workspace, error.path or root),
                error.line or 1,
                error.column or 1,
                rule_for_error(error.code),
                f"{error.message} ({error.reason})" if error.reason else error.message,
            )
        )


def _name_of(data: bytes, parsed: DocumentParse) -> tuple[str, int] | None:
    """The skill's name as discovery reads it (``parsed``, the parse of ``data``) and the line
    of its ``name`` key (1 when not found by a plain reading), or ``None`` when discovery
    would not take the document."""
    if parsed.frontmatter is None:
        return None
    name = parsed.frontmatter.name
    # Lines 2 to 64 alone: the split stops there, whatever the file's length.
    for number, line in enumerate(data.split(b"\n", 64)[1:64], start=2):
        if line.startswith(b"name:"):
            return name, number
    return name, 1


async def _documents_of(files: LintDocuments, root: str) -> tuple[str, ...]:
    """Every SKILL.md below ``root`` the way discovery lays packages out (the root itself,
    each child folder that is not hidden), as regular files through the operator: the
    documents a scan may keep out of its items (two routes, one name)."""
    try:
        listing = await files.list_directory(root)
    except DefinitionError:
        return ()  # the scan reported the root
    found: list[str] = []
    candidates = [root] + [
        posixpath.join(root, entry.name)
        for entry in listing
        if not entry.name.startswith(".") and entry.kind in ("directory", "symlink")
    ]
    for folder in candidates:
        document = posixpath.join(folder, SKILL_FILE)
        try:
            if (await files.stat(document)).kind == "file":
                found.append(document)
        except DefinitionError:
            continue  # the scan reported the entry (or it is no package)
    return tuple(found)


def repository_top(path: str, workspace: str | None = None) -> str:
    """The repository ``path`` belongs to (:func:`find_repository`), else ``path`` itself."""
    found = find_repository(path, workspace)
    if found is not None:
        return found
    real = os.path.realpath(path)
    return real if os.path.isdir(real) else os.path.dirname(real)


def find_repository(path: str, workspace: str | None = None) -> str | None:
    """The repository ``path`` belongs to: its git work tree, else ``workspace``, else the
    current directory when it holds ``path`` (a real path), else ``None``.

    The work tree is found as git finds it (a ``.git`` directory or gitdir file, up to a
    file-system boundary) without running git: the checkout is untrusted, and git would
    read its configuration.
    """
    real = os.path.realpath(path)
    if not os.path.isdir(real):
        real = os.path.dirname(real)
    try:
        checkout = _find_checkout(real)
    except (OSError, ValueError):
        checkout = None
    if checkout is not None:
        return os.path.realpath(checkout.top)
    for candidate in (workspace, os.curdir):
        if candidate is not None:
            base = os.path.realpath(candidate)
            if real == base or real.startswith(base.rstrip(os.sep) + os.sep):
                return base
    return None


# A skill's `agents/` holds Codex's `openai.yaml` (https://developers.openai.com/codex/skills),
# not content: `agents/reviewer.md` in prose names a plugin's agent, not a file of the skill.
_METADATA_FOLDERS = frozenset({"agents"})


async def _stat_finding(
    files: LocalFileOperator | BlockingLocalFileOperator, path: str, target: str, where: str
) -> tuple[str, str] | None:
    """The finding for a reference whose file is ``path`` in ``files`` (``where`` names it in
    the message), or ``None`` when the file is there."""
    try:
        await files.stat(path)
    except FilePermissionDenied:
        return (
            "skill_reference_escapes",
            f"{target!r} leads out of {where} through a symbolic link",
        )
    except (FileNotFound, NotADirectory):
        return "skill_reference_missing", f"{target!r} names no file in {where}"
    except FileOperatorError as error:
        return "skill_reference_missing", f"{target!r} cannot be checked: {error.message}"
    return None


class _Resolver:
    """Resolves one skill's references: inside the skill folder, or inside the repository."""

    def __init__(self, inside: LocalFileOperator, top: str, skill: str):
        self.inside = inside
        self.top = top
        self.opened: BlockingLocalFileOperator | None = None  # the repository, when needed
        self.seen: dict[tuple[str, int, bool], tuple[str, str] | None] = {}
        # The skill folder's segments below the repository's top ("" when it is the top).
        self.skill = [part for part in skill.split(os.sep) if part not in ("", ".")]
        self.folders: dict[str, bool] = {}
        self.listed: dict[str, frozenset[str]] = {}  # a folder's file names, once listed
        self.unit: int | None = None  # installation_unit, asked once a reference climbs

    def close(self) -> None:
        if self.opened is not None:
            self.opened.close()

    async def problem(self, reference: Reference) -> tuple[str, str] | None:
        """The rule and message for a reference that does not resolve, or ``None``
        (one lookup per distinct target of a skill)."""
        key = (reference.target, reference.climb, reference.kind == "code")
        if key not in self.seen:
            self.seen[key] = await self._problem(reference)
        return self.seen[key]

    async def _problem(self, reference: Reference) -> tuple[str, str] | None:
        target = reference.target
        if reference.absolute:
            return "skill_reference_escapes", f"{target!r} is an absolute path, not relative"
        if reference.kind == "code" and not await self._skill_folder(reference):
            return None  # a path in inline code that is not about this skill's files
        if reference.climb == 0:
            return await self._inside(reference)
        if reference.climb > len(self.skill):
            where = "the repository" if self.skill else "the skill folder"
            return "skill_reference_escapes", f"{target!r} climbs out of {where}"
        base = self.skill[: len(self.skill) - reference.climb]
        path = "/" + "/".join([*base, *filter(None, reference.path.split("/"))])
        if self.opened is None:
            self.opened = BlockingLocalFileOperator(self.top)
        found = await _stat_finding(self.opened, path, target, "the repository")
        if found is not None:
            return found
        if len(base) >= await self._unit():
            return None  # installed with the skill: its plugin, or the project's repository
        return (
            "skill_reference_outside_skill",
            f"{target!r} is outside the skill folder (at {path.lstrip('/')} in the "
            "repository); it does not travel with the skill when the folder is installed",
        )

    async def _unit(self) -> int:
        """The folder installed with the skill (:func:`installation_unit`), from the plugin
        manifests on the way from the repository's top to the skill folder."""
        if self.unit is None:
            assert self.opened is not None  # a climbing reference opened the repository
            found: tuple[set[int], set[int]] = (set(), set())  # plugins, marketplaces
            for depth in range(len(self.skill) + 1):
                for manifest, depths in zip(PLUGIN_MANIFESTS, found, strict=True):
                    path = "/" + "/".join([*self.skill[:depth], manifest])
                    try:
                        if (await self.opened.stat(path)).kind == "file":
                            depths.add(depth)
                    except (FileOperatorError, DefinitionError):
                        continue
            self.unit = installation_unit(self.skill, frozenset(found[0]), frozenset(found[1]))
        return self.unit

    async def _skill_folder(self, reference: Reference) -> bool:
        """Whether an inline-code path starts with a folder the skill has (``scripts/``)."""
        if reference.climb:
            return False
        first = reference.path.split("/", 1)[0]
        if not first or first in _METADATA_FOLDERS:
            return False
        if first not in self.folders:
            try:
                self.folders[first] = (await self.inside.stat("/" + first)).kind == "directory"
            except (FileOperatorError, DefinitionError):
                self.folders[first] = False
        return self.folders[first]

    async def _inside(self, reference: Reference) -> tuple[str, str] | None:
        target = reference.target
        if not reference.path:
            return None
        found = await _stat_finding(self.inside, "/" + reference.path, target, "the skill folder")
        if (
            found is not None
            and found[0] == "skill_reference_missing"
            and reference.kind == "code"
            and await self._stem_of_a_file(reference.path)
        ):
            return None  # `references/open-coding` for references/open-coding.md
        return found

    async def _stem_of_a_file(self, path: str) -> bool:
        """Whether ``path`` (no extension in its last segment) is a file's name less its
        extension: a table showing `references/open-coding` means references/open-coding.md.
        Each folder is listed once per skill."""
        folder, _, name = path.rpartition("/")
        if not name or "." in name:
            return False
        if folder not in self.listed:
            try:
                entries = await self.inside.list_directory("/" + folder)
                self.listed[folder] = frozenset(e.name for e in entries if e.kind == "file")
            except (FileOperatorError, DefinitionError):
                self.listed[folder] = frozenset()
        stem = name + "."
        return any(entry.startswith(stem) for entry in self.listed[folder])


def _classify(path: str) -> str | Finding:
    """``skill`` for a SKILL.md or a folder holding one, ``workspace`` for another folder,
    or the run-level finding of a PATH that is neither (reported, and the others linted)."""
    if os.path.isdir(path):
        return "skill" if os.path.lexists(os.path.join(path, SKILL_FILE)) else "workspace"
    if not os.path.lexists(path):
        return _finding(path, 1, 1, "path_not_found", "no such file or directory")
    if os.path.basename(path) != SKILL_FILE:
        return _finding(
            path, 1, 1, "path_not_a_directory", "not a SKILL.md, a skill folder or a workspace"
        )
    return "document"


def problem_finding(path: str, error: DefinitionError | OSError) -> Finding:
    """A failure that stopped the lint of ``path`` (an operator that cannot be opened, a
    scan error): a finding, so the run still writes its whole document."""
    if isinstance(error, DefinitionError):
        where = error.path if error.path is not None else path
        return _finding(where, 1, 1, rule_for_error(error.code), error.message)
    rule = (
        "skill_permission_denied"
        if isinstance(error, PermissionError)
        else ("skill_provider_failed")
    )
    return _finding(path, 1, 1, rule, error.strerror or str(error))


def lint(
    paths: Sequence[str],
    roots: Sequence[str],
    progress: Progress,
    profile: str = DEFAULT_PROFILE,
    counter: TokenCounter | None = None,
) -> LintResult:
    """Lint every PATH (default ``.``) in order under ``profile``; see the module docstring.
    ``counter`` measures each body in tokens (``skill_body_too_long``), else in lines.
    A PATH that cannot be linted is a run-level finding and the others are linted."""
    targets = [(path, _classify(path)) for path in (paths or ["."])]

    async def run() -> LintResult:
        linter = _Linter(progress, profile, counter)
        for path, kind in targets:
            if isinstance(kind, Finding):
                linter.findings.append(kind)
                continue
            try:
                if kind == "workspace":
                    await linter.workspace(path, roots)
                else:
                    folder = (os.path.dirname(path) or ".") if kind == "document" else path
                    await linter.skill_folder(folder)
            except (DefinitionError, OSError) as error:
                linter.findings.append(problem_finding(path, error))
        return LintResult(
            tuple(linter.findings),
            linter.skills,
            suppressed=tuple(linter.suppressed),
            checked=tuple(linter.checked),
        )

    try:
        return run_blocking(run())  # no event loop: see cli._workspace
    finally:
        progress.clear()


def _configurations(
    paths: Sequence[str], config_file: str | None, use_config: bool, top: str
) -> list[LintConfig]:
    """Each PATH's configuration: ``--config``'s for all, else the first found from PATH's
    folder up to its repository's top (:func:`~a13n_harness.cli._lint_config.config_for`);
    :class:`ConfigProblem` for the first that cannot be used."""
    if config_file is not None:
        return [load_config(config_file, top)] * len(paths)
    if not use_config:
        return [LintConfig()] * len(paths)
    loaded: dict[str, LintConfig] = {}
    configs = []
    for path in paths:
        start = path if os.path.isdir(path) else (os.path.dirname(path) or os.curdir)
        if not os.path.isdir(start):
            configs.append(LintConfig())  # lint itself reports a PATH that is not there
            continue
        workspace = start if not os.path.lexists(os.path.join(start, SKILL_FILE)) else None
        found = find_repository(start, workspace) or os.path.realpath(start)
        configs.append(config_for(start, found, loaded))
    return configs


def run_lint(
    paths: Sequence[str],
    roots: Sequence[str],
    progress: Progress,
    *,
    profile: str | None = None,
    config_file: str | None = None,
    use_config: bool = True,
    counter: TokenCounter | None = None,
    counters: Callable[[str | None], TokenCounter | None] | None = None,
) -> LintResult:
    """``a13n-skills lint``: the configuration of each PATH (``--config``, or the one found
    from PATH up to its repository's top unless ``--no-config``), the profile
    (``--profile``, else the configuration's, else the specification), the lint, then the
    configuration applied to its findings. PATHs sharing a configuration are linted together.
    ``counter`` measures bodies in tokens (else lines); ``counters``, when given, picks it
    per configuration from its ``tokenizer`` (``None`` when it has none)."""
    top = repository_top(paths[0] if paths else os.curdir)
    targets = list(paths) or [os.curdir]
    try:
        configs = _configurations(targets, config_file, use_config, top)
    except ConfigProblem as problem:
        finding = _finding(
            problem.path, problem.line, problem.column, "lint_config_invalid", problem.message
        )
        return LintResult((finding,), 0, top)
    findings: list[Finding] = []
    suppressed: list[Finding] = []
    excluded: list[str] = []
    skills = 0
    start = 0
    ignore = gitignore_for(top)
    for index in range(1, len(targets) + 1):
        if index < len(targets) and configs[index].path == configs[start].path:
            continue
        config = configs[start]
        chosen = profile or config.profile or DEFAULT_PROFILE
        try:
            measured = counters(config.tokenizer) if counters is not None else counter
            result = lint(targets[start:index], roots, progress, chosen, measured)
            result = _excluded(result, config, ignore, top)
        finally:
            if ignore is not None and index == len(targets):
                ignore.close()
        findings.extend(_configured(result.findings, config))
        suppressed.extend(_configured(result.suppressed, config))
        excluded.extend(result.excluded)
        skills += result.skills
        start = index
    return LintResult(tuple(findings), skills, top, tuple(suppressed), tuple(excluded))


def agent_loaded(path: str) -> str | None:
    """The agent folder's ``skills`` folder (``.claude/skills``) an agent loads the skill at
    ``path`` (a path as lint shows it) from, or ``None`` when it is not below one."""
    parts = path.replace(os.sep, "/").split("/")
    for index in range(len(parts) - 1):
        if parts[index] in AGENT_FOLDERS and parts[index + 1] == "skills":
            return "/".join(parts[: index + 2])
    return None


def _relative(path: str, top: str) -> str:
    """``os.path.relpath(path, top)`` of two real paths: the tail below ``top`` when ``path``
    is there (no folder looked at), else relpath's answer."""
    if path == top:
        return os.curdir
    prefix = top.rstrip(os.sep) + os.sep
    if path.startswith(prefix) and os.path.isabs(top):
        return path[len(prefix) :]
    return os.path.relpath(path, top)


def _below(shown: str, top: str, reals: _RealPaths | None = None) -> str | None:
    """``shown`` (a path as lint shows it) relative to ``top`` with ``/``, else ``None``
    (``reals``: the real paths of folders, when a run asks about many)."""
    real_of = os.path.realpath if reals is None else reals.real
    real = os.path.join(real_of(os.path.dirname(shown) or "."), os.path.basename(shown))
    relative = os.path.relpath(real, real_of(top))
    if relative == os.pardir or relative.startswith(os.pardir + os.sep):
        return None
    return relative.replace(os.sep, "/")


class _RealPaths:
    """``os.path.realpath`` of many folders that share their parents: each folder's real
    path is remembered, and a name below a known folder is looked at once (a link is
    resolved by realpath). A path holding ``.`` or ``..`` goes to realpath whole."""

    def __init__(self) -> None:
        self.known: dict[str, str] = {}

    def real(self, path: str) -> str:
        if path in self.known:
            return self.known[path]
        parent, name = os.path.split(path)
        if not name or name in (os.curdir, os.pardir) or parent == path:
            real = os.path.realpath(path)
        else:
            joined = os.path.join(self.real(parent) if parent else os.getcwd(), name)
            real = os.path.realpath(joined) if os.path.islink(joined) else joined
            if os.pardir in path.split(os.sep):  # a ".." after a link: realpath decides
                real = os.path.realpath(path)
        self.known[path] = real
        return real


def _why_left_out(
    shown: str,
    config: LintConfig,
    ignore: GitIgnore | None,
    top: str,
    reals: _RealPaths | None = None,
) -> str | None:
    """Why ``shown`` is left out: the configuration's ``exclude`` or a ``.gitignore`` pattern
    (``None``: it is not)."""
    if config.excludes(shown):
        return f"exclude in {config.path}"
    if ignore is not None:
        relative = _below(shown, top, reals)
        pattern = ignore.ignored(relative) if relative is not None else None
        if pattern is not None:
            return f"{pattern} (.gitignore; the file is not tracked)"
    return None


def _excluded(
    result: LintResult, config: LintConfig, ignore: GitIgnore | None = None, top: str = "."
) -> LintResult:
    """``result`` without the skills the configuration's ``exclude`` or the checkout's
    ``.gitignore`` (:mod:`a13n_harness.cli._gitignore`: an untracked file only) leaves out:
    their findings dropped, their SKILL.md counted in :attr:`LintResult.excluded`. A skill
    an agent loads (:func:`agent_loaded`) is never left out: its findings stay and
    ``skill_excluded`` says what named it, so nothing blinds a gate to what agents read."""
    if not config.exclude and ignore is None:
        return result
    left: set[str] = set()
    named: list[Finding] = []
    reals = _RealPaths()
    for shown in result.checked:
        why = _why_left_out(shown, config, ignore, top, reals)
        if why is None:
            continue
        folder = agent_loaded(shown)
        if folder is None:
            left.add(shown)
            continue
        named.append(
            _finding(
                shown,
                1,
                1,
                "skill_excluded",
                f"{why} matches this skill, but an agent loads it from "
                f"{folder}: it is checked all the same",
            )
        )
    if not left and not named:
        return result
    return dataclasses.replace(
        result,
        findings=(*(f for f in result.findings if f.path not in left), *named),
        suppressed=tuple(f for f in result.suppressed if f.path not in left),
        skills=result.skills - len(left),
        excluded=tuple(sorted(left)),
    )


def _configured(findings: Sequence[Finding], config: LintConfig) -> tuple[Finding, ...]:
    kept = []
    for finding in findings:
        severity = config.severity_of(finding.rule, finding.severity)
        if severity is None or config.ignores_at(finding.rule, finding.path):
            continue
        kept.append(dataclasses.replace(finding, severity=severity))
    return tuple(kept)


# ------------------------------------------------------------------- output


def summary(result: LintResult) -> str:
    """``N errors, N warnings in N skills``, then ``, N suppressed`` (findings an inline
    directive suppressed) and ``, N excluded`` (skills ``exclude`` left out) when not 0."""
    errors = sum(f.severity == "error" for f in result.findings)
    warnings = sum(f.severity == "warning" for f in result.findings)

    def plural(count: int, word: str) -> str:
        return f"{count} {word}" + ("" if count == 1 else "s")

    line = (
        f"{plural(errors, 'error')}, {plural(warnings, 'warning')} "
        f"in {plural(result.skills, 'skill')}"
    )
    if result.suppressed:
        line += f", {len(result.suppressed)} suppressed"
    if result.excluded:
        line += f", {plural(len(result.excluded), 'skill')} excluded"
    if result.fixed:
        line += f", {plural(result.fixed, 'fix')} made".replace("fixs", "fixes")
    return line


def fix(
    result: LintResult, again: Callable[[], LintResult], *, diff: bool
) -> tuple[FixResult, LintResult]:
    """``--fix``: the safe fixes of ``result``'s findings (:mod:`a13n_harness.cli._fix`),
    confined to its repository; with ``diff`` only their unified diff. When files were
    written, ``again()`` lints once more: what is reported is what is left."""
    fixable = [(f.path, f.rule, f.line, f.message) for f in result.findings if located(f)]
    top = result.root if result.root is not None else os.curdir
    fixed = apply_fixes(fixable, top, write=not diff)
    if diff or not fixed.files:
        return fixed, result
    return fixed, dataclasses.replace(again(), fixed=fixed.fixes)


def failed(result: LintResult, strict: bool = False) -> bool:
    """Whether the run fails (exit 1): an error, or with ``strict`` (``--strict``) a warning
    too. Notes never fail."""
    failing = ("error", "warning") if strict else ("error",)
    return any(finding.severity in failing for finding in result.findings)


def run_level(finding: Finding) -> bool:
    """Whether ``finding`` is about the run (no skill, a bad PATH, root or configuration),
    not about a file: its message goes to stderr (:func:`run_lines`)."""
    return RULES[finding.rule].tool_level


def run_lines(result: LintResult) -> list[str]:
    """The run-level findings as coded lines for stderr: ``a13n-skills: <code>: <where>:
    <message>`` (contract §8: run-level messages on stderr, with their code)."""
    lines = []
    for f in result.findings:
        if run_level(f):
            where = (
                f.path
                if (f.line, f.column) == (1, 1)
                else format_location(f.path, f.line, f.column)
            )
            lines.append(f"{PROGRAM}: {f.rule}: {where}: {f.message}")
    return lines


def _text(result: LintResult) -> str:
    """Each finding with a file as one line, then the summary (which counts every finding);
    a run-level finding without a file (no skill, a missing PATH or root) is on stderr
    only (:func:`run_lines`)."""
    lines = [
        safe_line(
            f"{format_location(f.path, f.line, f.column)}: {f.severity}: {f.rule}: {f.message}"
        )
        for f in result.findings
        if located(f)
    ]
    lines.append(summary(result))
    return "".join(line + "\n" for line in lines)


def _finding_json(f: Finding) -> dict[str, object]:
    """One finding as the JSON document writes it, reported or suppressed alike."""
    return {
        "column": f.column,
        "line": f.line,
        "message": f.message,
        "path": f.path,
        "rule": f.rule,
        "severity": f.severity,
    }


def _json(result: LintResult, version: str) -> str:
    document = {
        "version": JSON_FORMAT_VERSION,
        "tool": {"name": PROGRAM, "version": version},
        "findings": [_finding_json(f) for f in result.findings],
        "suppressed": [_finding_json(f) for f in result.suppressed],
        "excluded": list(result.excluded),
        "summary": {
            "errors": sum(f.severity == "error" for f in result.findings),
            "notes": sum(f.severity == "note" for f in result.findings),
            "skills": result.skills,
            "warnings": sum(f.severity == "warning" for f in result.findings),
        },
    }
    return json_text(document)


def format_findings(result: LintResult, form: str, version: str) -> str:
    """``result`` as ``text`` (``path:line:column: severity: rule: message`` lines and a
    summary), ``json`` (with its format ``version``), ``sarif`` (SARIF 2.1.0) or
    ``github`` (one workflow command per finding, then the summary)."""
    if form == "github":
        return "".join(line + "\n" for line in (*github_lines(result), summary(result)))
    if form == "json":
        return _json(result, version)
    if form == "sarif":
        return json_text(sarif_document(result, version), sort_keys=False)
    return _text(result)
