"""Positions in the decoded SKILL.md: the text with its line starts, so every rule computes
a line and a column one way, and the decoding (a strict UTF-8 failure located once, by
:func:`a13n_harness.context._checks.utf8_error_at`)."""

from __future__ import annotations

from itertools import accumulate

from a13n_harness.context._checks import utf8_error_at
from a13n_harness.context.lint._rules import Issue

BOM = b"\xef\xbb\xbf"


class _Text:
    """The decoded file with line starts, so positions are computed one way everywhere."""

    def __init__(self, text: str) -> None:
        self.text = text
        # One split and one running sum, no match object per line.
        lengths = list(map(len, text.split("\n")))
        self.longest = max(lengths)
        self._starts = list(accumulate(map((1).__add__, lengths), initial=0))
        self._starts.pop()

    def where(self, index: int) -> tuple[int, int]:
        """1-based line and column of code point ``index``."""
        low, high = 0, len(self._starts) - 1
        while low < high:
            middle = (low + high + 1) // 2
            if self._starts[middle] <= index:
                low = middle
            else:
                high = middle - 1
        return low + 1, index - self._starts[low] + 1

    def index(self, line: int, column: int) -> int:
        """The code point index of a 1-based ``line`` and ``column`` (clamped to the text)."""
        start = self._starts[min(max(line, 1), len(self._starts)) - 1]
        return min(start + max(column, 1) - 1, len(self.text))

    @property
    def line_count(self) -> int:
        return len(self._starts) - (1 if self.text.endswith("\n") else 0)


def _decode(data: bytes) -> tuple[str | None, Issue | None]:
    """The text after one leading BOM, or the finding at its first byte that is not UTF-8."""
    body = data[len(BOM) :] if data.startswith(BOM) else data
    try:
        return body.decode("utf-8"), None
    except UnicodeDecodeError as error:
        line, column = utf8_error_at(body, error.start)
        bad = body[error.start : error.end].hex(" ")
        return None, Issue(
            "skill_encoding_invalid",
            line,
            column,
            f"SKILL.md is not valid UTF-8: byte(s) {bad} at byte offset {error.start} "
            f"({error.reason})",
        )
