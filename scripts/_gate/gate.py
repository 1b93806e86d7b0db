"""The merge gate's machinery: a step, how one runs (log, CPU budget, count), how steps share
the cores, and what a failure prints."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import shlex
import sys
import tempfile
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from _gate import process
from _gate.pytest_results import JUnit, exit_meaning, read_junit

# Lines of a failed step's log printed under the table (the whole log is kept).
TAIL_LINES = 30

# The gate's stages, run in this order. A failure in a stage before CHECKS ends the gate
# there (unless --keep-going): a style slip is reported in seconds, not after the properties.
STATIC = 0  # lint, format, types, import contracts, workflow schema: seconds each
PREPARE = 1  # what the checks run against (the built wheel, in the wheel mode)
CHECKS = 2  # properties, corpus, defects, fuzzing, CrossHair, mutmut
# The beside lane's niceness. The properties keep about 1.6 of two cores busy (their tests wait
# on children, on git, on deliberate stalls): a step at this niceness takes that idle CPU and
# little else (a tenth of the weight of a normal process), while its own CPU budget and
# progress backstop still hold (ten normal processes on two cores leave it about 6 CPU s in
# five minutes, six times the backstop's one).
BESIDE_NICE = 10


@dataclass
class Outcome:
    """What a step's process left behind, for its counting and checking functions."""

    output: str
    exit_code: int
    junit: JUnit


@dataclass
class Step:
    """One gate step: a command, the CPU seconds its process tree may use (``process``: a
    step is never stopped for the machine's load, only for spending its budget or for making
    no progress at all), and how to count the work it did."""

    name: str
    command: list[str]
    cpu_seconds: float
    count: Callable[[Outcome], int]
    # "module:<name>" importable by this Python, or an executable in this Python's bin
    # folder (found through the interpreter the gate runs under, never through PATH).
    tool: str
    env: dict[str, str] = field(default_factory=dict)
    detail: Callable[[Outcome], dict[str, Any]] | None = None
    prepare: Callable[[], None] | None = None
    # After a run: a list of problems (each printed) that fail the step even on exit 0.
    check: Callable[[Outcome], list[str]] | None = None
    junit: Path | None = None  # pytest's JUnit file: counts and the failed tests come from it
    estimate: float = 10.0  # expected seconds on two cores, to start the longest first
    cores: int = 1  # cores the step keeps busy (a step using two runs alone)
    # A short single-core check that may also run in the beside lane: at BESIDE_NICE, next to
    # steps that hold every core, taking the CPU they leave idle (a test waiting on a child).
    beside: bool = False
    # The niceness it takes in that lane: 0 for a step whose tests time children against
    # windows of their own (it waits far more than it runs, so it takes little from the others).
    lane_nice: int = BESIDE_NICE
    # Seconds long and needing nothing the static stage checks (a fuzz smoke, the wheel's
    # build): may take the beside lane already during the static stage, on the core mypy leaves.
    early: bool = False
    stage: int = 2  # STATIC, PREPARE or CHECKS: a stage starts when the one before it ended
    # The tree's core/ first on PYTHONPATH; False for a run against the installed wheel.
    source_tree: bool = True


@dataclass
class Result:
    name: str
    status: str
    seconds: float
    count: int
    note: str
    detail: dict[str, Any]
    log: str = ""
    cpu_seconds: float = 0.0
    rerun: str = ""
    tail: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def slug(name: str) -> str:
    """A step's file name: ``properties (ci)`` -> ``properties-ci``."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def relative(part: str, root: Path) -> str:
    """``part`` with the tree's own path left out (commands shown as run from the root)."""
    prefix = str(root) + os.sep
    return part.replace(prefix, "") if prefix in part else part


