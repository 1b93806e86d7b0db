"""The longest-prefix renderer and its certificate (docs/contract.md §4)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from a13n_harness import DefinitionError
from a13n_harness.context import render as render_module
from a13n_harness.context.catalog import MAX_TOTAL, CatalogEntry, SkillCatalog
from a13n_harness.context.encoder import encode_value
from a13n_harness.context.render import (
    FOOTER,
    HEADER,
    RenderedCatalog,
    catalog_allowance,
    compact_candidate,
    cut_description,
    framed_candidate,
    minimal_candidate,
    reference_render,
    render_catalog,
    verify_rendering,
)
from a13n_harness.testing.controls import control_settings, property_fails
from a13n_harness.testing.hostile import LyingStr
from a13n_harness.testing.strategies import budgets, skill_catalogs

Renderer = Callable[[SkillCatalog, int], RenderedCatalog]


def utf8_len(text: str) -> int:
    return len(text.encode("utf-8"))


def candidate_sizes(catalog: SkillCatalog) -> list[int]:
    """Sizes of every framed candidate (k = 0..n) and then the minimal one, via the oracle."""
    n = len(catalog.entries)
    sizes = []
    for k in range(n + 1):
        trimmed = SkillCatalog(catalog.entries[:k], catalog.total - k, catalog.roots)
        sizes.append(utf8_len(reference_render(trimmed, 10**9).text))
    minimal = reference_render(catalog, sizes[0] - 1 if sizes[0] else 0)
    sizes.append(utf8_len(minimal.text))
    return sizes


def assert_longest_prefix(render: Renderer, catalog: SkillCatalog, budget: int) -> None:
    """The whole rule: fits, is the first fitting candidate, pointer present, counts exact."""
    rendered = render(catalog, budget)
    assert utf8_len(rendered.text) <= budget
    assert rendered == reference_render(catalog, budget)
    verify_rendering(catalog, budget, rendered)
    total = catalog.total
    assert rendered.total == total
    assert rendered.listed + rendered.omitted == total
    if rendered.form == "listing":
        assert rendered.text.startswith(HEADER)
        assert rendered.text.endswith(FOOTER)
        pointer = f"{total} {'skill' if total == 1 else 'skills'} available (list "
        assert pointer in rendered.text
        assert (f"{rendered.omitted} more skill" in rendered.text) == (rendered.omitted > 0)


budget_near_candidates = st.integers(-3, 3)


@given(skill_catalogs(), budgets())
def test_rendered_catalog_fits_any_budget(catalog: SkillCatalog, budget: int) -> None:
    """Rendered bytes <= budget; equals reference_render; certified by verify_rendering."""
    assert_longest_prefix(render_catalog, catalog, budget)


@given(skill_catalogs(max_entries=8), st.data(), budget_near_candidates)
def test_rendering_is_exact_around_every_candidate_size(
    catalog: SkillCatalog, data: st.DataObject, delta: int
) -> None:
    """Budgets drawn around the exact size of each candidate, where off-by-one errors live."""
    sizes = candidate_sizes(catalog)
    size = data.draw(st.sampled_from(sizes))
    assert_longest_prefix(render_catalog, catalog, max(0, size + delta))


@given(skill_catalogs(max_entries=10, tiny=True), st.data(), budget_near_candidates)
def test_rendering_is_exact_where_size_is_not_monotone(
    catalog: SkillCatalog, data: st.DataObject, delta: int
) -> None:
    """Short entries and no unlisted skill: the non-monotone region, at every candidate size."""
    size = data.draw(st.sampled_from(candidate_sizes(catalog)))
    assert_longest_prefix(render_catalog, catalog, max(0, size + delta))


@given(skill_catalogs(), budgets())
def test_every_value_is_encoded_so_lines_are_fixed(catalog: SkillCatalog, budget: int) -> None:
    """No value can add a line or a tag: line count and tags are the framing's own."""
    rendered = render_catalog(catalog, budget)
    text = rendered.text
    if rendered.form == "listing":
        more = 1 if rendered.omitted else 0
        assert text.count("\n") == 3 + rendered.listed + more + 2
        inner = text.removeprefix("<skills_instructions>").removesuffix("</skills_instructions>\n")
        assert "<" not in inner
        assert ">" not in inner
        for line in text.splitlines()[3 : 3 + rendered.listed]:
            assert re.fullmatch(r"- [a-z0-9-]+: .+ \(file: .+\)", line)
    elif rendered.form == "minimal":
        assert text.count("\n") == 1
        assert "<" not in text
    for char in "\r\u2028\u2029\u0085\u202e\ufeff":
        assert char not in text


