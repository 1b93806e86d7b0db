"""The merge gate: every check the harness has, each with a deadline, kept evidence and a count.

``python scripts/verify.py`` (quick, the CI default) runs lint and types
(ruff, ruff format, mypy strict, import-linter, the GitHub workflow schema),
the properties under the ``ci`` Hypothesis profile, the corpus replay, the
injected-defect verifier, a fuzz smoke run per target found in ``fuzz/``, the
local ClusterFuzzLite build (each target packaged by PyInstaller and run over
its seed archive) and CrossHair. ``--full`` (the build box) adds mutmut, 300 s
of fuzzing per target and the ``nightly`` profile. ``--changed-since REF`` adds
mutmut over the functions changed between REF and HEAD.

Each step runs in a subprocess with a deadline; it passes only when it exits 0
*and* did a non-zero amount of work (tests, files, runs, conditions). A
missing tool is a failed step that names it, never a skip. Steps run two at a
time (``--jobs``), the longest first.

Evidence: each step's whole output goes to ``build/logs/<step>.log``; a failed
step prints its last lines and the exact command that reruns it alone.
``build/junit.xml`` holds one test case per step (the properties and corpus
steps also keep pytest's own JUnit files beside their logs). Fuzzing writes new
coverage to ``build/fuzz-corpus/<target>/`` and crash, timeout and
out-of-memory inputs to ``build/fuzz-artifacts/<target>/``; each new artifact
fails its step and is printed with the command that replays it.

It prints one line as each step starts and ends, then one table; writes
``build/verify-report.json`` (per-step wall and CPU seconds) and appends one
line to ``build/verify-history.jsonl``; ends with the line ``N passed, N failed``
and exits non-zero when any step failed. ``--only NAME`` (repeatable) runs just
the steps whose name contains NAME and fails when that selects none.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import Any

REPO = Path(__file__).resolve().parent.parent
# The Python source folders (not corpus/: its seeds are hostile bytes, not code to format).
SOURCES = ("core", "properties", "scripts", "fuzz")
# Lines of a failed step's log printed under the table (the whole log is kept).
TAIL_LINES = 30
# Artifact prefixes libFuzzer writes: crash, timeout, out-of-memory, leak, slow unit.
ARTIFACT_KINDS = ("crash-", "timeout-", "oom-", "leak-", "slow-unit-")


@dataclass
class Outcome:
    """What a step's process left behind, for its counting and checking functions."""

    output: str
    exit_code: int
    junit: Path | None


@dataclass
class Step:
    """One gate step: a command, its deadline, and how to count the work it did."""

    name: str
    command: list[str]
    deadline: float
    count: Callable[[Outcome], int]
    tool: str  # an executable on PATH or "module:<name>" importable by this Python
    env: dict[str, str] = field(default_factory=dict)
    detail: Callable[[Outcome], dict[str, Any]] | None = None
    prepare: Callable[[], None] | None = None
    # After a run: a list of problems (each printed) that fail the step even on exit 0.
    check: Callable[[Outcome], list[str]] | None = None
    junit: Path | None = None
    estimate: float = 10.0  # expected seconds on two cores, to start the longest first
    cores: int = 1  # cores the step keeps busy (a step using two runs alone)


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


def _last_int(pattern: str, text: str) -> int:
    found = re.findall(pattern, text)
    return int(found[-1]) if found else 0


def junit_counts(path: Path | None) -> dict[str, int]:
    """pytest's JUnit totals: tests, failures, errors, skipped (zeros when unreadable)."""
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    if path is None or not path.is_file():
        return totals
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError:
        return totals
    suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
    for suite in suites:
        for key in totals:
            totals[key] += int(suite.get(key, "0") or 0)
    return totals


def _json_count(path: Path, key: str) -> int:
    """A count from the JSON summary a step wrote (0 when it wrote none)."""
    if not path.is_file():
        return 0
    value = json.loads(path.read_text(encoding="utf-8")).get(key, 0)
    return value if isinstance(value, int) else 0


def _pytest_ran(outcome: Outcome) -> int:
    """Tests that ran (not skipped), from the step's JUnit file."""
    counts = junit_counts(outcome.junit)
    return counts["tests"] - counts["skipped"]


def _python_files(root: Path) -> int:
    """Python files under the linted folders: what ruff's "All checks passed" covered."""
    return sum(1 for folder in SOURCES for _ in (root / folder).rglob("*.py"))