def rerun_command(step: Step, root: Path) -> str:
    """The shell command that reruns this step alone, from the tree's root."""
    assignments = [f"PYTHONPATH={shlex.quote(str(Path('core')))}"] if step.source_tree else []
    assignments += [f"{key}={shlex.quote(value)}" for key, value in sorted(step.env.items())]
    bin_folder = str(Path(sys.executable).parent) + os.sep
    command = [
        "python" if part == sys.executable else relative(part, root).removeprefix(bin_folder)
        for part in step.command
    ]
    return " ".join([*assignments, *(shlex.quote(part) for part in command)])


def interpreter_tool(name: str) -> str:
    """The console script ``name`` beside the interpreter the gate runs under (a virtual
    environment's ``bin``), for tools that have no ``python -m`` form; PATH is not read."""
    return str(Path(sys.executable).parent / name)


def _tool_missing(tool: str) -> bool:
    if tool.startswith("module:"):
        return importlib.util.find_spec(tool.removeprefix("module:")) is None
    return not os.access(interpreter_tool(tool), os.X_OK)


def temp_root(root: Path, name: str) -> Path:
    """A step's own root for pytest's ``tmp_path`` folders, outside the tree (a test's
    temporary checkout must not sit inside this repository's work tree): the shared
    ``/tmp/pytest-of-USER`` is cleaned by every pytest on the machine, and one run removing
    another's old folder fails it with an internal error on a busy machine."""
    # Short: a test's AF_UNIX socket path under it must stay within 107 bytes.
    key = hashlib.sha256(f"{os.getuid()} {root} {name}".encode()).hexdigest()[:10]
    folder = Path(tempfile.gettempdir()) / f"a13n-{key}"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _environment(extra: dict[str, str], root: Path, source_tree: bool = True) -> dict[str, str]:
    env = dict(os.environ)
    if source_tree:
        # The tree under test, not whatever copy of the package is installed.
        source = [str(root / "core"), env.get("PYTHONPATH")]
        env["PYTHONPATH"] = os.pathsep.join(filter(None, source))
    else:  # the installed wheel: nothing of the tree on the path
        env.pop("PYTHONPATH", None)
    env.setdefault("HYPOTHESIS_PROFILE", "ci")
    env.update(extra)
    return env


def failure_note(outcome: Outcome) -> str:
    """What a failed step says first: pytest's failed tests (from its JUnit file), else the
    last line of the output that names an error, else its last line."""
    junit = outcome.junit
    if junit.readable and junit.failed:
        shown = ", ".join(junit.failed[:3]) + (", ..." if len(junit.failed) > 3 else "")
        return f"{len(junit.failed)} failed: {shown}"
    if junit.readable:
        return exit_meaning(outcome.exit_code)
    lines = [line.strip() for line in outcome.output.splitlines()[:-2] if line.strip()]
    named = [line for line in lines if "error" in line.lower() or line.startswith("Found ")]
    return (named or lines or [""])[-1]


def _read_tail(path: Path, lines: int) -> list[str]:
    text = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""
    return text.rstrip("\n").splitlines()[-lines:]


