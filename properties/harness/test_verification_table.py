"""docs/verification.md is what the tree gives: one row per public function of the pure core,
and every column but the last result computed by scripts/verification_table.py."""

from __future__ import annotations

import sys

from harness.scratch import REPO

if str(REPO / "scripts") not in sys.path:
    sys.path.append(str(REPO / "scripts"))

# scripts/ is on the path only from the lines above (E402 below).
from verification_table import (
    TABLE,
    crosshair_results,
    parse_table,
    public_functions,
    rows,
)

RESULT = ("confirmed", "no counterexample", "precondition unmet", "not run yet")


def drift(written: str) -> list[str]:
    """The rows of ``written`` that differ from the tree's, outside the last result."""
    found = parse_table(written)
    expected = {row[0].strip("`"): row for row in rows({}, {})}
    problems = [f"{name}: no row" for name in sorted(set(expected) - set(found))]
    problems += [f"{name}: no such public function" for name in sorted(set(found) - set(expected))]
    for name in sorted(set(found) & set(expected)):
        if found[name][:-1] != expected[name][:-1]:
            problems.append(f"{name}: {found[name][:-1]} != {expected[name][:-1]}")
    return problems


def test_the_verification_table_is_the_trees() -> None:
    written = TABLE.read_text(encoding="utf-8")
    assert len(parse_table(written)) == len(public_functions()) > 40
    assert drift(written) == []


def test_every_row_has_a_last_result_and_none_is_a_counterexample() -> None:
    for name, cells in parse_table(TABLE.read_text(encoding="utf-8")).items():
        verdicts = [part.split(": ", 1)[-1] for part in cells[-1].split("; ")]
        assert verdicts, name
        assert all(verdict in RESULT for verdict in verdicts), (name, cells[-1])


def test_negative_control_a_changed_bound_or_a_missing_row_is_drift() -> None:
    written = TABLE.read_text(encoding="utf-8")
    lines = written.splitlines(keepends=True)
    row = next(i for i, line in enumerate(lines) if line.startswith("| `render.cut_description`"))
    widened = written.replace("`1 <= cap <= 8`", "`1 <= cap <= 9`")
    assert widened != written
    assert [p.split(":")[0] for p in drift(widened)] == ["render.cut_description"]
    assert drift("".join(lines[:row] + lines[row + 1 :])) == ["render.cut_description: no row"]


def test_crosshair_log_lines_belong_to_the_contract_holding_them() -> None:
    source = 'def a_contract(x: int) -> int:\n    """post: __return__ == x"""\n    return x\n'
    log = (
        "/t/properties/c.py:2: info: Confirmed over all paths.\n"
        "/t/properties/c.py:9: error: not in a contract\n"
    )
    assert crosshair_results(log, {"c.py": source}) == {"a_contract": "confirmed"}
    error = "/t/properties/c.py:2: error: false when calling a_contract(x=1)\n"
    assert crosshair_results(log + error, {"c.py": source}) == {"a_contract": "COUNTEREXAMPLE"}
