"""Rendering by a token counter (docs/contract.md §9)."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import cast

import pytest
from hypothesis import given
from hypothesis import strategies as st

from a13n_harness import DefinitionError
from a13n_harness.context import tokens as tokens_module
from a13n_harness.context.catalog import CatalogEntry, SkillCatalog
from a13n_harness.context.render import (
    COMPACT_FORMS,
    DESCRIPTION_CAPS,
    RenderedCatalog,
    _compact_line_builders,
    compact_candidate,
    framed_candidate,
    minimal_candidate,
    render_catalog,
)
from a13n_harness.context.tokens import (
    CodePointCounter,
    CountedRendering,
    TokenCounter,
    Utf8ByteCounter,
    render_catalog_counted,
    verify_rendering_counted,
)
from a13n_harness.testing.controls import control_settings, property_fails
from a13n_harness.testing.counters import check_line_additive
from a13n_harness.testing.strategies import budgets, hostile_text, skill_catalogs

SHIPPED: list[TokenCounter] = [Utf8ByteCounter(), CodePointCounter()]


@dataclass
class WordCounter:
    """Whitespace-separated words: prefix-monotone, not byte-bounded by declaration.

    ``limit`` fails the test at the first count past it, so a renderer that
    counts too often is caught at once rather than after a linear walk.
    """

    prefix_monotone: bool = True
    calls: list[int] = field(default_factory=list)
    limit: int | None = None

    def count(self, text: str) -> int:
        self.calls.append(len(text))
        assert self.limit is None or len(self.calls) <= self.limit, "too many counts"
        return len(text.split())


@dataclass(frozen=True)
class ModularCounter:
    """A counter with no monotonicity at all: the linear search must still be exact."""

    def count(self, text: str) -> int:
        return (len(text) * 7919) % 611


@given(skill_catalogs(), budgets())
def test_byte_counter_renders_exactly_like_the_byte_renderer(
    catalog: SkillCatalog, budget: int
) -> None:
    """With one token per UTF-8 byte, the counted rendering is the section 4 rendering."""
    counted = render_catalog_counted(catalog, budget, Utf8ByteCounter())
    plain = render_catalog(catalog, budget)
    assert (counted.text, counted.form, counted.listed, counted.omitted, counted.total) == (
        plain.text,
        plain.form,
        plain.listed,
        plain.omitted,
        plain.total,
    )
    verify_rendering_counted(catalog, budget, counted, Utf8ByteCounter())


@given(
    skill_catalogs(max_entries=8),
    st.integers(0, 700),
    st.sampled_from([WordCounter, ModularCounter, CodePointCounter]),
)
def test_counted_rendering_is_certified_for_any_counter(
    catalog: SkillCatalog, budget: int, make: type
) -> None:
    """Any counter, monotone or not: the result fits and is what the linear rule gives."""
    counter = make()
    rendered = render_catalog_counted(catalog, budget, counter)
    assert rendered.tokens <= budget
    assert rendered.tokens == (counter.count(rendered.text) if rendered.text else 0)
    verify_rendering_counted(catalog, budget, rendered, counter)


@given(skill_catalogs(max_entries=10, tiny=True), st.integers(0, 400))
def test_monotone_search_is_exact_where_size_is_not_monotone(
    catalog: SkillCatalog, budget: int
) -> None:
    """The bisection bounds only; the walk keeps the non-monotone tail exact."""
    rendered = render_catalog_counted(catalog, budget, Utf8ByteCounter())
    assert rendered.text == render_catalog(catalog, budget).text


def test_prefix_monotone_counters_use_logarithmic_counts() -> None:
    """4,096 entries: a prefix-monotone counter is asked O(log n) times, not n."""
    entries = tuple(CatalogEntry(f"s{index:05d}", "word " * 5, "f") for index in range(4096))
    catalog = SkillCatalog(entries, 10, ("/r",))
    bound = 2 * math.ceil(math.log2(4097)) + 8
    for budget in (0, 500, 20_000, 60_000, 10**6):
        counter = WordCounter(limit=bound)
        rendered = render_catalog_counted(catalog, budget, counter)
        assert len(counter.calls) <= bound, len(counter.calls)
        assert rendered.tokens <= budget
    small = SkillCatalog(entries[:150], 10, ("/r",))
    for budget in range(0, 1200, 37):
        rendered = render_catalog_counted(small, budget, WordCounter())
        verify_rendering_counted(small, budget, rendered, WordCounter())


@pytest.mark.parametrize("counter", SHIPPED, ids=lambda c: type(c).__name__)
def test_shipped_counters_declare_byte_bounded_truthfully(counter: TokenCounter) -> None:
    """BYTE_BOUNDED as a declared property: count(text) <= UTF-8 bytes, for each shipped counter."""
    assert getattr(counter, "byte_bounded", False) is True
    byte_bound_holds(counter)


@pytest.mark.parametrize("counter", SHIPPED, ids=lambda c: type(c).__name__)
def test_shipped_counters_declare_prefix_monotone_truthfully(counter: TokenCounter) -> None:
    assert getattr(counter, "prefix_monotone", False) is True
    prefix_monotone_holds(counter)


def byte_bound_holds(counter: TokenCounter) -> None:
    @control_settings
    @given(hostile_text(surrogates=False, max_size=200) | st.text())
    def check(text: str) -> None:
        assert counter.count(text) <= len(text.encode("utf-8"))

    check()


def prefix_monotone_holds(counter: TokenCounter) -> None:
    # Catalog-shaped text (lines, words, markers) as well as any text: a counter's
    # quirks are at line and word boundaries, which arbitrary text rarely draws.
    texts = st.text(alphabet=" \n-:ab") | st.text()

    @control_settings
    @given(texts, texts)
    def check(a: str, b: str) -> None:
        assert counter.count(a) <= counter.count(a + b)

    check()


@dataclass(frozen=True)
class ExpandingCounter:
    """Broken: declares byte_bounded but counts two tokens per byte."""

    byte_bounded: bool = True

    def count(self, text: str) -> int:
        return 2 * len(text.encode("utf-8"))


@dataclass(frozen=True)
class SuffixCounter:
    """Broken: declares prefix_monotone but counts only the last line."""

    prefix_monotone: bool = True

    def count(self, text: str) -> int:
        return len(text.rstrip("\n").rsplit("\n", 1)[-1])


@pytest.mark.parametrize("counter", SHIPPED, ids=lambda c: type(c).__name__)
def test_shipped_counters_declare_line_additive_truthfully(counter: TokenCounter) -> None:
    assert getattr(counter, "line_additive", False) is True
    check_line_additive(counter)


@dataclass(frozen=True)
class PairCounter:
    """Broken: one token per two characters across line ends, declared line-additive."""

    line_additive: bool = True

    def count(self, text: str) -> int:
        return (len(text) + 1) // 2


def test_negative_control_false_line_additive_declaration_is_caught() -> None:
    property_fails(lambda: check_line_additive(PairCounter(), control=True))


@dataclass(frozen=True)
class LongTextCounter:
    """Broken: one token per line, plus 5 for any text of 4 lines or more; declared line-additive.

    Every piece the renderer and the verifier count line by line (header, entry
    lines, more line, pointer and footer) has at most 3 lines, so their sums
    agree; only counting the whole rendered text shows the declaration is false.
    """

    line_additive: bool = True

    def count(self, text: str) -> int:
        lines = text.count("\n")
        return lines + (5 if lines >= 4 else 0)


def test_a_false_line_additive_declaration_is_caught_by_the_verifier() -> None:
    """The verifier counts the claimed text whole: a sum that is not the count is refused."""
    catalog = SkillCatalog(tuple(CatalogEntry(n, "dd", "f") for n in "abc"), 0, ("/r",))
    rendered = render_catalog_counted(catalog, 10**6, LongTextCounter())
    assert (rendered.tokens, LongTextCounter().count(rendered.text)) == (8, 13)
    with pytest.raises(DefinitionError) as caught:
        verify_rendering_counted(catalog, 10**6, rendered, LongTextCounter())
    assert caught.value.code == "rendering_not_certified"
    assert "line_additive" in caught.value.message


def test_negative_control_false_byte_bound_declaration_is_caught() -> None:
    property_fails(lambda: byte_bound_holds(ExpandingCounter()))


def test_negative_control_false_monotone_declaration_is_caught() -> None:
    property_fails(lambda: prefix_monotone_holds(SuffixCounter()))


def test_tampered_counted_renderings_are_refused() -> None:
    catalog = SkillCatalog(tuple(CatalogEntry(n, "d", "f") for n in "abc"), 2, ("/r",))
    rendered = render_catalog_counted(catalog, 300, Utf8ByteCounter())
    for bad in (
        replace(rendered, listed=rendered.listed + 1),
        replace(rendered, text=rendered.text + " "),
        replace(rendered, tokens=rendered.tokens - 1),
        replace(rendered, form="minimal"),
    ):
        with pytest.raises(DefinitionError) as caught:
            verify_rendering_counted(catalog, 300, bad, Utf8ByteCounter())
        assert caught.value.code == "rendering_not_certified"


@pytest.mark.parametrize("tokens", [-1, 1.5, True, None])
def test_a_counter_returning_garbage_is_refused(tokens: object) -> None:
    class Garbage:
        def count(self, text: str) -> object:
            return tokens

    catalog = SkillCatalog((CatalogEntry("a", "d", "f"),))
    with pytest.raises(DefinitionError) as caught:
        render_catalog_counted(catalog, 100, Garbage())  # type: ignore[arg-type]
    assert (caught.value.code, caught.value.reason) == ("allowance_invalid", "counter")


def test_empty_catalog_and_bad_budget() -> None:
    assert render_catalog_counted(SkillCatalog(()), 5, Utf8ByteCounter()) == CountedRendering(
        "", "empty", 0, 0, 0, 5, 0
    )
    with pytest.raises(DefinitionError) as caught:
        render_catalog_counted(SkillCatalog(()), -1, Utf8ByteCounter())
    assert caught.value.code == "allowance_invalid"


# ------------------------------------------------------------------ linear in bytes


@dataclass
class MeteredCounter:
    """Counts UTF-8 bytes and meters how many characters it was asked to count."""

    prefix_monotone: bool = False
    line_additive: bool = True
    byte_bounded: bool = True
    counted: int = 0

    def count(self, text: str) -> int:
        self.counted += len(text)
        return len(text.encode("utf-8"))


@dataclass
class LineModCounter:
    """Line-additive but not prefix-monotone: each line counts its length modulo 7, plus one.

    ``count("abcdef") == 7 > count("abcdefg") == 1``. Meters characters counted.
    """

    line_additive: bool = True
    counted: int = 0

    def count(self, text: str) -> int:
        self.counted += len(text)
        return sum(len(line) % 7 + 1 for line in text.splitlines(keepends=True) if line)


def _big_catalog(count: int) -> SkillCatalog:
    entries = tuple(
        CatalogEntry(f"s{index:05d}", "Review a change for risk. " * 3, f"r/s{index:05d}/SKILL.md")
        for index in range(count)
    )
    return SkillCatalog(entries, 3, ("r",))


@pytest.mark.parametrize("make", [MeteredCounter, LineModCounter])
def test_counted_rendering_and_verification_read_each_byte_a_bounded_number_of_times(
    make: type,
) -> None:
    """Neither rendering nor certifying rebuilds every candidate.

    A line-additive counter is asked about each catalog character a bounded number
    of times (at most 4), at every budget, however many entries there are; the
    rebuild-every-candidate walk asks about ~n/2 times the catalog's size.
    """
    catalog = _big_catalog(2_000)
    size = len(framed_candidate(catalog, len(catalog.entries)))
    for budget in (0, 40, 700, size // 3, size // 2, size - 50, size + 10**6):
        counter = make()
        rendered = render_catalog_counted(catalog, budget, counter)
        assert counter.counted <= 4 * size + 1_000, ("render", budget, counter.counted / size)
        counter.counted = 0
        verify_rendering_counted(catalog, budget, rendered, counter)
        assert counter.counted <= 4 * size + 1_000, ("verify", budget, counter.counted / size)


@pytest.mark.parametrize("counter", [5, None, "cl100k_base", b"x", object()])
def test_something_that_is_not_a_counter_is_refused(counter: object) -> None:
    catalog = SkillCatalog((CatalogEntry("a", "d", "f"),))
    rendered = render_catalog_counted(catalog, 100, Utf8ByteCounter())
    for call in (
        lambda: render_catalog_counted(catalog, 100, counter),  # type: ignore[arg-type]
        lambda: verify_rendering_counted(catalog, 100, rendered, counter),  # type: ignore[arg-type]
    ):
        with pytest.raises(DefinitionError) as caught:
            call()
        assert (caught.value.code, caught.value.reason) == ("allowance_invalid", "counter")


def test_a_failing_counter_and_bad_arguments_raise_only_definition_errors() -> None:
    """contract §0: a host counter that raises, a non-str text, a non-catalog: DefinitionError."""

    class Failing:
        def count(self, text: str) -> int:
            raise ValueError("tokenizer broke")

    catalog = SkillCatalog((CatalogEntry("a", "d", "f"),))
    with pytest.raises(DefinitionError) as caught:
        render_catalog_counted(catalog, 100, Failing())
    assert (caught.value.code, caught.value.reason) == ("allowance_invalid", "counter")
    for counter in SHIPPED:
        with pytest.raises(DefinitionError) as caught:
            counter.count(5)  # type: ignore[arg-type]
        assert (caught.value.code, caught.value.reason) == ("allowance_invalid", "text")
    with pytest.raises(DefinitionError) as caught:
        render_catalog_counted("catalog", 100, Utf8ByteCounter())  # type: ignore[arg-type]
    assert (caught.value.code, caught.value.reason) == ("catalog_invalid", "type")


def _plain_rule(catalog: SkillCatalog, budget: int, counter: TokenCounter) -> tuple[str, int]:
    """The rule as it reads: the first candidate, in order, whose whole count fits."""
    if catalog.total == 0:
        return "", 0
    for listed in range(len(catalog.entries), -1, -1):
        text = framed_candidate(catalog, listed)
        if counter.count(text) <= budget:
            return text, counter.count(text)
    minimal = minimal_candidate(catalog)
    tokens = counter.count(minimal)
    return (minimal, tokens) if tokens <= budget else ("", 0)


@dataclass(frozen=True)
class QuarterLineCounter:
    """Line-additive, not declared prefix-monotone: ceil(UTF-8 bytes / 4) per line."""

    line_additive: bool = True

    def count(self, text: str) -> int:
        return sum(-(-len(line.encode()) // 4) for line in text.splitlines(keepends=True))


@given(
    skill_catalogs(max_entries=8),
    st.one_of(st.integers(0, 80), st.integers(0, 400)),
    st.sampled_from([LineModCounter, QuarterLineCounter]),
)
def test_line_sums_give_the_plain_rule(catalog: SkillCatalog, budget: int, make: type) -> None:
    """Counted line by line (line_additive, not prefix-monotone): the rule's exact answer."""
    counter = make()
    rendered = render_catalog_counted(catalog, budget, counter)
    assert (rendered.text, rendered.tokens) == _plain_rule(catalog, budget, counter)
    verify_rendering_counted(catalog, budget, rendered, counter)


