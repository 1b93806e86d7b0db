"""SKILL.md frontmatter parsing (docs/contract.md §2)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest
import yaml
from hypothesis import assume, given
from hypothesis import strategies as st

from a13n_harness import DefinitionError, FrontmatterError
from a13n_harness.context import frontmatter as fm
from a13n_harness.context.errors import FRONTMATTER_REASONS
from a13n_harness.context.frontmatter import (
    FrontmatterLimits,
    SkillFrontmatter,
    normalize_description,
    parse_skill_document,
)
from a13n_harness.testing.controls import property_fails
from a13n_harness.testing.strategies import skill_names


def quoted(value: str) -> str:
    """A YAML double-quoted scalar for ``value`` written in printable ASCII only."""
    out = []
    for char in value:
        code = ord(char)
        if char in '"\\':
            out.append("\\" + char)
        elif 0x20 <= code < 0x7F:
            out.append(char)
        elif code <= 0xFFFF:
            out.append(f"\\u{code:04X}")
        else:
            out.append(f"\\U{code:08X}")
    return '"' + "".join(out) + '"'


def document(body: str, *, newline: str = "\n", bom: bool = False, tail: str = "# Body\n") -> bytes:
    text = "---" + newline + body.replace("\n", newline) + "---" + newline + tail
    return (b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8")


def reason_of(data: bytes, limits: FrontmatterLimits | None = None) -> str:
    with pytest.raises(FrontmatterError) as caught:
        parse_skill_document(data, limits or FrontmatterLimits())
    error = caught.value
    assert error.code == "skill_frontmatter_invalid"
    assert error.reason is not None
    return error.reason


def nested(depth: int, *, flow: bool) -> str:
    """A value that nests ``depth`` collections."""
    if flow:
        return "[" * depth + "]" * depth
    lines = []
    for level in range(depth):
        lines.append("  " * level + f"k{level}:")
    lines[-1] += " {}" if depth else ""
    return "\n" + "\n".join(lines)


descriptions_text = st.text(st.characters(codec="utf-8"), min_size=1, max_size=300)
ignored_values: st.SearchStrategy[Any] = st.recursive(
    st.text(max_size=10),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text("abcxyz", min_size=1, max_size=4), inner, max_size=3)
    ),
    max_leaves=12,
)


def depth_of(value: object) -> int:
    if isinstance(value, dict):
        return 1 + max((depth_of(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((depth_of(v) for v in value), default=0)
    return 0


@given(
    name=skill_names(),
    description=descriptions_text,
    extra=ignored_values,
    newline=st.sampled_from(["\n", "\r\n"]),
    bom=st.booleans(),
)
def test_generated_document_parses_back_to_its_values(
    name: str, description: str, extra: object, newline: str, bom: bool
) -> None:
    """A valid document parses back to its values, through CRLF and a BOM."""
    expected, truncated = normalize_description(description)
    assume(expected)
    extra_yaml = yaml.safe_dump({"metadata": extra}, default_flow_style=False)
    body = f"name: {name}\ndescription: {quoted(description)}\n{extra_yaml}"
    parsed = parse_skill_document(document(body, newline=newline, bom=bom))
    assert parsed == SkillFrontmatter(name, expected, truncated)


@given(descriptions_text)
def test_description_whitespace_runs_collapse(description: str) -> None:
    """Every whitespace run becomes one space, the ends are stripped, nothing else changes."""
    normalized, truncated = normalize_description(description, 10_000)
    assert not truncated
    assert normalized == normalized.strip()
    assert "  " not in normalized
    assert not any(c.isspace() and c != " " for c in normalized)
    assert normalized.replace(" ", "") == "".join(c for c in description if not c.isspace())


def test_description_whitespace_examples() -> None:
    body = 'name: a\ndescription: "  one\\n\\ttwo\\u2028three\\x85four\\u3000five  "\n'
    assert parse_skill_document(document(body)).description == "one two three four five"


def test_long_description_is_cut_to_the_limit_with_an_ellipsis() -> None:
    """Longer than max_description_chars: max - 1 code points plus '…', flagged, not an error."""
    for length, cut in ((1024, False), (1025, True), (5000, True)):
        parsed = parse_skill_document(document(f"name: a\ndescription: {'é' * length}\n"))
        assert parsed.description_truncated is cut
        assert len(parsed.description) == 1024 if cut else length
        if cut:
            assert parsed.description == "é" * 1023 + "…"


def test_scalars_are_strings_exactly_as_written() -> None:
    """No implicit typing: 123, no, ~, 1.0, null and dates are the strings written."""
    for name in ("123", "no", "true", "0x1f", "2001-12-14"):
        assert parse_skill_document(document(f"name: {name}\ndescription: d\n")).name == name
    for description in ("123", "no", "~", "1.0", "null", ".inf", "2001-12-14 21:59:43.10 -5"):
        parsed = parse_skill_document(document(f"name: a\ndescription: {description}\n"))
        assert parsed.description == description


def test_descriptions_keep_markup_as_written() -> None:
    """Escaping is the encoder's job: <, & and closing tags stay."""
    text = "Use <b> & </skills_instructions> here"
    parsed = parse_skill_document(document(f"name: a\ndescription: {quoted(text)}\n"))
    assert parsed.description == text


def test_unknown_top_level_keys_are_ignored() -> None:
    body = (
        "name: a\ndescription: d\nlicense: MIT\nmetadata: {x: [1, 2, {y: z}]}\nallowed-tools: [a]\n"
    )
    assert parse_skill_document(document(body)) == SkillFrontmatter("a", "d", False)


