"""The one discovery engine behind ``scan``, ``inspect`` and ``scan_environment``.

For each source in order, for each of its roots in order:

1. list the root (one call); a missing or unsupported root is an error when the
   source is ``required`` and a ``skill_root_skipped`` diagnostic otherwise;
   more listed entries than the root's bound is ``skill_root_overflow`` (strict
   mode: the source's ``max_entries_per_root``; checkout mode:
   :data:`~a13n_harness.capabilities.sources.CHECKOUT_MAX_ENTRIES`);
2. classify the entries in code-point order of their names
   (:mod:`a13n_harness.capabilities._roots`);
3. read the candidates' SKILL.md files page by page (:data:`PAGE` candidates a
   page, so a root of any size holds one page of documents at a time) through
   the bounded pool (at most :data:`~a13n_harness.capabilities.pool.MAX_READ_WORKERS`
   in flight), at most :func:`read_limit` bytes each, and handle the outcomes in
   entry order; verdicts come from :mod:`a13n_harness.capabilities.verdicts`.

Then precedence resolves names across roots and sources, and every final
SKILL.md is read again through the same operator and compared byte for byte, by digest
(:func:`document_digest`: a resolved skill keeps the digest of its bytes, never the bytes).
Every diagnostic of a skipped entry carries a reason code
(:data:`~a13n_harness.capabilities.items.SKIP_REASONS`).

Decisions the contract leaves open:

* Read bound: ``frontmatter.max_bytes + FENCE_SLACK`` bytes first; a prefix
  that long holds the opening fence, the largest accepted frontmatter and the
  closing fence of every real file. The verdict is always the one parsing the
  *whole* file would give (same reason, line and column): a read that comes
  back full proves only that the file goes on, and
  :func:`~a13n_harness.context.frontmatter.undecided` (in the pure core, beside
  the fence scan it mirrors) tells whether the bytes before decide the parser's
  fence scan. Only a fence-like line padded with blanks past the read can leave
  it open; then the file is read further, four times as much each time, up to
  :data:`MAX_DECISIVE_READ` (past which it is ``too_large``). The final re-read
  uses the same limit.
* Two packages with one name below the *same* root have no precedence between
  them: ``skill_name_conflict`` in strict mode; in checkout mode the second in
  name order is skipped (reason ``duplicate_name``) unless it is the same package.
* Entry names no file system produces (empty, ``.``, ``..``, containing ``/``
  or NUL), duplicate names, unknown kinds or a listing that is not a sequence of
  :class:`~a13n_harness.environment.DirectoryEntry` are ``skill_provider_failed``;
  a name that is not valid Unicode (lone surrogate) is skipped with a diagnostic,
  since it cannot reach a catalog faithfully.
* A candidate whose ``SKILL.md`` is missing, not a directory, a FIFO or a link
  loop is skipped with a diagnostic; permission denial (including a link
  leaving the root) and provider failures are errors in strict mode and skipped
  entries in checkout mode (``SkillsPolicy.checkout``), where only an error that
  is not about the entry (a batch read failing as a whole, a stale scope) fails the scan.
* ``max_skills`` counts the packages found in a source (before precedence) and
  the final catalog; the first source or root to pass it fails the scan.
* The root's own package is not checked against the folder name
  (``skill_name_mismatch`` is for child packages only).
* Same package (checkout mode): the operator protocol has no file identity, so two
  routes are recognised by what the model would see: the same name and
  byte-identical ``SKILL.md``. The first route found stays (no override
  diagnostic); a different document of the same name is still an override.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

try:  # hashlib's own BLAKE2b, without the 7 ms hashlib spends loading OpenSSL at start-up
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - a Python without the module hashlib uses
    from hashlib import blake2b

from a13n_harness.capabilities._roots import (
    SKILL_FILE,
    Candidate,
    checked_listing,
    classify,
    provider_failed,
)
from a13n_harness.capabilities.items import SkillCatalogItem, SkillDiagnostic
from a13n_harness.capabilities.pool import ReadOutcome, read_all
from a13n_harness.capabilities.sources import (
    CHECKOUT_MAX_ENTRIES,
    SkillsPolicy,
    check_materializers,
    check_sources,
)
from a13n_harness.capabilities.verdicts import (
    MEMO_ENTRIES,
    Verdict,
    check_limits,
    document_verdict,
)
from a13n_harness.context._checks import describe, is_kind
from a13n_harness.context.errors import DefinitionError, FrontmatterError
from a13n_harness.context.frontmatter import FrontmatterLimits, SkillFrontmatter
from a13n_harness.environment import (
    FileNotFound,
    FileOperatorError,
    FilePermissionDenied,
    FileProviderError,
    FileUnsupported,
    NotADirectory,
)
from a13n_harness.environment.errors import contained_error

if TYPE_CHECKING:
    from a13n_harness.capabilities.sources import SkillMaterializer, SkillSource
    from a13n_harness.environment import FileOperator

__all__ = ["FENCE_SLACK", "SKILL_FILE", "read_limit"]
"""What the package exports from here; the engine's own names are for the manager."""

