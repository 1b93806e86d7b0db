"""CrossHair's contracts replayed as plain tests, so pytest checks them on every run.

``properties/crosshair_contracts.py`` states the contracts; CrossHair searches
for counterexamples in the gate. Every counterexample it reports is added to
``REPLAYS`` below (none so far: the last run reported 9 conditions, none
refuted), and the boundary inputs that matter most are checked here directly
through the same wrapper functions and conditions.
"""

from __future__ import annotations

import importlib
import inspect
import re

import pytest

from a13n_harness.context.catalog import MAX_TOTAL

# Beside this file, not a package: pytest puts properties/ on sys.path.
contracts = importlib.import_module("crosshair_contracts")

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
