"""The one discovery engine behind ``scan``, ``inspect`` and ``scan_environment``.

For each source in order, for each of its roots in order:

1. list the root (one call); a missing or unsupported root is an error when the
   source is ``required`` and a ``skill_root_skipped`` diagnostic otherwise;
   more than ``max_entries_per_root`` listed entries is ``skill_root_overflow``;
2. walk the entries in code-point order of their names (never the OS order):
   ``SKILL.md`` (a file or link) makes the root itself a package; every other
   entry that is a directory or a link, not hidden, is a package candidate
   (``{entry}/SKILL.md``); everything else is a ``skill_entry_skipped`` diagnostic;
3. read every candidate's SKILL.md through the bounded pool (at most
   :data:`~a13n_harness.capabilities.pool.MAX_READ_WORKERS` in flight), at most
   :func:`read_limit` bytes each, and handle the outcomes in entry order.

Then precedence resolves names across roots and sources, and every final
SKILL.md is read again through the same operator and compared byte for byte.

Decisions the contract leaves open:

* Read bound: ``frontmatter.max_bytes + FENCE_SLACK`` bytes first; a prefix
  that long holds the opening fence, the largest accepted frontmatter and the
  closing fence of every real file. The verdict is always the one parsing the
  *whole* file would give (same reason, line and column): a read that comes
  back full proves only that the file goes on, and :func:`undecided` tells
  whether the bytes before decide the parser's fence scan. Only a fence-like
  line padded with blanks past the read can leave it open; then the file is
  read further, four times as much each time, up to :data:`MAX_DECISIVE_READ`
  (past which it is ``too_large``). The final re-read uses the same limit.
* Two packages with one name below the *same* root have no precedence between
  them: ``skill_name_conflict`` whatever the policy.
* Entry names no file system produces (empty, ``.``, ``..``, containing ``/``
  or NUL), duplicate names, unknown kinds or a listing that is not a sequence of
  :class:`~a13n_harness.environment.DirectoryEntry` are ``skill_provider_failed``;
  a name that is not valid Unicode (lone surrogate) is skipped with a diagnostic,
  since it cannot reach a catalog faithfully.
* A candidate whose ``SKILL.md`` is missing, not a directory, a FIFO or a link
  loop is skipped with a diagnostic; permission denial (including a link
  leaving the root) and provider failures are errors.
* ``max_skills`` counts the packages found in a source (before precedence) and
  the final catalog; the first source or root to pass it fails the scan.
* The root's own package is not checked against the folder name
  (``skill_name_mismatch`` is for child packages only).
"""

from __future__ import annotations

import _thread  # threading.Lock itself; the threading module is not needed (start-up)
from collections import OrderedDict
from collections.abc import Callable, Sequence

from a13n_harness.capabilities.items import SkillCatalogItem, SkillDiagnostic
from a13n_harness.capabilities.pool import ReadOutcome, read_all
from a13n_harness.capabilities.sources import (
    SkillsPolicy,
    check_materializers,
    check_sources,
)
from a13n_harness.context._checks import describe, has_lone_surrogate, is_count
from a13n_harness.context.errors import DefinitionError, FrontmatterError
from a13n_harness.context.frontmatter import (
    FrontmatterLimits,
    SkillFrontmatter,
    parse_skill_document,
)
from a13n_harness.environment import (
    ENTRY_KINDS,
    DirectoryEntry,
    FileNotFound,
    FileOperatorError,
    FilePermissionDenied,
    FileUnsupported,
    NotADirectory,
    join_path,
)

# Spelled here rather than imported from ``typing``: see ``a13n_harness/__init__.py``.
TYPE_CHECKING = False

if TYPE_CHECKING:
    from a13n_harness.capabilities.sources import SkillMaterializer, SkillSource
    from a13n_harness.environment import FileOperator

__all__ = [
    "FENCE_SLACK",
    "MAX_DECISIVE_READ",
    "MEMO_BYTES",
    "MEMO_ENTRIES",
    "SKILL_FILE",
    "DiscoveredSkill",
    "Discovery",
    "Verdict",
    "clear_verdict_memo",
    "decisive_prefix",
    "discover",
    "document_verdict",
    "memo_size",
    "read_limit",
    "undecided",
]

