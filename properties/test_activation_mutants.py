"""Skill activation at the edges a random budget rarely reaches (docs/contract.md §10).

Plain, deterministic cases with counters built for them: a counter that is not monotone
(a black box may be anything) where only a text that is no candidate would fit, or where
the first cut fits and the minimal text does not; a line-additive counter that gives a
piece no token, so a sum equal to the limit must still take the next piece.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from a13n_harness import DefinitionError
from a13n_harness.context.activation import (
    ActivationSource,
    SkillActivation,
    check_activation,
    reference_activation,
    render_activation,
)

SOURCE = ActivationSource(
    "demo", "/d", b"---\nname: demo\ndescription: Demo.\n---\nOne\nThree\nTwo\n"
)
"""Three pieces of one line each: cuts k = 0, 1, 2 show 0, 1, 2 lines."""

OVER = 10**6


@dataclass(frozen=True)
class OnlyTextsHolding:
    """Not line-additive, not monotone: 0 for a text holding every needle, else OVER."""

    needles: tuple[str, ...]

    def count(self, text: str) -> int:
        return 0 if all(needle in text for needle in self.needles) else OVER


@dataclass(frozen=True)
class LetterCounter:
    """The letter ``e``: exactly line-additive, and a piece without it counts 0."""

    line_additive: bool = True

    def count(self, text: str) -> int:
        return text.count("e")


def _forged(source: ActivationSource, text: str, form: str) -> SkillActivation:
    return SkillActivation(source.name, text, source.directory, (), 0, True, form)


@pytest.mark.parametrize("render", [render_activation, reference_activation])
def test_a_text_that_is_no_candidate_is_never_taken(render: object) -> None:
    # Only a marker claiming every line (3) measures 0: no candidate holds one (the cuts
    # claim 0..2, the full text has no marker), so nothing fits but "" does.
    counter = OnlyTextsHolding(('lines_shown="3"',))
    activation = render(SOURCE, 5, counter)  # type: ignore[operator]
    assert activation == _forged(SOURCE, "", "empty")
    check_activation(SOURCE, 5, activation, counter)


def test_a_piece_counting_nothing_is_still_taken_at_the_limit() -> None:
    # "One" and "Three" hold an "e", the last piece "Two" none: the sums reach the
    # limit before "Two" and stay there, so the whole text fits exactly.
    counter = LetterCounter()
    full = render_activation(SOURCE, OVER, counter)
    assert full.form == "full"
    budget = counter.count(full.text)
    assert render_activation(SOURCE, budget, counter) == full
    assert reference_activation(SOURCE, budget, counter) == full
    check_activation(SOURCE, budget, full, counter)
    below = render_activation(SOURCE, budget - 1, counter)
    assert below.form != "full"
    assert below == reference_activation(SOURCE, budget - 1, counter)


@pytest.mark.parametrize(
    ("needles", "form"),
    [
        # The first cut and the minimal text fit, every other cut does not: the minimal
        # text comes after the first cut, so it is not the activation.
        (('lines_shown="0"',), "minimal"),
        # The first cut fits and the minimal text does not: "" is not the activation.
        (('lines_shown="0"', "<skill_directory>"), "empty"),
    ],
)
def test_a_fitting_first_cut_comes_before_the_minimal_text_and_empty(
    needles: tuple[str, ...], form: str
) -> None:
    counter = OnlyTextsHolding(needles)
    activation = render_activation(SOURCE, 5, counter)
    assert activation.form == "cut"
    assert 'lines_shown="0"' in activation.text
    assert "One" not in activation.text
    check_activation(SOURCE, 5, activation, counter)
    text = "" if form == "empty" else activation.text.split("<skill_directory>")[0]
    if form == "minimal":
        text += "</skill_content>\n"
    forged = _forged(SOURCE, text, form)
    with pytest.raises(DefinitionError) as caught:
        check_activation(SOURCE, 5, forged, counter)
    assert caught.value.code == "activation_not_certified"
    assert "an earlier candidate" in str(caught.value)


@pytest.mark.parametrize("counter", [None, LetterCounter()])
def test_an_empty_body_is_whole_only_within_the_budget(counter: LetterCounter | None) -> None:
    source = ActivationSource("demo", "/d", b"---\nname: demo\ndescription: Demo.\n---\n")
    full = render_activation(source, OVER, counter)
    assert full.form == "full"
    budget = len(full.text.encode()) if counter is None else counter.count(full.text)
    assert render_activation(source, budget, counter) == full
    below = render_activation(source, budget - 1, counter)
    assert below.form in ("minimal", "empty")
    assert below == reference_activation(source, budget - 1, counter)
    check_activation(source, budget - 1, below, counter)


@dataclass(frozen=True)
class IndentJoinCounter:
    """Line-additive by declaration, yet a line feed before a space is one token: the
    contract's line_additive joins only before a line that starts otherwise, so the head
    and a first body line that starts with a space are measured together."""

    line_additive: bool = True

    def count(self, text: str) -> int:
        return text.count("\n ")


def test_the_head_and_an_indented_first_line_are_measured_together() -> None:
    source = ActivationSource("demo", "/d", b"---\nname: demo\ndescription: Demo.\n---\n  x\nOne\n")
    counter = IndentJoinCounter()
    # Only the head joined to "  x" counts (1): the full text and cut 1 measure 1, cut 0 0.
    activation = render_activation(source, 0, counter)
    assert (activation.form, 'lines_shown="0"' in activation.text) == ("cut", True)
    assert activation == reference_activation(source, 0, counter)
    check_activation(source, 0, activation, counter)
    assert render_activation(source, 1, counter).form == "full"