def test_exact_listing_output() -> None:
    catalog = SkillCatalog(
        (
            CatalogEntry("code-review", "Review <code> & fix", "/s/code-review/SKILL.md"),
            CatalogEntry("release", "Ship\u2028it", "/s/release/SKILL.md"),
        ),
        unlisted=1,
        roots=("/.agents/skills", "/.claude/skills/"),
    )
    rendered = render_catalog(catalog, 10_000)
    assert rendered.text == (
        "<skills_instructions>\n"
        "## Skills\n"
        "A skill is a folder of instructions with a SKILL.md file. "
        "Read a listed skill's SKILL.md before you use it.\n"
        "- code-review: Review &lt;code&gt; &amp; fix (file: /s/code-review/SKILL.md)\n"
        "- release: Ship&#x2028;it (file: /s/release/SKILL.md)\n"
        "1 more skill not listed.\n"
        "3 skills available (list /.agents/skills/ and /.claude/skills/ to see all)\n"
        "</skills_instructions>\n"
    )
    assert (rendered.form, rendered.listed, rendered.omitted, rendered.total) == (
        "listing",
        2,
        1,
        3,
    )


def test_exact_pointer_only_and_minimal_outputs() -> None:
    catalog = SkillCatalog((CatalogEntry("a", "d" * 200, "/f"),), roots=("/r",))
    expected = HEADER + "1 more skill not listed.\n1 skill available (list /r/ to see all)\n"
    pointer_only = render_catalog(catalog, utf8_len(expected + FOOTER))
    assert pointer_only.text == expected + FOOTER
    assert (pointer_only.listed, pointer_only.omitted) == (0, 1)
    minimal = render_catalog(catalog, 100)
    assert minimal.text == "/r/ has 1 skill\n"
    assert (minimal.form, minimal.listed, minimal.omitted) == ("minimal", 0, 1)
    nothing = render_catalog(catalog, 15)
    assert (nothing.text, nothing.form, nothing.omitted) == ("", "empty", 1)


@pytest.mark.parametrize(
    ("roots", "phrase", "verb"),
    [
        ((), "the skill roots", "have"),
        (("/a",), "/a/", "has"),
        (("/a/", "/b"), "/a/ and /b/", "have"),
        (("/a", "/b", "/c<x>"), "/a/, /b/ and /c&lt;x&gt;/", "have"),
        (("/",), "/", "has"),
    ],
)
def test_roots_phrase(roots: tuple[str, ...], phrase: str, verb: str) -> None:
    catalog = SkillCatalog((), unlisted=2, roots=roots)
    assert render_catalog(catalog, 40 + len(phrase)).text == f"{phrase} {verb} 2 skills\n"
    listing = render_catalog(catalog, 10_000).text
    assert f"2 skills available (list {phrase} to see all)\n" in listing


def test_empty_catalog_renders_nothing() -> None:
    assert render_catalog(SkillCatalog(()), 10_000) == RenderedCatalog("", "empty", 0, 0, 0, 10_000)


def test_size_is_not_monotone_in_k() -> None:
    """The full listing fits while the n-1 prefix does not: a monotone search is wrong here."""
    entries = tuple(CatalogEntry(name, "d", "f") for name in ("a", "b", "c"))
    catalog = SkillCatalog(entries)
    full = render_catalog(catalog, 10_000)
    budget = utf8_len(full.text)
    # "- c: d (file: f)\n" is 17 bytes; "1 more skill not listed.\n" is 25.
    shorter = SkillCatalog(entries[:2], 1)
    assert utf8_len(reference_render(shorter, 10_000).text) == budget + 8
    assert render_catalog(catalog, budget).listed == 3
    one_less = render_catalog(catalog, budget - 1)
    assert (one_less.listed, one_less.omitted) == (1, 2)
    assert one_less == reference_render(catalog, budget - 1)


def test_huge_counts_render_exactly() -> None:
    catalog = SkillCatalog((CatalogEntry("a", "d", "f"),), MAX_TOTAL - 1, ("/r",))
    rendered = render_catalog(catalog, 10_000)
    assert f"{MAX_TOTAL - 1} more skills not listed.\n{MAX_TOTAL} skills available" in rendered.text


def test_renderer_refuses_an_unrepresentable_total_independently() -> None:
    """A catalog that bypassed construction still cannot render an unrepresentable total."""
    rogue = object.__new__(SkillCatalog)
    object.__setattr__(rogue, "entries", (CatalogEntry("a", "d", "f"),))
    object.__setattr__(rogue, "unlisted", MAX_TOTAL)
    object.__setattr__(rogue, "roots", ())
    for render in (render_catalog, reference_render):
        with pytest.raises(DefinitionError) as caught:
            render(rogue, 1000)
        assert caught.value.code == "catalog_total_unrepresentable"
    object.__setattr__(rogue, "unlisted", True)
    with pytest.raises(DefinitionError) as caught:
        render_catalog(rogue, 1000)
    assert caught.value.code == "catalog_invalid"


@pytest.mark.parametrize("budget", [-1, True, 1.5, "10", None])
def test_bad_budgets_are_refused(budget: object) -> None:
    for render in (render_catalog, reference_render):
        with pytest.raises(DefinitionError) as caught:
            render(SkillCatalog(()), budget)  # type: ignore[arg-type]
        assert caught.value.code == "allowance_invalid"


