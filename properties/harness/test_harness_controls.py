"""Negative controls for the harness itself: fed broken pieces, the real scripts must fail.

A harness that cannot fail proves nothing. Each test builds a small tree in a
temporary directory with one deliberately broken piece and runs the real
replay, verifier or gate against it (docs/harness-conventions.md):

- a fuzz target whose ``check`` catches every exception,
- a corpus folder whose fuzz target is missing, and a seed with no expectation,
- a mutant whose anchor no longer exists (and one that nothing kills),
- a gate step that selects no test,
- a planted lint error and a planted fuzz crash, each failing the gate with its
  evidence printed and kept (log, tail, rerun command, JUnit, replay command),
- a fuzz run pointed at ``corpus/`` and a packaged target that crashes.

The mutation gate's rules have their controls in ``test_mutmut_rules.py``.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
SWALLOWING_TARGET = '''"""Any bytes are accepted (a broken target: it hides every crash)."""
from a13n_harness.context.errors import DefinitionError
from a13n_harness.context.frontmatter import parse_skill_document


def check(data: bytes) -> None:
    try:
        parse_skill_document(data)
    except Exception:
        pass


def outcome(data: bytes) -> str:
    try:
        parse_skill_document(data)
    except DefinitionError as error:
        return f"{error.code}:{error.reason}"
    return "accepted"
'''
SEED = b"---\nname: a\ndescription: d\n---\n"


def _tree(tmp_path: Path) -> Path:
    """A minimal tree: the real core, the real replay, pyproject, and one healthy target."""
    root = tmp_path / "tree"
    shutil.copytree(REPO / "core", root / "core", ignore=shutil.ignore_patterns("__pycache__"))
    (root / "properties").mkdir()
    shutil.copy2(REPO / "properties" / "test_corpus.py", root / "properties")
    shutil.copy2(REPO / "pyproject.toml", root)
    (root / "fuzz").mkdir()
    shutil.copy2(REPO / "fuzz" / "fuzz_frontmatter.py", root / "fuzz")
    for helper in ("_target.py", "runner.py", "seeds.py", "README.md", "fuzz_frontmatter.options"):
        shutil.copy2(REPO / "fuzz" / helper, root / "fuzz")  # plumbing, seed reader, docs
    shutil.copy2(REPO / "fuzz" / "fuzz_frontmatter.dict", root / "fuzz")
    corpus = root / "corpus" / "fuzz_frontmatter"
    corpus.mkdir(parents=True)
    (corpus / "minimal.md").write_bytes(SEED)
    (corpus / "expected.json").write_text('{"minimal.md": "accepted"}\n')
    return root


def _run(root: Path, *command: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(root / "core")
    env["A13N_HARNESS_ROOT"] = str(root)
    env["HYPOTHESIS_PROFILE"] = "ci"
    return subprocess.run(
        [sys.executable, *command],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _replay(root: Path) -> subprocess.CompletedProcess[str]:
    return _run(root, "-m", "pytest", "-p", "no:cacheprovider", "-q", "properties/test_corpus.py")


def test_control_healthy_tree_passes_the_replay(tmp_path: Path) -> None:
    """The controls below fail for their broken piece, not because the tree is unusable."""
    result = _replay(_tree(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr


def test_control_target_catching_every_exception_fails_the_replay(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    (root / "fuzz" / "fuzz_swallow.py").write_text(SWALLOWING_TARGET)
    corpus = root / "corpus" / "fuzz_swallow"
    corpus.mkdir()
    (corpus / "minimal.md").write_bytes(SEED)
    (corpus / "expected.json").write_text('{"minimal.md": "accepted"}\n')
    result = _replay(root)
    assert result.returncode == 1, result.stdout
    assert "swallowed a core exception" in result.stdout


def test_control_missing_target_fails_the_replay(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    (root / "fuzz" / "fuzz_frontmatter.py").unlink()
    result = _replay(root)
    assert result.returncode == 1, result.stdout
    assert "has no fuzz target" in result.stdout


def test_control_seed_without_expectation_fails_the_replay(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    (root / "corpus" / "fuzz_frontmatter" / "unlisted.md").write_bytes(b"")
    result = _replay(root)
    assert result.returncode == 1, result.stdout
    assert "has no entry in expected.json" in result.stdout


def test_control_expectation_without_seed_fails_the_replay(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    (root / "corpus" / "fuzz_frontmatter" / "expected.json").write_text(
        '{"minimal.md": "accepted", "gone.md": "accepted"}\n'
    )
    result = _replay(root)
    assert result.returncode == 1, result.stdout


def _mutant(root: Path, find: str, replace: str, selection: str) -> None:
    (root / "mutants").mkdir(exist_ok=True)
    (root / "mutants" / "900_control.toml").write_text(
        'file = "core/a13n_harness/context/encoder.py"\n'
        f"find = {find!r}\n"
        f"replace = {replace!r}\n"
        f"selection = {selection}\n"
        'class = "control"\nwhy = "negative control"\ndeadline = 60\n'
    )


def _verify_mutants(root: Path) -> subprocess.CompletedProcess[str]:
    script = str(REPO / "scripts" / "verify_mutants.py")
    return _run(root, script, "--root", str(root), "--workers", "1")


CORPUS_SELECTION = '["properties/test_corpus.py", "-k", "fuzz_frontmatter"]'


def test_control_rotten_anchor_fails_the_verifier(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    _mutant(root, "this text is in no source file", "x", CORPUS_SELECTION)
    result = _verify_mutants(root)
    assert result.returncode == 1, result.stdout
    assert "rotten" in result.stdout


def test_control_surviving_mutant_fails_the_verifier(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    # A harmless edit (a comment) that no test can see must be reported as a survivor.
    _mutant(root, "def is_escaped(", "# control\ndef is_escaped(", CORPUS_SELECTION)
    result = _verify_mutants(root)
    assert result.returncode == 1, result.stdout
    assert "survived" in result.stdout


def test_control_empty_selection_fails_the_verifier(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    _mutant(
        root,
        "def is_escaped(",
        "# control\ndef is_escaped(",
        '["properties/test_corpus.py", "-k", "no_test_has_this_name"]',
    )
    result = _verify_mutants(root)
    assert result.returncode == 1, result.stdout
    assert "empty" in result.stdout


def test_control_kill_by_a_test_failing_on_the_clean_tree_too_fails_the_verifier(
    tmp_path: Path,
) -> None:
    """Each kill is confirmed on the clean tree: a test that fails without the mutant as well
    proves nothing about it (the verifier reruns the failed tests unpatched)."""
    root = _tree(tmp_path)
    (root / "properties" / "test_always_failing.py").write_text(
        '"""Fails whatever the code does."""\n\n\ndef test_always_fails() -> None:\n'
        "    assert False\n"
    )
    _mutant(
        root,
        "def is_escaped(",
        "# control\ndef is_escaped(",
        '["properties/test_always_failing.py", "-k", "always"]',
    )
    result = _verify_mutants(root)
    assert result.returncode == 1, result.stdout
    assert "fails on the clean tree too" in result.stdout
    assert "0 killed" in result.stdout


@pytest.mark.parametrize("only", ["properties (ci)"])
def test_control_step_selecting_nothing_fails_the_gate(tmp_path: Path, only: str) -> None:
    root = _tree(tmp_path)
    # The properties step finds only a test module that collects nothing.
    (root / "properties" / "test_corpus.py").unlink()
    (root / "properties" / "test_nothing.py").write_text('"""Nothing to test."""\n')
    script = str(REPO / "scripts" / "verify.py")
    report = tmp_path / "report.json"
    result = _run(root, script, "--root", str(root), "--only", only, "--report", str(report))
    assert result.returncode == 1, result.stdout
    assert result.stdout.strip().splitlines()[-1] == "0 passed, 1 failed"


def _gate(root: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    script = str(REPO / "scripts" / "verify.py")
    return _run(root, script, "--root", str(root), *arguments)


def test_control_planted_lint_error_fails_the_gate_with_its_evidence(tmp_path: Path) -> None:
    """The failing step prints which errors, keeps its whole log, a JUnit case and the rerun."""
    root = _tree(tmp_path)
    for folder in ("scripts", "fuzz"):
        (root / folder).mkdir(exist_ok=True)
    (root / "properties" / "planted.py").write_text('import os\n\n"""Unused import."""\n')
    result = _gate(root, "--only", "ruff check")
    assert result.returncode == 1, result.stdout
    assert "properties/planted.py:1:8: F401" in result.stdout
    assert "rerun: PYTHONPATH=core ruff check --no-cache" in result.stdout
    log = root / "build" / "logs" / "ruff-check.log"
    assert "F401" in log.read_text(encoding="utf-8")
    junit = (root / "build" / "junit.xml").read_text(encoding="utf-8")
    assert '<testcase classname="verify" name="ruff check"' in junit
    assert "<failure" in junit
    assert "F401" in junit
    report = (root / "build" / "verify-report.json").read_text(encoding="utf-8")
    assert '"seconds"' in report


PLANTED_CRASH = '''"""Any bytes are accepted, but a planted crash on inputs starting "boom"."""
from __future__ import annotations

from _target import contract, instrumented, main

with instrumented(__name__):
    from a13n_harness.context.encoder import encode_value


def _verdict(data: bytes) -> str:
    encode_value(data.decode("utf-8", "replace"))
    if data.startswith(b"boom"):
        raise ValueError("planted crash")
    return "accepted"


check, outcome = contract(_verdict)

if __name__ == "__main__":
    main(__file__, check, outcome)
'''


def test_control_planted_fuzz_crash_fails_the_gate_and_keeps_the_input(tmp_path: Path) -> None:
    """A crash is kept in build/fuzz-artifacts/<target>/ and printed with its replay command."""
    root = _tree(tmp_path)
    (root / "fuzz" / "fuzz_planted.py").write_text(PLANTED_CRASH)
    corpus = root / "corpus" / "fuzz_planted"
    corpus.mkdir()
    (corpus / "boom.txt").write_bytes(b"boom")
    (corpus / "expected.json").write_text('{"boom.txt": "accepted"}\n')
    result = _gate(root, "--only", "fuzz fuzz_planted", "--fuzz-seconds", "5")
    assert result.returncode == 1, result.stdout
    crashes = list((root / "build" / "fuzz-artifacts" / "fuzz_planted").glob("crash-*"))
    assert len(crashes) == 1, result.stdout
    assert crashes[0].read_bytes() == b"boom"
    assert (
        f"replay: python fuzz/fuzz_planted.py build/fuzz-artifacts/fuzz_planted/{crashes[0].name}"
        in (result.stdout)
    )
    assert "planted crash" in (root / "build" / "logs" / "fuzz-fuzz-planted.log").read_text()
    assert not list((root / "corpus" / "fuzz_planted").glob("*[0-9a-f]" * 40))  # corpus untouched


def test_control_replaying_a_file_prints_its_outcome_or_fails_with_the_crash(
    tmp_path: Path,
) -> None:
    """``python fuzz/<target>.py FILE`` (fuzz/_target.py): the outcome of a file that keeps the
    contract, the traceback and exit status 1 for one that breaks it."""
    root = _tree(tmp_path)
    (root / "fuzz" / "fuzz_planted.py").write_text(PLANTED_CRASH)
    (root / "fine.txt").write_bytes(b"fine")
    (root / "boom.txt").write_bytes(b"boom")
    kept = _run(root, "fuzz/fuzz_planted.py", "fine.txt")
    assert (kept.returncode, kept.stdout) == (0, "fine.txt: accepted\n"), kept.stderr
    broken = _run(root, "fuzz/fuzz_planted.py", "fine.txt", "boom.txt")
    assert broken.returncode == 1
    assert broken.stdout == "fine.txt: accepted\n"
    assert "ValueError: planted crash" in broken.stderr
    front = _run(root, "fuzz/fuzz_frontmatter.py", "fine.txt")
    assert front.stdout == "fine.txt: skill_frontmatter_invalid:missing_fence\n", front.stderr


def _load(name: str, path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_control_fuzzing_into_the_checked_in_corpus_is_refused(tmp_path: Path) -> None:
    """libFuzzer writes into its first folder: corpus/ there is refused; defaults are added."""
    runner = _load("_fuzz_runner", REPO / "fuzz" / "runner.py")
    (tmp_path / "corpus" / "fuzz_x").mkdir(parents=True)
    (tmp_path / "fuzz").mkdir()
    (tmp_path / "fuzz" / "fuzz_x.dict").write_text('a="b"\n')
    with pytest.raises(SystemExit, match="refusing to fuzz into"):
        runner.arguments(["t", str(tmp_path / "corpus" / "fuzz_x")], "fuzz_x", tmp_path)
    argv = runner.arguments(
        ["t", str(tmp_path / "scratch"), str(tmp_path / "corpus" / "fuzz_x")], "fuzz_x", tmp_path
    )
    assert f"-artifact_prefix={tmp_path}/build/fuzz-artifacts/fuzz_x/" in argv
    assert f"-dict={tmp_path}/fuzz/fuzz_x.dict" in argv
    given = runner.arguments(["t", "-artifact_prefix=elsewhere/", "-dict=d"], "fuzz_x", tmp_path)
    assert given == ["t", "-artifact_prefix=elsewhere/", "-dict=d"]


FAKE_PACKAGED_TARGET = """#!/bin/sh
# Behaves like a libFuzzer binary that crashes on its first seed.
for arg in "$@"; do
  case "$arg" in -artifact_prefix=*) prefix="${arg#-artifact_prefix=}";; esac
done
printf 'boom' > "${prefix}crash-0123"
echo "==1== ERROR: libFuzzer: deadly signal"
exit 1
"""


def test_control_crashing_packaged_target_fails_the_local_clusterfuzzlite_run(
    tmp_path: Path,
) -> None:
    """The local ClusterFuzzLite run reports a packaged target's crash with its replay."""
    cflite = _load("_cflite_local", REPO / "scripts" / "cflite_local.py")
    out = tmp_path / "out"
    out.mkdir()
    (out / "fuzz_x").write_text(FAKE_PACKAGED_TARGET)
    (out / "fuzz_x").chmod(0o755)
    (out / "fuzz_x.options").write_text("[libfuzzer]\nmax_len = 10\ndict = fuzz_x.dict\n")
    assert cflite.option_flags(out / "fuzz_x.options", out) == [
        "-max_len=10",
        f"-dict={out}/fuzz_x.dict",
    ]
    problems = cflite.run_target("fuzz_x", out, tmp_path / "artifacts", 10, tmp_path)
    assert len(problems) == 1
    assert "crash-0123" in problems[0]
    assert "replay: python fuzz/fuzz_x.py artifacts/fuzz_x/crash-0123" in problems[0]