def _fuzz_detail(outcome: Outcome) -> dict[str, Any]:
    runs = _last_int(r"Done (\d+) runs", outcome.output)
    rates = re.findall(r"exec/s: (\d+)", outcome.output)
    return {"runs": runs, "exec_per_second": int(rates[-1]) if rates else 0}


def _crosshair_count(outcome: Outcome) -> int:
    # --report_all prints one line per postcondition analysed.
    return len([line for line in outcome.output.splitlines() if re.search(r":\d+: ", line)])


def _tool_missing(tool: str) -> bool:
    if tool.startswith("module:"):
        return importlib.util.find_spec(tool.removeprefix("module:")) is None
    return shutil.which(tool) is None


def _environment(extra: dict[str, str], root: Path) -> dict[str, str]:
    env = dict(os.environ)
    # The tree under test, not whatever copy of the package is installed.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root / "core"), env.get("PYTHONPATH")]))
    env.setdefault("HYPOTHESIS_PROFILE", "ci")
    env.update(extra)
    return env


def rerun_command(step: Step, root: Path) -> str:
    """The shell command that reruns this step alone, from the tree's root."""
    assignments = [f"PYTHONPATH={shlex.quote(str(Path('core')))}"]
    assignments += [f"{key}={shlex.quote(value)}" for key, value in sorted(step.env.items())]
    command = [
        "python" if part == sys.executable else _relative(part, root) for part in step.command
    ]
    return " ".join([*assignments, *(shlex.quote(part) for part in command)])


def _relative(part: str, root: Path) -> str:
    prefix = str(root) + os.sep
    return part.replace(prefix, "") if prefix in part else part


def _summary_line(output: str) -> str:
    """The line of a failed step's output that says most: a tool's own count of what failed."""
    lines = [line.strip() for line in output.splitlines()[:-2] if line.strip()]
    summary = re.compile(r"Found \d+ error|\d+ failed|\d+ errors? in|Error|error:|ERROR")
    return next(
        (line for line in reversed(lines) if summary.search(line)), lines[-1] if lines else ""
    )


def _stamp() -> str:
    return datetime.now(UTC).strftime("%H:%M:%S")


def _read_tail(path: Path, lines: int) -> list[str]:
    text = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""
    return text.rstrip("\n").splitlines()[-lines:]


def run_step(step: Step, root: Path, logs: Path) -> Result:
    """Run one step with its output in its log; fail it on a missing tool, a deadline, a
    non-zero exit, zero work or a problem its check reports."""
    log = logs / f"{slug(step.name)}.log"
    rerun = rerun_command(step, root)
    shown_log = _relative(str(log), root)
    if _tool_missing(step.tool):
        log.write_text(f"missing tool: {step.tool}\n", encoding="utf-8")
        note = f"missing tool: {step.tool} (pip install -e '.[dev]')"
        return Result(step.name, "failed", 0.0, 0, note, {}, shown_log, rerun=rerun)
    started = time.monotonic()
    timed_out = False
    with log.open("w", encoding="utf-8", errors="replace") as sink:
        sink.write(f"$ {rerun}\n# started {datetime.now(UTC).isoformat(timespec='seconds')}\n")
        sink.flush()
        try:
            if step.prepare is not None:
                step.prepare()
            process = subprocess.Popen(
                step.command,
                cwd=root,
                env=_environment(step.env, root),
                stdout=sink,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,  # its own process group, so a deadline ends it whole
            )
        except OSError as error:
            sink.write(f"could not start: {error}\n")
            return Result(step.name, "failed", 0.0, 0, str(error), {}, shown_log, rerun=rerun)

        def expire() -> None:
            nonlocal timed_out
            timed_out = True
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)

        timer = threading.Timer(step.deadline, expire)
        timer.start()
        try:
            _, status, usage = os.wait4(process.pid, 0)
        finally:
            timer.cancel()
        process.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.monotonic() - started
        sink.write(f"\n# exit {process.returncode} after {seconds:.1f}s\n")
    cpu = usage.ru_utime + usage.ru_stime
    output = log.read_text(encoding="utf-8", errors="replace")
    outcome = Outcome(output, process.returncode, step.junit)
    count = step.count(outcome)
    detail = step.detail(outcome) if step.detail is not None else {}
    problems = step.check(outcome) if step.check is not None else []

    def result(status: str, note: str) -> Result:
        tail = _read_tail(log, TAIL_LINES) if status != "passed" else []
        return Result(
            step.name, status, seconds, count, note, detail, shown_log, cpu, rerun, tail, problems
        )

    if timed_out:
        return result("failed", f"deadline {step.deadline:.0f}s passed")
    if problems:
        return result(
            "failed", f"exit {process.returncode}, {len(problems)} new: {problems[0][:200]}"
        )
    if process.returncode != 0:
        return result("failed", f"exit {process.returncode}: {_summary_line(output)[-200:]}")
    if count <= 0:
        return result("failed", "selected nothing")
    return result("passed", "")


