"""Skill sources, the skills policy and the materializer protocol (SPEC section 7)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from a13n_harness.context.errors import DefinitionError
from a13n_harness.context.frontmatter import FrontmatterLimits
from a13n_harness.environment import FileOperator, is_canonical_path

__all__ = [
    "MAX_ENTRIES_PER_ROOT",
    "MAX_SKILLS",
    "FileSkillSource",
    "SkillMaterializer",
    "SkillSource",
    "SkillsPolicy",
    "check_root",
]

# 256 listed entries per root: a skills folder is hand-curated; 256 bounds the
# memory of one listing, and a root misconfigured to point at a huge directory
# fails loudly (skill_root_overflow) instead of being crawled or cut.
MAX_ENTRIES_PER_ROOT = 256
# 512 skills per source and in the final catalog: about twice the largest
# public skill collections, and a full listing of that many still fits the 5%
# catalog allowance of a 200k-token context.
MAX_SKILLS = 512


def check_root(root: object) -> str:
    """``root`` if it is a canonical absolute path, else ``skill_root_invalid``.

    Canonical: starts with ``/``; no empty, ``.`` or ``..`` segment (so no
    repeated separator and no trailing ``/`` except the root ``/``); no NUL; no
    lone surrogate. Nothing is normalized: ``/a//b`` is refused, not read as ``/a/b``.
    """
    if not is_canonical_path(root):
        raise DefinitionError(
            "skill_root_invalid",
            f"a skill root must be a canonical absolute path: {root!r}",
            path=root if isinstance(root, str) and "\x00" not in root else repr(root),
        )
    assert isinstance(root, str)
    return root


def _positive(value: object, what: str, code: str, reason: str) -> int:
    if type(value) is not int or value < 1:
        raise DefinitionError(code, f"{what} must be a positive int, got {value!r}", reason=reason)
    return value


class SkillSource(Protocol):
    """The whole source surface: an id, its roots, and how they are read."""

    @property
    def source_id(self) -> str: ...

    @property
    def roots(self) -> tuple[str, ...]: ...

    @property
    def required(self) -> bool: ...

    @property
    def max_entries_per_root(self) -> int: ...


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
        if (
            not isinstance(self.source_id, str)
            or "/" in self.source_id
            or not is_canonical_path("/" + self.source_id)
        ):
            raise DefinitionError(
                "skill_root_invalid",
                f"source_id must be a non-empty name without '/': {self.source_id!r}",
                reason="source_id",
            )
        roots: object = self.roots
        if isinstance(roots, str | bytes) or not isinstance(roots, Sequence):
            raise DefinitionError(
                "skill_root_invalid", f"roots must be a tuple of paths, got {roots!r}"
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
    A bad policy value is ``catalog_invalid`` (reason ``policy``): the SPEC has
    no policy code and this is the closest stable one.
    """

    conflict: Literal["precedence", "error"] = "precedence"
    max_skills: int = MAX_SKILLS
    invalid: Literal["error", "skip"] = "error"
    frontmatter: FrontmatterLimits = field(default_factory=FrontmatterLimits)

    def __post_init__(self) -> None:
        if self.conflict not in ("precedence", "error"):
            raise DefinitionError(
                "catalog_invalid",
                f"conflict must be precedence or error: {self.conflict!r}",
                reason="policy",
            )
        if self.invalid not in ("error", "skip"):
            raise DefinitionError(
                "catalog_invalid",
                f"invalid must be error or skip: {self.invalid!r}",
                reason="policy",
            )
        _positive(self.max_skills, "max_skills", "catalog_invalid", "policy")
        if not isinstance(self.frontmatter, FrontmatterLimits):
            raise DefinitionError(
                "catalog_invalid", "frontmatter must be FrontmatterLimits", reason="policy"
            )


class SkillMaterializer(Protocol):
    """Trusted Host code that publishes managed packages beneath ``target_root`` before a scan."""

    @property
    def materializer_id(self) -> str: ...

    @property
    def target_root(self) -> str: ...

    async def materialize(self, *, files: FileOperator) -> None: ...
