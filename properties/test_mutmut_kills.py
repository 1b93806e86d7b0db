"""Exact examples that kill the mutants ``scripts/mutmut.py`` found surviving.

Each test pins one rule of SPEC.md at a boundary the property tests reach
only by chance; its docstring names the rule. They are fast and exact: no
Hypothesis, no timing.
"""

from __future__ import annotations

import pytest
import yaml

from a13n_harness.context import frontmatter as fm
from a13n_harness.context.errors import FrontmatterError
from a13n_harness.context.frontmatter import (
    FrontmatterLimits,
    normalize_description,
    parse_skill_document,
)


def _frontmatter_error(data: bytes) -> FrontmatterError:
    with pytest.raises(FrontmatterError) as caught:
        parse_skill_document(data)
    return caught.value


# --- section 2: SKILL.md frontmatter ---------------------------------------------------------


@pytest.mark.parametrize("field", ["max_bytes", "max_depth", "max_nodes", "max_description_chars"])
def test_frontmatter_limits_accept_one_and_refuse_zero(field: str) -> None:
    """SPEC 2: every FrontmatterLimits field is a positive int, so 1 is the smallest allowed."""
    assert getattr(FrontmatterLimits(**{field: 1}), field) == 1
    with pytest.raises(ValueError, match=field):
        FrontmatterLimits(**{field: 0})


def test_normalize_description_default_limit_is_1024() -> None:
    """SPEC 2: the default description limit is 1,024 code points; 1,025 are cut with an ellipsis."""
    assert normalize_description("a" * 1024) == ("a" * 1024, False)
    assert normalize_description("a" * 1025) == ("a" * 1023 + "\N{HORIZONTAL ELLIPSIS}", True)


def test_private_use_code_point_after_the_surrogates_is_a_valid_description() -> None:
    """SPEC 2/3: only lone surrogates (U+D800..U+DFFF) are refused; U+E000 is an ordinary character."""
    data = "---\nname: a\ndescription: x\ue000 \ud7ff\n---\n".encode()
    assert parse_skill_document(data).description == "x\ue000 \ud7ff"


@pytest.mark.parametrize("escape", ["\\ud800", "\\udfff"])
def test_pure_parser_surrogate_escapes_are_description_invalid(
    monkeypatch: pytest.MonkeyPatch, escape: str
) -> None:
    """SPEC 0/2: without libyaml the pure parser is used; a lone surrogate in a
    description (first and last of U+D800..U+DFFF) is ``description_invalid``."""
    monkeypatch.setattr(fm, "_EventSource", yaml.BaseLoader)
    data = f'---\nname: a\ndescription: "x{escape}"\n---\n'.encode()
    error = _frontmatter_error(data)
    assert (error.reason, error.line, error.column) == ("description_invalid", 3, 14)


def test_error_position_after_an_empty_first_frontmatter_line() -> None:
    """SPEC 2: line/column are 1-based in the whole file; an empty line 2 puts a tag on line 3, column 1."""
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
    """SPEC 2: a PyYAML error is ``yaml_syntax`` located (1-based, whole file) at its problem mark."""
    error = _frontmatter_error(data)
    assert (error.reason, error.line, error.column) == ("yaml_syntax", line, column)