@dataclass(frozen=True)
class XCounter:
    """Line-additive: counts the letter x only, so most lines count 0 tokens."""

    line_additive: bool = True

    def count(self, text: str) -> int:
        return text.count("x")


def test_lines_of_zero_tokens_still_fit_a_budget_already_reached() -> None:
    """Counting goes on while the running sum equals the budget (a 0-token line still fits)."""
    entries = (
        CatalogEntry("a", "d", "f"),
        CatalogEntry("b", "d", "f"),
        CatalogEntry("c", "x", "f"),
    )
    catalog = SkillCatalog(entries, 0, ("/r",))
    rendered = render_catalog_counted(catalog, 0, XCounter())
    assert (rendered.listed, rendered.tokens) == (2, 0)
    verify_rendering_counted(catalog, 0, rendered, XCounter())


@pytest.mark.parametrize(
    "make", [QuarterLineCounter, LineModCounter, ModularCounter, WordCounter, XCounter]
)
def test_a_candidate_that_fits_exactly_is_chosen(make: type) -> None:
    """``<=``, not ``<``: a budget equal to the full listing's count lists everything."""
    catalog = SkillCatalog(tuple(CatalogEntry(n, f"do {n}x", "f") for n in "abcd"), 0, ("/r",))
    exact = make().count(framed_candidate(catalog, 4))
    rendered = render_catalog_counted(catalog, exact, make())
    assert (rendered.listed, rendered.tokens) == (4, exact)
    verify_rendering_counted(catalog, exact, rendered, make())