SKILL_FILE = "SKILL.md"
# 4 KiB past max_bytes: room for a BOM, both fence lines (with generous
# trailing blanks) and line endings, so the bounded prefix parses exactly like
# the whole file for every frontmatter the parser accepts.
FENCE_SLACK = 4_096


def read_limit(limits: FrontmatterLimits) -> int:
    """How many bytes of a SKILL.md discovery reads first: ``max_bytes + FENCE_SLACK``."""
    return _check_limits(limits).max_bytes + FENCE_SLACK


def _check_limits(limits: object) -> FrontmatterLimits:
    if not isinstance(limits, FrontmatterLimits):
        raise DefinitionError(
            "catalog_invalid", "limits must be FrontmatterLimits", reason="policy"
        )
    return limits


def _check_bytes_and_counts(data: object, *counts: object) -> bytes:
    if not isinstance(data, bytes):
        raise DefinitionError("skill_provider_failed", "document data must be bytes")
    for count in counts:
        if not is_count(count):
            raise DefinitionError("skill_provider_failed", "limits must be non-negative ints")
    return data


# 1 MiB: how far discovery reads to decide a fence line padded with blanks past
# the first read (never seen outside attacks; 32 times the frontmatter bound).
# A file still undecided there is refused as too_large, the one place where
# discovery can differ from parsing a whole file of that size.
MAX_DECISIVE_READ = 1 << 20

_BOM = b"\xef\xbb\xbf"
_BLANKS = b" \t"


def _fence_end(data: bytes, position: int) -> int | None:
    """Where a fence-looking line at ``position`` decides: the offset of the byte after
    ``---`` and its blanks, or ``None`` when ``data`` ends inside ``---`` or the blanks
    (the file's next bytes decide), or ``-1`` when the line is not fence-like at all."""
    size = len(data)
    dashes = data[position : position + 3]
    if dashes != b"---":
        return None if size - position < 3 and b"---".startswith(dashes) else -1
    end = position + 3
    while end < size and data[end] in _BLANKS:
        end += 1
    if end == size or (data[end] == 0x0D and end + 1 == size):
        return None
    return end


def undecided(data: bytes, max_bytes: int) -> bool:
    """Whether the frontmatter verdict of a file that *continues past* ``data`` may
    depend on the bytes that follow.

    Mirrors the fence scan of :func:`~a13n_harness.context.frontmatter.parse_skill_document`
    (opening fence, then each line start up to ``max_bytes`` of frontmatter). The
    verdict is decided by ``data`` alone unless a fence-like line (``---`` and
    blanks) runs into the end of ``data``, or the search for the end of a line
    reaches past it. When this returns ``False``, parsing ``data`` gives exactly
    what parsing the whole file gives.
    """
    _check_bytes_and_counts(data, max_bytes)
    size = len(data)
    start = len(_BOM) if data.startswith(_BOM) else 0
    end = _fence_end(data, start)
    if end is None:
        return True
    if end < 0:
        return False  # missing_fence either way
    if data[end] == 0x0A:
        body_start = end + 1
    elif data[end] == 0x0D and data[end + 1] == 0x0A:
        body_start = end + 2
    else:
        return False  # missing_fence either way
    window = body_start + max_bytes + 1
    position = body_start
    while True:
        end = _fence_end(data, position)
        if end is None:
            return True
        if end >= 0 and (data[end] == 0x0A or (data[end] == 0x0D and data[end + 1] == 0x0A)):
            return False  # the closing fence, whole in data
        newline = data.find(b"\n", position, window)
        if newline < 0:
            return window > size  # the whole file may hold a newline past data
        position = newline + 1
        if position - body_start > max_bytes:
            return False  # too_large either way


def decisive_prefix(data: bytes, limit: int, max_bytes: int) -> bytes | None:
    """The bytes of a read of at most ``limit`` bytes that decide the file's verdict.

    A read shorter than ``limit`` is the whole file. A full one means the file
    may go on: its last byte only proves that, and the rest decides unless
    :func:`undecided`, in which case ``None`` asks for a longer read.
    """
    _check_bytes_and_counts(data, limit, max_bytes)
    if len(data) < limit:
        return data
    prefix = data[: limit - 1]
    return None if undecided(prefix, max_bytes) else prefix


