"""One subprocess runner: a deadline, a process group killed whole at it, output kept."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

# Exit code reported for a process that could not be started (the shell's "not found").
NOT_STARTED = 127


@dataclass(frozen=True)
class Finished:
    """What a run left: exit code (the signal as a negative number), time, output."""

    exit_code: int
    seconds: float
    cpu_seconds: float
    timed_out: bool
    output: str  # stdout and stderr interleaved ("" when they went to a log file)
    error: str = ""  # why the process could not start

    @property
    def passed(self) -> bool:
        return self.exit_code == 0 and not self.timed_out


def run(
    command: Sequence[str],
    *,
    deadline: float,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    log: IO[str] | None = None,
    stderr: bool = True,
) -> Finished:
    """Run ``command`` in its own session; at ``deadline`` seconds its whole process group is
    killed. Output goes to ``log`` when given (and is then not returned), else it is returned;
    ``stderr=False`` discards the error stream instead of interleaving it."""
    started = time.monotonic()
    sink: IO[str] | int = log if log is not None else subprocess.PIPE
    try:
        process = subprocess.Popen(
            list(command),
            cwd=cwd,
            env=None if env is None else dict(env),
            stdout=sink,
            stderr=subprocess.STDOUT if stderr else subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
            text=True,
            errors="replace",
            start_new_session=True,  # its own process group, so the deadline ends it whole
        )
    except OSError as error:
        return Finished(NOT_STARTED, 0.0, 0.0, False, "", str(error))
    expired = threading.Event()

    def expire() -> None:
        expired.set()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)

    timer = threading.Timer(deadline, expire)
    timer.start()
    try:
        # Read the pipe before waiting: a full pipe would block the child forever.
        output = process.stdout.read() if process.stdout is not None else ""
        _, status, usage = os.wait4(process.pid, 0)
    finally:
        timer.cancel()
    # A grandchild that outlived the leader (and held the pipe) is gone with the group.
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.stdout is not None:
        process.stdout.close()
    return Finished(
        process.returncode,
        time.monotonic() - started,
        usage.ru_utime + usage.ru_stime,
        expired.is_set(),
        output or "",
    )
