"""What token budgets and the compact fit buy, per catalog and window (docs/tokens.md).

    python scripts/tokens_table.py [--repos DIR] [WORKSPACE:ROOT[,ROOT...]]...

``--repos DIR`` adds the seven public skill repositories exported there by
``scripts/real_repos.py export`` (their roots as ``scripts/real_repos.py`` lists them); each
other argument is a workspace scanned like ``a13n-skills catalog WORKSPACE --root ROOT...``
(invalid packages skipped). A 512-entry synthetic catalog (``scripts/bench.py``'s) is always
added. For each catalog and window (200,000/16,000 and 8,192/1,024) it prints a Markdown row:
how many skills each budget unit lists with the prefix rule and with the compact fit (and the
compact form that won): UTF-8 bytes (contract §4), cl100k_base and o200k_base tokens (§9).
Every rendering is certified before it is counted. Needs the tokens extra.
"""

from __future__ import annotations

import argparse
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
from a13n_harness.tokenizers import TOKENIZERS, token_counter

WINDOWS = ((200_000, 16_000), (8_192, 1_024))
FITS = ("prefix", "compact")
bench = importlib.import_module("bench")  # scripts/bench.py: the same synthetic catalog
real_repos = importlib.import_module("real_repos")  # the seven repositories and their roots


def _cell(listed: int, total: int, form: str, fit: str) -> str:
    shown = f"{listed}" if listed < total else f"**{listed}**"
    return shown if fit == "prefix" else f"{shown} ({form})"


def rows(label: str, catalog: SkillCatalog) -> list[str]:
    found = []
    for context, reserve in WINDOWS:
        allowance = catalog_allowance(context, reserve)
        cells = []
        for fit in FITS:
            by_bytes = render_catalog(catalog, allowance, fit)
            verify_rendering(catalog, allowance, by_bytes, fit)
            cells.append(_cell(by_bytes.listed, catalog.total, by_bytes.form, fit))
        for name in TOKENIZERS:
            counter = token_counter(name)
            for fit in FITS:
                counted = render_catalog_counted(catalog, allowance, counter, fit)
                verify_rendering_counted(catalog, allowance, counted, counter, fit)
                cells.append(_cell(counted.listed, catalog.total, counted.form, fit))
        found.append(
            f"| {label} | {catalog.total} | {context:,}/{reserve:,} | {allowance:,} | "
            + " | ".join(cells)
            + " |"
        )
    return found


def _workspaces(repos: Path | None, arguments: Sequence[str]) -> list[tuple[str, str, list[str]]]:
    found = []
    if repos is not None:
        for name in real_repos.REPOSITORIES:
            workspace = repos / name
            if workspace.is_dir():
                roots = [f"/{root}" for root in real_repos._roots(workspace, name)]
                found.append((name.replace("+", "/"), str(workspace), roots))
    for argument in arguments:
        workspace, _, listed = argument.partition(":")
        found.append((Path(workspace).name, workspace, listed.split(",") if listed else []))
    return found


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repos", type=Path, help="the folder real_repos.py exported to")
    parser.add_argument("workspaces", nargs="*", metavar="WORKSPACE:ROOT[,ROOT...]")
    options = parser.parse_args(argv)
    units = ["bytes", *TOKENIZERS]
    print(
        "| catalog | skills | window | allowance | "
        + " | ".join(f"{unit} {fit}" for unit in units for fit in FITS)
        + " |"
    )
    print("|---|---:|---|---:|" + "---:|" * (len(units) * len(FITS)))
    for label, workspace, roots in _workspaces(options.repos, options.workspaces):
        scan = scan_workspace(workspace, roots, "skip", Progress())
        for row in rows(label, scan.catalog()):
            print(row, flush=True)
    synthetic: SkillCatalog = bench.catalog_of(512)
    for row in rows("synthetic 512 (scripts/bench.py)", synthetic):
        print(row, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
