"""One subprocess runner: a CPU budget for the whole process tree, a process group killed whole
when it is spent, a backstop for a tree that makes no progress, output kept.

No limit here is wall time. A run is stopped for one of two reasons:

- ``cpu``: its process tree (the process, everything in its session, everything descended
  from either, and the children each of them has waited for) used more CPU seconds than its
  budget. CPU time is the work done, whatever the machine's load: a step that needs 60 CPU
  seconds needs them at load 0 and at load 20, so its budget means the same on both.
- ``stall``: the tree made no progress, i.e. its CPU time grew by less than ``STALL_CPU``
  seconds over ``stall_seconds`` of wall time (a read that never returns, a child waiting on a
  lock nobody releases). This is the only wall-clock limit, and a healthy run never meets it:
  at load 20 on two cores a CPU-bound run still gets about a tenth of a core, 30 CPU seconds
  per 300-second window, thirty times ``STALL_CPU``.
- ``idle`` (only where a caller asks for it, with ``Limits.idle_seconds``): no progress at
  all, sooner. Over ``idle_seconds`` of wall time no task (thread) of the tree ran for a single
  nanosecond (``/proc/<pid>/task/<tid>/schedstat``), none started or ended, and none was
  runnable or in a disk wait whenever it was looked at. A task blocked in ``open()`` on a FIFO,
  in a read of a pipe nobody writes, or asleep, meets that; a runnable one never does, however
  busy the machine (it is seen runnable, or it runs), so this too is never the machine's load.

The tree's CPU time is read from ``/proc`` (Linux). Where there is no ``/proc`` the wall time
stands in for it: the budget then ends a run no later than its CPU would have.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

# Exit code reported for a process that could not be started (the shell's "not found").
NOT_STARTED = 127
# The progress backstop: a tree whose CPU time grows by less than STALL_CPU seconds in
# STALL_SECONDS of wall time is hung. Five minutes is longer than any healthy pause (a test's
# own wait for a child it bounds is seconds), one CPU second is a hundredth of a busy core's
# share at load 20 on two cores over that window.
STALL_SECONDS = 300.0
STALL_CPU = 1.0
# How often a run's CPU time is read (one pass over /proc, a few milliseconds).
SAMPLE_SECONDS = 1.0
NICEST = 19  # the lowest priority a process can have
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
_PROC = Path("/proc")


@dataclass(frozen=True)
class Limits:
    """What a run may spend: ``cpu_seconds`` of its process tree, and ``stall_seconds`` of
    wall time in which its CPU time does not advance by ``STALL_CPU``."""

    cpu_seconds: float
    stall_seconds: float = STALL_SECONDS
    idle_seconds: float | None = None  # no task ran at all for this long: stopped (``idle``)

    def describe(self, stopped: str) -> str:
        """Why a run stopped for ``stopped`` (``cpu``, ``stall`` or ``idle``), in a note's
        words."""
        if stopped == "cpu":
            return f"CPU budget {self.cpu_seconds:.0f}s spent"
        if stopped == "idle":
            return f"no progress: no task ran at all in {self.idle_seconds:g}s"
        return f"no progress: under {STALL_CPU:.0f} CPU s in {self.stall_seconds:.0f}s"


@dataclass(frozen=True)
class Finished:
    """What a run left: exit code (the signal as a negative number), time, output."""

    exit_code: int
    seconds: float
    cpu_seconds: float
    stopped: str  # "" (it ended by itself), "cpu" or "stall": why the runner killed it
    output: str  # stdout and stderr interleaved ("" when they went to a log file)
    error: str = ""  # why the process could not start

    @property
    def timed_out(self) -> bool:
        """Stopped by the runner (its CPU budget or the progress backstop)."""
        return bool(self.stopped)

    @property
    def passed(self) -> bool:
        return self.exit_code == 0 and not self.stopped


def _read_stats() -> dict[int, tuple[int, int, float]] | None:
    """Every process's parent, session and CPU seconds (its own and its waited-for
    children's), from ``/proc``; None where there is no ``/proc``."""
    if not (_PROC / "self" / "stat").is_file():
        return None
    stats: dict[int, tuple[int, int, float]] = {}
    for entry in os.scandir(_PROC):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"{entry.path}/stat", "rb") as handle:
                text = handle.read()
        except OSError:  # ended since the listing
            continue
        # The command name (field 2) may hold spaces and parentheses: fields follow the last ")".
        fields = text[text.rindex(b")") + 2 :].split()
        # fields[1] ppid, fields[3] session, fields[11:15] utime stime cutime cstime (ticks)
        ticks = sum(int(value) for value in fields[11:15])
        stats[int(entry.name)] = (int(fields[1]), int(fields[3]), ticks / _TICKS)
    return stats


