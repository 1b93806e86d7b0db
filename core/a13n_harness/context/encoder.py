"""The context-value encoder (docs/contract.md §1).

Every untrusted value that reaches model context goes through
:func:`encode_value`. Its output cannot author a tag, an entity or a new
line, and it shows the reader that a bidi control, a separator or an
invisible format character (zero-width characters, the soft hyphen,
interlinear annotation, tag characters) was there instead of silently
dropping it: text a person cannot see must not reach a model unseen.

Grammar of the encoded form (what :func:`decode_value` accepts)::

    encoded   = *( plain / "&amp;" / "&lt;" / "&gt;" / "&#x" hex ";" )
    plain     = any code point that is not "&", "<", ">" nor ESCAPED
    hex       = uppercase hexadecimal of an ESCAPED code point, no leading zeros
"""

from __future__ import annotations

import re
from functools import cache

from a13n_harness.context._checks import is_kind, type_name
from a13n_harness.context.errors import DefinitionError

__all__ = ["ESCAPED_RANGES", "decode_value", "encode_value", "is_escaped"]

ESCAPED_RANGES: tuple[tuple[int, int], ...] = (
    (0x0000, 0x001F),  # C0 controls: new lines, tabs, escape sequences
    (0x007F, 0x009F),  # DEL and C1 controls, U+0085 NEXT LINE among them
    (0x00AD, 0x00AD),  # SOFT HYPHEN: invisible unless a line breaks there
    (0x061C, 0x061C),  # ARABIC LETTER MARK, a bidi control
    (0x180E, 0x180E),  # MONGOLIAN VOWEL SEPARATOR, zero width
    (0x200B, 0x200F),  # ZWSP, ZWNJ, ZWJ, LRM, RLM
    (0x2028, 0x2029),  # LINE SEPARATOR, PARAGRAPH SEPARATOR
    (0x202A, 0x202E),  # bidi embeddings and overrides
    (0x2060, 0x2065),  # word joiner, invisible operators
    (0x2066, 0x2069),  # bidi isolates
    (0x206A, 0x206F),  # deprecated format characters (symmetric swapping, digit shapes)
    (0xD800, 0xDFFF),  # surrogates: never valid UTF-8 on their own
    (0xFEFF, 0xFEFF),  # BOM / zero-width no-break space
    (0xFFF9, 0xFFFB),  # interlinear annotation: text a renderer may hide
    (0xE0000, 0xE007F),  # tag characters: "ASCII smuggling" a person cannot see
)
"""Inclusive code point ranges that are written as ``&#xH;``."""

_ESCAPED_CLASS = "".join(
    f"\\U{lo:08x}" if lo == hi else f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in ESCAPED_RANGES
)
_ENTITY_CHAR = {"amp": "&", "lt": "<", "gt": ">"}


def is_escaped(code_point: int) -> bool:
    """Whether ``code_point`` is one the encoder writes as ``&#xH;`` (``False`` for a non-int)."""
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


def _none_printable(ranges: tuple[tuple[int, int], ...]) -> bool:
    """Whether no code point of the inclusive ``ranges`` is printable (``str.isprintable``)."""
    return not any(any(map(str.isprintable, map(chr, range(lo, hi + 1)))) for lo, hi in ranges)


@cache
def _printable_never_escaped() -> bool:
    """Whether printable text can hold no escaped code point, in this Python.

    True for every Unicode version so far: the escaped code points are controls,
    format characters, separators, surrogates and unassigned code points, none of
    which ``str.isprintable`` accepts. The output never depends on it: a Python
    whose tables made one of them printable keeps searching with the pattern.
    """
    return _none_printable(ESCAPED_RANGES)


def _numeric(match: re.Match[str]) -> str:
    # Computed per match (no table of every escaped code point built at import).
    return f"&#x{ord(match.group()):X};"


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
    # isprintable, encode or replace would otherwise decide what reaches the model.
    s = str.__str__(s)
    if s.isascii():
        # Fast path for the common case: bytes.translate deletes, in C, every
        # ASCII character the encoder would change; if none went, s is done.
        if len(s.encode("ascii").translate(None, _ASCII_CHANGED)) == len(s):
            return s
        numeric = _numeric_ascii()  # no need to test ASCII against the astral ranges
    elif s.isprintable() and _printable_never_escaped():
        # Printable text holds no escaped code point (checked for this Python's Unicode
        # tables on first use): only & < > can change, and no pattern is compiled (the
        # class of escaped code points costs a command's start-up about a millisecond).
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
    t = str.__str__(t)
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
    return "".join(parts)


def _canonical_hex(digits: str) -> bool:
    return (digits == "0" or not digits.startswith("0")) and is_escaped(int(digits, 16))


def _check_plain(t: str, start: int, end: int) -> None:
    found = _needs_encoding().search(t, start, end)
    if found is not None:
        raise DefinitionError(
            "context_value_invalid",
            f"raw U+{ord(found.group()):04X} at offset {found.start()}",
            reason="raw_character",
        )
