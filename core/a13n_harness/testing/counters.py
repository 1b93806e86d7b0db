"""Checks of a token counter's declarations (docs/contract.md §9), importable by hosts.

A :class:`~a13n_harness.context.tokens.TokenCounter` may declare
``byte_bounded``, ``prefix_monotone`` and ``line_additive``; the renderer
trusts what it declares. Each ``check_*`` function runs a Hypothesis property
over hostile text, catalog-shaped text and real-world text (``samples``:
prose, Markdown, code a host has at hand) and raises ``AssertionError`` with
the counterexample when the counter breaks it. :func:`check_declarations`
runs the check of every property the counter declares. They run as many
examples as the active Hypothesis profile asks; ``control=True`` runs them as
a negative control (500 examples, no shrinking), to show a broken counter fails.
"""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from a13n_harness.context.render import framed_candidate
from a13n_harness.context.tokens import LINE_START_EXCLUDED, TokenCounter, declares
from a13n_harness.testing.controls import control_settings
from a13n_harness.testing.strategies import _built_once, hostile_text, skill_catalogs

__all__ = [
    "check_byte_bounded",
    "check_declarations",
    "check_line_additive",
    "check_prefix_monotone",
    "line_pairs",
    "text_pairs",
    "texts",
]

# Catalog-shaped text: lines, words, markers, the characters a counter's quirks sit on.
_CATALOG_ALPHABET = " \n-:ab.()&;<>/1"


def texts(samples: Sequence[str] = ()) -> st.SearchStrategy[str]:
    """Hostile text, catalog-shaped text and slices of ``samples``."""
    return _texts(tuple(samples))


@_built_once
def _texts(samples: tuple[str, ...]) -> st.SearchStrategy[str]:
    choices = [
        hostile_text(surrogates=False, max_size=200),
        st.text(alphabet=_CATALOG_ALPHABET, max_size=80),
        st.text(st.characters(codec="utf-8"), max_size=80),
    ]
    if samples:
        choices.append(_slices(samples))
    return st.one_of(choices)


@st.composite
def _slices(draw: st.DrawFn, samples: Sequence[str]) -> str:
    text = draw(st.sampled_from(list(samples)))
    start = draw(st.integers(0, len(text)))
    return text[start : start + draw(st.integers(0, 600))]


@st.composite
def text_pairs(draw: st.DrawFn, samples: Sequence[str] = ()) -> tuple[str, str]:
    """``(a, b)``: any two texts, or a real text cut at any point (mid-word included).

    When cut from real text ``b`` is often the rest of the word the cut falls in,
    where a tokenizer's quirks at a prefix show (about 7% of such cuts of English
    prose give cl100k more tokens for the prefix than for the whole word).
    """
    from_samples: bool = draw(st.booleans()) if samples else False
    if from_samples:
        text = draw(_slices(samples))
        cut = draw(st.integers(0, len(text)))
        if draw(st.booleans()):
            rest = text[cut:].split(maxsplit=1)
            end = cut + (len(rest[0]) if rest and not text[cut : cut + 1].isspace() else 0)
        else:
            end = cut + draw(st.integers(0, 6) | st.integers(0, len(text)))
        return text[:cut], text[cut:end]
    return draw(texts(samples)), draw(texts(samples))


def _starts_a_line(text: str) -> bool:
    return not text or not (text[0].isspace() or text[0] in LINE_START_EXCLUDED)


_LINE_STARTS = st.characters(codec="utf-8").filter(_starts_a_line)


@st.composite
def line_pairs(draw: st.DrawFn, samples: Sequence[str] = ()) -> tuple[str, str]:
    """``(a, b)`` meeting ``line_additive``'s precondition.

    ``a`` ends in a line feed; ``b`` is empty or starts with a character that is
    neither whitespace nor in ``LINE_START_EXCLUDED``. Drawn from hostile text,
    from real text cut at line starts, and from the renderer's own candidates
    cut between lines.
    """
    kind = draw(
        st.sampled_from(["hostile", "catalog", "samples"] if samples else ["hostile", "catalog"])
    )
    if kind == "catalog":
        catalog = draw(skill_catalogs(max_entries=3))
        listed = draw(st.integers(0, len(catalog.entries)))
        if catalog.total == 0:
            return "\n", ""
        lines = framed_candidate(catalog, listed).splitlines(keepends=True)
        cut = draw(st.integers(1, len(lines)))
        return "".join(lines[:cut]), "".join(lines[cut:])
    if kind == "samples":
        lines = [
            line for line in draw(_slices(samples)).splitlines(keepends=True) if line.endswith("\n")
        ]
        cut = draw(st.integers(0, len(lines)))
        a = "".join(lines[:cut]) + "\n"
        rest = "".join(lines[cut:])
        start = next((i for i, c in enumerate(rest) if _starts_a_line(c)), len(rest))
        return a, rest[start:]
    a = draw(texts()) + "\n"
    b = draw(texts())
    first = draw(_LINE_STARTS)
    return a, (first + b) if b else b


def _settings(control: bool) -> settings:
    return control_settings if control else settings()


def check_byte_bounded(
    counter: TokenCounter, samples: Sequence[str] = (), *, control: bool = False
) -> None:
    """``count(text) <= len(text.encode("utf-8"))``."""

    @_settings(control)
    @given(texts(samples))
    def check(text: str) -> None:
        assert counter.count(text) <= len(text.encode("utf-8")), text

    check()


def check_prefix_monotone(
    counter: TokenCounter, samples: Sequence[str] = (), *, control: bool = False
) -> None:
    """``count(a) <= count(a + b)``."""

    @_settings(control)
    @given(text_pairs(samples))
    def check(pair: tuple[str, str]) -> None:
        a, b = pair
        assert counter.count(a) <= counter.count(a + b), pair

    check()


def check_line_additive(
    counter: TokenCounter, samples: Sequence[str] = (), *, control: bool = False
) -> None:
    """``count(a + b) == count(a) + count(b)`` when ``a`` ends a line and ``b`` starts one."""

    @_settings(control)
    @given(line_pairs(samples))
    def check(pair: tuple[str, str]) -> None:
        a, b = pair
        assert a.endswith("\n"), pair
        assert _starts_a_line(b), pair
        assert counter.count(a + b) == counter.count(a) + counter.count(b), pair

    check()


def check_declarations(counter: TokenCounter, samples: Sequence[str] = ()) -> None:
    """Run the check of every property ``counter`` declares."""
    for declaration, check in (
        ("byte_bounded", check_byte_bounded),
        ("prefix_monotone", check_prefix_monotone),
        ("line_additive", check_line_additive),
    ):
        if declares(counter, declaration):
            check(counter, samples)