@pytest.mark.parametrize("flow", [True, False])
def test_ignored_field_nesting_is_pinned_at_the_limit(flow: bool) -> None:
    """Root mapping is depth 1: a value nesting 15 more passes at max_depth=16, 16 more fails."""
    ok = document(f"name: a\ndescription: d\nmeta: {nested(15, flow=flow)}\n")
    assert parse_skill_document(ok).name == "a"
    bad = document(f"name: a\ndescription: d\nmeta: {nested(16, flow=flow)}\n")
    assert reason_of(bad) == "too_deep"


@given(extra=ignored_values)
def test_ignored_fields_nesting_up_to_the_limit_are_accepted(extra: object) -> None:
    """Arbitrary ignored structures within the depth limit never disturb name and description."""
    depth = depth_of({"metadata": extra})  # the outer dict stands for the root mapping
    extra_yaml = yaml.safe_dump({"metadata": extra}, default_flow_style=False)
    limits = FrontmatterLimits(max_depth=max(depth, 2))
    parsed = parse_skill_document(document(f"name: a\ndescription: d\n{extra_yaml}"), limits)
    assert parsed == SkillFrontmatter("a", "d", False)
    if depth > 2:
        too_tight = FrontmatterLimits(max_depth=depth - 1)
        assert (
            reason_of(document(f"name: a\ndescription: d\n{extra_yaml}"), too_tight) == "too_deep"
        )


def test_node_limit_is_pinned() -> None:
    """name, description and their keys are 4 nodes plus the root: 1,024 nodes pass, 1,025 fail."""

    def doc(items: int) -> bytes:
        return document("name: a\ndescription: d\nk: [" + ", ".join(["x"] * items) + "]\n")

    # root + 2 keys + 2 values + key k + the sequence = 7 nodes before the items
    assert parse_skill_document(doc(1024 - 7)).name == "a"
    assert reason_of(doc(1024 - 6)) == "too_many_nodes"


def test_size_limit_is_pinned() -> None:
    """Frontmatter of exactly max_bytes bytes passes; one more byte is too_large."""
    head = "name: a\ndescription: d\nk: "
    filler = 32_768 - len(head) - 1
    ok = document(head + "x" * filler + "\n")
    assert parse_skill_document(ok).name == "a"
    assert reason_of(document(head + "x" * (filler + 1) + "\n")) == "too_large"


REJECTIONS: dict[str, bytes] = {
    "encoding": b"---\nname: a\ndescription: \xff\n---\n",
    "missing_fence": b"name: a\ndescription: d\n",
    "unterminated": b"---\nname: a\ndescription: d\n",
    "too_large": b"---\nname: a\n" + b"k: " + b"x" * 40_000 + b"\n",
    "multiple_documents": b"---\nname: a\ndescription: d\n...\n--- {b: c}\n---\n",
    "not_mapping": b"---\n- name: a\n---\n",
    "alias": b"---\nname: &n a\ndescription: *n\n---\n",
    "tag": b"---\nname: !!str a\ndescription: d\n---\n",
    "non_scalar_key": b"---\nname: a\ndescription: d\n[a]: b\n---\n",
    "duplicate_key": b"---\nname: a\ndescription: d\nm: {x: {y: 1, y: 2}}\n---\n",
    "too_deep": b"---\nname: a\ndescription: d\nk: " + b"[" * 20 + b"]" * 20 + b"\n---\n",
    "too_many_nodes": b"---\nname: a\ndescription: d\nk: [" + b"x," * 1100 + b"]\n---\n",
    "yaml_syntax": b"---\nname: a\ndescription: d\nk: {\n---\n",
    "missing_name": b"---\ndescription: d\n---\n",
    "name_invalid": b"---\nname: Code_Review\ndescription: d\n---\n",
    "missing_description": b"---\nname: a\n---\n",
    "description_invalid": b"---\nname: a\ndescription: '   '\n---\n",
}


def test_every_rejection_reason_is_listed() -> None:
    assert set(REJECTIONS) == FRONTMATTER_REASONS


@pytest.mark.parametrize("reason", sorted(REJECTIONS))
def test_every_rejection_reason_is_reachable(reason: str) -> None:
    """Each documented reason has an input that produces it."""
    assert reason_of(REJECTIONS[reason]) == reason


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"---", "missing_fence"),
        (b"--- x\nname: a\n---\n", "missing_fence"),
        (b"\xef\xbb\xbf\xef\xbb\xbf---\nname: a\n---\n", "missing_fence"),
        (b"---\n---\n", "not_mapping"),
        (b"---\nplain scalar\n---\n", "not_mapping"),
        (b"---\nname: [a]\ndescription: d\n---\n", "name_invalid"),
        (b"---\nname: a\ndescription: {x: y}\n---\n", "description_invalid"),
        (b"---\nname: " + b"a" * 65 + b"\ndescription: d\n---\n", "name_invalid"),
        (b"---\nname: a--b\ndescription: d\n---\n", "name_invalid"),
        (b"---\nname: -a\ndescription: d\n---\n", "name_invalid"),
        (b'---\nname: "a\\n"\ndescription: d\n---\n', "name_invalid"),
        ("---\nname: caf\u00e9\ndescription: d\n---\n".encode(), "name_invalid"),
        ("---\nname: \uff41\ndescription: d\n---\n".encode(), "name_invalid"),
        (b"---\nname: a\ndescription: d\nname: b\n---\n", "duplicate_key"),
        (b"---\nname: a\ndescription: d\n'name': b\n---\n", "duplicate_key"),
        (b"---\nname: a\ndescription: d\nx: [{k: 1, k: 2}]\n---\n", "duplicate_key"),
        (b"---\nname: a\ndescription: d\n? {a: b}\n: c\n---\n", "non_scalar_key"),
        (b"---\nname: a\ndescription: d\nx: &anchor [1]\n---\n", "alias"),
        (b"---\nname: a\ndescription: d\nx: !custom 1\n---\n", "tag"),
        (b"---\nname: a\ndescription: d\nx: ! 1\n---\n", "tag"),
        (
            b'---\nname: a\ndescription: "\\ud800"\n---\n',
            "yaml_syntax" if yaml.__with_libyaml__ else "description_invalid",
        ),
    ],
)
def test_rejection_examples(data: bytes, reason: str) -> None:
    assert reason_of(data) == reason


