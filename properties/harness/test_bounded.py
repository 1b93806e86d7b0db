"""No test fails because the machine is busy: every wait of the suite is bounded by CPU time
(``properties/bounded.py``), with a wall-clock backstop only for a wait that makes no progress.

Two halves. The helpers: a child or a thread past its CPU budget is stopped and named so, one
that makes no progress is stopped and named apart, and a wait that takes longer in wall time
than its CPU budget (a busy machine) passes. The convention: no module of ``properties/`` or
``fuzz/`` holds a wall-clock limit of its own (``timeout=``, a numeric ``join``/``wait``, anyio's
and asyncio's deadlines, a socket timeout, an alarm, a clock read, a Hypothesis deadline), each
rule with its negative control.
"""

from __future__ import annotations

import ast
import asyncio
import os
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from bounded import (
    await_bounded,
    call_bounded,
    join_bounded,
    run_bounded,
    until,
    wait_bounded,
)
from harness.scratch import REPO

if str(REPO / "scripts") not in sys.path:
    sys.path.append(str(REPO / "scripts"))  # the gate's package, _gate

from _gate import process

SPIN = [sys.executable, "-c", "while True: pass"]
# A child that starts a spinning grandchild and waits for it: the budget is the tree's.
SPIN_BELOW = [
    sys.executable,
    "-c",
    "import subprocess, sys; subprocess.run([sys.executable, '-c', 'while True: pass'])",
]
SLEEP = [sys.executable, "-c", "import time; time.sleep(600)"]
# Sleeps 3 s of wall time on one hundredth of a CPU second: longer than its budget in wall
# time, well inside it in CPU time (what a busy machine does to a healthy child).
NAP = [sys.executable, "-c", "import sys, time; time.sleep(3); print(sys.stdin.read()[::-1])"]


# ------------------------------------------------------------------ the helpers


def test_a_child_past_its_cpu_budget_is_stopped_and_said_so() -> None:
    with pytest.raises(pytest.fail.Exception, match="spinner: stopped, CPU budget 1s spent"):
        run_bounded(SPIN, cpu_seconds=1, what="spinner")


def test_the_cpu_budget_counts_the_whole_tree() -> None:
    """The child only waits; its grandchild spins: the tree's CPU time is what is counted."""
    with pytest.raises(pytest.fail.Exception, match="CPU budget 1s spent"):
        run_bounded(SPIN_BELOW, cpu_seconds=1)


def test_a_child_that_makes_no_progress_is_stopped_as_such() -> None:
    with pytest.raises(pytest.fail.Exception, match="sleeper: stopped, no progress: under 1"):
        run_bounded(SLEEP, cpu_seconds=600, what="sleeper", stall_seconds=2)


def test_control_a_child_slower_in_wall_time_than_its_cpu_budget_passes() -> None:
    """The negative control of a wall-clock limit: 3 s of wall time on a 1-second budget is
    no failure (a ``timeout=1`` would fail it), and the result is ``subprocess.run``'s."""
    result = run_bounded(NAP, cpu_seconds=1, input="abc", capture_output=True, text=True)
    assert (result.returncode, result.stdout, result.stderr) == (0, "cba\n", "")


def test_check_raises_as_subprocess_run_does() -> None:
    with pytest.raises(Exception, match="returned non-zero exit status 3"):
        run_bounded([sys.executable, "-c", "raise SystemExit(3)"], cpu_seconds=30, check=True)


def test_a_thread_that_spins_is_given_up_on_its_cpu_budget() -> None:
    stop = threading.Event()

    def spin() -> None:
        while not stop.is_set():
            pass

    worker = threading.Thread(target=spin, daemon=True)
    worker.start()
    try:
        with pytest.raises(pytest.fail.Exception, match="spinning: stopped, CPU budget 1s"):
            join_bounded(worker, cpu_seconds=1, what="spinning")
    finally:
        stop.set()
        worker.join()


