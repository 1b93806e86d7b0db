"""PEP 316 contracts over the pure core, checked by CrossHair (not collected by pytest).

Run: ``crosshair check --analysis_kind=PEP316 --per_condition_timeout=12 properties/crosshair_contracts.py``.

Each function wraps one core entry point and states its SPEC rule as ``pre:``
and ``post:`` lines. CrossHair reads the *source lines* of these docstrings, so
they use ``chr(10)`` rather than a backslash escape, to mean the same in the
source as in ``__doc__``. A counterexample CrossHair finds is replayed as a
plain test in ``properties/test_crosshair_replays.py``.
"""

from __future__ import annotations

from a13n_harness.context.catalog import MAX_TOTAL, CatalogEntry, SkillCatalog, checked_total
from a13n_harness.context.encoder import decode_value, encode_value
from a13n_harness.context.errors import DefinitionError
from a13n_harness.context.render import RenderedCatalog, reference_render, render_catalog

_LARGE = 1 << 40
_INERT = ("<", ">", chr(10), chr(13), chr(0x85), chr(0x2028), chr(0x2029), chr(0x202E), chr(0xFEFF))


def no_surrogate(text: str) -> bool:
    """Whether ``text`` holds no surrogate code point (what the catalog admits)."""
    return all(not 0xD800 <= ord(char) <= 0xDFFF for char in text)


def framed_size(catalog: SkillCatalog, listed: int) -> int:
    """UTF-8 size of the framed candidate listing ``listed`` entries, by the plain oracle."""
    prefix = SkillCatalog(catalog.entries[:listed], catalog.total - listed, catalog.roots)
    return len(reference_render(prefix, _LARGE).text.encode("utf-8"))


def two_entry_catalog(first: str, second: str, unlisted: int) -> SkillCatalog:
    """A catalog with two entries whose descriptions are ``first`` and ``second``."""
    return SkillCatalog(
        (CatalogEntry("alpha", first, "/s/alpha"), CatalogEntry("beta", second, "/s/b")),
        unlisted,
        ("/s",),
    )


def render_contract(first: str, second: str, unlisted: int, budget: int) -> RenderedCatalog:
    """The rendering fits its budget and is the longest prefix, with a witness.

    pre: 1 <= len(first) <= 12 and 1 <= len(second) <= 12
    pre: no_surrogate(first) and no_surrogate(second)
    pre: 0 <= unlisted <= 2
    pre: 0 <= budget <= 700
    post: len(__return__.text.encode("utf-8")) <= budget
    post: __return__ == reference_render(two_entry_catalog(first, second, unlisted), budget)
    post: __return__.form != "listing" or __return__.listed == 2 or framed_size(two_entry_catalog(first, second, unlisted), __return__.listed + 1) > budget
    post: __return__.listed + __return__.omitted == 2 + unlisted
    """
    return render_catalog(two_entry_catalog(first, second, unlisted), budget)


def encode_contract(s: str) -> str:
    """The encoder round-trips and its output is inert.

    post: decode_value(__return__) == s
    post: not any(char in __return__ for char in _INERT)
    post: no_surrogate(__return__)
    """
    return encode_value(s)


def decode_contract(t: str) -> str | None:
    """Decoding accepts only canonical output: what it returns encodes back to ``t``.

    post: __return__ is None or encode_value(__return__) == t
    """
    try:
        return decode_value(t)
    except DefinitionError as error:
        assert error.code == "context_value_invalid"
        return None


def checked_total_contract(listed: int, unlisted: int) -> int:
    """The checked total is exact up to 2**64 - 1 and refused beyond (returned as -1 here).

    pre: listed >= 0 and unlisted >= 0
    post: __return__ == (listed + unlisted if listed + unlisted <= MAX_TOTAL else -1)
    """
    try:
        return checked_total(listed, unlisted)
    except DefinitionError as error:
        assert error.code == "catalog_total_unrepresentable"
        return -1