@pytest.mark.parametrize(
    ("data", "line", "column"),
    [
        (b"---\nname: a\ndescription: d\nname: b\n---\n", 4, 1),
        (b"---\nname: Bad\ndescription: d\n---\n", 2, 7),
        (b"---\nname: a\ndescription: \xff\n---\n", 3, 14),
        (b"\xef\xbb\xbf---\r\nname: a\r\ndescription: d\r\nx: *y\r\n---\r\n", 4, 4),
        (b"oops\n", 1, 1),
    ],
)
def test_positions_count_lines_in_the_whole_file(data: bytes, line: int, column: int) -> None:
    """line/column are 1-based in the whole SKILL.md: the opening fence is line 1."""
    with pytest.raises(FrontmatterError) as caught:
        parse_skill_document(data)
    assert (caught.value.line, caught.value.column) == (line, column)


def test_fence_tolerance_and_body_is_not_examined() -> None:
    """Trailing spaces/tabs on fences, CRLF, a closing fence at end of data, any body bytes."""
    assert parse_skill_document(b"--- \t\r\nname: a\r\ndescription: d\r\n---\t").name == "a"
    assert parse_skill_document(b"---\nname: a\ndescription: d\n---\n\xff\xfe body").name == "a"
    assert (
        parse_skill_document(b"---\nname: a\ndescription: 'x --- y'\n---\n").description
        == "x --- y"
    )


class _Work:
    """What a parse did, counted: event sources built, events pulled, code points that
    ``_locate`` scanned back (it is O(index)). Work, not time: the counts are the same on
    a busy machine."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.sources = self.events = self.located = 0
        work = self
        base: Any = fm._EventSource

        class CountingSource(base):  # type: ignore[misc]
            def __init__(self, text: str) -> None:
                work.sources += 1
                super().__init__(text)

            def get_event(self) -> Any:
                work.events += 1
                return super().get_event()

        locate = fm._locate

        def counting_locate(text: str, index: int) -> tuple[int, int]:
            work.located += index
            return locate(text, index)

        monkeypatch.setattr(fm, "_EventSource", CountingSource)
        monkeypatch.setattr(fm, "_locate", counting_locate)


def test_hostile_inputs_end_after_bounded_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """10 MB files, 200,000-deep nesting, alias bombs: the documented error after a bounded
    amount of work: oversized input is refused before any parsing, the guards trip within
    the first few dozen events."""
    bomb = (
        b"---\na: &a [x, x]\n"
        + b"".join(
            b"b%d: &b%d [*%s, *%s]\n"
            % (i, i, (b"a" if i == 0 else b"b%d" % (i - 1)), (b"a" if i == 0 else b"b%d" % (i - 1)))
            for i in range(30)
        )
        + b"---\n"
    )
    cases = [  # input, reason, most events pulled (None: refused before parsing)
        (b"---\nk: " + b"[" * 200_000 + b"\n---\n", "too_large", None),
        (b"---\nk: " + b"[" * 10_000 + b"]" * 10_000 + b"\n---\n", "too_deep", 40),
        (b"---\n" + b"".join(b"  " * i + b"k:\n" for i in range(150)) + b"---\n", "too_deep", 80),
        (b"---\n" + b"x" * 10_000_000, "too_large", None),
        (b"---\nname: a\n" + b"\n" * 10_000_000, "too_large", None),
        (bomb, "alias", 10),
    ]
    for data, reason, most_events in cases:
        work = _Work(monkeypatch)
        assert reason_of(data) == reason
        if most_events is None:
            assert (work.sources, work.events) == (0, 0), reason
        else:
            assert 0 < work.events <= most_events, (reason, work.events)


@given(st.binary(max_size=400))
def test_arbitrary_bytes_give_a_value_or_frontmatter_error(data: bytes) -> None:
    """Any bytes: a SkillFrontmatter or a FrontmatterError, never another exception."""
    for candidate in (data, b"---\n" + data, b"---\nname: a\ndescription: d\n" + data + b"\n---\n"):
        try:
            parse_skill_document(candidate)
        except FrontmatterError as error:
            assert error.code == "skill_frontmatter_invalid"
            assert error.reason in FRONTMATTER_REASONS


yaml_fragments = st.sampled_from(
    [
        "name: a\n",
        "name: b-c\n",
        "description: d\n",
        "description: 'x y'\n",
        "description: >\n  folded\n  text\n",
        "description: |\n  lit\n",
        "k: [1, 2]\n",
        "k: {a: b}\n",
        "- x\n",
        "&a x\n",
        "*a\n",
        "!t x\n",
        "? x\n",
        "name: 1\n",
        "description: 2001-01-01\n",
        "description: yes\n",
        "m:\n  n: o\n",
        "'q': r\n",
        '"s": "\\u2028"\n',
        "{\n",
        "]\n",
        ":\n",
        "name:\n",
        "...\n",
        "--- x\n",
        "%YAML 1.1\n",
        "k: v # c\n",
        "\t\n",
        "x: 'it''s'\n",
    ]
)


@given(st.lists(yaml_fragments, max_size=8).map("".join))
def test_agrees_with_safe_load_on_documents_both_accept(body: str) -> None:
    """Differential: where we accept and safe_load yields string fields, they agree."""
    data = document(body)
    try:
        ours = parse_skill_document(data)
    except FrontmatterError:
        return
    try:
        theirs = yaml.safe_load(body)
    except yaml.YAMLError:
        pytest.fail(f"we accepted what safe_load refuses: {body!r}")
    assert isinstance(theirs, dict)
    if isinstance(theirs.get("name"), str) and isinstance(theirs.get("description"), str):
        assert ours.name == theirs["name"]
        assert ours.description == normalize_description(theirs["description"])[0]


@pytest.fixture
def pure_python_events(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fm, "_EventSource", yaml.BaseLoader)


@pytest.mark.parametrize("reason", sorted(set(REJECTIONS) - {"encoding", "too_large"}))
def test_pure_python_parser_gives_the_same_reasons(reason: str, pure_python_events: None) -> None:
    """Without libyaml the pure PyYAML parser is used; the guards give the same answers."""
    assert reason_of(REJECTIONS[reason]) == reason


def test_pure_python_parser_refuses_surrogate_escapes(pure_python_events: None) -> None:
    assert reason_of(b'---\nname: a\ndescription: "\\ud800"\n---\n') == "description_invalid"


def test_limits_must_be_positive_ints() -> None:
    for bad in (0, -1, True, 1.5):
        with pytest.raises(ValueError, match="positive int"):
            FrontmatterLimits(max_depth=bad)  # type: ignore[arg-type]


def test_frontmatter_error_is_a_definition_error() -> None:
    assert issubclass(FrontmatterError, DefinitionError)


def _parse_without_depth_guard(data: bytes) -> SkillFrontmatter:
    """A broken parser with no depth guard (negative control)."""
    return parse_skill_document(data, FrontmatterLimits(max_depth=10_000, max_nodes=10**6))


def pinned_depth_limit_holds(parse: Callable[[bytes], SkillFrontmatter]) -> None:
    """The property behind test_ignored_field_nesting_is_pinned_at_the_limit, for any parser."""
    for flow in (True, False):
        assert parse(document(f"name: a\ndescription: d\nmeta: {nested(15, flow=flow)}\n"))
        try:
            parse(document(f"name: a\ndescription: d\nmeta: {nested(16, flow=flow)}\n"))
        except FrontmatterError as error:
            assert error.reason == "too_deep"
        else:
            raise AssertionError("nesting past the limit was accepted")


def test_pinned_depth_limit_holds_for_the_parser() -> None:
    pinned_depth_limit_holds(parse_skill_document)


def test_negative_control_missing_depth_guard_fails_the_limit_property() -> None:
    """The pinned-limit property fails for a parser whose depth guard is gone."""
    property_fails(lambda: pinned_depth_limit_holds(_parse_without_depth_guard))


@pytest.mark.parametrize(
    ("data", "line", "column"),
    [
        (b"---\nname: a\ndescription: b\r---\n---\n", 3, 16),
        (b"---\nname: a\ndescription: 'x\xe2\x80\xa8y'\nk: *q\n---\n", 4, 4),
        (b"---\nname: a\ndescription: \xc3\xa9\xc3\xa9\xff\n---\n", 3, 16),
    ],
)
def test_lines_are_lf_separated_and_columns_count_code_points(
    data: bytes, line: int, column: int
) -> None:
    """A lone CR or U+2028 does not start a file line; columns are code points, not bytes."""
    with pytest.raises(FrontmatterError) as caught:
        parse_skill_document(data)
    assert (caught.value.line, caught.value.column) == (line, column)


@pytest.mark.parametrize("pure", [False, True])
def test_unacceptable_characters_are_located_by_either_parser(
    pure: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A control character is yaml_syntax at its own line and column, with either parser."""
    if pure:
        monkeypatch.setattr(fm, "_EventSource", yaml.BaseLoader)
    with pytest.raises(FrontmatterError) as caught:
        parse_skill_document("---\nname: a\ndescription: ééé\x01\n---\n".encode())
    assert (caught.value.reason, caught.value.line, caught.value.column) == ("yaml_syntax", 3, 17)


