"""The quick gate's CrossHair step refutes a contract on a broken core, within its budget.

The step (``scripts/_gate/steps.py``, ``crosshair``) passes when CrossHair finds no
counterexample in each condition's CPU budget; that verdict means something only if the
budget reaches one on a real defect. Here the encoder stops escaping ``>`` in a scratch copy
of the package, and ``crosshair check`` with the step's own options must report
``encode_contract`` false (a counterexample) and exit non-zero. Before the contract had its
cheap necessary condition (no raw angle bracket), the expensive conditions alone
left this defect unrefuted in 4 CPU s a condition.
"""

from __future__ import annotations

import inspect
import os
import shutil
import sys
from pathlib import Path

import pytest

from harness.scratch import REPO, bounded

sys.path.insert(0, str(REPO / "properties"))
from _gate.steps import CONTRACTS, QUICK_OPTIONS

ESCAPE = '.replace(">", "&gt;")'
# CPU s: CrossHair's start, and the contract's conditions at the step's budget each.
CROSSHAIR_CPU = 120


def broken_core(tmp_path: Path) -> Path:
    """A copy of ``core/`` whose encoder leaves ``>`` raw (every path through it)."""
    copy = tmp_path / "core"
    shutil.copytree(REPO / "core", copy, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    encoder = copy / "a13n_harness" / "context" / "encoder.py"
    source = encoder.read_text(encoding="utf-8")
    assert source.count(ESCAPE) == 1, "the encoder's escape of > moved: re-anchor this test"
    encoder.write_text(source.replace(ESCAPE, ""), encoding="utf-8")
    return copy


@pytest.mark.environment  # CrossHair's search run for real (17 CPU s): --full runs it
def test_the_crosshair_step_refutes_the_encoder_leaving_a_bracket_raw(tmp_path: Path) -> None:
    pytest.importorskip("crosshair")
    # Here, not at collection: the contracts import CrossHair (and z3), which every
    # pytest-xdist worker would import for this one test of --full.
    from crosshair_contracts import encode_contract  # noqa: PLC0415

    core = broken_core(tmp_path)
    line = inspect.getsourcelines(encode_contract)[1]
    environment = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(core), str(REPO / "properties")]),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    done = bounded(
        [
            sys.executable,
            "-m",
            "crosshair",
            "check",
            "--analysis_kind=PEP316",
            *QUICK_OPTIONS,
            "--report_all",
            f"{CONTRACTS}:{line}",
        ],
        cwd=REPO,
        env=environment,
        cpu_seconds=CROSSHAIR_CPU,
    )
    assert done.returncode != 0, done.stdout + done.stderr
    assert "error: false when calling encode_contract(" in done.stdout, done.stdout
