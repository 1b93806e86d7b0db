"""Tables of docs/contract.md written out once for the tests, independently of the library.

A test that took these from the code under test (``ESCAPED_RANGES``) would
lose a range together with the code; these are copied from the contract by
hand and shared by every test module and the CrossHair contracts, so the
contract is written out once in the test tree.
"""

from __future__ import annotations

import re

CONTRACT_ESCAPED: tuple[tuple[int, int], ...] = (
    (0x0000, 0x001F),
    (0x007F, 0x009F),
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x2028, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xD800, 0xDFFF),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFFB),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
"""docs/contract.md §1: the inclusive code point ranges written as ``&#xH;``."""

CONTRACT_PICTOGRAPHIC: tuple[tuple[int, int], ...] = (
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
"""docs/contract.md §1: the code points that count as emoji around a kept joiner."""


def contract_emoji(char: str) -> bool:
    return any(lo <= ord(char) <= hi for lo, hi in CONTRACT_PICTOGRAPHIC)


def contract_kept_raw(text: str, index: int) -> bool:
    """docs/contract.md §1's exception, read plainly: ``text[index]`` is a ZWJ with an emoji
    (a pictograph, then at most a skin tone U+1F3FB..U+1F3FF, then at most U+FE0F) before it
    and a pictograph after it, or U+FE0E/U+FE0F after a pictograph or inside a keycap
    (``#``, ``*`` or a digit, the selector, U+20E3)."""
    char = text[index]
    before, after = text[:index], text[index + 1 :]
    if char == "\u200d":
        emoji_before = re.search(r"(.)[\U0001f3fb-\U0001f3ff]?\ufe0f?\Z", before, re.DOTALL)
        return (
            emoji_before is not None
            and contract_emoji(emoji_before.group(1))
            and after[:1] != ""
            and contract_emoji(after[0])
        )
    if char in "\ufe0e\ufe0f" and before:
        return contract_emoji(before[-1]) or (
            before[-1] in "#*0123456789" and after[:1] == "\u20e3"
        )
    return False
