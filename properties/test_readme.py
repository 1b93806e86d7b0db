"""Every Python block of README.md runs, from the repository root, against the demo workspace.

So the API tour cannot rot: a renamed function, a changed default or a snippet that never
calls its ``main()`` fails here. The README's claims about defaults are checked too.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from a13n_harness.capabilities import FileSkillSource, SkillManager, SkillsPolicy
from a13n_harness.context.errors import FrontmatterError
from a13n_harness.environment import LocalFileOperator
from bounded import run_bounded
from cli_run import CORE

REPO = Path(__file__).resolve().parent.parent
README = (REPO / "README.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"^```python\n(.*?)^```$", README, re.DOTALL | re.MULTILINE)


def run_block(code: str) -> subprocess.CompletedProcess[str]:
    return run_bounded(
        [sys.executable, "-c", code],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(CORE)},
        capture_output=True,
        text=True,
        cpu_seconds=120,
    )


def test_the_readme_has_python_blocks() -> None:
    assert len(BLOCKS) >= 3


@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_readme_python_block_runs(code: str) -> None:
    result = run_block(code)
    assert (result.returncode, result.stderr) == (0, ""), result.stderr
    assert result.stdout, "every block prints what it shows"


def test_negative_control_a_block_that_raises_fails() -> None:
    result = run_block('raise SystemExit("the tour rotted")')
    assert result.returncode != 0


def test_the_library_default_refuses_the_demo_and_the_readme_says_so() -> None:
    """README: the library defaults to invalid="error", the CLI to skip."""
    source = FileSkillSource("demo", ("/.agents/skills",), required=False)
    files = LocalFileOperator(REPO / "examples" / "demo-workspace")
    with pytest.raises(FrontmatterError):
        asyncio.run(SkillManager((source,)).scan(files=files))
    skipped = asyncio.run(
        SkillManager((source,), policy=SkillsPolicy(invalid="skip")).scan(files=files)
    )
    assert skipped
    assert '`invalid="error"`' in README
    assert "`--invalid skip`" in README
