"""What a scan returns: items and diagnostics (docs/contract.md §7).

The bound catalog of environment mode (``BoundSkillCatalog``, ``BoundSkillCatalogItem``)
lives in :mod:`a13n_harness.capabilities.bound` and is still importable from here: a
direct scan (the command line's) does not define what it never returns.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from a13n_harness._lazy import lazy_getattr
from a13n_harness.environment.operator import plain_fields

if TYPE_CHECKING:  # loaded on first use, see the end
    from a13n_harness.capabilities.bound import BoundSkillCatalog, BoundSkillCatalogItem

__all__ = [
    "DIAGNOSTIC_CODES",
    "SKIP_REASONS",
    "BoundSkillCatalog",
    "BoundSkillCatalogItem",
    "SkillCatalogItem",
    "SkillDiagnostic",
    "SkillScan",
]

DIAGNOSTIC_CODES: tuple[str, ...] = (
    "skill_root_skipped",  # a required=False root that is missing, unroutable or unsupported
    "skill_entry_skipped",  # a hidden entry, a file, a child without SKILL.md, an unusable
    # name; in checkout mode also a refused, unreadable or duplicate entry (reason: why)
    "skill_frontmatter_skipped",  # bad frontmatter under invalid="skip"
    "skill_name_mismatch",  # a package whose name differs from its folder (kept)
    "skill_description_truncated",  # a description cut to max_description_chars (kept)
    "skill_overridden",  # a package beaten by a later root or source of the same name
)
"""Codes of :class:`SkillDiagnostic`: things a scan tolerates. Not ``DefinitionError`` codes."""


SKIP_REASONS: dict[str, str] = {
    # skill_root_skipped (a root of a source that is not required)
    "missing": "the root does not exist",
    "unroutable": "no mount routes the root",
    "unsupported": "the root is not a directory the operator can list",
    # skill_root_skipped in checkout mode, skill_entry_skipped
    "link_escapes": "a symbolic link leads outside the operator's root",
    "permission_denied": "the operator refuses the path",
    # skill_entry_skipped: the root's entries
    "hidden": "a hidden entry (its name starts with '.')",
    "name_not_unicode": "an entry name that is not valid Unicode",
    "not_a_package_folder": "a file or another kind of entry, not a package folder",
    "root_document_not_a_file": "SKILL.md at the root is not a file",
    # skill_entry_skipped: a candidate's SKILL.md
    "no_skill_file": "a folder without SKILL.md",
    "not_a_directory": "the entry is not a directory (a link to a file)",
    "not_a_regular_file": "SKILL.md is a directory, FIFO, socket or device",
    "link_loop": "a symbolic link loop",
    "unreadable": "the operator fails to read SKILL.md",
    "duplicate_name": "a second package of one name below one root (checkout mode)",
    # kept packages and precedence
    "name_mismatch": "the name differs from the package folder (kept)",
    "description_truncated": "the description was cut (kept)",
    "overridden": "beaten by a later root or source of the same name",
}
"""The ``reason`` of every :class:`SkillDiagnostic` a scan emits, with what it means.

``skill_frontmatter_skipped`` carries the parser's own reason instead
(``missing_fence``, ``yaml_syntax``, ``name_invalid``, ...). Callers (the command
line's ``lint``) branch on these codes, never on diagnostic messages.
"""


@dataclass(frozen=True, slots=True)
class SkillDiagnostic:
    """One tolerated problem. Diagnostics come in scan order: source, root, entry name."""

    code: str
    message: str
    path: str
    source_id: str
    reason: str | None = None
    line: int | None = None
    column: int | None = None

    def __post_init__(self) -> None:
        plain_fields(self)  # a Host's subclasses as their plain values


@dataclass(frozen=True, slots=True)
class SkillCatalogItem:
    """One resolved skill package.

    ``path`` is its SKILL.md in the scanned namespace (the operator's in direct
    mode, the environment's in environment mode); ``root`` the configured root
    it was found below.
    """

    name: str
    description: str
    path: str
    source_id: str
    root: str
    description_truncated: bool = False
    # ``disable-model-invocation`` in its frontmatter: not in the model's catalog, activated
    # by the user only (docs/contract.md §10).
    disable_model_invocation: bool = False

    def __post_init__(self) -> None:
        plain_fields(self)  # a Host's subclasses as their plain values

    @property
    def directory(self) -> str:
        """The package directory (``path`` without ``/SKILL.md``)."""
        return self.path[: -len("/SKILL.md")] or "/"


@dataclass(frozen=True, slots=True)
class SkillScan:
    """``inspect`` result: items sorted by name and every diagnostic, in scan order."""

    items: tuple[SkillCatalogItem, ...]
    diagnostics: tuple[SkillDiagnostic, ...]

    def __post_init__(self) -> None:
        plain_fields(self)  # a Host's subclasses as their plain values


# The two names this module defined before the bound catalog moved to its own module.
__getattr__ = lazy_getattr(__name__, __all__, ("a13n_harness.capabilities.bound",))
