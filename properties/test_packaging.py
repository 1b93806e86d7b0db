"""What a user installs: the version in one place, ``python -m a13n_harness``, a fast start.

The start-up ratios themselves are measured by ``scripts/bench.py`` (section ``cli``);
here the cause is pinned: ``--version`` imports none of the modules that made it slow.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import io
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


def test_the_shared_defaults_are_written_once() -> None:
    """The command line, the run bindings, the facts collector and the manifest codec take
    their defaults from ``context.defaults`` (the same objects), and the command line's help
    and parser show those values rather than restating them."""
    from a13n_harness.capabilities import bindings  # noqa: PLC0415
    from a13n_harness.cli import build_parser  # noqa: PLC0415
    from a13n_harness.context import defaults, manifest  # noqa: PLC0415
    from a13n_harness.context.render import catalog_allowance  # noqa: PLC0415
    from a13n_harness.environment import facts  # noqa: PLC0415

    assert bindings.DEFAULT_CONTEXT_TOKENS is defaults.DEFAULT_CONTEXT_TOKENS
    assert bindings.DEFAULT_RESPONSE_RESERVE_TOKENS is defaults.DEFAULT_RESPONSE_RESERVE_TOKENS
    assert facts.GIT_TIMEOUT_SECONDS is defaults.GIT_TIMEOUT_SECONDS
    assert manifest.MAX_MANIFEST_BYTES is defaults.MAX_MANIFEST_BYTES
    parser = build_parser()
    assert parser.parse_args(["env"]).git_timeout is defaults.GIT_TIMEOUT_SECONDS
    assert parser.parse_args(["manifest"]).git_timeout is defaults.GIT_TIMEOUT_SECONDS
    shown = io.StringIO()
    with contextlib.redirect_stdout(shown), pytest.raises(SystemExit):
        parser.parse_args(["catalog", "--help"])
    help_text = shown.getvalue()
    budget = catalog_allowance(
        defaults.DEFAULT_CONTEXT_TOKENS, defaults.DEFAULT_RESPONSE_RESERVE_TOKENS
    )
    assert f"= {budget}" in " ".join(help_text.split())
    source = (CORE / "a13n_harness" / "cli" / "__init__.py").read_text(encoding="utf-8")
    code = source.split('"""', 2)[2]  # after the module docstring
    for restated in ("5.0", "200_000", "16_000", "9200", "1048576", "1_048_576"):
        assert restated not in code, restated