def _owners(
    stats: Mapping[int, tuple[int, int, float]], leaders: Collection[int]
) -> dict[int, int | None]:
    """The leader whose tree each process is in (None: no leader's): the leader's session and
    every process descended from one in it (a test's child that started a session of its own
    included)."""
    owner: dict[int, int | None] = {}

    def find(pid: int) -> int | None:
        chain = []
        found: int | None = None
        while pid in stats and pid not in owner:
            chain.append(pid)
            parent, session, _ = stats[pid]
            if session in leaders:
                found = session
                break
            if pid in leaders:
                found = pid
                break
            pid = parent
        else:
            found = owner.get(pid)
        for member in chain:
            owner[member] = found
        return found

    for pid in stats:
        find(pid)
    return owner


def tree_cpu(leaders: Collection[int]) -> dict[int, float] | None:
    """CPU seconds used so far by each leader's tree (``_owners``), with the children each of
    its processes has waited for. None where there is no ``/proc``."""
    stats = _read_stats()
    if stats is None:
        return None
    totals = dict.fromkeys(leaders, 0.0)
    for pid, leader in _owners(stats, leaders).items():
        if leader is not None:
            totals[leader] += stats[pid][2]
    return totals


# What a look at a tree's tasks found: each task's id and nanoseconds on a CPU, and whether one
# of them was runnable or in a disk wait (state R or D) when looked at.
Activity = tuple[frozenset[tuple[int, int]], bool]


def tree_activity(leaders: Collection[int], skip: Collection[int] = ()) -> Activity | None:
    """The tasks (threads) of every leader's tree (``_owners``) but those in ``skip`` (the
    looking thread's own), each with its time on a CPU; None where ``/proc`` or its per-task
    ``schedstat`` is missing. Two equal looks with nothing runnable mean no task ran between
    them, none started and none ended."""
    stats = _read_stats()
    if stats is None or not (_PROC / "self" / "schedstat").is_file():
        return None
    tasks: set[tuple[int, int]] = set()
    busy = False
    for pid, owner in _owners(stats, leaders).items():
        if owner is None:
            continue
        try:
            entries = list(os.scandir(f"/proc/{pid}/task"))
        except OSError:  # ended since the listing: a change, which the next look sees
            continue
        for entry in entries:
            tid = int(entry.name)
            if tid in skip:
                continue
            try:
                with open(f"{entry.path}/schedstat", "rb") as handle:
                    ran = int(handle.read().split()[0])
                with open(f"{entry.path}/stat", "rb") as handle:
                    text = handle.read()
            except (OSError, ValueError, IndexError):
                continue
            state = text[text.rindex(b")") + 2 : text.rindex(b")") + 3]
            busy = busy or state in (b"R", b"D")
            tasks.add((tid, ran))
    return frozenset(tasks), busy


def stop_tree(leader: int) -> None:
    """Kill the leader's process group and every process of its tree outside it (a child that
    started a session of its own), every other member before the leader: once the leader is gone,
    its orphans no longer trace back to it."""
    stats = _read_stats() or {}
    members = [pid for pid, owner in _owners(stats, [leader]).items() if owner == leader]
    for pid in sorted(members, reverse=True):
        if pid != leader:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(leader, signal.SIGKILL)


