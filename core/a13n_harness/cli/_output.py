"""Writing to the terminal: exact UTF-8 bytes on stdout, one-line messages on stderr."""

from __future__ import annotations

import errno
import os
import sys

# Not imported from ``typing``: see the start-up note in ``a13n_harness.cli``.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
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


class OutputError(OSError):
    """Standard output cannot take the block: closed (``>&-``), read-only, full.

    The command then fails (exit 1, one line on stderr): a block that was not
    delivered is not a success. A reader that went away (``| head``) is a
    ``BrokenPipeError`` instead, and stays quiet.
    """


def _silence_stdout() -> None:
    """Point descriptor 1 at the null device so the interpreter's flush at exit
    cannot fail a second time and print a traceback-like warning."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
    except OSError:
        return
    try:
        os.dup2(devnull, 1)
    except OSError:
        pass
    finally:
        if devnull != 1:
            os.close(devnull)


def _to_stdout(write: Callable[[TextIO], None]) -> None:
    stream = sys.stdout
    if stream is None:  # descriptor 1 was closed when Python started
        raise OutputError(errno.EBADF, "standard output is closed")
    try:
        write(stream)
    except BrokenPipeError:
        raise
    except (OSError, ValueError) as error:
        _silence_stdout()
        reason = getattr(error, "strerror", None) or str(error)
        raise OutputError(errno.EIO, f"cannot write standard output: {reason}") from error


def write_out(text: str) -> None:
    """``text`` to stdout as UTF-8, whatever the locale (the blocks are UTF-8 by contract).

    Raises :class:`OutputError` when stdout is closed or refuses the write.
    """
    _to_stdout(lambda stream: _write(stream, text))


def write_out_bytes(data: bytes) -> None:
    """Raw bytes to stdout (a canonical manifest must arrive byte for byte)."""

    def write(stream: TextIO) -> None:
        buffer = getattr(stream, "buffer", None)
        if buffer is None:
            stream.write(data.decode("utf-8"))
        else:
            stream.flush()
            buffer.write(data)
        stream.flush()

    _to_stdout(write)


def write_err(line: str) -> None:
    """One line to stderr, escaped by :func:`one_line`; best effort.

    A closed or failing stderr loses the message but never changes what the
    command does or its exit code.
    """
    _err(one_line(line) + "\n")


def _err(text: str) -> None:
    stream = sys.stderr
    if stream is None:
        return
    try:
        _write(stream, text)
    except (OSError, ValueError):
        return  # stderr is gone or full: the message is lost, nothing else changes


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
            _err("\r\x1b[K" + one_line(f"{PROGRAM}: {message}"))
            self._shown = True

    def clear(self) -> None:
        if self.enabled and self._shown:
            _err("\r\x1b[K")
            self._shown = False
