"""The pre-commit hook, run by the real ``pre-commit`` (docs/contract.md §8: pre-commit
passes file names).

A temporary git repository holds a snapshot of this checkout (what ``pip install``
needs: ``pyproject.toml``, ``README.md``, ``LICENSE``, ``core/`` and
``.pre-commit-hooks.yaml``, uncommitted changes included) and serves as the hook
repository of a second temporary repository holding skills. pre-commit builds its own
environment with ``language: python`` (this package and PyYAML, from the configured
package index; nothing else is fetched) once, passes the staged ``SKILL.md`` files, and
the hook fails on a broken skill and passes on a good one.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from bounded import run_bounded

REPO = Path(__file__).resolve().parent.parent


def test_hook_definition_passes_skill_md_file_names() -> None:
    (hook,) = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "a13n-skills-lint"
    assert hook["entry"] == "a13n-skills lint"
    assert hook["language"] == "python"
    assert hook.get("pass_filenames", True) is True
    assert hook["files"] == r"(^|/)SKILL\.md$"


def _git(repo: Path, *args: str) -> None:
    run_bounded(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
        cwd=repo,
        check=True,
        capture_output=True,
        cpu_seconds=60,
    )


def _hook_repository(target: Path) -> str:
    """A git repository holding what installs this package; returns its commit."""
    for name in ("pyproject.toml", "README.md", "LICENSE", ".pre-commit-hooks.yaml"):
        target.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, target / name)
    shutil.copytree(
        REPO / "core", target / "core", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info")
    )
    _git(target, "init", "-q")
    _git(target, "add", "-A")
    _git(target, "commit", "-q", "-m", "snapshot")
    head = run_bounded(
        ["git", "rev-parse", "HEAD"],
        cpu_seconds=60,
        cwd=target,
        capture_output=True,
        text=True,
        check=True,
    )
    return head.stdout.strip()


def _pre_commit(repo: Path, home: Path, *files: str) -> subprocess.CompletedProcess[str]:
    environment = {
        **os.environ,
        "PRE_COMMIT_HOME": str(home),
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    # pre-commit's own environment must not inherit this interpreter's virtualenv.
    environment.pop("VIRTUAL_ENV", None)
    return run_bounded(
        [
            sys.executable,
            "-m",
            "pre_commit",
            "run",
            "a13n-skills-lint",
            "--verbose",
            "--files",
            *files,
        ],
        cwd=repo,
        env=environment,
        capture_output=True,
        text=True,
        cpu_seconds=600,
    )


@pytest.mark.environment  # pre-commit's own install and run; the hook definition is pinned above
@pytest.mark.skipif(shutil.which("git") is None, reason="pre-commit needs git")
def test_real_pre_commit_fails_on_a_broken_skill_and_passes_on_a_good_one(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    home = tmp_path / "pre-commit-home"
    good = repo / "skills" / "good"
    bad = repo / "skills" / "bad"
    good.mkdir(parents=True)
    bad.mkdir(parents=True)
    (good / "SKILL.md").write_text("---\nname: good\ndescription: Does a thing.\n---\n# Good\n")
    (bad / "SKILL.md").write_text("---\nname: Bad\ndescription: Does a thing.\n---\n# Bad\n")
    (repo / "README.md").write_text("not a skill\n")
    hooks = tmp_path / "hooks"
    revision = _hook_repository(hooks)
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {hooks}\n    rev: {revision}\n    hooks:\n"
        "      - id: a13n-skills-lint\n"
    )
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")

    passed = _pre_commit(repo, home, "skills/good/SKILL.md", "README.md")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "0 errors, 0 warnings in 1 skill" in passed.stdout

    failed = _pre_commit(repo, home, "skills/good/SKILL.md", "skills/bad/SKILL.md")
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "skills/bad/SKILL.md:2:7: error: skill_name_invalid: " in failed.stdout
    assert "in 2 skills" in failed.stdout
