"""docs/verification.md is what the tree gives: one row per public function of the pure core,
and every column but the last result computed by scripts/verification_table.py."""

from __future__ import annotations

import re
import sys

from harness.scratch import REPO

if str(REPO / "scripts") not in sys.path:
    sys.path.append(str(REPO / "scripts"))

# scripts/ is on the path only from the lines above (E402 below).
from verification_table import (
    TABLE,
    Run,
    crosshair_results,
    junit_properties,
    parse_table,
    property_rows,
    public_functions,
    rows,
)

RESULT = ("confirmed", "no counterexample", "precondition unmet", "not run yet")
PASSED = re.compile(r"\d+ passed")


def drift(written: str) -> list[str]:
    """The rows of ``written`` that differ from the tree's, outside the last result."""
    found = parse_table(written)
    expected = {row[0].strip("`"): row for row in rows(Run(), {})}
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
        assert all(verdict in RESULT or PASSED.fullmatch(verdict) for verdict in verdicts), (
            name,
            cells[-1],
        )


def test_every_symbolic_property_has_a_row_with_its_budget_and_no_failure() -> None:
    written = parse_table(TABLE.read_text(encoding="utf-8"), 4)
    expected = {row[0].strip("`"): row for row in property_rows(Run(), {})}
    assert set(written) == set(expected)
    for node, cells in written.items():
        assert cells[1] == expected[node][1], node  # the budget is the tree's
        assert cells[3] in ("passed", "not run yet"), (node, cells[3])


def test_a_run_fills_the_last_result_from_its_junit_file() -> None:
    junit = (
        '<testsuites><testsuite><testcase classname="properties.test_encoder" '
        'name="test_encoded_values_are_inert"><properties>'
        '<property name="cpu_seconds" value="12.50" /></properties></testcase>'
        '<testcase classname="properties.test_encoder" '
        'name="test_decode_inverts_encode_for_every_str">'
        '<failure message="x" /></testcase></testsuite></testsuites>'
    )
    found = junit_properties(junit)
    assert found == {
        "properties/test_encoder.py::test_encoded_values_are_inert": ("passed", "12.50"),
        "properties/test_encoder.py::test_decode_inverts_encode_for_every_str": ("FAILED", ""),
    }
    run = Run(properties=found)
    table = {row[0]: row for row in property_rows(run, {})}
    assert table["`properties/test_encoder.py::test_encoded_values_are_inert`"][2:] == [
        "12.50",
        "passed",
    ]
    cells = {row[0]: row[-1] for row in rows(run, {})}
    assert "symbolic properties: 1 FAILED of" in cells["`encoder.encode_value`"]


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
