"""The gate's report writers: a plain-text table, a JSON summary, a JUnit file of cases."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any


def write_json(path: Path, data: Any) -> None:
    """``data`` as indented JSON, folders created, ending in a newline."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def read_json(path: Path) -> dict[str, Any] | None:
    """A JSON object a step wrote, or None when it wrote none."""
    if not path.is_file():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    return data if isinstance(data, dict) else None


def table(header: Sequence[str], rows: Sequence[Sequence[object]], numeric: int = 0) -> str:
    """Columns padded to their widest cell; the last ``numeric`` columns before the final one
    right-aligned (the final column is free text and not padded)."""
    cells = [[str(cell) for cell in row] for row in [header, *rows]]
    widths = [max(len(row[index]) for row in cells) for index in range(len(header) - 1)]
    first_numeric = len(header) - 1 - numeric
    lines = []
    for row in cells:
        padded = [
            cell.rjust(width) if index >= first_numeric else cell.ljust(width)
            for index, (cell, width) in enumerate(zip(row, widths, strict=False))
        ]
        lines.append("  ".join([*padded, row[-1]]).rstrip())
    return "\n".join(lines)


@dataclass(frozen=True)
class Case:
    """One JUnit test case: a gate step or one checked item."""

    name: str
    seconds: float
    failure: str = ""  # the message; empty when the case passed
    details: str = ""  # the failure's body
    output: str = ""  # system-out
    skipped: str = ""  # why the case did not run; empty when it ran


def write_junit(path: Path, suite: str, cases: Sequence[Case], seconds: float) -> None:
    """A JUnit file of one suite; a case with a failure message failed."""
    failed = sum(bool(case.failure) for case in cases)
    skipped = sum(bool(case.skipped) for case in cases)
    tests, failures = str(len(cases)), str(failed)
    element = ET.Element(
        "testsuite",
        name=suite,
        tests=tests,
        failures=failures,
        errors="0",
        skipped=str(skipped),
        time=f"{seconds:.1f}",
    )
    for case in cases:
        node = ET.SubElement(
            element, "testcase", classname=suite, name=case.name, time=f"{case.seconds:.1f}"
        )
        if case.failure:
            ET.SubElement(node, "failure", message=case.failure).text = case.details
        if case.skipped:
            ET.SubElement(node, "skipped", message=case.skipped)
        if case.output:
            ET.SubElement(node, "system-out").text = case.output
    suites = ET.Element("testsuites", tests=tests, failures=failures)
    suites.append(element)
    tree = ET.ElementTree(suites)
    ET.indent(tree)
    path.parent.mkdir(parents=True, exist_ok=True)
    tree.write(path, encoding="utf-8", xml_declaration=True)