class Watch:
    """The budget of one running tree: ``sample`` is given its CPU seconds (or None, then the
    wall time stands in) and, for ``Limits.idle_seconds``, its ``tree_activity`` (None: not
    known, no idle stop), and answers why to stop it ("" to let it run)."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.started = time.monotonic()
        self.cpu = 0.0  # the most seen: a child reaped outside the tree takes its time along
        self.progress_at = self.started
        self.progress_cpu = 0.0
        self.tasks: frozenset[tuple[int, int]] | None = None  # the last look that changed
        self.still_since = self.started

    def sample(
        self, cpu: float | None, now: float | None = None, activity: Activity | None = None
    ) -> str:
        now = time.monotonic() if now is None else now
        if cpu is None:
            cpu = now - self.started
        self.cpu = max(self.cpu, cpu)
        if self.cpu > self.limits.cpu_seconds:
            return "cpu"
        if self.limits.idle_seconds is not None and activity is not None:
            tasks, busy = activity
            if busy or tasks != self.tasks:
                self.tasks, self.still_since = tasks, now
            elif now - self.still_since > self.limits.idle_seconds:
                return "idle"
        if self.cpu - self.progress_cpu >= STALL_CPU:
            self.progress_at, self.progress_cpu = now, self.cpu
        elif now - self.progress_at > self.limits.stall_seconds:
            return "stall"
        return ""


def run(
    command: Sequence[str],
    *,
    limits: Limits,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    log: IO[str] | None = None,
    stderr: bool | IO[str] = True,
    nice: int = 0,
) -> Finished:
    """Run ``command`` in its own session; when its tree has spent ``limits`` (CPU, or no
    progress) its whole process group is killed. Output goes to ``log`` when given (and is then
    not returned), else it is returned; ``stderr=False`` discards the error stream instead of
    interleaving it, a file keeps it there apart. ``nice`` above 0 lowers the process's
    priority by that much (as ``nice -n``; its children inherit it): it then takes the CPU
    the others leave idle."""
    started = time.monotonic()
    sink: IO[str] | int = log if log is not None else subprocess.PIPE
    try:
        process = subprocess.Popen(
            list(command),
            cwd=cwd,
            env=None if env is None else dict(env),
            stdout=sink,
            stderr=(
                subprocess.STDOUT
                if stderr is True
                else subprocess.DEVNULL
                if stderr is False
                else stderr
            ),
            stdin=subprocess.DEVNULL,
            text=True,
            errors="replace",
            start_new_session=True,  # its own process group, so a stop ends it whole
        )
    except OSError as error:
        return Finished(NOT_STARTED, 0.0, 0.0, "", "", str(error))
    if nice > 0:
        # Set from here rather than in the child before exec (preexec_fn is unsafe beside the
        # gate's threads): the new interpreter starts no child of its own this soon.
        with contextlib.suppress(OSError):
            niceness = os.getpriority(os.PRIO_PROCESS, process.pid)
            os.setpriority(os.PRIO_PROCESS, process.pid, min(NICEST, niceness + nice))
    done = threading.Event()
    stopped: list[str] = []

    def watch() -> None:
        budget = Watch(limits)
        while not done.wait(SAMPLE_SECONDS):
            totals = tree_cpu([process.pid])
            reason = budget.sample(None if totals is None else totals[process.pid])
            if reason:
                stopped.append(reason)
                stop_tree(process.pid)
                return

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        # Read the pipe before waiting: a full pipe would block the child forever.
        output = process.stdout.read() if process.stdout is not None else ""
        _, status, usage = os.wait4(process.pid, 0)
    finally:
        done.set()
        watcher.join()
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
        stopped[0] if stopped else "",
        output or "",
    )
