"""The shared checks: validators, reasons per code, one location format.

``a13n_harness.context._checks`` holds the predicates every entry point uses
(a count, a u64, a lone surrogate, bytes, a safe description of a refused
argument); ``a13n_harness.context.errors`` holds the table of reasons per code,
checked at every raise site, and the one location formatter. Each predicate
is compared with an oracle written differently here, and each property has a
negative control: a plausible broken implementation it catches.
"""

from __future__ import annotations

import ast
import asyncio
import math
import pickle
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import a13n_harness
from a13n_harness.capabilities import FileSkillSource, SkillsPolicy
from a13n_harness.context._checks import (
    MAX_U64,
    describe,
    has_lone_surrogate,
    is_bytes_like,
    is_count,
    is_text,
    is_u64,
)
from a13n_harness.context.catalog import MAX_TOTAL, CatalogEntry, SkillCatalog
from a13n_harness.context.errors import (
    ERROR_CODES,
    ERROR_REASONS,
    FRONTMATTER_REASONS,
    DefinitionError,
    FrontmatterError,
    format_location,
)
from a13n_harness.context.facts import (
    MAX_GIT_COUNT,
    EnvironmentFacts,
    GitStatus,
    render_environment,
)
from a13n_harness.context.manifest import ContextManifest
from a13n_harness.context.render import (
    catalog_allowance,
    framed_candidate,
    reference_render,
    render_catalog,
)
from a13n_harness.context.tokens import Utf8ByteCounter, render_catalog_counted
from a13n_harness.environment import MemoryFileOperator
from a13n_harness.testing.controls import control_settings, property_fails
from a13n_harness.testing.strategies import hostile_text

SOURCES = Path(a13n_harness.__file__).resolve().parent


class IntSubclass(int):
    """An int that is not an ``int``: a Host's object, never a count."""


class RaisingRepr:
    """An argument whose ``repr`` raises: a message must never call it."""

    def __repr__(self) -> str:
        raise RuntimeError("repr of a hostile argument")


# ------------------------------------------------------------------ counts and u64

INTEGERS = st.one_of(
    st.integers(),
    st.integers(-3, 3),
    st.sampled_from([MAX_U64 - 1, MAX_U64, MAX_U64 + 1, -MAX_U64, 10**5000, -(10**5000)]),
)
NOT_INTS = st.one_of(
    st.booleans(),
    st.floats(allow_nan=True),
    st.integers(0, 5).map(IntSubclass),
    st.none(),
    st.text(max_size=3),
    st.integers(0, 5).map(str),
    st.integers(0, 5).map(lambda n: bytes([n])),
)
VALUES = st.one_of(INTEGERS, NOT_INTS)


def count_oracle(value: object, minimum: int = 0) -> bool:
    # Written differently from the library: exclude bool and every int
    # subclass by class membership, compare by subtraction.
    return value.__class__ in (int,) and not isinstance(value, bool) and value - minimum >= 0


def counts_agree(implementation: Callable[..., bool]) -> Callable[[], None]:
    @given(VALUES, st.sampled_from([0, 1]))
    @example(True, 0)
    @example(0, 0)
    @example(0, 1)
    @example(-1, 0)
    def agree(value: object, minimum: int) -> None:
        assert implementation(value, minimum) is count_oracle(value, minimum), (value, minimum)

    return agree


def test_is_count_is_a_non_bool_int_at_least_its_minimum() -> None:
    counts_agree(is_count)()


@pytest.mark.parametrize(
    "broken",
    [
        lambda value, minimum=0: isinstance(value, int) and value >= minimum,  # True counts
        lambda value, minimum=0: type(value) is int and value > minimum,  # 0 refused
        lambda value, minimum=0: type(value) is int and value >= 0,  # minimum ignored
        lambda value, minimum=0: (
            isinstance(value, int)  # subclasses admitted
            and not isinstance(value, bool)
            and value >= minimum
        ),
    ],
    ids=["bool", "zero", "minimum", "subclass"],
)
def test_negative_control_counts_property_catches_a_broken_count(
    broken: Callable[..., bool],
) -> None:
    property_fails(control_settings(counts_agree(broken)))