def run_step(step: Step, root: Path, logs: Path, nice: int = 0) -> Result:
    """Run one step with its output in its log (at niceness ``nice``); fail it on a missing
    tool, a spent CPU budget, no progress, a non-zero exit, zero work or a problem its check
    reports."""
    log = logs / f"{slug(step.name)}.log"
    rerun = rerun_command(step, root)
    shown_log = relative(str(log), root)
    if _tool_missing(step.tool):
        log.write_text(f"missing tool: {step.tool}\n", encoding="utf-8")
        note = f"missing tool: {step.tool} (pip install -c constraints/dev.txt -e '.[dev]')"
        return Result(step.name, "failed", 0.0, 0, note, {}, shown_log, rerun=rerun)
    if step.junit is not None:
        step.junit.unlink(missing_ok=True)  # a stale report must not count for this run
    with log.open("w", encoding="utf-8", errors="replace") as sink:
        sink.write(f"$ {rerun}\n# started {datetime.now(UTC).isoformat(timespec='seconds')}\n")
        sink.flush()
        if step.prepare is not None:
            step.prepare()
        finished = process.run(
            step.command,
            limits=process.Limits(step.cpu_seconds),
            cwd=root,
            env={
                **_environment(step.env, root, step.source_tree),
                "PYTEST_DEBUG_TEMPROOT": str(temp_root(root, step.name)),
            },
            log=sink,
            nice=nice,
        )
        if finished.error:
            sink.write(f"could not start: {finished.error}\n")
        sink.write(
            f"\n# exit {finished.exit_code} after {finished.seconds:.1f}s "
            f"({finished.cpu_seconds:.1f} CPU s)\n"
        )
    if finished.error:
        return Result(step.name, "failed", 0.0, 0, finished.error, {}, shown_log, rerun=rerun)
    output = log.read_text(encoding="utf-8", errors="replace")
    outcome = Outcome(output, finished.exit_code, read_junit(step.junit, root))
    count = step.count(outcome)
    detail = step.detail(outcome) if step.detail is not None else {}
    problems = step.check(outcome) if step.check is not None else []

    def result(status: str, note: str) -> Result:
        tail = _read_tail(log, TAIL_LINES) if status != "passed" else []
        return Result(
            step.name,
            status,
            finished.seconds,
            count,
            note,
            detail,
            shown_log,
            finished.cpu_seconds,
            rerun,
            tail,
            problems,
        )

    if finished.stopped:
        return result("failed", process.Limits(step.cpu_seconds).describe(finished.stopped))
    if problems:
        return result(
            "failed", f"exit {finished.exit_code}, {len(problems)} new: {problems[0][:200]}"
        )
    if finished.exit_code != 0:
        return result("failed", f"exit {finished.exit_code}: {failure_note(outcome)[-200:]}")
    if count <= 0:
        return result("failed", "selected nothing")
    return result("passed", "")


def _stamp() -> str:
    return datetime.now(UTC).strftime("%H:%M:%S")


def not_run(step: Step, cause: str) -> Result:
    """The result of a step the gate did not start because ``cause`` failed first."""
    note = f"not run: {cause} failed first (--keep-going runs every step)"
    return Result(step.name, "not run", 0.0, 0, note, {})


def run_steps(
    steps: list[Step], root: Path, logs: Path, jobs: int, keep_going: bool = False
) -> list[Result]:
    """Run the steps stage by stage (``Step.stage``), ``jobs`` cores at a time; results in
    step order.

    The static stage starts its quickest steps first and starts nothing more once one has
    failed; a failed step in any stage before ``CHECKS`` ends the gate when that stage ends,
    and the steps not started are reported as not run. The checks start the longest
    estimate first and all run. ``keep_going`` runs every step whatever fails. Steps marked
    ``early`` (seconds each) may run in the static stage's beside lane, the one the stages'
    order puts first first; a failure of one is a check's, it does not end the gate early.
    """
    results: dict[int, Result] = {}
    failed: list[str] = []
    stages = sorted({step.stage for step in steps})
    for stage in stages:
        indices = [
            index
            for index, step in enumerate(steps)
            if step.stage == stage and index not in results
        ]
        if failed and not keep_going:
            for index in indices:
                results[index] = not_run(steps[index], failed[0])
            continue
        sign = 1 if stage == STATIC else -1
        order = sorted(indices, key=lambda index: sign * steps[index].estimate)
        stop_early = stage == STATIC and not keep_going
        early = [
            index
            for later in stages
            if stage == STATIC and later > stage
            for index, step in enumerate(steps)
            if step.stage == later and step.early
        ]
        stage_results = _run_stage(
            steps, order, root, logs, jobs, stop_early=stop_early, early=early
        )
        results.update(stage_results)
        if stage < CHECKS:
            failed += [
                result.name
                for index, result in stage_results.items()
                if result.status == "failed" and steps[index].stage < CHECKS
            ]
    return [results[index] for index in range(len(steps))]


