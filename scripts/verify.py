"""The merge gate: every check the harness has, each with a CPU budget, kept evidence and a count.

``python scripts/verify.py`` (quick, the CI default) runs lint and types
(ruff, ruff format, mypy strict, import-linter, the GitHub workflow schema),
the properties under the ``ci`` Hypothesis profile, the corpus replay, the
injected-defect verifier, a fuzz smoke run per target found in ``fuzz/`` (2 s
each), the local ClusterFuzzLite build (build.sh run whole, one representative
target packaged by PyInstaller and run over its seed archive) and CrossHair.
``--full`` (the build box) adds mutmut, 300 s of fuzzing per target, every
target packaged and the ``nightly`` profile. ``--changed-since REF`` adds
mutmut over the functions changed between REF and HEAD.

``--target wheel`` (the default when ``CI`` is set, as in ``.ci/run`` and GitHub Actions)
runs the properties and the corpus replay against the built wheel installed into a fresh
environment (``scripts/wheel_env.py``, a step between the static steps and the checks), as
users get it; ``--target source`` (the local default) against the tree's ``core/``.

Each step runs in a subprocess with a budget of CPU seconds for its whole
process tree (``_gate/process.py``): a busy machine slows a step down but never
fails it; the one wall-clock limit is a backstop for a step that makes no
progress at all (its tree's CPU time grows by under one second in five
minutes). A step passes only when it exits 0 *and* did a non-zero amount of
work (tests, files, runs, conditions). A missing tool is a failed step that
names it, never a skip; every tool is run through the interpreter the gate runs
under (``python -m ruff``, or the console script in its bin folder), never
found on PATH. Steps run two at a time (``--jobs``); the properties are one
pytest-xdist run over ``--jobs`` workers (work stealing), the corpus replay a
step of its own.

Fail fast: the static steps (ruff check, ruff format, the workflow schema,
import-linter, mypy) run first, the quickest first; once one fails nothing more
starts, the gate prints its evidence and the steps it did not start as
``not run``, and exits 1, in seconds instead of minutes. ``--keep-going`` runs
every step whatever fails. The checks after them start the longest first.

Evidence: each step's whole output goes to ``build/logs/<step>.log``; a failed
step prints its last lines and the exact command that reruns it alone.
``build/junit.xml`` holds one test case per step (the properties and corpus
steps also keep pytest's own JUnit files beside their logs; the defect verifier
keeps the log of each defect not killed in ``build/logs/mutants/``). Fuzzing writes new
coverage to ``build/fuzz-corpus/<target>/`` and crash, timeout and
out-of-memory inputs to ``build/fuzz-artifacts/<target>/``; each new artifact
fails its step and is printed with the command that replays it.

It prints one line as each step starts and ends, then one table; writes
``build/verify-report.json`` (per-step wall and CPU seconds) and appends one
line (per-step wall and CPU seconds, the load average) to
``build/verify-history.jsonl``; ends with the line ``N passed, N failed``
(``, N not run`` when the static steps ended the gate) and exits non-zero when
any step failed. ``--only NAME`` (repeatable) runs just
the steps whose name contains NAME and fails when that selects none; its report,
JUnit file and logs go to ``build/only/``, so the last whole run's are kept.

The steps are registered in ``scripts/_gate/steps.py``; the runner, the JUnit reader and
the report writers are in ``scripts/_gate/`` too.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from _gate.gate import PREPARE, Result, failure_report, relative, run_steps
from _gate.report import Case, read_json, table, write_json, write_junit
from _gate.steps import Plan, build_steps, corpus_files

REPO = Path(__file__).resolve().parent.parent


def write_gate_junit(results: list[Result], path: Path, seconds: float) -> None:
    """One JUnit test case per gate step, with the failure's tail, problems and rerun command;
    a step not run is a skipped case."""
    cases = [
        Case(
            result.name,
            result.seconds,
            result.note if result.status == "failed" else "",
            failure_report(result) if result.status == "failed" else "",
            f"log: {result.log}\nrerun: {result.rerun}\ncount: {result.count}\n",
            skipped=result.note if result.status == "not run" else "",
        )
        for result in results
    ]
    write_junit(path, "verify", cases, seconds)


def default_target() -> str:
    """``wheel`` on a CI system (``CI`` set to true, as GitHub Actions and ``.ci/run`` do),
    else ``source``: CI tests what users install, local work the tree being edited."""
    return "wheel" if os.environ.get("CI", "").lower() in {"true", "1"} else "source"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--full", action="store_true", help="build box: mutmut, long fuzzing")
    parser.add_argument("--root", type=Path, default=REPO, help="tree to verify")
    parser.add_argument("--only", action="append", default=[], help="run steps whose name has this")
    parser.add_argument("--report", type=Path, help="default: build/verify-report.json")
    parser.add_argument(
        "--fuzz-seconds", type=int, help="fuzzing time per target (default 2, --full 300)"
    )
    parser.add_argument("--jobs", type=int, default=2, help="steps run at once (default 2)")
    parser.add_argument(
        "--changed-since", metavar="REF", help="add mutmut over the functions changed since REF"
    )
    parser.add_argument(
        "--target",
        choices=("source", "wheel"),
        default=default_target(),
        help="what the properties import: the tree's core/ (default), or the built wheel in a "
        "fresh environment (default when CI is set, as .ci/run and GitHub Actions set it)",
    )
    parser.add_argument(
        "--keep-going",
        action="store_true",
        help="run every step even when a static step fails (default: the gate ends there)",
    )
    args = parser.parse_args(argv)
    if args.fuzz_seconds is not None and args.fuzz_seconds < 1:
        parser.error("--fuzz-seconds must be at least 1 (libFuzzer reads 0 as no limit)")
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    root: Path = args.root.resolve()
    build = root / "build"
    # An --only run keeps the last whole run's report, JUnit file and logs: its own go beside.
    reports = build / "only" if args.only else build
    plan = Plan(
        root,
        build,
        args.full,
        args.fuzz_seconds,
        args.changed_since,
        args.target,
        args.jobs,
        reports,
    )
    logs = plan.logs
    logs.mkdir(parents=True, exist_ok=True)
    report_path: Path = args.report or reports / "verify-report.json"
    started = time.monotonic()
    steps = build_steps(plan)
    if args.only:
        chosen = [step for step in steps if any(part in step.name for part in args.only)]
        if any(not step.source_tree for step in chosen):  # they need the wheel environment
            chosen = [s for s in steps if s.stage == PREPARE and s not in chosen] + chosen
        steps = chosen
    for stale in (
        reports / "mutants.json",
        reports / "mutmut.json",
        reports / "mutmut-changed.json",
    ):
        stale.unlink(missing_ok=True)
    results = run_steps(steps, root, logs, args.jobs, args.keep_going)
    if not results:
        results.append(Result("selection", "failed", 0.0, 0, "no step selected", {}))
    seconds = round(time.monotonic() - started, 1)
    fuzz = {
        result.name.removeprefix("fuzz "): result.detail
        for result in results
        if result.name.startswith("fuzz ")
    }
    crosshair = sum(r.count for r in results if r.name in ("crosshair", "crosshair core"))
    passed = sum(result.status == "passed" for result in results)
    skipped = sum(result.status == "not run" for result in results)
    failed = len(results) - passed - skipped
    report = {
        "mode": ("full" if args.full else "quick") + (" --only" if args.only else ""),
        "only": args.only,
        "target": args.target,
        "finished": datetime.now(UTC).isoformat(timespec="seconds"),
        "seconds": seconds,
        "cpu_seconds": round(sum(r.cpu_seconds for r in results), 1),
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
        "mutants": read_json(reports / "mutants.json"),
        "fuzz": {"targets": len(fuzz), "per_target": fuzz},
        "corpus": {"files": corpus_files(root)},
        "crosshair": {"conditions": crosshair},
        "mutmut": read_json(reports / "mutmut.json"),
        "mutmut_changed": read_json(reports / "mutmut-changed.json"),
        "passed": passed,
        "failed": failed,
        "not_run": skipped,
    }
    write_json(report_path, report)
    history = {
        "finished": report["finished"],
        "mode": report["mode"],
        "seconds": seconds,
        "load_average": report["load_average"],
        "steps": {r.name: round(r.seconds, 1) for r in results},
        "cpu_seconds": report["cpu_seconds"],
        "cpu_steps": {r.name: round(r.cpu_seconds, 1) for r in results},
        "failed": failed,
    }
    with (build / "verify-history.jsonl").open("a", encoding="utf-8") as trend:
        trend.write(json.dumps(history) + "\n")
    junit = reports / "junit.xml"
    write_gate_junit(results, junit, seconds)
    print(
        table(
            ("step", "status", "seconds", "cpu s", "count", "note"),
            [
                (r.name, r.status, f"{r.seconds:.1f}", f"{r.cpu_seconds:.1f}", r.count, r.note)
                for r in results
            ],
            numeric=3,
        )
    )
    for result in results:
        if result.status == "failed":
            print(failure_report(result))
    if skipped:
        print(f"{skipped} steps not run: an earlier step failed (--keep-going runs every step)")
    shown = [relative(str(path), root) for path in (report_path, junit)]
    print(f"report: {shown[0]}  junit: {shown[1]}  total {seconds}s")
    print(f"{passed} passed, {failed} failed" + (f", {skipped} not run" if skipped else ""))
    return 1 if failed or skipped else 0


if __name__ == "__main__":
    sys.exit(main())