def u64_oracle(value: object) -> bool:
    return count_oracle(value) and value.bit_length() <= 64  # type: ignore[attr-defined]


def u64_agrees(implementation: Callable[[object], bool]) -> Callable[[], None]:
    @given(VALUES)
    @example(MAX_U64)
    @example(MAX_U64 + 1)
    @example(True)
    def agree(value: object) -> None:
        assert implementation(value) is u64_oracle(value), value

    return agree


def test_is_u64_is_a_count_of_at_most_64_bits() -> None:
    assert MAX_U64 == 18_446_744_073_709_551_615
    assert MAX_TOTAL == MAX_GIT_COUNT == MAX_U64  # one bound, written once
    u64_agrees(is_u64)()


@pytest.mark.parametrize(
    "broken",
    [
        lambda value: type(value) is int and 0 <= value < MAX_U64,  # the bound itself refused
        lambda value: isinstance(value, int) and 0 <= value <= MAX_U64,  # True admitted
        lambda value: type(value) is int and 0 <= value <= 2**63 - 1,  # a signed bound
    ],
    ids=["exclusive", "bool", "signed"],
)
def test_negative_control_u64_property_catches_a_broken_bound(
    broken: Callable[[object], bool],
) -> None:
    property_fails(control_settings(u64_agrees(broken)))


# ------------------------------------------------------------------ lone surrogates

TEXTS = st.one_of(
    st.text(st.characters(blacklist_categories=()), max_size=12),
    hostile_text(),
    st.text(st.characters(min_codepoint=0xD7F0, max_codepoint=0xE010), max_size=4),
)


def surrogate_oracle(text: str) -> bool:
    return any(0xD800 <= ord(char) <= 0xDFFF for char in text)


def surrogates_agree(implementation: Callable[[str], bool]) -> Callable[[], None]:
    @given(TEXTS)
    @example("\ud800")
    @example("\udfff")
    @example("a\udc80b")
    @example("\ud7ff\ue000")
    @example("\U00010000")  # an astral character is one code point, not a surrogate pair
    def agree(text: str) -> None:
        assert implementation(text) is surrogate_oracle(text), ascii(text)

    return agree


def test_has_lone_surrogate_finds_every_code_point_in_the_surrogate_block() -> None:
    surrogates_agree(has_lone_surrogate)()


def _surrogatepass(text: str) -> bool:
    try:
        text.encode("utf-8", "surrogatepass")
    except UnicodeEncodeError:
        return True
    return False


@pytest.mark.parametrize(
    "broken",
    [
        _surrogatepass,  # never finds one
        lambda text: any(0xD800 <= ord(char) <= 0xDBFF for char in text),  # high half only
        lambda text: text[:1] != "" and 0xD800 <= ord(text[0]) <= 0xDFFF,  # first char only
    ],
    ids=["surrogatepass", "high-only", "first-only"],
)
def test_negative_control_surrogate_property_catches_a_broken_check(
    broken: Callable[[str], bool],
) -> None:
    property_fails(control_settings(surrogates_agree(broken)))


# ------------------------------------------------------------------ bytes and descriptions


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (b"", True),
        (bytearray(b"x"), True),
        (memoryview(b"x"), True),
        ("x", False),
        (10, False),  # bytes(10) would be ten NULs
        ([1, 2], False),  # bytes([1, 2]) would be two bytes
        (None, False),
    ],
)
def test_is_bytes_like_admits_only_buffers_of_bytes(value: object, expected: bool) -> None:
    assert is_bytes_like(value) is expected


# RaisingRepr is checked by name below, not drawn: Hypothesis itself calls repr
# on the arguments it reports.
ANYTHING = st.one_of(
    VALUES,
    st.builds(object),
    st.lists(st.integers(), max_size=3),
    st.just(math.nan),
)


def descriptions_are_safe(implementation: Callable[[object], str]) -> Callable[[], None]:
    @given(ANYTHING)
    @example(10**5000)
    @example(-(10**5000))
    def safe(value: object) -> None:
        shown = implementation(value)
        assert isinstance(shown, str)
        if type(value) is str:
            assert shown == repr(value)
        else:
            assert len(shown) <= 100, shown  # never grows with the argument

    return safe


