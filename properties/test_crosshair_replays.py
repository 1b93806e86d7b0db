"""CrossHair's contracts replayed as plain tests, so pytest checks them on every run.

``properties/crosshair_contracts.py`` (the quick gate's) and ``properties/crosshair_core.py``
(the full gate's) state the contracts; CrossHair searches for counterexamples in the gate.
Every counterexample it reports is added to ``REPLAYS`` or ``CORE_REPLAYS`` below (none so
far: the last runs refuted no condition, docs/verification.md), and the boundary inputs that
matter most are checked here directly through the same wrapper functions and conditions.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from pathlib import Path
from types import ModuleType

import pytest

from a13n_harness.context.catalog import MAX_TOTAL

# The two contract modules, imported by this module's first test, not at collection: they
# import CrossHair and z3 (40 MB, a third of a CPU second; three on a fresh clone, compiling
# them), which every pytest-xdist worker would import for tests one of them runs.
contracts: ModuleType
core: ModuleType


@pytest.fixture(autouse=True, scope="module")
def _contract_modules() -> None:
    global contracts, core  # noqa: PLW0603 - see above
    # Beside this file, not a package: pytest puts properties/ on sys.path.
    contracts = importlib.import_module("crosshair_contracts")
    core = importlib.import_module("crosshair_core")


def _table_lengths(*names: str) -> dict[str, int]:
    """How many values each of ``crosshair_core``'s tuples ``names`` holds, read from its
    source (the boundary inputs below index those tables, and are listed at collection)."""
    source = (Path(__file__).resolve().parent / "crosshair_core.py").read_text(encoding="utf-8")
    found = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = ast.unparse(node.targets[0])
            if target in names and isinstance(node.value, ast.Tuple):
                found[target] = len(node.value.elts)
    assert set(found) == set(names), f"crosshair_core.py's tables moved: {found}"
    return found


TABLES = _table_lengths("CWDS", "AHEADS", "NAMES")

# (function name, positional arguments) of each counterexample CrossHair reported.
REPLAYS: list[tuple[str, tuple[object, ...]]] = []
BOUNDARY: list[tuple[str, tuple[object, ...]]] = [
    ("render_contract", (1, 1, 0, 0)),
    ("render_contract", (40, 40, 2, 800)),
    ("render_contract", (40, 1, 2, 335)),
    *[("render_contract", (7, 3, 1, budget)) for budget in range(0, 520, 13)],
    *[("compact_contract", (101, 64, 1, budget)) for budget in range(0, 900, 11)],
    *[("compact_contract", (65, 100, 0, budget)) for budget in range(300, 700, 3)],
    ("compact_contract", (60, 60, 2, 0)),
    ("compact_contract", (104, 104, 0, 900)),
    ("encode_contract", ("",)),
    ("encode_contract", ("\ud800<\u2028>&\x85\u202e\ufeff",)),
    ("encode_contract", ("\u00ad\u061c\u180e\u200b\u2060\u206f\ufff9\U000e0041\U000e007f",)),
    ("decode_contract", ("&#xa;",)),
    ("decode_contract", ("&#xA;",)),
    ("decode_contract", ("&amp;amp;",)),
    ("checked_total_contract", (0, MAX_TOTAL)),
    ("checked_total_contract", (1, MAX_TOTAL)),
    ("checked_total_contract", (MAX_TOTAL, 0)),
]


def _conditions(function: object, kind: str) -> list[str]:
    doc = inspect.getdoc(function) or ""
    return [m.group(1) for m in re.finditer(rf"^{kind}: (.+)$", doc, re.MULTILINE)]


# The same for the contracts of crosshair_core.py: each at the ends of its bounds and inside.
CORE_REPLAYS: list[tuple[str, tuple[object, ...]]] = []
CORE_BOUNDARY: list[tuple[str, tuple[object, ...]]] = [
    *[("is_escaped_contract", (c,)) for c in (0, 0x1F, 0x85, 0x2028, 0xD800, 0x10FFFF)],
    *[
        ("joins_emoji_contract", (t, i))
        for t in ("\U0001f468\u200d\U0001f469", "a\u200db")
        for i in (0, 1)
    ],
    ("joins_emoji_contract", ("1\ufe0f\u20e3", 1)),
    ("joins_emoji_contract", ("\u2764\ufe0e", 1)),
    *[("name_contract", (n,)) for n in ("", "a-b", "a--b", "-a", "a-", "A", "a" * 64, "a" * 65)],
    *[("normalize_contract", (t, 3)) for t in (" a  b ", "abcdefghij", "a\u2028b", "\u3000x")],
    ("normalize_contract", ("a\x1cb\x85c", 8)),
    *[("cut_contract", (d, c)) for d in ("", "abc", "abcd", "\u20ac" * 10) for c in (1, 3, 8)],
    *[("allowance_contract", (c, r)) for c in (0, 19, 20, 10**20) for r in (0, 1, 10**20)],
    *[("civil_date_contract", (e, o)) for e in (0, -1, 10**11, -(6 * 10**10)) for o in (-1, 0)],
    ("catalog_contract", (1, 1, 0)),
    ("catalog_contract", (6, 6, MAX_TOTAL - 2)),
    *[("framed_contract", (30, 1, u, k)) for u in (0, 2) for k in (0, 1, 2)],
    *[("minimal_contract", (k, u)) for k in (0, 1, 2) for u in (0, 1, 3)],
    ("compact_candidate_contract", (60, 104, 1)),
    ("compact_candidate_contract", (104, 60, 0)),
    *[("reference_contract", (7, 3, 1, b)) for b in range(0, 801, 80)],
    *[("verify_contract", (5, 30, b, f)) for b in (0, 250, 600) for f in (False, True)],
    *[("counted_contract", (5, 30, 2, b)) for b in range(0, 601, 100)],
    *[("declares_contract", (c,)) for c in range(5)],
    *[("facts_contract", (c, a)) for c in range(TABLES["CWDS"]) for a in range(TABLES["AHEADS"])],
    *[("git_status_contract", (d,)) for d in (b"", b"\x00", b"# branch.head main\x00")],
    *[("parse_contract", (d,)) for d in (b"", b"---\n", b"---\nname: a\n---\n", b"\xff---")],
    *[("span_contract", (d,)) for d in (b"", b"---\n---", b"\xef\xbb\xbf---\nx\n---\nb", b"---")],
    *[("decided_contract", (b"---\nname: a\n---\n", r)) for r in (1, 3, 4, 12, 16, 20)],
    *[("check_document_contract", (d,)) for d in (b"", b"---\nname: alpha\n---\n", b"\xfe")],
    *[("rule_contract", (c,)) for c in ("", "yaml_syntax", "skill_frontmatter_invalid")],
    ("rules_document_contract", ()),
    *[("manifest_contract", (0, 3, 2, c)) for c in range(TABLES["CWDS"])],
    *[("publish_contract", (5, 20, m)) for m in range(0, 701, 50)],
    *[("body_codec_contract", (b,)) for b in ("", "a<b&c\r\n", "\ud800\u2028\t\n", "\r\r\n")],
    *[("activation_body_contract", (b, c)) for b in ("", "a\nb", "a\r\nb\n") for c in (0, 1)],
    *[("activation_contract", ("x\ny", b)) for b in range(0, 401, 40)],
    *[("repeat_contract", (c,)) for c in range(TABLES["NAMES"])],
]


def check_contract(module: object, name: str, args: tuple[object, ...]) -> None:
    """Each ``pre:`` of ``module``'s contract ``name`` holds for ``args``, and each ``post:``
    holds for its result."""
    function = getattr(module, name)
    names = list(inspect.signature(function).parameters)
    scope = {**vars(module), **dict(zip(names, args, strict=True))}
    for condition in _conditions(function, "pre"):
        assert eval(condition, scope), condition
    scope["__return__"] = function(*args)
    posts = _conditions(function, "post")
    assert posts
    for condition in posts:
        assert eval(condition, scope), condition


@pytest.mark.parametrize(("name", "args"), CORE_REPLAYS + CORE_BOUNDARY, ids=repr)
def test_core_contract_holds(name: str, args: tuple[object, ...]) -> None:
    check_contract(core, name, args)


def test_every_core_contract_is_replayed() -> None:
    replayed = {name for name, _ in CORE_REPLAYS + CORE_BOUNDARY}
    assert replayed == {name for name in vars(core) if name.endswith("_contract")}


def test_negative_control_a_broken_cut_fails_its_contract(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A cut that keeps ``cap`` code points before the mark (one too many) is caught."""
    monkeypatch.setattr(
        core, "cut_description", lambda d, cap: d if len(d) <= cap else d[:cap] + "…"
    )
    with pytest.raises(AssertionError):
        check_contract(core, "cut_contract", ("abcd", 3))


@pytest.mark.parametrize(("name", "args"), REPLAYS + BOUNDARY, ids=repr)
def test_contract_holds(name: str, args: tuple[object, ...]) -> None:
    """Each ``pre:`` holds for the input and each ``post:`` holds for the result."""
    function = getattr(contracts, name)
    names = list(inspect.signature(function).parameters)
    scope = {**vars(contracts), **dict(zip(names, args, strict=True))}
    for condition in _conditions(function, "pre"):
        assert eval(condition, scope), condition
    scope["__return__"] = function(*args)
    posts = _conditions(function, "post")
    assert posts
    for condition in posts:
        assert eval(condition, scope), condition


def test_the_boundary_inputs_index_the_tables_the_contracts_use() -> None:
    """The lengths read from the source at collection are the modules' own tables'."""
    for name, length in TABLES.items():
        assert length == len(getattr(core, name)), name
