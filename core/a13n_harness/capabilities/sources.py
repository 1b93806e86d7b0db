"""Skill sources, the skills policy and the materializer protocol (docs/contract.md §7)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from a13n_harness.capabilities._protocols import SkillMaterializer, SkillSource
from a13n_harness.capabilities.verdicts import check_limits
from a13n_harness.context._checks import describe, is_count, is_kind, plain_str, plain_tuple
from a13n_harness.context.errors import DefinitionError
from a13n_harness.context.frontmatter import FrontmatterLimits
from a13n_harness.environment import is_canonical_path
from a13n_harness.environment.errors import contained_error
from a13n_harness.environment.operator import plain_sequence

if TYPE_CHECKING:
    from typing import Any, Literal

__all__ = [
    "CHECKOUT_MAX_ENTRIES",
    "MAX_ENTRIES_PER_ROOT",
    "MAX_SKILLS",
    "FileSkillSource",
    "SkillMaterializer",
    "SkillSource",
    "SkillsPolicy",
    "check_materializers",
    "check_root",
    "check_sources",
]

# 256 listed entries per root: a skills folder is hand-curated; 256 bounds the
# memory of one listing, and a root misconfigured to point at a huge directory
# fails loudly (skill_root_overflow) instead of being crawled or cut.
MAX_ENTRIES_PER_ROOT = 256
# 512 skills per source and in the final catalog: about twice the largest
# public skill collections, and a full listing of that many still fits the 5%
# catalog allowance of a 200k-token context.
MAX_SKILLS = 512
# 100,000 entries: the hard bound of checkout mode, per root listing and for the
# catalog. A checkout is listed completely below it (the largest public skill
# collections hold a few hundred; a monorepo's folder of generated skills a few
# thousand), while one listing (about 100 bytes an entry) and the documents kept for
# the final re-read (a few KB a skill) stay within tens to hundreds of megabytes.
# A root past it is not a skills folder: skill_root_overflow, never a silent cut.
CHECKOUT_MAX_ENTRIES = 100_000


def check_root(root: object) -> str:
    """``root`` if it is a canonical absolute path, else ``skill_root_invalid``.

    Canonical: starts with ``/``; no empty, ``.`` or ``..`` segment (so no
    repeated separator and no trailing ``/`` except the root ``/``); no NUL; no
    lone surrogate. Nothing is normalized: ``/a//b`` is refused, not read as ``/a/b``.
    """
    root = plain_str(root)  # a Host's str subclass: its characters, none of its methods
    if not is_canonical_path(root):
        raise DefinitionError(
            "skill_root_invalid",
            f"a skill root must be a canonical absolute path: {describe(root)}",
            path=root if isinstance(root, str) and "\x00" not in root else describe(root),
        )
    assert isinstance(root, str)
    return root


def check_sources(sources: object) -> tuple[SkillSource, ...]:
    """``sources`` as a tuple, each with a name, canonical roots, a bool and a positive bound.

    Anything else is ``skill_root_invalid`` (reason ``source``): a Host's own
    :class:`SkillSource` is checked like :class:`FileSkillSource` checks itself.

    What a Host hands over is taken as its exact built-in value: a ``list`` or ``tuple``
    subclass is read by the base type, and each source's four properties are read once,
    here; a source that is not a plain :class:`FileSkillSource` is kept as a
    :class:`FileSkillSource` of the plain values they gave (``str`` subclasses as their
    characters), so no later scan asks the Host's object again or meets a value that lies.
    """
    items = _sequence(sources)
    if items is None:
        raise DefinitionError(
            "skill_root_invalid",
            f"sources must be a sequence, not {describe(sources)}",
            reason="source",
        )
    checked: list[SkillSource] = []
    for source in items:
        try:
            fields = (
                source.source_id,
                source.roots,
                source.required,
                source.max_entries_per_root,
            )
        except Exception as error:
            raise DefinitionError(
                "skill_root_invalid",
                f"not a skill source: {describe(source)} ({contained_error(error).message})",
                reason="source",
            ) from None
        source_id, roots = plain_str(fields[0]), plain_tuple(fields[1])
        required, bound = fields[2], fields[3]
        if type(source_id) is not str or type(roots) is not tuple:
            raise DefinitionError(
                "skill_root_invalid", f"not a skill source: {describe(source)}", reason="source"
            )
        plain_roots = tuple(check_root(root) for root in roots)
        if type(required) is not bool:
            raise DefinitionError("skill_root_invalid", "required must be a bool", reason="source")
        _positive(bound, "max_entries_per_root", "skill_root_invalid", "limit")
        if type(source) is FileSkillSource and (source_id, plain_roots) == (
            source.source_id,
            source.roots,
        ):
            checked.append(source)  # the library's own, built by its constructor
            continue
        kept = object.__new__(FileSkillSource)  # the values read, as they were checked here
        for name, value in zip(
            ("source_id", "roots", "required", "max_entries_per_root"),
            (source_id, plain_roots, required, bound),
            strict=True,
        ):
            object.__setattr__(kept, name, value)
        checked.append(kept)
    return tuple(checked)


def _sequence(value: object) -> list[Any] | None:
    """A Host's ``list`` or ``tuple`` (a subclass read by the base type) or another
    sequence (the Host's own type, iterated) as a plain list; ``None`` for anything else."""
    plain = plain_sequence(value)
    if plain is None and not isinstance(value, str | bytes) and isinstance(value, Sequence):
        plain = list(value)
    return plain


def check_materializers(materializers: object) -> tuple[SkillMaterializer, ...]:
    """``materializers`` as a tuple, each with a str id, a str target root and ``materialize``."""
    items = _sequence(materializers)
    if items is None:
        raise DefinitionError(
            "skill_materializer_root",
            f"materializers must be a sequence, not {describe(materializers)}",
        )
    for materializer in items:
        try:
            shape = (
                materializer.materializer_id,
                materializer.target_root,
                materializer.materialize,
            )
        except Exception:
            shape = None
        if (
            shape is None
            or not isinstance(plain_str(shape[0]), str)
            or not isinstance(plain_str(shape[1]), str)
            or not callable(shape[2])
        ):
            raise DefinitionError(
                "skill_materializer_root", f"not a skill materializer: {describe(materializer)}"
            )
    return tuple(items)  # each checked just above


def _positive(value: object, what: str, code: str, reason: str) -> int:
    if not is_count(value, 1):
        raise DefinitionError(
            code, f"{what} must be a positive int, got {describe(value)}", reason=reason
        )
    return value


def _one_of(value: object, allowed: tuple[str, ...]) -> bool:
    """Whether ``value`` is a plain ``str`` equal to one of ``allowed`` (its own ``__eq__``,
    which a Host's object may make answer anything, is never asked)."""
    return type(value) is str and value in allowed


_POLICY_FIELDS = ("conflict", "max_skills", "invalid", "frontmatter", "mode")


def check_policy(policy: object) -> SkillsPolicy:
    """``policy`` if it is a :class:`SkillsPolicy` whose fields hold what its constructor
    accepts, as plain values; one forged past the constructor (or a subclass) is checked
    by building it again from its slots (a ``str`` subclass becomes its characters, an
    ``int`` subclass or forged limits are ``catalog_invalid``, reason ``policy``)."""
    if not is_kind(policy, SkillsPolicy):
        raise DefinitionError("catalog_invalid", "policy must be SkillsPolicy", reason="policy")
    fields = {name: SkillsPolicy.__dict__[name].__get__(policy) for name in _POLICY_FIELDS}
    rebuilt = SkillsPolicy(**fields)
    if type(policy) is SkillsPolicy and all(
        getattr(rebuilt, name) is value for name, value in fields.items()
    ):
        return policy  # the library's own, built by its constructor
    return rebuilt


@dataclass(frozen=True, slots=True)
class FileSkillSource:
    """Skill packages below explicitly configured roots of a file operator.

    Decisions: ``required`` defaults to ``True`` (skipping a missing root must
    be asked for); a bare string for ``roots`` is refused (``("/a")`` is a
    string, not a tuple); a root listed twice in one source is refused; every
    problem is ``skill_root_invalid`` at construction.
    """

    source_id: str
    roots: tuple[str, ...]
    required: bool = True
    max_entries_per_root: int = MAX_ENTRIES_PER_ROOT

    def __post_init__(self) -> None:
        object.__setattr__(self, "source_id", plain_str(self.source_id))
        object.__setattr__(self, "roots", plain_tuple(self.roots))
        if (
            not isinstance(self.source_id, str)
            or "/" in self.source_id
            or not is_canonical_path("/" + self.source_id)
        ):
            raise DefinitionError(
                "skill_root_invalid",
                f"source_id must be a non-empty name without '/': {describe(self.source_id)}",
                reason="source_id",
            )
        roots: object = self.roots
        if isinstance(roots, str | bytes) or not isinstance(roots, Sequence):
            raise DefinitionError(
                "skill_root_invalid", f"roots must be a tuple of paths, got {describe(roots)}"
            )
        checked = tuple(check_root(root) for root in roots)
        if len(set(checked)) != len(checked):
            raise DefinitionError("skill_root_invalid", "a root is listed twice in one source")
        object.__setattr__(self, "roots", checked)
        if type(self.required) is not bool:
            raise DefinitionError("skill_root_invalid", "required must be a bool")
        _positive(self.max_entries_per_root, "max_entries_per_root", "skill_root_invalid", "limit")


@dataclass(frozen=True, slots=True)
class SkillsPolicy:
    """How discovered packages become one catalog.

    ``conflict``: ``"precedence"`` (a later root of a source beats an earlier
    one, a later source beats an earlier one, each override a diagnostic) or
    ``"error"`` (any duplicate name is ``skill_name_conflict``). ``invalid``:
    ``"error"`` (bad frontmatter fails the scan) or ``"skip"`` (a diagnostic).
    A bad policy value is ``catalog_invalid`` (reason ``policy``): the contract has
    no policy code and this is the closest stable one.

    ``mode``: ``"strict"`` (the default: the host seed's library mode, exactly as
    above) or ``"checkout"`` (the checkout seed: "Invalid entries are skipped and
    the scan keeps going. Discovery pages to exhaustion"), made by
    :meth:`SkillsPolicy.checkout`. In checkout mode, with ``invalid="skip"``, every
    bad entry is skipped with a coded diagnostic and the scan goes on: a link that
    leaves the root or loops, an entry the operator refuses or cannot read, a
    ``SKILL.md`` that is not a regular file, bad frontmatter, a second package of one
    name below one root. A root is listed completely up to :data:`CHECKOUT_MAX_ENTRIES`
    (or the source's own bound when larger), past which it is ``skill_root_overflow``.
    Two routes to the same package (the same name and byte-identical ``SKILL.md``,
    as a link into another root gives) are one skill with no override diagnostic.
    With ``invalid="error"`` a bad entry fails the scan instead. What still fails a
    checkout scan: a required root that is missing, unroutable or unsupported; a
    root that is refused or whose listing fails, required or not (the root fails as
    a whole); an operator failing as a whole (a batch
    read, a routing callback, a materializer); more than ``max_skills`` skills.
    """

    conflict: Literal["precedence", "error"] = "precedence"
    max_skills: int = MAX_SKILLS
    invalid: Literal["error", "skip"] = "error"
    frontmatter: FrontmatterLimits = field(default_factory=FrontmatterLimits)
    mode: Literal["strict", "checkout"] = "strict"

    def __post_init__(self) -> None:
        # A Host's str subclass is judged, and kept, as its plain characters: its own
        # __eq__ would otherwise decide the membership tests below.
        for name in ("conflict", "invalid", "mode"):
            object.__setattr__(self, name, plain_str(getattr(self, name)))
        if not _one_of(self.conflict, ("precedence", "error")):
            raise DefinitionError(
                "catalog_invalid",
                f"conflict must be precedence or error: {describe(self.conflict)}",
                reason="policy",
            )
        if not _one_of(self.invalid, ("error", "skip")):
            raise DefinitionError(
                "catalog_invalid",
                f"invalid must be error or skip: {describe(self.invalid)}",
                reason="policy",
            )
        if not _one_of(self.mode, ("strict", "checkout")):
            raise DefinitionError(
                "catalog_invalid",
                f"mode must be strict or checkout: {describe(self.mode)}",
                reason="policy",
            )
        _positive(self.max_skills, "max_skills", "catalog_invalid", "policy")
        check_limits(self.frontmatter)  # also one forged past its constructor

    @classmethod
    def checkout(
        cls,
        conflict: Literal["precedence", "error"] = "precedence",
        *,
        invalid: Literal["error", "skip"] = "skip",
        max_skills: int = CHECKOUT_MAX_ENTRIES,
        frontmatter: FrontmatterLimits = FrontmatterLimits(),
    ) -> SkillsPolicy:
        """The checkout-mode policy (class docstring): skip bad entries and keep going,
        list every root completely up to :data:`CHECKOUT_MAX_ENTRIES`."""
        return cls(conflict, max_skills, invalid, frontmatter, "checkout")
