"""Any ``str`` round-trips through the encoder inertly; any ``str`` decodes canonically or fails.

The bytes are read as UTF-8 with ``surrogatepass`` (so ``ED A0 80`` is a lone
U+D800 and every ``str`` is reachable), falling back to ``surrogateescape``
for bytes that are not UTF-8 at all. For that string ``s``:
``decode_value(encode_value(s)) == s``; the encoding is valid UTF-8 and holds
no raw ``<``, ``>``, line terminator, C0/C1 control, bidi control, BOM,
invisible format character (zero-width, soft hyphen, interlinear annotation,
tag character) or surrogate; every ``&`` in it starts one of the encoder's entities; encoding is
a per-code-point map (the encoding of a concatenation is the concatenation of
the encodings). Read as an encoded value, ``s`` either decodes to ``v`` with
``encode_value(v) == s`` or is refused with ``context_value_invalid``. Nothing
else ever escapes.

Bug class: an encoder that lets a value author a tag, an entity or a new line
(U+2028, U+0085, a bidi override, a lone surrogate that breaks UTF-8 output),
an encoder that lets invisible text through (tag characters smuggling ASCII,
zero-width characters),
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

# docs/contract.md §1, written out independently of the encoder's own table.
_FORBIDDEN = re.compile(
    "[<>\x00-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f"
    "\ud800-\udfff\ufeff\ufff9-\ufffb\U000e0000-\U000e007f]"
)
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
    found = _FORBIDDEN.search(encoded)
    assert found is None, f"U+{ord(found.group()):04X} left raw" if found else ""
    assert _ENTITY.sub("", encoded).count("&") == 0, "a stray & in the encoding"
    assert len(encoded.splitlines()) <= 1, "the encoding holds a line break"
    middle = len(s) // 2
    assert encode_value(s[:middle]) + encode_value(s[middle:]) == encoded, "not per code point"
    if not _FORBIDDEN.search(s) and "&" not in s:
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
