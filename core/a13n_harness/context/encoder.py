"""The context-value encoder (docs/contract.md §1).

Every untrusted value that reaches model context goes through
:func:`encode_value`. Its output cannot author a tag, an entity or a new
line, and it shows the reader that a bidi control, a separator or an
invisible character (every default-ignorable code point: zero-width
characters, the soft hyphen, variation selectors, Hangul fillers,
interlinear annotation, tag characters) was there instead of silently
dropping it: text a person cannot see must not reach a model unseen.

Grammar of the encoded form (what :func:`decode_value` accepts)::

    encoded   = *( plain / joiner / "&amp;" / "&lt;" / "&gt;" / "&#x" hex ";" )
    plain     = any code point that is not "&", "<", ">" nor ESCAPED
    joiner    = U+200D, U+FE0E or U+FE0F inside an emoji sequence (joins_emoji)
    hex       = uppercase hexadecimal of an ESCAPED code point, no leading zeros,
                and not a joiner inside an emoji sequence
"""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import cache

from a13n_harness.context._checks import describe, is_kind, plain_int, plain_str, type_name
from a13n_harness.context.errors import DefinitionError

__all__ = [
    "ESCAPED_RANGES",
    "decode_value",
    "encode_value",
    "is_escaped",
    "joins_emoji",
    "printable_escaped",
]

ESCAPED_RANGES: tuple[tuple[int, int], ...] = (
    (0x0000, 0x001F),  # C0 controls: new lines, tabs, escape sequences
    (0x007F, 0x009F),  # DEL and C1 controls, U+0085 NEXT LINE among them
    (0x00AD, 0x00AD),  # SOFT HYPHEN: invisible unless a line breaks there
    (0x034F, 0x034F),  # COMBINING GRAPHEME JOINER
    (0x061C, 0x061C),  # ARABIC LETTER MARK, a bidi control
    (0x115F, 0x1160),  # HANGUL CHOSEONG and JUNGSEONG FILLER: blank letters
    (0x17B4, 0x17B5),  # KHMER VOWEL INHERENT AQ and AA, not rendered
    (0x180B, 0x180F),  # Mongolian free variation selectors and vowel separator
    (0x200B, 0x200F),  # ZWSP, ZWNJ, ZWJ, LRM, RLM (a ZWJ between two emoji excepted)
    (0x2028, 0x2029),  # LINE SEPARATOR, PARAGRAPH SEPARATOR
    (0x202A, 0x202E),  # bidi embeddings and overrides
    (0x2060, 0x2065),  # word joiner, invisible operators
    (0x2066, 0x2069),  # bidi isolates
    (0x206A, 0x206F),  # deprecated format characters (symmetric swapping, digit shapes)
    (0x3164, 0x3164),  # HANGUL FILLER
    (0xD800, 0xDFFF),  # surrogates: never valid UTF-8 on their own
    (0xFE00, 0xFE0F),  # variation selectors (VS15, VS16 right after an emoji excepted)
    (0xFEFF, 0xFEFF),  # BOM / zero-width no-break space
    (0xFFA0, 0xFFA0),  # HALFWIDTH HANGUL FILLER
    (0xFFF0, 0xFFF8),  # unassigned, reserved as default-ignorable
    (0xFFF9, 0xFFFB),  # interlinear annotation: text a renderer may hide
    (0x1BCA0, 0x1BCA3),  # shorthand format controls
    (0x1D173, 0x1D17A),  # musical symbol format controls (beams, ties, slurs, phrases)
    (0xE0000, 0xE007F),  # tag characters: "ASCII smuggling" a person cannot see
    (0xE0080, 0xE00FF),  # unassigned, reserved as default-ignorable
    (0xE0100, 0xE01EF),  # variation selectors supplement: 240 invisible "bytes"
    (0xE01F0, 0xE0FFF),  # unassigned, reserved as default-ignorable
)
"""Inclusive code point ranges that are written as ``&#xH;``: controls, separators,
surrogates, interlinear annotation, and every Default_Ignorable_Code_Point of Unicode 17.0
(DerivedCoreProperties.txt; Python's ``unicodedata`` does not have the property, so the
ranges are written here and the output does not change with the Python or Unicode version).

Two uses of default-ignorable code points are text, not hiding, and stay raw (see
:func:`joins_emoji`): a ZERO WIDTH JOINER between two emoji (👩‍💻) and VARIATION
SELECTOR-15 or -16 right after an emoji (⚠️) or in a keycap (1️⃣)."""

