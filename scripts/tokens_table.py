"""What token budgets buy: byte rule against token rule, per catalog and window (docs/tokens.md).

    python scripts/tokens_table.py [WORKSPACE:ROOT[,ROOT...]]...

Each argument is a workspace scanned like ``a13n-skills catalog WORKSPACE --root ROOT...``
(invalid packages skipped); a 512-entry synthetic catalog (``scripts/bench.py``'s) is always
added. For each catalog and window it prints, as a Markdown table row, how many entries the byte
rule (docs/contract.md §4) and the token rule (§9, cl100k_base) list and the exact cl100k token
count of each rendered block. Needs the tokens extra.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from a13n_harness.cli._output import Progress
from a13n_harness.cli._workspace import scan_workspace
from a13n_harness.context.catalog import SkillCatalog
from a13n_harness.context.render import catalog_allowance, render_catalog, verify_rendering
from a13n_harness.context.tokens import render_catalog_counted, verify_rendering_counted
from a13n_harness.tokenizers import token_counter

WINDOWS = ((200_000, 16_000), (8_192, 1_024))
bench = importlib.import_module("bench")  # scripts/bench.py: the same synthetic catalog


def rows(label: str, catalog: SkillCatalog) -> list[str]:
    counter = token_counter("cl100k_base")
    found = []
    for context, reserve in WINDOWS:
        allowance = catalog_allowance(context, reserve)
        by_bytes = render_catalog(catalog, allowance)
        verify_rendering(catalog, allowance, by_bytes)
        by_tokens = render_catalog_counted(catalog, allowance, counter)
        verify_rendering_counted(catalog, allowance, by_tokens, counter)
        found.append(
            f"| {label} | {catalog.total} | {context:,}/{reserve:,} | {allowance:,} "
            f"| {by_bytes.listed} ({by_bytes.form}) | {len(by_bytes.text.encode()):,} "
            f"| {counter.count(by_bytes.text) if by_bytes.text else 0:,} "
            f"| {by_tokens.listed} ({by_tokens.form}) | {len(by_tokens.text.encode()):,} "
            f"| {by_tokens.tokens:,} |"
        )
    return found


def main(argv: Sequence[str]) -> int:
    print(
        "| catalog | skills | window | allowance | byte rule lists | its bytes | its tokens "
        "| token rule lists | its bytes | its tokens |"
    )
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    for argument in argv:
        workspace, _, roots = argument.partition(":")
        scan = scan_workspace(workspace, roots.split(",") if roots else [], "skip", Progress())
        for row in rows(Path(workspace).name, scan.catalog()):
            print(row)
    synthetic: SkillCatalog = bench.catalog_of(512)
    for row in rows("synthetic (scripts/bench.py catalog_of(512))", synthetic):
        print(row)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
