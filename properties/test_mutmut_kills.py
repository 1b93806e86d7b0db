"""Exact examples that kill the mutants ``scripts/mutmut.py`` found surviving.

Each test pins one rule of docs/contract.md at a boundary the property tests reach
only by chance; its docstring names the rule. They are fast and exact: no
Hypothesis, no timing.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import yaml

from a13n_harness.context import frontmatter as fm
from a13n_harness.context import render
from a13n_harness.context.catalog import CatalogEntry, SkillCatalog, checked_total
from a13n_harness.context.encoder import encode_value
from a13n_harness.context.errors import DefinitionError, FrontmatterError
from a13n_harness.context.facts import EnvironmentFacts, GitStatus
from a13n_harness.context.frontmatter import (
    FrontmatterLimits,
    normalize_description,
    parse_skill_document,
)
from a13n_harness.context.manifest import (
    ContextManifest,
    decode_manifest,
    encode_manifest,
    publish_catalog,
)
from a13n_harness.context.render import (
    RenderedCatalog,
    framed_candidate,
    minimal_candidate,
    reference_render,
    render_catalog,
    verify_rendering,
)
from a13n_harness.context.tokens import (
    CodePointCounter,
    TokenCounter,
    Utf8ByteCounter,
    render_catalog_counted,
    verify_rendering_counted,
)


def _frontmatter_error(data: bytes) -> FrontmatterError:
    with pytest.raises(FrontmatterError) as caught:
        parse_skill_document(data)
    return caught.value


# --- section 2: SKILL.md frontmatter ---------------------------------------------------------


@pytest.mark.parametrize("field", ["max_bytes", "max_depth", "max_nodes", "max_description_chars"])
def test_frontmatter_limits_accept_one_and_refuse_zero(field: str) -> None:
    """§2: every FrontmatterLimits field is a positive int, so 1 is the smallest allowed."""
    assert getattr(FrontmatterLimits(**{field: 1}), field) == 1
    with pytest.raises(ValueError, match=field):
        FrontmatterLimits(**{field: 0})


def test_normalize_description_default_limit_is_1024() -> None:
    """contract §2: the default description limit is 1,024 code points; 1,025 are cut."""
    assert normalize_description("a" * 1024) == ("a" * 1024, False)
    assert normalize_description("a" * 1025) == ("a" * 1023 + "\N{HORIZONTAL ELLIPSIS}", True)


def test_private_use_code_point_after_the_surrogates_is_a_valid_description() -> None:
    """contract §2, §3: only lone surrogates (U+D800..U+DFFF) are refused; U+E000 is ordinary."""
    data = "---\nname: a\ndescription: x\ue000 \ud7ff\n---\n".encode()
    assert parse_skill_document(data).description == "x\ue000 \ud7ff"


@pytest.mark.parametrize("escape", ["\\ud800", "\\udfff"])
def test_pure_parser_surrogate_escapes_are_description_invalid(
    monkeypatch: pytest.MonkeyPatch, escape: str
) -> None:
    """contract §0, §2: without libyaml the pure parser is used; a lone surrogate in a
    description (first and last of U+D800..U+DFFF) is ``description_invalid``."""
    monkeypatch.setattr(fm, "_EventSource", yaml.BaseLoader)
    data = f'---\nname: a\ndescription: "x{escape}"\n---\n'.encode()
    error = _frontmatter_error(data)
    assert (error.reason, error.line, error.column) == ("description_invalid", 3, 14)


def test_error_position_after_an_empty_first_frontmatter_line() -> None:
    """§2: line/column are 1-based in the file; after an empty line 2 a tag is on line 3."""
    error = _frontmatter_error(b"---\n\n!!str x: 1\n---\n")
    assert (error.reason, error.line, error.column) == ("tag", 3, 1)
    error = _frontmatter_error(b"---\n\nname: !!str x\n---\n")
    assert (error.reason, error.line, error.column) == ("tag", 3, 7)


@pytest.mark.parametrize(
    ("data", "line", "column"),
    [
        # problem mark only (no context mark): the unexpected value indicator.
        (b"---\nname: a\ndescription: b\n  c: d\n---\n", 4, 4),
        # problem and context marks differ: the problem mark wins.
        (b'---\nname: a\ndescription: "b\n---\n', 4, 1),
    ],
)
def test_yaml_syntax_errors_carry_the_problem_position(data: bytes, line: int, column: int) -> None:
    """§2: a PyYAML error is ``yaml_syntax``, located (1-based, whole file) at its problem."""
    error = _frontmatter_error(data)
    assert (error.reason, error.line, error.column) == ("yaml_syntax", line, column)


@pytest.mark.parametrize(
    ("data", "reason", "line", "column"),
    [
        # a description that is a sequence: located at the value's first node.
        (b"---\nname: a\ndescription:\n  - x\n---\n", "description_invalid", 4, 3),
        # a description that is only whitespace: located at the scalar.
        (b'---\nname: a\ndescription:  "  "\n---\n', "description_invalid", 3, 15),
        # nothing between the fences: the empty frontmatter starts on line 2.
        (b"---\n---\n", "not_mapping", 2, 1),
        (b"---\n# only a comment\n---\n", "not_mapping", 2, 1),
        # a reader error (a C0 control) at the very start of the frontmatter.
        (b"---\n\x01\n---\n", "yaml_syntax", 2, 1),
    ],
)
def test_frontmatter_errors_are_located(data: bytes, reason: str, line: int, column: int) -> None:
    """contract §2: each refusal carries its reason and a 1-based line/column in the whole file."""
    error = _frontmatter_error(data)
    assert (error.reason, error.line, error.column) == (reason, line, column)


def test_description_limit_comes_from_the_limits() -> None:
    """contract §2: a description longer than ``max_description_chars`` is cut to that many."""
    data = b"---\nname: a\ndescription: abcdefgh\n---\n"
    parsed = parse_skill_document(data, FrontmatterLimits(max_description_chars=5))
    assert (parsed.description, parsed.description_truncated) == (
        "abcd\N{HORIZONTAL ELLIPSIS}",
        True,
    )
    parsed = parse_skill_document(data, FrontmatterLimits(max_description_chars=8))
    assert (parsed.description, parsed.description_truncated) == ("abcdefgh", False)


@pytest.mark.parametrize(
    ("data", "max_bytes", "reason"),
    [
        # no closing fence, text after the opening fence exactly max_bytes long: unterminated.
        (b"---\nabcde", 5, "unterminated"),
        # one byte more: too_large.
        (b"---\nabcdef", 5, "too_large"),
        # the BOM and the opening fence do not count towards max_bytes.
        (b"\xef\xbb\xbf---\nname: a", 7, "unterminated"),
        (b"\xef\xbb\xbf---\nname: ab", 7, "too_large"),
        (b"---\nname: a\n", 10, "unterminated"),
        (b"---\nname: a\nbcd", 10, "too_large"),
        # a closing fence after a frontmatter line that ends one byte past max_bytes.
        (b"---\nabcde\n---\n", 5, "too_large"),
    ],
)
def test_unterminated_versus_too_large_boundary(data: bytes, max_bytes: int, reason: str) -> None:
    """contract §2: no closing fence is ``too_large`` if the text after the opening fence already
    exceeds ``max_bytes``, else ``unterminated``; both are located at line 2, column 1."""
    with pytest.raises(FrontmatterError) as caught:
        parse_skill_document(data, FrontmatterLimits(max_bytes=max_bytes))
    assert (caught.value.reason, caught.value.line, caught.value.column) == (reason, 2, 1)


def test_frontmatter_of_exactly_max_bytes_is_parsed() -> None:
    """§2: frontmatter of exactly ``max_bytes`` bytes (newlines included) is not too large."""
    data = b"---\nname: a\ndescription: b\n---\n"
    assert parse_skill_document(data, FrontmatterLimits(max_bytes=23)).name == "a"
    with pytest.raises(FrontmatterError) as caught:
        parse_skill_document(data, FrontmatterLimits(max_bytes=22))
    assert (caught.value.reason, caught.value.line, caught.value.column) == ("too_large", 2, 1)


def _code_reason(call: object, *args: object) -> tuple[str, str | None]:
    assert callable(call)
    with pytest.raises(DefinitionError) as caught:
        call(*args)
    return caught.value.code, caught.value.reason


# --- section 5: context manifest -------------------------------------------------------------


@pytest.mark.parametrize("bad", [-1, True, "5", 5.0, None])
def test_publish_catalog_refuses_a_bad_byte_limit(bad: object) -> None:
    """§5: ``max_manifest_bytes`` is a non-negative int, else ``manifest_invalid``/``type``."""
    assert _code_reason(publish_catalog, [], [], bad) == ("manifest_invalid", "type")


def test_publish_catalog_refuses_items_that_are_not_entries() -> None:
    """§3, §5: published items are ``CatalogEntry``, else ``catalog_invalid``/``entries``."""
    good = CatalogEntry("a", "d", "f")
    item = SimpleNamespace(name="b", description="d", file="f")
    assert _code_reason(publish_catalog, [good, item], [], 10_000) == ("catalog_invalid", "entries")


def test_publish_catalog_keeps_the_roots() -> None:
    """contract §5: the published catalog carries the configured roots."""
    published = publish_catalog([CatalogEntry("a", "d", "f")], ["r/", "s"], 10_000)
    assert published == SkillCatalog((CatalogEntry("a", "d", "f"),), 0, ("r/", "s"))


def test_manifest_construction_refusals_have_their_reasons() -> None:
    """§5: a bad version is reason ``version``; a wrong catalog or facts type is ``type``."""
    catalog = SkillCatalog(())
    assert _code_reason(ContextManifest, None, catalog, 2) == ("manifest_invalid", "version")
    assert _code_reason(ContextManifest, None, "catalog") == ("manifest_invalid", "type")
    assert _code_reason(ContextManifest, "facts", catalog) == ("manifest_invalid", "type")
    assert _code_reason(encode_manifest, "manifest") == ("manifest_invalid", "type")


def _facts(git: GitStatus | None) -> EnvironmentFacts:
    return EnvironmentFacts("/w", "bash", "linux", "2024-01-01", "UTC", git)


@pytest.mark.parametrize("ahead", [2**64, True])
def test_encoding_refuses_git_counts_decoding_would_refuse(ahead: int) -> None:
    """§5: ``encode_manifest`` never emits what ``decode_manifest`` refuses: a git count is a
    non-bool int up to 2**64 - 1 (``manifest_invalid``, reason ``type``)."""
    manifest = ContextManifest(
        _facts(GitStatus(None, None, ahead, 0, 0, 0, 0, 0, 0)), SkillCatalog(())
    )
    assert _code_reason(encode_manifest, manifest) == ("manifest_invalid", "type")
    good = ContextManifest(
        _facts(GitStatus("m", None, 2**64 - 1, 0, 0, 0, 0, 0, 0)), SkillCatalog(())
    )
    assert decode_manifest(encode_manifest(good)) == good


def test_encoding_refuses_a_lone_surrogate_in_a_tampered_catalog() -> None:
    """§5: a lone surrogate never reaches the manifest bytes, even in a catalog altered behind
    the frozen dataclass's back: ``manifest_invalid``, reason ``surrogate``."""
    catalog = SkillCatalog(())
    object.__setattr__(catalog, "roots", ("\ud800",))
    manifest = ContextManifest(None, catalog)
    assert _code_reason(encode_manifest, manifest) == ("manifest_invalid", "surrogate")


