"""The context-value encoder (docs/contract.md §1)."""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from a13n_harness import DefinitionError
from a13n_harness.context import encoder as encoder_module
from a13n_harness.context.encoder import (
    ESCAPED_RANGES,
    decode_value,
    encode_value,
)
from a13n_harness.testing.controls import control_settings, property_fails
from a13n_harness.testing.strategies import hostile_text
from contract_tables import CONTRACT_ESCAPED, CONTRACT_PICTOGRAPHIC, contract_kept_raw

# docs/contract.md §1 from the test tree's own copy (contract_tables.py), independent of
# the encoder's table: a range dropped from ESCAPED_RANGES cannot drop out of the tests with it.

ALL_ESCAPED = [cp for lo, hi in CONTRACT_ESCAPED for cp in range(lo, hi + 1)]
ALL_ESCAPED_SET = frozenset(ALL_ESCAPED)


def assert_inert(encoded: str) -> None:
    """No raw tag character, no listed code point (but a joiner inside an emoji sequence,
    the contract's one exception), valid UTF-8."""
    encoded.encode("utf-8")  # raises on a lone surrogate
    assert "<" not in encoded
    assert ">" not in encoded
    for index, char in enumerate(encoded):
        if ord(char) in ALL_ESCAPED_SET:
            assert contract_kept_raw(encoded, index), (hex(ord(char)), encoded)


@given(st.text(st.characters(blacklist_categories=())) | hostile_text())
@example("\ud800")
@example("\udfff\ud800")
def test_decode_inverts_encode_for_every_str(s: str) -> None:
    """decode_value(encode_value(s)) == s for every str, lone surrogates included."""
    assert decode_value(encode_value(s)) == s


# Text drawn from the contract's own table (not the encoder's): a range the encoder drops is
# still drawn, with plain characters and emoji between.
CONTRACT_TEXT = st.lists(
    st.one_of(
        *(st.integers(lo, hi).map(chr) for lo, hi in CONTRACT_ESCAPED),
        st.sampled_from(["a", " ", "\U0001f642", "&"]),
    ),
    max_size=12,
).map("".join)


@given(st.text() | hostile_text() | CONTRACT_TEXT)
@example("ignore\U000e0041\U000e0042 \U000e0100\u3164")  # tags, a selector, a filler
@example("a\u2028b\u2029c\x85d")  # the Unicode line and paragraph separators, NEL
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
    """Listed code points become &#xH; (uppercase hex, no leading zeros), all 6,292 of them."""
    assert len(ALL_ESCAPED) == 6_292
    for code_point in ALL_ESCAPED:
        assert encode_value(chr(code_point)) == f"&#x{code_point:X};"
        assert decode_value(f"&#x{code_point:X};") == chr(code_point)


def test_escaped_table_is_the_spec_list() -> None:
    """The encoder's published table holds exactly the code points of docs/contract.md §1."""
    table = {cp for lo, hi in ESCAPED_RANGES for cp in range(lo, hi + 1)}
    assert table == ALL_ESCAPED_SET


def test_invisible_format_characters_are_escaped_in_every_position() -> None:
    """Zero-width, soft hyphen, interlinear annotation and tag characters never pass raw.

    "ASCII smuggling" hides text in tag characters
    (U+E0000..U+E007F) that a person cannot see and a model reads.
    """
    smuggled = "".join(chr(0xE0000 + ord(c)) for c in "ignore previous")
    value = f"safe\u200bdesc\u00ad{smuggled}\u2060\ufff9x\ufffb\u061c\u180e"
    encoded = encode_value(value)
    assert_inert(encoded)
    assert encoded.isascii()
    assert decode_value(encoded) == value


