"""Any catalog and integer budget give the certified longest-prefix rendering or a documented error.

The input bytes are decoded (by a small deterministic reader, no atheris
needed) into a catalog (entries, unlisted count, roots) and a budget. When the
catalog is constructed and the budget is a non-negative int, ``render_catalog``
equals the plain oracle ``reference_render``, fits the budget in UTF-8 bytes,
is accepted by ``verify_rendering``, keeps its framing (no field can author a
tag or a line), and every tampered copy of it is refused with
``rendering_not_certified``. Otherwise the error is a ``DefinitionError`` with
``catalog_invalid``, ``catalog_total_unrepresentable`` or ``allowance_invalid``.
A catalog whose unrepresentable total bypassed construction is still refused by
every renderer. Nothing else ever escapes.

The byte after the budget picks the fit (odd: ``fit="compact"``, contract §4) and may
stretch every description to a cap's neighbourhood (cap - 2 .. cap + 2 code points of
``DESCRIPTION_CAPS``); an input that ends before it is the prefix rule, as before. A compact
rendering equals the oracle's, lists no fewer skills than the prefix rule, keeps the frame,
and is refused when tampered (another form, a cut one code point longer).

Bug class: the fast renderer drifting from the rule. A binary search that
assumes size is monotone in k (the "more not listed" line vanishes at k = n),
a budget off by one, characters counted instead of bytes, a dropped pointer
line, an unescaped field that opens a tag or a line, a total that wraps past
``2**64 - 1``, and a certifier that accepts a rendering it should refuse. For the
compact fit: a ladder walked out of order or bisected, a cut without its mark or one code
point long, a frame line dropped.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from _target import ByteReader, attempt, contract, instrumented, main, outcome_of

with instrumented(__name__):  # coverage feedback when atheris drives this file
    from a13n_harness.context.catalog import MAX_TOTAL, CatalogEntry, SkillCatalog
    from a13n_harness.context.errors import DefinitionError
    from a13n_harness.context.render import (
        COMPACT_FORMS,
        DESCRIPTION_CAPS,
        RenderedCatalog,
        compact_candidate,
        reference_render,
        render_catalog,
        verify_rendering,
    )

_LARGE = 1 << 62
_NAME_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789-"
# Pieces that attack the framing: markup, entities, line terminators of every
# kind, bidi controls, a BOM, a lone surrogate, multi-byte characters.
_HOSTILE = (
    "<",
    ">",
    "&",
    "\n",
    "\r",
    "\t",
    "\x00",
    "\x7f",
    "\x85",
    "\u2028",
    "\u2029",
    "\u200e",
    "\u202e",
    "\u2066",
    "\ufeff",
    "\ud800",
    "é",
    "€",
    "😀",
    "&amp;",
    "&#xA;",
    "</skills_instructions>",
    "<skills_instructions>",
    " ",
)


class CaseReader(ByteReader):
    """The shared byte reader, with the text and names this target draws."""

    def text(self, max_length: int, *, surrogates: bool = False) -> str:
        """Printable ASCII mixed with hostile pieces; a lone surrogate only when asked."""
        chars = []
        for _ in range(self.below(max_length + 1)):
            b = self.byte()
            piece = chr(0x20 + b) if b < 0x5F else _HOSTILE[b % len(_HOSTILE)]
            chars.append("\ufffd" if piece == "\ud800" and not surrogates else piece)
        return "".join(chars)

    def name(self) -> str:
        length = 1 + self.below(8)
        if self.below(16) == 0:  # now and then a confusable or an uppercase letter
            # The Cyrillic small a (U+0430) is the confusable: a name that must be refused.
            return "а" + "b" * length if self.byte() & 1 else "A" * length  # noqa: RUF001
        return "".join(_NAME_CHARS[self.below(len(_NAME_CHARS))] for _ in range(length))


@dataclasses.dataclass(frozen=True, slots=True)
class Case:
    """What the bytes describe: the catalog's parts and a budget."""

    names: tuple[str, ...]
    descriptions: tuple[str, ...]
    files: tuple[str, ...]
    unlisted: int  # bool and negative values included on purpose
    bad_total: bool  # unlisted is a bool, negative or makes the total pass 2**64 - 1
    roots: tuple[str, ...]
    budget_mode: int
    budget_draw: tuple[int, int]
    fit: str = "prefix"  # read last: older corpus files (shorter) read as the prefix rule
    stretch: int = 0  # 0: descriptions as drawn; else each repeated to a length near a cap