def test_describe_never_raises_and_never_grows() -> None:
    descriptions_are_safe(describe)()
    assert describe(-1) == "-1"
    assert describe(MAX_U64) == str(MAX_U64)
    assert describe(-MAX_U64) == str(-MAX_U64)
    assert describe(MAX_U64 + 1) == "an int of 65 bits"  # the first int shown by its size
    assert describe(None) == "None"
    assert describe(True) == "True"
    assert describe("a'b") == repr("a'b")
    assert describe(10**5000) == "an int of 16610 bits"
    assert describe(RaisingRepr()) == "an object of type RaisingRepr"


@pytest.mark.parametrize(
    "broken",
    [repr, lambda value: f"{value}", lambda value: repr(value)[:100]],
    ids=["repr", "str", "cut-repr"],
)
def test_negative_control_description_property_catches_repr(
    broken: Callable[[object], str],
) -> None:
    property_fails(control_settings(descriptions_are_safe(broken)), (AssertionError, Exception))


# ------------------------------------------------------------------ reasons per code


def test_every_code_has_its_reasons_and_frontmatter_reasons_are_among_them() -> None:
    assert set(ERROR_REASONS) == ERROR_CODES
    assert FRONTMATTER_REASONS | {"limits"} == ERROR_REASONS["skill_frontmatter_invalid"]
    assert all(isinstance(reasons, frozenset) for reasons in ERROR_REASONS.values())
    with pytest.raises(TypeError):
        ERROR_REASONS["catalog_invalid"] = frozenset()  # type: ignore[index]


@given(st.sampled_from(sorted(ERROR_CODES)), st.data())
def test_a_listed_reason_constructs_and_any_other_raises_at_the_raise_site(
    code: str, data: st.DataObject
) -> None:
    reasons = sorted(ERROR_REASONS[code])
    if reasons:
        reason = data.draw(st.sampled_from(reasons))
        assert DefinitionError(code, "m", reason=reason).reason == reason
    assert DefinitionError(code, "m").reason is None
    typo = data.draw(
        st.one_of(
            st.text(max_size=12),
            st.sampled_from(reasons).map(lambda r: r[:-1]) if reasons else st.just("x"),
            st.sampled_from(sorted({r for rs in ERROR_REASONS.values() for r in rs})),
        ).filter(lambda r: r not in ERROR_REASONS[code])
    )
    with pytest.raises(ValueError, match="unknown reason"):
        DefinitionError(code, "m", reason=typo)


def test_a_reason_typo_raises_where_it_is_raised() -> None:
    """The example of the issue: a misspelt reason fails at once, as a misspelt code does."""
    with pytest.raises(ValueError, match="unknown reason 'entires' for code catalog_invalid"):
        DefinitionError("catalog_invalid", "x", reason="entires")
    with pytest.raises(ValueError, match="unknown error code 'catalog_invlid'"):
        DefinitionError("catalog_invlid", "x", reason="entries")
    with pytest.raises(ValueError, match="unknown reason"):
        DefinitionError("skill_root_missing", "x", reason="cwd")  # a reason of another code
    with pytest.raises(ValueError, match="unknown frontmatter reason"):
        FrontmatterError("limits")  # a DefinitionError reason, not a FrontmatterError one


# The raise sites, read from the sources: every DefinitionError(code, ..., reason=R),
# FrontmatterError(R, ...), and every call of a helper that passes one of its own
# parameters on as the reason (the modules' _invalid, _fail, refuse, _positive).
ERROR_TYPES: dict[str, str | None] = {
    "DefinitionError": None,
    "FrontmatterError": "skill_frontmatter_invalid",
}
# Pairs the walk cannot see, because the reason is computed: each says where.
COMPUTED_REASONS = {
    ("catalog_invalid", "unlisted"): "catalog.checked_total labels its two counts in a loop",
    ("skill_permission_denied", "link_escapes"): "FilePermissionDenied's code is its class's",
    ("skill_root_unsupported", "link_loop"): "FileUnsupported's code is its class's",
}


