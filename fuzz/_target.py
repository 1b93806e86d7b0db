"""What every ``fuzz/fuzz_*.py`` target shares: instrumentation, one outcome format, its program.

A target states its contract in its docstring and defines ``check(data)``
(raises on a broken contract) and ``outcome(data)``, both from one verdict
function that checks the input and returns its outcome
(``check, outcome = contract(verdict)``); the rest is here:

- :func:`instrumented`: the ``with`` block around a target's imports of the
  package. When atheris drives the file, ``a13n_harness`` is instrumented for
  coverage feedback as it is imported; when pytest imports the target (the
  corpus replay) or a file is replayed, nothing is. This module imports
  nothing of the package at load time, so nothing escapes instrumentation.
- :func:`attempt`: a call's result, or the ``DefinitionError`` it was
  refused with; anything else escapes, and fails the run.
- :func:`judge`: the verdict of an entry point's result: its accepted or
  its refused checker, then its outcome.
- :func:`outcome_of`: the one outcome format of every ``expected.json``:
  ``accepted``, or the refusal's ``<code>`` (``<code>:<reason>`` when it has
  a reason).
- :class:`ByteReader`: values drawn from the bytes, for structured inputs.
- :func:`main`: ``python fuzz/<target>.py FILE [FILE ...]`` replays each file
  through ``check`` without atheris and prints ``FILE: <outcome>`` (a broken
  contract ends in its traceback and exit status 1); any other command line,
  and every packaged (PyInstaller) target, is a libFuzzer run with the
  defaults of :mod:`runner` (artifacts kept, dictionary, ``corpus/`` only read).

Run a target (new inputs go to the first, scratch, folder; ``corpus/`` is
only read, and refused as the first folder; crashes land in
``build/fuzz-artifacts/<target>/``)::

    python fuzz/<target>.py build/fuzz-corpus/<target> corpus/<target> -atheris_runs=N
"""

from __future__ import annotations

import contextlib
import functools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from runner import fuzz  # fuzz/runner.py: the libFuzzer command line and its defaults

if TYPE_CHECKING:  # types only: importing the package here would escape instrumentation
    from typing_extensions import TypeIs

    from a13n_harness.context.errors import DefinitionError

_Argument = TypeVar("_Argument")
_Result = TypeVar("_Result")


class ByteReader:
    """Draw values from bytes deterministically; past the end every byte reads as 0.

    For targets whose input is drawn structure rather than text: every byte
    string decodes to some case, and a shorter input is a smaller one.
    """

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._position = 0

    def byte(self) -> int:
        if self._position >= len(self._data):
            return 0
        value = self._data[self._position]
        self._position += 1
        return value

    def below(self, bound: int) -> int:
        """An int in ``[0, bound)``; ``bound >= 1``."""
        if bound <= 1:
            return 0
        width = (bound - 1).bit_length() // 8 + 1
        value = 0
        for _ in range(width):
            value = value << 8 | self.byte()
        return value % bound


def replaying(argv: list[str]) -> bool:
    """Whether ``argv`` asks for a plain replay: only existing files, no flag, not packaged."""
    files = argv[1:]
    return (
        bool(files)
        and not getattr(sys, "frozen", False)
        and all(not part.startswith("-") and Path(part).is_file() for part in files)
    )


def instrumented(name: str) -> contextlib.AbstractContextManager[object]:
    """Instrument the package imported inside the block when atheris drives ``name``'s file."""
    if name != "__main__" or replaying(sys.argv):
        return contextlib.nullcontext()
    import atheris  # noqa: PLC0415 - only a fuzzing run needs it; tests import targets plainly

    instrumentation: contextlib.AbstractContextManager[object] = atheris.instrument_imports(
        include=["a13n_harness"]
    )
    return instrumentation


@functools.cache
def _refusal() -> type[DefinitionError]:
    """``DefinitionError``, imported on first use: after the target's imports were instrumented."""
    from a13n_harness.context.errors import DefinitionError  # noqa: PLC0415 - see above

    return DefinitionError


def _is_refusal(result: object) -> TypeIs[DefinitionError]:
    return isinstance(result, _refusal())


def attempt(
    function: Callable[[_Argument], _Result], argument: _Argument
) -> _Result | DefinitionError:
    """``function(argument)``, or the ``DefinitionError`` it was refused with (nothing else)."""
    try:
        return function(argument)
    except _refusal() as error:
        return error


def outcome_of(result: object) -> str:
    """``accepted``, or the refusal ``result`` as ``<code>`` or ``<code>:<reason>``."""
    if not _is_refusal(result):
        return "accepted"
    return result.code if result.reason is None else f"{result.code}:{result.reason}"


def judge(
    data: bytes,
    result: _Result | DefinitionError,
    accepted: Callable[[bytes, _Result], None],
    refused: Callable[[bytes, DefinitionError], None],
) -> str:
    """Check an accepted ``result`` or a refusal with its own checker; the outcome."""
    if _is_refusal(result):
        refused(data, result)
    else:
        accepted(data, result)
    return outcome_of(result)


def contract(
    verdict: Callable[[bytes], str],
) -> tuple[Callable[[bytes], None], Callable[[bytes], str]]:
    """A target's ``check`` and ``outcome``, both from one ``verdict`` (checks, then outcome).

    ``outcome`` of the very bytes object ``check`` was just given returns that verdict
    instead of computing it again (a replay and the corpus test call both on each seed; a
    1 MiB lint seed costs eight scans per verdict). Bytes are immutable and a verdict is a
    function of them, so this is the same answer.
    """
    last: list[tuple[bytes, str]] = []

    def check(data: bytes) -> None:
        """Assert the contract for ``data``; raise on any breach."""
        last[:] = []  # a breach below leaves no verdict behind
        last.append((data, verdict(data)))

    def outcome(data: bytes) -> str:
        """``accepted`` or ``<code>[:<reason>]``, as in ``corpus/<target>/expected.json``."""
        if last and last[0][0] is data:
            return last[0][1]
        return verdict(data)

    return check, outcome


def main(target_file: str, check: Callable[[bytes], None], outcome: Callable[[bytes], str]) -> None:
    """The program of a target: replay the files named, or fuzz ``check`` (module docstring)."""
    if not replaying(sys.argv):
        fuzz(target_file, check)
        return
    for name in sys.argv[1:]:
        data = Path(name).read_bytes()
        check(data)
        print(f"{name}: {outcome(data)}", flush=True)
