"""The symbolic step: the pure core's properties under the hypothesis-crosshair backend in
``--full``, each with its CPU budget (properties/symbolic_properties.py)."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

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
    assert step.env == {"HYPOTHESIS_PROFILE": "crosshair"}
    assert step.tool == "module:hypothesis_crosshair_provider"
    assert step.cpu_seconds == 60 + sum(symbolic_properties.budget(node) for node in ids)
    (crosshair,) = [
        s for s in build_steps(Plan(REPO, REPO / "build", full=True)) if s.name == "crosshair"
    ]
    assert "properties/crosshair_core.py" in crosshair.command


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
        assert all(0 < budget <= 300 for budget in names.values())


BURN = """
import time


def test_burns_cpu() -> None:
    end = time.process_time() + {seconds}
    while time.process_time() < end:
        pass
"""


def _run(tmp_path: Path, seconds: float, budget: float) -> subprocess.CompletedProcess[str]:
    """A test burning ``seconds`` of CPU under the crosshair profile, with ``budget``."""
    shutil.copy(REPO / "properties" / "conftest.py", tmp_path / "conftest.py")
    table = (REPO / "properties" / "symbolic_properties.py").read_text(encoding="utf-8")
    (tmp_path / "symbolic_properties.py").write_text(
        table.replace("DEFAULT_CPU = 60.0", f"DEFAULT_CPU = {budget}"), encoding="utf-8"
    )
    (tmp_path / "test_burn.py").write_text(BURN.format(seconds=seconds), encoding="utf-8")
    return run_bounded(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_burn.py"],
        cwd=tmp_path,
        env={
            "HYPOTHESIS_PROFILE": "crosshair",
            "PATH": "/usr/bin:/bin",
            "PYTHONPATH": str(REPO / "core"),
        },
        capture_output=True,
        text=True,
        cpu_seconds=600,  # a backstop for the harness test itself; the budget acts first
    )


def test_a_property_past_its_cpu_budget_is_stopped_and_fails(tmp_path: Path) -> None:
    stopped = _run(tmp_path, seconds=30, budget=1)
    assert stopped.returncode == 1, stopped.stdout
    assert "CPU budget 1s spent" in stopped.stdout


def test_control_a_property_within_its_cpu_budget_passes(tmp_path: Path) -> None:
    passed = _run(tmp_path, seconds=0.2, budget=20)
    assert passed.returncode == 0, passed.stdout
