"""The longest-prefix catalog renderer (docs/contract.md §4).

The rule, in full: with ``T`` skills in total, the rendering at budget ``B``
is the first of these candidates whose UTF-8 length is at most ``B``:

1. the framed listing of entries ``[0, k)`` for ``k = n, n-1, ..., 0``;
2. the minimal line ``{R} has|have {T} skill(s)``;
3. ``""``.

``T == 0`` renders ``""``. The framed size is *not* monotone in ``k``: the
``{m} more skill(s) not listed.`` line appears only when ``k < T``, so the full
listing can fit while the listing of ``n - 1`` entries does not. A binary search
over ``k`` is therefore wrong; :func:`render_catalog` walks ``k`` down once over
precomputed sizes, which is O(n).

The compact fit (``fit="compact"``, opt-in) tries other candidates first, in
this order, and returns the first that fits; then the rule above:

1. every entry in full (form ``"listing"``, the framed listing of all ``n``);
2. every entry with each description cut to the same cap, for each cap of
   :data:`DESCRIPTION_CAPS`, largest first (form ``"cut-<cap>"``): a
   description longer than the cap keeps its first ``cap - 1`` code points and
   ends in :data:`CUT_MARK` (``…``), so it shows at most ``cap`` code points;
3. every entry by name and file only (form ``"names"``).

Each keeps the frame: the header, the ``{m} more skill(s) not listed.`` line when
the catalog has unlisted skills, the pointer line and the footer. A compact
candidate's size is not monotone in the cap (a description one code point over
the cap grows by the two extra UTF-8 bytes of ``…``), so each is measured in turn;
the entry lines are summed one at a time and a candidate is dropped at the first
line past the budget, so no candidate is built beyond what the budget holds:
O(bytes) per candidate, a fixed number of candidates.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from itertools import accumulate
from typing import TYPE_CHECKING, NoReturn

from a13n_harness.context._checks import describe, is_count, is_text, plain_fields, plain_str
from a13n_harness.context.catalog import SkillCatalog, catalog_total
from a13n_harness.context.encoder import encode_value
from a13n_harness.context.errors import DefinitionError

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Final

__all__ = [
    "BYTE_BOUNDED",
    "COMPACT_FORMS",
    "CUT_MARK",
    "DESCRIPTION_CAPS",
    "FITS",
    "FORMS",
    "RenderedCatalog",
    "catalog_allowance",
    "compact_candidate",
    "cut_description",
    "framed_candidate",
    "minimal_candidate",
    "reference_render",
    "render_catalog",
    "verify_rendering",
]

BYTE_BOUNDED: Final[bool] = True
"""The assumption that makes a byte budget a token budget.

:func:`catalog_allowance` yields a number of tokens, and :func:`render_catalog`
spends it as UTF-8 bytes. That is sound only for tokenizers that emit at most
one token per UTF-8 byte (true of byte-level BPE tokenizers, which never emit
more tokens than bytes). A host whose tokenizer can expand must budget by its
own count instead.
"""

FORMS: Final = ("listing", "minimal", "empty")
"""The forms of the prefix rule (``fit="prefix"``, the default)."""

FITS: Final = ("prefix", "compact")
"""The fits :func:`render_catalog` takes: the prefix rule (default) or the compact fit."""

DESCRIPTION_CAPS: Final = (512, 256, 160, 100, 64)
"""The compact fit's ladder of description caps, in code points, largest first.

