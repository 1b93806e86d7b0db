"""The mutation gate's run: mutmut 3 over the pure core in a scratch copy, judged and reported.

``run`` is what ``scripts/mutmut.py`` does (its docstring has the command line): copy the tree
(``prepare``), run mutmut's own CLI in-process with the gate's changes (``as_mutmut``),
recheck timeouts at a longer deadline, judge the statuses (``mutmut_mutants.judge``) and write
the summary, the Markdown table and the unlisted survivors.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from _gate import process
from _gate.mutmut_mutants import (
    EQUIVALENT,
    PACKAGE,
    equivalents,
    harness_errors,
    judge,
    message_mutants,
    module_file,
    module_of,
    mutant_changes,
    parse_results,
    prune_listings,
)
from _gate.mutmut_select import changes_since, selection_reaching
from _gate.report import write_json

REPO = Path(__file__).resolve().parents[2]
THRESHOLD = 0.97
# The modules mutated by default: the whole pure core.
# _checks and errors hold the shared validators, the reasons table and the location
# format that the other modules call: mutated with them. The value types are standard
# frozen dataclasses declared in these modules: their __post_init__ checks are mutated
# with the rest.
MODULES = (
    "encoder",
    "frontmatter",
    "catalog",
    "render",
    "manifest",
    "tokens",
    "_checks",
    "errors",
    # lint is a package, one concept per module: each is mutated and reported on its own.
    "lint._rules",
    "lint._text",
    "lint._nodes",
    "lint._fields",
    "lint._content",
    "lint._references",
    "lint._document",
    "activation",
)
# A fast selection that still holds every oracle of those modules.
TESTS = (
    "properties/test_encoder.py",
    "properties/test_frontmatter.py",
    "properties/test_catalog.py",
    "properties/test_render.py",
    "properties/test_manifest.py",
    "properties/test_corpus.py",
    "properties/test_tokens.py",
    "properties/test_checks.py",
    "properties/test_activation.py",
    "properties/test_lint_core.py",
    "properties/test_lint_scan.py",  # the body scan against a plain reading of its rules
    "properties/test_lint.py",  # check_document's field rules are tested there
    "properties/test_lint_once.py",  # the one parse the driver shares (DocumentParse.holds)
    "properties/test_lint_profiles.py",  # near_miss and the field checks' "did you mean"
    "properties/test_lint_precision.py",  # arrows, created-file lists, skills about skills
)


# Tests that read the core's source text (marked ``source_text``), which under mutmut holds
# every mutant's body (its "XX...XX" codes and reasons): they fail mutmut's clean run, and
# kill nothing there. A marker, not a list of names, so a new such test is covered too.
DESELECTED = ["-m", "not source_text"]


def _toml_list(items: list[str]) -> str:
    return "[" + ", ".join(json.dumps(item) for item in items) + "]"


# Examples per property in the Hypothesis profiles mutmut runs under (properties/conftest.py).
EXAMPLES = {"mutmut": 25, "mutmut-stats": 8}
# mutmut stops a mutant at this multiple of its tests' measured time in wall seconds (twice
# that in CPU seconds). A busy box stretches wall time, so a mutant stopped so is run once
# more at RECHECK_MULTIPLIER times the load per core (at least 1, RECHECK_CAP at most): only
# a real loop stays a timeout, and an idle box does not spend 8x budgets on the loops.
TIMEOUT_MULTIPLIER = 2.0
RECHECK_MULTIPLIER = 4.0
RECHECK_CAP = 16.0


# Each test of a mutant also has its own CPU budget (``CpuBudgets``): twice the timeout
# multiplier times its measured time plus this constant, in CPU seconds of the worker, so
# a mutant that makes a loop endless is stopped in about a second by the cheap test that
# reaches it instead of at the whole test set's budget (seconds per loop, twice with the
# recheck). CPU time does not stretch with the load, so this is no load artefact.
TEST_CONSTANT = 0.25
# The worker's exit status when a test overran its budget: mutmut's own "timeout" (a kill,
# rechecked at the longer multiplier like every timeout).
TEST_OVER_BUDGET = 36


def cpu_budget(duration: float | None, multiplier: float) -> float | None:
    """CPU seconds one test may take under a mutant (``None``: a test the stats did not time)."""
    if duration is None:
        return None
    return 2 * multiplier * (duration + TEST_CONSTANT)


def _over_budget(signum: int, frame: object) -> None:
    os._exit(TEST_OVER_BUDGET)  # the worker is a fork that only runs this mutant's tests


class CpuBudgets:
    """A pytest plugin: each test's call gets ``cpu_budget`` CPU seconds (``ITIMER_PROF``);
    past it the worker exits with ``TEST_OVER_BUDGET`` at once."""

    def __init__(self, durations: dict[str, float], multiplier: float) -> None:
        self.durations = durations
        self.multiplier = multiplier

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Iterator[None]:
        budget = cpu_budget(self.durations.get(item.nodeid), self.multiplier)
        if budget is None:
            return (yield)
        previous = signal.signal(signal.SIGPROF, _over_budget)
        signal.setitimer(signal.ITIMER_PROF, budget)
        try:
            return (yield)
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.signal(signal.SIGPROF, previous)


def recheck_multiplier(load: float, cores: int) -> float:
    """The recheck's timeout multiplier at a 1-minute load average of ``load`` on ``cores``."""
    return round(min(RECHECK_CAP, RECHECK_MULTIPLIER * max(1.0, load / max(1, cores))), 1)