# --- sections 4 and 9: renderer and its certification ------------------------------------------


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


@pytest.mark.parametrize("listed", [-1, 2, True, 1.0])
def test_framed_candidate_refuses_a_count_outside_the_entries(listed: object) -> None:
    """§4: framed candidates exist for ``0 <= k <= n`` only; others are ``catalog_invalid``."""
    catalog = SkillCatalog((CatalogEntry("a", "d", "f"),))
    assert framed_candidate(catalog, 1).count("- a: d (file: f)") == 1
    assert _code_reason(framed_candidate, catalog, listed)[0] == "catalog_invalid"


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


class _NestingRefusal:
    """An event source standing in for libyaml 0.2.6+, whose scanner refuses nesting past 1,000
    before any event reaches the depth guard."""

    def __init__(self, text: str) -> None:
        self.text = text

    def get_event(self) -> object:
        mark = yaml.Mark("<frontmatter>", 7, 0, 7, None, 0)
        raise yaml.scanner.ScannerError(
            "while parsing a flow node", None, "exceeded maximum nesting depth", mark
        )

    def dispose(self) -> None:
        pass


def test_a_parser_nesting_refusal_is_too_deep(monkeypatch: pytest.MonkeyPatch) -> None:
    """§2: nesting past the limit is ``too_deep`` whichever guard sees it first: ours, or the
    refusal newer libyaml raises in its scanner (located at its problem mark)."""
    data = b"---\nname: [[[[\n---\n"
    monkeypatch.setattr(fm, "_EventSource", _NestingRefusal)
    error = _frontmatter_error(data)
    assert (error.code, error.reason, error.line, error.column) == (
        "skill_frontmatter_invalid",
        "too_deep",
        2,
        8,
    )
    assert "maximum nesting depth" in str(error)


