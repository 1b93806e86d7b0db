"""Build the wheel and install it into a fresh virtual environment, for the gate's wheel run.

``python scripts/wheel_env.py --out build/wheel-env`` copies what a clean clone holds of the
package (``pyproject.toml``, ``README.md``, ``LICENSE``, ``core/``) to a scratch folder,
builds the wheel there (``python -m build --wheel --no-isolation``: setuptools is in the dev
extra, so no network), makes a new virtual environment at ``--out`` and installs the wheel
into it with pip (its console script ``a13n-skills`` included). The test tools (pytest,
Hypothesis, PyYAML, ...) are the running environment's: a ``.pth`` line puts its
site-packages after the new environment's own, so ``import a13n_harness`` finds the wheel,
never the source tree (a ``.pth`` inside a folder added that way is not read, so an editable
install's finder stays off). It checks that, then prints ``1 wheel installed``.

The gate runs the properties with ``--out``'s ``bin/python`` (``verify.py --target wheel``,
what CI runs), as attrs tests what users install rather than its checkout.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SOURCES = ("pyproject.toml", "README.md", "LICENSE")


def run(command: list[str], **kwargs: object) -> None:
    print("$", " ".join(command), flush=True)
    subprocess.run(command, check=True, **kwargs)  # type: ignore[call-overload]


def build_wheel(root: Path, out: Path) -> Path:
    """The wheel of ``root``'s package, built from a copy holding only what a clone has."""
    with tempfile.TemporaryDirectory(prefix="a13n-wheel-") as scratch:
        source = Path(scratch) / "source"
        source.mkdir()
        for name in SOURCES:
            shutil.copy2(root / name, source / name)
        shutil.copytree(
            root / "core",
            source / "core",
            ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"),
        )
        dist = Path(scratch) / "dist"
        run(
            [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(dist)],
            cwd=source,
            stdout=sys.stdout,
        )
        (wheel,) = dist.glob("*.whl")
        out.mkdir(parents=True, exist_ok=True)
        kept = out / wheel.name
        shutil.copy2(wheel, kept)
        return kept


def install(wheel: Path, environment: Path) -> Path:
    """A new virtual environment at ``environment`` holding ``wheel``; its interpreter."""
    shutil.rmtree(environment, ignore_errors=True)
    run([sys.executable, "-m", "venv", "--without-pip", str(environment)])
    python = environment / "bin" / "python"
    run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--quiet",
            "--no-deps",
            "--no-index",
            str(wheel),
        ]
    )
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    tools = dict.fromkeys([sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]])
    (Path(purelib) / "a13n-test-tools.pth").write_text(
        "".join(f"{folder}\n" for folder in tools), encoding="utf-8"
    )
    return python


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--root", type=Path, default=REPO, help="tree whose package is built")
    parser.add_argument("--out", type=Path, required=True, help="the environment to create")
    args = parser.parse_args(argv)
    environment: Path = args.out.resolve()
    wheel = build_wheel(args.root.resolve(), environment.parent / "dist")
    python = install(wheel, environment)
    clean = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    where = subprocess.run(
        [str(python), "-c", "import a13n_harness; print(a13n_harness.__file__)"],
        capture_output=True,
        text=True,
        check=True,
        cwd=environment,
        env=clean,
    ).stdout.strip()
    print(f"a13n_harness imported from {where}")
    if not Path(where).is_relative_to(environment):
        print(f"error: the environment imports a13n_harness from {where}, not the wheel")
        return 1
    print(f"{wheel.name}: 1 wheel installed into {environment}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
