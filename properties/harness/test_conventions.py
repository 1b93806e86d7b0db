"""Tests say what they pin: no test name or docstring cites an issue number (a reader
learns the rule, not the ticket that found the gap), every registered pytest marker
is used (``--strict-markers`` catches a typo, not a marker nobody applies), and every test
id is the same in every process (pytest-xdist's workers must collect the same tests)."""

from __future__ import annotations

import ast
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path

from harness.scratch import REPO, Scratch

FOLDERS = ("properties", "fuzz", "scripts")
ISSUE = re.compile(r"(?<![a-z])issues?[ _#-]*\d", re.IGNORECASE)


def sources() -> Iterator[Path]:
    for folder in FOLDERS:
        yield from sorted((REPO / folder).rglob("*.py"))


def named_docstrings(tree: ast.Module) -> Iterator[tuple[int, str, str]]:
    """(line, name, docstring) of the module and of every function and class in it."""
    yield 1, "<module>", ast.get_docstring(tree) or ""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield node.lineno, node.name, ast.get_docstring(node) or ""


def citations(text: str, path: str) -> list[str]:
    tree = ast.parse(text, filename=path)
    return [
        f"{path}:{line}: {name}"
        for line, name, docstring in named_docstrings(tree)
        if ISSUE.search(name) or ISSUE.search(docstring)
    ]


def test_no_test_name_or_docstring_cites_an_issue_number() -> None:
    found = [
        citation
        for path in sources()
        for citation in citations(path.read_text(encoding="utf-8"), str(path.relative_to(REPO)))
    ]
    assert found == [], "say the rule the test pins, not the issue that found the gap"


def test_the_citation_check_finds_a_name_and_a_docstring() -> None:
    """Negative control: a planted name and a planted docstring are both reported."""
    planted = (
        '"""Module."""\n\n\ndef test_issue_12_regression() -> None:\n    pass\n\n\n'
        'def test_rule() -> None:\n    """Regression for issue 9, defect 4."""\n'
    )
    assert citations(planted, "planted.py") == [
        "planted.py:4: test_issue_12_regression",
        "planted.py:8: test_rule",
    ]


def test_every_registered_marker_is_used() -> None:
    options = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    markers = [line.split(":")[0] for line in options["tool"]["pytest"]["ini_options"]["markers"]]
    text = "\n".join(path.read_text(encoding="utf-8") for path in sources())
    unused = [marker for marker in markers if f"mark.{marker}" not in text]
    assert unused == []


ADDRESS_IDS = """
import pytest


@pytest.mark.parametrize("value", [1, object()], ids=repr)
def test_value(value: object) -> None:
    pass
"""


def test_a_test_id_holding_a_memory_address_fails_the_collection(bare: Scratch) -> None:
    """The suite's conftest refuses an id that differs between processes (``ids=repr`` of an
    object without a repr of its own): under pytest-xdist the workers would collect different
    tests. Control: the same module with ids of its own collects."""
    properties = bare.root / "properties"
    (properties / "conftest.py").write_text(
        (REPO / "properties" / "conftest.py").read_text(encoding="utf-8"), encoding="utf-8"
    )
    (properties / "test_ids.py").write_text(ADDRESS_IDS, encoding="utf-8")
    refused = bare.pytest("--collect-only", "properties/test_ids.py")
    assert refused.returncode == 4, refused.stdout + refused.stderr
    assert "hold a memory address" in refused.stdout + refused.stderr
    fixed = ADDRESS_IDS.replace("ids=repr", 'ids=["one", "object"]')
    (properties / "test_ids.py").write_text(fixed, encoding="utf-8")
    collected = bare.pytest("--collect-only", "properties/test_ids.py")
    assert collected.returncode == 0, collected.stdout + collected.stderr
