"""What ``pip install`` gets: the sdist and the wheel built from a copy of this checkout.

The wheel holds the package, ``py.typed`` and the LICENSE, and nothing of the harness
(tests, corpus, fuzz targets, mutants); its metadata carries the one version, the
licence expression, the POSIX-only classifiers, the project URLs and the ``testing``
extra. The sdist holds the LICENSE too. Built without an isolated environment
(setuptools>=77 is in the dev extra), so the test takes seconds and needs no network.
"""

from __future__ import annotations

import email
import shutil
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from a13n_harness._version import __version__
from bounded import run_bounded

REPO = Path(__file__).resolve().parent.parent
_SOURCES = ("pyproject.toml", "README.md", "LICENSE")


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    source = tmp_path_factory.mktemp("source")
    for name in _SOURCES:
        shutil.copy2(REPO / name, source / name)
    # What a fresh clone has besides the package: the harness must stay out of the wheel.
    for name in ("properties", "corpus", "fuzz", "mutants"):
        shutil.copytree(REPO / name, source / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(
        REPO / "core", source / "core", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info")
    )
    out = tmp_path_factory.mktemp("dist")
    result = run_bounded(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(source)],
        capture_output=True,
        text=True,
        cpu_seconds=600,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    return out


def test_wheel_holds_the_package_its_types_and_the_license_and_no_harness(dist: Path) -> None:
    (wheel,) = dist.glob("*.whl")
    assert wheel.name == f"a13n_harness_skills-{__version__}-py3-none-any.whl"
    names = zipfile.ZipFile(wheel).namelist()
    info = f"a13n_harness_skills-{__version__}.dist-info"
    for required in (
        "a13n_harness/__init__.py",
        "a13n_harness/__main__.py",
        "a13n_harness/py.typed",
        "a13n_harness/context/lint/__init__.py",
        "a13n_harness/context/lint/_references.py",
        "a13n_harness/cli/_sarif.py",
        "a13n_harness/testing/strategies.py",
        f"{info}/licenses/LICENSE",
        f"{info}/entry_points.txt",
    ):
        assert required in names, required
    tops = {name.split("/", 1)[0] for name in names}
    assert tops == {"a13n_harness", info}, tops
    license_text = zipfile.ZipFile(wheel).read(f"{info}/licenses/LICENSE")
    assert license_text == (REPO / "LICENSE").read_bytes()
    assert b"Apache License" in license_text
    assert b"Version 2.0, January 2004" in license_text


def test_wheel_metadata(dist: Path) -> None:
    (wheel,) = dist.glob("*.whl")
    info = f"a13n_harness_skills-{__version__}.dist-info"
    metadata = email.message_from_bytes(zipfile.ZipFile(wheel).read(f"{info}/METADATA"))
    assert metadata["Version"] == __version__
    assert metadata["License-Expression"] == "Apache-2.0"
    classifiers = metadata.get_all("Classifier") or []
    assert "Operating System :: POSIX" in classifiers
    assert "Typing :: Typed" in classifiers
    assert "POSIX only" in metadata["Summary"]
    urls = metadata.get_all("Project-URL") or []
    assert any(url.startswith("Homepage, https://") for url in urls)
    assert any(url.startswith("Changelog, ") for url in urls)
    assert "testing" in (metadata.get_all("Provides-Extra") or [])
    requires = metadata.get_all("Requires-Dist") or []
    assert any(r.startswith("hypothesis") and 'extra == "testing"' in r for r in requires)
    entry_points = zipfile.ZipFile(wheel).read(f"{info}/entry_points.txt").decode()
    assert "a13n-skills = a13n_harness.cli:main" in entry_points


def test_sdist_holds_the_license(dist: Path) -> None:
    (sdist,) = dist.glob("*.tar.gz")
    with tarfile.open(sdist) as archive:
        names = archive.getnames()
    root = f"a13n_harness_skills-{__version__}"
    assert f"{root}/LICENSE" in names
    assert f"{root}/core/a13n_harness/py.typed" in names
    assert not any(name.startswith(f"{root}/corpus") for name in names)
