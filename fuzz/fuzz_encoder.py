"""Any ``str`` round-trips through the encoder inertly; any ``str`` decodes canonically or fails.

The bytes are read as UTF-8 with ``surrogatepass`` (so ``ED A0 80`` is a lone
U+D800 and every ``str`` is reachable), falling back to ``surrogateescape``
for bytes that are not UTF-8 at all. For that string ``s``:
``decode_value(encode_value(s)) == s``; the encoding is valid UTF-8 and holds
no raw ``<``, ``>``, line terminator, C0/C1 control, bidi control, BOM,
invisible character (every default-ignorable code point: zero-width, soft hyphen,
variation selectors, Hangul fillers, tag characters; a joiner or presentation selector inside
an emoji sequence excepted), interlinear annotation or surrogate; every ``&`` in it starts one
of the encoder's entities; encoding is a per-code-point map but for that exception (the
encoding of a concatenation is the concatenation of the encodings when the cut is not beside
a joiner). Read as an encoded value, ``s`` either decodes to ``v`` with
``encode_value(v) == s`` or is refused with ``context_value_invalid``. Nothing
else ever escapes.

Bug class: an encoder that lets a value author a tag, an entity or a new line
(U+2028, U+0085, a bidi override, a lone surrogate that breaks UTF-8 output),
an encoder that lets invisible text through (tag characters smuggling ASCII,
supplementary variation selectors carrying a byte each, zero-width characters, Hangul
fillers),
and a decoder that accepts non-canonical text (lowercase hex, leading zeros,
a numeric reference to a plain code point, a stray ``&``), so two different
encodings could mean the same value.
"""

from __future__ import annotations

import re

from _target import attempt, contract, instrumented, main, outcome_of

with instrumented(__name__):  # coverage feedback when atheris drives this file
    from a13n_harness.context.encoder import decode_value, encode_value
    from a13n_harness.context.errors import DefinitionError

# docs/contract.md §1, written out independently of the encoder's own table: controls,
# separators, surrogates, interlinear annotation and every default-ignorable code point.
_FORBIDDEN = re.compile(
    "[<>\x00-\x1f\x7f-\x9f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f"
    "\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ud800-\udfff\ufe00-\ufe0f\ufeff"
    "\uffa0\ufff0-\ufffb\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff]"
)
# §1's one exception: inside an emoji sequence a ZWJ, VS15 or VS16 stays raw. Emoji
# pictographs (a superset, as §1 lists them) for the neighbours that make it one.
_PICTOGRAPH = (
    "\u00a9\u00ae\u203c\u2049\u2122\u2139\u2194-\u2199\u21a9\u21aa\u231a\u231b\u2328\u2388"
    "\u23cf\u23e9-\u23f3\u23f8-\u23fa\u24c2\u25aa\u25ab\u25b6\u25c0\u25fb-\u25fe"
    "\u2600-\u27bf\u2934\u2935\u2b05-\u2b07\u2b1b\u2b1c\u2b50\u2b55\u3030\u303d\u3297"
    "\u3299\U0001f000-\U0001faff\U0001fc00-\U0001fffd"
)
_KEPT = re.compile(
    f"(?<=[{_PICTOGRAPH}])[\ufe0e\ufe0f]|(?<=[#*0-9])[\ufe0e\ufe0f](?=\u20e3)"
    f"|(?<=[{_PICTOGRAPH}])\u200d(?=[{_PICTOGRAPH}])"
    f"|(?<=[{_PICTOGRAPH}]\ufe0f)\u200d(?=[{_PICTOGRAPH}])"
    f"|(?<=[{_PICTOGRAPH}][\U0001f3fb-\U0001f3ff])\u200d(?=[{_PICTOGRAPH}])"
    f"|(?<=[{_PICTOGRAPH}][\U0001f3fb-\U0001f3ff]\ufe0f)\u200d(?=[{_PICTOGRAPH}])"
)
# What an emoji sequence's joiner depends on: its neighbours up to two code points away.
_CONTEXT = re.compile("[\u200d\ufe0e\ufe0f\u20e3\U0001f3fb-\U0001f3ff]")


def _left_raw(encoded: str) -> str | None:
    """The first listed code point the encoding holds raw, §1's exception aside."""
    kept = {match.start() for match in _KEPT.finditer(encoded)}
    for found in _FORBIDDEN.finditer(encoded):
        if found.start() not in kept:
            return found.group()
    return None


_ENTITY = re.compile(r"&(?:amp|lt|gt|#x[1-9A-F][0-9A-F]*|#x0);")


def as_text(data: bytes) -> str:
    """The string these bytes stand for (total: every byte string gives one)."""
    try:
        return data.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        return data.decode("utf-8", "surrogateescape")


def _verdict(data: bytes) -> str:
    """The round trip of ``data``'s string checked; whether it decodes as an encoded value."""
    s = as_text(data)
    encoded = encode_value(s)
    assert decode_value(encoded) == s, "round trip broke"
    encoded.encode("utf-8")  # valid UTF-8: no surrogate survives
    raw = _left_raw(encoded)
    assert raw is None, f"U+{ord(raw):04X} left raw" if raw else ""
    assert _ENTITY.sub("", encoded).count("&") == 0, "a stray & in the encoding"
    assert len(encoded.splitlines()) <= 1, "the encoding holds a line break"
    middle = len(s) // 2
    if not _CONTEXT.search(s, max(middle - 3, 0), middle + 3):  # no joiner's neighbours cut
        assert encode_value(s[:middle]) + encode_value(s[middle:]) == encoded, "not per code point"
    if _left_raw(s) is None and "&" not in s:
        assert encoded == s, "a plain value was changed"
    assert encode_value(decode_value(encoded)) == encoded
    # Read the same string as if it were encoder output.
    decoded = attempt(decode_value, s)
    if isinstance(decoded, DefinitionError):
        assert decoded.code == "context_value_invalid", decoded.code
    else:
        assert encode_value(decoded) == s, "a non-canonical encoding was accepted"
    return outcome_of(decoded)


check, outcome = contract(_verdict)

if __name__ == "__main__":
    main(__file__, check, outcome)
