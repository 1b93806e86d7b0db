"""What the quick gate leaves out to stay within its time, and what it still proves.

The quick gate (``python scripts/verify.py``) must fit in 600 CPU seconds and 300 s of wall
time on two cores (README); ``--full`` runs the rest. Each cut here is pinned with the check
that keeps it honest: the part the quick gate still runs must still fail on its defect.
"""

from __future__ import annotations

import importlib.util
import sys
import zipfile
from pathlib import Path
from typing import Any

from harness.scratch import REPO

if str(REPO / "scripts") not in sys.path:
    sys.path.append(str(REPO / "scripts"))  # the gate's package, _gate

from _gate.steps import QUICK_PACKAGE, Plan, build_steps


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
    out.mkdir(exist_ok=True)
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
