"""Skill activation: one SKILL.md delivered to the model, certified (docs/contract.md §10).

Pure: an :class:`ActivationSource` (the document's bytes as read, the package folder, the
resources found in it) and a budget in, a :class:`SkillActivation` out. The reading and
listing are I/O and live in :mod:`a13n_harness.capabilities.activation`.

The text of an activation::

    <skill_content name="NAME">
    BODY                                  <- the SKILL.md after its frontmatter, encoded
    <skill_cut lines_shown="L">...</skill_cut>   <- only when the body is cut
    <skill_directory>DIRECTORY</skill_directory>
    Relative paths in this skill resolve against its directory.
    <skill_resources>
    <file>RELATIVE/PATH</file>            <- at most MAX_LISTED_RESOURCES, sorted
    <omitted>N more file(s) not listed</omitted>   <- only when N > 0
    </skill_resources>
    </skill_content>

**The body stays Markdown and holds no tag** (:func:`encode_body`). Line feeds and tabs
stay raw, so headings, lists, tables and indented code read as written. Every ``<`` is
written ``&lt;``: the body then holds no ``<`` at all, so no line of it can close the
block, open a tag of ours or forge any other tag; ``>`` stays raw (block quotes, ``->``,
``2>&1``). A ``&`` that could start a reference (followed by an ASCII letter or ``#``)
is written ``&amp;``, so ``&lt;`` in the text always means a ``<`` of the document and an
author cannot spell an escape of ours; other ``&`` (``&&``, ``2>&1``) stay raw. Every
other code point contract §1 escapes (controls, separators, bidirectional, tag and
invisible characters, surrogates) is written as §1 writes it (``&#xH;``). A CR LF line
end is a line end (LF); a lone CR is a control. Bytes that are not UTF-8 are decoded
with ``surrogateescape`` and so appear as ``&#xDC80;``..``&#xDCFF;``: the byte is shown,
never dropped nor replaced. :func:`decode_body` inverts the encoding exactly.

**Bounded, with an explicit cut** (:func:`render_activation`). The candidates, in order:
the full text; the body cut after its first ``k`` *pieces* with the cut marker, for ``k``
from the number of pieces minus one down to 0; the minimal text (the opening tag, the cut
marker, the closing tag); ``""``. The first whose measure is within the budget wins (UTF-8
bytes, or the run's :class:`~a13n_harness.context.tokens.TokenCounter`). A piece is a
body line and the lines after it that start with whitespace or ``/``: the body is cut only
before a line that starts with another character, so every candidate is a sequence of
lines that ``line_additive`` joins (contract §9) and a line-additive counter is asked for
each line once, never for every candidate. A document read only in part (its read came
back full) is never shown whole: its last, partial line is dropped and it is cut.

**Certified** (:func:`check_activation`): the activation must equal, field by field, the
candidate the rule picks, and the rule is checked by its witness (the candidate fits,
every earlier one does not), measured independently of the search the renderer does.
:func:`reference_activation` is the plain oracle that builds and measures every candidate.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import pairwise
from typing import Final

from a13n_harness.context._checks import (
    describe,
    is_count,
    is_kind,
    plain_bytes,
    plain_fields,
    plain_str,
)
from a13n_harness.context.encoder import ESCAPED_RANGES, encode_value, is_escaped
from a13n_harness.context.errors import DefinitionError
from a13n_harness.context.frontmatter import (
    _BOM,
    _FENCE,
    FrontmatterLimits,
    is_valid_name,
    parse_skill_document,
)
from a13n_harness.context.render import catalog_allowance
from a13n_harness.context.tokens import TokenCounter, _check_counter, _counted, declares

__all__ = [
    "ACTIVATION_FORMS",
    "MAX_LISTED_RESOURCES",
    "ActivationSource",
    "SkillActivation",
    "activation_allowance",
    "activation_body",
    "check_activation",
    "check_repeat",
    "decode_body",
    "encode_body",
    "reference_activation",
    "render_activation",
    "repeat_activation",
    "repeat_note",
]

MAX_LISTED_RESOURCES: Final = 100
"""100 resources listed at most (the contract's cap): a skill's scripts, references and
assets fit; a folder of generated files is counted, not listed."""

ACTIVATION_SHARE: Final = 4
"""An activation may take a quarter of the usable input window: a skill's instructions
stay in context for the rest of the run (they are not compacted away), several may be
active at once, and the catalog and the conversation need the rest."""

ACTIVATION_FORMS: Final = ("full", "cut", "minimal", "empty", "repeat")
"""What an activation's text is: the whole body, a cut body, the tags and the cut marker
only, nothing (no candidate fits), or the short note of a second activation."""


@dataclass(frozen=True, slots=True)
class SkillActivation:
    """A certified activation: what the model reads when a skill is activated.

    ``resources`` are paths relative to ``directory``, sorted, at most
    :data:`MAX_LISTED_RESOURCES`; ``resources_omitted`` counts the others exactly.
    ``truncated``: the text does not hold the whole body. ``form``: one of
    :data:`ACTIVATION_FORMS` (``"repeat"``: the skill was already active in this run,
    the text is a short note and holds no body).
    """

    name: str
    text: str
    directory: str
    resources: tuple[str, ...]
    resources_omitted: int
    truncated: bool
    form: str = "full"

    def __post_init__(self) -> None:
        plain_fields(self)  # a Host's subclasses as their plain values


@dataclass(frozen=True, slots=True)
class ActivationSource:
    """What an activation is made of, as read: checked when built.

    ``document`` is the SKILL.md's bytes as read; ``complete`` whether they are the whole
    file (a read that came back full may have stopped inside it). ``resources`` is every
    resource found below ``directory``, relative, sorted, without duplicates.
    """

    name: str
    directory: str
    document: bytes
    resources: tuple[str, ...] = ()
    complete: bool = True
    limits: FrontmatterLimits = FrontmatterLimits()  # the scan's, so the frontmatter parses

    def __post_init__(self) -> None:
        plain_fields(self)  # a Host's subclasses as their plain values, before any check
        problem = _source_problem(self)
        if problem is not None:
            raise DefinitionError("catalog_invalid", problem, reason="activation")


def _is_relative_path(path: object) -> bool:
    return (
        type(path) is str
        and "\x00" not in path
        # "" and "/a" hold an empty segment too
        and all(segment not in ("", ".", "..") for segment in path.split("/"))
    )


def _source_problem(source: object) -> str | None:
    """What is wrong with ``source`` (also run on every use: a forged source is refused)."""
    if type(source) is not ActivationSource:
        return f"an ActivationSource is needed, got {describe(source)}"
    if not is_valid_name(source.name):
        return f"not a skill name: {describe(source.name)}"
    # Read as objects: a source forged past its constructor may hold anything.
    directory: object = source.directory
    document: object = source.document
    complete: object = source.complete
    limits: object = source.limits
    resources: object = source.resources
    if type(directory) is not str or not directory.startswith("/"):
        return f"the directory must be an absolute path, got {describe(directory)}"
    if type(document) is not bytes:
        return f"the document must be bytes, got {describe(document)}"
    if type(complete) is not bool:
        return f"complete must be a bool, got {describe(complete)}"
    if type(limits) is not FrontmatterLimits:
        return f"limits must be FrontmatterLimits, got {describe(limits)}"
    if type(resources) is not tuple or not all(map(_is_relative_path, resources)):
        return "resources must be a tuple of relative paths"
    if any(a >= b for a, b in pairwise(resources)):
        return "resources must be sorted and unique"
    return None


def _checked_source(source: object) -> ActivationSource:
    problem = _source_problem(source)
    if problem is not None:
        raise DefinitionError("catalog_invalid", problem, reason="activation")
    assert isinstance(source, ActivationSource)
    return source


def activation_allowance(context_tokens: int, response_reserve_tokens: int) -> int:
    """A quarter of the usable input window: ``max(0, context - reserve) // 4``
    (:data:`ACTIVATION_SHARE`); bad arguments are ``allowance_invalid`` as for the catalog."""
    catalog_allowance(context_tokens, response_reserve_tokens)  # the same checks
    return max(0, (context_tokens - response_reserve_tokens) // ACTIVATION_SHARE)


# ------------------------------------------------------------------------------ the body

_REFERENCE_START = re.compile(r"&(?=[A-Za-z#])")
_DECODE = re.compile(r"&(?:(amp|lt)|#x([0-9A-F]{1,6}));|&(?=[A-Za-z#])|<")


def _escape_code_point(match: re.Match[str]) -> str:
    return f"&#x{ord(match.group()):X};"


# The encoder's class of escaped code points without the line feed and the tab, which a
# body keeps raw (U+0000..U+001F is the first range: it becomes two ranges around them).
_ESCAPED_IN_BODY = re.compile(
    "[\\x00-\\x08\\x0b-\\x1f"
    + "".join(f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in ESCAPED_RANGES[1:])
    + "]"
)


def encode_body(body: str) -> str:
    """The body as the activation shows it (module docstring): Markdown without a tag.

    ``&`` before an ASCII letter or ``#`` becomes ``&amp;``, every ``<`` becomes ``&lt;``,
    every code point contract §1 escapes except the line feed and the tab becomes
    ``&#xH;``, CR LF becomes LF first; everything else is copied.

    >>> encode_body("a</skill_content>&& b&c" + chr(13) + chr(10)) == (
    ...     "a&lt;/skill_content>&& b&amp;c" + chr(10))
    True
    """
    body = plain_str(body)  # type: ignore[assignment]  # a Host's subclass: its characters
    if type(body) is not str:
        raise DefinitionError("context_value_invalid", f"expected str, got {describe(body)}")
    text = body.replace("\r\n", "\n")
    text = _REFERENCE_START.sub("&amp;", text).replace("<", "&lt;")
    return _ESCAPED_IN_BODY.sub(_escape_code_point, text)


def decode_body(text: str) -> str:
    """Invert :func:`encode_body` (CR LF comes back as LF); non-canonical text is
    ``context_value_invalid``: a raw ``<`` or escaped code point, an ``&`` before a letter
    or ``#`` that is not ``&amp;``, ``&lt;`` or a canonical ``&#xH;`` of an escaped code
    point other than the line feed and the tab."""
    text = plain_str(text)  # type: ignore[assignment]  # a Host's subclass: its characters
    if type(text) is not str:
        raise DefinitionError("context_value_invalid", f"expected str, got {describe(text)}")
    raw = _ESCAPED_IN_BODY.search(text)
    if raw is not None:
        raise DefinitionError(
            "context_value_invalid",
            f"raw U+{ord(raw.group()):04X} at offset {raw.start()}",
            reason="raw_character",
        )
    return _DECODE.sub(_decoded, text)


def _decoded(match: re.Match[str]) -> str:
    """What one reference of :func:`decode_body` stands for; a raw ``<`` or ``&`` refuses."""
    name, digits = match.group(1), match.group(2)
    if name is not None:
        return "&" if name == "amp" else "<"
    if digits is not None and _canonical_body_hex(digits):
        return chr(int(digits, 16))
    raise DefinitionError(
        "context_value_invalid",
        f"not canonical body text at offset {match.start()}",
        reason="entity",
    )


def _canonical_body_hex(digits: str) -> bool:
    code_point = int(digits, 16)
    return (
        (digits == "0" or not digits.startswith("0"))
        and is_escaped(code_point)
        and code_point not in (0x09, 0x0A)
    )


def activation_body(
    document: bytes, complete: bool = True, limits: FrontmatterLimits = FrontmatterLimits()
) -> str:
    """The body of a SKILL.md: what follows the closing fence line, decoded.

    The frontmatter must parse (``skill_frontmatter_invalid`` otherwise). Bytes that are
    not UTF-8 become lone surrogates (``surrogateescape``), which :func:`encode_body`
    shows as ``&#xDCxx;``. When ``complete`` is false the text after the last line feed
    (a line the read may have cut) is dropped.
    """
    if is_kind(document, bytes):
        document = plain_bytes(document)  # type: ignore[assignment]  # its bytes, not its code
    if type(document) is not bytes:
        raise DefinitionError(
            "catalog_invalid", f"a document must be bytes, got {describe(document)}"
        )
    parse_skill_document(document, limits)
    data = document
    start = len(_BOM) if data.startswith(_BOM) else 0
    opening = _FENCE.match(data, start)
    assert opening is not None  # parse_skill_document found it
    position = opening.end()
    while True:
        closing = _FENCE.match(data, position)
        if closing is not None:
            position = closing.end()
            break
        position = data.index(b"\n", position) + 1  # the closing fence follows (parsed)
    body = data[position:]
    if not complete:
        body = body[: body.rfind(b"\n") + 1]
    return body.decode("utf-8", "surrogateescape")


# ------------------------------------------------------------------------ the candidates


def _pieces(encoded: str) -> list[str]:
    """The encoded body split before each line that starts with neither whitespace nor
    ``/`` (the first line always starts a piece); each piece ends in a line feed."""
    if not encoded:
        return []
    if not encoded.endswith("\n"):
        encoded += "\n"
    pieces: list[str] = []
    for line in encoded[:-1].split("\n"):
        if pieces and (not line or line[0].isspace() or line[0] == "/"):
            pieces[-1] += line + "\n"
        else:
            pieces.append(line + "\n")
    return pieces


class _Plan:
    """The fixed parts of every candidate of one source."""

    __slots__ = (
        "complete",
        "head",
        "line_ends",
        "listed",
        "name",
        "omitted",
        "pieces",
        "source",
        "tail",
    )

    def __init__(self, source: ActivationSource) -> None:
        self.source = source
        self.name = source.name
        self.complete = source.complete
        self.head = f'<skill_content name="{encode_value(source.name)}">\n'
        self.pieces = _pieces(
            encode_body(activation_body(source.document, source.complete, source.limits))
        )
        ends = [0]
        for piece in self.pieces:
            ends.append(ends[-1] + piece.count("\n"))
        self.line_ends = ends  # body lines in pieces[:k]
        self.listed = source.resources[:MAX_LISTED_RESOURCES]
        self.omitted = len(source.resources) - len(self.listed)
        self.tail = _tail(source.directory, self.listed, self.omitted)

    def marker(self, k: int) -> str:
        return _marker(self.line_ends[k], self.source.directory)

    @property
    def top(self) -> int:
        """The largest ``k`` of a cut candidate."""
        return len(self.pieces) - 1 if self.complete else len(self.pieces)

    def full(self) -> str:
        return self.head + "".join(self.pieces) + self.tail

    def cut(self, k: int) -> str:
        return self.head + "".join(self.pieces[:k]) + self.marker(k) + self.tail

    def minimal(self) -> str:
        return self.head + self.marker(0) + CLOSING

    def activation(self, text: str, form: str) -> SkillActivation:
        return SkillActivation(
            self.name,
            text,
            self.source.directory,
            self.listed,
            self.omitted,
            form != "full",
            form,
        )


CLOSING: Final = "</skill_content>\n"


def _document_path(directory: str) -> str:
    return directory.rstrip("/") + "/SKILL.md"


def _marker(lines_shown: int, directory: str) -> str:
    return (
        f'<skill_cut lines_shown="{lines_shown}">cut to fit the context budget; the rest is '
        f"in {encode_value(_document_path(directory))}</skill_cut>\n"
    )


def _tail(directory: str, listed: tuple[str, ...], omitted: int) -> str:
    lines = [
        f"<skill_directory>{encode_value(directory)}</skill_directory>\n",
        "Relative paths in this skill resolve against its directory.\n",
        "<skill_resources>\n",
    ]
    lines.extend(f"<file>{encode_value(path)}</file>\n" for path in listed)
    if omitted:
        noun = "file" if omitted == 1 else "files"
        lines.append(f"<omitted>{omitted} more {noun} not listed</omitted>\n")
    lines.append("</skill_resources>\n")
    lines.append(CLOSING)
    return "".join(lines)


def repeat_note(name: str, directory: str) -> str:
    """The text of a second activation of one skill in a run: a note, not the body."""
    name, directory = plain_str(name), plain_str(directory)  # type: ignore[assignment]
    if not is_valid_name(name) or type(directory) is not str:
        raise DefinitionError("catalog_invalid", "a repeat note needs a skill name and a directory")
    return (
        f'<skill_content name="{encode_value(name)}" already_active="true">\n'
        "This skill is already active in this run: follow the instructions delivered "
        "when it was first activated.\n"
        f"{CLOSING}"
    )


def _check_budget(budget: object) -> int:
    if not is_count(budget):
        raise DefinitionError(
            "allowance_invalid",
            f"an activation budget must be a non-negative int, got {describe(budget)}",
            reason="budget",
        )
    return budget


def _measure(counter: TokenCounter | None, text: str) -> int:
    """UTF-8 bytes, or the counter's tokens; ``""`` measures 0 (nothing is sent)."""
    if not text:
        return 0
    return len(text.encode("utf-8")) if counter is None else _counted(counter, text)


def _additive(counter: TokenCounter | None) -> bool:
    """Whether candidates may be measured line by line: bytes always, a counter when it
    declares ``line_additive`` (every candidate splits where it joins, by construction)."""
    return counter is None or declares(counter, "line_additive")


def _checked_counter(counter: object) -> TokenCounter | None:
    if counter is not None:
        _check_counter(counter)
    return counter  # type: ignore[return-value]


# --------------------------------------------------------------------------- rendering


class _Sums:
    """Measures of ``head + pieces[:k]``, extended one piece at a time on demand.

    The head and the first piece are measured together (the first body line may start
    with whitespace or ``/``, where ``line_additive`` does not join); every later piece
    starts a line it joins, so ``sums[1:]`` never decreases.
    """

    __slots__ = ("_counter", "_pieces", "sums")

    def __init__(self, counter: TokenCounter | None, head: str, pieces: list[str]) -> None:
        self._counter = counter
        self._pieces = pieces
        self.sums = [_measure(counter, head)]
        if pieces:
            self.sums.append(_measure(counter, head + pieces[0]))

    def highest_within(self, limit: int, top: int) -> int:
        """The largest ``k <= top`` with ``sums[k] <= limit`` (-1 if none), measuring no
        piece past the first that passes ``limit``."""
        sums = self.sums
        while sums[-1] <= limit and len(sums) <= top:
            sums.append(sums[-1] + _measure(self._counter, self._pieces[len(sums) - 1]))
        # The loop keeps len(sums) <= top + 1 (it starts at 1 or 2 with top >= len(pieces)).
        k = len(sums) - 1
        while k >= 0 and sums[k] > limit:
            k -= 1
        return k


def render_activation(
    source: ActivationSource, budget: int, counter: TokenCounter | None = None
) -> SkillActivation:
    """The activation of ``source`` within ``budget`` (module docstring).

    ``counter`` ``None`` measures UTF-8 bytes; a counter measures its tokens, line by line
    when it declares ``line_additive`` (linear in the body's bytes), else one whole
    candidate per count, walking down from the longest (quadratic in the worst case, as
    any black-box count must be).
    """
    plan = _Plan(_checked_source(source))
    budget = _check_budget(budget)
    counter = _checked_counter(counter)
    if _additive(counter):
        return _render_additive(plan, budget, counter)
    if plan.complete and _measure(counter, plan.full()) <= budget:
        return plan.activation(plan.full(), "full")
    for k in range(plan.top, -1, -1):
        text = plan.cut(k)
        if _measure(counter, text) <= budget:
            return plan.activation(text, "cut")
    return _last_resort(plan, budget, counter)


def _render_additive(plan: _Plan, budget: int, counter: TokenCounter | None) -> SkillActivation:
    tail = _measure(counter, plan.tail)
    sums = _Sums(counter, plan.head, plan.pieces)
    n = len(plan.pieces)
    fits = sums.highest_within(budget - tail, n)
    if plan.complete and fits == n:
        return plan.activation(plan.full(), "full")
    k = min(fits, plan.top)  # a longer cut candidate does not fit even without its marker
    while k >= 0:
        if sums.sums[k] + _measure(counter, plan.marker(k)) + tail <= budget:
            return plan.activation(plan.cut(k), "cut")
        k -= 1
    return _last_resort(plan, budget, counter)


def _last_resort(plan: _Plan, budget: int, counter: TokenCounter | None) -> SkillActivation:
    minimal = plan.minimal()
    if _measure(counter, minimal) <= budget:
        return plan.activation(minimal, "minimal")
    return plan.activation("", "empty")


def reference_activation(
    source: ActivationSource, budget: int, counter: TokenCounter | None = None
) -> SkillActivation:
    """The plain oracle: build every candidate in order, measure each whole, take the first
    that fits. Quadratic in the body; for tests and the fuzz target."""
    plan = _Plan(_checked_source(source))
    budget = _check_budget(budget)
    counter = _checked_counter(counter)
    candidates: list[tuple[str, str]] = []
    if plan.complete:
        candidates.append((plan.full(), "full"))
    candidates.extend((plan.cut(k), "cut") for k in range(plan.top, -1, -1))
    candidates.append((plan.minimal(), "minimal"))
    for text, form in candidates:
        if _measure(counter, text) <= budget:
            return plan.activation(text, form)
    return plan.activation("", "empty")


# ------------------------------------------------------------------------- certifying


def _not_certified(message: str) -> DefinitionError:
    return DefinitionError("activation_not_certified", message)


def _plain_activation(activation: object) -> SkillActivation:
    if type(activation) is not SkillActivation:
        raise _not_certified(f"not a SkillActivation: {describe(activation)}")
    for field, kind in (
        ("name", str),
        ("text", str),
        ("directory", str),
        ("resources", tuple),
        ("truncated", bool),
        ("form", str),
    ):
        if type(getattr(activation, field, None)) is not kind:
            raise _not_certified(f"the activation's {field} is not a {kind.__name__}")
    if not is_count(activation.resources_omitted):
        raise _not_certified("the activation's resources_omitted is not a count")
    if not all(type(path) is str for path in activation.resources):
        raise _not_certified("the activation's resources are not all str")
    return activation


def _claimed_cut(plan: _Plan, text: str) -> int | None:
    """The ``k`` of the cut candidate ``text`` claims to be, read from its marker's line
    count, or ``None`` when it names no piece boundary."""
    match = re.search(r'<skill_cut lines_shown="(0|[1-9][0-9]{0,18})">', text)
    if match is None:
        return None
    cuts = {plan.line_ends[k]: k for k in range(plan.top + 1)}
    return cuts.get(int(match.group(1)))


def _exceeds_from(plan: _Plan, start: int, budget: int, counter: TokenCounter | None) -> bool:
    """Whether every cut candidate ``k`` in ``start..top`` (and the full text, for a whole
    document) measures over ``budget``: by line sums when additive, else whole."""
    top = plan.top
    if not _additive(counter):
        if plan.complete and _measure(counter, plan.full()) <= budget:
            return False
        return all(_measure(counter, plan.cut(k)) > budget for k in range(start, top + 1))
    tail = _measure(counter, plan.tail)
    sums = _Sums(counter, plan.head, plan.pieces)
    n = len(plan.pieces)
    while len(sums.sums) <= n:  # every piece, each measured once
        sums.sums.append(sums.sums[-1] + _measure(counter, plan.pieces[len(sums.sums) - 1]))
    for k in range(start, top + 1):
        if sums.sums[k] + _measure(counter, plan.marker(k)) + tail <= budget:
            return False
    return not (plan.complete and sums.sums[n] + tail <= budget)


def check_activation(
    source: ActivationSource,
    budget: int,
    activation: SkillActivation,
    counter: TokenCounter | None = None,
) -> None:
    """Raise ``activation_not_certified`` unless ``activation`` is exactly what
    :func:`render_activation` must give for ``source``, ``budget`` and ``counter``.

    Independent of the renderer's search: the text is matched against the candidate it
    claims to be (the full text, the cut named by its marker, the minimal text or ``""``),
    which must fit, and every candidate before it is measured and must not. Every field
    is compared; a forged value (a subclass, a wrong type) is refused.
    """
    activation = _plain_activation(activation)
    plan = _Plan(_checked_source(source))
    budget = _check_budget(budget)
    counter = _checked_counter(counter)
    text, form = activation.text, activation.form
    k: int | None = None  # the claimed cut: the cuts before it are k + 1..top
    if form == "full":
        expected = plan.full() if plan.complete else None
    elif form == "cut":
        k = _claimed_cut(plan, text)
        expected = None if k is None else plan.cut(k)
    elif form == "minimal":
        expected = plan.minimal()
    elif form == "empty":
        expected = ""
    else:
        raise _not_certified(f"the activation's form {describe(form)} is not certified here")
    if expected is None or text != expected:
        raise _not_certified(f"the text of skill {plan.name!r} is not its {form} candidate")
    if _measure(counter, text) > budget:
        raise _not_certified(f"the activation of {plan.name!r} exceeds its budget of {budget}")
    first_earlier_cut = 0 if k is None else k + 1
    # No candidate comes before the full text; the minimal text comes before "".
    if form != "full" and (
        not _exceeds_from(plan, first_earlier_cut, budget, counter)
        or (form == "empty" and _measure(counter, plan.minimal()) <= budget)
    ):
        raise _not_certified(f"an earlier candidate of {plan.name!r} fits the budget")
    if activation != plan.activation(text, form):
        raise _not_certified(f"a field of the activation of {plan.name!r} differs")


def repeat_activation(name: str, directory: str) -> SkillActivation:
    """The activation of a skill already active in the run: :func:`repeat_note`, no body,
    no resources (a constant-size note, under 300 bytes, whatever the budget)."""
    name, directory = plain_str(name), plain_str(directory)  # type: ignore[assignment]
    return SkillActivation(name, repeat_note(name, directory), directory, (), 0, False, "repeat")


def check_repeat(name: str, directory: str, activation: SkillActivation) -> None:
    """Raise ``activation_not_certified`` unless ``activation`` is exactly
    :func:`repeat_activation` of ``name`` and ``directory`` (no forged field)."""
    name = plain_str(name)  # type: ignore[assignment]  # shown below by repr: never the Host's
    if _plain_activation(activation) != repeat_activation(name, directory):
        raise _not_certified(f"not the repeat note of skill {describe(name)}")
