"""The context-value encoder (SPEC section 1)."""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from a13n_harness import DefinitionError
from a13n_harness.context.encoder import ESCAPED_RANGES, decode_value, encode_value
from a13n_harness.testing.controls import control_settings, property_fails
from a13n_harness.testing.strategies import hostile_text

ALL_ESCAPED = [cp for lo, hi in ESCAPED_RANGES for cp in range(lo, hi + 1)]
RAW_FORBIDDEN = re.compile("[<>\n\r\u2028\u2029\u0085]")


def assert_inert(encoded: str) -> None:
    """No raw tag character, no listed code point, valid UTF-8."""
    encoded.encode("utf-8")  # raises on a lone surrogate
    assert "<" not in encoded
    assert ">" not in encoded
    for char in encoded:
        assert not any(lo <= ord(char) <= hi for lo, hi in ESCAPED_RANGES), hex(ord(char))


@given(st.text(st.characters(blacklist_categories=())) | hostile_text())
@example("\ud800")
@example("\udfff\ud800")
def test_decode_inverts_encode_for_every_str(s: str) -> None:
    """decode_value(encode_value(s)) == s for every str, lone surrogates included."""
    assert decode_value(encode_value(s)) == s


@given(st.text() | hostile_text())
def test_encoded_values_are_inert(s: str) -> None:
    """The output is valid UTF-8 and has no listed code point nor a raw < or >."""
    assert_inert(encode_value(s))


@given(st.text() | hostile_text())
def test_encoded_values_cannot_author_entities(s: str) -> None:
    """Every & in the output starts one of the encoder's own entities."""
    encoded = encode_value(s)
    stripped = re.sub(r"&(?:amp|lt|gt|#x[0-9A-F]+);", "", encoded)
    assert "&" not in stripped


@given(st.text(max_size=30) | hostile_text())
def test_decode_accepts_only_canonical_output(t: str) -> None:
    """encode_value(decode_value(t)) == t, or decode refuses with context_value_invalid."""
    try:
        decoded = decode_value(t)
    except DefinitionError as error:
        assert error.code == "context_value_invalid"
    else:
        assert encode_value(decoded) == t


def test_every_listed_code_point_is_escaped_in_uppercase_hex() -> None:
    """Listed code points become &#xH; (uppercase hex, no leading zeros), all 2,150 of them."""
    for code_point in ALL_ESCAPED:
        assert encode_value(chr(code_point)) == f"&#x{code_point:X};"
        assert decode_value(f"&#x{code_point:X};") == chr(code_point)


def test_unlisted_neighbours_are_copied() -> None:
    """Everything else is copied unchanged (the range ends are exact)."""
    for code_point in (
        0x20,
        0x7E,
        0xA0,
        0x200D,
        0x2010,
        0x2027,
        0x202F,
        0x2065,
        0x206A,
        0xFEFE,
        0xFF00,
        0xE000,
        0xD7FF,
    ):
        assert encode_value(chr(code_point)) == chr(code_point)


@pytest.mark.parametrize(
    ("raw", "encoded"),
    [
        ("", ""),
        ("plain text", "plain text"),
        ("a<b>&c", "a&lt;b&gt;&amp;c"),
        ("line\nbreak", "line&#xA;break"),
        ("crlf\r\n", "crlf&#xD;&#xA;"),
        ("\x00", "&#x0;"),
        ("nel\u0085", "nel&#x85;"),
        ("sep\u2028par\u2029", "sep&#x2028;par&#x2029;"),
        ("\u202eevil\u202c", "&#x202E;evil&#x202C;"),
        ("\u2066iso\u2069", "&#x2066;iso&#x2069;"),
        ("\ufeffbom", "&#xFEFF;bom"),
        ("lone\ud800", "lone&#xD800;"),
        ("&amp;", "&amp;amp;"),
        ("&#xA;", "&amp;#xA;"),
        ("</skills_instructions>", "&lt;/skills_instructions&gt;"),
        ("é😀\u00a0", "é😀\u00a0"),
        ("\x7f\x9f", "&#x7F;&#x9F;"),
    ],
)
def test_exact_encodings(raw: str, encoded: str) -> None:
    """Exact outputs: round trips alone let wrong-but-invertible encodings survive."""
    assert encode_value(raw) == encoded
    assert decode_value(encoded) == raw


@pytest.mark.parametrize(
    "bad",
    [
        "<",
        ">",
        "&",
        "&amp",
        "&#xa;",
        "&#x0A;",
        "&#x41;",
        "&#x110000;",
        "&#x;",
        "&quot;",
        "\n",
        "\u2028",
        "\ud800",
        "&#X2028;",
        "&#x00;",
    ],
)
def test_non_canonical_text_is_refused(bad: str) -> None:
    """decode_value refuses anything encode_value cannot have produced."""
    with pytest.raises(DefinitionError) as caught:
        decode_value(bad)
    assert caught.value.code == "context_value_invalid"


@pytest.mark.parametrize("bad", [None, b"bytes", 3])
def test_non_str_is_refused(bad: object) -> None:
    """A non-str is a DefinitionError, not a TypeError."""
    with pytest.raises(DefinitionError) as caught:
        encode_value(bad)  # type: ignore[arg-type]
    assert caught.value.code == "context_value_invalid"


def _leaky_encode(s: str) -> str:
    """A broken encoder that lets U+2028 through (negative control)."""
    return encode_value(s.replace("\u2028", "\x00")).replace("&#x0;", "\u2028")


def test_negative_control_encoder_leaking_u2028_fails_inertness() -> None:
    """The inertness property catches an encoder that lets U+2028 through."""

    @control_settings
    @given(st.text() | hostile_text())
    def inert_under(s: str) -> None:
        assert_inert(_leaky_encode(s))

    property_fails(inert_under)