def test_a_thread_that_waits_forever_is_given_up_as_no_progress() -> None:
    never = threading.Event()
    assert wait_bounded(never.wait, cpu_seconds=60, stall_seconds=2).startswith("no progress")
    worker = threading.Thread(target=never.wait, daemon=True)
    worker.start()
    try:
        with pytest.raises(pytest.fail.Exception, match="stuck: stopped, no progress"):
            join_bounded(worker, cpu_seconds=60, what="stuck", stall_seconds=2)
    finally:
        never.set()
        worker.join()


def test_a_child_blocked_on_a_fifo_is_stopped_as_idle_long_before_the_stall_window(
    tmp_path: Path,
) -> None:
    """A child blocked in ``open()`` on a FIFO runs not at all: stopped as idle, named so,
    though its stall window (ten minutes) is far off."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    reader = [sys.executable, "-c", "import sys; open(sys.argv[1]).read()", str(fifo)]
    with pytest.raises(pytest.fail.Exception, match="reader: stopped, no progress: no task ran"):
        run_bounded(reader, cpu_seconds=600, what="reader", stall_seconds=600, idle_seconds=1)


def test_a_thread_blocked_for_good_is_given_up_as_idle_whatever_the_waiter_does() -> None:
    """A thread blocked on a lock nobody releases: ``join_bounded`` gives it up as idle, and so
    does ``wait_bounded`` whose own looking works on every call (the waiting thread is left
    out: what it does is looking, not progress)."""
    gate = threading.Lock()
    gate.acquire()
    worker = threading.Thread(target=gate.acquire, daemon=True)
    worker.start()

    def busy_look(seconds: float) -> bool:
        sum(range(100_000))  # the waiter's own work on each look
        worker.join(seconds)
        return not worker.is_alive()

    try:
        with pytest.raises(pytest.fail.Exception, match="stuck: stopped, no progress: no task"):
            join_bounded(worker, cpu_seconds=60, what="stuck", stall_seconds=600, idle_seconds=1)
        reason = wait_bounded(busy_look, cpu_seconds=60, stall_seconds=600, idle_seconds=1)
        assert reason == "no progress: no task ran at all in 1s"
    finally:
        gate.release()


# A child that works a little every twentieth of a second for three seconds: about a
# hundredth of a CPU second in all, never idle (its run time grows between any two looks).
TRICKLE = [
    sys.executable,
    "-c",
    "import time\nfor _ in range(60):\n    time.sleep(0.05)\n    sum(range(2000))\nprint('done')",
]


def test_control_a_tree_that_runs_a_little_is_never_idle() -> None:
    """The idle stop's negative control: what runs at all, however little, is progress. The
    child above, and a thread doing the same, outlive a 1-second idle window three times over."""
    result = run_bounded(TRICKLE, cpu_seconds=30, capture_output=True, idle_seconds=1)
    assert result.stdout == b"done\n"

    def trickle() -> int:
        for _ in range(60):
            time.sleep(0.05)
            sum(range(2000))
        return 7

    assert call_bounded(trickle, cpu_seconds=30, what="trickle") == 7


def test_control_the_idle_stop_fails_a_trickle_when_it_cannot_see_it_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The control above can fail: with looks that never see a task run (a broken
    ``tree_activity``), the same trickling child is stopped as idle."""
    blind: process.Activity = (frozenset({(1, 0)}), False)
    monkeypatch.setattr(process, "tree_activity", lambda *_: blind)
    with pytest.raises(pytest.fail.Exception, match="no progress: no task ran at all in 1s"):
        run_bounded(TRICKLE, cpu_seconds=30, capture_output=True, idle_seconds=1)