def run_steps(steps: list[Step], root: Path, logs: Path, jobs: int) -> list[Result]:
    """Run the steps ``jobs`` cores at a time, the longest estimate first; results in step order."""
    order = sorted(range(len(steps)), key=lambda index: -steps[index].estimate)
    results: dict[int, Result] = {}
    free = jobs
    lock = threading.Condition()
    threads = []

    def work(index: int, cores: int) -> None:
        nonlocal free
        step = steps[index]
        print(f"[{_stamp()}] start  {step.name}", flush=True)
        try:
            result = run_step(step, root, logs)
        except Exception as error:  # a harness bug must fail the step, not hang the gate
            result = Result(step.name, "failed", 0.0, 0, f"harness error: {error!r}", {})
        extra = f"  ({result.note})" if result.note else ""
        print(
            f"[{_stamp()}] {result.status:<6} {step.name}  {result.seconds:.1f}s  "
            f"count {result.count}{extra}",
            flush=True,
        )
        with lock:
            results[index] = result
            free += cores
            lock.notify_all()

    with lock:
        pending = list(order)
        while pending:
            chosen = next(
                (i for i in pending if min(steps[i].cores, jobs) <= free),
                None,
            )
            if chosen is None:
                lock.wait()
                continue
            pending.remove(chosen)
            cores = min(steps[chosen].cores, jobs)
            free -= cores
            thread = threading.Thread(target=work, args=(chosen, cores))
            thread.start()
            threads.append(thread)
    for thread in threads:
        thread.join()
    return [results[index] for index in range(len(steps))]


def _fuzz_targets(root: Path) -> list[str]:
    return sorted(path.stem for path in (root / "fuzz").glob("fuzz_*.py"))


