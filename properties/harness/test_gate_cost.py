"""What the quick gate leaves out to stay within its time, and what it still proves.

The quick gate (``python scripts/verify.py``) must fit in 600 CPU seconds and 300 s of wall
time on two cores (README); ``--full`` runs the rest. Each cut here is pinned with the check
that keeps it honest: the part the quick gate still runs must still fail on its defect.
"""

from __future__ import annotations

import ast
import importlib.util
import itertools
import json
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from harness.scratch import REPO

if str(REPO / "scripts") not in sys.path:
    sys.path.append(str(REPO / "scripts"))  # the gate's package, _gate

from _gate.steps import ENVIRONMENT, PROPERTIES_CI, QUICK_PACKAGE, Plan, build_steps


def _load(name: str, path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _cflite_command(full: bool) -> list[str]:
    (step,) = [
        s for s in build_steps(Plan(REPO, REPO / "build", full=full)) if "clusterfuzzlite" in s.name
    ]
    return step.command


def test_quick_gate_packages_one_target_and_the_full_gate_every_one() -> None:
    """The quick gate's ClusterFuzzLite step packages the one representative target (build.sh
    still runs whole); ``--full`` packages every target."""
    assert (REPO / "fuzz" / f"{QUICK_PACKAGE}.py").is_file()
    quick = _cflite_command(full=False)
    assert quick[quick.index("--package") + 1] == QUICK_PACKAGE
    assert quick.count("--package") == 1
    assert "--package" not in _cflite_command(full=True)


def _outputs(out: Path, target: str) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out / f"{target}_seed_corpus.zip", "w") as archive:
        archive.writestr("seed", b"x")
    (out / f"{target}.options").write_text(f"[libfuzzer]\nmax_len = 10\ndict = {target}.dict\n")
    (out / f"{target}.dict").write_text('"x"\n')


def test_every_target_unpackaged_still_has_its_build_outputs_checked(tmp_path: Path) -> None:
    """build.sh's outputs for a target the quick gate does not package are still checked: a
    missing or empty seed archive, missing options, or a dictionary the options name but
    build.sh did not copy each fail (negative controls against a complete set)."""
    cflite = _load("_cflite_local_cost", REPO / "scripts" / "cflite_local.py")
    out = tmp_path / "out"
    for target in ("fuzz_a", "fuzz_b"):
        _outputs(out, target)
    assert cflite.check_outputs(out, ["fuzz_a", "fuzz_b"]) == []

    (out / "fuzz_b.dict").unlink()
    assert [p.split(":")[0] for p in cflite.check_outputs(out, ["fuzz_a", "fuzz_b"])] == ["fuzz_b"]
    _outputs(out, "fuzz_b")
    (out / "fuzz_b_seed_corpus.zip").unlink()
    assert len(cflite.check_outputs(out, ["fuzz_a", "fuzz_b"])) == 1
    with zipfile.ZipFile(out / "fuzz_b_seed_corpus.zip", "w"):
        pass  # an archive with no seed
    assert "holds no seed" in cflite.check_outputs(out, ["fuzz_a", "fuzz_b"])[0]
    _outputs(out, "fuzz_b")
    (out / "fuzz_b.options").write_text("# no section\n")
    assert "options" in cflite.check_outputs(out, ["fuzz_a", "fuzz_b"])[0]


def _mutant(defects: Any, file: str, find: str, replace: str) -> Any:
    return defects.Mutant("900_x", file, find, replace, ("t.py::t",), "c", "w", 10)


def test_a_reused_slot_tree_is_the_clean_tree_plus_one_patch(tmp_path: Path) -> None:
    """The defect verifier copies a slot's tree once and reuses it: the previous defect's patch
    is undone before the next is applied, and a run that changed anything else in the tree
    gets a fresh copy (negative control: a slot that skipped either would hand the next
    defect a tree with two defects, or with a stray file)."""
    from _gate import defects  # noqa: PLC0415

    root = tmp_path / "root"
    (root / "core" / "pkg").mkdir(parents=True)
    (root / "core" / "pkg" / "a.py").write_text("A = 1\n")
    (root / "core" / "pkg" / "b.py").write_text("B = 1\n")
    slots = defects.SlotTrees(root, tmp_path / "scratch")
    first = slots.mutated(0, _mutant(defects, "core/pkg/a.py", "A = 1", "A = 2"), 0)
    assert (first / "core/pkg/a.py").read_text() == "A = 2\n"
    second = slots.mutated(0, _mutant(defects, "core/pkg/b.py", "B = 1", "B = 2"), 1)
    assert second == first
    assert slots.copies == 1  # reused
    assert (second / "core/pkg/a.py").read_text() == "A = 1\n"  # the first patch undone
    assert (second / "core/pkg/b.py").read_text() == "B = 2\n"
    assert (second / "core/pkg/a.py").stat().st_mtime == (root / "core/pkg/a.py").stat().st_mtime
    (second / "core" / "stray.txt").write_text("left by a run")
    clean = slots.clean(0)
    assert slots.copies == 2  # a change besides the patch: copied afresh
    assert not (clean / "core" / "stray.txt").exists()
    assert (clean / "core/pkg/b.py").read_text() == "B = 1\n"