# Extended_Pictographic (Unicode's emoji-data.txt), taken by whole blocks where Unicode
# reserves them for emoji: a superset, so a joiner between two pictographs is never escaped
# for a table this old; the Misc Symbols, Dingbats and the emoji blocks of plane 1.
_PICTOGRAPHIC_RANGES: tuple[tuple[int, int], ...] = (
    (0x00A9, 0x00A9),
    (0x00AE, 0x00AE),
    (0x203C, 0x203C),
    (0x2049, 0x2049),
    (0x2122, 0x2122),
    (0x2139, 0x2139),
    (0x2194, 0x2199),
    (0x21A9, 0x21AA),
    (0x231A, 0x231B),
    (0x2328, 0x2328),
    (0x2388, 0x2388),
    (0x23CF, 0x23CF),
    (0x23E9, 0x23F3),
    (0x23F8, 0x23FA),
    (0x24C2, 0x24C2),
    (0x25AA, 0x25AB),
    (0x25B6, 0x25B6),
    (0x25C0, 0x25C0),
    (0x25FB, 0x25FE),
    (0x2600, 0x27BF),
    (0x2934, 0x2935),
    (0x2B05, 0x2B07),
    (0x2B1B, 0x2B1C),
    (0x2B50, 0x2B50),
    (0x2B55, 0x2B55),
    (0x3030, 0x3030),
    (0x303D, 0x303D),
    (0x3297, 0x3297),
    (0x3299, 0x3299),
    (0x1F000, 0x1FAFF),
    (0x1FC00, 0x1FFFD),
)
_PICTOGRAPHIC_STARTS = tuple(lo for lo, _ in _PICTOGRAPHIC_RANGES)
_ZWJ = "\u200d"
_PRESENTATION = ("\ufe0e", "\ufe0f")  # VS15 (text style), VS16 (emoji style)
_KEYCAP = "\u20e3"
_SKIN_TONES = (0x1F3FB, 0x1F3FF)


def _pictographic(char: str) -> bool:
    code_point = ord(char)
    at = bisect_right(_PICTOGRAPHIC_STARTS, code_point) - 1
    return at >= 0 and code_point <= _PICTOGRAPHIC_RANGES[at][1]


def joins_emoji(text: str, index: int) -> bool:
    """Whether ``text[index]`` is a default-ignorable code point that is part of an emoji
    sequence, which the encoder keeps raw and lint does not report.

    That is a ZERO WIDTH JOINER whose neighbours are emoji (an emoji: a pictograph,
    optionally followed by a skin tone and VARIATION SELECTOR-16), or VARIATION
    SELECTOR-15 or -16 right after a pictograph or between a keycap's ``#``, ``*`` or digit
    and U+20E3. Decided from the two code points either side, so a scan stays linear.
    """
    text = plain_str(text)  # type: ignore[assignment]  # a Host's subclass: its characters
    index = plain_int(index)  # type: ignore[assignment]
    if type(text) is not str or type(index) is not int or not 0 <= index < len(text):
        raise DefinitionError(
            "context_value_invalid",
            f"joins_emoji takes a str and an index into it, got {describe(index)}",
        )
    char = text[index]
    if char == _ZWJ:
        before = index - 1
        if before >= 0 and text[before] == "\ufe0f":
            before -= 1
        if before >= 0 and _SKIN_TONES[0] <= ord(text[before]) <= _SKIN_TONES[1]:
            before -= 1
        return (
            before >= 0
            and _pictographic(text[before])
            and index + 1 < len(text)
            and _pictographic(text[index + 1])
        )
    if char in _PRESENTATION and index > 0:
        previous = text[index - 1]
        return _pictographic(previous) or (
            previous in "#*0123456789" and text[index + 1 : index + 2] == _KEYCAP
        )
    return False


_JOINERS = frozenset((_ZWJ, *_PRESENTATION))


@cache
def printable_escaped() -> frozenset[str]:
    """The escaped code points ``str.isprintable`` accepts in this Python (combining marks
    and fillers: the grapheme joiner, variation selectors, Hangul fillers), so that text
    ``isprintable`` accepts is checked against these alone. Built on first use."""
    return frozenset(
        chr(code_point)
        for lo, hi in ESCAPED_RANGES
        for code_point in range(lo, hi + 1)
        if chr(code_point).isprintable()
    )


_ESCAPED_CLASS = "".join(
    f"\\U{lo:08x}" if lo == hi else f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in ESCAPED_RANGES
)
_ENTITY_CHAR = {"amp": "&", "lt": "<", "gt": ">"}


def is_escaped(code_point: int) -> bool:
    """Whether ``code_point`` is one the encoder writes as ``&#xH;`` (``False`` for a non-int;
    an ``int`` subclass is taken as its plain number, a ``bool`` is no code point)."""
    code_point = plain_int(code_point)  # type: ignore[assignment]
    return type(code_point) is int and any(lo <= code_point <= hi for lo, hi in ESCAPED_RANGES)


_ASCII_CHANGED = bytes([*range(0x20), 0x7F, *b"&<>"])

# The patterns are compiled on first use, not at import: compiling the astral class
# costs milliseconds of a command's start-up, and plain ASCII text needs none of them.


@cache
def _needs_encoding() -> re.Pattern[str]:
    """A character the encoder changes: ``&``, ``<``, ``>`` or an escaped code point."""
    return re.compile(f"[&<>{_ESCAPED_CLASS}]")


