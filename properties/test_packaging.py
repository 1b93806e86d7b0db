"""What a user installs: the version in one place, ``python -m a13n_harness``, a fast start.

The start-up ratios themselves are measured by ``scripts/bench.py`` (section ``cli``);
here the cause is pinned: ``--version`` imports none of the modules that made it slow.
"""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys
from pathlib import Path

import pytest

import a13n_harness
import cli_run
from a13n_harness._version import __version__

REPO = Path(__file__).resolve().parent.parent
CORE = cli_run.CORE  # the package under test: the tree's core/ or the installed wheel

_SLOW_MODULES = ("argparse", "asyncio", "yaml", "json", "importlib.metadata")
"""What ``a13n-skills --version`` once imported: each costs a large part of a bare start.
(``typing`` is in: ``TYPE_CHECKING`` comes from it, within the bound of docs/decisions.md.)"""


def _python(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args],
        env={**os.environ, "PYTHONPATH": str(CORE)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_version_is_written_once_and_matches_the_metadata() -> None:
    assert a13n_harness.__version__ == __version__
    try:
        installed = importlib.metadata.version("a13n-harness-skills")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("the distribution is not installed (tests run from the source tree)")
    assert installed == __version__
    assert (
        "version ="
        not in (REPO / "pyproject.toml").read_text().split("[project]")[1].split("[project.")[0]
    )


@pytest.mark.parametrize("module", ["a13n_harness", "a13n_harness.cli"])
def test_python_dash_m_runs_the_command(module: str) -> None:
    result = _python("-m", module, "--version")
    assert (result.returncode, result.stdout, result.stderr) == (
        0,
        f"a13n-skills {__version__}\n",
        "",
    )


def test_version_imports_nothing_slow() -> None:
    probe = (
        "import sys\n"
        "from a13n_harness.cli import main\n"
        "assert main(['--version']) == 0\n"
        f"print(sorted(name for name in {_SLOW_MODULES!r} if name in sys.modules))\n"
    )
    result = _python("-c", probe)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [f"a13n-skills {__version__}", "[]"]


_NOT_FOR_CATALOG = (
    "a13n_harness.cli._lint",
    "a13n_harness.environment.facts",
    "a13n_harness.context.manifest",
    "a13n_harness.context.facts",
    "a13n_harness.context.tokens",
    "a13n_harness.capabilities.bindings",
    "a13n_harness.capabilities.skills",
    "a13n_harness.environment.memory",
)
"""What ``catalog`` has no use for: lint, git and facts, manifests, tokenizers, run bindings."""


def test_catalog_does_not_import_lint_manifest_or_git() -> None:
    probe = (
        "import sys, contextlib, io\n"
        "from a13n_harness.cli import main\n"
        "with contextlib.redirect_stderr(io.StringIO()):\n"
        f"    main(['catalog', {str(REPO / 'examples' / 'demo-workspace')!r}])\n"
        f"names = {_NOT_FOR_CATALOG!r}\n"
        "print(sorted(name for name in names if name in sys.modules))\n"
    )
    result = _python("-c", probe)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "[]"
