"""PEP 316 contracts over the pure core, checked by CrossHair (not collected by pytest).

Run: ``crosshair check --analysis_kind=PEP316 --per_condition_timeout=12 <this file>``.

Each function wraps one core entry point and states its docs/contract.md rule as ``pre:``
and ``post:`` lines. CrossHair reads the *source lines* of these docstrings, so
they use ``chr(10)`` rather than a backslash escape, to mean the same in the
source as in ``__doc__``. A counterexample CrossHair finds is replayed as a
plain test in ``properties/test_crosshair_replays.py``.
"""

from __future__ import annotations

from a13n_harness.context.catalog import MAX_TOTAL, CatalogEntry, SkillCatalog, checked_total
from a13n_harness.context.encoder import decode_value, encode_value
from a13n_harness.context.errors import DefinitionError
from a13n_harness.context.lint import Reference, find_references
from a13n_harness.context.render import (
    COMPACT_FORMS,
    RenderedCatalog,
    compact_candidate,
    reference_render,
    render_catalog,
)
from contract_tables import CONTRACT_ESCAPED, contract_kept_raw
from crosshair_setup import register_constant_tables

_LARGE = 1 << 40
# The core's cached constant tables as constants to CrossHair (properties/crosshair_setup.py).
register_constant_tables()


def no_surrogate(text: str) -> bool:
    """Whether ``text`` holds no surrogate code point (what the catalog admits)."""
    return all(not 0xD800 <= ord(char) <= 0xDFFF for char in text)


def inert(text: str) -> bool:
    """Whether ``text`` holds no raw ``<``, ``>`` nor any code point docs/contract.md §1 escapes
    (but a joiner inside an emoji sequence, §1's one exception)."""
    return all(
        char not in "<>"
        and (
            not any(lo <= ord(char) <= hi for lo, hi in CONTRACT_ESCAPED)
            or contract_kept_raw(text, index)
        )
        for index, char in enumerate(text)
    )


def framed_size(catalog: SkillCatalog, listed: int) -> int:
    """UTF-8 size of the framed candidate listing ``listed`` entries, by the plain oracle."""
    prefix = SkillCatalog(catalog.entries[:listed], catalog.total - listed, catalog.roots)
    return len(reference_render(prefix, _LARGE).text.encode("utf-8"))


def two_entry_catalog(first: int, second: int, unlisted: int) -> SkillCatalog:
    """Two entries with descriptions of ``first`` and ``second`` code points (some multi-byte)."""
    return SkillCatalog(
        (
            CatalogEntry("alpha", ("d€<" * first)[:first], "/s/alpha"),
            CatalogEntry("beta", ("x" * second), "/s/b"),
        ),
        unlisted,
        ("/s",),
    )


def is_longest_prefix(catalog: SkillCatalog, rendered: RenderedCatalog, budget: int) -> bool:
    """The witness: a listing of ``listed`` entries is kept only if ``listed + 1`` does not fit."""
    if rendered.form != "listing" or rendered.listed == len(catalog.entries):
        return True
    return framed_size(catalog, rendered.listed + 1) > budget


def render_contract(first: int, second: int, unlisted: int, budget: int) -> RenderedCatalog:
    """The rendering fits its budget and is the longest prefix, with a witness.

    pre: 1 <= first <= 40 and 1 <= second <= 40
    pre: 0 <= unlisted <= 2
    pre: 0 <= budget <= 800
    post: len(__return__.text.encode("utf-8")) <= budget
    post: __return__ == reference_render(two_entry_catalog(first, second, unlisted), budget)
    post: is_longest_prefix(two_entry_catalog(first, second, unlisted), __return__, budget)
    post: __return__.listed + __return__.omitted == 2 + unlisted
    """
    return render_catalog(two_entry_catalog(first, second, unlisted), budget)


pair = two_entry_catalog


def first_fitting(catalog: SkillCatalog, rendered: RenderedCatalog, budget: int) -> bool:
    """The witness of the compact fit: every candidate before the one chosen does not fit
    (all of them, when the prefix rule answered)."""
    order = ("listing", *COMPACT_FORMS)
    chosen = rendered.listed == len(catalog.entries) and rendered.form in order
    earlier = order[: order.index(rendered.form)] if chosen else order
    return all(len(compact_candidate(catalog, f).encode("utf-8")) > budget for f in earlier)


def compact_contract(first: int, second: int, unlisted: int, budget: int) -> RenderedCatalog:
    """The compact fit fits its budget and is the first fitting candidate, with a witness.

    Descriptions of ``first`` and ``second`` code points straddle the caps 64 and 100
    (``d€<`` makes the first multi-byte and escaped, so a cut can grow a line).

    pre: 60 <= first <= 104 and 60 <= second <= 104
    pre: 0 <= unlisted <= 2
    pre: 0 <= budget <= 900
    post: len(__return__.text.encode("utf-8")) <= budget
    post: __return__ == reference_render(pair(first, second, unlisted), budget, "compact")
    post: first_fitting(pair(first, second, unlisted), __return__, budget)
    post: __return__.listed + __return__.omitted == 2 + unlisted
    """
    return render_catalog(two_entry_catalog(first, second, unlisted), budget, "compact")


def encode_contract(s: str) -> str:
    """The encoder round-trips and its output is inert.

    The first condition is a cheap necessary part of the others (no raw angle bracket):
    CrossHair's search reaches a counterexample of it in a fraction of the
    budget the full ``inert`` and round-trip conditions cost a path (a dropped ``>`` escape
    went unrefuted by those alone in 4 CPU s; properties/harness/test_crosshair_power.py).

    post: "<" not in __return__ and ">" not in __return__
    post: decode_value(__return__) == s
    post: inert(__return__)
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
        assert listed + unlisted > MAX_TOTAL
        return -1


def normalised(reference: Reference) -> bool:
    """A lint reference as docs/rules.md says: no empty, ``.`` or ``..`` segment left, a
    climb that counts folders, an absolute path that climbs nothing, on the only line."""
    if reference.line != 1 or reference.column < 1 or reference.climb < 0:
        return False
    if reference.absolute:
        return reference.climb == 0
    return not reference.path or all(
        part not in ("", ".", "..") for part in reference.path.split("/")
    )


def references_contract(line: str) -> tuple[Reference, ...]:
    """Lint's reference scanner on one short line: every reference normalised.

    pre: len(line) <= 24
    pre: chr(10) not in line
    post: all(normalised(reference) for reference in __return__)
    post: len(__return__) <= line.count("(") + line.count(":") + line.count("`")
    """
    return find_references(line)