# The first pass's wall budget follows the load at its start too (up to FIRST_CAP): on a busy
# box a survivor's whole test set outruns 2x its quiet time, and each such false timeout costs
# a recheck. Loops no longer need a short wall budget: the per-test CPU budgets stop them.
FIRST_CAP = 8.0


def first_multiplier(load: float, cores: int) -> float:
    """mutmut's timeout multiplier for the first pass at ``load`` on ``cores``."""
    return round(min(FIRST_CAP, TIMEOUT_MULTIPLIER * max(1.0, load / max(1, cores))), 1)


def rechecked_multiplier(first: float, load: float, cores: int) -> float:
    """The recheck's multiplier: load-following, and always above the first pass's (mutmut
    reruns its timeouts only when the setting changed)."""
    return max(recheck_multiplier(load, cores), min(RECHECK_CAP, 2 * first))


# The driver's instructions, written into the scratch copy by ``run``.
PLAN = "a13n-mutmut-plan.json"
# The CPU seconds of one mutmut command (the full run, recheck included, took 3,603 on two
# cores: docs/mutation.md, "The last complete run"); twice that is a run gone wrong.
MUTMUT_CPU = 7200


def prepare(
    scratch: Path,
    modules: list[str],
    tests: Iterable[str] = TESTS,
    multiplier: float = TIMEOUT_MULTIPLIER,
) -> None:
    """Copy the tree and write the mutmut configuration into the copy."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis")
    # mutmut puts mutants/src on sys.path (and keeps the original off it), so the
    # package goes under src/ in the copy rather than under core/.
    shutil.copytree(REPO / "core", scratch / "src", ignore=ignore)
    # examples, docs and scripts: test_lint.py lints the demo and compares docs/rules.md with
    # what scripts/rules_doc.py writes from RULES
    for name in ("properties", "fuzz", "examples", "docs", "scripts"):
        shutil.copytree(REPO / name, scratch / name, ignore=ignore)
    # A copy, not a link: mutmut copies it again when it reruns (the timeout recheck), and
    # the tree may have moved on by then (new seeds for newer code fail the old core).
    shutil.copytree(REPO / "corpus", scratch / "corpus")
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    pyproject = re.sub(r"(?ms)^\[tool\.mutmut\].*?(?=^\[|\Z)", "", pyproject)
    paths = [f"src/a13n_harness/context/{module_file(module)}" for module in modules]
    tests = [test for test in tests if (REPO / test).is_file()]
    pyproject += (
        "\n[tool.mutmut]\n"
        'source_paths = ["src"]\n'
        f"only_mutate = {_toml_list(paths)}\n"
        f"pytest_add_cli_args_test_selection = {_toml_list(tests)}\n"
        f"pytest_add_cli_args = {_toml_list(DESELECTED)}\n"
        'also_copy = ["fuzz", "corpus", "properties", "examples", "docs", "scripts"]\n'
        # A mutant that loops forever (a bisection that stops narrowing) is cut
        # off at 4x its tests' measured CPU time instead of mutmut's default 30x,
        # which held a worker for eight minutes per such mutant.
        f"timeout_multiplier = {multiplier}\n"
        # Each mutant runs in a fork of mutmut's own process ("fork"). Not the fork
        # server: in its workers, parametrised tests whose ids hold escapes went
        # missing (pytest exit 4), which mutmut records as a timeout, i.e. a kill.
        'process_isolation = "fork"\n'
    )
    (scratch / "pyproject.toml").write_text(pyproject, encoding="utf-8")


def as_mutmut(arguments: list[str], here: Path) -> None:
    """mutmut's own CLI, run in this process with the gate's changes (mutmut.py's docstring).

    Runs in the scratch copy; reads ``a13n-mutmut-plan.json`` there: ``skip`` (mutant
    names to mark skipped, for listed equivalents) and ``functions`` (when not
    empty, only mutants of these ``<module>.<mangled>`` names are run). ``here`` is
    mutmut.py's folder: first on sys.path when it runs as a script, and its name is mutmut's.
    """
    sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != here]
    import mutmut.__main__ as mutmut_main  # noqa: PLC0415 - only the driver process needs mutmut
    from mutmut.runners.harness import PytestRunner  # noqa: PLC0415
    from mutmut.state import state  # noqa: PLC0415
    from mutmut.utils.file_utils import change_cwd  # noqa: PLC0415

    plan: dict[str, Any] = json.loads(Path(PLAN).read_text(encoding="utf-8"))
    regular_run = PytestRunner._pytest_args_regular_run

    def cheapest_first(self: PytestRunner, tests: Iterable[str]) -> list[str]:
        durations = state().duration_by_test
        ordered = sorted(set(tests), key=lambda test: (durations.get(test, 0.0), test))
        return regular_run(self, ordered)

    PytestRunner._pytest_args_regular_run = cheapest_first  # type: ignore[method-assign]
    unbudgeted = PytestRunner.run_tests

    def run_tests(self: PytestRunner, *, mutant_name: str | None, tests: Iterable[str]) -> int:
        if mutant_name is None:  # the clean run and the forced failure: no budgets
            return unbudgeted(self, mutant_name=mutant_name, tests=tests)
        # CPU time does not stretch with the load: the budgets use the plan's multiplier
        # (2x, 4x at the recheck), not mutmut's load-following wall one.
        multiplier = plan.get("test_budget_multiplier", TIMEOUT_MULTIPLIER)
        budget = CpuBudgets(state().duration_by_test, multiplier)
        with change_cwd("mutants"):
            arguments = self._pytest_args_regular_run(tests)
            return int(self.execute_pytest(arguments, plugins=[budget]))

    PytestRunner.run_tests = run_tests  # type: ignore[method-assign]
    collect = mutmut_main.collect_source_file_mutation_data

    def planned(*, mutant_names: tuple[str, ...] | list[str]) -> Any:
        mutants, by_path = collect(mutant_names=mutant_names)
        modules = sorted({module_of(name) for _, name, _ in mutants})
        changes = mutant_changes(Path.cwd(), modules)
        messages = message_mutants(Path.cwd(), modules)
        known = equivalents()
        functions = set(plan.get("functions", []))
        kept = []
        for data, name, result in mutants:
            function, key, _ = changes.get(name, ("", "", []))
            if functions and name.rsplit("__mutmut_", 1)[0] not in functions:
                continue
            equivalent = name in messages or (function, key) in known
            if not plan.get("check_equivalents") and equivalent:
                data.exit_code_by_key[name] = 34  # mutmut's "skipped"
                data.save()
                continue
            if result == 34:
                # Skipped by an earlier run, no longer equivalent (a listing removed): run it.
                data.exit_code_by_key[name] = None
                data.save()
                result = None
            kept.append((data, name, result))
        return kept, by_path

    mutmut_main.collect_source_file_mutation_data = planned
    profile = plan.get("stats_profile", "mutmut")
    # The stats run (a fork that imports the tests afresh) only maps tests to the functions
    # they call. In the merge-gate form it runs on fewer examples, and its durations are
    # scaled back up to the mutant runs' profile, since mutmut's timeouts derive from them.
    # It is retried once when it fails: its timing properties (linear cost, no quadratic
    # locate) have failed on a box at load 9 and passed on the next run; a test that
    # fails twice still fails the run.
    make_runner = vars(mutmut_main)["get_mutant_runner"]

    def runner_with_stats_retried(*arguments: Any) -> Any:
        runner = make_runner(*arguments)
        collect_stats = runner.collect_stats

        def stats(tests: Iterable[str] | None) -> int:
            mutants_profile = os.environ.get("HYPOTHESIS_PROFILE", "mutmut")
            os.environ["HYPOTHESIS_PROFILE"] = profile
            try:
                exit_code: int = collect_stats(tests)
                if exit_code != 0:
                    print(f"stats run failed (exit {exit_code}); retrying once", flush=True)
                    exit_code = collect_stats(tests)
            finally:
                os.environ["HYPOTHESIS_PROFILE"] = mutants_profile
            scale = EXAMPLES.get(mutants_profile, 1) / EXAMPLES.get(profile, 1)
            durations = state().duration_by_test
            for test in durations:
                durations[test] *= scale
            return exit_code

        runner.collect_stats = stats
        return runner

    vars(mutmut_main)["get_mutant_runner"] = runner_with_stats_retried
    mutmut_main.cli(arguments)


def markdown_table(summary: dict[str, Any]) -> str:
    """The per-module results as the Markdown table docs/mutation.md keeps."""
    columns = ("mutants", "killed", "timeout", "message_only", "equivalent", "survived")
    lines = [
        "| module | mutants | killed | of which timeout | equivalent by rule "
        "| listed equivalent | survived | killed / non-equivalent |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    totals = dict.fromkeys(columns, 0)
    rows = sorted(summary["per_module"].items())
    for module, row in [*rows, ("**total**", totals)]:
        if module != "**total**":
            for column in columns:
                totals[column] += row[column]
        judged = row["killed"] + row["survived"]
        ratio = f"{row['killed'] / judged:.1%}" if judged else "n/a"
        cells = " | ".join(str(row[column]) for column in columns)
        lines.append(f"| {module} | {cells} | {ratio} |")
    return "\n".join(lines) + "\n"


@dataclass
class Mutmut:
    """mutmut's CLI in the scratch copy (through ``mutmut.py --as-mutmut``), its CPU time summed."""

    script: Path  # scripts/mutmut.py
    scratch: Path
    cpu_seconds: float = 0.0

    def __call__(self, *command: str) -> process.Finished:
        env = dict(os.environ)
        env["HYPOTHESIS_PROFILE"] = "mutmut"
        env.pop("PYTHONPATH", None)  # mutmut puts mutants/src on sys.path itself
        finished = process.run(
            [sys.executable, str(self.script), "--as-mutmut", *command],
            limits=process.Limits(MUTMUT_CPU),
            cwd=self.scratch,
            env=env,
        )
        self.cpu_seconds += finished.cpu_seconds
        return finished


def _mutate(
    mutmut: Mutmut,
    modules: list[str],
    tests: list[str],
    functions: set[str] | None,
    args: argparse.Namespace,
) -> tuple[int, str]:
    """Copy the tree, run mutmut, recheck its timeouts: mutmut's exit code and output tail."""
    scratch = mutmut.scratch
    cores = os.cpu_count() or 1
    first = first_multiplier(os.getloadavg()[0], cores)
    prepare(scratch, modules, tests, first)
    plan = {
        "functions": sorted(functions or ()),
        "check_equivalents": args.check_equivalents,
        # The merge-gate form maps tests to functions on fewer examples (see as_mutmut).
        "stats_profile": "mutmut-stats" if functions else "mutmut",
        "test_budget_multiplier": TIMEOUT_MULTIPLIER,
    }
    print(f"first pass at {first}x (wall), each test at {TIMEOUT_MULTIPLIER}x (CPU)", flush=True)
    (scratch / PLAN).write_text(json.dumps(plan), encoding="utf-8")
    # Named mutants (globs) also restrict mutmut's clean run to their functions' tests.
    names = [f"{function}__mutmut_*" for function in sorted(functions or ())]
    run = mutmut("run", "--max-children", str(args.max_children), *names)
    run_exit, run_output = run.exit_code, run.output[-6000:]
    results = parse_results(mutmut("results", "--all", "true").output)
    timeouts = sorted(name for name, status in results.items() if status == "timeout")
    if timeouts:
        # A changed timeout setting makes mutmut rerun exactly its timed-out mutants.
        multiplier = rechecked_multiplier(first, os.getloadavg()[0], cores)
        print(
            f"rechecking {len(timeouts)} timeouts at {multiplier}x, "
            f"each test at {RECHECK_MULTIPLIER}x (CPU)",
            flush=True,
        )
        config = (scratch / "pyproject.toml").read_text(encoding="utf-8")
        config = config.replace(
            f"timeout_multiplier = {first}", f"timeout_multiplier = {multiplier}"
        )
        (scratch / "pyproject.toml").write_text(config, encoding="utf-8")
        plan["test_budget_multiplier"] = RECHECK_MULTIPLIER
        (scratch / PLAN).write_text(json.dumps(plan), encoding="utf-8")
        again = timeouts if functions else []  # named mutants are always rerun
        recheck = mutmut("run", "--max-children", str(args.max_children), *again)
        run_output += recheck.output[-4000:]
    return run_exit, run_output


def statuses(
    mutmut: Mutmut, modules: list[str]
) -> tuple[str, dict[str, str], dict[str, tuple[str, str, list[str]]], set[str]]:
    """What a scratch copy holds: mutmut's listing, each mutant's status (a worker's exception
    is an unchecked "harness error"), each mutant's change and the mutants equivalent by rule."""
    listing = mutmut("results", "--all", "true").output
    changes = mutant_changes(mutmut.scratch, modules)
    messages = message_mutants(mutmut.scratch, modules)
    results = parse_results(listing)
    for name in harness_errors(mutmut.scratch):
        # mutmut reports a worker's exception (exit 255) as a timeout, i.e. a kill;
        # it means the tests never ran, so it is an unchecked mutant here.
        results[name] = "harness error"
    return listing, results, changes, messages


def named_functions(names: Iterable[str]) -> dict[str, list[str]]:
    """``--functions``: ``{module: mangled names}`` of ``module.function`` or
    ``module.Class.method`` (mutmut's mangling: ``x_function``, ``xǁClassǁmethod``)."""
    found: dict[str, list[str]] = {}
    for name in names:
        # The longest module that prefixes the name: ``lint._references._fence_at``.
        prefixes = [m for m in MODULES if name.startswith(m + ".")]
        module = max(prefixes, key=len) if prefixes else name.partition(".")[0]
        qualified = name.removeprefix(module + ".") if name.startswith(module + ".") else ""
        if module not in MODULES or not qualified or qualified.count(".") > 1:
            raise SystemExit(f"--functions: {name!r} is not module.function of {MODULES}")
        owner, _, method = qualified.rpartition(".")
        found.setdefault(module, []).append(f"xǁ{owner}ǁ{method}" if owner else f"x_{method}")
    return found


def _scope(
    changed_since: str | None, modules: list[str], named: list[str] | None = None
) -> tuple[set[str] | None, list[str]]:
    """``--changed-since``: the changed functions (empty when none) and the modules holding
    them; ``--functions``: the functions named; otherwise every function (``None``) of
    ``modules``."""
    if changed_since is None and not named:
        return None, modules
    changed = named_functions(named) if named else changes_since(str(changed_since), modules)
    functions = {
        f"{PACKAGE}.{module}.{name}" for module, names in changed.items() for name in names
    }
    for function in sorted(functions):
        print(f"changed: {function}")
    return functions, sorted(changed)


def _write_reports(
    args: argparse.Namespace,
    summary: dict[str, Any],
    changes: dict[str, tuple[str, str, list[str]]],
) -> None:
    """The JSON summary, the Markdown table and the unlisted survivors, where asked for."""
    if args.json is not None:
        write_json(args.json, summary)
    if args.table is not None:
        args.table.write_text(markdown_table(summary), encoding="utf-8")
    if args.explain is not None:
        blocks = []
        for name in summary["survived"]:
            function, key, changed_lines = changes.get(name, ("?", "?", []))
            shown = "".join(f"    {line}\n" for line in changed_lines)
            blocks.append(f"# {name}\n{function} {key} REASON\n{shown}")
        args.explain.write_text("\n".join(blocks), encoding="utf-8")


def run(args: argparse.Namespace, script: Path) -> int:
    """The gate (``scripts/mutmut.py``'s options in ``args``): 0 when it passes. ``script`` is
    mutmut.py, which runs mutmut's CLI (``--as-mutmut``) in the scratch copy."""
    started = time.monotonic()
    functions, modules = _scope(args.changed_since, list(args.modules), args.functions)
    if functions is not None and not functions:
        print(f"no function of the pure core changed since {args.changed_since}")
        return 0
    tests = list(TESTS)
    if functions is not None:
        tests = selection_reaching(modules, TESTS)
        print(f"tests reaching {', '.join(modules)}: {' '.join(tests)}")
    scratch = args.reuse or Path(tempfile.mkdtemp(prefix="a13n-mutmut-"))
    mutmut = Mutmut(script, scratch)
    run_exit: int | None = None
    run_output = ""
    try:
        if args.reuse is None:
            run_exit, run_output = _mutate(mutmut, modules, tests, functions, args)
        listing, results, changes, messages = statuses(mutmut, modules)
    finally:
        if not args.keep and args.reuse is None:
            shutil.rmtree(scratch, ignore_errors=True)
    known = equivalents()
    verdict = judge(results, changes, known, functions, messages)
    counts: dict[str, int] = {}
    for status in results.values():
        counts[status] = counts.get(status, 0) + 1
    survived: list[str] = verdict["survived"]
    unchecked: list[str] = verdict["unchecked"]
    # A listing that matches no surviving mutant is stale: the code changed, or a test
    # now kills what was thought equivalent. Reported, for pruning (full runs only).
    stale = sorted(
        f"{function} {key}" for function, key in known if (function, key) not in verdict["matched"]
    )
    if functions is not None or set(modules) != set(MODULES):
        stale = []
    ratio: float = verdict["kill_ratio"]
    summary: dict[str, Any] = {
        "total": verdict["total"],
        "killed": verdict["killed"],
        "message_only": verdict["message_only"],
        "equivalent": verdict["equivalent"],
        "survived": survived,
        "stale_listings": len(stale),
        "unchecked": len(unchecked),
        "by_status": counts,
        "per_module": verdict["per_module"],
        "kill_ratio": round(ratio, 4),
        "threshold": THRESHOLD,
        "modules": modules,
        "functions": sorted(functions) if functions is not None else None,
        "seconds": round(time.monotonic() - started, 1),
        "cpu_seconds": round(mutmut.cpu_seconds, 1),
        "run_exit": run_exit,
    }
    _write_reports(args, summary, changes)
    for name in survived:
        _, key, changed_lines = changes.get(name, ("?", "?", []))
        print(f"survived: {name} ({key}): {' | '.join(changed_lines)[:300]}")
    for entry in stale:
        print(f"stale listing: {entry}")
    if args.prune and stale:
        prune_listings(set(stale))
        print(f"pruned {len(stale)} stale listings from {EQUIVALENT.name}")
    for module, row in sorted(verdict["per_module"].items()):
        print(
            f"{module}: {row['mutants']} mutants, {row['killed']} killed "
            f"({row['timeout']} by timeout), {row['message_only']} equivalent by rule, "
            f"{row['equivalent']} listed equivalent, "
            f"{row['survived']} survived"
        )
    print(f"by status: {counts}")
    print(
        f"{verdict['total']} mutants in total: {verdict['killed']} killed, "
        f"{verdict['message_only']} equivalent by rule, {verdict['equivalent']} listed equivalent, "
        f"{len(survived)} survived; kill ratio {ratio:.1%} "
        f"(gate {THRESHOLD:.0%}) in {summary['seconds']}s ({summary['cpu_seconds']} CPU s)"
    )
    if not results or not verdict["total"]:
        print(run_output or listing[-4000:])
        return 1
    if unchecked:
        print(f"{len(unchecked)} mutants were never checked: the run is incomplete")
        print(run_output)
        return 1
    if functions is not None and survived:
        # The merge-gate form: every mutant of a changed function is killed or listed.
        return 1
    return 0 if ratio >= THRESHOLD else 1
