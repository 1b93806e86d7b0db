"""The merge gate: every check the harness has, each with a deadline and a non-empty selection.

``python scripts/verify.py`` (quick, the CI default) runs lint and types
(ruff, ruff format, mypy strict, import-linter), the properties under the
``ci`` Hypothesis profile, the corpus replay, the injected-defect verifier, a
fuzz smoke run per target found in ``fuzz/`` and CrossHair. ``--full`` (the
build box) adds mutmut, 300 s of fuzzing per target and the ``nightly``
profile. Each step runs in a subprocess with a deadline; a step passes only
when it exits 0 *and* did a non-zero amount of work (tests, files, runs,
conditions). A missing tool is a failed step that names it, never a skip.

It prints one table, writes ``build/verify-report.json`` and ends with the
line ``N passed, N failed``; it exits non-zero when any step failed.
``--only NAME`` (repeatable) runs just the steps whose name contains NAME, and
fails when that selects none; ``--fuzz-seconds S`` sets the fuzzing time.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
# The Python source folders (not corpus/: its seeds are hostile bytes, not code to format).
SOURCES = ("core", "properties", "scripts", "fuzz")


@dataclass
class Step:
    """One gate step: a command, its deadline, and how to count the work it did."""

    name: str
    command: list[str]
    deadline: float
    count: Callable[[str], int]
    tool: str  # an executable on PATH or "module:<name>" importable by this Python
    env: dict[str, str] = field(default_factory=dict)
    detail: Callable[[str], dict[str, Any]] | None = None
    prepare: Callable[[], None] | None = None


@dataclass
class Result:
    name: str
    status: str
    seconds: float
    count: int
    note: str
    detail: dict[str, Any]


def _last_int(pattern: str, text: str) -> int:
    found = re.findall(pattern, text)
    return int(found[-1]) if found else 0


def _pytest_count(output: str) -> int:
    """Tests that ran, from pytest's summary line (passed + failed + errors)."""
    summary = [line for line in output.splitlines() if re.search(r"\d+ (passed|failed)", line)]
    if not summary:
        return 0
    line = summary[-1]
    return sum(int(n) for n in re.findall(r"(\d+) (?:passed|failed|error|errors)", line))


def _python_files(root: Path) -> int:
    """Python files under the linted folders: what ruff's "All checks passed" covered."""
    return sum(1 for folder in SOURCES for _ in (root / folder).rglob("*.py"))


def _mypy_count(output: str) -> int:
    return _last_int(r"in (\d+) source files?", output)


def _lint_imports_count(output: str) -> int:
    return _last_int(r"Contracts: (\d+) kept", output)


def _fuzz_detail(output: str) -> dict[str, Any]:
    runs = _last_int(r"Done (\d+) runs", output)
    rates = re.findall(r"exec/s: (\d+)", output)
    return {"runs": runs, "exec_per_second": int(rates[-1]) if rates else 0}


def _crosshair_count(output: str) -> int:
    # --report_all prints one line per postcondition analysed.
    return len([line for line in output.splitlines() if re.search(r":\d+: ", line)])


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


def run_step(step: Step, root: Path) -> Result:
    """Run one step; fail it on a missing tool, a deadline, a non-zero exit or zero work."""
    if _tool_missing(step.tool):
        return Result(step.name, "failed", 0.0, 0, f"missing tool: {step.tool}", {})
    started = time.monotonic()
    try:
        if step.prepare is not None:
            step.prepare()
        completed = subprocess.run(
            step.command,
            cwd=root,
            env=_environment(step.env, root),
            capture_output=True,
            text=True,
            errors="replace",
            timeout=step.deadline,
            check=False,
        )
    except subprocess.TimeoutExpired:
        seconds = time.monotonic() - started
        return Result(step.name, "failed", seconds, 0, f"deadline {step.deadline:.0f}s passed", {})
    seconds = time.monotonic() - started
    output = completed.stdout + completed.stderr
    count = step.count(output)
    detail = step.detail(output) if step.detail is not None else {}
    if completed.returncode != 0:
        tail = " | ".join(output.strip().splitlines()[-3:])[-300:]
        note = f"exit {completed.returncode}: {tail}"
        return Result(step.name, "failed", seconds, count, note, detail)
    if count <= 0:
        return Result(step.name, "failed", seconds, count, "selected nothing", detail)
    return Result(step.name, "passed", seconds, count, "", detail)


def _fuzz_targets(root: Path) -> list[str]:
    return sorted(path.stem for path in (root / "fuzz").glob("fuzz_*.py"))


def _corpus_files(root: Path) -> int:
    corpus = root / "corpus"
    if not corpus.is_dir():
        return 0
    ignored = {"README.md", "expected.json"}
    return sum(
        1
        for folder in corpus.iterdir()
        if folder.is_dir()
        for path in folder.iterdir()
        if path.is_file() and path.name not in ignored
    )