def _code_reason(call: object, *args: object) -> tuple[str, str | None]:
    assert callable(call)
    with pytest.raises(DefinitionError) as caught:
        call(*args)
    return caught.value.code, caught.value.reason


def test_counted_minimal_form_fits_at_exactly_the_budget() -> None:
    """§9: as in section 4, a candidate fits when its count is ``<=`` the budget; the counted
    verifier certifies the minimal form at exactly its count."""
    catalog = SkillCatalog((), unlisted=2, roots=("r",))
    counter = Utf8ByteCounter()
    budget = counter.count(minimal_candidate(catalog))
    rendered = render_catalog_counted(catalog, budget, counter)
    assert (rendered.form, rendered.text, rendered.tokens) == (
        "minimal",
        "r/ has 2 skills\n",
        budget,
    )
    verify_rendering_counted(catalog, budget, rendered, counter)


@pytest.mark.parametrize(
    "claimed", ["r/ has 2 skills\n", None, RenderedCatalog("", "empty", 0, 2, 2, 0)]
)
def test_counted_verifier_refuses_what_is_not_a_counted_rendering(claimed: object) -> None:
    """§9: the counted ``verify_rendering`` variant refuses anything but a ``CountedRendering``
    with ``rendering_not_certified`` (never another exception type)."""
    catalog = SkillCatalog((), unlisted=2, roots=("r",))
    code, _ = _code_reason(verify_rendering_counted, catalog, 0, claimed, Utf8ByteCounter())
    assert code == "rendering_not_certified"