def _run_stage(
    steps: list[Step],
    order: list[int],
    root: Path,
    logs: Path,
    jobs: int,
    *,
    stop_early: bool,
    early: Sequence[int] = (),
) -> dict[int, Result]:
    """Run the steps at ``order`` (that order of starting) on ``jobs`` cores; with
    ``stop_early`` nothing more starts once one failed (those left are reported not run).

    Beside the ``jobs`` cores runs one more lane, for steps marked ``beside`` only, at their
    ``lane_nice`` (:data:`BESIDE_NICE` unless the step says otherwise): while the properties
    hold both cores it takes the CPU their waits leave, so the short checks are done by the
    time the cores are free again. Once every step of the stage has started and none failed,
    the lane takes the next of ``early`` (a later stage's steps, run now only beside the
    stage's: one not started is left to its stage)."""
    results: dict[int, Result] = {}
    free = jobs
    beside_free = 1
    lock = threading.Condition()
    threads = []
    first_failure: list[str] = []
    running = 0

    def work(index: int, cores: int, in_lane: bool) -> None:
        nonlocal free, beside_free, running
        step = steps[index]
        shown = f"{step.name} (beside)" if in_lane else step.name
        print(f"[{_stamp()}] start  {shown}", flush=True)
        try:
            result = run_step(step, root, logs, step.lane_nice if in_lane else 0)
        except Exception as error:  # a harness bug must fail the step, not hang the gate
            result = Result(step.name, "failed", 0.0, 0, f"harness error: {error!r}", {})
        extra = f"  ({result.note})" if result.note else ""
        print(
            f"[{_stamp()}] {result.status:<6} {shown}  {result.seconds:.1f}s  "
            f"count {result.count}{extra}",
            flush=True,
        )
        with lock:
            results[index] = result
            if result.status == "failed" and not first_failure and index in order:
                first_failure.append(step.name)  # the stage's own: an early step's is a check's
            if in_lane:
                beside_free += 1
            else:
                free += cores
            running -= 1
            lock.notify_all()

    early_left = [index for index in early if index not in order]
    with lock:
        pending = list(order)
        # An early step starts only beside the stage's own steps, never after them.
        while pending or (early_left and running and not first_failure):
            if stop_early and first_failure:
                for index in pending:
                    results[index] = not_run(steps[index], first_failure[0])
                break
            chosen = next((i for i in pending if min(steps[i].cores, jobs) <= free), None)
            in_lane = False
            if chosen is None and beside_free:
                chosen = next((i for i in pending if steps[i].beside), None)
                # Once every step of the stage has started (the static stage's quick ones
                # passed, mypy running): a failure of theirs still starts nothing more.
                if chosen is None and early_left and not first_failure and not pending:
                    chosen = early_left.pop(0)
                    pending.append(chosen)
                in_lane = chosen is not None
            if chosen is None:
                lock.wait()
                continue
            pending.remove(chosen)
            cores = min(steps[chosen].cores, jobs)
            if in_lane:
                beside_free -= 1
            else:
                free -= cores
            running += 1
            thread = threading.Thread(target=work, args=(chosen, cores, in_lane))
            thread.start()
            threads.append(thread)
    for thread in threads:
        thread.join()
    return results


def failure_report(result: Result) -> str:
    """What the gate prints under its table for a failed step: the note, the log's last
    lines, the problems, where the log is and how to rerun the step."""
    lines = [f"==== {result.name}: {result.note}"]
    if result.tail:
        lines.append(f"---- last {len(result.tail)} lines of {result.log}")
        lines += [f"  {line}" for line in result.tail]
    for problem in result.problems:
        lines.append(f"  {problem}")
    if result.log:
        lines.append(f"log:   {result.log}")
    if result.rerun:
        lines.append(f"rerun: {result.rerun}")
    lines.append(f"   or: python scripts/verify.py --only {shlex.quote(result.name)}")
    return "\n".join(lines)
