"""Benchmark: discovery of 512 skills against the raw-read floor, measured in one run.

Generates two roots of 256 packages each (about 300-byte descriptions, 2 KB
bodies, about 2.4 KB a file) in a temporary folder and times, in interleaved
rounds (medians), the floor, the guarded parse alone, a first scan and a
rescan (see :func:`bench_scan`). ``skills-ref`` (the ``bench`` extra) is timed
too when installed; a missing peer is reported, not fatal.

Target: ``scan`` at most 3.5x ``floor``.
Run: ``python scripts/bench_scan.py`` or ``python scripts/bench.py scan``.

``scan 10,000 skills`` (:func:`bench_scan_growth`): one root of 1,000 and
of 10,000 packages in checkout mode, time and peak memory per skill (target: flat).
Run: ``python scripts/bench_scan.py growth`` or ``python scripts/bench.py scan-growth``.
"""

from __future__ import annotations

import asyncio
import importlib
import os
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "core"))

from a13n_harness.capabilities import FileSkillSource, SkillManager, SkillsPolicy
from a13n_harness.capabilities.verdicts import clear_verdict_memo
from a13n_harness.context.frontmatter import parse_skill_document
from a13n_harness.environment import LocalFileOperator

ROOTS = ("/.agents/skills", "/.claude/skills")
PACKAGES_PER_ROOT = 256
ROUNDS = 31  # interleaved rounds; the floor is about 5 ms, so fewer let one hiccup move a median


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


# Per case, the median of its time over the floor's in the same round (see _interleaved).
PAIRED: dict[str, float] = {}


def _interleaved(cases: dict[str, Callable[[], object]], rounds: int) -> dict[str, float]:
    """Median seconds of each case, rounds interleaved so the machine's noise hits all alike.

    Also fills :data:`PAIRED` when there is a ``floor`` case: each round's time over the
    floor's time of that same round, then the median of those ratios. A slow stretch of
    the machine (another tenant, a frequency step) lengthens both halves of a pair, so
    the paired median moves less from run to run than the ratio of the two medians."""
    for action in cases.values():
        action()  # warm caches and imports
    samples: dict[str, list[float]] = {label: [] for label in cases}
    for _ in range(rounds):
        for label, action in cases.items():
            start = time.perf_counter()
            action()
            samples[label].append(time.perf_counter() - start)
    floors = samples.get("floor")
    if floors is not None:
        for label, values in samples.items():
            PAIRED[label] = statistics.median(v / f for v, f in zip(values, floors, strict=True))
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


GROWTH_SCALES = (1_000, 10_000)
GROWTH_ROUNDS = 3


def build_flat_root(base: Path, count: int) -> None:
    """``count`` packages in one root, ``/skills`` (checkout mode lists it completely)."""
    for index in range(count):
        name = f"skill-{index:05d}"
        directory = base / "skills" / name
        directory.mkdir(parents=True)
        (directory / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: Use {name} when the task needs it. "
            + "word " * 55
            + f"\n---\n\n# {name}\n\n"
            + "Step: do the thing carefully and check it.\n" * 40,
            encoding="utf-8",
        )


def bench_scan_growth(
    scales: tuple[int, ...] = GROWTH_SCALES, rounds: int = GROWTH_ROUNDS
) -> list[tuple[int, float, float]]:
    """``(skills, seconds per skill, peak bytes per skill)`` of a first scan (memo cleared)
    of one root of ``skills`` packages in checkout mode, the median of ``rounds`` runs.

    The peak is ``tracemalloc``'s (Python allocations) over the scan alone, measured in a
    separate run from the time (tracing slows it down). Flat from 1,000 to 10,000 is the
    target: checkout mode pages through a root, and nothing is quadratic in its size.
    """

    rows: list[tuple[int, float, float]] = []
    manager = SkillManager([FileSkillSource("s", ("/skills",))], policy=SkillsPolicy.checkout())
    for count in scales:
        with tempfile.TemporaryDirectory() as temporary:
            base = Path(temporary)
            build_flat_root(base, count)
            with LocalFileOperator(base) as files:

                def scan(files: LocalFileOperator = files, count: int = count) -> None:
                    clear_verdict_memo()
                    items = asyncio.run(manager.scan(files=files))
                    assert len(items) == count

                scan()  # warm the page cache and imports
                times = []
                for _ in range(rounds):
                    start = time.perf_counter()
                    scan()
                    times.append(time.perf_counter() - start)
                clear_verdict_memo()
                tracemalloc.start()
                scan()
                _, peak = tracemalloc.get_traced_memory()
                tracemalloc.stop()
                clear_verdict_memo()
        rows.append((count, statistics.median(times) / count, peak / count))
    return rows


def report_growth(rows: list[tuple[int, float, float]]) -> None:
    print("\n## scan N skills in one root (checkout mode, first scan), per skill")
    first_time, first_peak = rows[0][1], rows[0][2]
    for count, seconds, peak in rows:
        print(
            f"  {count:>6} skills  {seconds * 1e6:8.1f} us/skill  x{seconds / first_time:6.2f}"
            f"   peak {peak / 1024:7.2f} KiB/skill  x{peak / first_peak:6.2f}"
        )
    spread_time = max(r[1] for r in rows) / min(r[1] for r in rows)
    spread_peak = max(r[2] for r in rows) / min(r[2] for r in rows)
    print(f"  spread: time {spread_time:.2f}x, peak memory {spread_peak:.2f}x (target <= 1.5x)")


def main() -> int:
    if sys.argv[1:] == ["growth"]:
        report_growth(bench_scan_growth())
        return 0
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
    print(
        f"paired (median of per-round ratios): scan / floor = {PAIRED['scan']:.2f}, "
        f"first scan / floor = {PAIRED['scan, first in the process']:.2f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