def test_control_a_thread_that_ends_is_joined_and_its_outcome_handed_over() -> None:
    ready = threading.Event()
    ready.set()
    assert wait_bounded(ready.wait, cpu_seconds=1) == ""
    assert call_bounded(lambda: 6 * 7, cpu_seconds=5, what="answer") == 42
    with pytest.raises(ZeroDivisionError):
        call_bounded(lambda: 1 // 0, cpu_seconds=5, what="division")


def test_control_waits_longer_in_wall_time_than_their_cpu_budget_pass() -> None:
    """The negative control of a wall-clock limit in this process: an event set after 3 s of
    wall time, on a 1-second budget, is waited for; so is a condition that holds after 3 s."""
    release = threading.Event()
    timer = threading.Timer(3.0, release.set)
    timer.start()
    assert wait_bounded(release.wait, cpu_seconds=1) == ""

    async def scenario() -> None:
        later = asyncio.Event()
        asyncio.get_running_loop().call_later(3.0, later.set)
        await until(later.is_set, cpu_seconds=1, what="later")

    asyncio.run(scenario())


def test_an_await_that_never_ends_is_given_up_and_cleaned_up() -> None:
    cleaned: list[bool] = []

    async def forever() -> None:
        try:
            await asyncio.Event().wait()
        finally:
            cleaned.append(True)

    async def scenario() -> None:
        await await_bounded(forever(), cpu_seconds=60, what="forever", stall_seconds=2)

    with pytest.raises(pytest.fail.Exception, match="forever: stopped, no progress"):
        asyncio.run(scenario())
    assert cleaned == [True]  # cancelled and unwound before the test failed


def test_a_condition_that_never_holds_is_given_up() -> None:
    async def scenario() -> None:
        await until(lambda: False, cpu_seconds=60, what="never", stall_seconds=2)

    with pytest.raises(pytest.fail.Exception, match="never: stopped, no progress"):
        asyncio.run(scenario())


def test_control_an_await_and_a_condition_that_end_pass() -> None:
    async def scenario() -> int:
        flag = asyncio.Event()
        asyncio.get_running_loop().call_soon(flag.set)
        await until(flag.is_set, cpu_seconds=5, what="flag")
        return await await_bounded(asyncio.sleep(0.01, result=7), cpu_seconds=5, what="sleep")

    assert asyncio.run(scenario()) == 7


# ------------------------------------------------------------------ the convention

# The one module that may wait on the clock: it does so only between CPU samples.
HELPER = "properties/bounded.py"
# Calls whose ``timeout`` is the library's own, under test (its git runs are bounded in wall
# time by contract: docs/security.md), not a limit of the test.
LIBRARY_TIMEOUTS = frozenset({"collect_git_status"})
# Deadlines of asyncio and anyio, socket timeouts and alarms: wall-clock limits by name.
WALL_CALLS = frozenset(
    {"fail_after", "move_on_after", "wait_for", "timeout", "settimeout", "setdefaulttimeout"}
)
WALL_CLOCKS = frozenset({"time", "time_ns", "monotonic", "monotonic_ns", "perf_counter"})


def _name(node: ast.expr) -> str:
    """The last name of a called expression (``a.b.c`` -> ``c``)."""
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def wall_clock_limits(text: str, path: str) -> list[str]:
    """Every wall-clock limit (or clock read) of a module, as ``path:line: what``."""
    found: list[str] = []
    for node in ast.walk(ast.parse(text, filename=path)):
        if not isinstance(node, ast.Call):
            continue
        name = _name(node.func)
        where = f"{path}:{node.lineno}"
        for keyword in node.keywords:
            none = isinstance(keyword.value, ast.Constant) and keyword.value.value is None
            if keyword.arg == "timeout" and not none and name not in LIBRARY_TIMEOUTS:
                found.append(f"{where}: timeout= in {name}()")
            if keyword.arg == "deadline" and not none:
                found.append(f"{where}: a Hypothesis deadline in {name}()")
        numeric = (
            node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, int | float)
            and not isinstance(node.args[0].value, bool)
        )
        if name in ("join", "wait") and numeric:
            found.append(f"{where}: {name}() for a number of seconds")
        if name in WALL_CALLS:
            found.append(f"{where}: {name}()")
        if name == "alarm" or (name == "setitimer" and "ITIMER_REAL" in ast.unparse(node)):
            found.append(f"{where}: a wall-clock alarm")
        module = node.func.value if isinstance(node.func, ast.Attribute) else None
        if name in WALL_CLOCKS and isinstance(module, ast.Name) and module.id == "time":
            found.append(f"{where}: time.{name}() read")
    return sorted(found, key=lambda line: int(line.split(":")[1]))


