"""The gate package's own pieces (scripts/_gate): each test can fail.

- The runner's deadline ends the whole process group, not just the process it started: a
  runner that killed only its child would leave the grandchild asleep and fail the test.
- The JUnit reader counts what a real pytest run wrote and names each failed test by its
  node id (the confirmation of kills in the defect verifier reruns exactly those ids).
- The defect verifier confirms each kill on the clean tree: a "kill" by a test that fails
  without the mutant too is not a kill.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.scratch import REPO, Scratch

if str(REPO / "scripts") not in sys.path:
    sys.path.append(str(REPO / "scripts"))  # the gate's package, _gate

from _gate import process, versions
from _gate.pytest_results import Exit, exit_meaning, read_junit

SLEEPER = """
import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
open(sys.argv[1], "w").write(str(child.pid))
print("started", flush=True)
time.sleep(60)
"""


def _alive(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
    except FileNotFoundError:
        return False
    return "\nState:\tZ" not in status  # a zombie has ended, only its parent has not looked


def test_runner_deadline_kills_the_whole_process_group(tmp_path: Path) -> None:
    pid_file = tmp_path / "grandchild.pid"
    finished = process.run([sys.executable, "-c", SLEEPER, str(pid_file)], deadline=2, cwd=tmp_path)
    assert finished.timed_out  # ended by the deadline, not by the sleepers' 60 s
    assert not finished.passed
    assert "started" in finished.output
    grandchild = int(pid_file.read_text(encoding="utf-8"))
    for _ in range(300):  # the kill is sent; give the kernel (a busy one too) time to end it
        if not _alive(grandchild):
            break
        time.sleep(0.1)
    assert not _alive(grandchild), "the grandchild outlived the deadline"


def test_runner_reports_exit_code_output_and_a_missing_program(tmp_path: Path) -> None:
    finished = process.run(
        [sys.executable, "-c", "import sys; print('out'); sys.exit(3)"], deadline=60
    )
    assert (finished.exit_code, finished.timed_out, finished.output) == (3, False, "out\n")
    missing = process.run([str(tmp_path / "no-such-program")], deadline=60)
    assert missing.exit_code == process.NOT_STARTED
    assert missing.error


SAMPLE_TESTS = """
import pytest

def test_passes():
    assert True

def test_fails():
    assert 1 == 2

@pytest.mark.parametrize("value", ["a b", "x[1]"])
def test_param(value):
    assert value == "a b"

@pytest.mark.skip(reason="skipped on purpose")
def test_skipped():
    pass
"""


def test_junit_reader_counts_a_real_run_and_names_the_failed_tests(tmp_path: Path) -> None:
    scratch = Scratch(tmp_path)
    (tmp_path / "properties").mkdir()
    (tmp_path / "properties" / "test_sample.py").write_text(SAMPLE_TESTS, encoding="utf-8")
    junit = tmp_path / "junit.xml"
    completed = scratch.pytest("properties", f"--junitxml={junit}")
    assert completed.returncode == Exit.TESTS_FAILED, completed.stdout
    totals = read_junit(junit, tmp_path)
    assert totals.readable
    assert (totals.tests, totals.failures, totals.errors, totals.skipped) == (5, 2, 0, 1)
    assert totals.ran == 4
    assert set(totals.failed) == {
        "properties/test_sample.py::test_fails",
        "properties/test_sample.py::test_param[x[1]]",
    }
    # The names are pytest's own node ids: selecting them reruns exactly those tests.
    rerun = scratch.pytest(*totals.failed, f"--junitxml={junit}")
    again = read_junit(junit, tmp_path)
    assert (again.tests, again.failures) == (2, 2), rerun.stdout


def test_junit_reader_counts_nothing_for_a_missing_or_broken_file(tmp_path: Path) -> None:
    assert not read_junit(tmp_path / "missing.xml").readable
    broken = tmp_path / "broken.xml"
    broken.write_text("<testsuite tests='3'", encoding="utf-8")
    totals = read_junit(broken)
    assert (totals.readable, totals.tests, totals.ran) == (False, 0, 0)


def test_exit_codes_are_named_as_pytest_names_them() -> None:
    import pytest  # noqa: PLC0415 - compared with the gate's copy, which avoids importing it

    for code in Exit:  # the codes the gate reads (pytest may add more)
        assert int(pytest.ExitCode[code.name]) == int(code)
    assert exit_meaning(5) == "no tests collected"
    assert exit_meaning(-9) == "killed by signal 9"


def test_the_property_parts_hold_every_test_module_once() -> None:
    """The gate's property steps run every test module under ``properties/`` (the
    harness's own, in ``properties/harness/``, too) exactly once; the corpus replay is its
    own step."""
    from _gate.steps import property_parts  # noqa: PLC0415 - scripts/ is on the path above

    parts = property_parts(REPO)
    listed = [module for part in parts for module in part]
    expected = {
        path.relative_to(REPO).as_posix()
        for path in (REPO / "properties").rglob("test_*.py")
        if path.name != "test_corpus.py"
    }
    assert sorted(listed) == sorted(expected)
    assert "properties/harness/test_mutmut_rules.py" in listed


HANGING_TEST = '''"""Hangs, with a subprocess of its own, whatever the code does."""
import os
import shutil
import subprocess
import sys
import time


def test_hangs() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    with open(os.environ["HANG_PID_FILE"], "w") as sink:
        sink.write(str(child.pid))
    time.sleep(120)
'''


def test_verifier_deadline_ends_a_hanging_run_and_its_subprocesses(
    bare: Scratch, tmp_path: Path
) -> None:
    """A defect whose tests hang is a timeout (never a kill), found at its deadline, and the
    forked run's own subprocesses end with it."""
    (bare.root / "properties" / "test_hang.py").write_text(HANGING_TEST, encoding="utf-8")
    bare.mutant(
        "def is_escaped(",
        "# control\ndef is_escaped(",
        ["properties/test_hang.py", "-k", "hangs"],
        # Long enough for the forked run to reach the test body on a busy machine (it writes
        # the pid file there): 3 s ended a run at load 4-5 before it had, 10 s one at load 12.
        deadline=30,
        name="900_hang",
    )
    pid_file = tmp_path / "hang.pid"
    # Without the deadline the run sleeps 120 s and the 100 s timeout fails the test.
    result = bare.verify_mutants(env={"HANG_PID_FILE": str(pid_file)}, timeout=100)
    assert result.returncode == 1, result.stdout
    assert "timeout" in result.stdout
    assert "0 killed" in result.stdout
    child = int(pid_file.read_text(encoding="utf-8"))
    for _ in range(300):
        if not _alive(child):
            break
        time.sleep(0.1)
    assert not _alive(child), "the hanging test's subprocess outlived the deadline"