Decided from the seven public skill repositories (docs/decisions.md, "The compact
fit's ladder"): 512 trims only the longest descriptions (85% of 270 are shorter);
256 keeps the first sentence whole in 97% of them, 160 in 87%, 100 in 60%, 64 in
32%; below 64 a cut description is mostly its boilerplate opening ("This skill
should be used for t…"), so the next candidate drops descriptions altogether.
"""

CUT_MARK: Final = "\u2026"
"""The mark that ends a cut description: ``…`` (U+2026 HORIZONTAL ELLIPSIS)."""

COMPACT_FORMS: Final = (*(f"cut-{cap}" for cap in DESCRIPTION_CAPS), "names")
"""The forms only the compact fit yields: ``cut-<cap>`` per cap, then ``names``.

Every entry in full is ``"listing"``, as in the prefix rule; when no compact
candidate fits, the prefix rule's forms follow.
"""

HEADER: Final = (
    "<skills_instructions>\n"
    "## Skills\n"
    "A skill is a folder of instructions with a SKILL.md file. "
    "Read a listed skill's SKILL.md before you use it.\n"
)
FOOTER: Final = "</skills_instructions>\n"
NO_ROOTS: Final = "the skill roots"


@dataclass(frozen=True, slots=True)
class RenderedCatalog:
    """A rendering and the facts that certify it."""

    text: str
    form: str
    listed: int
    omitted: int
    total: int
    budget_bytes: int

    def __post_init__(self) -> None:
        # A Host's subclasses as their plain values; one built by the renderer (one per
        # render) pays six type tests.
        if not (
            type(self.text) is str
            and type(self.form) is str
            and type(self.listed) is int
            and type(self.omitted) is int
            and type(self.total) is int
            and type(self.budget_bytes) is int
        ):
            plain_fields(self)


def _plural(count: int) -> str:
    return "skill" if count == 1 else "skills"


def _roots_phrase(roots: tuple[str, ...]) -> str:
    shown = [
        encode_value(root) if root.endswith("/") else encode_value(root) + "/" for root in roots
    ]
    if not shown:
        return NO_ROOTS
    if len(shown) == 1:
        return shown[0]
    return ", ".join(shown[:-1]) + " and " + shown[-1]


def _entry_line(name: str, description: str, file: str) -> str:
    return f"- {encode_value(name)}: {encode_value(description)} (file: {encode_value(file)})\n"


def _names_line(name: str, file: str) -> str:
    return f"- {encode_value(name)} (file: {encode_value(file)})\n"


def cut_description(description: str, cap: int) -> str:
    """``description`` when it has at most ``cap`` code points, else its first ``cap - 1``
    code points and :data:`CUT_MARK` (``cap`` code points in all).

    ``description`` must be a ``str`` (a subclass is taken as the plain ``str`` of its
    characters) and ``cap`` an ``int`` of at least 1, else ``catalog_invalid``
    (reason ``description``).
    """
    if not isinstance(description, str) or not is_count(cap) or cap < 1:
        raise DefinitionError(
            "catalog_invalid",
            f"cut_description takes a str and a cap of at least 1, got {describe(cap)}",
            reason="description",
        )
    description = plain_str(description)  # type: ignore[assignment]  # its characters
    if len(description) <= cap:
        return description
    return description[: cap - 1] + CUT_MARK


def _more_line(missing: int) -> str:
    return f"{missing} more {_plural(missing)} not listed.\n"


def _pointer_line(total: int, roots: str) -> str:
    return f"{total} {_plural(total)} available (list {roots} to see all)\n"


def _minimal_line(total: int, roots: tuple[str, ...], phrase: str) -> str:
    verb = "has" if len(roots) == 1 else "have"
    return f"{phrase} {verb} {total} {_plural(total)}\n"


def _check_budget(budget: object, label: str = "budget_bytes") -> int:
    """``budget`` when it is a count, else ``allowance_invalid`` (reason ``budget``).

    A negative budget has no rendering at all, not even "": refuse it. Shared
    by the byte renderer and the token renderer (``label`` names the argument).
    """
    if not is_count(budget):
        raise DefinitionError(
            "allowance_invalid",
            f"{label} must be a non-negative int, got {describe(budget)}",
            reason="budget",
        )
    return budget


def _check_fit(fit: object) -> str:
    """``fit`` when it is one of :data:`FITS` (a ``str`` subclass is taken as its plain
    characters), else ``allowance_invalid``."""
    if type(fit) is not str:
        fit = plain_str(fit)
    if type(fit) is not str or fit not in FITS:
        raise DefinitionError(
            "allowance_invalid",
            f"fit must be one of {', '.join(FITS)}, got {describe(fit)}",
            reason="fit",
        )
    return fit


def _utf8_len(text: str) -> int:
    return len(text.encode("utf-8"))


def catalog_allowance(context_tokens: int, response_reserve_tokens: int) -> int:
    """5% of the usable input window: ``max(0, context - reserve) // 20``.

    The result is used as a UTF-8 byte budget under :data:`BYTE_BOUNDED`.
    """
    if not is_count(context_tokens):
        _refuse_allowance(
            f"context_tokens must be a non-negative int, got {describe(context_tokens)}"
        )
    if not is_count(response_reserve_tokens):
        _refuse_allowance(
            f"response_reserve_tokens must be a non-negative int, got "
            f"{describe(response_reserve_tokens)}"
        )
    return max(0, context_tokens - response_reserve_tokens) // 20


def _refuse_allowance(message: str) -> NoReturn:
    raise DefinitionError("allowance_invalid", message, reason="budget")


def _entry_plan(catalog: SkillCatalog) -> tuple[list[str], list[int]]:
    """The encoded entry lines and their cumulative UTF-8 sizes, computed once per catalog."""
    entries = catalog.entries
    plan = getattr(catalog, "_render_plan", None)  # None on a catalog forged past __init__
    # Keyed on the entries tuple itself, so a catalog altered behind the
    # frozen dataclass's back is planned afresh.
    if isinstance(plan, tuple) and plan[0] is entries:
        return plan[1], plan[2]
    # encode_value maps code point by code point and the literal parts of an
    # entry line hold nothing it changes, so one call per line equals three.
    lines = [f"- {encode_value(f'{e.name}: {e.description} (file: {e.file}')})\n" for e in entries]
    prefix_sizes = [0, *accumulate(map(_utf8_len, lines))]
    object.__setattr__(catalog, "_render_plan", (entries, lines, prefix_sizes))
    return lines, prefix_sizes


def _compact_line_builders(
    catalog: SkillCatalog, lines: list[str]
) -> Iterator[tuple[str, Callable[[int], str]]]:
    """``(form, line_of_entry)`` of each compact candidate after the full listing, in order.

    ``lines`` are the full entry lines (the plan's); a cut candidate reuses the
    full line of every entry whose description is within the cap.
    """
    entries = catalog.entries

    def cut_line(cap: int) -> Callable[[int], str]:
        def line(index: int) -> str:
            entry = entries[index]
            if len(entry.description) <= cap:
                return lines[index]
            cut = cut_description(entry.description, cap)
            return f"- {encode_value(f'{entry.name}: {cut} (file: {entry.file}')})\n"

        return line

    for cap in DESCRIPTION_CAPS:
        yield f"cut-{cap}", cut_line(cap)

    def names_line(index: int) -> str:
        entry = entries[index]
        return f"- {encode_value(f'{entry.name} (file: {entry.file}')})\n"

    yield "names", names_line


def _lines_within(line_of: Callable[[int], str], n: int, room: int) -> list[str] | None:
    """The ``n`` lines of a candidate when their UTF-8 sizes sum to at most ``room``, else
    ``None``, decided at the first line past ``room`` (no line after it is built)."""
    chosen = []
    used = 0
    for index in range(n):
        line = line_of(index)
        used += _utf8_len(line)
        if used > room:
            return None
        chosen.append(line)
    return chosen


def _compact_fit(catalog: SkillCatalog, budget: int, total: int) -> tuple[str, str] | None:
    """``(text, form)`` of the first compact candidate within ``budget``, or ``None``."""
    n = len(catalog.entries)
    missing = total - n
    tail = (
        (_more_line(missing) if missing else "")
        + _pointer_line(total, _roots_phrase(catalog.roots))
        + FOOTER
    )
    room = budget - _utf8_len(HEADER) - _utf8_len(tail)
    if room < 0:
        return None
    lines, prefix_sizes = _entry_plan(catalog)
    if prefix_sizes[n] <= room:
        return "".join((HEADER, *lines, tail)), "listing"
    for form, line_of in _compact_line_builders(catalog, lines):
        chosen = _lines_within(line_of, n, room)
        if chosen is not None:
            return "".join((HEADER, *chosen, tail)), form
    return None


def render_catalog(
    catalog: SkillCatalog, budget_bytes: int, fit: str = "prefix"
) -> RenderedCatalog:
    """The rendering of ``catalog`` within ``budget_bytes`` UTF-8 bytes.

    ``fit="prefix"`` (the default) is the longest-prefix rule; ``fit="compact"``
    tries every entry in full, with descriptions cut to each cap of
    :data:`DESCRIPTION_CAPS`, and by name and file only, before it (module docstring).
    O(n) for the prefix rule: the entry lines are encoded and measured once per
    catalog, then each render is a bisection and a short walk over their
    cumulative sizes. The compact candidates add O(bytes) each.
    """
    budget = _check_budget(budget_bytes)
    fit = _check_fit(fit)
    total = catalog_total(catalog)
    if total == 0:
        return RenderedCatalog("", "empty", 0, 0, 0, budget)
    if fit == "compact":
        found = _compact_fit(catalog, budget, total)
        if found is not None:
            n = len(catalog.entries)
            return RenderedCatalog(found[0], found[1], n, total - n, total, budget)
    phrase = _roots_phrase(catalog.roots)
    pointer = _pointer_line(total, phrase)
    fixed = _utf8_len(HEADER) + _utf8_len(pointer) + _utf8_len(FOOTER)
    lines, prefix_sizes = _entry_plan(catalog)
    # Every candidate is at least fixed + prefix_sizes[k] long and those sums
    # grow with k, so no k above this bisection point can fit; below it the
    # "more not listed" line makes size non-monotone, so walk down one by one.
    listed = bisect_right(prefix_sizes, budget - fixed) - 1
    while listed >= 0:
        missing = total - listed
        more = _more_line(missing) if missing else ""
        if fixed + prefix_sizes[listed] + len(more) <= budget:
            text = "".join((HEADER, *lines[:listed], more, pointer, FOOTER))
            return RenderedCatalog(text, "listing", listed, missing, total, budget)
        listed -= 1
    minimal = _minimal_line(total, catalog.roots, phrase)
    if _utf8_len(minimal) <= budget:
        return RenderedCatalog(minimal, "minimal", 0, total, total, budget)
    return RenderedCatalog("", "empty", 0, total, total, budget)


def _framed_lines(catalog: SkillCatalog, listed: int, total: int) -> list[str]:
    """The framed candidate with ``listed`` entries, line by line, built plainly."""
    phrase = _roots_phrase(catalog.roots)
    lines = [HEADER]
    lines += [_entry_line(e.name, e.description, e.file) for e in catalog.entries[:listed]]
    if total - listed > 0:
        lines.append(_more_line(total - listed))
    lines.append(_pointer_line(total, phrase))
    lines.append(FOOTER)
    return lines


def framed_candidate(catalog: SkillCatalog, listed: int) -> str:
    """The framed candidate listing ``catalog.entries[:listed]``, exactly as the rule defines it."""
    total = catalog_total(catalog)
    if not is_count(listed) or listed > len(catalog.entries):
        raise DefinitionError(
            "catalog_invalid", f"no candidate lists {describe(listed)} entries", reason="listed"
        )
    return "".join(_framed_lines(catalog, listed, total))


def minimal_candidate(catalog: SkillCatalog) -> str:
    """The minimal candidate ``{R} has|have {T} skill(s)``."""
    total = catalog_total(catalog)
    return _minimal_line(total, catalog.roots, _roots_phrase(catalog.roots))


def _compact_lines(catalog: SkillCatalog, form: str, total: int) -> list[str]:
    """The compact candidate ``form`` (``listing`` for every entry in full), line by line,
    built plainly from the definition."""
    entries = catalog.entries
    if form == "listing":
        body = [_entry_line(e.name, e.description, e.file) for e in entries]
    elif form == "names":
        body = [_names_line(e.name, e.file) for e in entries]
    else:
        cap = int(form.removeprefix("cut-"))
        body = [_entry_line(e.name, cut_description(e.description, cap), e.file) for e in entries]
    missing = total - len(entries)
    more = [_more_line(missing)] if missing else []
    return [HEADER, *body, *more, _pointer_line(total, _roots_phrase(catalog.roots)), FOOTER]


def compact_candidate(catalog: SkillCatalog, form: str) -> str:
    """The compact fit's candidate ``form``: ``"listing"`` (every entry in full), one of
    :data:`COMPACT_FORMS`, exactly as the rule defines it."""
    total = catalog_total(catalog)
    form = plain_str(form)  # type: ignore[assignment]  # a Host's subclass: its characters
    if type(form) is not str or form not in ("listing", *COMPACT_FORMS):
        raise DefinitionError(
            "catalog_invalid", f"no compact candidate is named {describe(form)}", reason="form"
        )
    return "".join(_compact_lines(catalog, form, total))


def reference_render(
    catalog: SkillCatalog, budget_bytes: int, fit: str = "prefix"
) -> RenderedCatalog:
    """The plain oracle: build every candidate in order and keep the first that fits. O(n^2)."""
    budget = _check_budget(budget_bytes)
    fit = _check_fit(fit)
    total = catalog_total(catalog)
    if total == 0:
        return RenderedCatalog("", "empty", 0, 0, 0, budget)
    if fit == "compact":
        n = len(catalog.entries)
        for form in ("listing", *COMPACT_FORMS):
            text = "".join(_compact_lines(catalog, form, total))
            if _utf8_len(text) <= budget:
                return RenderedCatalog(text, form, n, total - n, total, budget)
    for listed in range(len(catalog.entries), -1, -1):
        text = "".join(_framed_lines(catalog, listed, total))
        if _utf8_len(text) <= budget:
            return RenderedCatalog(text, "listing", listed, total - listed, total, budget)
    minimal = _minimal_line(total, catalog.roots, _roots_phrase(catalog.roots))
    if _utf8_len(minimal) <= budget:
        return RenderedCatalog(minimal, "minimal", 0, total, total, budget)
    return RenderedCatalog("", "empty", 0, total, total, budget)


def _rendering_fields_typed(rendered: RenderedCatalog) -> bool:
    """Every field of a rendering handed in for certification has its declared type
    (exactly: a Host's ``str`` or ``int`` subclass would run its code in the checks)."""
    text = getattr(rendered, "text", None)
    return (
        type(text) is str
        and is_text(text)
        and type(getattr(rendered, "form", None)) is str
        and all(
            is_count(getattr(rendered, name, None))
            for name in ("listed", "omitted", "total", "budget_bytes")
        )
    )


def _plain_rendered(rendered: RenderedCatalog) -> RenderedCatalog:
    """A copy of ``rendered`` whose ``str`` subclasses are plain ``str`` (a Host's subclass
    cannot run its own code on what the certifier reads)."""
    copy = object.__new__(RenderedCatalog)
    for name in ("text", "form", "listed", "omitted", "total", "budget_bytes"):
        object.__setattr__(copy, name, plain_str(getattr(rendered, name, None)))
    return copy


def _compact_expected(catalog: SkillCatalog, budget: int, total: int) -> tuple[str, str] | None:
    """``(text, form)`` of the first compact candidate within ``budget``, or ``None``.

    The verifier's re-derivation: every candidate built whole with the plain line
    builders and measured, in order (a fixed number of candidates: linear).
    """
    for form in ("listing", *COMPACT_FORMS):
        text = "".join(_compact_lines(catalog, form, total))
        if _utf8_len(text) <= budget:
            return text, form
    return None


def verify_rendering(
    catalog: SkillCatalog, budget_bytes: int, rendered: RenderedCatalog, fit: str = "prefix"
) -> None:
    """Certify ``rendered`` as the rendering of ``catalog`` at ``budget_bytes`` and ``fit``.

    Re-derives the answer with the plain line builders (not the fast path):
    the claimed candidate is rebuilt and compared byte for byte, and every
    earlier candidate in the rule's order is shown not to fit. Raises
    ``DefinitionError(code="rendering_not_certified")`` on any difference.
    O(n) plus the size of the listing; the compact fit adds its candidates, each
    built whole once.
    """
    budget = _check_budget(budget_bytes)
    fit = _check_fit(fit)
    total = catalog_total(catalog)
    n = len(catalog.entries)

    def refuse(why: str) -> DefinitionError:
        return DefinitionError("rendering_not_certified", why)

    if type(rendered) is not RenderedCatalog:
        raise refuse("not a RenderedCatalog")
    rendered = _plain_rendered(rendered)
    if not _rendering_fields_typed(rendered):
        raise refuse("not a RenderedCatalog")
    if (rendered.budget_bytes, rendered.total) != (budget, total):
        raise refuse("budget or total differs")
    if not is_count(rendered.listed) or rendered.listed > n:
        raise refuse("listed count out of range")
    forms = FORMS if fit == "prefix" else (*FORMS, *COMPACT_FORMS)
    if rendered.form not in forms or rendered.omitted != total - rendered.listed:
        raise refuse("form or omitted count wrong")
    if _utf8_len(rendered.text) > budget:
        raise refuse("rendering exceeds its budget")
    if total == 0:
        if rendered.form != "empty" or rendered.text:
            raise refuse("an empty catalog renders as empty text")
        return
    if fit == "compact":
        compact = _compact_expected(catalog, budget, total)
        if compact is not None:
            if (rendered.form, rendered.listed) != (compact[1], n) or rendered.text != compact[0]:
                raise refuse(
                    f"the first fitting compact candidate is {compact[1]}, "
                    f"not {rendered.form} listing {rendered.listed}"
                )
            return
        if rendered.form in COMPACT_FORMS:
            raise refuse(f"no compact candidate fits, so {rendered.form} is wrong")
    # Sizes of every framed candidate from the plain builders: prefix sums.
    phrase = _roots_phrase(catalog.roots)
    fixed = sum(map(_utf8_len, (HEADER, _pointer_line(total, phrase), FOOTER)))
    entry_sizes = [_utf8_len(_entry_line(e.name, e.description, e.file)) for e in catalog.entries]
    sizes = []
    running = fixed
    for listed in range(n + 1):
        more = _utf8_len(_more_line(total - listed)) if total - listed else 0
        sizes.append(running + more)
        if listed < n:
            running += entry_sizes[listed]
    first_listing_fit = max((k for k in range(n + 1) if sizes[k] <= budget), default=None)
    minimal = _minimal_line(total, catalog.roots, phrase)
    if rendered.form == "listing":
        if first_listing_fit != rendered.listed:
            raise refuse(
                f"the longest fitting prefix lists {describe(first_listing_fit)}, "
                f"not {describe(rendered.listed)}"
            )
        expected = "".join(_framed_lines(catalog, rendered.listed, total))
    elif rendered.form == "minimal":
        if first_listing_fit is not None or rendered.listed != 0:
            raise refuse("a framed candidate fits, so the minimal form is wrong")
        expected = minimal
    else:
        if first_listing_fit is not None or _utf8_len(minimal) <= budget or rendered.listed:
            raise refuse("a candidate fits, so the empty form is wrong")
        expected = ""
    if rendered.text != expected:
        raise refuse("text differs from the candidate it claims to be")
