"""Every wait of the test suite, bounded by CPU time, never by the clock.

A test that runs a child, joins a thread or awaits a task must not hang, and must not fail
because a busy machine was slow. Each wait here ends for one of two reasons, reported apart:

- ``cpu``: the work waited for spent more CPU seconds than its budget (a loop that never
  ends, a child that never stops). CPU time is the work done, whatever the machine's load.
- ``stall``: it made no progress: its process tree's CPU time grew by under ``STALL_CPU``
  seconds in ``STALL_SECONDS`` of wall time (a read that never returns, a lock nobody
  releases). This is the only wall-clock limit, and a healthy wait never meets it.
- ``idle``: no progress at all, sooner: for ``IDLE_SECONDS`` no thread of what is waited on
  ran for a nanosecond, none started or ended and none was runnable or in a disk wait when
  looked at (``process.tree_activity``); the looking thread itself is left out. A child blocked
  in ``open()`` on a FIFO, a thread blocked in a read of a pipe nobody writes, meet that at
  once; a busy machine delays a runnable thread, which is seen runnable or runs, so never.
  The event-loop waits (``until``, ``await_bounded``) look from the thread that does the work
  they wait for, so they keep to ``stall`` alone.

The budget's rules and the process-tree reading are the gate's own (``scripts/_gate/process.py``):
one definition of "CPU time of a tree" and of "no progress" for the gate and its tests.
``properties/harness/test_conventions.py`` fails on a wall-clock ``timeout=`` anywhere else in
``properties/``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, Literal, NoReturn, TypeVar, overload

import pytest

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"
if str(SCRIPTS) not in sys.path:
    sys.path.append(str(SCRIPTS))  # the gate's package, _gate

from _gate import process  # noqa: E402 - found through the path set just above

T = TypeVar("T")

# No progress: under process.STALL_CPU (one CPU second) in this much wall time. No healthy
# child or thread of a test pauses this long (they wait on nothing slower than a pipe), and a
# CPU-bound one still gets three CPU seconds of it at load 20 on two cores (six in the gate
# beside eight busy loops). Short, because a hang is how many injected defects show: it fails
# the test (a kill) in half a minute, well under the defect verifier's two-minute stop of a
# run it takes for hung (scripts/_gate/defects.py STALL_SECONDS), which is no kill. A blocked
# tree (nothing runs at all) is stopped sooner still, by IDLE_SECONDS.
STALL_SECONDS = 30.0
# No task of the waited-on tree ran at all in this much wall time: stopped (``idle``). Healthy
# waits sleep at most 3 s (a harness control's nap; the library's git timeouts in tests are
# half a second); a hang shows in five seconds instead of STALL_SECONDS.
IDLE_SECONDS = 5.0
# How often a wait reads its tree's CPU time (one pass over /proc, about two milliseconds);
# a wait that is over sooner never reads it.
SAMPLE_SECONDS = 1.0
# An asynchronous condition is polled from every millisecond up to every tenth of a second:
# a quick answer is seen at once, and a long wait costs the process next to no CPU (which
# would count as progress).
_POLL_FIRST, _POLL_MOST = 0.001, 0.1


def _own_cpu() -> float:
    """CPU seconds of this process (every thread) and of its children (running or waited for)."""
    totals = process.tree_cpu([os.getpid()])
    return time.process_time() if totals is None else totals[os.getpid()]


def _stopped(what: str, reason: str, limits: process.Limits, detail: str = "") -> NoReturn:
    """Fail the calling test, saying which limit ended the wait."""
    message = f"{what}: stopped, {limits.describe(reason)}"
    pytest.fail(message + (f"\n{detail}" if detail else ""), pytrace=False)


@overload
def run_bounded(
    args: Sequence[str | os.PathLike[str]],
    *,
    cpu_seconds: float,
    what: str = "",
    input: str | None = None,
    text: Literal[True],
    capture_output: bool = False,
    check: bool = False,
    stall_seconds: float = STALL_SECONDS,
    idle_seconds: float | None = IDLE_SECONDS,
    **popen: Any,
) -> subprocess.CompletedProcess[str]: ...


@overload
def run_bounded(
    args: Sequence[str | os.PathLike[str]],
    *,
    cpu_seconds: float,
    what: str = "",
    input: bytes | None = None,
    text: Literal[False] = False,
    capture_output: bool = False,
    check: bool = False,
    stall_seconds: float = STALL_SECONDS,
    idle_seconds: float | None = IDLE_SECONDS,
    **popen: Any,
) -> subprocess.CompletedProcess[bytes]: ...


def run_bounded(
    args: Sequence[str | os.PathLike[str]],
    *,
    cpu_seconds: float,
    what: str = "",
    input: bytes | str | None = None,
    text: bool = False,
    capture_output: bool = False,
    check: bool = False,
    stall_seconds: float = STALL_SECONDS,
    idle_seconds: float | None = IDLE_SECONDS,
    **popen: Any,
) -> subprocess.CompletedProcess[str] | subprocess.CompletedProcess[bytes]:
    """``subprocess.run(args, ...)`` with a CPU budget for the child's whole process tree in
    place of a wall-clock ``timeout``: the tree (a session of its own) is killed whole when it
    has spent ``cpu_seconds`` or made no progress, and the calling test fails saying which."""
    if capture_output:
        popen["stdout"] = popen["stderr"] = subprocess.PIPE
    if input is not None:
        popen["stdin"] = subprocess.PIPE
    command = [os.fspath(arg) for arg in args]
    limits = process.Limits(cpu_seconds, stall_seconds, idle_seconds)
    child = subprocess.Popen(command, start_new_session=True, text=text, **popen)
    done = threading.Event()
    stopped: list[str] = []

    def watch() -> None:
        budget = process.Watch(limits)
        # The child's tree and this process (the caller feeding and draining the child's
        # pipes, any thread of the test serving it), the watching thread left out.
        looked_at, watcher = [child.pid, os.getpid()], {threading.get_native_id()}
        while not done.wait(SAMPLE_SECONDS):  # a sampling interval, not a limit
            totals = process.tree_cpu([child.pid])
            activity = process.tree_activity(looked_at, watcher) if idle_seconds else None
            reason = budget.sample(None if totals is None else totals[child.pid], None, activity)
            if reason:
                stopped.append(reason)
                process.stop_tree(child.pid)
                return

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        stdout, stderr = child.communicate(input)
    finally:
        done.set()
        watcher.join()
        # What the child left behind in its group (a grandchild holding nothing) goes with it.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(child.pid, signal.SIGKILL)
    if stopped:
        tail = stderr[-2000:] if isinstance(stderr, str | bytes) else ""
        _stopped(what or " ".join(command[:3]), stopped[0], limits, repr(tail) if tail else "")
    result: subprocess.CompletedProcess[Any] = subprocess.CompletedProcess(
        command, child.returncode, stdout, stderr
    )
    if check:
        result.check_returncode()
    return result


def wait_bounded(
    ready: Callable[[float], bool],
    *,
    cpu_seconds: float,
    stall_seconds: float = STALL_SECONDS,
    idle_seconds: float | None = IDLE_SECONDS,
) -> str:
    """Wait in this process until ``ready(seconds)`` (which waits up to ``seconds`` for the
    condition, e.g. ``event.wait``) says True; "" then, else why the wait was given up (this
    process and its children spent ``cpu_seconds`` meanwhile, or made no progress). The
    caller releases what it waited on and fails. What ``ready`` does runs in the waiting
    thread, which the ``idle`` stop leaves out: it looks, the other threads and the children
    work."""
    limits = process.Limits(cpu_seconds, stall_seconds, idle_seconds)
    budget = process.Watch(limits)
    start = _own_cpu()
    looked_at, waiter = [os.getpid()], {threading.get_native_id()}
    while not ready(SAMPLE_SECONDS):
        activity = process.tree_activity(looked_at, waiter) if idle_seconds else None
        reason = budget.sample(_own_cpu() - start, None, activity)
        if reason:
            return limits.describe(reason)
    return ""


def join_bounded(
    thread: threading.Thread,
    *,
    cpu_seconds: float,
    what: str,
    stall_seconds: float = STALL_SECONDS,
    idle_seconds: float | None = IDLE_SECONDS,
) -> None:
    """``thread.join()``, failing the test when the wait is given up (``wait_bounded``)."""

    def joined(seconds: float) -> bool:
        thread.join(seconds)
        return not thread.is_alive()

    reason = wait_bounded(
        joined, cpu_seconds=cpu_seconds, stall_seconds=stall_seconds, idle_seconds=idle_seconds
    )
    if reason:
        pytest.fail(f"{what}: stopped, {reason}", pytrace=False)


def call_bounded(function: Callable[[], T], *, cpu_seconds: float, what: str) -> T:
    """``function()`` in a thread of its own, joined under ``join_bounded``: its result, or
    what it raised."""
    outcome: list[tuple[bool, Any]] = []

    def call() -> None:
        try:
            outcome.append((True, function()))
        except BaseException as error:  # handed to the caller as it is
            outcome.append((False, error))

    worker = threading.Thread(target=call, daemon=True)
    worker.start()
    join_bounded(worker, cpu_seconds=cpu_seconds, what=what)
    ok, value = outcome[0]
    if not ok:
        raise value
    result: T = value
    return result


async def until(
    condition: Callable[[], bool],
    *,
    cpu_seconds: float,
    what: str,
    stall_seconds: float = STALL_SECONDS,
) -> None:
    """In a running event loop (asyncio's, or anyio's on it): return once ``condition()``
    holds, failing the test when this process and its children spend ``cpu_seconds`` first
    or make no progress."""
    limits = process.Limits(cpu_seconds, stall_seconds=stall_seconds)
    budget = process.Watch(limits)
    start = _own_cpu()
    pause = _POLL_FIRST
    sampled = time.monotonic()  # when the tree was last read: once a SAMPLE_SECONDS at most
    while not condition():
        await asyncio.sleep(pause)
        pause = min(pause * 2, _POLL_MOST)
        if time.monotonic() - sampled >= SAMPLE_SECONDS:
            sampled = time.monotonic()
            reason = budget.sample(_own_cpu() - start)
            if reason:
                _stopped(what, reason, limits)


async def await_bounded(
    awaitable: Awaitable[T],
    *,
    cpu_seconds: float,
    what: str,
    stall_seconds: float = STALL_SECONDS,
) -> T:
    """``await awaitable`` in a task of its own, cancelled (and the test failed) when this
    process and its children spend ``cpu_seconds`` first or make no progress."""
    task = asyncio.ensure_future(awaitable)
    limits = process.Limits(cpu_seconds, stall_seconds=stall_seconds)
    reason = await _settled(task, limits)
    if not reason:
        return task.result()
    task.cancel()
    # Its cleanup (a client closing its server, a context's exit) runs before the test fails,
    # under a budget of its own: what it leaves running would outlive the test.
    await _settled(task, limits)
    if task.done() and not task.cancelled():
        task.exception()  # retrieved: the stop is the failure reported
    _stopped(what, reason, limits)


async def _settled(task: asyncio.Future[Any], limits: process.Limits) -> str:
    """ "" once ``task`` is done, or why it was given up (its budget spent, no progress)."""
    budget = process.Watch(limits)
    start = _own_cpu()
    while not task.done():
        await asyncio.wait({task}, timeout=SAMPLE_SECONDS)  # a sampling interval, not a limit
        if task.done():
            break
        reason = budget.sample(_own_cpu() - start)
        if reason:
            return reason
    return ""
