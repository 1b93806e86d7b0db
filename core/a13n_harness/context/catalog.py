"""The skill catalog and its checked total (SPEC section 3).

A :class:`SkillCatalog` is data, not text: the entries listed in the
manifest plus a count of the skills that were found but not listed. Its
*checked total* ``len(entries) + unlisted`` must fit an unsigned 64-bit
count, the width every consumer (JSON readers, Rust and Go hosts) can hold.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from a13n_harness.context.errors import DefinitionError
from a13n_harness.context.frontmatter import is_valid_name

__all__ = [
    "MAX_DESCRIPTION_CHARS",
    "MAX_FILE_BYTES",
    "MAX_TOTAL",
    "CatalogEntry",
    "SkillCatalog",
    "checked_total",
]

MAX_TOTAL = 2**64 - 1  # the largest count a u64 consumer of the manifest can represent
MAX_DESCRIPTION_CHARS = 1_024  # what the frontmatter parser produces at most
MAX_FILE_BYTES = 4_096  # PATH_MAX on Linux: no real SKILL.md path is longer


def _has_lone_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _invalid(reason: str, message: str) -> DefinitionError:
    return DefinitionError("catalog_invalid", message, reason=reason)


@dataclass(frozen=True, slots=True)
class CatalogEntry:
    """One listed skill: its name, its one-line description and its SKILL.md path."""

    name: str
    description: str
    file: str

    def __post_init__(self) -> None:
        if not is_valid_name(self.name):
            raise _invalid("name", f"invalid skill name {self.name!r}")
        if not isinstance(self.description, str) or not self.description:
            raise _invalid("description", f"{self.name}: description must be a non-empty str")
        if len(self.description) > MAX_DESCRIPTION_CHARS:
            raise _invalid(
                "description", f"{self.name}: description longer than {MAX_DESCRIPTION_CHARS}"
            )
        if _has_lone_surrogate(self.description):
            raise _invalid("description", f"{self.name}: description holds a lone surrogate")
        if not isinstance(self.file, str) or not self.file:
            raise _invalid("file", f"{self.name}: file must be a non-empty str")
        if _has_lone_surrogate(self.file):
            raise _invalid("file", f"{self.name}: file holds a lone surrogate")
        if len(self.file.encode("utf-8")) > MAX_FILE_BYTES:
            raise _invalid("file", f"{self.name}: file longer than {MAX_FILE_BYTES} bytes")


def checked_total(listed: object, unlisted: object) -> int:
    """``listed + unlisted``, refused when it exceeds :data:`MAX_TOTAL`.

    Both arguments must be non-bool ints >= 0. Used by construction, rendering
    and manifest admission alike, so the three can never disagree.
    """
    counts = []
    for label, value in (("listed", listed), ("unlisted", unlisted)):
        # bool is an int subclass, and True is not a count.
        if type(value) is not int:
            raise _invalid(label, f"{label} count must be an int, got {type(value).__name__}")
        if value < 0:
            raise _invalid(label, f"{label} count must be >= 0")
        counts.append(value)
    total = counts[0] + counts[1]
    if total > MAX_TOTAL:
        raise DefinitionError(
            "catalog_total_unrepresentable",
            f"{listed} listed + {unlisted} unlisted exceeds 2**64 - 1",
        )
    return total


@dataclass(frozen=True, slots=True)
class SkillCatalog:
    """Listed entries (strictly sorted by name), the unlisted count and the skill roots.

    ``roots`` are the display strings of the configured skill roots; the
    renderer encodes them and appends ``/`` where missing.
    """

    entries: tuple[CatalogEntry, ...]
    unlisted: int = 0
    roots: tuple[str, ...] = ()
    # Derived data the renderer computes once per catalog (the encoded entry
    # lines and their byte sizes), so each later render is arithmetic.
    _render_plan: object = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.entries, tuple) or not all(
            isinstance(entry, CatalogEntry) for entry in self.entries
        ):
            raise _invalid("entries", "entries must be a tuple of CatalogEntry")
        for before, after in zip(self.entries, self.entries[1:], strict=False):
            if not before.name < after.name:
                raise _invalid(
                    "order",
                    f"entries must be strictly sorted by name: {before.name!r} then {after.name!r}",
                )
        if not isinstance(self.roots, tuple) or not all(
            isinstance(root, str) and root and not _has_lone_surrogate(root) for root in self.roots
        ):
            raise _invalid("roots", "roots must be a tuple of non-empty str")
        checked_total(len(self.entries), self.unlisted)

    @property
    def total(self) -> int:
        """The checked total ``len(entries) + unlisted``."""
        return checked_total(len(self.entries), self.unlisted)
