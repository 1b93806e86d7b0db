"""The skill catalog and its checked total (docs/contract.md §3).

A :class:`SkillCatalog` is data, not text: the entries listed in the
manifest plus a count of the skills that were found but not listed. Its
*checked total* ``len(entries) + unlisted`` must fit an unsigned 64-bit
count, the width every consumer (JSON readers, Rust and Go hosts) can hold.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import pairwise

from a13n_harness.context._checks import (
    MAX_U64,
    describe,
    has_lone_surrogate,
    is_count,
    is_kind,
    plain_int,
    plain_record,
    plain_str,
    plain_tuple,
    type_name,
)
from a13n_harness.context.errors import DefinitionError
from a13n_harness.context.frontmatter import is_valid_name

__all__ = [
    "MAX_DESCRIPTION_CHARS",
    "MAX_FILE_BYTES",
    "MAX_TOTAL",
    "CatalogEntry",
    "SkillCatalog",
    "catalog_total",
    "check_catalog",
    "checked_total",
]

MAX_TOTAL = MAX_U64  # the largest count a u64 consumer of the manifest can represent
MAX_DESCRIPTION_CHARS = 1_024  # what the frontmatter parser produces at most
MAX_FILE_BYTES = 4_096  # PATH_MAX on Linux: no real SKILL.md path is longer


def _invalid(reason: str, message: str) -> DefinitionError:
    return DefinitionError("catalog_invalid", message, reason=reason)


@dataclass(frozen=True, slots=True)
class CatalogEntry:
    """One listed skill: its name, its one-line description and its SKILL.md path."""

    name: str
    description: str
    file: str

    def __post_init__(self) -> None:
        _check_entry_fields(self)  # a Host's str subclasses become plain str there


def _check_entry_fields(entry: CatalogEntry) -> None:
    """The construction checks of an entry, also run on entries forged past them.

    A forged entry's ``str`` subclasses are replaced by plain copies first, so
    neither these checks nor the renderers run a Host's methods.
    """
    name = plain_str(getattr(entry, "name", None))
    description = plain_str(getattr(entry, "description", None))
    file = plain_str(getattr(entry, "file", None))
    for attribute, value in (("name", name), ("description", description), ("file", file)):
        if getattr(entry, attribute, None) is not value:
            object.__setattr__(entry, attribute, value)
    if not is_valid_name(name):
        raise _invalid("name", f"invalid skill name {describe(name)}")
    if not isinstance(description, str) or not description:
        raise _invalid("description", f"{name}: description must be a non-empty str")
    if len(description) > MAX_DESCRIPTION_CHARS:
        raise _invalid("description", f"{name}: description longer than {MAX_DESCRIPTION_CHARS}")
    if has_lone_surrogate(description):
        raise _invalid("description", f"{name}: description holds a lone surrogate")
    if not isinstance(file, str) or not file:
        raise _invalid("file", f"{name}: file must be a non-empty str")
    if has_lone_surrogate(file):
        raise _invalid("file", f"{name}: file holds a lone surrogate")
    if len(file.encode("utf-8")) > MAX_FILE_BYTES:
        raise _invalid("file", f"{name}: file longer than {MAX_FILE_BYTES} bytes")


def checked_total(listed: object, unlisted: object) -> int:
    """``listed + unlisted``, refused when it exceeds :data:`MAX_TOTAL`.

    Both arguments must be non-bool ints >= 0. Used by construction, rendering
    and manifest admission alike, so the three can never disagree.
    """
    counts = []
    for label, value in (("listed", listed), ("unlisted", unlisted)):
        # bool is an int subclass, and True is not a count.
        if not is_count(value):
            raise _invalid(
                label, f"{label} count must be a non-negative int, got {describe(value)}"
            )
        counts.append(value)
    total = counts[0] + counts[1]
    if total > MAX_TOTAL:
        raise DefinitionError(
            "catalog_total_unrepresentable",
            f"{describe(listed)} listed + {describe(unlisted)} unlisted exceeds 2**64 - 1",
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
    # The entries tuple these checks last passed for: a catalog forged past
    # the constructor (object.__new__, object.__setattr__) lacks it, so
    # check_catalog checks its entries again before any renderer reads them.
    _checked_entries: object = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "unlisted", plain_int(self.unlisted))  # a record's field
        object.__setattr__(self, "entries", plain_tuple(self.entries))
        object.__setattr__(self, "roots", _plain_roots(self.roots))
        _check_entries(self.entries)
        _check_roots(self.roots)
        checked_total(len(self.entries), self.unlisted)
        object.__setattr__(self, "_checked_entries", self.entries)

    @property
    def total(self) -> int:
        """The checked total ``len(entries) + unlisted``."""
        return checked_total(len(self.entries), self.unlisted)


def plain_catalog(catalog: object) -> object:
    """``catalog`` holding only plain values, without checking it (its consumers do).

    One built by its constructor is returned as it is (the constructor made it plain).
    One forged past it (``object.__new__``, ``object.__setattr__``) is copied with
    ``plain_record``, and its entries, not checked by the constructor, each made plain
    too: none of a Host's methods runs. Anything but a ``SkillCatalog`` is returned as is.
    """
    if type(catalog) is not SkillCatalog:
        return catalog
    plain = plain_record(catalog)
    entries = getattr(plain, "entries", None)
    if type(entries) is tuple and getattr(plain, "_checked_entries", None) is not entries:
        copied = tuple(plain_record(entry) for entry in entries)
        if any(a is not b for a, b in zip(copied, entries, strict=True)):
            object.__setattr__(plain, "entries", copied)
    return plain


def _plain_roots(roots: object) -> object:
    """``roots`` as a plain tuple of plain ``str`` (a Host's subclasses copied, not run)."""
    roots = plain_tuple(roots)
    if type(roots) is not tuple:
        return roots
    return tuple(plain_str(root) for root in roots)


def _check_entries(entries: object) -> None:
    if type(entries) is not tuple or not all(type(entry) is CatalogEntry for entry in entries):
        raise _invalid("entries", "entries must be a tuple of CatalogEntry")
    for entry in entries:
        _check_entry_fields(entry)
    for before, after in pairwise(entries):
        if not before.name < after.name:
            raise _invalid(
                "order",
                f"entries must be strictly sorted by name: {before.name!r} then {after.name!r}",
            )


def _check_roots(roots: object) -> None:
    if type(roots) is not tuple or not all(
        type(root) is str and root and not has_lone_surrogate(root) for root in roots
    ):
        raise _invalid("roots", "roots must be a tuple of non-empty str")


def check_catalog(catalog: object) -> SkillCatalog:
    """``catalog``, once every construction check holds for it; else ``catalog_invalid``.

    Renderers and encoders call this (or :func:`catalog_total`) on what a Host
    hands them: a catalog forged past its constructor is refused here, not
    met as an ``AttributeError`` halfway through a rendering. Entries already
    checked (the same tuple object the constructor or an earlier call checked)
    are not checked again, so a warm render stays O(log n); roots and the
    total are checked every time (contract §3: the total guards rendering
    independently of construction).
    """
    if not is_kind(catalog, SkillCatalog):
        raise _invalid("type", f"expected a SkillCatalog, got {type_name(type(catalog))}")
    catalog_total(catalog)
    return catalog


def catalog_total(catalog: object) -> int:
    """The checked total of ``catalog`` after :func:`check_catalog`'s checks."""
    if not is_kind(catalog, SkillCatalog):
        raise _invalid("type", f"expected a SkillCatalog, got {type_name(type(catalog))}")
    entries = getattr(catalog, "entries", None)
    if entries is None or getattr(catalog, "_checked_entries", None) is not entries:
        # A catalog forged past its constructor: its containers and strings are made
        # plain (a Host's subclasses never run) before they are checked and rendered.
        entries = plain_tuple(entries)
        _check_entries(entries)
        object.__setattr__(catalog, "entries", entries)
        object.__setattr__(catalog, "_checked_entries", entries)
    roots = getattr(catalog, "roots", None)
    plain = _plain_roots(roots)
    if plain is not roots and type(plain) is tuple:
        object.__setattr__(catalog, "roots", plain)
    _check_roots(plain)
    return checked_total(len(catalog.entries), getattr(catalog, "unlisted", None))
