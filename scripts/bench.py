"""Benchmarks, reported as ratios against a reference measured in the same run.

This machine is shared and noisy: absolute times mean little, ratios against
a reference timed alongside (interleaved rounds, medians) mean more.

    python scripts/bench.py            # everything
    python scripts/bench.py render     # one section: render, parse, parse-growth, scan
"""

from __future__ import annotations

import importlib
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import yaml

from a13n_harness.context.catalog import CatalogEntry, SkillCatalog
from a13n_harness.context.frontmatter import FrontmatterLimits, parse_skill_document
from a13n_harness.context.render import reference_render, render_catalog

ROUNDS = 7


def _optional(module: str) -> ModuleType | None:
    """Benchmark-only peers (pip install -e '.[bench]') and the scan section, when present."""
    try:
        return importlib.import_module(module)
    except ImportError:
        return None


python_frontmatter = _optional("frontmatter")
scan_module = _optional("bench_scan")


def per_call(function: Callable[[], object], calls: int) -> float:
    started = time.perf_counter()
    for _ in range(calls):
        function()
    return (time.perf_counter() - started) / calls


def interleaved(cases: Sequence[tuple[str, Callable[[], object], int]]) -> dict[str, float]:
    """Median seconds per call of each case, rounds interleaved so noise hits all alike."""
    samples: dict[str, list[float]] = {label: [] for label, _, _ in cases}
    for _, function, calls in cases:
        per_call(function, max(1, calls // 10))  # warm up
    for _ in range(ROUNDS):
        for label, function, calls in cases:
            samples[label].append(per_call(function, calls))
    return {label: statistics.median(values) for label, values in samples.items()}


def report(title: str, medians: dict[str, float], reference: str) -> None:
    print(f"\n## {title} (reference: {reference})")
    base = medians[reference]
    for label, seconds in medians.items():
        print(f"  {label:<52} {seconds * 1e3:10.4f} ms   x{seconds / base:8.3f}")


def catalog_of(count: int) -> SkillCatalog:
    description = "Review a change for correctness, style and risk; <b>&</b> included. " * 4
    entries = tuple(
        CatalogEntry(
            f"skill-{index:05d}",
            description[:300],
            f"/workspace/.agents/skills/skill-{index:05d}/SKILL.md",
        )
        for index in range(count)
    )
    return SkillCatalog(entries, 0, ("/workspace/.agents/skills", "/workspace/.claude/skills"))


def bench_render() -> None:
    catalog = catalog_of(512)
    full = len(render_catalog(catalog, 10**9).text.encode())
    budgets = [full * step // 19 for step in range(20)]

    def fresh_copies() -> list[SkillCatalog]:
        return [SkillCatalog(catalog.entries, catalog.unlisted, catalog.roots) for _ in budgets]

    def cold() -> None:
        # A catalog rendered for the first time: every entry is encoded and measured.
        for copy, budget in zip(fresh_copies(), budgets, strict=True):
            render_catalog(copy, budget)

    def construct_only() -> None:
        fresh_copies()

    def warm() -> None:
        for budget in budgets:
            render_catalog(catalog, budget)

    started = time.perf_counter()
    for budget in budgets:
        reference_render(catalog, budget)
    oracle = time.perf_counter() - started  # one sweep: the plain oracle is O(n^2) per budget
    medians = interleaved(
        [
            ("20 fresh catalogs constructed (subtracted below)", construct_only, 3),
            ("render_catalog cold, 20 budgets", cold, 3),
            ("render_catalog warm, 20 budgets", warm, 50),
        ]
    )
    cold_seconds = (
        medians["render_catalog cold, 20 budgets"]
        - medians["20 fresh catalogs constructed (subtracted below)"]
    )
    rows = {
        "reference_render, 20 budgets (one sweep)": oracle,
        "render_catalog cold (first render of a catalog), 20": cold_seconds,
        "render_catalog warm (catalog rendered before), 20": medians[
            "render_catalog warm, 20 budgets"
        ],
    }
    report(
        "render: 512 entries, 20 budgets from 0 to the full size",
        rows,
        "reference_render, 20 budgets (one sweep)",
    )
    print(
        f"  per call: cold {cold_seconds / 20 * 1e3:.4f} ms, "
        f"warm {medians['render_catalog warm, 20 budgets'] / 20 * 1e3:.4f} ms (target <= 0.5 ms)"
    )

    big = catalog_of(4096)
    big_full = len(render_catalog(big, 10**9).text.encode())
    small_copies = [SkillCatalog(catalog.entries) for _ in range(ROUNDS * 4)]
    big_copies = [SkillCatalog(big.entries) for _ in range(ROUNDS * 4)]
    growth = interleaved(
        [
            ("warm, 512 entries, half budget", lambda: render_catalog(catalog, full // 2), 200),
            ("warm, 4,096 entries, half budget", lambda: render_catalog(big, big_full // 2), 50),
            (
                "cold, 512 entries, half budget",
                lambda: render_catalog(small_copies.pop(), full // 2),
                1,
            ),
            (
                "cold, 4,096 entries, half budget",
                lambda: render_catalog(big_copies.pop(), big_full // 2),
                1,
            ),
        ]
    )
    report(
        "render: growth in entries (linear means x8 within warm and within cold)",
        growth,
        "warm, 512 entries, half budget",
    )


TYPICAL = (
    "---\n"
    "name: code-review\n"
    "description: >\n"
    "  Review a code change for correctness, maintainability and security. Use when the\n"
    "  user asks for a review of a diff, a pull request or a patch, or before merging.\n"
    "license: Apache-2.0\n"
    "allowed-tools: [read, grep, bash]\n"
    "metadata:\n"
    "  author: platform-team\n"
    '  version: "1.4.2"\n'
    "  tags: [review, quality, security]\n"
    "---\n"
    "# Code review\n\nFollow the repository review workflow.\n"
)


def near_limit() -> str:
    lines = ["---", "name: big-skill", "description: A skill with a lot of metadata."]
    lines.append("metadata:")
    index = 0
    # Under both limits: about 32 KiB and fewer than 1,024 nodes.
    while sum(len(line) + 1 for line in lines) < 32_000 - 80:
        lines.append(f"  key-{index:04d}: value number {index} with enough words to be a long line")
        index += 1
    return "\n".join(lines) + "\n---\nbody\n"


def bench_parse() -> None:
    if python_frontmatter is None:
        print("\n(python-frontmatter not installed: pip install -e '.[bench]')")
    for title, text in (
        ("typical SKILL.md", TYPICAL),
        ("SKILL.md near the 32 KiB limit", near_limit()),
    ):
        data = text.encode()
        yaml_text = text.split("---\n")[1]
        calls = 300 if len(yaml_text) < 2000 else 10

        def safe_load(t: str = yaml_text) -> object:
            return yaml.load(t, Loader=yaml.CSafeLoader)

        def ours(d: bytes = data) -> object:
            return parse_skill_document(d)

        cases: list[tuple[str, Callable[[], object], int]] = [
            ("yaml.load(CSafeLoader), no guard", safe_load, calls),
            ("parse_skill_document", ours, calls),
        ]
        if python_frontmatter is not None:

            def theirs(t: str = text) -> object:
                return python_frontmatter.loads(t)

            cases.append(("python-frontmatter loads", theirs, calls))
        medians = interleaved(cases)
        size = len(yaml_text.encode())
        report(
            f"parse: {title} ({size} bytes of frontmatter)",
            medians,
            "yaml.load(CSafeLoader), no guard",
        )


def keys_document(count: int, layout: str) -> bytes:
    """A SKILL.md with ``count`` extra keys, at the top level or one level down."""
    keys = [f"key-{index}: value {index}" for index in range(count)]
    if layout == "top-level block":
        body = "".join(key + "\n" for key in keys)
    elif layout == "top-level flow, one line":
        body = "{" + ", ".join(keys) + ", k: v}\n"
    else:
        body = "m:\n" + "".join(f"  {key}\n" for key in keys)
    if layout == "top-level flow, one line":
        body = body[:-2] + ", name: wide-skill, description: Many keys}\n"
    else:
        body += "name: wide-skill\ndescription: Many keys\n"
    return f"---\n{body}---\nbody\n".encode()


def bench_parse_growth() -> None:
    """Issue 9 defect 6(a): time per input byte at 1x, 4x and 16x must stay within 1.5x."""
    limits = FrontmatterLimits(max_bytes=1 << 26, max_nodes=1 << 22)
    base = 1_500  # keys at 1x: about 30 KiB, the default frontmatter limit
    for layout in ("top-level block", "top-level flow, one line", "nested one level (reference)"):
        documents = {scale: keys_document(base * scale, layout) for scale in (1, 4, 16)}

        def parse(data: bytes) -> Callable[[], object]:
            return lambda: parse_skill_document(data, limits)

        medians = interleaved(
            [
                (f"{scale:>2}x ({len(data):>7} bytes)", parse(data), max(1, 16 // scale))
                for scale, data in documents.items()
            ]
        )
        per_byte = {
            label: seconds / len(documents[scale])
            for (label, seconds), scale in zip(medians.items(), documents, strict=True)
        }
        print(f"\n## parse growth: {layout}, time per input byte (reference: 1x)")
        first = next(iter(per_byte.values()))
        for label, seconds in per_byte.items():
            print(f"  {label:<52} {seconds * 1e9:10.1f} ns/B   x{seconds / first:8.3f}")
        worst = max(per_byte.values()) / min(per_byte.values())
        print(f"  spread {worst:.2f}x (target <= 1.5x)")


def bench_scan_section() -> None:
    if scan_module is None:
        print("\n(scan benchmark unavailable: scripts/bench_scan.py not importable)")
        return
    results: list[tuple[str, float]] = scan_module.bench_scan()
    report("scan: 512 skills through LocalFileOperator", dict(results), results[0][0])


SECTIONS = {
    "render": bench_render,
    "parse": bench_parse,
    "parse-growth": bench_parse_growth,
    "scan": bench_scan_section,
}


def main(argv: Sequence[str]) -> int:
    chosen = argv or list(SECTIONS)
    version = sys.version.split()[0]
    print(
        f"python {version}, libyaml {yaml.__with_libyaml__}, {ROUNDS} interleaved rounds, medians"
    )
    for name in chosen:
        SECTIONS[name]()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