class _ZeroCounter:
    """Counts every text as zero tokens: a legal (if useless) count."""

    def count(self, text: str) -> int:
        return 0


def test_a_counter_may_return_zero() -> None:
    """contract §9: a count is a non-negative int, so 0 is accepted and everything fits."""
    catalog = SkillCatalog((CatalogEntry("a", "d", "f"),), unlisted=1)
    rendered = render_catalog_counted(catalog, 0, _ZeroCounter())
    assert (rendered.form, rendered.listed, rendered.tokens) == ("listing", 1, 0)


@pytest.mark.parametrize("budget", [-1, True, 1.5, None])
def test_counted_renderer_refuses_a_bad_budget_with_reason_budget(budget: object) -> None:
    """contract §9: a budget that is not a non-negative int is ``allowance_invalid`` with reason
    ``budget`` (``counter`` is kept for a counter that misbehaves), from the renderer and the
    verifier alike."""
    catalog = SkillCatalog((CatalogEntry("a", "d", "f"),))
    counter = Utf8ByteCounter()
    assert _code_reason(render_catalog_counted, catalog, budget, counter) == (
        "allowance_invalid",
        "budget",
    )
    rendered = render_catalog_counted(catalog, 100, counter)
    assert _code_reason(verify_rendering_counted, catalog, budget, rendered, counter) == (
        "allowance_invalid",
        "budget",
    )
    # Not a contract (message wording may change), a diagnostic: the message names the
    # argument the caller passed, budget_tokens, not the byte renderer's budget_bytes.
    with pytest.raises(DefinitionError) as caught:
        render_catalog_counted(catalog, budget, counter)  # type: ignore[arg-type]
    assert re.match(r"budget_tokens\b", caught.value.message), caught.value.message
    with pytest.raises(DefinitionError) as caught:
        verify_rendering_counted(catalog, budget, rendered, counter)  # type: ignore[arg-type]
    assert re.match(r"budget_tokens\b", caught.value.message), caught.value.message


