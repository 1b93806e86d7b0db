"""Writing to the terminal: exact UTF-8 bytes on stdout, one-line messages on stderr."""

from __future__ import annotations

import errno
import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import BinaryIO, TextIO

PROGRAM = "a13n-skills"


def shown(text: str) -> str:
    """``text`` as valid Unicode: the one spelling of an undecodable name in every format.

    A file name that is not UTF-8 reaches Python with each bad byte as a lone
    surrogate (U+DC80..U+DCFF, ``os.fsdecode``'s surrogate escape); strict JSON
    readers refuse those, and a terminal cannot show them. Each such byte is
    written ``\\xHH`` (the byte, as Python and ``ls -b`` spell it), any other lone
    surrogate ``\\udXXX``; text, JSON, SARIF messages and stderr all use this.
    (SARIF's ``uri`` fields percent-encode the same bytes, ``%FF``, as a URI must.)
    """
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        pass
    else:
        return text
    return "".join(_surrogate(char) if "\ud800" <= char <= "\udfff" else char for char in text)


def _surrogate(char: str) -> str:
    point = ord(char)
    if 0xDC80 <= point <= 0xDCFF:
        return f"\\x{point - 0xDC00:02x}"
    return f"\\u{point:04x}"


def one_line(text: str) -> str:
    """``text`` with every character that could break or disguise a line escaped.

    Messages carry user paths and frontmatter values; a newline, a U+2028 or a
    bidi override in them must not forge a second diagnostic or hide the real
    one. Anything ``str.isprintable`` refuses (controls, separators, format
    characters, surrogates) is written as its Python escape (``\\n``, ``\\u2028``);
    an undecodable byte as ``\\xHH`` (:func:`shown`).
    """
    text = shown(text)
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else ascii(char)[1:-1] for char in text)


def safe_line(text: str) -> str:
    """``text`` made one line that is safe in a terminal and in a CI log: every CLI line.

    :func:`one_line` (no raw control, separator, format character or lone
    surrogate), and a line that would begin a GitHub Actions workflow command
    (``::`` after any leading spaces, which the runner skips) has that first
    ``:`` written ``\\x3a``: only text the command writes itself may start with
    ``::``, and it writes none. Everything ``a13n-skills`` prints on either
    stream goes through here or is a block built so that no line can (the
    catalog and environment blocks are encoded, JSON is written by
    :func:`json_text`).
    """
    line = one_line(text)
    stripped = line.lstrip(" ")
    if stripped.startswith("::"):
        line = line[: len(line) - len(stripped)] + "\\x3a" + stripped[1:]
    return line


def json_text(document: object, *, indent: int | None = 2, sort_keys: bool = True) -> str:
    """``document`` as JSON text fit for any stream, with a final newline.

    Every string (keys too) goes through :func:`shown`, so the document is valid
    Unicode that strict readers accept; ``ensure_ascii`` writes every character
    outside printable ASCII as an escape, so no raw control or invisible
    character reaches a log; keys are sorted unless ``sort_keys`` is false.
    With ``indent`` each line starts with spaces and a JSON token (``"``, ``{``,
    ``}``, ``[``, ``]``, a number), never with ``::``.
    """
    import json  # noqa: PLC0415 - the catalog block alone does not pay for it at start-up

    return json.dumps(_shown_strings(document), indent=indent, sort_keys=sort_keys) + "\n"


def _shown_strings(value: object) -> object:
    if isinstance(value, str):
        return shown(value)
    if isinstance(value, dict):
        return {_shown_strings(key): _shown_strings(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_shown_strings(item) for item in value]
    return value


def _write(stream: TextIO, text: str) -> None:
    """All of ``text`` to ``stream`` as UTF-8, or an ``OSError``.

    A short write (a file size limit, ``ulimit -f``, or a disk filling part-way)
    is not success: ``BufferedWriter.write`` returns how much it took and keeps
    the error that stopped it to itself, so the rest is written again until it is
    all taken or the write fails; nothing taken is an error too.
    """
    buffer = getattr(stream, "buffer", None)
    if buffer is None:
        taken = stream.write(text)
        if taken is not None and taken != len(text):
            raise OSError(errno.EIO, f"short write ({taken} of {len(text)} characters)")
        stream.flush()
        return
    stream.flush()
    _write_all(buffer, text.encode("utf-8", errors="backslashreplace"))


def _write_all(buffer: BinaryIO, data: bytes) -> None:
    view = memoryview(data)
    while view:
        try:
            taken: object = buffer.write(view)
        except BlockingIOError as error:  # a non-blocking stdout that is full: wait, go on
            view = view[error.characters_written :]
            _wait_writable(buffer)
            continue
        if not isinstance(taken, int):  # a raw non-blocking stream that took nothing
            _wait_writable(buffer)
            continue
        if taken <= 0:
            raise OSError(errno.EIO, "short write: nothing was taken")
        view = view[taken:]
    buffer.flush()


def _wait_writable(buffer: BinaryIO) -> None:
    import select  # noqa: PLC0415 - only for a non-blocking stdout

    try:
        descriptor = buffer.fileno()
    except (OSError, ValueError) as error:
        raise OSError(errno.EAGAIN, "standard output would block") from error
    select.select([], [descriptor], [])


class OutputError(OSError):
    """Standard output cannot take the block: closed (``>&-``), read-only, full.

    The command then fails (exit 1, one line on stderr): a block that was not
    delivered is not a success. A reader that went away (``| head``) is a
    ``BrokenPipeError`` instead, and stays quiet.
    """


class NotRegularFileError(OSError):
    """A path named on the command line is not a regular file (a FIFO, a device, a socket)."""


# The stable code of each operating-system failure a command reports
# (docs/contract.md "Error codes and reasons"), most specific class first.
_OS_ERROR_CODES: tuple[tuple[type[OSError], str], ...] = (
    (OutputError, "output_failed"),
    (FileNotFoundError, "path_not_found"),
    (NotADirectoryError, "path_not_a_directory"),
    (IsADirectoryError, "path_is_a_directory"),
    (NotRegularFileError, "path_not_a_regular_file"),
    (PermissionError, "path_permission_denied"),
)
OS_ERROR_CODES: tuple[str, ...] = (*(code for _, code in _OS_ERROR_CODES), "os_error")
"""Every code an operating-system failure is reported with; ``os_error`` is any other."""
USAGE_CODE = "usage_invalid"
"""The code of a usage error (exit 2)."""


def os_error_code(error: OSError) -> str:
    """The stable code of ``error`` (one of :data:`OS_ERROR_CODES`)."""
    for kind, code in _OS_ERROR_CODES:
        if isinstance(error, kind):
            return code
    if error.errno == errno.ENXIO:  # what opening a socket gives: not a file either
        return "path_not_a_regular_file"
    return "os_error"


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
    """Raw bytes to stdout (a canonical manifest must arrive byte for byte), all or an error."""

    def write(stream: TextIO) -> None:
        buffer = getattr(stream, "buffer", None)
        if buffer is None:
            _write(stream, data.decode("utf-8"))
        else:
            stream.flush()
            _write_all(buffer, data)

    _to_stdout(write)


def write_err(line: str) -> None:
    """One line to stderr, made safe by :func:`safe_line`; best effort.

    A closed or failing stderr loses the message but never changes what the
    command does or its exit code.
    """
    _err(safe_line(line) + "\n")


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
            _err("\r\x1b[K" + safe_line(f"{PROGRAM}: {message}"))
            self._shown = True

    def clear(self) -> None:
        if self.enabled and self._shown:
            _err("\r\x1b[K")
            self._shown = False
