"""Negative controls for the harness itself: fed broken pieces, the real scripts must fail.

A harness that cannot fail proves nothing. Each test takes a small tree in a
temporary directory (the ``tree`` fixture, ``harness/scratch.py``), plants one
deliberately broken piece and runs the real replay, verifier or gate against it
(docs/harness-conventions.md):

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
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.scratch import REPO, SEED, Scratch

if str(REPO / "scripts") not in sys.path:
    sys.path.append(str(REPO / "scripts"))  # the gate's package, _gate

from _gate.gate import STATIC, slug
from _gate.steps import Plan, build_steps, confirmed

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


def test_control_healthy_tree_passes_the_replay(tree: Scratch) -> None:
    """The controls below fail for their broken piece, not because the tree is unusable."""
    result = tree.replay()
    assert result.returncode == 0, result.stdout + result.stderr


def test_control_target_catching_every_exception_fails_the_replay(tree: Scratch) -> None:
    root = tree.root
    (root / "fuzz" / "fuzz_swallow.py").write_text(SWALLOWING_TARGET)
    corpus = root / "corpus" / "fuzz_swallow"
    corpus.mkdir()
    (corpus / "minimal.md").write_bytes(SEED)
    (corpus / "expected.json").write_text('{"minimal.md": "accepted"}\n')
    result = tree.replay()
    assert result.returncode == 1, result.stdout
    assert "swallowed a core exception" in result.stdout


def test_control_missing_target_fails_the_replay(tree: Scratch) -> None:
    (tree.root / "fuzz" / "fuzz_frontmatter.py").unlink()
    result = tree.replay()
    assert result.returncode == 1, result.stdout
    assert "has no fuzz target" in result.stdout


def test_control_seed_without_expectation_fails_the_replay(tree: Scratch) -> None:
    (tree.root / "corpus" / "fuzz_frontmatter" / "unlisted.md").write_bytes(b"")
    result = tree.replay()
    assert result.returncode == 1, result.stdout
    assert "has no entry in expected.json" in result.stdout


def test_control_expectation_without_seed_fails_the_replay(tree: Scratch) -> None:
    (tree.root / "corpus" / "fuzz_frontmatter" / "expected.json").write_text(
        '{"minimal.md": "accepted", "gone.md": "accepted"}\n'
    )
    result = tree.replay()
    assert result.returncode == 1, result.stdout


CORPUS_SELECTION = ["properties/test_corpus.py", "-k", "fuzz_frontmatter"]


def test_control_rotten_anchor_fails_the_verifier(tree: Scratch) -> None:
    tree.mutant("this text is in no source file", "x", CORPUS_SELECTION)
    result = tree.verify_mutants("--workers", "1")
    assert result.returncode == 1, result.stdout
    assert "rotten" in result.stdout


def test_control_surviving_mutant_fails_the_verifier(tree: Scratch) -> None:
    # A harmless edit (a comment) that no test can see must be reported as a survivor.
    tree.mutant("def is_escaped(", "# control\ndef is_escaped(", CORPUS_SELECTION)
    result = tree.verify_mutants("--workers", "1")
    assert result.returncode == 1, result.stdout
    assert "survived" in result.stdout


def test_control_empty_selection_fails_the_verifier(tree: Scratch) -> None:
    tree.mutant(
        "def is_escaped(",
        "# control\ndef is_escaped(",
        ["properties/test_corpus.py", "-k", "no_test_has_this_name"],
    )
    result = tree.verify_mutants("--workers", "1")
    assert result.returncode == 1, result.stdout
    assert "empty" in result.stdout


def test_control_kill_by_a_test_failing_on_the_clean_tree_too_fails_the_verifier(
    tree: Scratch,
) -> None:
    """Each kill is confirmed on the clean tree: a test that fails without the mutant as well
    proves nothing about it (the verifier reruns the failed tests unpatched)."""
    (tree.root / "properties" / "test_always_failing.py").write_text(
        '"""Fails whatever the code does."""\n\n\ndef test_always_fails() -> None:\n'
        "    assert False\n"
    )
    tree.mutant(
        "def is_escaped(",
        "# control\ndef is_escaped(",
        ["properties/test_always_failing.py", "-k", "always"],
    )
    result = tree.verify_mutants("--workers", "1")
    assert result.returncode == 1, result.stdout
    assert "fails on the clean tree too" in result.stdout
    assert "0 killed" in result.stdout


def test_control_a_kill_the_properties_run_confirmed_is_not_run_again_unless_stale(
    tree: Scratch,
) -> None:
    """A killing test that a run of the same tree's properties passed (its JUnit file, newer
    than every source) is confirmed without a second run; a JUnit file older than a source
    describes another tree and is not used: the kill is confirmed by running it again, and a
    test failing on the clean tree is still caught."""
    (tree.root / "properties" / "test_always_failing.py").write_text(
        '"""Fails whatever the code does."""\n\n\ndef test_always_fails() -> None:\n'
        "    assert False\n"
    )
    tree.mutant(
        "def is_escaped(",
        "# control\ndef is_escaped(",
        ["properties/test_always_failing.py", "-k", "always"],
    )
    junit = tree.root / "build" / "properties.junit.xml"
    junit.parent.mkdir(parents=True)
    junit.write_text(
        '<testsuites><testsuite tests="1" failures="0" errors="0" skipped="0">'
        '<testcase classname="properties.test_always_failing" name="test_always_fails"/>'
        "</testsuite></testsuites>\n"
    )
    trusted = tree.verify_mutants("--workers", "1", "--passed-in", str(junit))
    assert trusted.returncode == 0, trusted.stdout
    assert "'confirmed_by_the_properties': 1" in trusted.stdout
    assert "'confirmed_tests': 0" in trusted.stdout
    os.utime(junit, (1_000_000_000, 1_000_000_000))  # older than every source: another tree
    stale = tree.verify_mutants("--workers", "1", "--passed-in", str(junit))
    assert stale.returncode == 1, stale.stdout
    assert "not used: " in stale.stdout
    assert "fails on the clean tree too" in stale.stdout


# The defect plants MUTATED in the encoder; a property sees it on large numbers only.
PLANTED = ("def is_escaped(", "MUTATED = True\n\n\ndef is_escaped(")
REPLAYED_PROPERTIES = '''"""Properties that see the planted flag on numbers of 500 and more."""
from hypothesis import assume, given, strategies as st

from a13n_harness.context import encoder


def planted() -> bool:
    return getattr(encoder, "MUTATED", False)


@given(st.integers(0, 1000))
def test_sees_the_flag(n: int) -> None:
    assert n < 500 or not planted()


@given(st.integers(0, 1000))
def test_fails_on_large_numbers_anyway(n: int) -> None:
    assert n < 500


@given(st.integers(0, 1000))
def test_refuses_the_failing_example_on_the_clean_tree(n: int) -> None:
    assume(n < 500 or planted())
    assert n < 500 or not planted()
'''


def replay_phases(stdout: str) -> tuple[int, int]:
    """The replayed and the wholly rerun killing tests of a verifier's phases line."""
    found = re.search(r"'replayed_tests': (\d+).*'whole_tests': (\d+)", stdout)
    assert found, stdout
    return int(found[1]), int(found[2])


