"""pytest's results, read from its exit code and its JUnit XML (never from its printed output)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from enum import IntEnum
from pathlib import Path


class Exit(IntEnum):
    """pytest's documented exit codes (``pytest.ExitCode``; mirrored so the gate need not
    import pytest to read them)."""

    OK = 0
    TESTS_FAILED = 1
    INTERRUPTED = 2
    INTERNAL_ERROR = 3
    USAGE_ERROR = 4
    NO_TESTS_COLLECTED = 5


def exit_meaning(code: int) -> str:
    """``1`` -> ``"tests failed"``; a signal or unknown code is named as such."""
    if code < 0:
        return f"killed by signal {-code}"
    try:
        return Exit(code).name.lower().replace("_", " ")
    except ValueError:
        return f"exit {code}"


@dataclass(frozen=True)
class JUnit:
    """Totals of one JUnit file, the node ids of the failed and errored test cases, and of
    those that passed."""

    tests: int = 0
    failures: int = 0
    errors: int = 0
    skipped: int = 0
    failed: tuple[str, ...] = field(default=())
    readable: bool = False
    passed: tuple[str, ...] = field(default=())

    @property
    def ran(self) -> int:
        """Test cases that ran (not skipped)."""
        return self.tests - self.skipped


def node_id(case: ET.Element, root: Path | None = None) -> str:
    """pytest's node id of a JUnit test case: ``properties.test_x`` + ``test_y[1]`` ->
    ``properties/test_x.py::test_y[1]``. The module is the longest dotted prefix of the class
    name that is a file under ``root``; the rest are test classes (without ``root``: none)."""
    parts = case.get("classname", "").split(".")
    cut = len(parts)
    if root is not None:
        cut = next(
            (n for n in range(len(parts), 0, -1) if (root / f"{'/'.join(parts[:n])}.py").is_file()),
            len(parts),
        )
    return "::".join([f"{'/'.join(parts[:cut])}.py", *parts[cut:], case.get("name", "")])


def read_junit(path: Path | None, root: Path | None = None) -> JUnit:
    """The totals of pytest's ``--junitxml`` file (all zero, not readable, when it is missing
    or malformed: a run that wrote no report did no countable work); ``root`` is the folder
    pytest ran in, to name the failed cases by node id."""
    if path is None or not path.is_file():
        return JUnit()
    try:
        # The JUnit file the gate's own pytest run just wrote under build/, not input from
        # outside (S314's concern); expat resolves no external entity either way.
        top = ET.parse(path).getroot()  # noqa: S314
    except ET.ParseError:
        return JUnit()
    suites = [top] if top.tag == "testsuite" else list(top.iter("testsuite"))
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    failed: list[str] = []
    passed: list[str] = []
    for suite in suites:
        for key in totals:
            totals[key] += int(suite.get(key, "0") or 0)
        for case in suite.iter("testcase"):
            if case.find("failure") is not None or case.find("error") is not None:
                failed.append(node_id(case, root))
            elif case.find("skipped") is None:
                passed.append(node_id(case, root))
    return JUnit(**totals, failed=tuple(failed), readable=True, passed=tuple(passed))
