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
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from itertools import accumulate
from typing import TYPE_CHECKING

from a13n_harness.context._checks import describe, is_count, is_text
from a13n_harness.context.catalog import SkillCatalog, catalog_total
from a13n_harness.context.encoder import encode_value
from a13n_harness.context.errors import DefinitionError

if TYPE_CHECKING:
    from typing import Final

__all__ = [
    "BYTE_BOUNDED",
    "FORMS",
    "RenderedCatalog",
    "catalog_allowance",
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


def _utf8_len(text: str) -> int:
    return len(text.encode("utf-8"))


def catalog_allowance(context_tokens: int, response_reserve_tokens: int) -> int:
    """5% of the usable input window: ``max(0, context - reserve) // 20``.

    The result is used as a UTF-8 byte budget under :data:`BYTE_BOUNDED`.
    """
    for label, value in (
        ("context_tokens", context_tokens),
        ("response_reserve_tokens", response_reserve_tokens),
    ):
        if not is_count(value):
            raise DefinitionError(
                "allowance_invalid",
                f"{label} must be a non-negative int, got {describe(value)}",
                reason="budget",
            )
    return max(0, context_tokens - response_reserve_tokens) // 20


def _entry_plan(catalog: SkillCatalog) -> tuple[list[str], list[int]]:
    """The encoded entry lines and their cumulative UTF-8 sizes, computed once per catalog."""
    entries = catalog.entries
    plan = catalog._render_plan
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


def render_catalog(catalog: SkillCatalog, budget_bytes: int) -> RenderedCatalog:
    """The longest-prefix rendering of ``catalog`` within ``budget_bytes`` UTF-8 bytes.

    O(n): the entry lines are encoded and measured once per catalog, then each
    render is a bisection and a short walk over their cumulative sizes.
    """
    budget = _check_budget(budget_bytes)
    total = catalog_total(catalog)
    if total == 0:
        return RenderedCatalog("", "empty", 0, 0, 0, budget)
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


def reference_render(catalog: SkillCatalog, budget_bytes: int) -> RenderedCatalog:
    """The plain oracle: build every candidate in order and keep the first that fits. O(n^2)."""
    budget = _check_budget(budget_bytes)
    total = catalog_total(catalog)
    if total == 0:
        return RenderedCatalog("", "empty", 0, 0, 0, budget)
    for listed in range(len(catalog.entries), -1, -1):
        text = "".join(_framed_lines(catalog, listed, total))
        if _utf8_len(text) <= budget:
            return RenderedCatalog(text, "listing", listed, total - listed, total, budget)
    minimal = _minimal_line(total, catalog.roots, _roots_phrase(catalog.roots))
    if _utf8_len(minimal) <= budget:
        return RenderedCatalog(minimal, "minimal", 0, total, total, budget)
    return RenderedCatalog("", "empty", 0, total, total, budget)


def _rendering_fields_typed(rendered: RenderedCatalog) -> bool:
    """Every field of a rendering handed in for certification has its declared type."""
    text = getattr(rendered, "text", None)
    return (
        is_text(text)
        and isinstance(getattr(rendered, "form", None), str)
        and all(
            is_count(getattr(rendered, name, None))
            for name in ("listed", "omitted", "total", "budget_bytes")
        )
    )


def verify_rendering(catalog: SkillCatalog, budget_bytes: int, rendered: RenderedCatalog) -> None:
    """Certify ``rendered`` as the rendering of ``catalog`` at ``budget_bytes``.

    Re-derives the answer with the plain line builders (not the fast path):
    the claimed candidate is rebuilt and compared byte for byte, and every
    earlier candidate in the rule's order is shown not to fit. Raises
    ``DefinitionError(code="rendering_not_certified")`` on any difference.
    O(n) plus the size of the listing.
    """
    budget = _check_budget(budget_bytes)
    total = catalog_total(catalog)
    n = len(catalog.entries)

    def refuse(why: str) -> DefinitionError:
        return DefinitionError("rendering_not_certified", why)

    if not isinstance(rendered, RenderedCatalog) or not _rendering_fields_typed(rendered):
        raise refuse("not a RenderedCatalog")
    if (rendered.budget_bytes, rendered.total) != (budget, total):
        raise refuse("budget or total differs")
    if not is_count(rendered.listed) or rendered.listed > n:
        raise refuse("listed count out of range")
    if rendered.form not in FORMS or rendered.omitted != total - rendered.listed:
        raise refuse("form or omitted count wrong")
    if _utf8_len(rendered.text) > budget:
        raise refuse("rendering exceeds its budget")
    if total == 0:
        if rendered.form != "empty" or rendered.text:
            raise refuse("an empty catalog renders as empty text")
        return
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
                f"the longest fitting prefix lists {first_listing_fit}, not {rendered.listed}"
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