PREFIX_TEST = '''"""Passes when this run compiles into the prefix set after start-up."""
import os
import sys


def test_bytecode_goes_to_the_prefix() -> None:
    assert sys.pycache_prefix == os.environ["PYTHONPYCACHEPREFIX"]
'''
PREFIX_RUN = """
import os, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from _gate import warm
tree, prefix = Path(sys.argv[2]), sys.argv[3]
os.environ["PYTHONPYCACHEPREFIX"] = prefix  # set after start-up, as the verifier does
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
job = warm.Job("prefix", ("-q", "-p", "no:cacheprovider", "properties"), lambda slot: tree,
               tree / "run.log", 60)
(done,) = warm.run_jobs([job], 1)
print(done.exit_code)
"""


def test_forked_runs_keep_their_bytecode_in_the_verifiers_prefix(bare: Scratch) -> None:
    """Each forked run compiles into the ``PYTHONPYCACHEPREFIX`` the defect verifier sets after
    its own start-up (outside the scratch trees it rebuilds for every defect), not into the
    tree's ``__pycache__``, which the next run deletes."""
    (bare.root / "properties" / "test_prefix.py").write_text(PREFIX_TEST, encoding="utf-8")
    prefix = bare.root.parent / "pycache"
    result = bare.run(
        "-c", PREFIX_RUN, str(REPO / "scripts"), str(bare.root), str(prefix), timeout=120
    )
    log = (bare.root / "run.log").read_text(encoding="utf-8")
    assert result.stdout.strip() == "0", result.stdout + result.stderr + log
    assert list(prefix.rglob("test_prefix*.pyc")), "nothing compiled into the prefix"


def test_an_untested_series_of_a_private_api_stops_with_a_clear_message() -> None:
    """The harness patches mutmut's private API and calls a Hypothesis internal: another
    series ends the script with a message naming the version, the uses and the fix."""
    assert versions.require("mutmut", "3.8.1") == "3.8.1"
    assert versions.require("hypothesis", "6.170.17") == "6.170.17"
    with pytest.raises(versions.UntestedVersion) as caught:
        versions.require("mutmut", "3.9.0")
    message = str(caught.value)
    assert "mutmut 3.9.0 is not the tested 3.8.x" in message
    assert "collect_source_file_mutation_data" in message
    assert "constraints/dev.txt" in message
    with pytest.raises(versions.UntestedVersion) as caught:
        versions.require("hypothesis", "7.0.1")
    assert "hypothesis 7.0.1 is not the tested 6.x" in str(caught.value)
    # The installed ones are the tested ones (constraints/dev.txt pins them).
    versions.require("mutmut")
    versions.require("hypothesis")


def test_the_mutation_gate_checks_mutmuts_version_before_anything(tmp_path: Path) -> None:
    """scripts/mutmut.py with a mutmut of another series exits 1 with the message (a fake
    ``mutmut`` distribution first on the path)."""
    info = tmp_path / "mutmut-9.0.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mutmut\nVersion: 9.0.0\n")
    result = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "mutmut.py"), "--help"],
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 1, result.stdout
    assert "mutmut 9.0.0 is not the tested 3.8.x" in result.stderr