Refusal = tuple[str, str, int | None, int | None]
"""A frontmatter refusal as values: reason, message, line, column."""

Verdict = SkillFrontmatter | Refusal


# 4,096 verdicts and 16 MiB of documents: eight full catalogs of typical
# skills, so rescans of unchanged files skip the parser, while a hostile tree
# of near-limit files cannot make the memo hold more than 16 MiB.
MEMO_ENTRIES = 4_096
MEMO_BYTES = 16 << 20


class _VerdictMemo:
    """Verdicts of :func:`parse_skill_document` by (document bytes, limits).

    The parser is a pure function of its arguments, so a document seen before
    gets the verdict it got then, with every check it passed then; keys are
    the bytes themselves (compared in full on a hit), never a digest.
    Least recently used entries go first. Shared by every scan of the
    process, under a lock.
    """

    def __init__(self) -> None:
        self._entries: OrderedDict[tuple[bytes, FrontmatterLimits], Verdict] = OrderedDict()
        self._bytes = 0
        self._lock = _thread.allocate_lock()

    def verdict(self, data: bytes, limits: FrontmatterLimits) -> Verdict:
        key = (data, limits)
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
                return found
        result: Verdict
        try:
            result = parse_skill_document(data, limits)
        except FrontmatterError as error:
            result = (error.reason or "yaml_syntax", error.message, error.line, error.column)
        if len(data) <= MEMO_BYTES // 64:
            with self._lock:
                if key not in self._entries:
                    self._entries[key] = result
                    self._bytes += len(data)
                    while len(self._entries) > MEMO_ENTRIES or self._bytes > MEMO_BYTES:
                        (old, _), _ = self._entries.popitem(last=False)
                        self._bytes -= len(old)
        return result

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._bytes = 0

    def size(self) -> tuple[int, int]:
        with self._lock:
            return len(self._entries), self._bytes


_MEMO = _VerdictMemo()


def clear_verdict_memo() -> None:
    """Forget every remembered frontmatter verdict (benchmarks measure first scans with it)."""
    _MEMO.clear()


def memo_size() -> tuple[int, int]:
    """How many verdicts the memo holds and how many document bytes they key on."""
    return _MEMO.size()


def document_verdict(data: bytes, limit: int, limits: FrontmatterLimits) -> Verdict | None:
    """The verdict for a read of at most ``limit`` bytes, ``None`` while undecided."""
    _check_limits(limits)
    decisive = decisive_prefix(data, limit, limits.max_bytes)
    return None if decisive is None else _MEMO.verdict(decisive, limits)


class DiscoveredSkill:
    """A resolved package with the exact bytes read for it and the limit they were read at.

    Like :class:`Discovery`, an internal result (the manager turns it into the public
    :class:`SkillScan`), kept a plain class: a frozen dataclass costs a command's
    start-up about a millisecond to create. Treat it as read-only.
    """

    __slots__ = ("data", "item", "limit")

    def __init__(self, item: SkillCatalogItem, data: bytes, limit: int) -> None:
        self.item = item
        self.data = data
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


class _Candidate:
    """A SKILL.md to read and the root entry it belongs to.

    A plain class, not a dataclass: generating one costs the command's start-up
    about a millisecond, and nothing compares, hashes or prints a candidate.
    """

    __slots__ = ("document", "entry")

    def __init__(self, document: str, entry: str | None) -> None:
        self.document = document
        self.entry = entry  # None: the root's own package


def _provider_failed(
    message: str, path: str, cause: BaseException | None = None
) -> DefinitionError:
    detail = f"{message}: {cause}" if cause is not None else message
    return DefinitionError("skill_provider_failed", detail, path=path)


def _hard_error(error: DefinitionError, path: str) -> DefinitionError:
    """What a read or listing error becomes when it cannot be skipped."""
    if isinstance(error, FilePermissionDenied):
        return DefinitionError("skill_permission_denied", error.message, path=path)
    if isinstance(error, FileOperatorError):
        return DefinitionError("skill_provider_failed", error.message, path=path)
    return error  # a stale scope and other DefinitionErrors keep their code