def tampered(rendered: RenderedCatalog) -> list[RenderedCatalog]:
    changes = [
        replace(rendered, text=rendered.text + " "),
        replace(rendered, text=rendered.text[:-1]),
        replace(rendered, listed=rendered.listed + 1),
        replace(rendered, omitted=rendered.omitted + 1),
        replace(rendered, total=rendered.total + 1),
        replace(rendered, budget_bytes=rendered.budget_bytes + 1),
        replace(rendered, form="minimal" if rendered.form != "minimal" else "listing"),
        replace(rendered, form="empty" if rendered.form != "empty" else "listing"),
    ]
    if rendered.listed:
        changes.append(replace(rendered, listed=rendered.listed - 1, omitted=rendered.omitted + 1))
    if rendered.text:
        changes.append(replace(rendered, text=rendered.text.replace("\n", "\r\n", 1)))
    return [change for change in changes if change != rendered]


@given(skill_catalogs(), budgets())
def test_tampered_renderings_are_refused(catalog: SkillCatalog, budget: int) -> None:
    """verify_rendering refuses every change to a certified rendering."""
    rendered = render_catalog(catalog, budget)
    verify_rendering(catalog, budget, rendered)
    for bad in tampered(rendered):
        with pytest.raises(DefinitionError) as caught:
            verify_rendering(catalog, budget, bad)
        assert caught.value.code == "rendering_not_certified"


def test_shorter_prefix_that_fits_is_refused() -> None:
    """A rendering listing fewer entries than fit is not the longest prefix."""
    entries = tuple(CatalogEntry(name, "d", "f") for name in ("a", "b", "c", "d"))
    catalog = SkillCatalog(entries, roots=("/r",))
    two = reference_render(SkillCatalog(entries[:2], 2, ("/r",)), 10_000)
    fake = RenderedCatalog(two.text, "listing", 2, 2, 4, 10_000)
    with pytest.raises(DefinitionError) as caught:
        verify_rendering(catalog, 10_000, fake)
    assert caught.value.code == "rendering_not_certified"


@given(st.integers(0, 10**7), st.integers(0, 10**7))
def test_allowance_is_five_percent_of_usable_input(context: int, reserve: int) -> None:
    assert catalog_allowance(context, reserve) == max(0, context - reserve) // 20


def test_allowance_examples() -> None:
    assert catalog_allowance(200_000, 16_000) == 9_200
    assert catalog_allowance(8_192, 1_024) == 358
    assert catalog_allowance(100, 200) == 0


@pytest.mark.parametrize(
    ("context", "reserve"), [(-1, 0), (0, -1), (True, 0), (1.0, 0), (10, None)]
)
def test_allowance_refuses_bad_arguments(context: object, reserve: object) -> None:
    with pytest.raises(DefinitionError) as caught:
        catalog_allowance(context, reserve)  # type: ignore[arg-type]
    assert (caught.value.code, caught.value.reason) == ("allowance_invalid", "budget")


def pointer_dropping_render(catalog: SkillCatalog, budget: int) -> RenderedCatalog:
    """Broken: when no entry fits, drops the pointer line instead of keeping it."""
    rendered = render_catalog(catalog, budget)
    if rendered.form == "listing" and rendered.listed == 0:
        pointer = rendered.text.splitlines(keepends=True)[-2]
        return replace(rendered, text=rendered.text.replace(pointer, ""))
    if rendered.form == "minimal":
        return RenderedCatalog(
            HEADER + FOOTER, "listing", 0, rendered.total, rendered.total, budget
        )
    return rendered


def monotone_search_render(catalog: SkillCatalog, budget: int) -> RenderedCatalog:
    """Broken: binary-searches k as if the framed size were monotone."""
    n = len(catalog.entries)

    def fits(k: int) -> bool:
        trimmed = SkillCatalog(catalog.entries[:k], catalog.total - k, catalog.roots)
        return utf8_len(reference_render(trimmed, 10**9).text) <= budget

    low, high = 0, n
    if catalog.total == 0 or not fits(0):
        return reference_render(catalog, budget)
    while low < high:
        middle = (low + high + 1) // 2
        if fits(middle):
            low = middle
        else:
            high = middle - 1
    trimmed = SkillCatalog(catalog.entries[:low], catalog.total - low, catalog.roots)
    text = reference_render(trimmed, 10**9).text
    return RenderedCatalog(text, "listing", low, catalog.total - low, catalog.total, budget)


@pytest.mark.parametrize("broken", [pointer_dropping_render, monotone_search_render])
def test_negative_control_broken_renderers_fail_the_longest_prefix_oracle(broken: Renderer) -> None:
    """The longest-prefix property catches a pointer-dropping and a monotone-search renderer."""

    @control_settings
    @given(skill_catalogs(max_entries=10, tiny=True), st.data(), budget_near_candidates)
    def oracle(catalog: SkillCatalog, data: st.DataObject, delta: int) -> None:
        size = data.draw(st.sampled_from(candidate_sizes(catalog)))
        assert_longest_prefix(broken, catalog, max(0, size + delta))

    property_fails(oracle, (AssertionError, DefinitionError))


def _code_reason(call: object, *args: object) -> tuple[str, str | None]:
    assert callable(call)
    with pytest.raises(DefinitionError) as caught:
        call(*args)
    return caught.value.code, caught.value.reason