def test_a_hypothesis_kill_is_confirmed_by_replaying_its_example_on_the_clean_tree(
    tree: Scratch,
) -> None:
    """A property that failed on a defect's example is confirmed by that example passing on
    the clean tree (the example replayed, nothing generated), not by a whole second run."""
    (tree.root / "properties" / "test_replayed.py").write_text(REPLAYED_PROPERTIES)
    tree.mutant(*PLANTED, ["properties/test_replayed.py::test_sees_the_flag"])
    result = tree.verify_mutants("--workers", "1")
    assert result.returncode == 0, result.stdout
    assert "1 killed" in result.stdout
    assert replay_phases(result.stdout) == (1, 0)


def test_control_a_replayed_example_failing_on_the_clean_tree_is_no_kill(tree: Scratch) -> None:
    """The replay can fail: a property failing on the defect's example on the clean tree too
    is rerun whole, fails again and confirms nothing."""
    (tree.root / "properties" / "test_replayed.py").write_text(REPLAYED_PROPERTIES)
    tree.mutant(*PLANTED, ["properties/test_replayed.py::test_fails_on_large_numbers_anyway"])
    result = tree.verify_mutants("--workers", "1")
    assert result.returncode == 1, result.stdout
    assert "fails on the clean tree too" in result.stdout
    assert replay_phases(result.stdout) == (0, 1)


