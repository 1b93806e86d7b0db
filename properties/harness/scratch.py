"""A scratch tree for the harness's own tests, and the harness's scripts run against it.

The fixtures ``tree`` and ``bare`` (``conftest.py``) build one in a temporary directory;
tests plant a broken piece in it, run the real replay, defect verifier or gate there as a
subprocess (``PYTHONPATH`` the tree's ``core/``, the ``ci`` Hypothesis profile) and read
what it printed and kept (``build/``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
SCRIPTS = REPO / "scripts"
if str(SCRIPTS) not in sys.path:
    sys.path.append(str(SCRIPTS))  # the gate's package, _gate

from _gate import process  # noqa: E402 - found through the path set just above

# The CPU seconds a harness script run by a test may use (its whole process tree): the
# largest, a gate over a scratch tree, takes about 20. Never wall time: a busy machine
# slows these runs down, and a test must not fail for it.
SCRIPT_CPU = 300


def bounded(
    command: Sequence[str],
    *,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    cpu_seconds: float = SCRIPT_CPU,
) -> subprocess.CompletedProcess[str]:
    """``command`` run to its end under a CPU budget (``_gate.process``), its output and its
    error stream kept apart; a run the budget or the progress backstop stopped fails the
    calling test with what it printed."""
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errors:
        finished = process.run(
            command, limits=process.Limits(cpu_seconds), cwd=cwd, env=env, stderr=errors
        )
        errors.seek(0)
        stderr = errors.read()
    assert not finished.stopped, f"{command} stopped ({finished.stopped}):\n{finished.output}"
    assert not finished.error, finished.error
    return subprocess.CompletedProcess(list(command), finished.exit_code, finished.output, stderr)


# The seed of the minimal tree's one healthy target.
SEED = b"---\nname: a\ndescription: d\n---\n"
# What fuzz_frontmatter.py needs beside it: plumbing, seed reader, docs, options, dictionary.
FUZZ_HELPERS = (
    "_target.py",
    "runner.py",
    "seeds.py",
    "README.md",
    "fuzz_frontmatter.options",
    "fuzz_frontmatter.dict",
)


@dataclass(frozen=True)
class Scratch:
    """A tree under a temporary directory, and the harness's scripts run against it."""

    root: Path

    def run(
        self, *command: str, env: dict[str, str] | None = None, cpu_seconds: float = SCRIPT_CPU
    ) -> subprocess.CompletedProcess[str]:
        """``python *command`` in the tree, its ``core/`` first on the path, under a CPU
        budget (``bounded``)."""
        environment = dict(os.environ)
        environment.pop("PYTEST_ADDOPTS", None)  # the outer run's options are not the tree's
        environment.pop("CI", None)  # a gate over the tree tests its core/, not a wheel
        environment["PYTHONPATH"] = str(self.root / "core")
        environment["A13N_HARNESS_ROOT"] = str(self.root)
        environment["HYPOTHESIS_PROFILE"] = "ci"
        environment.update(env or {})
        return bounded(
            [sys.executable, *command], cwd=self.root, env=environment, cpu_seconds=cpu_seconds
        )

    def pytest(self, *arguments: str) -> subprocess.CompletedProcess[str]:
        """pytest in the tree (its own root directory)."""
        return self.run(
            "-m", "pytest", "-p", "no:cacheprovider", "-q", *arguments, "--rootdir", str(self.root)
        )

    def replay(self) -> subprocess.CompletedProcess[str]:
        """The corpus replay of the tree."""
        return self.pytest("properties/test_corpus.py")

    def gate(
        self, *arguments: str, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        """``scripts/verify.py`` (the repository's) over the tree."""
        return self.run(str(SCRIPTS / "verify.py"), "--root", str(self.root), *arguments, env=env)

    def verify_mutants(
        self, *arguments: str, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        """``scripts/verify_mutants.py`` (the repository's) over the tree."""
        script = str(SCRIPTS / "verify_mutants.py")
        return self.run(script, "--root", str(self.root), *arguments, env=env)

    def mutant(
        self,
        find: str,
        replace: str,
        selection: list[str],
        *,
        cpu_seconds: int = 60,
        name: str = "900_control",
    ) -> None:
        """A mutant file of the encoder in the tree's ``mutants/``."""
        (self.root / "mutants").mkdir(exist_ok=True)
        (self.root / "mutants" / f"{name}.toml").write_text(
            'file = "core/a13n_harness/context/encoder.py"\n'
            f"find = {json.dumps(find)}\n"
            f"replace = {json.dumps(replace)}\n"
            f"selection = {json.dumps(selection)}\n"
            'class = "control"\nwhy = "negative control"\n'
            f"cpu_seconds = {cpu_seconds}\n",
            encoding="utf-8",
        )

    def build(self, name: str, *, only: bool = False) -> Path:
        """A file the gate kept under the tree's ``build/`` (``build/only/`` for what an
        ``--only`` run kept: its report, JUnit file and logs)."""
        return self.root / "build" / ("only" if only else "") / name

    def report(self, *, only: bool = False) -> dict[str, Any]:
        """The gate's ``build/verify-report.json`` (an ``--only`` run's: ``build/only/``)."""
        path = self.build("verify-report.json", only=only)
        data = json.loads(path.read_text(encoding="utf-8"))
        assert isinstance(data, dict)
        return data


def bare_tree(path: Path) -> Scratch:
    """The real ``core/`` and ``pyproject.toml``, an empty ``properties/``."""
    root = path / "tree"
    shutil.copytree(REPO / "core", root / "core", ignore=shutil.ignore_patterns("__pycache__"))
    (root / "properties").mkdir()
    shutil.copy2(REPO / "pyproject.toml", root)
    return Scratch(root)


def healthy_tree(path: Path) -> Scratch:
    """A minimal healthy tree: the real core, the real corpus replay, pyproject, and one
    target (fuzz_frontmatter) with its helpers and one seed that replays as expected."""
    scratch = bare_tree(path)
    root = scratch.root
    shutil.copy2(REPO / "properties" / "test_corpus.py", root / "properties")
    (root / "fuzz").mkdir()
    for name in ("fuzz_frontmatter.py", *FUZZ_HELPERS):
        shutil.copy2(REPO / "fuzz" / name, root / "fuzz")
    corpus = root / "corpus" / "fuzz_frontmatter"
    corpus.mkdir(parents=True)
    (corpus / "minimal.md").write_bytes(SEED)
    (corpus / "expected.json").write_text('{"minimal.md": "accepted"}\n')
    return scratch