# ------------------------------------------------ linear time in the number of top-level keys

_RAISED = FrontmatterLimits(max_bytes=1 << 26, max_nodes=1 << 22)


def many_keys(count: int, layout: str) -> bytes:
    """``count`` keys beside name and description: at the top level or one level down."""
    keys = [f"k{index}: v" for index in range(count)]
    if layout == "top_block":
        body = "".join(key + "\n" for key in keys) + "name: a\ndescription: d\n"
    elif layout == "top_flow":  # one line: a backwards search per value is quadratic too
        body = "{" + ", ".join(keys) + ", name: a, description: d}\n"
    elif layout == "nested_block":
        body = "m:\n" + "".join(f"  {key}\n" for key in keys) + "name: a\ndescription: d\n"
    else:
        body = "m: {" + ", ".join(keys) + "}\nname: a\ndescription: d\n"
    return document(body)


def parse_work(data: bytes, monkeypatch: pytest.MonkeyPatch) -> _Work:
    work = _Work(monkeypatch)
    assert parse_skill_document(data, _RAISED).name == "a"
    return work


@pytest.mark.parametrize("layout", ["top_block", "top_flow", "nested_block", "nested_flow"])
def test_values_are_located_without_scanning_back(
    layout: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No input causes quadratic time (contract §2): a value's position is its parser
    mark; a line and column are worked out once, for a refusal, never per value.

    Counting newlines from the start for each top-level value made 20,000 top-level keys
    cost 0.9 s against 0.07 s nested one level (a one-line flow mapping searched its line
    backwards per value too). Counted here as the code points scanned back: none for an
    accepted document, whatever the layout (scripts/bench.py times the per-byte cost).
    """
    assert parse_work(many_keys(20_000, layout), monkeypatch).located == 0


@pytest.mark.parametrize("layout", ["top_block", "top_flow"])
def test_top_level_keys_work_grows_linearly(layout: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Four times the keys pull about four times the events (two per key)."""
    small = parse_work(many_keys(5_000, layout), monkeypatch).events
    large = parse_work(many_keys(20_000, layout), monkeypatch).events
    assert large - small == 2 * 15_000, (small, large)


def test_a_refusal_locates_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """After 20,000 keys a bad name is located once: the scan back is at most the text."""
    body = "".join(f"k{index}: v\n" for index in range(20_000)) + "name: Bad\ndescription: d\n"
    data = document(body)
    work = _Work(monkeypatch)
    with pytest.raises(FrontmatterError):
        parse_skill_document(data, _RAISED)
    assert 0 < work.located <= len(data), work.located


def test_values_after_many_top_level_keys_are_located_exactly() -> None:
    """Positions stay exact wherever the value sits: line and column in the whole file."""
    body = "".join(f"k{index}: v\n" for index in range(600)) + "name: Bad\ndescription: d\n"
    with pytest.raises(FrontmatterError) as caught:
        parse_skill_document(document(body), _RAISED)
    assert (caught.value.reason, caught.value.line, caught.value.column) == ("name_invalid", 602, 7)
    flow = "{" + ", ".join(f"k{i}: v" for i in range(300)) + ", description: d, name: [x]}\n"
    with pytest.raises(FrontmatterError) as caught:
        parse_skill_document(document(flow), _RAISED)
    column = len("{" + ", ".join(f"k{i}: v" for i in range(300)) + ", description: d, name: ") + 1
    assert (caught.value.reason, caught.value.line, caught.value.column) == (
        "name_invalid",
        2,
        column,
    )


@pytest.mark.parametrize("text", [None, b"d", 5, ["d"]])
def test_normalize_description_refuses_a_description_that_is_not_a_str(text: object) -> None:
    """contract §2: a description that is not a ``str`` is ``description_invalid``."""
    with pytest.raises(FrontmatterError) as caught:
        normalize_description(text)  # type: ignore[arg-type]
    assert caught.value.code == "skill_frontmatter_invalid"
    assert caught.value.reason == "description_invalid"


@pytest.mark.parametrize("max_chars", [0, -1, True, False, 1.0, None, "5"])
def test_normalize_description_refuses_a_limit_that_is_not_a_positive_int(
    max_chars: object,
) -> None:
    """contract §2: ``max_chars`` is a positive int (not a bool), else reason ``limits``."""
    with pytest.raises(DefinitionError) as caught:
        normalize_description("d", max_chars)  # type: ignore[arg-type]
    assert (caught.value.code, caught.value.reason) == ("skill_frontmatter_invalid", "limits")


@pytest.mark.parametrize(
    ("text", "max_chars", "expected"),
    [
        ("a", 1, ("a", False)),
        ("ab", 1, ("\N{HORIZONTAL ELLIPSIS}", True)),
        (" a \t b ", 3, ("a b", False)),
        ("abc", 2, ("a\N{HORIZONTAL ELLIPSIS}", True)),
        ("abc", 3, ("abc", False)),
        ("abcd", 3, ("ab\N{HORIZONTAL ELLIPSIS}", True)),
    ],
)
def test_normalize_description_cuts_at_the_limit_exactly(
    text: str, max_chars: int, expected: tuple[str, bool]
) -> None:
    """contract §2: the smallest limit, 1, is allowed; a text of exactly ``max_chars`` code
    points is kept whole; one more keeps ``max_chars - 1`` and appends the ellipsis."""
    assert normalize_description(text, max_chars) == expected


class _UnplacedSource:
    """An event source standing in for a parser that gives no positions: its events have no
    ``start_mark``, and the error it raises (if any) has no mark and no ``position``."""

    def __init__(self, events: list[object], error: Exception | None) -> None:
        self.events = events
        self.error = error

    def get_event(self) -> object:
        if self.events:
            return self.events.pop(0)
        if self.error is not None:
            raise self.error
        return None

    def dispose(self) -> None:
        pass


def _scalar(value: str) -> yaml.ScalarEvent:
    return yaml.ScalarEvent(None, None, (True, False), value)


_OPENING = [yaml.StreamStartEvent(), yaml.DocumentStartEvent()]


@pytest.mark.parametrize(
    ("events", "error", "reason"),
    [
        ([_scalar("x")], None, "not_mapping"),
        (
            [yaml.MappingStartEvent(None, None, True), _scalar("name"), _scalar("Not A Name")],
            None,
            "name_invalid",
        ),
        ([], yaml.MarkedYAMLError(problem="broken"), "yaml_syntax"),
        ([], yaml.MarkedYAMLError(), "yaml_syntax"),
        ([], yaml.YAMLError("broken"), "yaml_syntax"),
        ([], yaml.YAMLError(), "yaml_syntax"),
    ],
)
def test_a_refusal_without_a_position_is_placed_at_the_frontmatter_start(
    monkeypatch: pytest.MonkeyPatch, events: list[object], error: Exception | None, reason: str
) -> None:
    """contract §2: a refusal the parser gives no position for (no mark, no int ``position``)
    is still a located ``FrontmatterError``: line 2, column 1, where the frontmatter starts."""
    source = _UnplacedSource([*_OPENING, *events], error)
    monkeypatch.setattr(fm, "_EventSource", lambda text: source)
    with pytest.raises(FrontmatterError) as caught:
        parse_skill_document(b"---\nname: a\ndescription: d\n---\n")
    assert (caught.value.reason, caught.value.line, caught.value.column) == (reason, 2, 1)


def _frontmatter_error(data: bytes) -> FrontmatterError:
    with pytest.raises(FrontmatterError) as caught:
        parse_skill_document(data)
    return caught.value


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


@pytest.mark.parametrize("name", ["PDF", "Pdf-tools", "pdf-Tools", "PDF-TOOLS"])
def test_uppercase_names_are_refused(name: str) -> None:
    """§2: the name matches ``^[a-z0-9]+(-[a-z0-9]+)*$``; ASCII lowercase only (mutant 003)."""
    with pytest.raises(FrontmatterError) as caught:
        parse_skill_document(f"---\nname: {name}\ndescription: d\n---\n".encode())
    assert caught.value.reason == "name_invalid"


@pytest.mark.parametrize(
    "body",
    [
        "name: a\ndescription: d\nx: *undefined\n",
        "name: a\ndescription: d\nx: [*undefined]\n",
        "name: *undefined\ndescription: d\n",
    ],
)
def test_alias_without_anchor_is_refused_as_alias(body: str) -> None:
    """contract §2: anchors *or aliases* anywhere are refused with ``alias`` (mutant 005)."""
    with pytest.raises(FrontmatterError) as caught:
        parse_skill_document(f"---\n{body}---\n".encode())
    assert caught.value.reason == "alias"


def test_bom_is_skipped_once() -> None:
    """contract §2: one leading UTF-8 BOM is skipped (mutant 023); a second one is not."""
    document = b"---\r\nname: a\r\ndescription: d\r\n---\r\n"
    assert parse_skill_document(b"\xef\xbb\xbf" + document).name == "a"
    with pytest.raises(FrontmatterError) as caught:
        parse_skill_document(b"\xef\xbb\xbf\xef\xbb\xbf" + document)
    assert caught.value.reason == "missing_fence"


# ------------------------------------------------------------------ hostile arguments, exactly
# The refusals of the arguments themselves (their wider family runs in
# test_hostile_arguments.py, which mutation testing does not run): exact code,
# reason and location.

_DOCUMENT = b"---\nname: a\ndescription: d\n---\n"


@pytest.mark.parametrize(
    ("data", "type_name"),
    [("---\nname: a\ndescription: d\n---\n", "str"), (None, "NoneType"), (10**10, "int")],
    ids=repr,
)
def test_what_is_not_bytes_is_refused_as_encoding_at_line_1_column_1(
    data: object, type_name: str
) -> None:
    """contract §2: a SKILL.md that is not bytes is ``skill_frontmatter_invalid``, reason
    ``encoding``, located at the first byte (line 1, column 1); the message names its type."""
    with pytest.raises(FrontmatterError) as caught:
        parse_skill_document(data)  # type: ignore[arg-type]
    error = caught.value
    assert (error.code, error.reason, error.line, error.column) == (
        "skill_frontmatter_invalid",
        "encoding",
        1,
        1,
    )
    assert type_name in error.message


def _unset_limits() -> FrontmatterLimits:
    """A FrontmatterLimits made past its constructor: not one field set."""
    return object.__new__(FrontmatterLimits)


def _forged_limits(**fields: object) -> FrontmatterLimits:
    limits = FrontmatterLimits()
    for name, value in fields.items():
        object.__setattr__(limits, name, value)
    return limits


@pytest.mark.parametrize(
    ("limits", "named"),
    [
        (None, "NoneType"),
        (5, "int"),
        ({"max_bytes": 1}, "dict"),
        (_unset_limits(), "max_bytes"),
        (_forged_limits(max_depth=0), "max_depth"),
        (_forged_limits(max_nodes=True), "max_nodes"),
        (_forged_limits(max_description_chars="9"), "max_description_chars"),
    ],
)
def test_limits_that_are_not_limits_are_refused_with_reason_limits(
    limits: object, named: str
) -> None:
    """Limits that are not a FrontmatterLimits, or one forged past its constructor (a field
    unset, zero, a bool, a str), are ``skill_frontmatter_invalid`` with reason ``limits``
    before any byte is parsed, never an ``AttributeError``; the message names the type
    given or the bad field."""
    with pytest.raises(DefinitionError) as caught:
        parse_skill_document(_DOCUMENT, limits)  # type: ignore[arg-type]
    assert (caught.value.code, caught.value.reason) == ("skill_frontmatter_invalid", "limits")
    assert named in caught.value.message
    assert "NoneType" not in caught.value.message or limits is None


def test_default_limits_are_the_contracts_and_their_fields_defaults() -> None:
    """docs/contract.md §2: FrontmatterLimits(max_bytes=32_768, max_depth=16,
    max_nodes=1_024, max_description_chars=1_024); ``__init__``'s defaults are the
    dataclass fields' (``dataclasses.replace`` and ``fields`` read those)."""
    limits = FrontmatterLimits()
    values = tuple(getattr(limits, f.name) for f in dataclasses.fields(FrontmatterLimits))
    assert values == (32_768, 16, 1_024, 1_024)
    assert values == tuple(f.default for f in dataclasses.fields(FrontmatterLimits))
    assert limits == FrontmatterLimits(32_768, 16, 1_024, 1_024)


# --- the fence decision of a bounded read (beside the scan it mirrors) ------------------------


def _verdict(data: bytes, limits: FrontmatterLimits) -> tuple[object, ...]:
    try:
        front = parse_skill_document(data, limits)
    except FrontmatterError as error:
        return ("refused", error.reason, error.line, error.column)
    return ("accepted", front.name, front.description)


_FENCE_PIECES = st.one_of(
    st.sampled_from(
        [
            *(b"---\n", b"---\r\n", b"--- \t\n", b"---", b"---\r", b"--", b"-", b"\n", b"\r\n"),
            *(b"name: a\n", b"description: d\n", b"\xef\xbb\xbf", b"\xc3"),
        ]
    ),
    st.builds(
        lambda run, count: run * count,
        st.sampled_from([b" ", b"\t", b"x", b"\n", b"-"]),
        st.integers(0, 90),
    ),
)


@st.composite
def _bounded_reads(draw: st.DrawFn) -> tuple[bytes, int, FrontmatterLimits]:
    head = draw(
        st.sampled_from(
            [
                *(b"---\nname: a\ndescription: d\n", b"---\n", b"", b"---"),
                *(b"---\r\nname: a\r\n", b"---\r\n", b"\xef\xbb\xbf---\r\n", b"--- \r\n-"),
            ]
        )
    )
    data = head + b"".join(draw(st.lists(_FENCE_PIECES, max_size=8)))
    limits = FrontmatterLimits(max_bytes=draw(st.integers(1, 120)))
    return data, draw(st.integers(1, len(data) + 2)), limits


def _decided_by_reads(data: bytes, limit: int, limits: FrontmatterLimits) -> bytes:
    """What discovery does: read ``limit`` bytes, four times more while undecided."""
    while True:
        prefix = fm.decisive_prefix(data[:limit], limit, limits.max_bytes)
        if prefix is not None:
            return prefix
        limit *= 4


@given(_bounded_reads())
def test_a_decisive_prefix_gives_the_whole_files_verdict(
    case: tuple[bytes, int, FrontmatterLimits],
) -> None:
    data, limit, limits = case
    read = data[:limit]
    prefix = fm.decisive_prefix(read, limit, limits.max_bytes)
    if len(data) < limit:
        assert prefix == data  # a short read is the whole file
    if prefix is not None:
        assert data.startswith(prefix)
        assert _verdict(prefix, limits) == _verdict(data, limits)
    else:
        assert len(read) == limit
        assert fm.undecided(read[:-1], limits.max_bytes)
    assert _verdict(_decided_by_reads(data, limit, limits), limits) == _verdict(data, limits)


@pytest.mark.parametrize(
    ("data", "max_bytes", "expected"),
    [
        (b"---", 10, True),  # the opening fence may go on with blanks and a newline
        (b"--", 10, True),
        (b"-x", 10, False),  # missing_fence whatever follows
        (b"x", 10, False),
        (b"--- \t", 10, True),
        (b"---\r", 10, True),
        (b"---x", 10, False),
        (b"---\nname: a\n", 5, False),  # past max_bytes without a fence: too_large
        (b"---\nname: a\n", 10, True),  # a closing fence may follow within max_bytes
        (b"---\nname: a\n---", 100, True),  # a fence line not yet ended
        (b"---\nname: a\n---  ", 100, True),
        (b"---\nname: a\n---\n", 100, False),  # the closing fence, whole
        (b"---\r\nname: a\r\n---\r\n", 100, False),
        (b"---\nname: a\n---x\nmore", 100, True),  # not a fence; the next line may be one
        (b"---\nname: a\n---x\nmore", 12, False),  # ...but not within max_bytes
        (b"\xef\xbb\xbf---", 10, True),
        (b"\xef", 10, True),  # a read ending inside the BOM (found by the property below)
        (b"\xef\xbb", 10, True),
        (b"\xef\xbc", 10, False),
        (b"---\nlong line without end", 100, True),
        (b"---\nlong line without end", 5, False),
        (b"--- ", 10, True),  # one blank after the dashes, then the read ends
        (b"--- x\n", 10, False),  # a blank then a non-blank: not a fence (missing_fence)
        (b"---  x\n", 10, False),
        (b"---\nname: a\n", 8, True),  # a line start exactly max_bytes in may be the fence
        (b"---\nname: a\n---", 8, True),
        (b"---\nname: a\n", 7, False),  # one byte past the bound: too_large either way
        (b"---\n\n", 1, True),
    ],
)
def test_undecided_on_chosen_prefixes(data: bytes, max_bytes: int, expected: bool) -> None:
    """Each row is what the exact oracle ``_continuations_differ`` (below) says, pinned."""
    assert fm.undecided(data, max_bytes) is expected
    assert _continuations_differ(data, max_bytes) is expected


def test_the_fence_decision_refuses_what_is_not_bytes_and_counts() -> None:
    for call in (
        lambda: fm.undecided("---", 10),  # type: ignore[arg-type]
        lambda: fm.undecided(b"---", -1),
        lambda: fm.decisive_prefix(b"---", True, 10),
        lambda: fm.decisive_prefix(b"---", 3, "10"),  # type: ignore[arg-type]
        # A short read is the whole file and needs no fence decision: its limits are
        # still checked, the same as a full read's.
        lambda: fm.decisive_prefix(b"---", 10, -1),
        lambda: fm.decisive_prefix(b"---", 10, "10"),  # type: ignore[arg-type]
    ):
        with pytest.raises(DefinitionError) as caught:
            call()
        assert caught.value.code == "skill_provider_failed"
    assert fm.decisive_prefix(b"---\nname: a\n---\n", 100, 10) == b"---\nname: a\n---\n"
    assert fm.decisive_prefix(b"---\nname: a\n---\nbody", 20, 100) == b"---\nname: a\n---\nbod"


_BODY = b"name: a\ndescription: d\n"
_CRLF_BODY = _BODY.replace(b"\n", b"\r\n")


@pytest.mark.parametrize(
    ("whole", "max_bytes", "outcome"),
    [
        # The frontmatter is exactly max_bytes: the closing fence starts at the bound.
        (b"---\n" + _BODY + b"---\nbody\n", len(_BODY), "accepted"),
        (b"---\r\n" + _CRLF_BODY + b"---\r\nbody\r\n", len(_CRLF_BODY), "accepted"),
        (b"---\n" + _BODY + b"---\nbody\n", len(_BODY) - 1, "refused"),  # too_large
        # Opening fences padded with blanks: a read may end inside the padding.
        (b"--- \t \n" + _BODY + b"---\n", 100, "accepted"),
        (b"---  \r\n" + _BODY + b"---\n", 100, "accepted"),
        (b"--- x\n" + _BODY + b"---\n", 100, "refused"),  # missing_fence
    ],
)
def test_every_read_size_gives_the_whole_files_verdict_at_the_fence_bounds(
    whole: bytes, max_bytes: int, outcome: str
) -> None:
    """Discovery's bounded reads (``_decided_by_reads``), started at every size from one
    byte to past the file, end on the verdict of the whole file, on files whose fences sit
    at the edges the scan decides on: the frontmatter bound and blank-padded fences."""
    limits = FrontmatterLimits(max_bytes=max_bytes)
    expected = _verdict(whole, limits)
    assert expected[0] == outcome
    for limit in range(1, len(whole) + 2):
        assert _verdict(_decided_by_reads(whole, limit, limits), limits) == expected, limit


def test_negative_control_a_read_cut_at_its_last_newline_disagrees() -> None:
    """The defect mutant 125 injects: a full read cut at its last newline instead of decided."""
    limits = FrontmatterLimits(max_bytes=40)
    data = b"---\nname: a\ndescription: d\n" + b"y" * 100
    limit = 60
    cut = data[:limit][: data[:limit].rfind(b"\n") + 1]
    assert _verdict(cut, limits) != _verdict(data, limits)
    assert _verdict(_decided_by_reads(data, limit, limits), limits) == _verdict(data, limits)


_CONTINUATIONS = (
    b"\n",
    b"\r\n",
    b"\r",
    b"x",
    b"x\n",
    b" \n",
    b"\t\r\n",
    b"-",
    b"-\n",
    b"--\n",
    b"---",
    b"---\n",
    b"\n---",
    b"\n---\n",
    b"\r\n---\r\n",
    b"---\nname: a\ndescription: d\n---\n",
    b"\xbb\xbf---\n",  # the rest of a BOM
    b"\xbf---\n",
)


def _continuations_differ(data: bytes, max_bytes: int) -> bool:
    """Whether parsing ``data`` alone can differ from parsing a file that goes on past it:
    what ``undecided`` must answer, exactly (sound: never False when some continuation
    differs; precise: never True when none does, so a file is read further only when that
    can matter)."""
    limits = FrontmatterLimits(max_bytes=max_bytes)
    alone = _verdict(data, limits)
    return any(_verdict(data + rest, limits) != alone for rest in _CONTINUATIONS)


@given(_bounded_reads())
def test_undecided_is_exactly_whether_the_next_bytes_can_matter(
    case: tuple[bytes, int, FrontmatterLimits],
) -> None:
    data, limit, limits = case
    body = data.find(b"\n") + 1
    # Every prefix of a short file; of a long one, the reads and the frontmatter bound.
    ends = (
        range(len(data) + 1)
        if len(data) <= 160
        else (
            {limit - 1, limit, len(data)}
            | set(range(body + limits.max_bytes - 3, body + limits.max_bytes + 4))
        )
    )
    for end in sorted(ends):
        prefix = data[: max(0, end)]
        assert fm.undecided(prefix, limits.max_bytes) is _continuations_differ(
            prefix, limits.max_bytes
        ), prefix


# ------------------------------------------------- the recorded parse (lint's one parse)


@pytest.mark.parametrize(
    "data",
    [
        b"---\nname: a\ndescription: d\n---\nbody\n",
        b"---\nname: a\ndescription: d\nmetadata:\n  k: [1, 2]\n---\n",
        b"---\nname: a\n---\n",  # refused after the last event: missing_description
        b"---\nname: [a\n---\n",  # refused inside the YAML
        b"no fence\n",  # refused before any fence
        b"---\nname: a\n",  # unterminated
    ],
)
def test_a_recorded_parse_gives_the_verdict_of_a_plain_parse_and_records_what_it_saw(
    data: bytes,
) -> None:
    """``parse_recorded`` is ``parse_skill_document`` (the same result or the same refusal)
    and leaves in its record the fences, the frontmatter's text and the YAML events it
    streamed; a refusal before the fences leaves no span, no text and no event."""
    record = fm.ParseRecord()
    try:
        expected: object = parse_skill_document(data)
    except FrontmatterError as error:
        expected = (error.code, error.reason, error.line, error.column)
    try:
        got: object = fm.parse_recorded(data, record)
    except FrontmatterError as error:
        got = (error.code, error.reason, error.line, error.column)
    assert got == expected
    try:
        span = fm.find_frontmatter(data)
    except FrontmatterError:
        assert (record.span, record.text, record.events) == (None, None, [])
        return
    assert record.span == span
    assert record.text == data[span.start : span.end].decode("utf-8")
    events = [type(event) for event in record.events]
    if record.text.strip():
        assert events[:2] == [yaml.StreamStartEvent, yaml.DocumentStartEvent]
        assert yaml.MappingStartEvent in events


@pytest.mark.parametrize("record", [None, object(), [], "record"])
def test_a_recorded_parse_refuses_a_record_that_is_not_a_parse_record(record: object) -> None:
    with pytest.raises(DefinitionError) as raised:
        fm.parse_recorded(b"---\nname: a\ndescription: d\n---\n", record)  # type: ignore[arg-type]
    assert raised.value.code == "skill_frontmatter_invalid"
    assert not isinstance(raised.value, FrontmatterError)  # the argument, not the document


def test_a_recorded_parse_refuses_data_that_is_not_bytes_as_a_plain_parse_does() -> None:
    with pytest.raises(FrontmatterError) as raised:
        fm.parse_recorded("---\nname: a\n---\n", fm.ParseRecord())  # type: ignore[arg-type]
    assert (raised.value.reason, raised.value.line, raised.value.column) == ("encoding", 1, 1)