def decode_case(data: bytes) -> Case:
    """The structured case the bytes describe (total: every byte string gives one)."""
    reader = CaseReader(data)
    flags = reader.byte()
    count = reader.below(13)
    names = [reader.name() for _ in range(count)]
    if not flags & 1:
        names = sorted(set(names))
    descriptions = []
    files = []
    for name in names:
        description = reader.text(48, surrogates=bool(flags & 8))
        descriptions.append(description or ("" if flags & 2 else "does things"))
        path = reader.text(24, surrogates=bool(flags & 8))
        files.append(path if flags & 4 else f"/skills/{name}/SKILL.md{path}")
    listed = len(names)
    choice = reader.below(8)
    unlisted: int
    if choice == 1:
        unlisted = reader.below(5)
    elif choice == 7:
        unlisted = reader.below(70_000)
    else:
        # The u64 edge, one past it, 2**64, a bool and a negative count.
        unlisted = (0, 0, MAX_TOTAL - listed, MAX_TOTAL - listed + 1, 2**64, True, -1)[choice]
    roots = tuple(reader.text(20) or "/r" for _ in range(reader.below(4)))
    budget_mode = reader.below(6)
    budget_draw = (reader.below(8_193), reader.below(256))
    extra = reader.byte()  # past the end: 0, the prefix rule and descriptions as drawn
    fit = "compact" if extra & 1 else "prefix"
    stretch = 0
    if extra & 2:
        cap = DESCRIPTION_CAPS[(extra >> 2) % len(DESCRIPTION_CAPS)]
        stretch = cap + (extra >> 5) % 5 - 2  # cap - 2 .. cap + 2 code points
    if stretch:
        descriptions = [
            (text * (stretch // len(text) + 1))[:stretch] if text else text for text in descriptions
        ]
    return Case(
        tuple(names),
        tuple(descriptions),
        tuple(files),
        unlisted,
        choice in (3, 4, 5, 6),
        roots,
        budget_mode,
        budget_draw,
        fit,
        stretch,
    )


def _catalog(case: Case) -> SkillCatalog:
    entries = tuple(map(CatalogEntry, case.names, case.descriptions, case.files))
    return SkillCatalog(entries, case.unlisted, case.roots)


def _bypassed_catalog(case: Case) -> SkillCatalog | None:
    """The catalog built without its constructor's checks (None when an entry is refused)."""
    try:
        entries = tuple(map(CatalogEntry, case.names, case.descriptions, case.files))
    except DefinitionError:
        return None
    catalog = object.__new__(SkillCatalog)
    for field, value in (("entries", entries), ("unlisted", case.unlisted), ("roots", ())):
        object.__setattr__(catalog, field, value)
    return catalog


def _candidate_size(catalog: SkillCatalog, listed: int) -> int:
    """UTF-8 size of the framed candidate listing ``listed`` entries (public API only)."""
    prefix = SkillCatalog(catalog.entries[:listed], catalog.total - listed, catalog.roots)
    return len(render_catalog(prefix, _LARGE).text.encode("utf-8"))


def _budget(case: Case, catalog: SkillCatalog) -> int:
    draw, small = case.budget_draw
    mode = case.budget_mode
    if mode == 0:
        return draw % 65
    if mode == 1:
        return 300 + draw % 401
    if mode == 2:
        return draw
    if mode == 3 and catalog.total:
        # Around the exact size of one candidate, where off-by-one errors live.
        n = len(catalog.entries)
        if case.fit == "compact" and draw % 2:
            forms = ("listing", *COMPACT_FORMS)
            text = compact_candidate(catalog, forms[draw // 2 % len(forms)])
            return max(0, len(text.encode("utf-8")) + small % 5 - 2)
        listed = draw % (n + 1)
        return max(0, _candidate_size(catalog, listed) + small % 5 - 2)
    if mode == 4:
        return -1 - small % 3  # refused: a negative budget has no rendering
    return _LARGE + small


def _tampered(rendered: RenderedCatalog) -> list[RenderedCatalog]:
    replace = dataclasses.replace
    text = rendered.text
    copies = [
        *(
            replace(rendered, form=form)
            for form in ("listing", *COMPACT_FORMS)
            if form != rendered.form
        ),
        replace(rendered, listed=rendered.listed + 1, omitted=rendered.omitted - 1),
        replace(rendered, listed=rendered.listed - 1, omitted=rendered.omitted + 1),
        replace(rendered, omitted=rendered.omitted + 1),
        replace(rendered, text=text + "x"),
        replace(rendered, text=text[:-1] if text else "\n"),
        replace(rendered, form="minimal" if rendered.form != "minimal" else "listing"),
        replace(rendered, total=rendered.total + 1),
        replace(rendered, budget_bytes=rendered.budget_bytes + 1),
    ]
    if "\n" in text:
        copies.append(replace(rendered, text=text.replace("\n", "\u2028", 1)))
    if "\u2026" in text:  # a cut one code point longer
        copies.append(replace(rendered, text=text.replace("\u2026", "x\u2026", 1)))
    return copies


def _check_framing(rendered: RenderedCatalog) -> None:
    text = rendered.text
    if rendered.form == "listing" or rendered.form in COMPACT_FORMS:
        lines = text.split("\n")
        assert lines[0] == "<skills_instructions>"
        assert lines[-2] == "</skills_instructions>"
        assert lines[-1] == "", "a listing ends with a new line"
        assert (text.count("<"), text.count(">")) == (2, 2), "a field authored a tag"
        expected_lines = 3 + rendered.listed + (1 if rendered.omitted else 0) + 2
        assert len(lines) - 1 == expected_lines, "a field authored a line"
        assert lines[-3].startswith(f"{rendered.total} skill"), "pointer line missing"
    elif rendered.form == "minimal":
        assert text.endswith("\n")
        assert text.count("\n") == 1
        assert "<" not in text
        assert ">" not in text
    else:
        assert rendered.form == "empty"
        assert text == ""
    assert len(text.splitlines()) == text.count("\n"), "a separator other than LF in the text"


def _check_rendering(catalog: SkillCatalog, budget: int, fit: str = "prefix") -> None:
    rendered = render_catalog(catalog, budget, fit)
    oracle = reference_render(catalog, budget, fit)
    assert rendered == oracle, "fast renderer differs from the oracle"
    assert len(rendered.text.encode("utf-8")) <= budget, "rendering overruns its budget"
    verify_rendering(catalog, budget, rendered, fit)
    _check_framing(rendered)
    if fit == "compact":
        assert rendered.listed >= render_catalog(catalog, budget).listed, "compact lists fewer"
    for copy in _tampered(rendered):
        code = _refusal(verify_rendering, catalog, budget, copy, fit)
        assert code == "rendering_not_certified", f"tampered rendering not refused: {copy!r}"


def _refusal(function: Callable[..., object], *args: object) -> str | None:
    """The code ``function(*args)`` is refused with, or None when it is not refused."""
    try:
        function(*args)
    except DefinitionError as error:
        return error.code
    return None


def _check_bypass(case: Case) -> None:
    """Renderers refuse a bad total even when construction was bypassed."""
    catalog = _bypassed_catalog(case)
    if catalog is None:
        return
    for render in (render_catalog, reference_render):
        code = _refusal(render, catalog, 100)
        assert code in ("catalog_invalid", "catalog_total_unrepresentable"), (render, code)


def _verdict(data: bytes) -> str:
    case = decode_case(data)
    catalog = attempt(_catalog, case)
    if isinstance(catalog, DefinitionError):
        assert catalog.code in ("catalog_invalid", "catalog_total_unrepresentable"), catalog
        if case.bad_total:
            _check_bypass(case)
        return outcome_of(catalog)
    budget = _budget(case, catalog)
    if budget < 0:
        for render in (render_catalog, reference_render):
            assert _refusal(render, catalog, budget) == "allowance_invalid", render
        return "allowance_invalid:budget"
    _check_rendering(catalog, budget, case.fit)
    return "accepted"


check, outcome = contract(_verdict)

if __name__ == "__main__":
    main(__file__, check, outcome)