# 4 KiB past max_bytes: room for a BOM, both fence lines (with generous
# trailing blanks) and line endings, so the bounded prefix parses exactly like
# the whole file for every frontmatter the parser accepts.
FENCE_SLACK = 4_096

# 1 MiB: how far discovery reads to decide a fence line padded with blanks past
# the first read (never seen outside attacks; 32 times the frontmatter bound).
# A file still undecided there is refused as too_large, the one place where
# discovery can differ from parsing a whole file of that size.
MAX_DECISIVE_READ = 1 << 20

# 1,024 candidates a page: a strict root (at most 256 entries) is one page, and a
# checkout root of any size holds at most one page of documents that are not skills.
PAGE = 1_024


def read_limit(limits: FrontmatterLimits) -> int:
    """How many bytes of a SKILL.md discovery reads first: ``max_bytes + FENCE_SLACK``."""
    return check_limits(limits).max_bytes + FENCE_SLACK


def document_digest(data: bytes) -> bytes:
    """What a resolved skill keeps of the bytes read for it: their BLAKE2b-256 digest (32
    bytes, where the bytes averaged 5.5 KiB a skill). Equal digests stand for equal bytes: a
    collision of a cryptographic hash is not something a file in a checkout can produce."""
    return blake2b(data, digest_size=32).digest()


class DiscoveredSkill:
    """A resolved package with the digest of the exact bytes read for it
    (:func:`document_digest`) and the limit they were read at.

    Like :class:`Discovery`, an internal result (the manager turns it into the public
    :class:`SkillScan`), kept a plain class: a frozen dataclass costs a command's
    start-up about a millisecond to create. Treat it as read-only.
    """

    __slots__ = ("digest", "item", "limit")

    def __init__(self, item: SkillCatalogItem, digest: bytes, limit: int) -> None:
        self.item = item
        self.digest = digest
        self.limit = limit


class Discovery:
    """Resolved packages sorted by name, and every diagnostic in scan order (read-only)."""

    __slots__ = ("diagnostics", "skills")

    def __init__(
        self, skills: tuple[DiscoveredSkill, ...], diagnostics: tuple[SkillDiagnostic, ...]
    ) -> None:
        self.skills = skills
        self.diagnostics = diagnostics


if TYPE_CHECKING:
    RootAccess = Callable[[str], FileOperator | None]
    """The operator for a root, or ``None`` when the root is unroutable."""


# The catalog items of recent scans by SKILL.md path, each with the verdict, source and
# root it was built from. An item is a function of those four, and the verdict memo hands
# a rescan of unchanged bytes the very verdict object it gave before (kept alive here, so
# its identity cannot be reused), so the item built then is returned again: building a
# frozen dataclass was a sixth of a rescan's own work. As many as the memo holds verdicts.
_ITEMS: dict[str, tuple[SkillFrontmatter, str, str, SkillCatalogItem]] = {}


def _item(front: SkillFrontmatter, document: str, source_id: str, root: str) -> SkillCatalogItem:
    """``SkillCatalogItem`` of a package: the one built for the same verdict object, path,
    source and root when a recent scan built it, else a new one (kept for the next)."""
    kept = _ITEMS.get(document)
    if kept is not None and kept[0] is front and kept[1] == source_id and kept[2] == root:
        return kept[3]
    item = SkillCatalogItem(
        name=front.name,
        description=front.description,
        path=document,
        source_id=source_id,
        root=root,
        description_truncated=front.description_truncated,
        disable_model_invocation=front.disable_model_invocation,
    )
    if len(_ITEMS) >= MEMO_ENTRIES:
        _ITEMS.clear()  # rare (more packages than the memo holds): start again, never grow
    _ITEMS[document] = (front, source_id, root, item)
    return item


def _hard_error(error: DefinitionError, path: str) -> DefinitionError:
    """What a read or listing error becomes when it cannot be skipped."""
    if isinstance(error, FilePermissionDenied):
        return DefinitionError("skill_permission_denied", error.message, path=path)
    if isinstance(error, FileOperatorError):
        return DefinitionError("skill_provider_failed", error.message, path=path)
    return error  # a stale scope and other DefinitionErrors keep their code