def test_a_forked_run_loads_its_plugin_by_name_and_gives_tests_the_environment_back(
    tmp_path: Path,
) -> None:
    """A defect's run starts pytest without the scan of installed plugins and loads
    Hypothesis's by name; a test in it sees the environment as the caller had it (a pytest the
    test starts must find its plugins as usual)."""
    from _gate import warm  # noqa: PLC0415

    tree = tmp_path / "tree"
    (tree / "core").mkdir(parents=True)
    (tree / "test_env.py").write_text(
        "import os, sys\n"
        "def test_env(request):\n"
        f"    assert {warm.AUTOLOAD!r} not in os.environ\n"
        "    assert request.config.pluginmanager.has_plugin('_hypothesis_pytestplugin')\n"
        "    assert not request.config.pluginmanager.has_plugin('xdist')\n"
    )
    job = warm.Job(
        "env",
        ("-p", "no:cacheprovider", "-q", "test_env.py"),
        lambda slot: tree,
        tmp_path / "env.log",
        60,
    )
    (done,) = warm.run_jobs([job], 1)
    assert done.exit_code == 0, (tmp_path / "env.log").read_text()
    assert done.junit.ran == 1


OUTCOMES_TESTS = """import pytest


@pytest.fixture
def broken_teardown():
    yield
    raise RuntimeError("teardown")


def test_passes():
    pass


def test_fails():
    assert False


def test_fails_in_teardown(broken_teardown):
    pass


def test_skipped():
    pytest.skip("not here")


@pytest.mark.xfail(strict=True)
def test_expected_to_fail():
    assert False
"""


def test_a_forked_run_reads_each_tests_outcome_in_the_run(tmp_path: Path) -> None:
    """A defect's run names its tests' outcomes itself (no JUnit file): a test failing in
    any phase (its teardown too) is failed, a skipped or expected failure is skipped, and a
    module that fails to import is a failed entry of its own; the run's exit code is
    pytest's."""
    from _gate import warm  # noqa: PLC0415

    tree = tmp_path / "tree"
    (tree / "core").mkdir(parents=True)
    (tree / "test_outcomes.py").write_text(OUTCOMES_TESTS)
    (tree / "test_broken.py").write_text("import no_such_module_here\n")
    job = warm.Job(
        "outcomes",
        ("-p", "no:cacheprovider", "-q", "test_outcomes.py", "test_broken.py"),
        lambda slot: tree,
        tmp_path / "outcomes.log",
        60,
    )
    (done,) = warm.run_jobs([job], 1)
    log = (tmp_path / "outcomes.log").read_text()
    assert done.exit_code == 2, log  # interrupted: a module failed to import
    assert done.junit.readable
    assert set(done.junit.failed) == {"test_broken.py"}, log
    job = warm.Job(
        "outcomes",
        ("-p", "no:cacheprovider", "-q", "test_outcomes.py"),
        lambda slot: tree,
        tmp_path / "outcomes.log",
        60,
    )
    (done,) = warm.run_jobs([job], 1)
    log = (tmp_path / "outcomes.log").read_text()
    assert done.exit_code == 1, log
    assert set(done.junit.failed) == {
        "test_outcomes.py::test_fails",
        "test_outcomes.py::test_fails_in_teardown",
    }, log
    assert done.junit.passed == ("test_outcomes.py::test_passes",), log
    assert (done.junit.tests, done.junit.skipped, done.junit.ran) == (5, 2, 3)