def sources() -> Iterator[tuple[Path, str]]:
    for folder in ("properties", "fuzz"):
        for path in sorted((REPO / folder).rglob("*.py")):
            relative = str(path.relative_to(REPO))
            if relative != HELPER:
                yield path, relative


def test_no_test_waits_on_the_wall_clock() -> None:
    found = [
        limit
        for path, relative in sources()
        for limit in wall_clock_limits(path.read_text(encoding="utf-8"), relative)
    ]
    assert found == [], "bound the wait by CPU time: properties/bounded.py"


def test_no_script_outside_the_gate_has_a_wall_clock_limit() -> None:
    """``scripts/*.py`` bound their children by CPU time too (``_gate.process``). Clock reads
    stay: they time what a report shows (and ``scripts/bench.py`` measures). The gate's own
    runner (``scripts/_gate``) is pinned by its own tests."""
    found = [
        limit
        for path in sorted((REPO / "scripts").glob("*.py"))
        for limit in wall_clock_limits(
            path.read_text(encoding="utf-8"), str(path.relative_to(REPO))
        )
        if "() read" not in limit
    ]
    assert found == [], "bound the run by CPU time: scripts/_gate/process.py"


PLANTED = """
import asyncio, signal, socket, subprocess, threading, time
import anyio
from hypothesis import settings

subprocess.run(["x"], timeout=60)
process.communicate(b"", timeout=5)
thread.join(30)
event.wait(2.5)
asyncio.wait_for(task, 20)
with anyio.fail_after(20):
    pass
sock.settimeout(3)
signal.alarm(10)
signal.setitimer(signal.ITIMER_REAL, 5)
started = time.monotonic()
@settings(deadline=200)
def test_x(): pass
"""
# What stays legal: no limit, the library's own git timeout, a join of strings, a variable
# number of seconds (the helpers' sampling protocol), CPU time.
ALLOWED = """
subprocess.run(["x"], timeout=None)
collect_git_status(path, timeout=0.5)
", ".join(["a", "b"])
thread.join()
event.wait(seconds)
run_bounded(["x"], cpu_seconds=60)
signal.setitimer(signal.ITIMER_PROF, 5)
used = time.process_time()
@settings(deadline=None)
def test_y(): pass
"""


def test_the_wall_clock_check_finds_each_kind_it_names() -> None:
    """Negative control: one planted limit of each kind is reported, on its line."""
    assert wall_clock_limits(PLANTED, "p.py") == [
        "p.py:6: timeout= in run()",
        "p.py:7: timeout= in communicate()",
        "p.py:8: join() for a number of seconds",
        "p.py:9: wait() for a number of seconds",
        "p.py:10: wait_for()",
        "p.py:11: fail_after()",
        "p.py:13: settimeout()",
        "p.py:14: a wall-clock alarm",
        "p.py:15: a wall-clock alarm",
        "p.py:16: time.monotonic() read",
        "p.py:17: a Hypothesis deadline in settings()",
    ]
    assert wall_clock_limits(ALLOWED, "a.py") == []


def test_every_hypothesis_profile_has_no_deadline() -> None:
    """A Hypothesis deadline is wall time per example: every profile the conftest registers
    (the gate's ``ci`` among them) turns it off."""
    conftest = ast.parse((REPO / "properties" / "conftest.py").read_text(encoding="utf-8"))
    names = [
        str(node.args[0].value)
        for node in ast.walk(conftest)
        if isinstance(node, ast.Call)
        and _name(node.func) == "register_profile"
        and isinstance(node.args[0], ast.Constant)
    ]
    assert "ci" in names
    assert {name: settings.get_profile(name).deadline for name in names} == dict.fromkeys(names)
