"""The gate package's own pieces (scripts/_gate): each test can fail.

- The runner's limits are CPU time of the whole process tree and a backstop for a tree that
  makes no progress: a run slowed down by the machine is never stopped, a run that spends its
  CPU budget or sleeps with no progress is, and the stop ends the whole process group (a
  runner that killed only its child would leave the grandchild asleep and fail the test).
- The JUnit reader counts what a real pytest run wrote and names each failed test by its
  node id (the confirmation of kills in the defect verifier reruns exactly those ids).
- The defect verifier confirms each kill on the clean tree: a "kill" by a test that fails
  without the mutant too is not a kill.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from bounded import wait_bounded
from harness.scratch import REPO, Scratch, bounded

if str(REPO / "scripts") not in sys.path:
    sys.path.append(str(REPO / "scripts"))  # the gate's package, _gate

from _gate import process, versions
from _gate.pytest_results import Exit, exit_meaning, read_junit

SLEEPER = """
import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
open(sys.argv[1], "w").write(str(child.pid))
print("started", flush=True)
time.sleep(60)
"""


def _alive(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
    except FileNotFoundError:
        return False
    return "\nState:\tZ" not in status  # a zombie has ended, only its parent has not looked


def _ended(pid: int) -> bool:
    for _ in range(300):  # the kill is sent; give the kernel (a busy one too) time to end it
        if not _alive(pid):
            return True
        time.sleep(0.1)
    return False


def test_runner_stops_a_tree_that_makes_no_progress_and_its_whole_process_group(
    tmp_path: Path,
) -> None:
    pid_file = tmp_path / "grandchild.pid"
    finished = process.run(
        [sys.executable, "-c", SLEEPER, str(pid_file)],
        limits=process.Limits(cpu_seconds=60, stall_seconds=3),
        cwd=tmp_path,
    )
    assert finished.stopped == "stall"  # ended by the backstop, not by the sleepers' 60 s
    assert finished.timed_out
    assert not finished.passed
    assert "started" in finished.output
    assert _ended(int(pid_file.read_text(encoding="utf-8"))), "the grandchild outlived the stop"


SPINNER = """
import subprocess, sys
child = subprocess.Popen(
    [sys.executable, "-c", "while True: pass"], start_new_session=True
)
open(sys.argv[1], "w").write(str(child.pid))
child.wait()
"""


def test_runner_counts_the_cpu_of_a_grandchild_in_a_session_of_its_own(tmp_path: Path) -> None:
    """The budget is the whole tree's: a grandchild that left the process group (a test's
    subprocess started in a session of its own) is counted and ended."""
    pid_file = tmp_path / "spinner.pid"
    # Output to a file: a spinner left running would hold a pipe open, and the run with it.
    with (tmp_path / "spinner.log").open("w", encoding="utf-8") as log:
        finished = process.run(
            [sys.executable, "-c", SPINNER, str(pid_file)],
            limits=process.Limits(cpu_seconds=2, stall_seconds=20),
            cwd=tmp_path,
            log=log,
        )
    spinner = int(pid_file.read_text(encoding="utf-8"))
    outlived = not _ended(spinner)
    if outlived:  # its own session: the stop reaches it through the tree, or not at all
        os.kill(spinner, 9)
    assert finished.stopped == "cpu"  # a runner blind to the spinner sees a stall instead
    assert not outlived, "a grandchild in a session of its own outlived the stop"


def test_runner_lets_a_slow_run_within_its_cpu_budget_finish(tmp_path: Path) -> None:
    """A run that waits (a busy machine, a child it bounds) longer than its CPU budget in wall
    seconds, while it keeps progressing, finishes: wall time is no limit."""
    slow = "import time\nfor _ in range(4):\n    time.sleep(1)\nprint('done')"
    finished = process.run(
        [sys.executable, "-c", slow], limits=process.Limits(cpu_seconds=1, stall_seconds=30)
    )
    assert (finished.stopped, finished.exit_code, finished.output) == ("", 0, "done\n")
    assert finished.seconds > finished.cpu_seconds + 3


def test_the_budget_never_stops_a_step_slowed_by_load_and_stops_a_spent_or_stalled_one() -> None:
    """``Watch`` on a recorded run: at load 20 on two cores a step gets a tenth of a core, so
    its 60 CPU seconds take ten minutes of wall time, in 1-second samples. A wall deadline of
    300 s (the limit that failed a healthy CrossHair step) would stop it; the budget does not.
    Negative controls: the same step over its budget, and one that stopped progressing."""
    limits = process.Limits(cpu_seconds=90, stall_seconds=300)
    loaded = process.Watch(limits)
    start = loaded.started
    verdicts = {loaded.sample(second * 0.1, start + second) for second in range(1, 601)}
    assert verdicts == {""}
    assert loaded.cpu == pytest.approx(60.0)  # in 600 s of wall time, twice such a deadline
    spent = process.Watch(limits)
    assert [spent.sample(cpu, spent.started + cpu) for cpu in (50, 90, 91)] == ["", "", "cpu"]
    stalled = process.Watch(limits)
    assert stalled.sample(5.0, stalled.started + 10) == ""
    assert stalled.sample(5.5, stalled.started + 200) == ""
    assert stalled.sample(5.9, stalled.started + 311) == "stall"  # < 1 CPU s in 301 s


def test_the_idle_stop_needs_a_tree_where_nothing_ran_and_nothing_was_runnable() -> None:
    """``Watch`` with ``idle_seconds``, on recorded looks (``tree_activity``): a tree whose
    tasks' run times and members stay the same, none runnable, is stopped once the window is
    over, and only then. Negative controls: a tree one task of which ran a nanosecond, one
    seen runnable (a busy machine's starved task: it did not run, it waited for a core), one
    that started or ended a task, none of them stopped; and without ``idle_seconds`` (the
    gate's own steps) or without a look (no ``/proc``), the idle stop is off."""
    limits = process.Limits(cpu_seconds=90, stall_seconds=300, idle_seconds=5)
    asleep: process.Activity = (frozenset({(11, 500), (12, 7)}), False)
    still = process.Watch(limits)
    start = still.started
    assert [still.sample(0.3, start + second, asleep) for second in (1, 3, 6, 6.5)] == [
        "",
        "",
        "",
        "idle",
    ]
    ran = (frozenset({(11, 501), (12, 7)}), False)
    runnable = (asleep[0], True)
    grown = (asleep[0] | {(13, 0)}, False)
    for change in (ran, runnable, grown):
        watch = process.Watch(limits)
        looks = [asleep, asleep, change, asleep, asleep]
        verdicts = [watch.sample(0.3, start + 2 * n, look) for n, look in enumerate(looks, 1)]
        assert verdicts == ["", "", "", "", ""], change  # 4 s still at most, not 5
    # Starved for the whole window (seen runnable at every look): never idle.
    starved = process.Watch(limits)
    assert {starved.sample(0.3, start + second, runnable) for second in range(1, 100)} == {""}
    off = ((process.Watch(process.Limits(90, 300)), asleep), (process.Watch(limits), None))
    for watch, look in off:
        assert {watch.sample(0.3, start + second, look) for second in range(1, 100)} == {""}
    assert limits.describe("idle") == "no progress: no task ran at all in 5s"


def test_the_looks_at_a_tree_see_a_task_run_and_leave_out_the_looking_thread() -> None:
    """``tree_activity`` of this process: a thread that computes changes the look, one blocked
    on a lock does not; the looking thread, left out, changes nothing however much it does."""
    me = [os.getpid()]
    looker = {threading.get_native_id()}
    gate = threading.Lock()
    gate.acquire()
    stop = threading.Event()
    turns = [0]  # the worker's counted work: a look after it grew saw the worker run

    def work() -> None:
        while not stop.is_set():
            turns[0] += 1

    def after_more_turns() -> None:
        seen = turns[0]
        while turns[0] < seen + 1000:  # the looking thread waits, counting the worker's work
            pass

    blocked = threading.Thread(target=gate.acquire, daemon=True)
    blocked.start()
    try:
        first = process.tree_activity(me, looker)
        if first is None:
            pytest.skip("no /proc schedstat here: the idle stop is off")
        sum(range(200_000))  # the looking thread works: left out
        assert process.tree_activity(me, looker) == first
        assert process.tree_activity(me) != first  # counted when not left out
        worker = threading.Thread(target=work, daemon=True)
        worker.start()
        after_more_turns()
        seen = process.tree_activity(me, looker)
        assert seen is not None
        assert {tid for tid, _ in seen[0]} == {tid for tid, _ in first[0]} | {worker.native_id}
        for _ in range(3):  # it keeps running: each look differs from the one before
            after_more_turns()
            later = process.tree_activity(me, looker)
            assert later is not None
            assert later != seen
            seen = later
    finally:
        stop.set()
        gate.release()


def test_a_look_at_a_spinning_child_sees_it_runnable_and_at_a_sleeping_one_does_not() -> None:
    """A process in an endless loop is running or waiting for a core whenever it is looked at
    (state R): ``tree_activity`` says busy, so the idle stop never counts its time, however
    few turns the machine gives it. A sleeping one is not busy."""
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        looks = [process.tree_activity([spinner.pid]) for _ in range(5)]
        if looks[0] is None:
            pytest.skip("no /proc schedstat here: the idle stop is off")
        assert all(look is not None and look[1] for look in looks)
        never = threading.Event()

        def asleep(seconds: float) -> bool:  # once its start-up is over
            quiet = process.tree_activity([sleeper.pid])
            if quiet is not None and not quiet[1]:
                return True
            never.wait(seconds)
            return False

        assert wait_bounded(asleep, cpu_seconds=10) == ""
    finally:
        for child in (spinner, sleeper):
            child.kill()
            child.wait()


def test_crosshair_budgets_each_condition_in_cpu_seconds() -> None:
    """The CrossHair step's per-condition budget is CPU time: CrossHair measures
    --per_condition_timeout with time.process_time, and the step's own budget is CPU too."""
    import crosshair.core  # noqa: PLC0415 - an optional tool, read only here

    from _gate.steps import CONDITION_CPU, Plan, build_steps  # noqa: PLC0415

    assert vars(crosshair.core)["process_time"] is time.process_time
    (step,) = [s for s in build_steps(Plan(REPO, REPO / "build")) if s.name == "crosshair"]
    assert f"--per_condition_timeout={CONDITION_CPU}" in step.command
    assert step.cpu_seconds >= 3 * CONDITION_CPU


def test_runner_reports_exit_code_output_and_a_missing_program(tmp_path: Path) -> None:
    finished = process.run(
        [sys.executable, "-c", "import sys; print('out'); sys.exit(3)"],
        limits=process.Limits(60),
    )
    assert (finished.exit_code, finished.timed_out, finished.output) == (3, False, "out\n")
    missing = process.run([str(tmp_path / "no-such-program")], limits=process.Limits(60))
    assert missing.exit_code == process.NOT_STARTED
    assert missing.error


SAMPLE_TESTS = """
import pytest

def test_passes():
    assert True

def test_fails():
    assert 1 == 2

@pytest.mark.parametrize("value", ["a b", "x[1]"])
def test_param(value):
    assert value == "a b"

@pytest.mark.skip(reason="skipped on purpose")
def test_skipped():
    pass
"""


# The JUnit file pytest wrote for SAMPLE_TESTS (its failure texts cut short): the reader on
# pytest's format without starting pytest; the real run below is the same check in --full.
SAMPLE_JUNIT = (
    '<?xml version="1.0" encoding="utf-8"?><testsuites name="pytest tests">'
    '<testsuite name="pytest" errors="0" failures="2" skipped="1" tests="5" time="0.893">'
    '<testcase classname="properties.test_sample" name="test_passes" time="0.001" />'
    '<testcase classname="properties.test_sample" name="test_fails" time="0.058">'
    '<failure message="assert 1 == 2">E       assert 1 == 2</failure></testcase>'
    '<testcase classname="properties.test_sample" name="test_param[a b]" time="0.001" />'
    '<testcase classname="properties.test_sample" name="test_param[x[1]]" time="0.001">'
    "<failure message=\"AssertionError: assert 'x[1]' == 'a b'\">E</failure></testcase>"
    '<testcase classname="properties.test_sample" name="test_skipped" time="0.000">'
    '<skipped type="pytest.skip" message="skipped on purpose">skipped</skipped></testcase>'
    "</testsuite></testsuites>"
)


def test_junit_reader_counts_pytests_format_and_names_the_failed_tests(tmp_path: Path) -> None:
    (tmp_path / "properties").mkdir()
    (tmp_path / "properties" / "test_sample.py").write_text(SAMPLE_TESTS, encoding="utf-8")
    junit = tmp_path / "junit.xml"
    junit.write_text(SAMPLE_JUNIT, encoding="utf-8")
    totals = read_junit(junit, tmp_path)
    assert totals.readable
    assert (totals.tests, totals.failures, totals.errors, totals.skipped) == (5, 2, 0, 1)
    assert totals.ran == 4
    assert set(totals.failed) == {
        "properties/test_sample.py::test_fails",
        "properties/test_sample.py::test_param[x[1]]",
    }
    assert set(totals.passed) == {
        "properties/test_sample.py::test_passes",
        "properties/test_sample.py::test_param[a b]",
    }


@pytest.mark.environment  # pytest's own format and node ids, run for real
def test_junit_reader_counts_a_real_run_and_names_the_failed_tests(tmp_path: Path) -> None:
    scratch = Scratch(tmp_path)
    (tmp_path / "properties").mkdir()
    (tmp_path / "properties" / "test_sample.py").write_text(SAMPLE_TESTS, encoding="utf-8")
    junit = tmp_path / "junit.xml"
    completed = scratch.pytest("properties", f"--junitxml={junit}")
    assert completed.returncode == Exit.TESTS_FAILED, completed.stdout
    totals = read_junit(junit, tmp_path)
    assert totals.readable
    assert (totals.tests, totals.failures, totals.errors, totals.skipped) == (5, 2, 0, 1)
    assert totals.ran == 4
    assert set(totals.failed) == {
        "properties/test_sample.py::test_fails",
        "properties/test_sample.py::test_param[x[1]]",
    }
    assert set(totals.passed) == {  # the skipped one neither
        "properties/test_sample.py::test_passes",
        "properties/test_sample.py::test_param[a b]",
    }
    # The names are pytest's own node ids: selecting them reruns exactly those tests.
    rerun = scratch.pytest(*totals.failed, f"--junitxml={junit}")
    again = read_junit(junit, tmp_path)
    assert (again.tests, again.failures) == (2, 2), rerun.stdout


def test_junit_reader_counts_nothing_for_a_missing_or_broken_file(tmp_path: Path) -> None:
    assert not read_junit(tmp_path / "missing.xml").readable
    broken = tmp_path / "broken.xml"
    broken.write_text("<testsuite tests='3'", encoding="utf-8")
    totals = read_junit(broken)
    assert (totals.readable, totals.tests, totals.ran) == (False, 0, 0)


def test_exit_codes_are_named_as_pytest_names_them() -> None:
    import pytest  # noqa: PLC0415 - compared with the gate's copy, which avoids importing it

    for code in Exit:  # the codes the gate reads (pytest may add more)
        assert int(pytest.ExitCode[code.name]) == int(code)
    assert exit_meaning(5) == "no tests collected"
    assert exit_meaning(-9) == "killed by signal 9"


def test_the_properties_run_once_spread_by_xdist_and_the_corpus_replay_apart() -> None:
    """One properties step runs the whole ``properties/`` folder (the harness's own tests in
    ``properties/harness/`` too) but the corpus replay and the harness's timing tests, each
    its own step, with
    pytest-xdist's work stealing on as many workers as the cores it is given."""
    from _gate.steps import Plan, build_steps  # noqa: PLC0415 - scripts/ is on the path above

    steps = build_steps(Plan(REPO, REPO / "build", jobs=2))
    (properties,) = [s for s in steps if s.name.startswith("properties")]
    command = properties.command
    assert command[command.index("-n") + 1] == str(min(2, os.cpu_count() or 1))
    assert command[command.index("--dist") + 1] == "worksteal"
    assert "properties" in command
    assert [part for part in command if part.startswith("--ignore")] == [
        "--ignore=properties/test_corpus.py",
        "--ignore=properties/harness/test_bounded.py",
        "--ignore=properties/harness/test_gate.py",
    ]
    # The harness's timing tests: their own step, in the beside lane at full priority.
    (timing,) = [s for s in steps if s.name == "harness timing"]
    assert [p for p in timing.command if p.startswith("properties/")] == [
        "properties/harness/test_bounded.py",
        "properties/harness/test_gate.py",
    ]
    assert (timing.beside, timing.lane_nice, timing.cores) == (True, 0, 1)
    assert properties.cores == min(2, os.cpu_count() or 1)
    (replay,) = [s for s in steps if s.name == "corpus replay"]
    assert "properties/test_corpus.py" in replay.command
    one = build_steps(Plan(REPO, REPO / "build", jobs=1))
    (alone,) = [s for s in one if s.name.startswith("properties")]
    assert "-n" not in alone.command  # one worker: plain pytest, no xdist start-up


# Holds both cores until the beside step has run: it waits (bounded) for that step's file.
HOLDER = """
import os, sys, time
for _ in range(1200):
    if os.path.exists(sys.argv[1]):
        print("held", flush=True)
        sys.exit(0)
    time.sleep(0.05)
sys.exit(1)
"""
# Says its niceness and leaves the file the holder waits for.
BESIDE = """
import os, sys
print("nice", os.nice(0), flush=True)
open(sys.argv[1], "w").close()
"""


def _gate_step(name: str, code: str, argument: Path, **kw: object) -> object:
    from _gate.gate import Step  # noqa: PLC0415 - scripts/ is on the path above

    return Step(
        name,
        [sys.executable, "-c", code, str(argument)],
        60,
        lambda outcome: 1,
        "module:pytest",
        **kw,  # type: ignore[arg-type]
    )


def test_a_short_check_runs_niced_beside_a_step_that_holds_every_core(tmp_path: Path) -> None:
    """While a two-core step runs, the beside lane starts a step marked ``beside`` at
    BESIDE_NICE more than the gate's niceness, and no other: the holder ends only once the
    beside step has run, so a scheduler without the lane (or one that put the unmarked step
    in it first) leaves it waiting until it gives up and fails."""
    from _gate import gate  # noqa: PLC0415 - scripts/ is on the path above

    done = tmp_path / "beside.done"
    plain_done = tmp_path / "plain.done"
    steps = [
        _gate_step("holder", HOLDER, done, cores=2, estimate=100),
        _gate_step("plain", BESIDE, plain_done, estimate=50),
        _gate_step("short", BESIDE, done, estimate=10, beside=True),
    ]
    logs = tmp_path / "logs"
    logs.mkdir()
    results = gate.run_steps(steps, tmp_path, logs, 2)  # type: ignore[arg-type]
    assert [r.status for r in results] == ["passed"] * 3, [r.note for r in results]
    ours = os.nice(0)
    said = {name: (logs / f"{name}.log").read_text(encoding="utf-8") for name in ("plain", "short")}
    assert f"nice {min(19, ours + gate.BESIDE_NICE)}\n" in said["short"]
    assert f"nice {ours}\n" in said["plain"]  # a normal slot: the gate's own priority


# A static step that waits (bounded) for the early check's file, then fails when a check
# that is not early has run already.
SLOW_STATIC = """
import os, sys, time
for _ in range(1200):
    if os.path.exists(sys.argv[1]):
        sys.exit(1 if os.path.exists(sys.argv[1] + ".late") else 0)
    time.sleep(0.05)
sys.exit(1)
"""
# Leaves its file, then exits with the code its name's last character says.
MARKER = """
import os, sys
print("nice", os.nice(0), flush=True)
open(sys.argv[1], "w").close()
sys.exit(int(sys.argv[2]))
"""


@pytest.mark.parametrize("early_exit", [0, 1])
def test_an_early_check_runs_beside_the_static_stage_and_its_failure_is_a_checks(
    tmp_path: Path, early_exit: int
) -> None:
    """A check marked ``early`` runs in the beside lane while a slow static step runs (the
    static step waits for it), a check that is not early only after the static stage (the
    static step fails if that one ran first); an early check that fails is a failed check,
    it does not stop the gate before its checks."""
    from _gate import gate  # noqa: PLC0415 - scripts/ is on the path above

    done = tmp_path / "early.done"

    def marker(name: str, path: Path, code: int, **kw: object) -> object:
        made = _gate_step(name, MARKER, path, **kw)
        made.command.append(str(code))  # type: ignore[attr-defined]
        return made

    steps = [
        _gate_step("types", SLOW_STATIC, done, stage=gate.STATIC, estimate=20),
        marker("style", tmp_path / "style.done", 0, stage=gate.STATIC, estimate=1),
        marker("late", tmp_path / "early.done.late", 0, estimate=50, beside=True),
        marker("smoke", done, early_exit, estimate=4, beside=True, early=True),
    ]
    logs = tmp_path / "logs"
    logs.mkdir()
    results = gate.run_steps(steps, tmp_path, logs, 2)  # type: ignore[arg-type]
    statuses = [r.status for r in results]
    assert statuses == ["passed", "passed", "passed", ["passed", "failed"][early_exit]], [
        r.note for r in results
    ]
    ours = os.nice(0)
    smoke = (logs / "smoke.log").read_text(encoding="utf-8")
    assert f"nice {min(19, ours + gate.BESIDE_NICE)}\n" in smoke


HANGING_TEST = '''"""Hangs, with a subprocess of its own, whatever the code does."""
import os
import shutil
import subprocess
import sys
import time


def test_hangs() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    with open(os.environ["HANG_PID_FILE"], "w") as sink:
        sink.write(str(child.pid))
    time.sleep(120)
'''


def test_verifier_stops_a_hanging_run_and_its_subprocesses(bare: Scratch, tmp_path: Path) -> None:
    """A defect whose tests hang is a timeout (never a kill), found when its run makes no
    progress, and the forked run's own subprocesses end with it."""
    (bare.root / "properties" / "test_hang.py").write_text(HANGING_TEST, encoding="utf-8")
    bare.mutant(
        "def is_escaped(",
        "# control\ndef is_escaped(",
        ["properties/test_hang.py", "-k", "hangs"],
        cpu_seconds=30,
        name="900_hang",
    )
    pid_file = tmp_path / "hang.pid"
    # Without the backstop the run sleeps 120 s and passes (a survivor, no "no progress");
    # with it, 5 s without a CPU second stop it.
    result = bare.verify_mutants("--stall-seconds", "5", env={"HANG_PID_FILE": str(pid_file)})
    assert result.returncode == 1, result.stdout
    assert "timeout" in result.stdout
    assert "no progress" in result.stdout
    assert "0 killed" in result.stdout
    child = int(pid_file.read_text(encoding="utf-8"))
    for _ in range(300):
        if not _alive(child):
            break
        time.sleep(0.1)
    assert not _alive(child), "the hanging test's subprocess outlived the stop"


PREFIX_TEST = '''"""Passes when this run compiles into the prefix set after start-up."""
import os
import sys


def test_bytecode_goes_to_the_prefix() -> None:
    assert sys.pycache_prefix == os.environ["PYTHONPYCACHEPREFIX"]
'''
PREFIX_RUN = """
import os, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from _gate import warm
tree, prefix = Path(sys.argv[2]), sys.argv[3]
os.environ["PYTHONPYCACHEPREFIX"] = prefix  # set after start-up, as the verifier does
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
job = warm.Job("prefix", ("-q", "-p", "no:cacheprovider", "properties"), lambda slot: tree,
               tree / "run.log", 60)
(done,) = warm.run_jobs([job], 1)
print(done.exit_code)
"""


def test_forked_runs_keep_their_bytecode_in_the_verifiers_prefix(bare: Scratch) -> None:
    """Each forked run compiles into the ``PYTHONPYCACHEPREFIX`` the defect verifier sets after
    its own start-up (outside the scratch trees it rebuilds for every defect), not into the
    tree's ``__pycache__``, which the next run deletes."""
    (bare.root / "properties" / "test_prefix.py").write_text(PREFIX_TEST, encoding="utf-8")
    prefix = bare.root.parent / "pycache"
    result = bare.run("-c", PREFIX_RUN, str(REPO / "scripts"), str(bare.root), str(prefix))
    log = (bare.root / "run.log").read_text(encoding="utf-8")
    assert result.stdout.strip() == "0", result.stdout + result.stderr + log
    assert list(prefix.rglob("test_prefix*.pyc")), "nothing compiled into the prefix"


FAILING_PROPERTY = """
from hypothesis import given, strategies as st


@given(st.integers(0, 1000))
def test_small(n):
    assert n < 500
"""
PATCH_RUN = """
import sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from _gate import warm
tree = Path(sys.argv[2])
if sys.argv[3] == "with-patches":  # the control: Hypothesis's plugin left to write its patch
    class Nothing:
        pass
    warm._NoPatch = Nothing
job = warm.Job("patch", ("-q", "-p", "no:cacheprovider", "properties/test_failing.py"),
               lambda slot: tree, tree / "run.log", 60, database=str(tree / "examples"))
(done,) = warm.run_jobs([job], 1)
print(done.exit_code, sorted(done.junit.failed), sorted(done.saved))
"""


@pytest.mark.parametrize("plugin", ["dropped", "with-patches"])
def test_forked_runs_write_no_hypothesis_patch_and_keep_the_failing_example(
    bare: Scratch, plugin: str
) -> None:
    """A Hypothesis test failing in a forked run fails as before, its example saved for the
    replay, but Hypothesis's plugin writes no source patch for it (libcst's import and parse
    of the test module, a quarter CPU second a kill and more). The control: with the plugin
    that drops the example replaced by one doing nothing, the patch is written, so the check
    can see it."""
    (bare.root / "properties" / "test_failing.py").write_text(FAILING_PROPERTY, encoding="utf-8")
    result = bare.run("-c", PATCH_RUN, str(REPO / "scripts"), str(bare.root), plugin)
    node = "properties/test_failing.py::test_small"
    log = (bare.root / "run.log").read_text(encoding="utf-8")
    assert result.stdout.strip() == f"1 ['{node}'] ['{node}']", result.stdout + result.stderr + log
    patches = list(Path(f"{bare.root}.hypothesis").rglob("*.patch"))
    assert bool(patches) == (plugin == "with-patches"), patches


def test_an_untested_series_of_a_private_api_stops_with_a_clear_message() -> None:
    """The harness patches mutmut's private API and calls a Hypothesis internal: another
    series ends the script with a message naming the version, the uses and the fix."""
    assert versions.require("mutmut", "3.8.1") == "3.8.1"
    assert versions.require("hypothesis", "6.170.17") == "6.170.17"
    with pytest.raises(versions.UntestedVersion) as caught:
        versions.require("mutmut", "3.9.0")
    message = str(caught.value)
    assert "mutmut 3.9.0 is not the tested 3.8.x" in message
    assert "collect_source_file_mutation_data" in message
    assert "constraints/dev.txt" in message
    with pytest.raises(versions.UntestedVersion) as caught:
        versions.require("hypothesis", "7.0.1")
    assert "hypothesis 7.0.1 is not the tested 6.x" in str(caught.value)
    # The installed ones are the tested ones (constraints/dev.txt pins them).
    versions.require("mutmut")
    versions.require("hypothesis")


def test_the_mutation_gate_checks_mutmuts_version_before_anything(tmp_path: Path) -> None:
    """scripts/mutmut.py with a mutmut of another series exits 1 with the message (a fake
    ``mutmut`` distribution first on the path)."""
    info = tmp_path / "mutmut-9.0.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mutmut\nVersion: 9.0.0\n")
    result = bounded(
        [sys.executable, str(REPO / "scripts" / "mutmut.py"), "--help"],
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
    )
    assert result.returncode == 1, result.stdout
    assert "mutmut 9.0.0 is not the tested 3.8.x" in result.stderr
