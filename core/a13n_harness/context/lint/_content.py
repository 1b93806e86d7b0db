"""The content rules: characters a reader cannot see (tags, bidirectional controls,
invisible and control characters) and base64-like runs, in the frontmatter as written, in
its values as YAML delivers them, and in the body."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Set
from functools import cache
from typing import TYPE_CHECKING

from a13n_harness.context.encoder import ESCAPED_RANGES, joins_emoji, printable_escaped
from a13n_harness.context.lint._nodes import _Scalar
from a13n_harness.context.lint._rules import (
    _WRAP_MIN,
    BASE64_MIN_CHARS,
    BODY_MAX_LINES,
    BODY_MAX_TOKENS,
    Issue,
)
from a13n_harness.context.lint._text import _Text

if TYPE_CHECKING:
    from a13n_harness.context.tokens import TokenCounter


def _count(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def _class(ranges: tuple[tuple[int, int], ...]) -> str:
    return "".join(f"\\U{lo:08x}" if lo == hi else f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in ranges)


_TAG_RANGES = ((0xE0000, 0xE007F),)
_BIDI_RANGES = ((0x061C, 0x061C), (0x200E, 0x200F), (0x202A, 0x202E), (0x2066, 0x2069))
_NOT_INVISIBLE = ((0x09, 0x0A), (0x0D, 0x0D), (0xD800, 0xDFFF), *_TAG_RANGES, *_BIDI_RANGES)


def _subtract(
    ranges: tuple[tuple[int, int], ...], removed: tuple[tuple[int, int], ...]
) -> tuple[tuple[int, int], ...]:
    """``ranges`` less every code point of ``removed`` (both inclusive range lists)."""
    return _runs(
        {p for lo, hi in ranges for p in range(lo, hi + 1)}
        - {p for lo, hi in removed for p in range(lo, hi + 1)}
    )


def _runs(points: Iterable[int]) -> tuple[tuple[int, int], ...]:
    """The code points ``points`` as inclusive ranges of consecutive ones, in order."""
    result: list[tuple[int, int]] = []
    for point in sorted(points):
        if result and result[-1][1] == point - 1:
            result[-1] = (result[-1][0], point)
        else:
            result.append((point, point))
    return tuple(result)


# The encoder's set (docs/contract.md section 1), split three ways: tags, bidi controls,
# and every other invisible or control character (tab and line ends are text; a lone
# surrogate cannot survive UTF-8 decoding and is skill_encoding_invalid).
_INVISIBLE_RANGES = _subtract(ESCAPED_RANGES, _NOT_INVISIBLE)
_CONTENT_RULES = (
    ("skill_tag_characters", re.compile(f"[{_class(_TAG_RANGES)}]"), "tag character"),
    ("skill_bidi_control", re.compile(f"[{_class(_BIDI_RANGES)}]"), "bidirectional control"),
    (
        "skill_invisible_characters",
        re.compile(f"[{_class(_INVISIBLE_RANGES)}]"),
        "invisible or control character",
    ),
)
_ANY_HIDDEN = re.compile(f"[{_class(_TAG_RANGES + _BIDI_RANGES + _INVISIBLE_RANGES)}]")
_ASCII_HIDDEN = re.compile(
    f"[{_class(tuple((lo, min(hi, 0x7F)) for lo, hi in _INVISIBLE_RANGES if lo < 0x80))}]"
)
# The same set as _ANY_HIDDEN, as UTF-8 byte sequences (properties/test_lint_core.py checks
# the two agree on every code point).
_UTF8_HIDDEN = re.compile(
    rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]"
    rb"|\xc2[\x80-\x9f\xad]"
    rb"|\xcd\x8f"
    rb"|\xd8\x9c"
    rb"|\xe1\x85[\x9f\xa0]"
    rb"|\xe1\x9e[\xb4\xb5]"
    rb"|\xe1\xa0[\x8b-\x8f]"
    rb"|\xe2\x80[\x8b-\x8f\xa8-\xae]"
    rb"|\xe2\x81[\xa0-\xaf]"
    rb"|\xe3\x85\xa4"
    rb"|\xef\xb8[\x80-\x8f]"
    rb"|\xef\xbb\xbf"
    rb"|\xef\xbe\xa0"
    rb"|\xef\xbf[\xb0-\xbb]"
    rb"|\xf0\x9b\xb2[\xa0-\xa3]"
    rb"|\xf0\x9d\x85[\xb3-\xba]"
    rb"|\xf3\xa0[\x80-\xbf][\x80-\xbf]"
)
# The base64 alphabet with the URL-safe one (RFC 4648 section 5: `-` and `_` for `+` and `/`).
_B64 = "A-Za-z0-9+/_-"
# Attempts start only where a run starts (the look-behind after the first character,
# which leaves the engine its fast skip to the next candidate), so each run is read once.
_BASE64 = re.compile(
    rf"[{_B64}](?<![={_B64}].)[{_B64}]{{{BASE64_MIN_CHARS - 1},}}+=*+",
    re.ASCII | re.DOTALL,
)
_WRAPPED = re.compile(
    rf"^[ \t]*+[{_B64}]{{{_WRAP_MIN},}}+\r?\n(?:[ \t]*+[{_B64}]{{{_WRAP_MIN},}}+\r?\n)++"
    rf"(?:[ \t]*+[{_B64}]++=*+(?=\r?$)|[ \t]*+=++(?=\r?$))?+",
    re.ASCII | re.MULTILINE,
)
# Each UTF-8 byte as "A" (the base64 alphabet), itself (line ends) or " " (anything else).
_BASE64_BYTES = bytes(
    ord("A")
    if chr(byte).isascii() and (chr(byte).isalnum() or chr(byte) in "+/_-")
    else (byte if byte in b"\r\n" else ord(" "))
    for byte in range(256)
)
_BASE64_RUN = b"A" * BASE64_MIN_CHARS
_WRAP_RUN = b"A" * _WRAP_MIN
# What a wrapped block's first line ends with (_WRAPPED), one of them at least.
_WRAP_ENDS = (_WRAP_RUN + b"\n", _WRAP_RUN + b"\r\n")
_UPPER = re.compile("[A-Z]")
_LOWER = re.compile("[a-z]")
_DIGIT = re.compile("[0-9]")
_EMOJI_JOINERS = re.compile("[\u200d\ufe0e\ufe0f]")
_INVISIBLE = _CONTENT_RULES[2][1]


def _mixed(value: str) -> bool:
    """Upper case, lower case and digits: encoded bytes, not a word, a constant or a digest."""
    return bool(_UPPER.search(value) and _LOWER.search(value) and _DIGIT.search(value))


def _hidden(pattern: re.Pattern[str], text: str, start: int, end: int) -> tuple[int, int] | None:
    """Where the first character ``pattern`` finds in ``text[start:end]`` is and how many
    there are, less the joiners that belong to an emoji sequence (text, not hiding:
    :func:`joins_emoji`); ``None`` when there is none. Linear: the joiners are looked at
    once each, the rest are counted in C."""
    first = pattern.search(text, start, end)
    if first is None:
        return None
    count = len(pattern.findall(text, start, end))
    if pattern is not _INVISIBLE:
        return first.start(), count
    kept = [
        m.start() for m in _EMOJI_JOINERS.finditer(text, start, end) if joins_emoji(text, m.start())
    ]
    if not kept:
        return first.start(), count
    if count == len(kept):
        return None
    exempt = set(kept)
    for found in pattern.finditer(text, start, end):
        if found.start() not in exempt:
            return found.start(), count - len(kept)
    return None  # pragma: no cover - count > len(kept) leaves one


_JOINER_CHARS = frozenset("\u200d\ufe0e\ufe0f")  # what _EMOJI_JOINERS finds
# At most this many distinct characters are looked for one by one (two passes each over
# the part); more, and the expression's one pass is cheaper.
_FEW_CHARS = 8


def _hidden_of(
    pattern: re.Pattern[str], text: str, start: int, end: int, chars: Set[str]
) -> tuple[int, int] | None:
    """:func:`_hidden` when ``chars`` is the set of the characters ``pattern`` finds in
    ``text[start:end]``: a few are found and counted by ``str.find`` and ``str.count`` at
    memory speed, where the expression tests its class at every position (the joiners,
    which :data:`_INVISIBLE` finds, are looked at once each)."""
    if not chars:
        return None
    if len(chars) > _FEW_CHARS:
        return _hidden(pattern, text, start, end)
    found = {char: text.find(char, start, end) for char in chars}
    count = sum(text.count(char, start, end) for char in chars)
    if pattern is not _INVISIBLE:
        return min(found.values()), count
    first = min((at for char, at in found.items() if char not in _JOINER_CHARS), default=end)
    kept = 0
    for joiner in _JOINER_CHARS.intersection(chars):
        at = found[joiner]
        while at >= 0:
            if joins_emoji(text, at):
                kept += 1
            elif at < first:
                first = at
            at = text.find(joiner, at + 1, end)
    if count == kept:
        return None
    return first, count - kept


@cache
def _printable_hidden() -> re.Pattern[str]:
    """One character class of :func:`printable_escaped` (this Python's, so built on first
    use): the engine tests each character against it in C, where ``frozenset.isdisjoint``
    makes a string object of every character of the text."""
    ranges = _runs(map(ord, printable_escaped()))
    return re.compile(f"[{_class(ranges)}]" if ranges else "(?!)")


# The ASCII characters that are text: tab, line ends and the printable ones.
_ASCII_SHOWN = bytes((0x09, 0x0A, 0x0D, *range(0x20, 0x7F)))


def _rest(part: str) -> str:
    """``part`` less its ASCII text (tab, line ends, printable ASCII), by one byte
    translation: the non-ASCII characters and the ASCII controls, whole (a multi-byte
    sequence holds no ASCII byte). A YAML value may hold a lone surrogate: it goes through."""
    return (
        part.encode("utf-8", "surrogatepass")
        .translate(None, _ASCII_SHOWN)
        .decode("utf-8", "surrogatepass")
    )


def _quiet(part: str) -> bool:
    """Whether ``part`` certainly holds no hidden character, decided by C-speed passes: every
    hidden character is one ``str.isprintable`` refuses (tab and line ends aside) or one of
    the few printable ones the encoder escapes (variation selectors, fillers). Only
    :func:`_rest` is looked at."""
    if part.isascii():
        return _ASCII_HIDDEN.search(part) is None
    return _quiet_rest(_rest(part))


def _quiet_rest(rest: str) -> bool:
    """:func:`_quiet` of a text whose :func:`_rest` is ``rest``."""
    return rest.isprintable() and _printable_hidden().search(rest) is None


def _content_issues(text: _Text, start: int, end: int, region: str) -> Iterator[Issue]:
    """The content rules over ``text.text[start:end]`` (the frontmatter or the body)."""
    decoded = text.text
    encoded = decoded[start:end].encode("utf-8")  # decoded from UTF-8: no surrogate
    # Every character a rule finds is outside the ASCII text (properties/
    # test_lint_fast_paths.py checks it), so those in the part are those of its rest: a
    # few characters in text as people write it, looked for one by one in the part.
    rest = encoded.translate(None, _ASCII_SHOWN).decode("utf-8")
    for rule, pattern, what in () if _quiet_rest(rest) else _CONTENT_RULES:
        hit = _hidden_of(pattern, decoded, start, end, set(pattern.findall(rest)))
        if hit is None:
            continue
        at, count = hit
        line, column = text.where(at)
        yield Issue(
            rule,
            line,
            column,
            f"the {region} holds {_count(count, what)}; the first is "
            f"U+{ord(decoded[at]):04X} here, invisible to a reader and read by the model",
        )
    # No run of the base64 alphabet that long, no finding: decided by one byte
    # translation and one substring search, not by the expression's per-character tries.
    alphabet = encoded.translate(_BASE64_BYTES)
    if _WRAP_RUN not in alphabet:
        return
    runs = [
        (run.start(), run.group(), 1)
        for run in (_BASE64.finditer(decoded, start, end) if _BASE64_RUN in alphabet else ())
        if _mixed(run.group())
    ][:1]
    if any(tail in alphabet for tail in _WRAP_ENDS):  # else no line opens a wrapped block
        for block in _WRAPPED.finditer(decoded, start, end):
            value = "".join(block.group().split())
            if len(value) >= BASE64_MIN_CHARS and _mixed(value):
                runs.append(
                    (
                        block.start() + len(block.group()) - len(block.group().lstrip()),
                        value,
                        block.group().count("\n") + 1,
                    )
                )
                break
    if runs:
        at, value, lines = min(runs)
        line, column = text.where(at)
        shape = (
            f"run of {len(value)} characters"
            if lines == 1
            else f"block of {len(value)} characters on {lines} lines"
        )
        yield Issue(
            "skill_base64_run",
            line,
            column,
            f"the {region} holds a base64-like {shape} "
            f"(from {value[:12]!r}); ship encoded content as a file of the skill",
        )


def _value_issues(
    text: _Text, offset: int, scalars: list[_Scalar], reported: set[str]
) -> Iterator[Issue]:
    """The content rules over the frontmatter's values as YAML delivers them, which is what
    the catalog shows the model: a YAML escape (``"\\U000E0041"``) is plain ASCII as written.
    Only the rules the text as written did not raise; the finding is at the first value
    holding it. Quoted scalars only (a plain or block scalar has no escapes)."""
    quoted = [scalar for scalar in scalars if not scalar.plain and not _quiet(scalar.value)]
    for rule, pattern, what in _CONTENT_RULES:
        if rule in reported:
            continue
        first: tuple[_Scalar, int] | None = None
        count = 0
        for scalar in quoted:
            hit = _hidden(pattern, scalar.value, 0, len(scalar.value))
            if hit is not None:
                count += hit[1]
                first = first or (scalar, hit[0])
        if first is None:
            continue
        line, column = text.where(offset + first[0].index)
        yield Issue(
            rule,
            line,
            column,
            f"the frontmatter holds {_count(count, what)} written as YAML escapes; the first "
            f"is U+{ord(first[0].value[first[1]]):04X} in the value here, invisible to a "
            "reader and read by the model",
        )
    if "skill_base64_run" in reported:
        return
    for scalar in scalars:
        if not scalar.plain and len(scalar.value) >= BASE64_MIN_CHARS:
            for run in _BASE64.finditer(scalar.value):
                if _mixed(run.group()):
                    line, column = text.where(offset + scalar.index)
                    yield Issue(
                        "skill_base64_run",
                        line,
                        column,
                        f"the frontmatter holds a base64-like run of {len(run.group())} "
                        f"characters in the value here (from {run.group()[:12]!r}); ship "
                        "encoded content as a file of the skill",
                    )
                    return


def _body_size_issue(text: _Text, start: int, counter: TokenCounter | None) -> Issue | None:
    """``skill_body_too_long`` for the body from code point ``start``, or ``None``.

    Without a ``counter`` the body's lines are counted against :data:`BODY_MAX_LINES`; with
    one, its tokens against :data:`BODY_MAX_TOKENS`, at the line where the running count of
    the body's lines passes the limit. A counter that declares ``byte_bounded`` (at most one
    token per UTF-8 byte) is not asked about a body of no more bytes than the limit.
    """
    if counter is not None:
        # Imported here: the catalog's rendering modules are not lint's unless it counts tokens.
        from a13n_harness.context.tokens import _check_counter  # noqa: PLC0415

        _check_counter(counter)
    if start >= len(text.text):
        return None
    first_line = text.where(start)[0]
    if counter is None:
        lines = text.line_count - first_line + 1
        if lines <= BODY_MAX_LINES:
            return None
        return Issue(
            "skill_body_too_long",
            first_line + BODY_MAX_LINES,
            1,
            f"the body has {lines} lines; keep SKILL.md under {BODY_MAX_LINES} "
            "and move detail into referenced files",
        )
    body = text.text[start:]
    from a13n_harness.context.tokens import _counted, declares  # noqa: PLC0415 - as above

    # declares: a Host's property that raises is allowance_invalid, as the rendering says.
    if (
        declares(counter, "byte_bounded")
        and len(body) <= BODY_MAX_TOKENS
        and len(body.encode("utf-8")) <= BODY_MAX_TOKENS
    ):
        return None
    tokens = _counted(counter, body)
    if tokens <= BODY_MAX_TOKENS:
        return None
    line, running = first_line, 0
    counts: dict[str, int] = {}  # a line met again (a blank line, a fence) is counted once
    for piece in body.splitlines(keepends=True):
        count = counts.get(piece)
        if count is None:
            count = counts[piece] = _counted(counter, piece)
        running += count
        if running > BODY_MAX_TOKENS:
            break
        line += 1
    line = min(line, text.line_count)
    return Issue(
        "skill_body_too_long",
        line,
        1,
        f"the body has {tokens} {_unit(counter)}; keep SKILL.md's body under "
        f"{BODY_MAX_TOKENS} tokens and move detail into referenced files",
    )


def _unit(counter: TokenCounter) -> str:
    """``tokens``, with the tokenizer's name when the counter carries one as a plain str."""
    try:
        name = counter.name  # type: ignore[attr-defined]
    except Exception:  # no name, or a Host's property raised: the message names no tokenizer
        return "tokens"
    if type(name) is str and 0 < len(name) <= 64 and name.isprintable():
        return f"tokens ({name})"
    return "tokens"