class _EntryLineCounter:
    """One token per listed entry line and none for the framing: prefix-monotone, and a
    candidate costs exactly what its header and entry lines cost."""

    prefix_monotone = True

    def count(self, text: str) -> int:
        return text.count("\n- ")


def _sweep_catalogs() -> list[SkillCatalog]:
    def entries(n: int, width: int) -> tuple[CatalogEntry, ...]:
        return tuple(
            CatalogEntry(f"s{i:02d}", "w " * (1 + (i * width) % 7), f"/r/s{i:02d}/SKILL.md")
            for i in range(n)
        )

    return [
        SkillCatalog(entries(n, width), unlisted, ("/r",))
        for n, width, unlisted in [(1, 1, 0), (3, 2, 0), (4, 3, 2), (7, 5, 0), (30, 1, 1)]
    ]


@pytest.mark.parametrize(
    "counter",
    [Utf8ByteCounter(), CodePointCounter(), _EntryLineCounter()],
    ids=lambda counter: type(counter).__name__,
)
def test_counted_renderer_is_certified_at_every_budget(counter: TokenCounter) -> None:
    """contract §9: at every budget from 0 to one past the full listing, the prefix-monotone search
    returns exactly what the linear rule gives: the bisection's bounds (a header that fits when
    no entry line does, a prefix costing exactly the budget, 30 entries whose separators would
    add up) never cost a candidate."""
    for catalog in _sweep_catalogs():
        top = counter.count(framed_candidate(catalog, len(catalog.entries)))
        for budget in range(top + 2):
            rendered = render_catalog_counted(catalog, budget, counter)
            verify_rendering_counted(catalog, budget, rendered, counter)
    three = _sweep_catalogs()[1]
    rendered = render_catalog_counted(three, 0, _EntryLineCounter())
    assert (rendered.form, rendered.listed) == ("listing", 0)
    rendered = render_catalog_counted(three, 2, _EntryLineCounter())
    assert (rendered.form, rendered.listed) == ("listing", 2)


# ------------------------------------------------------------------ edges of the candidate order
# Candidates exist for 0 <= listed <= n only, whatever the counter says about a text no rule
# builds; the budget a rendering was made for is kept in every form.


@pytest.mark.parametrize("counter", SHIPPED, ids=type)
def test_every_counted_form_keeps_its_budget(counter: TokenCounter) -> None:
    """``budget_tokens`` of a listing, a minimal and an empty rendering is the budget asked."""
    catalog = SkillCatalog((CatalogEntry("a", "d", "f"),), 1)
    minimal = counter.count(minimal_candidate(catalog))
    for budget in (10_000, minimal, minimal - 1, 0):
        rendered = render_catalog_counted(catalog, budget, counter)
        assert rendered.budget_tokens == budget
        verify_rendering_counted(catalog, budget, rendered, counter)
    forms = [render_catalog_counted(catalog, b, counter).form for b in (10_000, minimal, 0)]
    assert forms == ["listing", "minimal", "empty"]


@pytest.mark.parametrize("counter", [*SHIPPED, WordCounter()], ids=type)
def test_a_catalog_of_unlisted_skills_only_lists_none(counter: TokenCounter) -> None:
    """No entries and ``unlisted > 0``: the only framed candidate lists 0 (a prefix-monotone
    counter's bisection starts below it), so a roomy budget gives the listing of 0."""
    catalog = SkillCatalog((), 3)
    rendered = render_catalog_counted(catalog, 10_000, counter)
    assert (rendered.form, rendered.listed, rendered.omitted) == ("listing", 0, 3)
    assert rendered.text == framed_candidate(catalog, 0)
    verify_rendering_counted(catalog, 10_000, rendered, counter)


class _ElevenCounter:
    """Declares nothing; counts a text free when it says "11 more skills", dear otherwise:
    the text of a candidate listing -1 entries of a catalog of 10 unlisted skills."""

    def count(self, text: str) -> int:
        return 0 if "11 more skills" in text else 10**6


class _TenMoreLineCounter:
    """Line-additive (a sum over lines): 100 for a line saying "10 more", 1 for any other."""

    line_additive = True

    def count(self, text: str) -> int:
        lines = text.splitlines(keepends=True)
        return sum(100 if line.startswith("10 more") else 1 for line in lines)


def test_no_candidate_lists_fewer_than_zero_entries() -> None:
    """The walk down the candidates stops at listing 0, even when a counter would let the
    text of a "listing -1" through: the renderer (whole counts) and the verifier (line sums)."""
    catalog = SkillCatalog((), 10)
    rendered = render_catalog_counted(catalog, 5, _ElevenCounter())
    assert (rendered.form, rendered.listed) == ("empty", 0)
    verify_rendering_counted(catalog, 5, rendered, _ElevenCounter())
    counter = _TenMoreLineCounter()
    check_line_additive(counter)
    budget = counter.count(framed_candidate(catalog, 0)) - 100 + 1
    rendered = render_catalog_counted(catalog, budget, counter)
    assert (rendered.form, rendered.listed) == ("minimal", 0)
    verify_rendering_counted(catalog, budget, rendered, counter)


