"""The symbolic step: the pure core's properties under the hypothesis-crosshair backend in
``--full``, each with its CPU budget (properties/symbolic_properties.py)."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness.scratch import REPO

if str(REPO / "scripts") not in sys.path:
    sys.path.append(str(REPO / "scripts"))

# scripts/ is on the path only from the lines above (E402 below).
from _gate.steps import Plan, build_steps

sys.path.insert(0, str(REPO / "properties"))
import symbolic_properties
from bounded import run_bounded

sys.path.remove(str(REPO / "properties"))


def test_the_symbolic_step_runs_in_full_only_with_its_properties_budgets() -> None:
    quick = [s.name for s in build_steps(Plan(REPO, REPO / "build"))]
    assert "symbolic properties" not in quick
    (step,) = [
        s
        for s in build_steps(Plan(REPO, REPO / "build", full=True))
        if s.name == "symbolic properties"
    ]
    ids = symbolic_properties.node_ids()
    assert set(ids) <= set(step.command)
    assert step.env["HYPOTHESIS_PROFILE"] == "crosshair"
    assert step.cores == 2
    assert "worksteal" in step.command
    assert step.tool == "module:hypothesis_crosshair_provider"
    assert step.cpu_seconds == 60 + sum(symbolic_properties.budget(node) for node in ids)
    (crosshair,) = [
        s for s in build_steps(Plan(REPO, REPO / "build", full=True)) if s.name == "crosshair core"
    ]
    assert "properties/crosshair_core.py" in crosshair.command
    assert "crosshair core" not in quick


def test_the_core_contracts_budgets_are_the_ones_crosshair_reads() -> None:
    """The full gate runs the core's contracts with no --per_condition_timeout (it would
    override their directives), and budgets the step from the same directives CrossHair
    reads: the module's 4 CPU s a condition, a costlier contract's own."""
    from crosshair.codeconfig import collect_options  # noqa: PLC0415 - an optional tool

    from _gate.steps import CORE_CONTRACTS, condition_budgets  # noqa: PLC0415

    sys.path.insert(0, str(REPO / "properties"))
    try:
        import crosshair_core  # noqa: PLC0415 - imports the core and CrossHair
    finally:
        sys.path.remove(str(REPO / "properties"))
    budgets = condition_budgets((REPO / CORE_CONTRACTS).read_text(encoding="utf-8"))
    assert len(budgets) > 25
    for name, (conditions, cpu) in budgets.items():
        assert conditions >= 1, name
        assert collect_options(getattr(crosshair_core, name)).per_condition_timeout == cpu, name
    assert budgets["manifest_contract"][1] > 4
    (step,) = [
        s for s in build_steps(Plan(REPO, REPO / "build", full=True)) if s.name == "crosshair core"
    ]
    assert not any(part.startswith("--per_condition_timeout") for part in step.command)
    work = sum(conditions * cpu for conditions, cpu in budgets.values())
    assert step.cpu_seconds == 60 + 3 * work


def test_every_symbolic_property_is_a_hypothesis_property_of_its_file() -> None:
    """The table cannot name a test that is gone or that samples nothing."""
    for path, names in symbolic_properties.PROPERTIES.items():
        tree = ast.parse((REPO / path).read_text(encoding="utf-8"))
        given = {
            node.name
            for node in tree.body
            if isinstance(node, ast.FunctionDef)
            and any("given" in ast.unparse(d) for d in node.decorator_list)
        }
        assert set(names) <= given, (path, set(names) - given)
        assert all(0 < budget <= 400 for budget in names.values())


BURN = """
import time


def test_burns_cpu() -> None:
    end = time.process_time() + {seconds}
    while time.process_time() < end:
        pass
"""


# A plugin writing, when pytest reports a test's call, the CPU timer's state then.
TIMER_AT_REPORT = """
import pathlib
import signal

import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_makereport(item, call):
    if call.when == "call":
        pathlib.Path("timer.txt").write_text(repr(signal.getitimer(signal.ITIMER_PROF)))
