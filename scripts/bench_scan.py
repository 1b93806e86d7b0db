"""Benchmark: discovery of 512 skills against the raw-read floor and two peers.

Generates two roots of 256 packages each (about 300-byte descriptions, 2 KB
bodies) in a temporary folder and measures, as the median of several rounds:

* ``floor``: plain ``open().read()`` of every SKILL.md in a loop;
* ``scan``: ``SkillManager.scan`` through ``LocalFileOperator`` (list, bounded
  reads, frontmatter parse and validation, precedence, final re-read);
* ``skills-ref``: ``read_properties`` for each package plus ``to_prompt``;
* ``python-frontmatter``: ``frontmatter.load`` for each SKILL.md.

Target (issue 4): ``scan`` at most 3x ``floor``. Run: ``python scripts/bench_scan.py``.
The two peers are optional (the ``bench`` extra); a missing one is reported, not fatal.
"""

from __future__ import annotations

import asyncio
import importlib
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "core"))

from a13n_harness.capabilities import FileSkillSource, SkillManager
from a13n_harness.environment import LocalFileOperator

ROOTS = ("/.agents/skills", "/.claude/skills")
PACKAGES_PER_ROOT = 256
ROUNDS = 15


def build_tree(base: Path) -> list[Path]:
    """Write the benchmark tree below ``base``; returns every package directory."""
    packages: list[Path] = []
    for root_index, root in enumerate(ROOTS):
        for index in range(PACKAGES_PER_ROOT):
            name = f"skill-{root_index}-{index:03d}"
            directory = base / root.lstrip("/") / name
            directory.mkdir(parents=True)
            description = f"Use {name} when the task needs it. " + "word " * 55
            body = "".join(
                f"Step {line}: do the thing carefully and check it.\n" for line in range(40)
            )
            (directory / "SKILL.md").write_text(
                f"---\nname: {name}\ndescription: {description.strip()}\n---\n\n# {name}\n\n{body}",
                encoding="utf-8",
            )
            packages.append(directory)
    return packages


def _median(action: Callable[[], object], rounds: int = ROUNDS) -> float:
    action()  # warm caches and imports
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        action()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def bench_scan() -> list[tuple[str, float]]:
    """``(label, median seconds)`` for the floor, our scan and each installed peer."""
    results: list[tuple[str, float]] = []
    with tempfile.TemporaryDirectory() as temporary:
        base = Path(temporary)
        packages = build_tree(base)
        documents = [str(package / "SKILL.md") for package in packages]

        def floor() -> None:
            for document in documents:
                with open(document, encoding="utf-8") as handle:
                    handle.read()

        results.append(("floor", _median(floor)))

        manager = SkillManager(
            tuple(FileSkillSource(f"s{i}", (root,)) for i, root in enumerate(ROOTS))
        )
        files = LocalFileOperator(base)

        def scan() -> None:
            items = asyncio.run(manager.scan(files=files))
            assert len(items) == len(packages)

        results.append(("scan", _median(scan)))

        try:
            skills_ref = importlib.import_module("skills_ref")
        except ImportError:
            print("skills-ref not installed: skipped", file=sys.stderr)
        else:

            def reference() -> None:
                for package in packages:
                    skills_ref.read_properties(package)
                skills_ref.to_prompt(packages)

            results.append(("skills-ref", _median(reference, rounds=3)))

        try:
            frontmatter = importlib.import_module("frontmatter")
        except ImportError:
            print("python-frontmatter not installed: skipped", file=sys.stderr)
        else:

            def python_frontmatter() -> None:
                for document in documents:
                    frontmatter.load(document)

            results.append(("python-frontmatter", _median(python_frontmatter, rounds=5)))
    return results


def main() -> int:
    results = bench_scan()
    floor = dict(results)["floor"]
    print(f"{'what':<20} {'median ms':>10} {'x floor':>8}")
    for label, seconds in results:
        print(f"{label:<20} {seconds * 1e3:>10.2f} {seconds / floor:>8.2f}")
    ratio = dict(results)["scan"] / floor
    print(f"scan / floor = {ratio:.2f} (target <= 3.00) on {os.cpu_count()} CPUs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