def test_control_a_replayed_example_the_clean_tree_refuses_confirms_nothing(
    tree: Scratch,
) -> None:
    """A replay confirms a kill only when the example ran and passed: an example the clean
    tree's property refuses (``assume``) proves nothing, and the property runs whole."""
    (tree.root / "properties" / "test_replayed.py").write_text(REPLAYED_PROPERTIES)
    tree.mutant(
        *PLANTED,
        ["properties/test_replayed.py::test_refuses_the_failing_example_on_the_clean_tree"],
    )
    result = tree.verify_mutants("--workers", "1")
    assert result.returncode == 0, result.stdout
    assert "1 killed" in result.stdout
    assert replay_phases(result.stdout) == (0, 1)


SKIPPED_ON_THE_CLEAN_TREE = '''"""One test fails on the planted flag, one is skipped without it."""
import pytest

from a13n_harness.context import encoder


def test_fails_on_the_flag() -> None:
    assert not getattr(encoder, "MUTATED", False)


def test_skipped_on_the_clean_tree() -> None:
    if not getattr(encoder, "MUTATED", False):
        pytest.skip("nothing to see on the clean tree")
    raise AssertionError("the flag is planted")
'''


def test_control_a_killing_test_skipped_on_the_clean_tree_confirms_nothing(
    tree: Scratch,
) -> None:
    """A kill is confirmed by its test passing on the clean tree: one skipped there (beside a
    test that passes in the same run) is an empty selection, not a kill."""
    (tree.root / "properties" / "test_skipping.py").write_text(SKIPPED_ON_THE_CLEAN_TREE)
    tree.mutant(*PLANTED, ["properties/test_skipping.py::test_fails_on_the_flag"], name="900_a")
    tree.mutant(
        *PLANTED, ["properties/test_skipping.py::test_skipped_on_the_clean_tree"], name="901_b"
    )
    result = tree.verify_mutants("--workers", "1")
    assert result.returncode == 1, result.stdout
    assert "2 mutants: 1 killed" in result.stdout
    assert re.search(r"901_b\s+empty", result.stdout), result.stdout


GATE_SEEN_BY_A_TEST = '''"""A test of the gate's own code, on the path as harness tests put it."""
import sys
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent.parent / "scripts"))

from _gate import planted


def test_the_gate_holds_no_planted_flag() -> None:
    assert not planted.MUTATED
'''


def test_a_defect_planted_in_the_gates_own_code_is_seen_by_the_tests_that_import_it(
    tree: Scratch,
) -> None:
    """A defect in ``scripts/_gate`` reaches the test importing it: each run imports the gate
    from its own tree, not from the verifier's ``scripts/``, which comes first on the path of
    the parent its runs are forked from (there, this gate has no ``planted`` module: the run
    is an import error, and the defect no kill)."""
    gate = tree.root / "scripts" / "_gate"
    gate.mkdir(parents=True)
    (gate / "__init__.py").write_text("", encoding="utf-8")
    (gate / "planted.py").write_text("MUTATED = False\n", encoding="utf-8")
    (tree.root / "properties" / "test_gate_code.py").write_text(GATE_SEEN_BY_A_TEST)
    (tree.root / "mutants").mkdir(exist_ok=True)
    (tree.root / "mutants" / "900_gate.toml").write_text(
        'file = "scripts/_gate/planted.py"\nfind = "MUTATED = False"\nreplace = "MUTATED = True"\n'
        'selection = ["properties/test_gate_code.py::test_the_gate_holds_no_planted_flag"]\n'
        'class = "control"\nwhy = "a defect of the gate"\ncpu_seconds = 60\n',
        encoding="utf-8",
    )
    result = tree.verify_mutants("--workers", "1")
    assert result.returncode == 0, result.stdout
    assert "1 mutants: 1 killed" in result.stdout


@pytest.mark.parametrize("only", ["properties (ci)"])
def test_control_step_selecting_nothing_fails_the_gate(tree: Scratch, only: str) -> None:
    # The properties step finds only a test module that collects nothing.
    (tree.root / "properties" / "test_corpus.py").unlink()
    (tree.root / "properties" / "test_nothing.py").write_text('"""Nothing to test."""\n')
    result = tree.gate("--only", only)
    assert result.returncode == 1, result.stdout
    assert result.stdout.strip().splitlines()[-1] == "0 passed, 1 failed"
    (step,) = tree.report(only=True)["steps"]
    assert (step["status"], step["count"]) == ("failed", 0)