"""


def _run(
    tmp_path: Path, seconds: float, budget: float, *options: str
) -> subprocess.CompletedProcess[str]:
    """A test burning ``seconds`` of CPU under the crosshair profile, with ``budget``."""
    shutil.copy(REPO / "properties" / "conftest.py", tmp_path / "conftest.py")
    shutil.copy(REPO / "properties" / "crosshair_setup.py", tmp_path / "crosshair_setup.py")
    (tmp_path / "timer_at_report.py").write_text(TIMER_AT_REPORT, encoding="utf-8")
    table = (REPO / "properties" / "symbolic_properties.py").read_text(encoding="utf-8")
    (tmp_path / "symbolic_properties.py").write_text(
        table.replace("DEFAULT_CPU = 60.0", f"DEFAULT_CPU = {budget}"), encoding="utf-8"
    )
    (tmp_path / "test_burn.py").write_text(BURN.format(seconds=seconds), encoding="utf-8")
    return run_bounded(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *options, "test_burn.py"],
        cwd=tmp_path,
        env={
            "HYPOTHESIS_PROFILE": "crosshair",
            "PATH": "/usr/bin:/bin",
            "PYTHONPATH": f"{REPO / 'core'}:{tmp_path}",
        },
        capture_output=True,
        text=True,
        cpu_seconds=600,  # a backstop for the harness test itself; the budget acts first
    )


def test_a_property_past_its_cpu_budget_is_stopped_and_fails(tmp_path: Path) -> None:
    stopped = _run(tmp_path, seconds=30, budget=1)
    assert stopped.returncode == 1, stopped.stdout
    assert "CPU budget 1s spent" in stopped.stdout


@pytest.fixture(scope="module")
def within_budget(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, int]:
    """One run of a property well within its budget, the timer's state at the report kept
    (its folder, its output, its exit code): the two tests below read the same run, which
    costs about 2.5 CPU s (the crosshair profile's setup builds the core's tables)."""
    folder = tmp_path_factory.mktemp("within-budget")
    passed = _run(folder, 0.2, 20, "-p", "timer_at_report")
    return folder, passed.stdout, passed.returncode


def test_control_a_property_within_its_cpu_budget_passes(
    within_budget: tuple[Path, str, int],
) -> None:
    _, output, code = within_budget
    assert code == 0, output


def test_the_cpu_timer_is_off_while_pytest_reports_the_call(
    within_budget: tuple[Path, str, int],
) -> None:
    """A stop landing in pytest's own reporting (formatting a long CrossHair traceback can
    take CPU seconds) is an internal error, not the property's failure: the timer ends with
    the test's call."""
    folder, output, code = within_budget
    assert code == 0, output
    assert (folder / "timer.txt").read_text(encoding="utf-8") == "(0.0, 0.0)"


def test_the_cores_cached_tables_are_what_crosshair_is_given() -> None:
    """CrossHair runs a cached function again at every call, so the test setup gives it each
    argument-free cached table of the core as the value the core builds (the encoder's table
    of printable escaped code points among them: 3 CPU s a call when traced)."""
    import importlib  # noqa: PLC0415

    sys.path.insert(0, str(REPO / "properties"))
    try:
        import crosshair_setup  # noqa: PLC0415 - imports CrossHair
    finally:
        sys.path.remove(str(REPO / "properties"))
    tables = crosshair_setup.constant_tables()
    assert {"encoder.printable_escaped", "encoder._needs_encoding"} <= set(tables)
    for name, build in tables.items():
        module, attribute = name.split(".")
        cached = getattr(importlib.import_module(f"a13n_harness.context.{module}"), attribute)
        assert build is cached.__wrapped__
        assert build() == cached()
    registered = crosshair_setup.register_constant_tables()
    assert registered == crosshair_setup.register_constant_tables()  # once a process
    assert set(tables) <= set(registered)
