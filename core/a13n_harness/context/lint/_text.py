"""Positions in the decoded SKILL.md: the text with its line starts, so every rule computes
a line and a column one way, and the decoding (a strict UTF-8 failure located once, by
:func:`a13n_harness.context._checks.utf8_error_at`)."""

from __future__ import annotations

from itertools import accumulate

from a13n_harness.context._checks import utf8_error_at
from a13n_harness.context.lint._rules import Issue

BOM = b"\xef\xbb\xbf"


class _Text:
    """The decoded file with line starts, so positions are computed one way everywhere.

    Most files are asked about a handful of positions, near their top: each is answered by
    counting line feeds up to it (C-speed ``str.count``), and the table of line starts is
    built only once those counts have passed over as many characters as the text holds, so
    the work stays linear in its size however many positions are asked."""

    __slots__ = ("_budget", "_starts", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._starts: list[int] | None = None
        self._budget = len(text)  # characters counted before the table pays for itself

    def _table(self) -> list[int]:
        if self._starts is None:
            # One split and one running sum, no match object per line.
            lengths = map(len, self.text.split("\n"))
            self._starts = list(accumulate(map((1).__add__, lengths), initial=0))
            self._starts.pop()
        return self._starts

    def where(self, index: int) -> tuple[int, int]:
        """1-based line and column of code point ``index``."""
        if self._starts is None and 0 <= index <= self._budget:
            self._budget -= index
            line_start = self.text.rfind("\n", 0, index) + 1
            return self.text.count("\n", 0, line_start) + 1, index - line_start + 1
        starts = self._table()
        low, high = 0, len(starts) - 1
        while low < high:
            middle = (low + high + 1) // 2
            if starts[middle] <= index:
                low = middle
            else:
                high = middle - 1
        return low + 1, index - starts[low] + 1

    def index(self, line: int, column: int) -> int:
        """The code point index of a 1-based ``line`` and ``column`` (clamped to the text)."""
        starts = self._table()
        start = starts[min(max(line, 1), len(starts)) - 1]
        return min(start + max(column, 1) - 1, len(self.text))

    @property
    def line_count(self) -> int:
        return self.text.count("\n") + (0 if self.text.endswith("\n") else 1)


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
