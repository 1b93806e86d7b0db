"""Rendering by a token count instead of a byte count (docs/contract.md §9).

:func:`a13n_harness.context.render.render_catalog` spends a token allowance
as UTF-8 bytes, which is sound only under :data:`~a13n_harness.context.render.BYTE_BOUNDED`.
Here the same candidates, in the same order, are measured by a
:class:`TokenCounter` the host supplies, so no tokenizer assumption is needed.

A counter may declare three properties, as attributes set to ``True``:

- ``line_additive``: ``count(a + b) == count(a) + count(b)`` whenever ``a``
  ends in ``"\\n"`` and ``b`` is empty or starts with a character that is
  neither whitespace (``str.isspace``) nor ``/`` (:data:`LINE_START_EXCLUDED`:
  o200k's punctuation piece ``[^\\s\\p{L}\\p{N}]+[\\r\\n/]*`` runs over a line
  feed into a slash, so ``")\\n" + "//b"`` is one token fewer than its lines).
  Every candidate is a sequence of such lines
  (the header, entry lines starting ``- ``, count lines starting with a digit,
  the footer starting ``<``), so its count is the sum of its lines' counts:
  the renderer counts each line once, in order, and stops as soon as the
  header plus the lines so far plus the pointer and footer exceed the budget.
  Rendering and certifying are then linear in the catalog's bytes (in fact in
  the bytes the budget can hold). Byte-level BPE tokenizers whose
  pre-tokenizer always splits after such a line feed have it (tiktoken's
  ``cl100k_base`` and ``o200k_base``, checked by property against the real tokenizers).
- ``prefix_monotone``: ``count(a) <= count(a + b)`` for all strings. Every
  framed candidate listing ``k`` entries starts with the header and those
  ``k`` entry lines, so ``count(header + lines[:k])`` bounds it from below and
  grows with ``k``: a bisection on that bound rules out every ``k`` above the
  answer in O(log n) counts, and a walk down from there finds the answer
  (the walk is as long as the number of entries whose tokens fit in the
  candidate's tail, a handful in practice). BPE counts are *not*
  prefix-monotone (``" understandin"`` is two cl100k tokens, ``" understanding"``
  one), so a BPE counter must not declare it.
- ``byte_bounded``: ``count(text) <= len(text.encode("utf-8"))``; such a
  counter may stand in for the byte budget.

The renderer uses ``prefix_monotone`` when declared (fewest counts), else
``line_additive``; the verifier uses ``line_additive`` only. Property tests
check every declaration against every counter this project ships. A counter
that declares nothing is measured exactly as the rule reads, one whole
candidate per count: O(n) counts, each as long as a candidate, so quadratic
in the catalog's bytes. No black-box count can do better; declare
``line_additive`` when it holds.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from a13n_harness.context._checks import (
    describe,
    has_lone_surrogate,
    is_count,
    plain_fields,
    plain_str,
    type_name,
)
from a13n_harness.context.catalog import SkillCatalog, check_catalog, checked_total
from a13n_harness.context.errors import DefinitionError
from a13n_harness.context.render import (
    COMPACT_FORMS,
    FOOTER,
    FORMS,
    HEADER,
    _check_budget,
    _check_fit,
    _compact_line_builders,
    _compact_lines,
    _entry_line,
    _entry_plan,
    _minimal_line,
    _more_line,
    _pointer_line,
    _roots_phrase,
    framed_candidate,
    minimal_candidate,
)

__all__ = [
    "LINE_START_EXCLUDED",
    "CodePointCounter",
    "CountedRendering",
    "TokenCounter",
    "Utf8ByteCounter",
    "declares",
    "render_catalog_counted",
    "verify_rendering_counted",
]


LINE_START_EXCLUDED = "/"
"""Characters besides whitespace that a line must not start with for ``line_additive`` to join it.

