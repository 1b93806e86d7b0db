"""Benchmark: discovery of 512 skills against the raw-read floor, measured in one run.

Generates two roots of 256 packages each (about 300-byte descriptions, 2 KB
bodies, about 2.4 KB a file) in a temporary folder and times, in interleaved
rounds (medians), the floor, the guarded parse alone, a first scan and a
rescan (see :func:`bench_scan`). ``skills-ref`` (the ``bench`` extra) is timed
too when installed; a missing peer is reported, not fatal.

Target: ``scan`` at most 3.5x ``floor``.
Run: ``python scripts/bench_scan.py`` or ``python scripts/bench.py scan``.
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

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "core"))

from a13n_harness.capabilities import FileSkillSource, SkillManager
from a13n_harness.capabilities.verdicts import clear_verdict_memo
from a13n_harness.context.frontmatter import parse_skill_document
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


def _interleaved(cases: dict[str, Callable[[], object]], rounds: int) -> dict[str, float]:
    """Median seconds of each case, rounds interleaved so the machine's noise hits all alike."""
    for action in cases.values():
        action()  # warm caches and imports
    samples: dict[str, list[float]] = {label: [] for label in cases}
    for _ in range(rounds):
        for label, action in cases.items():
            start = time.perf_counter()
            action()
            samples[label].append(time.perf_counter() - start)
    return {label: statistics.median(values) for label, values in samples.items()}


def bench_scan(rounds: int = ROUNDS) -> list[tuple[str, float]]:
    """``(label, median seconds)``: the floor first, then our parse and scans, then peers.

    * ``floor``: ``open(path, "rb").read()`` of every SKILL.md;
    * ``parse_skill_document``: the guarded parse of every (already read) document;
    * ``open + split + CSafeLoader, unguarded``: read, split on the fences and load
      with libyaml, checking nothing (the issue's reference for the target);
    * ``scan, first in the process``: ``SkillManager.scan`` with the verdict memo cleared;
    * ``scan``: a rescan of the unchanged tree (the memo skips the parser; every
      listing, walk, read, precedence step and the final re-read still run).
    """
    results: list[tuple[str, float]] = []
    with tempfile.TemporaryDirectory() as temporary:
        base = Path(temporary)
        packages = build_tree(base)
        documents = [str(package / "SKILL.md") for package in packages]
        blobs = []
        for document in documents:
            with open(document, "rb") as handle:
                blobs.append(handle.read())
        manager = SkillManager(
            tuple(FileSkillSource(f"s{i}", (root,)) for i, root in enumerate(ROOTS))
        )
        files = LocalFileOperator(base)

        def floor() -> None:
            for document in documents:
                with open(document, "rb") as handle:
                    handle.read()

        def parse() -> None:
            for blob in blobs:
                parse_skill_document(blob)

        def split_and_load() -> None:
            # The unguarded peer: read, split on the fences, libyaml's CSafeLoader.
            for document in documents:
                with open(document, "rb") as handle:
                    text = handle.read().decode("utf-8")
                yaml.load(text.split("---\n", 2)[1], Loader=yaml.CSafeLoader)

        def scan() -> None:
            items = asyncio.run(manager.scan(files=files))
            assert len(items) == len(packages)

        def first_scan() -> None:
            clear_verdict_memo()
            scan()

        cases: dict[str, Callable[[], object]] = {
            "floor": floor,
            "parse_skill_document": parse,
            "open + split + CSafeLoader, unguarded": split_and_load,
            "scan, first in the process": first_scan,
            "scan": scan,
        }
        results.extend(_interleaved(cases, rounds).items())
        files.close()

        try:
            skills_ref = importlib.import_module("skills_ref")
        except ImportError:
            print("skills-ref not installed: skipped", file=sys.stderr)
        else:

            def reference() -> None:
                for package in packages:
                    skills_ref.read_properties(package)
                skills_ref.to_prompt(packages)

            results.append(("skills-ref", _interleaved({"r": reference}, 3)["r"]))
    return results


def main() -> int:
    results = bench_scan()
    floor = dict(results)["floor"]
    print(f"{'what':<20} {'median ms':>10} {'x floor':>8}")
    for label, seconds in results:
        print(f"{label:<20} {seconds * 1e3:>10.2f} {seconds / floor:>8.2f}")
    ratio = dict(results)["scan"] / floor
    first = dict(results)["scan, first in the process"] / floor
    print(
        f"scan / floor = {ratio:.2f} (target <= 3.50), first scan / floor = {first:.2f}, "
        f"on {os.cpu_count()} CPUs"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