def _callee(call: ast.Call) -> str | None:
    function = call.func
    if isinstance(function, ast.Name):
        return function.id
    return function.attr if isinstance(function, ast.Attribute) else None


def _error_call(call: ast.Call) -> tuple[ast.expr | None, ast.expr | None] | None:
    """``(code, reason)`` expressions of a direct DefinitionError/FrontmatterError call."""
    name = _callee(call)
    if name not in ERROR_TYPES:
        return None
    keywords = {keyword.arg: keyword.value for keyword in call.keywords if keyword.arg}
    fixed = ERROR_TYPES[name]
    if fixed is None:
        return (call.args[0] if call.args else keywords.get("code")), keywords.get("reason")
    return ast.Constant(fixed), (call.args[0] if call.args else keywords.get("reason"))


def _strings(node: ast.expr | None) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.IfExp):
        return _strings(node.body) + _strings(node.orelse)
    return []


def raise_sites(source: str) -> Iterator[tuple[int, str, str]]:
    """``(line, code, reason)`` for every raise site of ``source`` with constant strings."""
    tree = ast.parse(source)
    helpers: dict[str, tuple[list[str], ast.expr | None, str]] = {}
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        arguments = function.args
        params = [a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs]
        for call in ast.walk(function):
            site = _error_call(call) if isinstance(call, ast.Call) else None
            if site is not None and isinstance(site[1], ast.Name) and site[1].id in params:
                helpers[function.name] = (params, site[0], site[1].id)
    for call in ast.walk(tree):
        if not isinstance(call, ast.Call):
            continue
        site = _error_call(call)
        name = _callee(call)
        if site is not None:
            code, reason = site
        elif name in helpers:
            params, code, reason_param = helpers[name]
            bound: dict[str, ast.expr] = dict(zip(params, call.args, strict=False))
            bound.update({keyword.arg: keyword.value for keyword in call.keywords if keyword.arg})
            if isinstance(code, ast.Name):
                code = bound.get(code.id)
            reason = bound.get(reason_param)
        else:
            continue
        for code_text in _strings(code):
            for reason_text in _strings(reason):
                yield call.lineno, code_text, reason_text


def unlisted_reasons(root: Path) -> list[str]:
    return [
        f"{path.relative_to(root)}:{line}: {code} / {reason}"
        for path in sorted(root.rglob("*.py"))
        for line, code, reason in raise_sites(path.read_text(encoding="utf-8"))
        if reason not in ERROR_REASONS.get(code, frozenset())
    ]


@pytest.mark.source_text
def test_every_reason_raised_in_the_sources_is_in_the_table() -> None:
    assert unlisted_reasons(SOURCES) == []


@pytest.mark.source_text
def test_every_reason_in_the_table_is_raised_somewhere() -> None:
    """No stale entry: the table is what the library raises (contract: "the reasons above
    are the ones the library raises")."""
    found = {
        (code, reason)
        for path in SOURCES.rglob("*.py")
        for _, code, reason in raise_sites(path.read_text(encoding="utf-8"))
    }
    table = {(code, reason) for code, reasons in ERROR_REASONS.items() for reason in reasons}
    assert table - found == set(COMPUTED_REASONS)


@pytest.mark.source_text
def test_negative_control_the_source_walk_finds_a_typo(tmp_path: Path) -> None:
    """A misspelt reason, direct or through a module's _invalid helper, is reported."""
    catalog = (SOURCES / "context" / "catalog.py").read_text(encoding="utf-8")
    assert catalog.count('_invalid("name",') == 1
    line = catalog[: catalog.index('_invalid("name",')].count("\n") + 1
    (tmp_path / "catalog.py").write_text(catalog.replace('_invalid("name",', '_invalid("nmae",'))
    (tmp_path / "direct.py").write_text(
        'raise DefinitionError("manifest_invalid", "m", reason="json_syntax")\n'
        'raise FrontmatterError("missing-name")\n'
        'x = DefinitionError("skill_root_invalid", "m", reason="limit" if a else "limits")\n'
    )
    assert unlisted_reasons(tmp_path) == [
        f"catalog.py:{line}: catalog_invalid / nmae",
        "direct.py:1: manifest_invalid / json_syntax",
        "direct.py:2: skill_frontmatter_invalid / missing-name",
        "direct.py:3: skill_root_invalid / limits",
    ]