@cache
def _token() -> re.Pattern[str]:
    """What :func:`decode_value` reads: a named or numeric reference, or a raw ``&<>``."""
    return re.compile(r"&(?:(amp|lt|gt)|#x([0-9A-F]{1,6}));|[&<>]")


@cache
def _numeric_only() -> re.Pattern[str]:
    """An escaped code point."""
    return re.compile(f"[{_ESCAPED_CLASS}]")


@cache
def _numeric_ascii() -> re.Pattern[str]:
    """The escaped ASCII code points, spelled out: the C0 controls and DEL."""
    return re.compile("[\x00-\x1f\x7f]")


def _numeric(match: re.Match[str]) -> str:
    # Computed per match (no table of every escaped code point built at import).
    char = match.group()
    if char in _JOINERS and joins_emoji(match.string, match.start()):
        return char  # part of an emoji sequence: text, not hiding
    return f"&#x{ord(char):X};"


def encode_value(s: str) -> str:
    """Encode ``s`` so that it is inert text in model context.

    ``&``, ``<`` and ``>`` become ``&amp;``, ``&lt;`` and ``&gt;``; every code
    point in :data:`ESCAPED_RANGES` becomes ``&#xH;`` (uppercase hex, no
    leading zeros); everything else is copied unchanged.

    >>> encode_value("a<b>&" + chr(10))
    'a&lt;b&gt;&amp;&#xA;'
    """
    if not is_kind(s, str):
        raise DefinitionError("context_value_invalid", f"expected str, got {type_name(type(s))}")
    # A str subclass is encoded as the plain str of its characters: its own isascii,
    # isprintable, encode or replace would otherwise decide what reaches the model. An exact
    # str is its own plain copy (and CrossHair's symbolic str, an exact str to ``type``,
    # stays symbolic: ``str.__str__`` refuses it).
    s = plain_str(s)  # type: ignore[assignment]
    if s.isascii():
        # Fast path for the common case: bytes.translate deletes, in C, every
        # ASCII character the encoder would change; if none went, s is done.
        if len(s.encode("ascii").translate(None, _ASCII_CHANGED)) == len(s):
            return s
        numeric = _numeric_ascii()  # no need to test ASCII against the astral ranges
    elif s.isprintable() and printable_escaped().isdisjoint(s):
        # Printable text holds no escaped code point but the printable few (checked as a
        # set, in C): only & < > can change, and no pattern is compiled (the class of
        # escaped code points costs a command's start-up about a millisecond).
        numeric = None
    elif _needs_encoding().search(s) is None:
        return s
    else:
        numeric = _numeric_only()
    # str.replace runs in C; only the rare control, bidi and format code
    # points pay for a Python callback.
    named = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return named if numeric is None else numeric.sub(_numeric, named)


def decode_value(t: str) -> str:
    """Invert :func:`encode_value`, accepting only its canonical output.

    Raises ``DefinitionError(code="context_value_invalid")`` for anything
    :func:`encode_value` cannot have produced: a raw ``<``, ``>`` or ``&``
    outside an entity, an escaped code point left raw, a numeric reference to
    a code point that is not escaped, lowercase hex or leading zeros.
    """
    if not is_kind(t, str):
        raise DefinitionError("context_value_invalid", f"expected str, got {type_name(type(t))}")
    t = plain_str(t)  # type: ignore[assignment]  # a subclass: its characters
    parts: list[str] = []
    position = 0
    for match in _token().finditer(t):
        _check_plain(t, position, match.start())
        parts.append(t[position : match.start()])
        name, digits = match.group(1), match.group(2)
        if name is not None:
            parts.append(_ENTITY_CHAR[name])
        elif digits is not None and _canonical_hex(digits):
            parts.append(chr(int(digits, 16)))
        else:
            raise DefinitionError(
                "context_value_invalid",
                f"not canonical encoder output at offset {match.start()}",
                reason="entity",
            )
        position = match.end()
    _check_plain(t, position, len(t))
    parts.append(t[position:])
    decoded = "".join(parts)
    # A joiner or selector inside an emoji sequence is written raw: its entity there is
    # not what the encoder writes (decided by its neighbours, so checked once whole).
    if not _JOINERS.isdisjoint(decoded) and encode_value(decoded) != t:
        raise DefinitionError(
            "context_value_invalid",
            "not canonical encoder output: a joiner of an emoji sequence written as an entity",
            reason="entity",
        )
    return decoded


def _canonical_hex(digits: str) -> bool:
    return (digits == "0" or not digits.startswith("0")) and is_escaped(int(digits, 16))


def _check_plain(t: str, start: int, end: int) -> None:
    for found in _needs_encoding().finditer(t, start, end):
        if found.group() in _JOINERS and joins_emoji(t, found.start()):
            continue  # raw inside an emoji sequence, as the encoder writes it
        raise DefinitionError(
            "context_value_invalid",
            f"raw U+{ord(found.group()):04X} at offset {found.start()}",
            reason="raw_character",
        )
