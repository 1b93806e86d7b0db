"""Reproducible next month: the development tools CI installs are pinned
(``constraints/dev.txt``) within what the project asks for, and contributors' hooks run
the same tools.

``scripts/constraints.py`` writes the file from an environment holding the ``dev`` extra;
``.ci/run`` and the README's test command install through it.
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import yaml
from packaging.requirements import Requirement

from harness.scratch import REPO, bounded

if str(REPO / "scripts") not in sys.path:
    sys.path.append(str(REPO / "scripts"))

import constraints
from _gate import versions

PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
PINS = constraints.read_pins(REPO / "constraints" / "dev.txt")


def test_every_dev_requirement_is_pinned_within_its_specifier() -> None:
    """Each dependency and dev requirement has an exact pin that its specifier allows."""
    for text in [*PROJECT["dependencies"], *PROJECT["optional-dependencies"]["dev"]]:
        requirement = Requirement(text)
        pin = PINS.get(constraints.canonical(requirement.name))
        assert pin is not None, f"{requirement.name} is not pinned in constraints/dev.txt"
        assert requirement.specifier.contains(pin, prereleases=True), (text, pin)


def test_the_pinned_private_api_tools_are_the_tested_series() -> None:
    """mutmut and Hypothesis, whose private API the harness uses, are pinned to the series
    scripts/_gate/versions.py was checked against."""
    for distribution in versions.PRIVATE_API:
        assert versions.require(distribution, PINS[distribution])


def test_ci_and_the_readme_install_through_the_constraints() -> None:
    """.ci/run runs exactly the README's test command, which installs through the pins."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    command = (
        "python3 -m venv .venv && . .venv/bin/activate && "
        "pip install -c constraints/dev.txt -e '.[dev]' && python scripts/verify.py"
    )
    assert command in readme
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert "pip install --quiet -c constraints/dev.txt -e '.[dev]'" in ci
    assert ci.rstrip().endswith("python scripts/verify.py")
    workflow = (REPO / ".github" / "workflows" / "ci.yml").read_text(encoding="utf-8")
    assert workflow.count("pip install -c constraints/dev.txt -e '.[dev]'") == 2


def test_the_writer_reads_back_what_it_writes(tmp_path: Path) -> None:
    path = tmp_path / "dev.txt"
    path.write_text(constraints.render({"ruff": "1.2.3", "pyyaml": "6.0.4"}), encoding="utf-8")
    assert constraints.read_pins(path) == {"ruff": "1.2.3", "pyyaml": "6.0.4"}
    assert path.read_text(encoding="utf-8").startswith("# ")


def test_the_contributor_hooks_run_ruff_and_mypy_of_the_pinned_environment() -> None:
    """``.pre-commit-config.yaml`` is valid for pre-commit and runs ruff (check and format)
    and mypy through the active interpreter, the versions the gate runs."""
    path = REPO / ".pre-commit-config.yaml"
    result = bounded([sys.executable, "-m", "pre_commit", "validate-config", str(path)])
    assert result.returncode == 0, result.stdout + result.stderr
    config = yaml.safe_load(path.read_text(encoding="utf-8"))
    hooks = {hook["id"]: hook for repo in config["repos"] for hook in repo["hooks"]}
    assert set(hooks) == {"ruff-check", "ruff-format", "mypy"}
    for hook in hooks.values():
        assert hook["entry"].startswith("python -m "), hook
        assert hook["language"] == "system", hook
    assert hooks["mypy"]["pass_filenames"] is False  # the whole project, as the gate checks it