def load_seeds(root: Path) -> ModuleType:
    """``fuzz/seeds.py`` of the tree (stored and generated corpus seeds)."""
    spec = importlib.util.spec_from_file_location("_a13n_seeds", root / "fuzz" / "seeds.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _corpus_files(root: Path) -> int:
    corpus = root / "corpus"
    if not corpus.is_dir() or not (root / "fuzz" / "seeds.py").is_file():
        return 0
    seeds = load_seeds(root)
    return sum(len(seeds.seed_names(folder)) for folder in corpus.iterdir() if folder.is_dir())


def fuzz_artifacts(folder: Path) -> set[Path]:
    """Crash, timeout and out-of-memory inputs libFuzzer left in ``folder``."""
    if not folder.is_dir():
        return set()
    return {path for path in folder.iterdir() if path.name.startswith(ARTIFACT_KINDS)}


def fuzz_step(root: Path, target: str, seconds: int, build: Path) -> Step:
    """A libFuzzer run of one target: scratch corpus, seeds read-only, artifacts kept."""
    scratch = build / "fuzz-corpus" / target  # first directory: libFuzzer adds new inputs here
    seeds_dir = build / "fuzz-seeds" / target  # the checked-in seeds, generated ones included
    artifacts = build / "fuzz-artifacts" / target
    started: list[float] = []

    def prepare() -> None:
        scratch.mkdir(parents=True, exist_ok=True)
        artifacts.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(seeds_dir, ignore_errors=True)
        source = root / "corpus" / target
        if source.is_dir():
            load_seeds(root).materialise(source, seeds_dir)
        else:
            seeds_dir.mkdir(parents=True)
        started[:] = [time.time() - 1]  # libFuzzer rewrites a crash found again: go by time

    def check(outcome: Outcome) -> list[str]:
        found = sorted(
            path for path in fuzz_artifacts(artifacts) if path.stat().st_mtime >= started[0]
        )
        return [
            f"{path.name} ({path.stat().st_size} bytes); replay: "
            f"python fuzz/{target}.py {_relative(str(path), root)}"
            for path in found
        ]

    dictionary = root / "fuzz" / f"{target}.dict"
    command = [
        sys.executable,
        f"fuzz/{target}.py",
        _relative(str(scratch), root),
        _relative(str(seeds_dir), root),
        f"-max_total_time={seconds}",
        "-max_len=8192",
        "-timeout=10",
        "-rss_limit_mb=2048",
        f"-artifact_prefix={_relative(str(artifacts), root)}/",
        "-print_final_stats=1",
    ]
    if dictionary.is_file():
        command.append(f"-dict=fuzz/{target}.dict")
    return Step(
        f"fuzz {target}",
        command,
        seconds + 120,
        lambda outcome: _fuzz_detail(outcome)["runs"],
        "module:atheris",
        detail=_fuzz_detail,
        prepare=prepare,
        check=check,
        estimate=seconds + 3,
    )


def property_halves(root: Path) -> list[list[str]]:
    """The property modules (all but the corpus replay) in two groups of about equal size, the
    largest modules first (file size stands for run time); one group when there are few."""
    files = sorted(
        (path for path in (root / "properties").glob("test_*.py") if path.name != "test_corpus.py"),
        key=lambda path: (-path.stat().st_size, path.name),
    )
    groups: list[list[str]] = [[], []]
    sizes = [0, 0]
    for path in files:
        smaller = sizes.index(min(sizes))
        groups[smaller].append(_relative(str(path), root))
        sizes[smaller] += path.stat().st_size
    return [sorted(group) for group in groups if group]


def build_steps(
    root: Path,
    *,
    full: bool,
    build: Path,
    fuzz_seconds: int | None = None,
    changed_since: str | None = None,
) -> list[Step]:
    """The gate's steps, in report order; ``fuzz_seconds`` overrides the mode's fuzzing time."""
    python = sys.executable
    logs = build / "logs"
    pytest = [python, "-m", "pytest", "-p", "no:cacheprovider", "-q"]
    corpus_junit = logs / "corpus-replay.junit.xml"
    workflows = sorted((root / ".github" / "workflows").glob("*.yml"))
    steps = [
        Step(
            "ruff check",
            ["ruff", "check", "--no-cache", "--output-format=concise", *SOURCES],
            120,
            lambda out: _python_files(root) if "All checks passed" in out.output else 0,
            "ruff",
            estimate=3,
        ),
        Step(
            "ruff format",
            ["ruff", "format", "--no-cache", "--check", *SOURCES],
            120,
            lambda out: _last_int(r"(\d+) files? already formatted", out.output),
            "ruff",
            estimate=2,
        ),
        Step(
            "mypy strict",
            ["mypy"],
            300,
            lambda out: _last_int(r"in (\d+) source files?", out.output),
            "mypy",
            estimate=40,
        ),
        Step(
            "import-linter",
            ["lint-imports", "--no-cache"],
            120,
            lambda out: _last_int(r"Contracts: (\d+) kept", out.output),
            "lint-imports",
            estimate=6,
        ),
        Step(
            "workflow schema",
            [
                "check-jsonschema",
                "--builtin-schema",
                "vendor.github-workflows",
                *(_relative(str(path), root) for path in workflows),
            ],
            120,
            lambda out: len(workflows) if "validation done" in out.output else 0,
            "check-jsonschema",
            estimate=4,
        ),
        Step(
            "corpus replay",
            [
                *pytest,
                "properties/test_corpus.py",
                f"--junitxml={_relative(str(corpus_junit), root)}",
            ],
            120,
            lambda out: _corpus_files(root) if _pytest_ran(out) else 0,
            "module:pytest",
            junit=corpus_junit,
            estimate=12,
        ),
        Step(
            "injected defects",
            [
                python,
                "scripts/verify_mutants.py",
                "--workers",
                "1",
                "--json",
                _relative(str(build / "mutants.json"), root),
            ],
            # 391 CPU s and 558 s wall on a quiet two-core clone (125 defects); CI boxes
            # have run this step 1.7x slower than a quiet local one, so 1,800 s keeps room.
            1800,
            lambda out: _json_count(build / "mutants.json", "total"),
            "module:pytest",
            estimate=300,  # the longest single-core step: it starts first
        ),
    ]
    # The properties run as two halves, one per core; the corpus replay is its own step
    # (run beside them), not run twice.
    halves = property_halves(root)
    for index, files in enumerate(halves, start=1):
        name = "properties (ci)" if len(halves) == 1 else f"properties (ci) {index}/{len(halves)}"
        junit = logs / f"{slug(name)}.junit.xml"
        steps.append(
            Step(
                name,
                [*pytest, *files, f"--junitxml={_relative(str(junit), root)}"],
                900,  # about 3 minutes of CPU each on an idle box; room for a busy shared one
                _pytest_ran,
                "module:hypothesis",
                env={"HYPOTHESIS_PROFILE": "ci"},
                junit=junit,
                estimate=180,
            )
        )
    if fuzz_seconds is None:
        fuzz_seconds = 300 if full else 10
    steps += [fuzz_step(root, target, fuzz_seconds, build) for target in _fuzz_targets(root)]
    steps.append(
        Step(
            "clusterfuzzlite build",
            # One target at a time: the gate already runs two steps at once.
            [
                python,
                "scripts/cflite_local.py",
                "--jobs",
                "1",
                "--out",
                _relative(str(build / "cflite"), root),
            ],
            900,
            lambda out: _last_int(r"(\d+) packaged targets? ran", out.output),
            "module:PyInstaller",
            estimate=90,
        )
    )
    steps.append(
        Step(
            "crosshair",
            [
                "crosshair",
                "check",
                "--analysis_kind=PEP316",
                "--per_condition_timeout=4",
                "--report_all",
                "properties/crosshair_contracts.py",
            ],
            300,
            _crosshair_count,
            "crosshair",
            estimate=60,
        )
    )
    if changed_since is not None:
        steps.append(
            Step(
                f"mutmut (changed since {changed_since})",
                [
                    python,
                    "scripts/mutmut.py",
                    "--changed-since",
                    changed_since,
                    "--json",
                    _relative(str(build / "mutmut-changed.json"), root),
                ],
                1800,
                lambda out: (
                    _json_count(build / "mutmut-changed.json", "total")
                    or int("no function of the pure core changed" in out.output)
                ),
                "module:mutmut",
                estimate=90,
                cores=2,
            )
        )
    if full:
        steps.append(
            Step(
                "properties (nightly)",
                [
                    *pytest,
                    "properties",
                    f"--junitxml={_relative(str(logs / 'properties-nightly.junit.xml'), root)}",
                ],
                7200,  # ~17x the ci step's two minutes, with room on a shared box
                _pytest_ran,
                "module:hypothesis",
                env={"HYPOTHESIS_PROFILE": "nightly"},
                junit=logs / "properties-nightly.junit.xml",
                estimate=2000,
            )
        )
        steps.append(
            Step(
                "mutmut",
                [
                    python,
                    "scripts/mutmut.py",
                    "--json",
                    _relative(str(build / "mutmut.json"), root),
                ],
                3600,  # the full run takes under 30 minutes on two cores (docs/mutation.md)
                lambda out: _json_count(build / "mutmut.json", "total"),
                "module:mutmut",
                estimate=1800,
                cores=2,
            )
        )
    return steps


def _summary(path: Path) -> dict[str, Any] | None:
    if not path.is_file():
        return None
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _table(results: list[Result]) -> str:
    width = max([len(result.name) for result in results] + [4])
    lines = [f"{'step':<{width}}  {'status':<6}  {'seconds':>7}  {'cpu s':>7}  {'count':>7}  note"]
    lines.append("-" * (width + 50))
    for result in results:
        lines.append(
            f"{result.name:<{width}}  {result.status:<6}  {result.seconds:>7.1f}  "
            f"{result.cpu_seconds:>7.1f}  {result.count:>7}  {result.note}"
        )
    return "\n".join(lines)


def _failure_report(result: Result) -> str:
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


def write_junit(results: list[Result], path: Path, seconds: float) -> None:
    """One JUnit test case per gate step, with the failure's tail, problems and rerun command."""
    failed = sum(result.status != "passed" for result in results)
    suite = ET.Element(
        "testsuite",
        name="verify",
        tests=str(len(results)),
        failures=str(failed),
        errors="0",
        skipped="0",
        time=f"{seconds:.1f}",
    )
    for result in results:
        case = ET.SubElement(
            suite, "testcase", classname="verify", name=result.name, time=f"{result.seconds:.1f}"
        )
        if result.status != "passed":
            failure = ET.SubElement(case, "failure", message=result.note)
            failure.text = _failure_report(result)
        out = ET.SubElement(case, "system-out")
        out.text = f"log: {result.log}\nrerun: {result.rerun}\ncount: {result.count}\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    suites = ET.Element("testsuites", tests=str(len(results)), failures=str(failed))
    suites.append(suite)
    tree = ET.ElementTree(suites)
    ET.indent(tree)
    tree.write(path, encoding="utf-8", xml_declaration=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--full", action="store_true", help="build box: mutmut, long fuzzing")
    parser.add_argument("--root", type=Path, default=REPO, help="tree to verify")
    parser.add_argument("--only", action="append", default=[], help="run steps whose name has this")
    parser.add_argument("--report", type=Path, help="default: build/verify-report.json")
    parser.add_argument(
        "--fuzz-seconds", type=int, help="fuzzing time per target (default 10, --full 300)"
    )
    parser.add_argument("--jobs", type=int, default=2, help="steps run at once (default 2)")
    parser.add_argument(
        "--changed-since", metavar="REF", help="add mutmut over the functions changed since REF"
    )
    args = parser.parse_args(argv)
    if args.fuzz_seconds is not None and args.fuzz_seconds < 1:
        parser.error("--fuzz-seconds must be at least 1 (libFuzzer reads 0 as no limit)")
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    root: Path = args.root.resolve()
    build = root / "build"
    logs = build / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    report_path: Path = args.report or build / "verify-report.json"
    started = time.monotonic()
    steps = build_steps(
        root,
        full=args.full,
        build=build,
        fuzz_seconds=args.fuzz_seconds,
        changed_since=args.changed_since,
    )
    if args.only:
        steps = [step for step in steps if any(part in step.name for part in args.only)]
    for stale in (build / "mutants.json", build / "mutmut.json", build / "mutmut-changed.json"):
        stale.unlink(missing_ok=True)
    results = run_steps(steps, root, logs, args.jobs)
    if not results:
        results.append(Result("selection", "failed", 0.0, 0, "no step selected", {}))
    seconds = round(time.monotonic() - started, 1)
    fuzz = {
        result.name.removeprefix("fuzz "): result.detail
        for result in results
        if result.name.startswith("fuzz ")
    }
    crosshair = next((r.count for r in results if r.name == "crosshair"), 0)
    passed = sum(result.status == "passed" for result in results)
    failed = len(results) - passed
    report = {
        "mode": "full" if args.full else "quick",
        "finished": datetime.now(UTC).isoformat(timespec="seconds"),
        "seconds": seconds,
        "jobs": args.jobs,
        "load_average": [round(value, 2) for value in os.getloadavg()],
        "steps": [
            {
                "name": r.name,
                "status": r.status,
                "seconds": round(r.seconds, 1),
                "cpu_seconds": round(r.cpu_seconds, 1),
                "count": r.count,
                "note": r.note,
                "log": r.log,
                "problems": r.problems,
            }
            for r in results
        ],
        "mutants": _summary(build / "mutants.json"),
        "fuzz": {"targets": len(fuzz), "per_target": fuzz},
        "corpus": {"files": _corpus_files(root)},
        "crosshair": {"conditions": crosshair},
        "mutmut": _summary(build / "mutmut.json"),
        "mutmut_changed": _summary(build / "mutmut-changed.json"),
        "passed": passed,
        "failed": failed,
    }
    report_path.parent.mkdir(parents=True, exist_ok=True)
    report_path.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    history = {
        "finished": report["finished"],
        "mode": report["mode"],
        "seconds": seconds,
        "load_average": report["load_average"],
        "steps": {r.name: round(r.seconds, 1) for r in results},
        "failed": failed,
    }
    with (build / "verify-history.jsonl").open("a", encoding="utf-8") as trend:
        trend.write(json.dumps(history) + "\n")
    write_junit(results, build / "junit.xml", seconds)
    print(_table(results))
    for result in results:
        if result.status != "passed":
            print(_failure_report(result))
    print(f"report: {_relative(str(report_path), root)}  junit: build/junit.xml  total {seconds}s")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