class _Run:
    """State of one discovery run."""

    def __init__(self, policy: SkillsPolicy, access: RootAccess) -> None:
        self.policy = policy
        self.access = access
        self.limit = read_limit(policy.frontmatter)
        self.diagnostics: list[SkillDiagnostic] = []
        self.final: dict[str, DiscoveredSkill] = {}  # name -> the skill that wins so far

    def note(
        self,
        code: str,
        message: str,
        path: str,
        source: SkillSource,
        *,
        reason: str | None = None,
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        self.diagnostics.append(
            SkillDiagnostic(code, message, path, source.source_id, reason, line, column)
        )

    @property
    def checkout(self) -> bool:
        return self.policy.mode == "checkout"

    @property
    def skipping(self) -> bool:
        """Whether a bad entry is skipped (checkout mode with ``invalid="skip"``)."""
        return self.policy.mode == "checkout" and self.policy.invalid == "skip"

    def entry_bound(self, source: SkillSource) -> int:
        bound = source.max_entries_per_root
        return max(bound, CHECKOUT_MAX_ENTRIES) if self.checkout else bound

    async def root(self, source: SkillSource, root: str) -> list[DiscoveredSkill]:
        files = self.access(root)
        if files is None:
            return self.skip_root(
                source, root, "skill_root_unroutable", "the root is unroutable", "unroutable"
            )
        try:
            listing: object = await files.list_directory(root)
        except Exception as raised:  # a Host's error: taken as the library's own (contained_error)
            if not is_kind(raised, DefinitionError):
                raise provider_failed("listing the root failed", root, raised) from None
            error = contained_error(raised)
            if isinstance(error, FileNotFound):
                return self.skip_root(
                    source, root, "skill_root_missing", "the root does not exist", "missing"
                )
            if isinstance(error, NotADirectory | FileUnsupported):
                return self.skip_root(
                    source,
                    root,
                    "skill_root_unsupported",
                    f"the root is unusable: {error.message}",
                    "unsupported",
                )
            raise _hard_error(error, root) from None
        entries = checked_listing(listing, root, self.entry_bound(source))
        slots = classify(root, entries, source.source_id)
        del listing, entries

        found: list[DiscoveredSkill] = []
        names: dict[str, DiscoveredSkill] = {}
        for start in range(0, len(slots), PAGE):
            page = slots[start : start + PAGE]
            decided = await self.read_page(files, [s for s in page if isinstance(s, Candidate)])
            for slot in page:
                if isinstance(slot, SkillDiagnostic):
                    self.diagnostics.append(slot)
                    continue
                outcome, limit, verdict = decided[slot.document]
                skill = self.package(source, root, slot, outcome, limit=limit, verdict=verdict)
                if skill is None:
                    continue
                name = skill.item.name
                first = names.get(name)
                if first is None:
                    names[name] = skill
                    found.append(skill)
                elif self.checkout and first.digest == skill.digest:
                    continue  # the same package by another route (module docstring)
                elif self.skipping:
                    self.note(
                        "skill_entry_skipped",
                        f"a second package named {name!r} below one root "
                        f"(the first: {first.item.path})",
                        skill.item.path,
                        source,
                        reason="duplicate_name",
                    )
                else:
                    raise DefinitionError(
                        "skill_name_conflict",
                        f"two packages named {name!r} below one root: "
                        f"{first.item.path} and {slot.document}",
                        path=slot.document,
                    )
            del decided
        return found

    async def read_page(
        self, files: FileOperator, candidates: list[Candidate]
    ) -> dict[str, tuple[ReadOutcome, int, Verdict | None]]:
        """Read and decide one page of candidates: document -> (outcome, limit, verdict)."""
        limits = self.policy.frontmatter
        verdicts: dict[int, Verdict] = {}

        def parse_on_arrival(index: int, outcome: ReadOutcome) -> None:
            # Pure work, done while the next chunk is still being read.
            if isinstance(outcome, bytes):
                verdict = document_verdict(outcome, self.limit, limits, candidates[index].document)
                if verdict is not None:
                    verdicts[index] = verdict

        outcomes = await read_all(
            files, [c.document for c in candidates], self.limit, on_result=parse_on_arrival
        )
        decided: dict[str, tuple[ReadOutcome, int, Verdict | None]] = {}
        for index, (candidate, outcome) in enumerate(zip(candidates, outcomes, strict=True)):
            if index in verdicts:
                decided[candidate.document] = (outcome, self.limit, verdicts[index])
            else:
                decided[candidate.document] = await self.decide(files, candidate.document, outcome)
        return decided

    def skip_root(
        self, source: SkillSource, root: str, code: str, message: str, reason: str
    ) -> list[DiscoveredSkill]:
        if source.required:
            raise DefinitionError(code, message, path=root)
        self.note(
            "skill_root_skipped",
            f"{message} ({code}); source is not required",
            root,
            source,
            reason=reason,
        )
        return []

    async def decide(
        self, files: FileOperator, path: str, outcome: ReadOutcome
    ) -> tuple[ReadOutcome, int, Verdict | None]:
        """Read ``path`` further (x4 each time) while its verdict is undecided; see
        :func:`~a13n_harness.context.frontmatter.decisive_prefix`. Returns the last
        outcome, the limit it was read at and its verdict (``None``: a read error, or
        still undecided at the cap)."""
        limit = self.limit
        limits = self.policy.frontmatter
        while isinstance(outcome, bytes):
            verdict = document_verdict(outcome, limit, limits, path)
            if verdict is not None or limit >= MAX_DECISIVE_READ:
                return outcome, limit, verdict
            limit = min(limit * 4, MAX_DECISIVE_READ)
            (outcome,) = await read_all(files, [path], limit)
        return outcome, limit, None

    def skipped_read(self, outcome: DefinitionError, document: str) -> tuple[str, str] | None:
        """The reason and message of a read error that skips the entry, ``None`` when
        it fails the scan (module docstring)."""
        if isinstance(outcome, FileNotFound):
            return "no_skill_file", f"no {SKILL_FILE}: {outcome.message}"
        if isinstance(outcome, NotADirectory):
            return "not_a_directory", f"not a directory: {outcome.message}"
        if isinstance(outcome, FileUnsupported):
            reason = "link_loop" if outcome.reason == "link_loop" else "not_a_regular_file"
            return reason, f"{SKILL_FILE} is not a readable regular file: {outcome.message}"
        if not self.skipping or outcome.path != document:
            return None  # strict mode, or an error about more than this entry
        if isinstance(outcome, FilePermissionDenied):
            reason = "link_escapes" if outcome.reason == "link_escapes" else "permission_denied"
            return reason, f"{SKILL_FILE} is refused: {outcome.message}"
        if isinstance(outcome, FileProviderError):
            return "unreadable", f"{SKILL_FILE} cannot be read: {outcome.message}"
        return None

    def package(
        self,
        source: SkillSource,
        root: str,
        slot: Candidate,
        outcome: ReadOutcome,
        *,
        limit: int,
        verdict: Verdict | None,
    ) -> DiscoveredSkill | None:
        document = slot.document
        directory = document[: -len(SKILL_FILE) - 1] or "/"
        if isinstance(outcome, DefinitionError):
            skipped = self.skipped_read(outcome, document)
            if skipped is None:
                raise _hard_error(outcome, document)
            reason, message = skipped
            self.note("skill_entry_skipped", message, directory, source, reason=reason)
            return None
        if verdict is None:
            message = f"a fence line does not end within {MAX_DECISIVE_READ} bytes"
            verdict = ("too_large", message, 2, 1)
        if not isinstance(verdict, SkillFrontmatter):
            reason, message, line, column = verdict
            if self.policy.invalid == "error":
                raise FrontmatterError(reason, message, path=document, line=line, column=column)
            self.note(
                "skill_frontmatter_skipped",
                message,
                document,
                source,
                reason=reason,
                line=line,
                column=column,
            )
            return None
        front = verdict
        if slot.entry is not None and front.name != slot.entry:
            self.note(
                "skill_name_mismatch",
                f"name {front.name!r} differs from its folder {slot.entry!r}",
                document,
                source,
                reason="name_mismatch",
            )
        if front.description_truncated:
            self.note(
                "skill_description_truncated",
                f"description cut to {self.policy.frontmatter.max_description_chars} characters",
                document,
                source,
                reason="description_truncated",
            )
        item = _item(front, document, source.source_id, root)
        return DiscoveredSkill(item, document_digest(outcome), limit)

    def resolve(self, source: SkillSource, skills: list[DiscoveredSkill]) -> None:
        for skill in skills:
            name = skill.item.name
            earlier = self.final.get(name)
            if earlier is not None and self.checkout and earlier.digest == skill.digest:
                continue  # the same package by another route: one skill (module docstring)
            if earlier is not None:
                beaten = earlier.item
                if self.policy.conflict == "error":
                    raise DefinitionError(
                        "skill_name_conflict",
                        f"skill {name!r} is defined by {beaten.path} and {skill.item.path}",
                        path=skill.item.path,
                    )
                self.note(
                    "skill_overridden",
                    f"{beaten.path} (source {beaten.source_id!r}) is overridden by "
                    f"{skill.item.path} (source {skill.item.source_id!r})",
                    beaten.path,
                    source,
                    reason="overridden",
                )
            self.final[name] = skill
        if len(self.final) > self.policy.max_skills:
            raise DefinitionError(
                "skill_catalog_overflow",
                f"more than max_skills={self.policy.max_skills} skills in the catalog",
            )


def _check_policy(policy: object) -> SkillsPolicy:
    if not isinstance(policy, SkillsPolicy):
        raise DefinitionError("catalog_invalid", "policy must be SkillsPolicy", reason="policy")
    return policy


def _guarded(access: RootAccess) -> RootAccess:
    """``access`` whose own failures are provider failures (a Host's routing code)."""

    def call(root: str) -> FileOperator | None:
        try:
            return access(root)
        except DefinitionError as error:
            raise contained_error(error) from None
        except Exception as error:
            raise provider_failed("routing the root failed", root, error) from None

    return call


async def discover(
    sources: Sequence[SkillSource],
    policy: SkillsPolicy,
    materializers: Sequence[SkillMaterializer],
    access: RootAccess,
) -> Discovery:
    """Run materializers, then every source and root in order; see the module docstring."""
    sources = check_sources(sources)
    materializers = check_materializers(materializers)
    _check_policy(policy)
    if not callable(access):
        raise DefinitionError("skill_provider_failed", "access must be callable")
    access = _guarded(access)
    for materializer in materializers:
        files = access(materializer.target_root)
        if files is None:
            continue  # its root is unroutable: the root itself reports that
        try:
            await materializer.materialize(files=files)
        except DefinitionError as error:
            raise contained_error(error) from None
        except Exception as error:
            raise provider_failed(
                f"materializer {describe(materializer.materializer_id)} failed",
                materializer.target_root,
                error,
            ) from None
    run = _Run(policy, access)
    for source in sources:
        in_source = 0
        for root in source.roots:
            skills = await run.root(source, root)
            in_source += len(skills)
            if in_source > policy.max_skills:
                raise DefinitionError(
                    "skill_catalog_overflow",
                    f"source {describe(source.source_id)} has more than "
                    f"max_skills={policy.max_skills} skills",
                    path=root,
                )
            run.resolve(source, skills)
    resolved = tuple(map(run.final.__getitem__, sorted(run.final)))
    return Discovery(resolved, tuple(run.diagnostics))


async def confirm_unchanged(
    skills: Sequence[DiscoveredSkill], policy: SkillsPolicy, access: RootAccess, code: str
) -> None:
    """Read every final SKILL.md again through its root's operator; a difference raises ``code``.

    Each document is read at the limit it was first read at, so the same bytes come back,
    and compared through its digest (:func:`document_digest`). Roots served by one operator
    are re-read together (one pool, full lanes), :data:`PAGE` documents at a time.
    """
    _check_policy(policy)
    access = _guarded(access)
    unroutable: list[DiscoveredSkill] = []
    groups: dict[tuple[int, int], tuple[FileOperator, list[DiscoveredSkill]]] = {}
    routes: dict[str, FileOperator | None] = {}  # one routing call per root, not per skill
    for skill in skills:
        root = skill.item.root
        files = routes[root] if root in routes else routes.setdefault(root, access(root))
        if files is None:
            unroutable.append(skill)
            continue
        groups.setdefault((id(files), skill.limit), (files, []))[1].append(skill)
    changed: list[tuple[str, str]] = [(s.item.name, s.item.path) for s in unroutable]
    for (_, limit), (files, everyone) in groups.items():
        # Page by page, like the first reads: a page of documents in memory at a time.
        for start in range(0, len(everyone), PAGE):
            group = everyone[start : start + PAGE]
            outcomes = await read_all(files, [s.item.path for s in group], limit, again=True)
            for skill, outcome in zip(group, outcomes, strict=True):
                if isinstance(outcome, DefinitionError) and not isinstance(
                    outcome, FileOperatorError
                ):
                    raise outcome
                if not isinstance(outcome, bytes) or document_digest(outcome) != skill.digest:
                    changed.append((skill.item.name, skill.item.path))
            del outcomes
    if changed:
        name, path = min(changed)
        raise DefinitionError(
            code, f"{path} changed while the catalog was being built (skill {name!r})", path=path
        )
