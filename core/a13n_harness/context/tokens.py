"""Rendering by a token count instead of a byte count (SPEC section 9).

:func:`a13n_harness.context.render.render_catalog` spends a token allowance
as UTF-8 bytes, which is sound only under :data:`~a13n_harness.context.render.BYTE_BOUNDED`.
Here the same candidates, in the same order, are measured by a
:class:`TokenCounter` the host supplies, so no tokenizer assumption is needed.

A counter may declare two properties, as attributes set to ``True``:

- ``prefix_monotone``: ``count(a) <= count(a + b)`` for all strings. Every
  framed candidate listing ``k`` entries starts with the header and those
  ``k`` entry lines, so ``count(header + lines[:k])`` bounds it from below and
  grows with ``k``: a bisection on that bound rules out every ``k`` above the
  answer in O(log n) counts, and a walk down from there finds the answer
  (the walk is as long as the number of entries whose tokens fit in the
  candidate's tail, a handful in practice). Without the declaration the
  search is linear, exactly as the rule reads.
- ``byte_bounded``: ``count(text) <= len(text.encode("utf-8"))``; such a
  counter may stand in for the byte budget. Property tests check both
  declarations against every counter this project ships.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from a13n_harness.context.catalog import SkillCatalog, checked_total
from a13n_harness.context.errors import DefinitionError
from a13n_harness.context.render import (
    FORMS,
    HEADER,
    _entry_plan,
    framed_candidate,
    minimal_candidate,
)

__all__ = [
    "CodePointCounter",
    "CountedRendering",
    "TokenCounter",
    "Utf8ByteCounter",
    "render_catalog_counted",
    "verify_rendering_counted",
]


@runtime_checkable
class TokenCounter(Protocol):
    """Counts the tokens of a text. May declare ``prefix_monotone`` and ``byte_bounded``."""

    def count(self, text: str) -> int: ...


@dataclass(frozen=True, slots=True)
class Utf8ByteCounter:
    """One token per UTF-8 byte: the byte budget of section 4, as a counter."""

    prefix_monotone: bool = True
    byte_bounded: bool = True

    def count(self, text: str) -> int:
        return len(text.encode("utf-8"))


@dataclass(frozen=True, slots=True)
class CodePointCounter:
    """One token per code point: a bound for tokenizers that never split below a character."""

    prefix_monotone: bool = True
    byte_bounded: bool = True

    def count(self, text: str) -> int:
        return len(text)


@dataclass(frozen=True, slots=True)
class CountedRendering:
    """A rendering measured by a counter, and the facts that certify it."""

    text: str
    form: str
    listed: int
    omitted: int
    total: int
    budget_tokens: int
    tokens: int


def _budget(budget_tokens: object) -> int:
    if type(budget_tokens) is not int or budget_tokens < 0:
        raise DefinitionError(
            "allowance_invalid",
            f"budget_tokens must be a non-negative int, got {budget_tokens!r}",
            reason="budget",
        )
    return budget_tokens


def _counted(counter: TokenCounter, text: str) -> int:
    tokens = counter.count(text)
    if type(tokens) is not int or tokens < 0:
        raise DefinitionError(
            "allowance_invalid",
            f"the token counter returned {tokens!r}, not a non-negative int",
            reason="counter",
        )
    return tokens


def render_catalog_counted(
    catalog: SkillCatalog, budget_tokens: int, counter: TokenCounter
) -> CountedRendering:
    """The longest-prefix rendering of ``catalog`` within ``budget_tokens`` as ``counter`` counts.

    Same candidates and order as :func:`~a13n_harness.context.render.render_catalog`.
    O(log n) counts plus a short walk when ``counter.prefix_monotone`` is
    declared, at most n + 2 counts otherwise.
    """
    budget = _budget(budget_tokens)
    total = checked_total(len(catalog.entries), catalog.unlisted)
    if total == 0:
        return CountedRendering("", "empty", 0, 0, 0, budget, 0)
    n = len(catalog.entries)
    highest = n
    if getattr(counter, "prefix_monotone", False) is True:
        lines, _ = _entry_plan(catalog)
        # Largest k whose header + k lines (a prefix of candidate k) still fits.
        low, high = -1, n
        while low < high:
            middle = (low + high + 1) // 2
            if _counted(counter, HEADER + "".join(lines[:middle])) <= budget:
                low = middle
            else:
                high = middle - 1
        highest = low
    for listed in range(highest, -1, -1):
        text = framed_candidate(catalog, listed)
        tokens = _counted(counter, text)
        if tokens <= budget:
            return CountedRendering(text, "listing", listed, total - listed, total, budget, tokens)
    minimal = minimal_candidate(catalog)
    tokens = _counted(counter, minimal)
    if tokens <= budget:
        return CountedRendering(minimal, "minimal", 0, total, total, budget, tokens)
    return CountedRendering("", "empty", 0, total, total, budget, 0)


def verify_rendering_counted(
    catalog: SkillCatalog, budget_tokens: int, rendered: CountedRendering, counter: TokenCounter
) -> None:
    """Certify ``rendered`` by re-deriving it linearly, trusting no declaration of the counter.

    Raises ``DefinitionError(code="rendering_not_certified")`` on any difference.
    """
    budget = _budget(budget_tokens)
    total = checked_total(len(catalog.entries), catalog.unlisted)
    expected = CountedRendering("", "empty", 0, 0, 0, budget, 0)
    if total:
        expected = CountedRendering("", "empty", 0, total, total, budget, 0)
        for listed in range(len(catalog.entries), -1, -1):
            text = framed_candidate(catalog, listed)
            tokens = _counted(counter, text)
            if tokens <= budget:
                expected = CountedRendering(
                    text, "listing", listed, total - listed, total, budget, tokens
                )
                break
        else:
            minimal = minimal_candidate(catalog)
            tokens = _counted(counter, minimal)
            if tokens <= budget:
                expected = CountedRendering(minimal, "minimal", 0, total, total, budget, tokens)
    if not isinstance(rendered, CountedRendering) or rendered.form not in FORMS:
        raise DefinitionError("rendering_not_certified", "not a CountedRendering")
    if rendered != expected:
        raise DefinitionError(
            "rendering_not_certified",
            f"expected {expected.form} listing {expected.listed}, "
            f"got {rendered.form} listing {rendered.listed}",
        )