def test_empty_form_is_refused_when_the_minimal_candidate_fits_exactly() -> None:
    """§4: the minimal candidate comes before ``""``, and it fits at ``len == budget_bytes``,
    so certifying ``""`` there is ``rendering_not_certified``."""
    catalog = SkillCatalog((), unlisted=1)
    budget = len(minimal_candidate(catalog).encode("utf-8"))
    rendered = render_catalog(catalog, budget)
    assert (rendered.form, rendered.text) == ("minimal", "the skill roots have 1 skill\n")
    verify_rendering(catalog, budget, rendered)
    empty = RenderedCatalog("", "empty", 0, 1, 1, budget)
    assert _code_reason(verify_rendering, catalog, budget, empty)[0] == "rendering_not_certified"
    verify_rendering(catalog, budget - 1, RenderedCatalog("", "empty", 0, 1, 1, budget - 1))


@pytest.mark.parametrize("listed", [-1, 2, True, 1.0])
def test_framed_candidate_refuses_a_count_outside_the_entries(listed: object) -> None:
    """§4: framed candidates exist for ``0 <= k <= n`` only; others are ``catalog_invalid``."""
    catalog = SkillCatalog((CatalogEntry("a", "d", "f"),))
    assert framed_candidate(catalog, 1).count("- a: d (file: f)") == 1
    assert _code_reason(framed_candidate, catalog, listed) == ("catalog_invalid", "listed")


@pytest.mark.parametrize("budget", [-1, True, 1.5, None])
def test_byte_renderers_refuse_a_bad_budget_with_reason_budget(budget: object) -> None:
    """contract §4: ``budget_bytes`` that is not a non-negative int is ``allowance_invalid`` with
    reason ``budget``, from the renderer, the oracle and the certifier alike."""
    catalog = SkillCatalog((CatalogEntry("a", "d", "f"),))
    expected = ("allowance_invalid", "budget")
    assert _code_reason(render_catalog, catalog, budget) == expected
    assert _code_reason(reference_render, catalog, budget) == expected
    rendered = render_catalog(catalog, 100)
    assert _code_reason(verify_rendering, catalog, budget, rendered) == expected
    # Not a contract (message wording may change), a diagnostic: the message names the argument.
    with pytest.raises(DefinitionError) as caught:
        render_catalog(catalog, budget)  # type: ignore[arg-type]
    assert re.match(r"budget_bytes\b", caught.value.message), caught.value.message


def test_the_walk_below_the_bisection_point_is_short(monkeypatch: pytest.MonkeyPatch) -> None:
    """contract §4 (O(n) rendering): the bisection bounds the listed count by header, pointer and
    footer plus the entry lines, so the walk down only crosses the few candidates a longer
    "more not listed" line can push out; it never starts past that bound."""
    entries = tuple(CatalogEntry(f"s{i:04d}", "word word", "f") for i in range(400))
    catalog = SkillCatalog(entries, 5, ("/r",))
    full = len(framed_candidate(catalog, 400).encode("utf-8"))
    built: list[int] = []
    more_line = render_module._more_line

    def counting(missing: int) -> str:
        built.append(missing)
        return more_line(missing)

    monkeypatch.setattr(render_module, "_more_line", counting)
    for budget in range(0, full + 1, 61):
        built.clear()
        rendered = render_catalog(catalog, budget)
        assert len(built) <= 3, (budget, built)
        verify_rendering(catalog, budget, rendered)


def test_entry_lines_are_encoded_once_per_catalog(monkeypatch: pytest.MonkeyPatch) -> None:
    """contract §4 (O(n) rendering): a catalog's entry lines are encoded on its first render only;
    later renders at other budgets reuse them, and a catalog whose entries were swapped behind
    the frozen dataclass's back is encoded afresh."""
    catalog = SkillCatalog(tuple(CatalogEntry(f"s{i}", "d", "f") for i in range(5)), 1, ("/r",))
    encoded: list[str] = []
    encode = encode_value

    def counting(value: str) -> str:
        if " (file: " in value:  # an entry line, not the roots phrase
            encoded.append(value)
        return encode(value)

    monkeypatch.setattr(render_module, "encode_value", counting)
    first = render_catalog(catalog, 10_000)
    assert len(encoded) == 5
    for budget in (0, 200, 10_000):
        render_catalog(catalog, budget)
    assert len(encoded) == 5
    object.__setattr__(catalog, "entries", catalog.entries[:2])
    assert render_catalog(catalog, 10_000) != first
    assert len(encoded) == 7


def test_multibyte_listing_is_budgeted_in_bytes() -> None:
    """contract §4: candidates are measured in UTF-8 bytes, not code points (mutant 009)."""
    entries = tuple(CatalogEntry(name, "€" * 40 + "😀" * 10, f"/s/{name}") for name in "abc")
    catalog = SkillCatalog(entries, roots=("/s",))
    full = render_catalog(catalog, 1 << 40)
    size = len(full.text.encode("utf-8"))
    assert size > len(full.text)
    for budget in (size, size - 1, len(full.text), len(full.text) - 1):
        rendered = render_catalog(catalog, budget)
        assert len(rendered.text.encode("utf-8")) <= budget
        verify_rendering(catalog, budget, rendered)
    assert render_catalog(catalog, size).listed == 3
    assert render_catalog(catalog, size - 1).listed < 3