# ------------------------------------------------------------------ one location format


@given(
    st.text(min_size=1, max_size=20),
    st.none() | st.integers(1, 10**6),
    st.none() | st.integers(1, 10**6),
)
def test_one_location_format(path: str, line: int | None, column: int | None) -> None:
    shown = format_location(path, line, column)
    if line is None:
        assert shown == path
    else:
        assert shown == f"{path}:{line}:{1 if column is None else column}"
    # DefinitionError's own text uses it, so errors, warnings and lint agree.
    error = DefinitionError("skill_root_missing", "gone", path=path, line=line, column=column)
    assert str(error) == f"{shown}: skill_root_missing: gone"


def test_location_format_examples() -> None:
    assert format_location("a/SKILL.md") == "a/SKILL.md"
    assert format_location("a/SKILL.md", 3, 7) == "a/SKILL.md:3:7"
    assert format_location("a/SKILL.md", 3) == "a/SKILL.md:3:1"  # was "a/SKILL.md:3" in str()
    assert format_location("a/SKILL.md", None, 7) == "a/SKILL.md"


# ------------------------------------------------------------------ refused arguments in messages

HUGE = 10**5000  # str() of it raises ValueError: past sys.get_int_max_str_digits()


class HugeCounter:
    """A token counter that answers an int no message may print with ``str()``."""

    def count(self, text: str) -> int:
        return -HUGE


def _catalog() -> SkillCatalog:
    return SkillCatalog((CatalogEntry("a", "b", "/c/SKILL.md"),), 0, ("/c",))


def _read(operator: object, path: object, limit: object) -> Callable[[], object]:
    return lambda: asyncio.run(operator.read_bytes(path, limit))  # type: ignore[attr-defined]


SHOWN_ARGUMENTS: dict[str, Callable[[object], object]] = {
    "render_catalog budget": lambda bad: render_catalog(_catalog(), bad),  # type: ignore[arg-type]
    "reference_render budget": lambda bad: reference_render(_catalog(), bad),  # type: ignore[arg-type]
    "catalog_allowance": lambda bad: catalog_allowance(bad, 0),  # type: ignore[arg-type]
    "framed_candidate listed": lambda bad: framed_candidate(_catalog(), bad),  # type: ignore[arg-type]
    "render_catalog_counted budget": lambda bad: render_catalog_counted(
        _catalog(),
        bad,  # type: ignore[arg-type]
        Utf8ByteCounter(),
    ),
    "render_catalog_counted counter": lambda bad: render_catalog_counted(
        _catalog(),
        100,
        bad,  # type: ignore[arg-type]
    ),
    "SkillCatalog unlisted": lambda bad: SkillCatalog((), bad),  # type: ignore[arg-type]
    "CatalogEntry name": lambda bad: CatalogEntry(bad, "b", "/c"),  # type: ignore[arg-type]
    "ContextManifest version": lambda bad: ContextManifest(None, _catalog(), bad),  # type: ignore[arg-type]
    "FileSkillSource root": lambda bad: FileSkillSource("s", (bad,)),  # type: ignore[arg-type]
    "FileSkillSource max_entries_per_root": lambda bad: FileSkillSource(
        "s",
        ("/a",),
        max_entries_per_root=bad,  # type: ignore[arg-type]
    ),
    "SkillsPolicy max_skills": lambda bad: SkillsPolicy(max_skills=bad),  # type: ignore[arg-type]
    "SkillsPolicy conflict": lambda bad: SkillsPolicy(conflict=bad),  # type: ignore[arg-type]
    "render_environment git count": lambda bad: render_environment(
        EnvironmentFacts(
            "/",
            "sh",
            "os",
            "d",
            "z",
            GitStatus("m", None, bad, 0, 0, 0, 0, 0, 0),  # type: ignore[arg-type]
        )
    ),
    "MemoryFileOperator path": lambda bad: _read(MemoryFileOperator({}), bad, 10)(),
    "MemoryFileOperator limit": lambda bad: _read(MemoryFileOperator({"f": b""}), "/f", bad)(),
}


