"""Catalog construction and the checked total (docs/contract.md §3)."""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from a13n_harness import DefinitionError
from a13n_harness.context import catalog as catalog_module
from a13n_harness.context.catalog import (
    MAX_TOTAL,
    CatalogEntry,
    SkillCatalog,
    catalog_total,
    checked_total,
)
from a13n_harness.testing.controls import control_settings, property_fails
from a13n_harness.testing.strategies import catalog_entries, skill_catalogs

ENTRY = CatalogEntry("a", "d", "/a/SKILL.md")


def code_of(build: object, *args: object) -> tuple[str, str | None]:
    with pytest.raises(DefinitionError) as caught:
        build(*args)  # type: ignore[operator]
    return caught.value.code, caught.value.reason


@given(st.integers(0, 50), st.integers(0, 2**70))
def test_checked_total_is_exact_or_refused(listed: int, unlisted: int) -> None:
    """total = listed + unlisted when <= 2**64 - 1, else catalog_total_unrepresentable."""
    if listed + unlisted <= MAX_TOTAL:
        assert checked_total(listed, unlisted) == listed + unlisted
    else:
        assert code_of(checked_total, listed, unlisted)[0] == "catalog_total_unrepresentable"


def test_total_boundary_is_pinned() -> None:
    """2**64 - 1 is representable; one more is not, from either side of the sum."""
    assert SkillCatalog((), MAX_TOTAL).total == MAX_TOTAL
    assert SkillCatalog((ENTRY,), MAX_TOTAL - 1).total == MAX_TOTAL
    assert code_of(SkillCatalog, (ENTRY,), MAX_TOTAL)[0] == "catalog_total_unrepresentable"
    assert code_of(SkillCatalog, (), MAX_TOTAL + 1)[0] == "catalog_total_unrepresentable"
    assert code_of(SkillCatalog, (), 2**200)[0] == "catalog_total_unrepresentable"


@given(skill_catalogs())
def test_total_counts_listed_and_unlisted(catalog: SkillCatalog) -> None:
    assert catalog.total == len(catalog.entries) + catalog.unlisted <= MAX_TOTAL


@pytest.mark.parametrize("bad", [True, False, -1, 1.0, "3", None])
def test_unlisted_must_be_a_non_bool_non_negative_int(bad: object) -> None:
    """A bool is not a count, nor a negative, a float or a string."""
    assert code_of(SkillCatalog, (), bad) == ("catalog_invalid", "unlisted")


@given(st.lists(catalog_entries(), min_size=2, max_size=6))
def test_entries_must_be_strictly_sorted(entries: list[CatalogEntry]) -> None:
    """Strictly sorted by name: unsorted or duplicate names are refused."""
    ordered = tuple(entries)
    names = [e.name for e in ordered]
    if all(a < b for a, b in pairwise(names)):
        assert SkillCatalog(ordered).entries == ordered
    else:
        assert code_of(SkillCatalog, ordered) == ("catalog_invalid", "order")


@pytest.mark.parametrize(
    ("name", "description", "file", "reason"),
    [
        ("Bad", "d", "f", "name"),
        ("", "d", "f", "name"),
        ("a" * 65, "d", "f", "name"),
        ("a-", "d", "f", "name"),
        ("caf\u00e9", "d", "f", "name"),
        ("a", "", "f", "description"),
        ("a", "x" * 1025, "f", "description"),
        ("a", "bad\ud800", "f", "description"),
        ("a", "d", "", "file"),
        ("a", "d", "\udc80", "file"),
        ("a", "d", "x" * 4097, "file"),
        ("a", "d", "é" * 2049, "file"),
    ],
)
def test_entry_fields_are_checked(name: str, description: str, file: str, reason: str) -> None:
    assert code_of(CatalogEntry, name, description, file) == ("catalog_invalid", reason)


def test_entry_limits_are_pinned() -> None:
    """1,024 code points of description and 4,096 UTF-8 bytes of file pass."""
    CatalogEntry("a" * 64, "é" * 1024, "é" * 2048)


@pytest.mark.parametrize("roots", [("",), ("\ud800",), (3,), ["/a"]])
def test_roots_are_checked(roots: object) -> None:
    assert code_of(SkillCatalog, (), 0, roots) == ("catalog_invalid", "roots")


class UncheckedCatalog(SkillCatalog):
    """A catalog without the total check (negative control)."""

    def __post_init__(self) -> None:
        pass

    @property
    def total(self) -> int:
        return len(self.entries) + self.unlisted