def _checked_listing(listing: object, root: str, limit: int) -> list[DirectoryEntry]:
    if isinstance(listing, str | bytes) or not isinstance(listing, Sequence):
        raise _provider_failed("the listing is not a sequence of entries", root)
    if len(listing) > limit:
        raise DefinitionError(
            "skill_root_overflow",
            f"{len(listing)} entries listed, more than max_entries_per_root={limit}",
            path=root,
        )
    seen: set[str] = set()
    for entry in listing:
        if not isinstance(entry, DirectoryEntry) or entry.kind not in ENTRY_KINDS:
            raise _provider_failed(f"not a directory entry: {describe(entry)}", root)
        name = entry.name
        if (
            not isinstance(name, str)
            or name in ("", ".", "..")
            or "/" in name
            or "\x00" in name
            or name in seen
        ):
            raise _provider_failed(f"impossible or repeated entry name {describe(name)}", root)
        seen.add(name)
    return sorted(listing, key=lambda entry: entry.name)


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

    async def root(self, source: SkillSource, root: str) -> list[DiscoveredSkill]:
        files = self.access(root)
        if files is None:
            return self.skip_root(source, root, "skill_root_unroutable", "the root is unroutable")
        try:
            listing: object = await files.list_directory(root)
        except FileNotFound:
            return self.skip_root(source, root, "skill_root_missing", "the root does not exist")
        except (NotADirectory, FileUnsupported) as error:
            return self.skip_root(
                source, root, "skill_root_unsupported", f"the root is unusable: {error.message}"
            )
        except DefinitionError as error:
            raise _hard_error(error, root) from None
        except Exception as error:
            raise _provider_failed("listing the root failed", root, error) from None
        entries = _checked_listing(listing, root, source.max_entries_per_root)

        slots: list[SkillDiagnostic | _Candidate] = []
        for entry in entries:
            path = join_path(root, entry.name)
            skip: str | None = None
            if entry.name == SKILL_FILE:
                if entry.kind in ("file", "symlink"):
                    slots.append(_Candidate(path, None))
                    continue
                skip = f"{SKILL_FILE} at the root is a {entry.kind}, not a file"
            elif entry.name.startswith("."):
                skip = "hidden entry"
            elif has_lone_surrogate(entry.name):
                skip = "entry name is not valid Unicode"
            elif entry.kind in ("file", "other"):
                skip = f"a {entry.kind}, not a package directory"
            if skip is not None:
                slots.append(SkillDiagnostic("skill_entry_skipped", skip, path, source.source_id))
            else:
                slots.append(_Candidate(join_path(path, SKILL_FILE), entry.name))

        candidates = [slot for slot in slots if isinstance(slot, _Candidate)]
        limits = self.policy.frontmatter
        verdicts: dict[int, Verdict] = {}

        def parse_on_arrival(index: int, outcome: ReadOutcome) -> None:
            # Pure work, done while the next chunk is still being read.
            if isinstance(outcome, bytes):
                verdict = document_verdict(outcome, self.limit, limits)
                if verdict is not None:
                    verdicts[index] = verdict

        outcomes = await read_all(
            files, [c.document for c in candidates], self.limit, on_result=parse_on_arrival
        )
        by_document: dict[str, tuple[ReadOutcome, int, Verdict | None]] = {}
        for index, (candidate, outcome) in enumerate(zip(candidates, outcomes, strict=True)):
            if index in verdicts:
                by_document[candidate.document] = (outcome, self.limit, verdicts[index])
            else:
                by_document[candidate.document] = await self.decide(
                    files, candidate.document, outcome
                )

        found: list[DiscoveredSkill] = []
        names: dict[str, str] = {}
        for slot in slots:
            if isinstance(slot, SkillDiagnostic):
                self.diagnostics.append(slot)
                continue
            outcome, limit, verdict = by_document[slot.document]
            skill = self.package(source, root, slot, outcome, limit=limit, verdict=verdict)
            if skill is None:
                continue
            name = skill.item.name
            if name in names:
                raise DefinitionError(
                    "skill_name_conflict",
                    f"two packages named {name!r} below one root: "
                    f"{names[name]} and {slot.document}",
                    path=slot.document,
                )
            names[name] = slot.document
            found.append(skill)
        return found

    def skip_root(
        self, source: SkillSource, root: str, code: str, message: str
    ) -> list[DiscoveredSkill]:
        if source.required:
            raise DefinitionError(code, message, path=root)
        self.note("skill_root_skipped", f"{message} ({code}); source is not required", root, source)
        return []

    async def decide(
        self, files: FileOperator, path: str, outcome: ReadOutcome
    ) -> tuple[ReadOutcome, int, Verdict | None]:
        """Read ``path`` further (x4 each time) while its verdict is undecided; see
        :func:`decisive_prefix`. Returns the last outcome, the limit it was read at and
        its verdict (``None``: a read error, or still undecided at the cap)."""
        limit = self.limit
        limits = self.policy.frontmatter
        while isinstance(outcome, bytes):
            verdict = document_verdict(outcome, limit, limits)
            if verdict is not None or limit >= MAX_DECISIVE_READ:
                return outcome, limit, verdict
            limit = min(limit * 4, MAX_DECISIVE_READ)
            (outcome,) = await read_all(files, [path], limit)
        return outcome, limit, None

    def package(
        self,
        source: SkillSource,
        root: str,
        slot: _Candidate,
        outcome: ReadOutcome,
        *,
        limit: int,
        verdict: Verdict | None,
    ) -> DiscoveredSkill | None:
        document = slot.document
        directory = document[: -len(SKILL_FILE) - 1] or "/"
        if isinstance(outcome, DefinitionError):
            if isinstance(outcome, FileNotFound | NotADirectory | FileUnsupported):
                why = {
                    FileNotFound: f"no {SKILL_FILE}",
                    NotADirectory: "not a directory",
                    FileUnsupported: f"{SKILL_FILE} is not a readable regular file",
                }[type(outcome)]
                self.note("skill_entry_skipped", f"{why}: {outcome.message}", directory, source)
                return None
            raise _hard_error(outcome, document)
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
            )
        if front.description_truncated:
            self.note(
                "skill_description_truncated",
                f"description cut to {self.policy.frontmatter.max_description_chars} characters",
                document,
                source,
            )
        item = SkillCatalogItem(
            name=front.name,
            description=front.description,
            path=document,
            source_id=source.source_id,
            root=root,
            description_truncated=front.description_truncated,
        )
        return DiscoveredSkill(item, outcome, limit)

    def resolve(self, source: SkillSource, skills: list[DiscoveredSkill]) -> None:
        for skill in skills:
            name = skill.item.name
            earlier = self.final.get(name)
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
        except DefinitionError:
            raise
        except Exception as error:
            raise _provider_failed("routing the root failed", root, error) from None

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
        except DefinitionError:
            raise
        except Exception as error:
            raise _provider_failed(
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
    resolved = tuple(run.final[name] for name in sorted(run.final))
    return Discovery(resolved, tuple(run.diagnostics))


async def confirm_unchanged(
    skills: Sequence[DiscoveredSkill], policy: SkillsPolicy, access: RootAccess, code: str
) -> None:
    """Read every final SKILL.md again through its root's operator; a difference raises ``code``.

    Each document is read at the limit it was first read at, so the same bytes come back.
    Roots served by one operator are re-read in one pass (one pool, full lanes).
    """
    _check_policy(policy)
    access = _guarded(access)
    unroutable: list[DiscoveredSkill] = []
    groups: dict[tuple[int, int], tuple[FileOperator, list[DiscoveredSkill]]] = {}
    for skill in skills:
        files = access(skill.item.root)
        if files is None:
            unroutable.append(skill)
            continue
        groups.setdefault((id(files), skill.limit), (files, []))[1].append(skill)
    changed: list[tuple[str, str]] = [(s.item.name, s.item.path) for s in unroutable]
    for (_, limit), (files, group) in groups.items():
        outcomes = await read_all(files, [s.item.path for s in group], limit)
        for skill, outcome in zip(group, outcomes, strict=True):
            if isinstance(outcome, DefinitionError) and not isinstance(outcome, FileOperatorError):
                raise outcome
            if outcome != skill.data:
                changed.append((skill.item.name, skill.item.path))
    if changed:
        name, path = min(changed)
        raise DefinitionError(
            code, f"{path} changed while the catalog was being built (skill {name!r})", path=path
        )