def test_the_property_steps_cache_bytecode_outside_the_tree(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The properties and the corpus replay write bytecode to a prefix outside the tree, also
    where the caller turned writing off (each Python their tests start would compile the core
    again); a prefix the caller set is theirs."""
    monkeypatch.delenv("PYTHONPYCACHEPREFIX", raising=False)
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    steps = {s.name: s for s in build_steps(Plan(REPO, REPO / "build"))}
    for name in ("properties (ci)", "corpus replay"):
        env = steps[name].env
        assert env["PYTHONDONTWRITEBYTECODE"] == ""
        prefix = Path(env["PYTHONPYCACHEPREFIX"])
        assert prefix.is_absolute()
        assert not prefix.is_relative_to(REPO)
    monkeypatch.setenv("PYTHONPYCACHEPREFIX", "/elsewhere")
    kept = {s.name: s for s in build_steps(Plan(REPO, REPO / "build"))}["properties (ci)"].env
    assert "PYTHONPYCACHEPREFIX" not in kept


HEALTHY_PACKAGED_TARGET = """#!/bin/sh
# Behaves like a libFuzzer binary that runs its inputs and finds nothing.
echo "Done 1 runs in 0 second(s)"
"""


def test_a_narrower_run_keeps_only_the_packages_it_used(tmp_path: Path) -> None:
    """A run that reuses a wider build (same inputs) packages nothing again, runs the target it
    asks for, and removes the packages it did not use: the build folder holds what the last
    run used, not an earlier build's gigabyte."""
    cflite = _load("_cflite_local_keep", REPO / "scripts" / "cflite_local.py")
    root = tmp_path / "root"
    (root / "fuzz").mkdir(parents=True)
    (root / "core").mkdir()
    build = tmp_path / "cflite"
    out = build / "out"
    targets = ["fuzz_a", "fuzz_b"]
    for target in targets:
        (root / "fuzz" / f"{target}.py").write_text("")
        _outputs(out, target)
        (out / f"{target}.pkg").write_bytes(b"package")
        (out / target).write_text(HEALTHY_PACKAGED_TARGET)
        (out / target).chmod(0o755)
    stamp = {"key": cflite.inputs_key(root), "targets": targets, "recorded": targets}
    (build / "inputs.json").write_text(json.dumps(stamp))
    arguments = ["--root", str(root), "--out", str(build), "--runs", "1"]
    assert cflite.main([*arguments, "--package", "fuzz_a"]) == 0
    assert (out / "fuzz_a.pkg").is_file()
    assert not (out / "fuzz_b.pkg").exists()
    assert not (out / "fuzz_b").exists()
    assert (out / "fuzz_b_seed_corpus.zip").is_file()  # build.sh's outputs stay
    assert json.loads((build / "inputs.json").read_text())["targets"] == ["fuzz_a"]


# Tests in a property module of the library (properties/test_*.py) that may carry the
# ``environment`` marker, each with its reason: what they prove is a third-party tool's
# behaviour, and the project's own check of the same subject runs in every gate.
ENVIRONMENT_IN_PROPERTY_MODULES = {
    # The attack fixtures still run a program under plain git; the defences against each
    # vector (collector, env, manifest, CLI) are this module's other tests, in every gate.
    "test_untrusted_checkout.py::test_vector_is_live_under_plain_git": "git's behaviour",
    # pre-commit installs the package and runs the hook; the hook's definition is pinned by
    # test_hook_definition_passes_skill_md_file_names and the lint CLI by its own tests.
    "test_precommit.py::test_real_pre_commit_fails_on_a_broken_skill_and_passes_on_a_good_one": (
        "pre-commit's behaviour"
    ),
}


def _marked_environment(path: Path) -> list[str]:
    """The tests of ``path`` marked ``environment`` (a decorator or a module's pytestmark)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))

    def marks(node: ast.AST) -> bool:
        return any(
            isinstance(part, ast.Attribute) and part.attr == ENVIRONMENT for part in ast.walk(node)
        )

    module = any(
        isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets)
        and marks(node.value)
        for node in tree.body
    )
    return [
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.name.startswith("test")
        and (module or any(marks(decorator) for decorator in node.decorator_list))
    ]


def environment_tests() -> dict[str, list[str]]:
    """The ``environment`` tests of every property module (harness/ included), by module."""
    found = {}
    for path in sorted((REPO / "properties").rglob("test_*.py")):
        names = _marked_environment(path)
        if names:
            found[path.relative_to(REPO / "properties").as_posix()] = names
    return found


def test_the_quick_properties_leave_the_environment_to_the_full_gate() -> None:
    """The quick gate's properties step deselects the ``environment`` tests; ``--full`` runs
    every test, and no other step deselects anything by marker."""
    quick = {s.name: s.command for s in build_steps(Plan(REPO, REPO / "build"))}
    command = quick[PROPERTIES_CI]
    pairs = list(itertools.pairwise(command))
    assert [pair for pair in pairs if pair[0] == "-m"] == [
        ("-m", "pytest"),
        ("-m", "not environment"),
    ]
    full = {s.name: s.command for s in build_steps(Plan(REPO, REPO / "build", full=True))}
    for name in (PROPERTIES_CI, "properties (nightly)"):
        assert f"not {ENVIRONMENT}" not in full[name]
    assert "environment:" in (REPO / "pyproject.toml").read_text(encoding="utf-8")


def test_the_environment_marker_is_on_no_core_property_unless_listed() -> None:
    """A property module's test (``properties/test_*.py``) carries the ``environment`` marker
    only if listed above with its reason; the harness's own tests (``properties/harness/``)
    may carry it where a cheaper test of the same behaviour stays in the quick gate."""
    found = environment_tests()
    listed = {
        f"{module}::{name}"
        for module, names in found.items()
        if "/" not in module
        for name in names
    }
    assert listed == set(ENVIRONMENT_IN_PROPERTY_MODULES)


def test_the_environment_check_finds_a_decorator_and_a_module_mark(tmp_path: Path) -> None:
    """Negative control of the convention check: a marked test is found either way."""
    one = tmp_path / "test_one.py"
    one.write_text(
        "import pytest\n\n@pytest.mark.environment\ndef test_a():\n    pass\n\n"
        "def test_b():\n    pass\n"
    )
    assert _marked_environment(one) == ["test_a"]
    whole = tmp_path / "test_whole.py"
    whole.write_text(
        "import pytest\n\npytestmark = [pytest.mark.environment]\n\ndef test_c(): pass\n"
    )
    assert _marked_environment(whole) == ["test_c"]
