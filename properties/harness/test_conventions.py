"""Tests say what they pin: no test name, docstring or comment of the tests, the library,
the scripts or the fuzz targets cites an issue number (a reader learns the rule, not the
ticket that found the gap; history lives in docs/decisions.md and the CHANGELOG), every
registered pytest marker is used (``--strict-markers`` catches a typo, not a marker nobody
applies), and every test id is the same in every process (pytest-xdist's workers must
collect the same tests)."""

from __future__ import annotations

import ast
import io
import re
import tokenize
import tomllib
from collections.abc import Iterator
from pathlib import Path

from harness.scratch import REPO, Scratch

FOLDERS = ("properties", "fuzz", "scripts", "core")
ISSUE = re.compile(r"(?<![a-z])issues?[ _#-]*\d", re.IGNORECASE)
# In prose: the word "issue" (or "issues", any case) then a number, a "#" allowed between;
# not an identifier that ends in "issues" before a number (a mutmut function name).
CITED = re.compile(r"(?<![\w])issues?\s*#?\s*\d", re.IGNORECASE)
WORD = re.compile("issue", re.IGNORECASE)


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
    found = [
        f"{path}:{line}: {name}"
        for line, name, docstring in named_docstrings(tree)
        if ISSUE.search(name) or CITED.search(docstring)
    ]
    if not WORD.search(text):
        # A comment is raw text: one citing an issue holds the word. Most files do not, and
        # tokenizing them all was most of this check's CPU time.
        return found
    comments = tokenize.generate_tokens(io.StringIO(text).readline)
    found += [
        f"{path}:{token.start[0]}: comment"
        for token in comments
        if token.type == tokenize.COMMENT and CITED.search(token.string)
    ]
    return found


def test_no_test_name_docstring_or_comment_cites_an_issue_number() -> None:
    found = [
        citation
        for path in sources()
        for citation in citations(path.read_text(encoding="utf-8"), str(path.relative_to(REPO)))
    ]
    assert found == [], "say the rule the test pins, not the issue that found the gap"


def test_the_citation_check_finds_a_name_a_docstring_and_a_comment() -> None:
    """Negative control: a planted name, docstring and comments are reported; an identifier
    ending in ``issues`` before a number, and an issue tracker's URL, are not citations."""
    planted = (
        '"""Module."""\n\n\ndef test_issue_12_regression() -> None:\n    pass\n\n\n'
        'def test_rule() -> None:\n    """Regression for issue 9, defect 4."""\n'
        "    x = 1  # the compact fit (Issue 20.2)\n"
        "# see issues/31 and content_issues 3f26\n"
        "# ------------ lint (issue 19)\n"
    )
    assert citations(planted, "planted.py") == [
        "planted.py:4: test_issue_12_regression",
        "planted.py:8: test_rule",
        "planted.py:10: comment",
        "planted.py:12: comment",
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