def build_steps(
    root: Path, *, full: bool, scratch: Path, fuzz_seconds: int | None = None
) -> list[Step]:
    """The gate's steps, in order; ``fuzz_seconds`` overrides the mode's fuzzing time."""
    python = sys.executable
    pytest = [python, "-m", "pytest", "-p", "no:cacheprovider", "-q"]
    steps = [
        Step(
            "ruff check",
            ["ruff", "check", "--no-cache", *SOURCES],
            120,
            lambda out: _python_files(root) if "All checks passed" in out else 0,
            "ruff",
        ),
        Step(
            "ruff format",
            ["ruff", "format", "--check", *SOURCES],
            120,
            lambda out: _last_int(r"(\d+) files? already formatted", out),
            "ruff",
        ),
        Step("mypy strict", ["mypy"], 300, _mypy_count, "mypy"),
        Step("import-linter", ["lint-imports"], 120, _lint_imports_count, "lint-imports"),
        Step(
            "properties (ci)",
            [*pytest, "properties"],
            600,
            _pytest_count,
            "module:hypothesis",
            env={"HYPOTHESIS_PROFILE": "ci"},
        ),
        Step(
            "corpus replay",
            [*pytest, "properties/test_corpus.py"],
            120,
            lambda out: _corpus_files(root) if _pytest_count(out) else 0,
            "module:pytest",
        ),
        Step(
            "injected defects",
            [python, "scripts/verify_mutants.py", "--json", str(scratch / "mutants.json")],
            480,
            lambda out: _last_int(r"(\d+) mutants?:", out),
            "module:pytest",
        ),
    ]
    if fuzz_seconds is None:
        fuzz_seconds = 300 if full else 15
    for target in _fuzz_targets(root):
        work = scratch / "fuzz" / target

        def prepare(target: str = target, work: Path = work) -> None:
            # Fuzz a copy: libFuzzer adds inputs to its corpus directory.
            shutil.rmtree(work, ignore_errors=True)
            source = root / "corpus" / target
            if source.is_dir():
                shutil.copytree(source, work)
            else:
                work.mkdir(parents=True)

        steps.append(
            Step(
                f"fuzz {target}",
                [
                    python,
                    f"fuzz/{target}.py",
                    str(work),
                    f"-max_total_time={fuzz_seconds}",
                    "-max_len=8192",
                    "-timeout=10",
                    f"-artifact_prefix={scratch}/{target}-",
                    "-print_final_stats=1",
                ],
                fuzz_seconds + 120,
                lambda out: _fuzz_detail(out)["runs"],
                "module:atheris",
                detail=_fuzz_detail,
                prepare=prepare,
            )
        )
    steps.append(
        Step(
            "crosshair",
            [
                "crosshair",
                "check",
                "--analysis_kind=PEP316",
                "--per_condition_timeout=12",
                "--report_all",
                "properties/crosshair_contracts.py",
            ],
            300,
            _crosshair_count,
            "crosshair",
        )
    )
    if full:
        steps.append(
            Step(
                "properties (nightly)",
                [*pytest, "properties"],
                7200,  # ~17x the ci step's two minutes, with room on a shared box
                _pytest_count,
                "module:hypothesis",
                env={"HYPOTHESIS_PROFILE": "nightly"},
            )
        )
        steps.append(
            Step(
                "mutmut",
                [python, "scripts/mutmut.py", "--json", str(scratch / "mutmut.json")],
                7200,  # the full run took about 80 minutes on two shared cores
                lambda out: _last_int(r"(\d+) mutants? in total", out),
                "module:mutmut",
            )
        )
    return steps


def _mutants_summary(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {"total": 0, "killed": 0, "survived": [], "rotten": [], "errors": []}
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _table(results: list[Result]) -> str:
    width = max([len(result.name) for result in results] + [4])
    lines = [f"{'step':<{width}}  {'status':<6}  {'seconds':>7}  {'count':>7}  note"]
    lines.append("-" * (width + 40))
    for result in results:
        lines.append(
            f"{result.name:<{width}}  {result.status:<6}  {result.seconds:>7.1f}  "
            f"{result.count:>7}  {result.note}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--full", action="store_true", help="build box: mutmut, long fuzzing")
    parser.add_argument("--root", type=Path, default=REPO, help="tree to verify")
    parser.add_argument("--only", action="append", default=[], help="run steps whose name has this")
    parser.add_argument("--report", type=Path, help="default: build/verify-report.json")
    parser.add_argument(
        "--fuzz-seconds", type=int, help="fuzzing time per target (default 15, --full 300)"
    )
    args = parser.parse_args(argv)
    if args.fuzz_seconds is not None and args.fuzz_seconds < 1:
        parser.error("--fuzz-seconds must be at least 1 (libFuzzer reads 0 as no limit)")
    root: Path = args.root.resolve()
    report_path: Path = args.report or root / "build" / "verify-report.json"
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="a13n-verify-") as scratch_name:
        scratch = Path(scratch_name)
        steps = build_steps(root, full=args.full, scratch=scratch, fuzz_seconds=args.fuzz_seconds)
        if args.only:
            steps = [step for step in steps if any(part in step.name for part in args.only)]
        results = []
        for step in steps:
            print(f"... {step.name}", file=sys.stderr, flush=True)
            results.append(run_step(step, root))
        mutants = _mutants_summary(scratch / "mutants.json")
        mutmut = _mutants_summary(scratch / "mutmut.json") if args.full else None
    if not results:
        results.append(Result("selection", "failed", 0.0, 0, "no step selected", {}))
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
        "seconds": round(time.monotonic() - started, 1),
        "steps": [
            {
                "name": r.name,
                "status": r.status,
                "seconds": round(r.seconds, 1),
                "count": r.count,
                "note": r.note,
            }
            for r in results
        ],
        "mutants": mutants,
        "fuzz": {"targets": len(fuzz), "per_target": fuzz},
        "corpus": {"files": _corpus_files(root)},
        "crosshair": {"conditions": crosshair},
        "mutmut": mutmut,
        "passed": passed,
        "failed": failed,
    }
    report_path.parent.mkdir(parents=True, exist_ok=True)
    report_path.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(_table(results))
    print(f"report: {report_path}  total {report['seconds']}s")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