# ------------------------------------------------------------------ renderings handed in to certify
# verify_rendering on what it is handed: anything but a RenderedCatalog whose every field has
# its declared type is refused as "not a RenderedCatalog" (rendering_not_certified), never an
# AttributeError and never certified.


class _LooksLikeListing:
    """Not a str, yet equal to "listing": a form forged to slip past ``in FORMS``."""

    def __eq__(self, other: object) -> bool:
        return other == "listing"

    def __hash__(self) -> int:
        return hash("listing")


def _certification_refusal(rendered: object) -> tuple[str, str | None]:
    catalog = SkillCatalog((CatalogEntry("a", "d", "f"),), 1)
    with pytest.raises(DefinitionError) as caught:
        verify_rendering(catalog, 10_000, rendered)  # type: ignore[arg-type]
    return caught.value.code, caught.value.reason


def _tampered_rendering(**fields: object) -> RenderedCatalog:
    rendered = render_catalog(SkillCatalog((CatalogEntry("a", "d", "f"),), 1), 10_000)
    for name, value in fields.items():
        object.__setattr__(rendered, name, value)
    return rendered


def _unset_field(name: str) -> RenderedCatalog:
    rendered = _tampered_rendering()
    object.__delattr__(rendered, name)
    return rendered


@pytest.mark.parametrize(
    "rendered",
    [
        _tampered_rendering(form=_LooksLikeListing()),
        _tampered_rendering(text=5),
        _tampered_rendering(text="\ud800"),
        _tampered_rendering(text=None, form=None),
        *(_unset_field(name) for name in ("text", "form", "listed", "omitted", "budget_bytes")),
        _tampered_rendering(listed=True),
    ],
)
def test_a_rendering_with_a_field_of_another_type_is_not_certified(rendered: object) -> None:
    """A field of another type (a form that only compares equal to "listing", a text that is
    no str or holds a lone surrogate) or a field left unset is refused before any comparison."""
    assert _certification_refusal(rendered) == ("rendering_not_certified", None)


def test_a_lookalike_of_a_rendering_is_not_certified() -> None:
    """An object with every field of the right rendering, but not a RenderedCatalog, is refused."""
    genuine = _tampered_rendering()
    verify_rendering(SkillCatalog((CatalogEntry("a", "d", "f"),), 1), 10_000, genuine)
    lookalike = SimpleNamespace(
        **{name: getattr(genuine, name) for name in RenderedCatalog.__dataclass_fields__}
    )
    assert _certification_refusal(lookalike) == ("rendering_not_certified", None)


# --------------------------------------------------------------------------- the compact fit

CAPS = render_module.DESCRIPTION_CAPS
COMPACT_ORDER = ("listing", *render_module.COMPACT_FORMS)

# Characters a cut may fall on or next to: ASCII, two-, three- and four-byte UTF-8, characters
# the encoder escapes (markup, a line separator) and the cut mark itself.
_CUT_ALPHABET = "ab &<>é€😀\u2028…"


# Built once, drawn from at every example (a strategy built inside a composite is checked
# again at every draw, which cost more CPU than the properties' own checks).
_LENGTHS = st.one_of(
    st.sampled_from([cap + delta for cap in CAPS for delta in (-1, 0, 1, 2)]),
    st.integers(1, 1024),
)
_UNITS = st.text(alphabet=_CUT_ALPHABET, min_size=1, max_size=7)