o200k_base's pre-tokenizer keeps a ``/`` after punctuation and line feeds in one piece
(docs/tokens.md); no line the renderer builds starts with one.
"""


@runtime_checkable
class TokenCounter(Protocol):
    """Counts the tokens of a text.

    May declare ``line_additive``, ``prefix_monotone`` and ``byte_bounded``
    (module docstring).
    """

    def count(self, text: str) -> int: ...


def declares(counter: object, declaration: str) -> bool:
    """Whether ``counter`` declares ``declaration`` (an attribute that is exactly ``True``).

    A ``declaration`` that is not a ``str`` names no attribute: ``False``; a ``str``
    subclass is taken as its plain characters.
    """
    declaration = plain_str(declaration)  # type: ignore[assignment]
    if type(declaration) is not str:
        return False
    try:
        return getattr(counter, declaration, False) is True
    except Exception as error:  # a Host's property or proxy raised: not a counter we can trust
        raise DefinitionError(
            "allowance_invalid",
            f"reading the counter's declaration {declaration!r} raised {type_name(type(error))}",
            reason="counter",
        ) from error


@dataclass(frozen=True, slots=True)
class _UnitCounter:
    """A counter of text units (bytes, code points): it declares all three properties."""

    prefix_monotone: bool = True
    byte_bounded: bool = True
    line_additive: bool = True


@dataclass(frozen=True, slots=True)
class Utf8ByteCounter(_UnitCounter):
    """One token per UTF-8 byte: the byte budget of section 4, as a counter."""

    def count(self, text: str) -> int:
        return len(_text(text).encode("utf-8"))


@dataclass(frozen=True, slots=True)
class CodePointCounter(_UnitCounter):
    """One token per code point: a bound for tokenizers that never split below a character."""

    def count(self, text: str) -> int:
        return len(_text(text))


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

    def __post_init__(self) -> None:
        # A Host's subclasses as their plain values; one built by the renderer (one per
        # render) pays seven type tests.
        if not (
            type(self.text) is str
            and type(self.form) is str
            and type(self.listed) is int
            and type(self.omitted) is int
            and type(self.total) is int
            and type(self.budget_tokens) is int
            and type(self.tokens) is int
        ):
            plain_fields(self)


def _check_counter(counter: object) -> None:
    # A name is not a counter, although str has a count method.
    try:
        count = getattr(counter, "count", None)
    except Exception as error:  # a Host's property or proxy raised
        raise DefinitionError(
            "allowance_invalid",
            f"reading the counter's count method raised {type_name(type(error))}",
            reason="counter",
        ) from error
    if issubclass(type(counter), (str, bytes, bytearray)) or not callable(count):
        raise DefinitionError(
            "allowance_invalid",
            f"not a token counter (no count(text) method): {describe(counter)}",
            reason="counter",
        )


def _text(text: object) -> str:
    """The argument of a shipped counter's ``count``: a ``str`` with a UTF-8 form (a
    subclass taken as the plain ``str`` of its characters), else ``allowance_invalid``."""
    text = plain_str(text)
    if type(text) is not str:
        raise DefinitionError(
            "allowance_invalid",
            f"a counter counts str, got {type_name(type(text))}",
            reason="text",
        )
    if has_lone_surrogate(text):
        raise DefinitionError(
            "allowance_invalid", "a counter counts text with a UTF-8 form", reason="text"
        )
    return text


def _counted(counter: TokenCounter, text: str) -> int:
    try:
        tokens = counter.count(text)
    except DefinitionError:
        raise
    except Exception as error:  # the host's counter failed: still only DefinitionError escapes
        raise DefinitionError(
            "allowance_invalid",
            # The exception's type only: its text is the Host's code (__str__) to run.
            f"the token counter raised {type_name(type(error))}",
            reason="counter",
        ) from error
    if not is_count(tokens):
        raise DefinitionError(
            "allowance_invalid",
            f"the token counter returned {describe(tokens)}, not a non-negative int",
            reason="counter",
        )
    return tokens


def _splits_at_lines(pieces: Sequence[str]) -> bool:
    """Whether ``line_additive`` applies between consecutive ``pieces``.

    Each piece but the last ends in a line feed and each piece but the first
    starts with a character that is neither whitespace nor in
    :data:`LINE_START_EXCLUDED`. The renderer's own lines always do; checked
    anyway, so a format change falls back instead of going wrong.
    """
    return all(piece.endswith("\n") for piece in pieces[:-1]) and all(
        piece and not piece[0].isspace() and piece[0] not in LINE_START_EXCLUDED
        for piece in pieces[1:]
    )


class _LineCounts:
    """Running token counts of ``head + lines[:k]``, extended one line at a time on demand."""

    __slots__ = ("_counter", "_lines", "sums")

    def __init__(self, counter: TokenCounter, head: str, lines: Sequence[str]) -> None:
        self._counter = counter
        self._lines = lines
        self.sums = [_counted(counter, head)]

    def highest_within(self, limit: int) -> int:
        """The largest ``k`` with ``sums[k] <= limit`` (-1 if none), counting no further line
        than the first that passes ``limit``."""
        sums = self.sums
        while sums[-1] <= limit and len(sums) <= len(self._lines):
            sums.append(sums[-1] + _counted(self._counter, self._lines[len(sums) - 1]))
        return bisect_right(sums, limit) - 1


def _additive_search(
    budget: int,
    counter: TokenCounter,
    total: int,
    lines: Sequence[str],
    phrase: str,
) -> tuple[int, int] | None:
    """The longest fitting framed candidate by line sums: ``(listed, tokens)`` or ``None``.

    Candidate ``k`` counts ``head + lines[:k] + more(T - k) + pointer + footer``
    line by line. ``sums[k] + tail`` grows with ``k``, so no candidate beyond
    the first ``k`` where it passes the budget can fit; below it, walk down.
    """
    tail = _counted(counter, _pointer_line(total, phrase) + FOOTER)
    running = _LineCounts(counter, HEADER, lines)
    listed = running.highest_within(budget - tail)
    more_tokens: dict[int, int] = {}
    while listed >= 0:
        missing = total - listed
        if missing and missing not in more_tokens:
            more_tokens[missing] = _counted(counter, _more_line(missing))
        tokens = running.sums[listed] + more_tokens.get(missing, 0) + tail
        if tokens <= budget:
            return listed, tokens
        listed -= 1
    return None


def _additive_applies(counter: TokenCounter, catalog: SkillCatalog, lines: Sequence[str]) -> bool:
    return declares(counter, "line_additive") and _splits_at_lines(
        [HEADER, *lines, _more_line(1), _pointer_line(1, _roots_phrase(catalog.roots)), FOOTER]
    )


def _starts_a_joined_line(line: str) -> bool:
    """Whether ``line_additive`` joins ``line`` to a line before it (``_splits_at_lines``)."""
    return line.endswith("\n") and not (line[0].isspace() or line[0] in LINE_START_EXCLUDED)


def _compact_fit_counted(
    catalog: SkillCatalog, budget: int, counter: TokenCounter, total: int
) -> CountedRendering | None:
    """The first compact candidate within ``budget`` tokens, or ``None``.

    With ``line_additive`` each candidate is the header's, its lines' and the
    tail's counts summed, line by line, dropped at the first line past the
    budget (the full lines' counts are kept for the cut candidates that reuse
    them); otherwise each candidate is counted whole. A fixed number of
    candidates: linear in bytes either way.
    """
    n = len(catalog.entries)
    missing = total - n
    more = _more_line(missing) if missing else ""
    tail = more + _pointer_line(total, _roots_phrase(catalog.roots)) + FOOTER
    lines, _ = _entry_plan(catalog)

    def rendering(text: str, form: str, tokens: int) -> CountedRendering:
        return CountedRendering(text, form, n, missing, total, budget, tokens)

    candidates: list[tuple[str, Callable[[int], str]]] = [
        ("listing", lines.__getitem__),
        *_compact_line_builders(catalog, lines),
    ]
    if not (declares(counter, "line_additive") and _splits_at_lines([HEADER, tail])):
        for form, line_of in candidates:
            text = "".join((HEADER, *map(line_of, range(n)), tail))
            tokens = _counted(counter, text)
            if tokens <= budget:
                return rendering(text, form, tokens)
        return None
    room = budget - _counted(counter, HEADER) - _counted(counter, tail)
    if room < 0:
        return None
    full_counts: dict[int, int] = {}
    for form, line_of in candidates:
        chosen: list[str] = []
        used = 0
        whole = False  # a line that line_additive does not join: count the candidate whole
        for index in range(n):
            line = line_of(index)
            if not _starts_a_joined_line(line):
                whole = True
                break
            if line is lines[index]:
                if index not in full_counts:
                    full_counts[index] = _counted(counter, line)
                used += full_counts[index]
            else:
                used += _counted(counter, line)
            if used > room:
                break
            chosen.append(line)
        if whole:
            text = "".join((HEADER, *map(line_of, range(n)), tail))
            tokens = _counted(counter, text)
            if tokens <= budget:
                return rendering(text, form, tokens)
        elif used <= room:
            return rendering("".join((HEADER, *chosen, tail)), form, budget - room + used)
    return None


def render_catalog_counted(
    catalog: SkillCatalog, budget_tokens: int, counter: TokenCounter, fit: str = "prefix"
) -> CountedRendering:
    """The rendering of ``catalog`` within ``budget_tokens`` as ``counter`` counts.

    Same candidates and order as :func:`~a13n_harness.context.render.render_catalog`,
    for ``fit="prefix"`` (the longest-prefix rule, default) and ``fit="compact"``.
    A ``prefix_monotone`` counter gets O(log n) counts (a bisection, each on a
    prefix) plus a short walk: O(bytes log n) in all. Otherwise a
    ``line_additive`` counter (BPE) is asked about each line at most once, up
    to the first line past the budget: linear in bytes. A counter that declares
    neither gets at most n + 2 whole-candidate counts.
    """
    budget = _check_budget(budget_tokens, "budget_tokens")
    fit = _check_fit(fit)
    check_catalog(catalog)
    _check_counter(counter)
    total = checked_total(len(catalog.entries), catalog.unlisted)
    if total == 0:
        return CountedRendering("", "empty", 0, 0, 0, budget, 0)
    if fit == "compact":
        compact = _compact_fit_counted(catalog, budget, counter, total)
        if compact is not None:
            return compact
    n = len(catalog.entries)
    lines, _ = _entry_plan(catalog)
    phrase = _roots_phrase(catalog.roots)
    pointer = _pointer_line(total, phrase)

    def candidate(listed: int) -> str:
        missing = total - listed
        return "".join(
            (HEADER, *lines[:listed], _more_line(missing) if missing else "", pointer, FOOTER)
        )

    highest = n
    if declares(counter, "prefix_monotone"):
        # Largest k whose header + k lines (a prefix of candidate k) still fits.
        low, high = -1, n
        while low < high:
            middle = (low + high + 1) // 2
            if _counted(counter, HEADER + "".join(lines[:middle])) <= budget:
                low = middle
            else:
                high = middle - 1
        highest = low
    elif _additive_applies(counter, catalog, lines):
        found = _additive_search(budget, counter, total, lines, phrase)
        if found is None:
            return _first_fit((), minimal_candidate(catalog), budget, counter, total)
        listed, tokens = found
        return CountedRendering(
            candidate(listed), "listing", listed, total - listed, total, budget, tokens
        )
    listings = ((listed, candidate(listed)) for listed in range(highest, -1, -1))
    return _first_fit(listings, minimal_candidate(catalog), budget, counter, total)


def _first_fit(
    listings: Iterable[tuple[int, str]],
    minimal: str,
    budget: int,
    counter: TokenCounter,
    total: int,
) -> CountedRendering:
    """The rule's order from the given framed candidates on: the first ``(listed, text)``
    whose count fits ``budget``, else ``minimal`` if it fits, else the empty rendering.

    Each candidate is counted whole. The renderer and both re-derivations of the
    verifier end here; they differ in which candidates they build and how.
    """
    for listed, text in listings:
        tokens = _counted(counter, text)
        if tokens <= budget:
            return CountedRendering(text, "listing", listed, total - listed, total, budget, tokens)
    tokens = _counted(counter, minimal)
    if tokens <= budget:
        return CountedRendering(minimal, "minimal", 0, total, total, budget, tokens)
    return CountedRendering("", "empty", 0, total, total, budget, 0)


def _expected_by_lines(
    catalog: SkillCatalog, budget: int, counter: TokenCounter, total: int
) -> CountedRendering | None:
    """The answer re-derived with the plain line builders and per-line counts.

    ``None`` when the counter does not declare ``line_additive`` or the lines
    do not meet its precondition. Independent of the renderer's plan: every
    line is built afresh.
    """
    phrase = _roots_phrase(catalog.roots)
    pointer = _pointer_line(total, phrase)
    lines = [_entry_line(e.name, e.description, e.file) for e in catalog.entries]
    if not declares(counter, "line_additive") or not _splits_at_lines(
        [HEADER, *lines, _more_line(1), pointer, FOOTER]
    ):
        return None
    tail = _counted(counter, pointer) + _counted(counter, FOOTER)
    running = _LineCounts(counter, HEADER, lines)
    for listed in range(running.highest_within(budget - tail), -1, -1):
        missing = total - listed
        more = _more_line(missing) if missing else ""
        tokens = running.sums[listed] + (_counted(counter, more) if more else 0) + tail
        if tokens <= budget:
            text = "".join((HEADER, *lines[:listed], more, pointer, FOOTER))
            return CountedRendering(text, "listing", listed, missing, total, budget, tokens)
    return _first_fit((), _minimal_line(total, catalog.roots, phrase), budget, counter, total)


def _expected_plainly(
    catalog: SkillCatalog, budget: int, counter: TokenCounter, total: int
) -> CountedRendering:
    """The rule as it reads: every candidate counted whole, in order."""
    listings = (
        (listed, framed_candidate(catalog, listed))
        for listed in range(len(catalog.entries), -1, -1)
    )
    return _first_fit(listings, minimal_candidate(catalog), budget, counter, total)


_RENDERING_TEXTS = ("text", "form")
_RENDERING_COUNTS = ("listed", "omitted", "total", "budget_tokens", "tokens")


def _plain_rendering(rendered: object, forms: tuple[str, ...] = FORMS) -> CountedRendering:
    """``rendered`` as a :class:`CountedRendering` of plain values, or not certified.

    What a Host hands in is compared with the expected rendering; its ``str``
    subclasses are copied plain and anything but an exact ``int`` count refused
    first, so the comparison (``==``, ``in FORMS``) runs none of the Host's code.
    """
    if type(rendered) is not CountedRendering:
        raise DefinitionError("rendering_not_certified", "not a CountedRendering")
    texts = [plain_str(getattr(rendered, name, None)) for name in _RENDERING_TEXTS]
    counts = [getattr(rendered, name, None) for name in _RENDERING_COUNTS]
    if any(type(value) is not str for value in texts) or any(
        type(value) is not int for value in counts
    ):
        raise DefinitionError("rendering_not_certified", "not a CountedRendering of str and int")
    plain = CountedRendering(*texts, *counts)  # type: ignore[arg-type]
    if plain.form not in forms:
        raise DefinitionError("rendering_not_certified", "not a CountedRendering")
    return plain


def _compact_expected_counted(
    catalog: SkillCatalog, budget: int, counter: TokenCounter, total: int
) -> CountedRendering | None:
    """The first compact candidate within ``budget``, re-derived with the plain builders.

    Each candidate is built afresh line by line; with ``line_additive`` (and lines
    meeting its precondition) its count is the sum of its lines' counts, each
    line counted once, stopping at the first line past the budget; otherwise it
    is counted whole.
    """
    n = len(catalog.entries)
    additive = declares(counter, "line_additive")
    for form in ("listing", *COMPACT_FORMS):
        lines = _compact_lines(catalog, form, total)
        if additive and _splits_at_lines(lines):
            tokens = 0
            for line in lines:
                tokens += _counted(counter, line)
                if tokens > budget:
                    break
        else:
            tokens = _counted(counter, "".join(lines))
        if tokens <= budget:
            text = "".join(lines)
            return CountedRendering(text, form, n, total - n, total, budget, tokens)
    return None


def verify_rendering_counted(
    catalog: SkillCatalog,
    budget_tokens: int,
    rendered: CountedRendering,
    counter: TokenCounter,
    fit: str = "prefix",
) -> None:
    """Certify ``rendered`` by re-deriving it with the plain line builders.

    Trusts one declaration, ``line_additive`` (checked by property against
    every counter this project ships): the candidates' counts are then sums of
    their lines' counts, each line counted once, linear in bytes. The claimed
    text is also counted whole and must give the claimed tokens, so a false
    declaration that changes the chosen text's count is caught. Without the
    declaration every candidate is counted whole, as the rule reads.
    Raises ``DefinitionError(code="rendering_not_certified")`` on any difference.
    """
    budget = _check_budget(budget_tokens, "budget_tokens")
    fit = _check_fit(fit)
    check_catalog(catalog)
    _check_counter(counter)
    total = checked_total(len(catalog.entries), catalog.unlisted)
    forms = FORMS if fit == "prefix" else (*FORMS, *COMPACT_FORMS)
    rendered = _plain_rendering(rendered, forms)
    compact = (
        _compact_expected_counted(catalog, budget, counter, total)
        if fit == "compact" and total
        else None
    )
    if total == 0:
        expected = CountedRendering("", "empty", 0, 0, 0, budget, 0)
    elif compact is not None:
        expected = compact
    else:
        by_lines = _expected_by_lines(catalog, budget, counter, total)
        expected = (
            by_lines if by_lines is not None else _expected_plainly(catalog, budget, counter, total)
        )
    if rendered != expected:
        raise DefinitionError(
            "rendering_not_certified",
            f"expected {expected.form} listing {describe(expected.listed)} at "
            f"{describe(expected.tokens)} tokens, got {describe(rendered.form)} listing "
            f"{describe(rendered.listed)} at {describe(rendered.tokens)} tokens",
        )
    if rendered.text and _counted(counter, rendered.text) != rendered.tokens:
        raise DefinitionError(
            "rendering_not_certified",
            "the counter gives the rendered text another count than the sum of its lines "
            "(a false line_additive declaration)",
        )