# Where a huge positive int is also refused (elsewhere it is a valid bound).
HUGE_REFUSED = {
    "framed_candidate listed",
    "render_catalog_counted counter",
    "SkillCatalog unlisted",
    "CatalogEntry name",
    "ContextManifest version",
    "FileSkillSource root",
    "SkillsPolicy conflict",
    "MemoryFileOperator path",
    "render_environment git count",
}
SHOWN_CASES = [
    pytest.param(site, bad, id=f"{site}-{label}")
    for site in sorted(SHOWN_ARGUMENTS)
    for label, bad in (("huge", HUGE), ("negative-huge", -HUGE), ("raising-repr", RaisingRepr()))
    if label != "huge" or site in HUGE_REFUSED
]


@pytest.mark.parametrize(("site", "bad"), SHOWN_CASES)
def test_a_refused_argument_is_described_never_printed(site: str, bad: object) -> None:
    """Regression: a message that showed the argument with ``!r`` let
    ``ValueError`` (an int past 4,300 digits) or the argument's own ``__repr__`` escape."""
    with pytest.raises(DefinitionError) as caught:
        SHOWN_ARGUMENTS[site](bad)
    assert len(caught.value.message) < 300


def test_a_counter_answering_a_huge_count_is_refused() -> None:
    with pytest.raises(DefinitionError) as caught:
        render_catalog_counted(_catalog(), 100, HugeCounter())
    assert (caught.value.code, caught.value.reason) == ("allowance_invalid", "counter")


# ------------------------------------------------------------------ the error type itself


@pytest.mark.parametrize(
    ("value", "expected"),
    [("", True), ("é", True), ("\ud800", False), ("a\udfffb", False), (b"x", False), (None, False)],
)
def test_is_text_is_a_str_with_a_utf8_form(value: object, expected: bool) -> None:
    assert is_text(value) is expected


ERRORS = [
    DefinitionError("catalog_invalid", "bad entries", reason="entries"),
    DefinitionError("skill_root_missing", "gone", path="/r", line=3, column=7),
    DefinitionError("skill_root_missing"),
    FrontmatterError("missing_name", path="/s/SKILL.md", line=1, column=1),
    FrontmatterError("name_invalid", "bad name", path="/s/SKILL.md", line=2),
]


@pytest.mark.parametrize("error", ERRORS, ids=repr)
def test_an_error_survives_pickling_whole(error: DefinitionError) -> None:
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is type(error)
    assert copy.__dict__ == error.__dict__
    assert (str(copy), repr(copy), copy.args) == (str(error), repr(error), error.args)


def test_str_repr_and_defaults_of_the_error_type() -> None:
    plain = DefinitionError("skill_root_missing")
    assert (plain.message, plain.args) == ("skill_root_missing", ("skill_root_missing",))
    assert str(plain) == "skill_root_missing: skill_root_missing"
    located = DefinitionError("catalog_invalid", "bad", reason="entries", path="/p", line=2)
    assert str(located) == "/p:2:1: catalog_invalid (entries): bad"
    assert repr(located) == (
        "DefinitionError(code='catalog_invalid', message='bad', reason='entries', "
        "path='/p', line=2, column=None)"
    )
    front = FrontmatterError("missing_name", path="/s/SKILL.md", line=4, column=5)
    assert (front.code, front.reason, front.message) == (
        "skill_frontmatter_invalid",
        "missing_name",
        "missing name",  # the reason, spelt with spaces, when no message is given
    )
    assert (front.path, front.line, front.column) == ("/s/SKILL.md", 4, 5)
    assert str(front) == "/s/SKILL.md:4:5: skill_frontmatter_invalid (missing_name): missing name"
    assert repr(front).startswith("FrontmatterError(code='skill_frontmatter_invalid', ")
    assert FrontmatterError("alias", "anchors").message == "anchors"
    with pytest.raises(ValueError, match="unknown frontmatter reason 'nope'"):
        FrontmatterError("nope")
    with pytest.raises(ValueError, match="unknown frontmatter reason an object of type list"):
        FrontmatterError([])  # type: ignore[arg-type]