def test_negative_control_catalog_without_total_check_fails_the_boundary_property() -> None:
    """The checked-total property catches a catalog whose total is unchecked."""

    @control_settings
    @given(st.integers(0, 2**70))
    def boundary_holds(unlisted: int) -> None:
        try:
            total = UncheckedCatalog((ENTRY,), unlisted).total
        except DefinitionError as error:
            assert error.code == "catalog_total_unrepresentable"
        else:
            assert total <= MAX_TOTAL

    property_fails(boundary_holds)


def _code_reason(call: object, *args: object) -> tuple[str, str | None]:
    assert callable(call)
    with pytest.raises(DefinitionError) as caught:
        call(*args)
    return caught.value.code, caught.value.reason


@pytest.mark.parametrize(
    "entries",
    [("a",), [CatalogEntry("a", "d", "f")], (CatalogEntry("a", "d", "f"), None)],
    ids=["str-in-tuple", "list", "none-after-entry"],
)
def test_catalog_entries_must_be_a_tuple_of_entries(entries: object) -> None:
    """contract §3: ``entries`` is a tuple of ``CatalogEntry``; a list, or a tuple holding anything
    else (even a single item, where no order check would look at it), is ``catalog_invalid``
    with reason ``entries``."""
    assert _code_reason(SkillCatalog, entries) == ("catalog_invalid", "entries")


@pytest.mark.parametrize(
    ("listed", "unlisted", "reason"),
    [(True, 0, "listed"), (-1, 0, "listed"), (0, 1.0, "unlisted"), (0, -1, "unlisted")],
)
def test_checked_total_names_the_bad_count(listed: object, unlisted: object, reason: str) -> None:
    """contract §3: a count that is not a non-negative int is ``catalog_invalid`` with the reason
    naming which count it was, ``listed`` or ``unlisted``."""
    assert _code_reason(checked_total, listed, unlisted) == ("catalog_invalid", reason)


# ------------------------------------------------ catalog_total on what it is handed
# The refusals of catalog_total itself (its hostile-argument family also runs in
# test_hostile_arguments.py, which mutation testing does not run): exact code and reason.


@pytest.mark.parametrize("catalog", [None, 5, "catalog", (), object()])
def test_catalog_total_refuses_what_is_not_a_catalog(catalog: object) -> None:
    """contract §3: anything but a SkillCatalog is ``catalog_invalid`` with reason ``type``."""
    assert _code_reason(catalog_total, catalog) == ("catalog_invalid", "type")


def test_catalog_total_refuses_a_catalog_with_no_entries_attribute() -> None:
    """A SkillCatalog made past its constructor (``object.__new__``: no field set) is refused
    as ``catalog_invalid`` (reason ``entries``), never an ``AttributeError``."""
    assert _code_reason(catalog_total, object.__new__(SkillCatalog)) == (
        "catalog_invalid",
        "entries",
    )


def test_catalog_total_refuses_entries_forged_to_none() -> None:
    """entries forged to None, with no trace of an earlier check, are checked and refused."""
    catalog = SkillCatalog((CatalogEntry("a", "d", "f"),), 1)
    object.__setattr__(catalog, "entries", None)
    object.__setattr__(catalog, "_checked_entries", None)
    assert _code_reason(catalog_total, catalog) == ("catalog_invalid", "entries")


def test_catalog_total_checks_entries_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The entries the constructor checked are not checked again (a warm render stays
    O(log n)), but entries swapped in afterwards are, once, and then refused or kept."""
    entries = (CatalogEntry("a", "d", "f"), CatalogEntry("b", "d", "g"))
    catalog = SkillCatalog(entries, 3)
    seen: list[object] = []
    real = catalog_module._check_entries

    def spy(value: object) -> None:
        seen.append(value)
        real(value)

    monkeypatch.setattr(catalog_module, "_check_entries", spy)
    assert catalog_total(catalog) == catalog_total(catalog) == 5
    assert seen == []
    swapped = (CatalogEntry("c", "d", "h"),)
    object.__setattr__(catalog, "entries", swapped)
    assert catalog_total(catalog) == catalog_total(catalog) == 4
    assert seen == [swapped]
    object.__setattr__(
        catalog, "entries", (CatalogEntry("b", "d", "g"), CatalogEntry("a", "d", "f"))
    )
    assert _code_reason(catalog_total, catalog) == ("catalog_invalid", "order")