def plant_lint_error(tree: Scratch) -> None:
    (tree.root / "scripts").mkdir(exist_ok=True)
    (tree.root / "properties" / "planted.py").write_text('import os\n\n"""Unused import."""\n')


# PATH without the virtual environment's bin folder: the gate finds its tools through the
# interpreter it runs under.
BARE_PATH = {"PATH": os.defpath}


def test_control_planted_lint_error_fails_the_gate_with_its_evidence(tree: Scratch) -> None:
    """The failing step prints which errors, keeps its whole log, a JUnit case and the rerun;
    run with ``--only``, it keeps them in ``build/only/`` and leaves the last whole run's
    report, JUnit file and logs as they were."""
    plant_lint_error(tree)
    whole = {"verify-report.json": '{"mode": "quick"}\n', "junit.xml": "<testsuites/>\n"}
    whole["logs/ruff-check.log"] = "the whole run's log\n"
    for name, text in whole.items():
        tree.build(name).parent.mkdir(parents=True, exist_ok=True)
        tree.build(name).write_text(text, encoding="utf-8")
    result = tree.gate("--only", "ruff check", env=BARE_PATH)
    assert result.returncode == 1, result.stdout
    assert "properties/planted.py:1:8: F401" in result.stdout
    assert "rerun: PYTHONPATH=core python -m ruff check --no-cache" in result.stdout
    log = tree.build("logs/ruff-check.log", only=True)
    assert "F401" in log.read_text(encoding="utf-8")
    junit = tree.build("junit.xml", only=True).read_text(encoding="utf-8")
    assert '<testcase classname="verify" name="ruff check"' in junit
    assert "<failure" in junit
    assert "F401" in junit
    report = tree.report(only=True)
    (step,) = report["steps"]
    assert (step["name"], step["status"]) == ("ruff check", "failed")
    assert "seconds" in step
    assert report["only"] == ["ruff check"]
    for name, text in whole.items():  # the whole run's evidence, untouched
        assert tree.build(name).read_text(encoding="utf-8") == text, name
    assert "report: build/only/verify-report.json" in result.stdout


def test_control_planted_lint_error_ends_the_gate_before_the_checks_start(
    tree: Scratch,
) -> None:
    """Fail fast: a static step's failure ends the gate; no later step starts (no log), each
    is reported ``not run`` (a skipped JUnit case) and counted on the last line."""
    plant_lint_error(tree)
    (tree.root / "properties" / "test_ok.py").write_text(
        '"""Passes."""\n\n\ndef test_ok() -> None:\n    pass\n'
    )
    result = tree.gate(env=BARE_PATH)
    assert result.returncode == 1, result.stdout
    assert "properties/planted.py:1:8: F401" in result.stdout
    steps = {step["name"]: step for step in tree.report()["steps"]}
    assert steps["ruff check"]["status"] == "failed"
    planned = build_steps(Plan(tree.root, tree.root / "build"))
    assert list(steps) == [step.name for step in planned]
    checks = [step.name for step in planned if step.stage != STATIC]
    assert {"corpus replay", "injected defects", "crosshair"} <= set(checks)
    assert any(name.startswith("properties") for name in checks)
    assert any(name.startswith("fuzz ") for name in checks)
    for name in checks:
        assert steps[name]["status"] == "not run", name
        assert not tree.build(f"logs/{slug(name)}.log").exists(), name
    not_run = sum(step["status"] == "not run" for step in steps.values())
    last = result.stdout.strip().splitlines()[-1]
    assert re.fullmatch(rf"\d+ passed, [1-9]\d* failed, {not_run} not run", last), last
    junit = tree.build("junit.xml").read_text(encoding="utf-8")
    assert junit.count("<skipped ") == not_run


def test_control_keep_going_runs_the_checks_after_a_static_failure(tree: Scratch) -> None:
    """The same planted error with ``--keep-going``: the checks run (and here pass)."""
    plant_lint_error(tree)
    selection = ("--only", "ruff check", "--only", "corpus replay")
    stopped = {step["name"]: step["status"] for step in _gate_steps(tree, *selection)}
    assert stopped == {"ruff check": "failed", "corpus replay": "not run"}
    kept = {step["name"]: step["status"] for step in _gate_steps(tree, "--keep-going", *selection)}
    assert kept == {"ruff check": "failed", "corpus replay": "passed"}