def test_unlisted_neighbours_are_copied() -> None:
    """Everything else is copied unchanged (the range ends are exact)."""
    for code_point in (
        0x20,
        0x7E,
        0xA0,
        0xAC,
        0xAE,
        0x61B,
        0x61D,
        0x34E,
        0x350,
        0x115E,
        0x1161,
        0x17B3,
        0x17B6,
        0x180A,
        0x1810,
        0x200A,
        0x2010,
        0x2027,
        0x202F,
        0x205F,
        0x2070,
        0x3163,
        0x3165,
        0xFDFF,
        0xFE10,
        0xFEFE,
        0xFF00,
        0xFF9F,
        0xFFA1,
        0xFFEF,
        0xFFFC,
        0xE000,
        0xD7FF,
        0x1BC9F,
        0x1BCA4,
        0x1D172,
        0x1D17B,
        0xDFFFF,
        0xE1000,
        0x10FFFF,
    ):
        assert code_point not in ALL_ESCAPED_SET
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
        ("soft\u00adhyphen", "soft&#xAD;hyphen"),
        ("\u061cALM", "&#x61C;ALM"),
        ("mongolian\u180e", "mongolian&#x180E;"),
        ("zw\u200bsp\u200cnj\u200dj", "zw&#x200B;sp&#x200C;nj&#x200D;j"),
        ("wj\u2060\u2064\u206f", "wj&#x2060;&#x2064;&#x206F;"),
        ("\ufff9ann\ufffaot\ufffb", "&#xFFF9;ann&#xFFFA;ot&#xFFFB;"),
        ("\U000e0001\U000e0041\U000e007f", "&#xE0001;&#xE0041;&#xE007F;"),
        ("\U000e0000", "&#xE0000;"),
        ("hangul\u3164\u115f\u1160\uffa0", "hangul&#x3164;&#x115F;&#x1160;&#xFFA0;"),
        ("vs\U000e0100\U000e01ef", "vs&#xE0100;&#xE01EF;"),
        ("a\ufe00\ufe0f", "a&#xFE00;&#xFE0F;"),
        ("cgj\u034f", "cgj&#x34F;"),
        ("\U0001bca0\U0001d173\ufff0", "&#x1BCA0;&#x1D173;&#xFFF0;"),
        ("\u180b\u180f\u17b4", "&#x180B;&#x180F;&#x17B4;"),
        ("\U000e0fff", "&#xE0FFF;"),
        # Emoji sequences are text: their joiners and presentation selectors stay raw.
        ("\U0001f469\u200d\U0001f4bb", "\U0001f469\u200d\U0001f4bb"),
        ("\u26a0\ufe0f ok", "\u26a0\ufe0f ok"),
        ("\u2764\ufe0f\u200d\U0001f525", "\u2764\ufe0f\u200d\U0001f525"),
        ("\U0001f44d\U0001f3fd\u200d\U0001f642", "\U0001f44d\U0001f3fd\u200d\U0001f642"),
        ("1\ufe0f\u20e3", "1\ufe0f\u20e3"),
        # ... and nowhere else.
        ("a\u200d\U0001f642", "a&#x200D;\U0001f642"),
        ("\U0001f642\u200da", "\U0001f642&#x200D;a"),
        ("\U0001f642\u200d", "\U0001f642&#x200D;"),
        ("\U0001f642\u200d\u200d\U0001f642", "\U0001f642&#x200D;&#x200D;\U0001f642"),
        ("\U0001f642\ufe0f\ufe0f", "\U0001f642\ufe0f&#xFE0F;"),
        ("a\ufe0f", "a&#xFE0F;"),
        ("1\ufe0f", "1&#xFE0F;"),
        ("\U0001f642\U000e0041", "\U0001f642&#xE0041;"),
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
        "\u200b",
        "\u00ad",
        "\U000e0041",
        "&#xe0041;",
        "&#x0E0041;",
        "&#xE1000;",
        "&#x200A;",
        "\u3164",
        "\ufe0f",
        "\U000e0100",
        "a\u200d\U0001f642",
        "\U0001f469&#x200D;\U0001f4bb",
        "\u26a0&#xFE0F;",
        "1&#xFE0F;\u20e3",
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


@pytest.mark.parametrize("bad", [None, b"bytes", 3])
@pytest.mark.parametrize("function", [encode_value, decode_value])
def test_non_str_values_are_refused_with_a_message_naming_the_type(
    function: Callable[[str], str], bad: object
) -> None:
    """§1 errors: a stable code and a message a human can act on (mutmut encoder survivors)."""
    with pytest.raises(DefinitionError) as caught:
        function(bad)  # type: ignore[arg-type]
    assert caught.value.code == "context_value_invalid"
    assert type(bad).__name__ in caught.value.message


def test_refusals_of_non_canonical_text_say_where() -> None:
    """``decode_value`` names the raw code point or the bad entity and its offset."""
    with pytest.raises(DefinitionError) as raw:
        decode_value("ab\u2028")
    assert (raw.value.reason, raw.value.message) == ("raw_character", "raw U+2028 at offset 2")
    with pytest.raises(DefinitionError) as entity:
        decode_value("a&#xa;")
    assert entity.value.reason == "entity"
    assert "offset 1" in entity.value.message


# ------------------------------------------------------------------------------ start-up


@pytest.mark.parametrize(
    "text", ["Café, naïve — the “quoted” part…", "Ω < π & ∞ > 0", "日本語の説明", "emoji 🙂 ok"]
)
def test_printable_text_is_encoded_without_compiling_the_class_of_escaped_code_points(
    text: str,
) -> None:
    """A cut description ends in ``…``; encoding such text must not compile the class of
    escaped code points (about a millisecond of the command line's start-up)."""
    encoder_module._needs_encoding.cache_clear()
    encoder_module._numeric_only.cache_clear()
    expected = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    assert encode_value(text) == expected
    assert encoder_module._needs_encoding.cache_info().currsize == 0
    assert encoder_module._numeric_only.cache_info().currsize == 0