# ------------------------------------------------------------------- the compact fit, counted

COMPACT_ORDER = ("listing", *COMPACT_FORMS)


def _plain_compact_rule(
    catalog: SkillCatalog, budget: int, counter: TokenCounter
) -> tuple[str, str, int]:
    """The compact rule as it reads: every candidate counted whole, in order."""
    if catalog.total == 0:
        return "", "empty", 0
    for form in COMPACT_ORDER:
        text = compact_candidate(catalog, form)
        tokens = counter.count(text)
        if tokens <= budget:
            return text, form, tokens
    text, tokens = _plain_rule(catalog, budget, counter)
    form = "listing" if text.startswith("<") else ("minimal" if text else "empty")
    return text, form, tokens


_LONG_NAMES = st.lists(st.sampled_from("abcdefgh"), max_size=6)
_LONG_LENGTHS = st.sampled_from(
    [cap + d for cap in DESCRIPTION_CAPS for d in (-1, 0, 1, 2)]
) | st.integers(1, 700)
_LONG_UNITS = st.sampled_from(["ab ", "é", "😀x", "&<", "word "])
_LONG_UNLISTED = st.sampled_from([0, 0, 3])


@st.composite
def _long_catalogs(draw: st.DrawFn) -> SkillCatalog:
    # The strategies above are built once: one built inside the composite is checked again
    # at every draw.
    names = sorted(set(draw(_LONG_NAMES)))
    entries = []
    for name in names:
        length = draw(_LONG_LENGTHS)
        unit = draw(_LONG_UNITS)
        entries.append(CatalogEntry(name, (unit * length)[:length], f"/r/{name}/SKILL.md"))
    return SkillCatalog(tuple(entries), draw(_LONG_UNLISTED), ("/r",))


@given(
    _long_catalogs() | skill_catalogs(max_entries=6),
    st.integers(0, 5_000),
    st.sampled_from([Utf8ByteCounter, CodePointCounter, QuarterLineCounter, LineModCounter]),
)
def test_compact_counted_is_the_plain_compact_rule(
    catalog: SkillCatalog, budget: int, make: type
) -> None:
    counter = make()
    rendered = render_catalog_counted(catalog, budget, counter, "compact")
    assert (rendered.text, rendered.form, rendered.tokens) == _plain_compact_rule(
        catalog, budget, counter
    )
    verify_rendering_counted(catalog, budget, rendered, counter, "compact")


@given(_long_catalogs() | skill_catalogs(max_entries=6), st.integers(0, 5_000))
def test_compact_counted_with_bytes_is_the_byte_compact_fit(
    catalog: SkillCatalog, budget: int
) -> None:
    counted = render_catalog_counted(catalog, budget, Utf8ByteCounter(), "compact")
    plain = render_catalog(catalog, budget, "compact")
    assert (counted.text, counted.form, counted.listed, counted.omitted, counted.total) == (
        plain.text,
        plain.form,
        plain.listed,
        plain.omitted,
        plain.total,
    )


@given(_long_catalogs(), st.integers(0, 5_000))
def test_compact_counted_with_a_counter_declaring_nothing(
    catalog: SkillCatalog, budget: int
) -> None:
    counter = ModularCounter()
    rendered = render_catalog_counted(catalog, budget, counter, "compact")
    assert (rendered.text, rendered.form, rendered.tokens) == _plain_compact_rule(
        catalog, budget, counter
    )
    verify_rendering_counted(catalog, budget, rendered, counter, "compact")


@given(_long_catalogs(), st.integers(0, 5_000))
def test_tampered_compact_counted_renderings_are_refused(
    catalog: SkillCatalog, budget: int
) -> None:
    counter = QuarterLineCounter()
    rendered = render_catalog_counted(catalog, budget, counter, "compact")
    changes = [
        replace(rendered, text=rendered.text + "x"),
        replace(rendered, tokens=rendered.tokens + 1),
        replace(rendered, listed=rendered.listed - 1),
        *(replace(rendered, form=form) for form in (*COMPACT_ORDER, "minimal", "empty")),
    ]
    if "\u2026" in rendered.text:
        changes.append(replace(rendered, text=rendered.text.replace("\u2026", "x\u2026", 1)))
    for bad in changes:
        if bad == rendered:
            continue
        with pytest.raises(DefinitionError) as caught:
            verify_rendering_counted(catalog, budget, bad, counter, "compact")
        assert caught.value.code == "rendering_not_certified"
    if rendered.form in COMPACT_FORMS:  # certified for its own fit only
        with pytest.raises(DefinitionError):
            verify_rendering_counted(catalog, budget, rendered, counter)