def _gate_steps(tree: Scratch, *arguments: str) -> list[dict[str, Any]]:
    result = tree.gate(*arguments, env=BARE_PATH)
    assert result.returncode == 1, result.stdout
    steps = tree.report(only="--only" in arguments)["steps"]
    assert isinstance(steps, list)
    return steps


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


def test_control_planted_fuzz_crash_fails_the_gate_and_keeps_the_input(tree: Scratch) -> None:
    """A crash is kept in build/fuzz-artifacts/<target>/ and printed with its replay command."""
    root = tree.root
    (root / "fuzz" / "fuzz_planted.py").write_text(PLANTED_CRASH)
    corpus = root / "corpus" / "fuzz_planted"
    corpus.mkdir()
    (corpus / "boom.txt").write_bytes(b"boom")
    (corpus / "expected.json").write_text('{"boom.txt": "accepted"}\n')
    result = tree.gate("--only", "fuzz fuzz_planted", "--fuzz-seconds", "5")
    assert result.returncode == 1, result.stdout
    crashes = list((root / "build" / "fuzz-artifacts" / "fuzz_planted").glob("crash-*"))
    assert len(crashes) == 1, result.stdout
    assert crashes[0].read_bytes() == b"boom"
    assert (
        f"replay: python fuzz/fuzz_planted.py build/fuzz-artifacts/fuzz_planted/{crashes[0].name}"
        in (result.stdout)
    )
    assert "planted crash" in tree.build("logs/fuzz-fuzz-planted.log", only=True).read_text()
    assert not list((root / "corpus" / "fuzz_planted").glob("*[0-9a-f]" * 40))  # corpus untouched


def test_control_replaying_a_file_prints_its_outcome_or_fails_with_the_crash(
    tree: Scratch,
) -> None:
    """``python fuzz/<target>.py FILE`` (fuzz/_target.py): the outcome of a file that keeps the
    contract, the traceback and exit status 1 for one that breaks it."""
    root = tree.root
    (root / "fuzz" / "fuzz_planted.py").write_text(PLANTED_CRASH)
    (root / "fine.txt").write_bytes(b"fine")
    (root / "boom.txt").write_bytes(b"boom")
    kept = tree.run("fuzz/fuzz_planted.py", "fine.txt")
    assert (kept.returncode, kept.stdout) == (0, "fine.txt: accepted\n"), kept.stderr
    broken = tree.run("fuzz/fuzz_planted.py", "fine.txt", "boom.txt")
    assert broken.returncode == 1
    assert broken.stdout == "fine.txt: accepted\n"
    assert "ValueError: planted crash" in broken.stderr
    front = tree.run("fuzz/fuzz_frontmatter.py", "fine.txt")
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


PLANTED_LOOP = PLANTED_CRASH.replace(
    """    if data.startswith(b"boom"):
        raise ValueError("planted crash")""",
    """    while data.startswith(b"loop"):
        pass""",
)


def test_control_a_timeout_input_is_a_finding_only_when_its_replay_overruns_in_cpu(
    tree: Scratch,
) -> None:
    """libFuzzer's per-input timeout is wall time: an input a busy machine held past it is
    replayed alone under a CPU budget. One that ends in time is renamed ``slow-machine-...``
    and fails nothing; one that spends the budget (a real hang) stays a finding."""
    root = tree.root
    (root / "fuzz" / "fuzz_planted.py").write_text(PLANTED_LOOP)
    assert "while data.startswith" in PLANTED_LOOP
    artifacts = root / "build" / "fuzz-artifacts" / "fuzz_planted"
    artifacts.mkdir(parents=True)
    slow = artifacts / "timeout-0123"
    slow.write_bytes(b"fine")
    hang = artifacts / "timeout-4567"
    hang.write_bytes(b"loop")
    crash = artifacts / "crash-89ab"
    crash.write_bytes(b"fine")
    assert not confirmed(root, "fuzz_planted", slow, cpu_seconds=2)
    assert not slow.exists()
    assert (artifacts / "slow-machine-timeout-0123").read_bytes() == b"fine"
    assert confirmed(root, "fuzz_planted", hang, cpu_seconds=2)
    assert hang.exists()
    assert confirmed(root, "fuzz_planted", crash, cpu_seconds=2)  # not a timeout: as found
