"""Tables of docs/contract.md written out once for the tests, independently of the library.

A test that took these from the code under test (``ESCAPED_RANGES``) would
lose a range together with the code; these are copied from the contract by
hand and shared by every test module and the CrossHair contracts, so the
contract is written out once in the test tree.
"""

from __future__ import annotations

CONTRACT_ESCAPED: tuple[tuple[int, int], ...] = (
    (0x0000, 0x001F),
    (0x007F, 0x009F),
    (0x00AD, 0x00AD),
    (0x061C, 0x061C),
    (0x180E, 0x180E),
    (0x200B, 0x200F),
    (0x2028, 0x202E),
    (0x2060, 0x206F),
    (0xD800, 0xDFFF),
    (0xFEFF, 0xFEFF),
    (0xFFF9, 0xFFFB),
    (0xE0000, 0xE007F),
)
"""docs/contract.md §1: the inclusive code point ranges written as ``&#xH;``."""
