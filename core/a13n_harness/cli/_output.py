"""Writing to the terminal: exact UTF-8 bytes on stdout, one-line messages on stderr."""

from __future__ import annotations

import sys

# Not imported from ``typing``: see the start-up note in ``a13n_harness.cli``.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO

PROGRAM = "a13n-skills"


def one_line(text: str) -> str:
    """``text`` with every character that could break or disguise a line escaped.

    Messages carry user paths and frontmatter values; a newline, a U+2028 or a
    bidi override in them must not forge a second diagnostic or hide the real
    one. Anything ``str.isprintable`` refuses (controls, separators, format
    characters, surrogates) is written as its Python escape (``\\n``, ``\\u2028``).
    """
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else ascii(char)[1:-1] for char in text)


def _write(stream: TextIO, text: str) -> None:
    buffer = getattr(stream, "buffer", None)
    if buffer is None:
        stream.write(text)
    else:
        stream.flush()
        buffer.write(text.encode("utf-8", errors="backslashreplace"))
    stream.flush()


def write_out(text: str) -> None:
    """``text`` to stdout as UTF-8, whatever the locale (the blocks are UTF-8 by contract)."""
    _write(sys.stdout, text)


def write_out_bytes(data: bytes) -> None:
    """Raw bytes to stdout (a canonical manifest must arrive byte for byte)."""
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:
        sys.stdout.write(data.decode("utf-8"))
    else:
        sys.stdout.flush()
        buffer.write(data)
    sys.stdout.flush()


def write_err(line: str) -> None:
    """One line to stderr, escaped by :func:`one_line`."""
    _write(sys.stderr, one_line(line) + "\n")


class Progress:
    """Progress notes on stderr, only when stderr is a terminal (never in pipes or CI logs)."""

    def __init__(self) -> None:
        try:
            self.enabled = sys.stderr.isatty()
        except (AttributeError, ValueError):
            self.enabled = False
        self._shown = False

    def show(self, message: str) -> None:
        if self.enabled:
            _write(sys.stderr, "\r\x1b[K" + one_line(f"{PROGRAM}: {message}"))
            self._shown = True

    def clear(self) -> None:
        if self.enabled and self._shown:
            _write(sys.stderr, "\r\x1b[K")
            self._shown = False