def test_a_false_line_additive_declaration_is_caught_in_a_compact_rendering() -> None:
    catalog = SkillCatalog(tuple(CatalogEntry(n, "d" * 300, "f") for n in "abc"), 0, ("/r",))
    counter = LongTextCounter()
    rendered = render_catalog_counted(catalog, 10**6, counter, "compact")
    assert rendered.form == "listing"
    with pytest.raises(DefinitionError) as caught:
        verify_rendering_counted(catalog, 10**6, rendered, counter, "compact")
    assert "line_additive" in caught.value.message


@pytest.mark.parametrize("fit", ["", "COMPACT", None, 0])
def test_counted_renderers_refuse_an_unknown_fit(fit: object) -> None:
    catalog = SkillCatalog((CatalogEntry("a", "d", "f"),))
    rendered = render_catalog_counted(catalog, 100, Utf8ByteCounter())
    for call, args in (
        (render_catalog_counted, (catalog, 100, Utf8ByteCounter(), fit)),
        (verify_rendering_counted, (catalog, 100, rendered, Utf8ByteCounter(), fit)),
    ):
        with pytest.raises(DefinitionError) as caught:
            call(*args)
        assert (caught.value.code, caught.value.reason) == ("allowance_invalid", "fit")


@pytest.mark.parametrize("make", [MeteredCounter, LineModCounter])
def test_compact_counted_reads_each_byte_a_bounded_number_of_times(make: type) -> None:
    """Linear: each compact candidate is counted line by line at most once, stopping at the
    first line past the budget; the ladder's length bounds the rest (counted, not timed)."""
    entries = tuple(
        CatalogEntry(f"s{index:05d}", "Review a change for risk. " * 12, f"r/s{index:05d}/SKILL.md")
        for index in range(1_000)
    )
    catalog = SkillCatalog(entries, 3, ("r",))
    size = len(compact_candidate(catalog, "listing"))
    ladder = len(COMPACT_ORDER)
    for budget in (0, 700, size // 20, size // 8, size // 3, size - 50, size + 10**6):
        counter = make()
        rendered = render_catalog_counted(catalog, budget, counter, "compact")
        assert counter.counted <= (ladder + 4) * size + 1_000, ("render", budget)
        counter.counted = 0
        verify_rendering_counted(catalog, budget, rendered, counter, "compact")
        assert counter.counted <= (ladder + 4) * size + 1_000, ("verify", budget)


def _marked(mark: str, line_of: Callable[[int], str]) -> Callable[[int], str]:
    """A compact candidate's line builder with ``mark`` before each line (a format change)."""

    def line(index: int) -> str:
        return mark + line_of(index)

    return line


def _mark_compact_lines(monkeypatch: pytest.MonkeyPatch, marks: dict[str, str]) -> None:
    """Make each compact candidate named in ``marks`` start every line with its mark."""
    builders = _compact_line_builders

    def marked(
        catalog: SkillCatalog, lines: list[str]
    ) -> Iterator[tuple[str, Callable[[int], str]]]:
        for form, line_of in builders(catalog, lines):
            yield form, _marked(marks.get(form, ""), line_of)

    monkeypatch.setattr(tokens_module, "_compact_line_builders", marked)


@dataclass(frozen=True)
class _UndeclaredQuarterCounter:
    """QuarterLineCounter's counts, declaring nothing: every candidate is counted whole."""

    def count(self, text: str) -> int:
        return QuarterLineCounter().count(text)


def test_a_line_line_additive_does_not_join_makes_the_compact_fit_count_its_candidate_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The renderer's own lines always start a joined line; should a format change give one
    that does not (here the names candidate's lines start with a space), that candidate is
    counted whole, and the compact fit is the one a counter declaring nothing gets, at every
    budget."""
    _mark_compact_lines(monkeypatch, {"names": " "})
    catalog = SkillCatalog(
        tuple(CatalogEntry(name, "word " * 90, f"/r/{name}/SKILL.md") for name in "abc"), 2, ("/r",)
    )
    forms = set()
    for budget in range(160):
        counted = render_catalog_counted(catalog, budget, QuarterLineCounter(), "compact")
        whole = render_catalog_counted(catalog, budget, _UndeclaredQuarterCounter(), "compact")
        assert (counted.text, counted.form, counted.tokens) == (
            whole.text,
            whole.form,
            whole.tokens,
        ), budget
        forms.add(counted.form)
    assert "names" in forms  # the candidate counted whole was chosen at some budgets


class _JoinAwareCounter:
    """Line-additive only where ``LINE_START_EXCLUDED`` says so: a line feed followed by a
    space or a slash is one token more (o200k's punctuation piece runs over it)."""

    line_additive: bool = True

    def count(self, text: str) -> int:
        return QuarterLineCounter().count(text) + text.count("\n ") + text.count("\n/")


def test_lines_starting_with_a_space_or_a_slash_are_not_summed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A line that starts with whitespace or ``/`` is not joined by ``line_additive``: a
    candidate holding one is counted whole (a sum of its lines would miss the joining
    token), for either character."""
    _mark_compact_lines(monkeypatch, {"names": " ", "cut-64": "/"})
    catalog = SkillCatalog(
        tuple(CatalogEntry(name, "word " * 90, f"/r/{name}/SKILL.md") for name in "abc"), 0, ("/r",)
    )
    chosen = set()
    for budget in range(160):
        counted = render_catalog_counted(catalog, budget, _JoinAwareCounter(), "compact")
        assert counted.tokens == _JoinAwareCounter().count(counted.text), budget
        assert counted.tokens <= budget or counted.form in ("minimal", "empty"), budget
        chosen.add(counted.form)
    assert {"names", "cut-64"} <= chosen


def _long_descriptions() -> SkillCatalog:
    return SkillCatalog(
        tuple(CatalogEntry(name, "word " * 140, f"/r/{name}/SKILL.md") for name in "abc"),
        2,
        ("/r",),
    )


@pytest.mark.parametrize("make", [QuarterLineCounter, _UndeclaredQuarterCounter])
@pytest.mark.parametrize("form", COMPACT_ORDER)
def test_a_compact_candidate_that_fits_exactly_is_chosen_and_certified(
    make: type, form: str
) -> None:
    """``<=``, not ``<``, in the compact fit (line sums or whole counts) and its verifier."""
    catalog = _long_descriptions()
    exact = make().count(compact_candidate(catalog, form))
    rendered = render_catalog_counted(catalog, exact, make(), "compact")
    assert (rendered.form, rendered.tokens) == (form, exact)
    verify_rendering_counted(catalog, exact, rendered, make(), "compact")


def test_the_framed_candidate_listing_no_entry_is_chosen_when_it_alone_fits() -> None:
    """The walk down the framed candidates goes to zero listed entries (``{T} more``)."""
    catalog = _long_descriptions()
    exact = QuarterLineCounter().count(framed_candidate(catalog, 0))
    assert exact < QuarterLineCounter().count(framed_candidate(catalog, 1))
    rendered = render_catalog_counted(catalog, exact, QuarterLineCounter())
    assert (rendered.text, rendered.listed, rendered.tokens) == (
        framed_candidate(catalog, 0),
        0,
        exact,
    )
    verify_rendering_counted(catalog, exact, rendered, QuarterLineCounter())


def test_compact_lines_of_zero_tokens_fit_a_budget_the_frame_fills() -> None:
    """No room left after the header and the tail is still room for lines of 0 tokens: the
    names candidate (no letter x in a name or a file) fits where every description (all x)
    does not."""
    catalog = SkillCatalog(
        tuple(CatalogEntry(name, "x" * 300, f"/r/{name}/SKILL.md") for name in "abc"), 2, ("/r",)
    )
    exact = XCounter().count(compact_candidate(catalog, "names"))
    rendered = render_catalog_counted(catalog, exact, XCounter(), "compact")
    assert (rendered.form, rendered.listed, rendered.tokens) == ("names", 3, exact)
    verify_rendering_counted(catalog, exact, rendered, XCounter(), "compact")


@pytest.mark.parametrize("counter", SHIPPED)
def test_a_shipped_counter_refuses_text_without_a_utf8_form(counter: TokenCounter) -> None:
    for text in ("a\ud800", "\udfff"):
        with pytest.raises(DefinitionError) as raised:
            counter.count(text)
        assert (raised.value.code, raised.value.reason) == ("allowance_invalid", "text")
    assert counter.count("ab") == 2  # negative control


def test_a_forged_counted_rendering_is_refused_as_not_certified() -> None:
    catalog = SkillCatalog((CatalogEntry("a", "d", "f"),), 0, ("/r",))
    counter = Utf8ByteCounter()
    rendered = render_catalog_counted(catalog, 1_000, counter)
    empty = object.__new__(CountedRendering)  # no field set at all
    wrong_text = object.__new__(CountedRendering)
    for name in ("text", "form", "listed", "omitted", "total", "budget_tokens", "tokens"):
        object.__setattr__(wrong_text, name, getattr(rendered, name))
    object.__setattr__(wrong_text, "text", 5)
    for forged in (empty, wrong_text):
        with pytest.raises(DefinitionError) as raised:
            verify_rendering_counted(catalog, 1_000, forged, counter)
        assert raised.value.code == "rendering_not_certified"
    verify_rendering_counted(catalog, 1_000, rendered, counter)  # negative control


class _RaisingDeclaration:
    """A counter whose declaration is a property that raises (a Host's proxy)."""

    @property
    def line_additive(self) -> bool:
        raise RuntimeError("no")

    def count(self, text: str) -> int:
        return len(text)


def test_declares_reads_only_true_and_refuses_a_declaration_that_raises() -> None:
    from a13n_harness.context.tokens import declares  # noqa: PLC0415

    assert declares(Utf8ByteCounter(), "line_additive") is True
    assert declares(ModularCounter(), "line_additive") is False
    assert declares(Utf8ByteCounter(), cast(str, 5)) is False
    with pytest.raises(DefinitionError) as raised:
        declares(_RaisingDeclaration(), "line_additive")
    assert (raised.value.code, raised.value.reason) == ("allowance_invalid", "counter")