@st.composite
def long_descriptions(draw: st.DrawFn) -> str:
    """Descriptions around each cap of the ladder (cap - 1 .. cap + 2) and anywhere to 1,024."""
    length = draw(_LENGTHS)
    unit = draw(_UNITS)
    return (unit * (length // len(unit) + 1))[:length]


_NAME = st.from_regex(r"[a-z][a-z0-9]{0,6}", fullmatch=True)
_COMPACT_DESCRIPTION = st.one_of(long_descriptions(), st.sampled_from(["d", "xy"]))
_ROOTS = st.sampled_from([(), ("/s",), ("/s", "/t/")])


@st.composite
def compact_catalogs(draw: st.DrawFn, max_entries: int = 8) -> SkillCatalog:
    """Catalogs whose descriptions reach the ladder's caps (and short or hostile ones)."""
    names = draw(st.lists(_NAME, max_size=max_entries))
    entries = []
    for name in sorted(set(names)):
        description = draw(_COMPACT_DESCRIPTION)
        entries.append(CatalogEntry(name, description, f"/s/{name}/SKILL.md"))
    unlisted = draw(st.sampled_from([0, 0, 1, 12, MAX_TOTAL - len(entries)]))
    roots = draw(_ROOTS)
    return SkillCatalog(tuple(entries), unlisted, roots)


def compact_sizes(catalog: SkillCatalog) -> list[int]:
    """The size of every compact candidate and of every prefix candidate."""
    if catalog.total == 0:
        return [0]
    sizes = [utf8_len(compact_candidate(catalog, form)) for form in COMPACT_ORDER]
    return sizes + candidate_sizes(catalog)


def assert_compact_fit(render: Renderer, catalog: SkillCatalog, budget: int) -> None:
    """The compact rule in full: the first fitting candidate of the fixed order, certified."""
    rendered = render(catalog, budget)
    assert utf8_len(rendered.text) <= budget
    assert rendered == reference_render(catalog, budget, "compact")
    verify_rendering(catalog, budget, rendered, "compact")
    n = len(catalog.entries)
    assert rendered.listed + rendered.omitted == rendered.total == catalog.total
    if catalog.total == 0:
        assert (rendered.form, rendered.text) == ("empty", "")
        return
    if rendered.form in COMPACT_ORDER and rendered.listed == n:
        # The first of the fixed order that fits; every one before it does not.
        index = COMPACT_ORDER.index(rendered.form)
        assert rendered.text == compact_candidate(catalog, rendered.form)
        for earlier in COMPACT_ORDER[:index]:
            assert utf8_len(compact_candidate(catalog, earlier)) > budget
    else:  # no compact candidate fits: the prefix rule
        for form in COMPACT_ORDER:
            assert utf8_len(compact_candidate(catalog, form)) > budget
        assert rendered == reference_render(catalog, budget)
    prefix = render_catalog(catalog, budget)
    assert rendered.listed >= prefix.listed  # never lists fewer skills than the prefix rule


def compact(catalog: SkillCatalog, budget: int) -> RenderedCatalog:
    return render_catalog(catalog, budget, "compact")


@given(compact_catalogs(), budgets(max_budget=9_000))
def test_compact_fit_is_the_first_fitting_candidate(catalog: SkillCatalog, budget: int) -> None:
    assert_compact_fit(compact, catalog, budget)


@given(compact_catalogs(max_entries=6), st.data(), budget_near_candidates)
def test_compact_fit_is_exact_around_every_candidate_size(
    catalog: SkillCatalog, data: st.DataObject, delta: int
) -> None:
    size = data.draw(st.sampled_from(compact_sizes(catalog)))
    assert_compact_fit(compact, catalog, max(0, size + delta))


@given(skill_catalogs(), budgets())
def test_compact_fit_on_hostile_catalogs(catalog: SkillCatalog, budget: int) -> None:
    assert_compact_fit(compact, catalog, budget)


_CUT_LINE = re.compile(r"- ([a-z0-9]+): (.*) \(file: (.+)\)")
_NAMES_LINE = re.compile(r"- ([a-z0-9]+) \(file: (.+)\)")


@given(compact_catalogs(), budgets(max_budget=9_000))
def test_compact_lines_keep_the_frame_and_cut_at_the_cap(
    catalog: SkillCatalog, budget: int
) -> None:
    """Every value encoded (no field adds a line or a tag); a cut description shows at most
    ``cap`` code points and ends in the mark; the pointer line is always there."""
    rendered = compact(catalog, budget)
    if rendered.form not in render_module.COMPACT_FORMS:
        return
    text = rendered.text
    lines = text.splitlines()
    more = 1 if rendered.omitted else 0
    assert text.count("\n") == 3 + rendered.listed + more + 2
    inner = text.removeprefix("<skills_instructions>").removesuffix("</skills_instructions>\n")
    assert "<" not in inner
    assert ">" not in inner
    assert lines[-2].startswith(f"{rendered.total} skill")
    entries = catalog.entries
    for entry, line in zip(entries, lines[3 : 3 + rendered.listed], strict=True):
        if rendered.form == "names":
            assert _NAMES_LINE.fullmatch(line)
            assert line == f"- {entry.name} (file: {encode_value(entry.file)})"
            continue
        cap = int(rendered.form.removeprefix("cut-"))
        shown = entry.description if len(entry.description) <= cap else None
        if shown is None:
            shown = entry.description[: cap - 1] + "\u2026"
        assert len(shown) <= cap
        assert line == f"- {entry.name}: {encode_value(shown)} (file: {encode_value(entry.file)})"


def test_cut_description_examples() -> None:
    assert cut_description("abc", 3) == "abc"
    assert cut_description("abcd", 3) == "ab\u2026"
    assert cut_description("a😀bc", 3) == "a😀\u2026"  # a code point is never split
    assert cut_description("x" * 1024, 64) == "x" * 63 + "\u2026"


def test_compact_fit_on_the_order_of_candidates() -> None:
    """A hand-built catalog walked through every form, budget by budget."""
    entries = tuple(
        CatalogEntry(f"s{index:02d}", "word " * 60, f"/r/s{index:02d}/SKILL.md")
        for index in range(20)
    )
    catalog = SkillCatalog(entries, roots=("/r",))
    forms: list[str] = []
    for budget in range(0, 8_000, 25):
        rendered = compact(catalog, budget)
        verify_rendering(catalog, budget, rendered, "compact")
        if not forms or forms[-1] != rendered.form:
            forms.append(rendered.form)
    assert forms == [
        "empty",
        "minimal",
        "listing",  # the prefix rule: pointer only, then prefixes ...
        "names",
        "cut-64",
        "cut-100",
        "cut-160",
        "cut-256",
        "listing",  # every entry in full
    ]


def test_default_fit_is_the_prefix_rule() -> None:
    entries = tuple(CatalogEntry(f"s{i}", "d" * 300, f"/r/s{i}") for i in range(10))
    catalog = SkillCatalog(entries, roots=("/r",))
    for budget in (0, 40, 400, 2_000, 4_000):
        assert render_catalog(catalog, budget) == render_catalog(catalog, budget, "prefix")
        assert reference_render(catalog, budget) == reference_render(catalog, budget, "prefix")


@pytest.mark.parametrize("fit", ["", "Compact", "compact ", None, 1, b"compact"])
def test_an_unknown_fit_is_refused(fit: object) -> None:
    catalog = SkillCatalog((CatalogEntry("a", "d", "f"),))
    for call in (render_catalog, reference_render):
        assert _code_reason(call, catalog, 100, fit) == ("allowance_invalid", "fit")
    rendered = render_catalog(catalog, 100)
    assert _code_reason(verify_rendering, catalog, 100, rendered, fit) == (
        "allowance_invalid",
        "fit",
    )


def compact_tampered(rendered: RenderedCatalog) -> list[RenderedCatalog]:
    forms = ("listing", "minimal", "empty", *render_module.COMPACT_FORMS)
    changes = tampered(rendered) + [replace(rendered, form=form) for form in forms]
    if "\u2026" in rendered.text:  # a cut one code point longer or shorter
        changes.append(replace(rendered, text=rendered.text.replace("\u2026", "x\u2026", 1)))
        changes.append(replace(rendered, text=rendered.text.replace("\u2026", "...", 1)))
    return [change for change in changes if change != rendered]


@given(compact_catalogs(), budgets(max_budget=9_000))
def test_tampered_compact_renderings_are_refused(catalog: SkillCatalog, budget: int) -> None:
    rendered = compact(catalog, budget)
    verify_rendering(catalog, budget, rendered, "compact")
    for bad in compact_tampered(rendered):
        assert _code_reason(verify_rendering, catalog, budget, bad, "compact")[0] == (
            "rendering_not_certified"
        )


@given(compact_catalogs(), budgets(max_budget=9_000))
def test_a_compact_rendering_is_not_a_prefix_rendering(catalog: SkillCatalog, budget: int) -> None:
    """Certified for the fit it was made with: a cut form is refused as ``fit="prefix"``."""
    rendered = compact(catalog, budget)
    if rendered.form in render_module.COMPACT_FORMS:
        assert _code_reason(verify_rendering, catalog, budget, rendered)[0] == (
            "rendering_not_certified"
        )


def smallest_cap_first_render(catalog: SkillCatalog, budget: int) -> RenderedCatalog:
    """Broken: tries the ladder smallest cap first (always cuts more than needed)."""
    total = catalog.total
    n = len(catalog.entries)
    order = ("listing", *reversed(render_module.COMPACT_FORMS[:-1]), "names")
    for form in order:
        text = compact_candidate(catalog, form) if total else ""
        if total and utf8_len(text) <= budget:
            return RenderedCatalog(text, form, n, total - n, total, budget)
    return render_catalog(catalog, budget)


def unmarked_cut_render(catalog: SkillCatalog, budget: int) -> RenderedCatalog:
    """Broken: cuts descriptions to ``cap`` code points without the mark."""
    rendered = compact(catalog, budget)
    if rendered.form.startswith("cut-"):
        return replace(rendered, text=rendered.text.replace("\u2026", ""))
    return rendered


def dropped_more_line_render(catalog: SkillCatalog, budget: int) -> RenderedCatalog:
    """Broken: the compact forms leave out the "more not listed" line (the unlisted skills)."""
    rendered = compact(catalog, budget)
    if rendered.form in render_module.COMPACT_FORMS and rendered.omitted:
        lines = rendered.text.splitlines(keepends=True)
        return replace(rendered, text="".join(lines[:-3] + lines[-2:]))
    return rendered


def monotone_cap_render(catalog: SkillCatalog, budget: int) -> RenderedCatalog:
    """Broken: bisects the ladder as if size fell with the cap (a cut can grow a line)."""
    total = catalog.total
    n = len(catalog.entries)
    if total == 0:
        return render_catalog(catalog, budget)
    forms = list(COMPACT_ORDER)
    if utf8_len(compact_candidate(catalog, forms[0])) <= budget:
        return RenderedCatalog(
            compact_candidate(catalog, forms[0]), forms[0], n, total - n, total, budget
        )
    low, high = 1, len(forms) - 1
    if utf8_len(compact_candidate(catalog, forms[high])) > budget:
        return render_catalog(catalog, budget)
    while low < high:
        middle = (low + high) // 2
        if utf8_len(compact_candidate(catalog, forms[middle])) <= budget:
            high = middle
        else:
            low = middle + 1
    text = compact_candidate(catalog, forms[low])
    return RenderedCatalog(text, forms[low], n, total - n, total, budget)


@pytest.mark.parametrize(
    "broken",
    [smallest_cap_first_render, unmarked_cut_render, dropped_more_line_render],
)
def test_negative_control_broken_compact_renderers_fail_the_oracle(broken: Renderer) -> None:
    @control_settings
    @given(compact_catalogs(max_entries=6), st.data(), budget_near_candidates)
    def oracle(catalog: SkillCatalog, data: st.DataObject, delta: int) -> None:
        size = data.draw(st.sampled_from(compact_sizes(catalog)))
        assert_compact_fit(broken, catalog, max(0, size + delta))

    property_fails(oracle, (AssertionError, DefinitionError))


def test_compact_size_is_not_monotone_in_the_cap() -> None:
    """A description one code point over a cap grows by the mark's two extra bytes: with
    enough of them a smaller cap makes a larger candidate, so the ladder is walked in order
    and a bisection over it (``monotone_cap_render``) is wrong."""
    entries = [CatalogEntry("a000", "x" * 600, "/s/a000/SKILL.md")]
    entries += [CatalogEntry(f"b{i:03d}", "y" * 257, f"/s/b{i:03d}/SKILL.md") for i in range(400)]
    catalog = SkillCatalog(tuple(entries), roots=("/s",))
    sizes = {form: utf8_len(compact_candidate(catalog, form)) for form in COMPACT_ORDER}
    assert sizes["cut-512"] < sizes["listing"]
    assert sizes["cut-256"] > sizes["cut-512"]  # 400 lines one byte longer, one 256 shorter
    budget = sizes["cut-512"]
    right = compact(catalog, budget)
    assert right.form == "cut-512"
    verify_rendering(catalog, budget, right, "compact")
    wrong = monotone_cap_render(catalog, budget)
    assert wrong.form != "cut-512"
    assert _code_reason(verify_rendering, catalog, budget, wrong, "compact")[0] == (
        "rendering_not_certified"
    )


def test_compact_rendering_builds_no_candidate_per_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Linear in bytes: encoding work is bounded by the ladder's length times the catalog's
    characters, whatever the budget (counted, not timed)."""
    encoded: list[int] = []
    real = encode_value

    def counting(value: str) -> str:
        encoded.append(len(value))
        return real(value)

    monkeypatch.setattr(render_module, "encode_value", counting)
    for n in (64, 256, 1_024):
        entries = tuple(
            CatalogEntry(f"s{index:05d}", "word " * 80, f"/r/s{index:05d}/SKILL.md")
            for index in range(n)
        )
        catalog = SkillCatalog(entries, roots=("/r",))
        size = sum(len(f"{e.name}: {e.description} (file: {e.file})") for e in entries)
        for budget in (10**9, 50 * n, 40 * n, 300):
            encoded.clear()
            object.__setattr__(catalog, "_render_plan", None)
            compact(catalog, budget)
            assert sum(encoded) <= (len(CAPS) + 2) * size + 1_000, (n, budget)


@pytest.mark.parametrize("form", ["nope", "cut-7", "", 5, None, LyingStr("nope")])
def test_a_compact_candidate_that_is_not_one_is_refused_with_reason_form(form: object) -> None:
    catalog = SkillCatalog((CatalogEntry("a", "d", "f"),), 0, ("/r",))
    with pytest.raises(DefinitionError) as raised:
        compact_candidate(catalog, form)  # type: ignore[arg-type]
    assert (raised.value.code, raised.value.reason) == ("catalog_invalid", "form")
    # Negative control: every named candidate is built, a str subclass's name as its
    # plain characters (none of its methods deciding).
    assert all(compact_candidate(catalog, name) for name in COMPACT_ORDER)
    assert compact_candidate(catalog, LyingStr("names")) == compact_candidate(catalog, "names")


@pytest.mark.parametrize(
    ("description", "cap"),
    [(5, 10), (None, 3), ("abc", 0), ("abc", -1), ("abc", 1.5), ("abc", "3")],
)
def test_cut_description_refuses_what_is_not_a_str_and_a_cap_of_at_least_one(
    description: object, cap: object
) -> None:
    with pytest.raises(DefinitionError) as raised:
        cut_description(description, cap)  # type: ignore[arg-type]
    assert (raised.value.code, raised.value.reason) == ("catalog_invalid", "description")


def test_a_cap_of_one_leaves_only_the_mark_or_a_single_character() -> None:
    assert cut_description("ab", 1) == render_module.CUT_MARK
    assert cut_description("a", 1) == "a"
    assert cut_description("abc", 2) == "a" + render_module.CUT_MARK


def test_a_forged_rendering_missing_its_fields_is_refused() -> None:
    catalog = SkillCatalog((CatalogEntry("a", "d", "f"),), 0, ("/r",))
    rendered = render_catalog(catalog, 1_000)
    empty = object.__new__(RenderedCatalog)
    with pytest.raises(DefinitionError) as raised:
        verify_rendering(catalog, 1_000, empty)
    assert raised.value.code == "rendering_not_certified"
    verify_rendering(catalog, 1_000, rendered)  # negative control