def test_printable_escaped_is_every_escaped_code_point_isprintable_accepts() -> None:
    """Printable text is checked against this set alone: it must hold every listed code
    point ``str.isprintable`` accepts (variation selectors, fillers), and only those."""
    expected = frozenset(chr(cp) for cp in ALL_ESCAPED if chr(cp).isprintable())
    assert encoder_module.printable_escaped() == expected
    assert {"\u3164", "\ufe0f", "\U000e0100", "\u034f", "\u115f"} <= expected


# ---------------------------------------------------------------- default-ignorable set


def _property_ranges(name: str) -> frozenset[int]:
    """The code points of a Unicode property by the ``regex`` module's tables (Unicode 17.0)."""
    # A dev dependency (tiktoken's), without type stubs: imported by name.
    pattern = importlib.import_module("regex").compile(r"\p{" + name + "}")
    return frozenset(
        cp for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF and pattern.match(chr(cp))
    )


def test_every_default_ignorable_code_point_is_escaped() -> None:
    """§1 covers Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt), which
    Python's ``unicodedata`` lacks: the contract's table holds every one of them."""
    ignorable = _property_ranges("Default_Ignorable_Code_Point")
    assert len(ignorable) == 4_174
    assert ignorable <= ALL_ESCAPED_SET


def test_the_emoji_table_holds_every_extended_pictographic_code_point() -> None:
    """A joiner between two emoji stays raw: the contract's emoji table covers Unicode 17.0's
    Extended_Pictographic, and the library's is the contract's."""
    table = frozenset(cp for lo, hi in CONTRACT_PICTOGRAPHIC for cp in range(lo, hi + 1))
    assert _property_ranges("Extended_Pictographic") <= table
    assert encoder_module._PICTOGRAPHIC_RANGES == CONTRACT_PICTOGRAPHIC
    assert not table & ALL_ESCAPED_SET  # an emoji is never itself escaped


_EMOJI_PIECES = st.sampled_from(
    [
        "\u200d",
        "\ufe0f",
        "\ufe0e",
        "\U0001f469",
        "\U0001f4bb",
        "\u2764",
        "\u26a0",
        "\U0001f3fd",
        "\u20e3",
        "1",
        "#",
        "a",
        "\u200b",
        "&",
        "\U000e0041",
        "\U0001f1fa",
        "\u3164",
    ]
)
_EMOJI_TEXT = st.lists(_EMOJI_PIECES, max_size=12).map("".join)


def assert_joiners_kept_as_the_contract_says(s: str, encode: Callable[[str], str]) -> None:
    """Every ZWJ, VS15 and VS16 of ``s`` is raw in the output exactly when §1's exception
    (read plainly in contract_tables) keeps it; the output decodes back to ``s``."""
    encoded = encode(s)
    kept = [s[i] for i in range(len(s)) if s[i] in "\u200d\ufe0e\ufe0f" and contract_kept_raw(s, i)]
    assert [c for c in encoded if c in "\u200d\ufe0e\ufe0f"] == kept, (s, encoded)
    assert decode_value(encoded) == s
    assert_inert(encoded)


@given(_EMOJI_TEXT)
def test_joiners_stay_raw_inside_emoji_sequences_and_nowhere_else(s: str) -> None:
    assert_joiners_kept_as_the_contract_says(s, encode_value)


@given(_EMOJI_TEXT.map(encode_value) | _EMOJI_TEXT)
def test_decode_accepts_emoji_sequences_only_in_canonical_form(t: str) -> None:
    """An emoji's joiner written as an entity, or a raw joiner outside an emoji, is refused."""
    try:
        decoded = decode_value(t)
    except DefinitionError as error:
        assert error.code == "context_value_invalid"
    else:
        assert encode_value(decoded) == t


def test_negative_control_encoders_that_keep_or_escape_every_joiner_fail() -> None:
    """The property sees an encoder that keeps every ZWJ raw and one that escapes them all."""

    def keeps_every_joiner(s: str) -> str:
        return encode_value(s.replace("\u200d", "\x00")).replace("&#x0;", "\u200d")

    def escapes_every_joiner(s: str) -> str:
        return encode_value(s).replace("\u200d", "&#x200D;")

    def under(encode: Callable[[str], str]) -> Callable[[], None]:
        @control_settings
        @given(_EMOJI_TEXT)
        def run(s: str) -> None:
            assert_joiners_kept_as_the_contract_says(s, encode)

        return run

    property_fails(under(keeps_every_joiner))
    property_fails(under(escapes_every_joiner))