@pytest.mark.parametrize("depth", [40, 1_200])
def test_deep_flow_nesting_is_too_deep_with_the_installed_parser(depth: int) -> None:
    """contract §2: deep flow nesting is ``too_deep`` with whatever libyaml PyYAML ships."""
    data = b"---\nname: a\ndescription: " + b"[" * depth + b"]" * depth + b"\n---\n"
    assert _frontmatter_error(data).reason == "too_deep"


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


def test_the_walk_below_the_bisection_point_is_short(monkeypatch: pytest.MonkeyPatch) -> None:
    """contract §4 (O(n) rendering): the bisection bounds the listed count by header, pointer and
    footer plus the entry lines, so the walk down only crosses the few candidates a longer
    "more not listed" line can push out; it never starts past that bound."""
    entries = tuple(CatalogEntry(f"s{i:04d}", "word word", "f") for i in range(400))
    catalog = SkillCatalog(entries, 5, ("/r",))
    full = len(framed_candidate(catalog, 400).encode("utf-8"))
    built: list[int] = []
    more_line = render._more_line

    def counting(missing: int) -> str:
        built.append(missing)
        return more_line(missing)

    monkeypatch.setattr(render, "_more_line", counting)
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

    monkeypatch.setattr(render, "encode_value", counting)
    first = render_catalog(catalog, 10_000)
    assert len(encoded) == 5
    for budget in (0, 200, 10_000):
        render_catalog(catalog, budget)
    assert len(encoded) == 5
    object.__setattr__(catalog, "entries", catalog.entries[:2])
    assert render_catalog(catalog, 10_000) != first
    assert len(encoded) == 7


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
