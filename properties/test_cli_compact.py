"""``--fit`` and ``--budget-tokens`` on ``catalog`` and ``render-manifest``.

The command line's compact fit is the library's (``render_catalog(..., fit="compact")``),
certified before it is printed; the default (``--fit prefix``) prints exactly what it printed
before, stdout and summary. ``--budget-tokens N`` needs ``--tokenizer`` and excludes the
other budget options (exit 2). On a real collection (K-Dense-AI/claude-scientific-skills, when
exported under ``$A13N_REAL_REPOS``, default ``/work/repos``) the compact fit lists all 134.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from a13n_harness import DefinitionError
from a13n_harness.context.catalog import CatalogEntry, SkillCatalog
from a13n_harness.context.render import (
    COMPACT_FORMS,
    RenderedCatalog,
    render_catalog,
    verify_rendering,
)
from a13n_harness.context.tokens import render_catalog_counted
from a13n_harness.tokenizers import token_counter
from cli_run import run_here

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "examples" / "demo-workspace"
SUMMARY = re.compile(r"listed=(\d+) omitted=(\d+) total=(\d+) bytes=(\d+) .*budget=(\d+)")


def cli(*args: str | os.PathLike[str]) -> subprocess.CompletedProcess[bytes]:
    """The command run in this process (``cli_run.run_here``): what is tested is what it
    prints for a fit and a tokenizer, and each tokenizer is then loaded once, not per run."""
    if args[0] in ("catalog", "manifest") and "--root" not in args:
        args = (*args, "--root", ".agents/skills")  # the catalog's roots: exactly this one
    return run_here(*args, cpu_seconds=300)


def _long_workspace(base: Path, count: int = 30) -> Path:
    """``count`` skills with 300-character descriptions holding markup and a multi-byte letter."""
    for index in range(count):
        folder = base / ".agents/skills" / f"skill-{index:02d}"
        folder.mkdir(parents=True)
        description = (f"Tool {index} <b>&</b> é " * 40)[:300].strip()
        (folder / "SKILL.md").write_text(
            f"---\nname: skill-{index:02d}\ndescription: '{description}'\n---\nBody.\n",
            encoding="utf-8",
        )
    return base


def _catalog_of(document: dict[str, object]) -> SkillCatalog:
    """The catalog ``catalog --json`` rendered (its skills and roots)."""
    skills = document["skills"]
    assert isinstance(skills, list)
    entries = tuple(CatalogEntry(s["name"], s["description"], s["file"]) for s in skills)
    roots = document["roots"]
    assert isinstance(roots, list)
    return SkillCatalog(entries, 0, tuple(roots))


def _summary_fields(stderr: bytes) -> tuple[int, ...]:
    found = SUMMARY.search(stderr.decode().splitlines()[-1])
    assert found is not None, stderr
    return tuple(map(int, found.groups()))


@pytest.mark.parametrize("window", [(), ("--budget-bytes", "3000"), ("--budget-bytes", "900")])
def test_catalog_fit_compact_is_the_certified_library_rendering(
    tmp_path: Path, window: tuple[str, ...]
) -> None:
    workspace = _long_workspace(tmp_path)
    document = json.loads(cli("catalog", workspace, "--json", *window).stdout)
    catalog = _catalog_of(document)
    budget = document["rendering"]["budget_bytes"]
    expected = render_catalog(catalog, budget, "compact")
    result = cli("catalog", workspace, "--fit", "compact", *window)
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode() == expected.text
    verify_rendering(catalog, budget, expected, "compact")
    summary = result.stderr.decode().splitlines()[-1]
    assert summary.endswith(f" fit=compact form={expected.form}")
    assert _summary_fields(result.stderr)[:4] == (
        expected.listed,
        expected.omitted,
        expected.total,
        len(result.stdout),
    )
    as_json = json.loads(cli("catalog", workspace, "--fit", "compact", "--json", *window).stdout)
    assert as_json["rendering"]["form"] == expected.form
    assert as_json["rendering"]["fit"] == "compact"
    assert as_json["rendering"]["text"] == expected.text


def test_the_compact_forms_are_reached_through_the_command_line(tmp_path: Path) -> None:
    """Each form the compact fit takes between 500 and 12,000 bytes (every 250) is printed by
    the command line at the first of those budgets that takes it: the library finds the
    budgets, one command run per form checks the summary names that form."""
    workspace = _long_workspace(tmp_path)
    catalog = _catalog_of(json.loads(cli("catalog", workspace, "--json").stdout))
    first: dict[str, int] = {}
    for budget in range(500, 12_000, 250):
        first.setdefault(render_catalog(catalog, budget, "compact").form, budget)
    assert {"listing", "names"} <= set(first)
    assert set(first) & set(COMPACT_FORMS) - {"names"}
    for form, budget in first.items():
        result = cli("catalog", workspace, "--fit", "compact", "--budget-bytes", str(budget))
        assert result.returncode == 0, result.stderr
        assert result.stderr.decode().split(" form=")[-1].strip() == form, budget


@pytest.mark.parametrize(
    "options",
    [(), ("--context-tokens", "8192", "--reserve-tokens", "1024"), ("--budget-bytes", "700")],
)
def test_default_output_is_the_prefix_rule_unchanged(
    tmp_path: Path, options: tuple[str, ...]
) -> None:
    """No ``--fit``: stdout, summary and JSON as before (``--fit prefix`` is the same run)."""
    workspace = _long_workspace(tmp_path)
    default = cli("catalog", workspace, *options)
    prefix = cli("catalog", workspace, "--fit", "prefix", *options)
    assert default.returncode == prefix.returncode == 0
    assert (default.stdout, default.stderr) == (prefix.stdout, prefix.stderr)
    assert b"fit=" not in default.stderr
    assert b"form=" not in default.stderr
    document = json.loads(cli("catalog", workspace, "--json", *options).stdout)
    assert "fit" not in document["rendering"]
    catalog = _catalog_of(document)
    budget = document["rendering"]["budget_bytes"]
    assert default.stdout.decode() == render_catalog(catalog, budget).text


def test_render_manifest_takes_the_fit(tmp_path: Path) -> None:
    workspace = _long_workspace(tmp_path)
    manifest = tmp_path / "manifest.json"
    assert cli("manifest", workspace, "-o", manifest).returncode == 0
    for budget in ("9200", "2500", "900"):
        from_manifest = cli(
            "render-manifest", manifest, "--fit", "compact", "--budget-bytes", budget
        )
        from_scan = cli("catalog", workspace, "--fit", "compact", "--budget-bytes", budget)
        assert from_manifest.returncode == 0, from_manifest.stderr
        assert from_manifest.stdout == from_scan.stdout
        assert b" fit=compact form=" in from_manifest.stderr
    default = cli("render-manifest", manifest)
    assert default.stdout == cli("catalog", workspace).stdout
    assert b"fit=" not in default.stderr


@pytest.mark.parametrize("command", ["catalog", "render-manifest"])
@pytest.mark.parametrize("fit", ["Compact", "", "longest", "compact "])
def test_an_unknown_fit_is_a_usage_error(tmp_path: Path, command: str, fit: str) -> None:
    target = DEMO if command == "catalog" else tmp_path / "none.json"
    result = cli(command, target, "--fit", fit)
    assert result.returncode == 2
    assert b"usage_invalid" in result.stderr


# ------------------------------------------------------------------ --budget-tokens

tiktoken = pytest.importorskip("tiktoken", reason="the tokens extra (pip install -e '.[dev]')")


@pytest.mark.parametrize("command", ["catalog", "render-manifest"])
@pytest.mark.parametrize(
    ("options", "message"),
    [
        (("--budget-tokens", "500"), b"--budget-tokens needs --tokenizer"),
        (("--budget-tokens", "500", "--tokenizer", "cl100k_base", "--budget-bytes", "9"), b""),
        (("--budget-tokens", "500", "--tokenizer", "o200k_base", "--context-tokens", "9"), b""),
        (("--budget-tokens", "500", "--tokenizer", "cl100k_base", "--reserve-tokens", "9"), b""),
        (("--budget-tokens", "-1", "--tokenizer", "cl100k_base"), b""),
        (("--budget-tokens", "x", "--tokenizer", "cl100k_base"), b""),
    ],
)
def test_budget_tokens_usage_errors(
    tmp_path: Path, command: str, options: tuple[str, ...], message: bytes
) -> None:
    manifest = tmp_path / "manifest.json"
    manifest.write_bytes((REPO / "examples" / "demo-manifest.json").read_bytes())
    target = DEMO if command == "catalog" else manifest
    result = cli(command, target, *options)
    assert result.returncode == 2, result.stderr
    assert b"usage_invalid" in result.stderr
    assert message in result.stderr
    assert result.stdout == b""


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
@pytest.mark.parametrize("fit", ["prefix", "compact"])
def test_budget_tokens_is_the_budget(tmp_path: Path, name: str, fit: str) -> None:
    """``--budget-tokens N --tokenizer NAME``: the budget is N of NAME's tokens, whatever the
    window; the same as the library's counted rendering at N."""
    workspace = _long_workspace(tmp_path)
    catalog = _catalog_of(json.loads(cli("catalog", workspace, "--json").stdout))
    counter = token_counter(name)
    for budget in (100, 900, 2_500):
        result = cli(
            "catalog", workspace, "--tokenizer", name, "--budget-tokens", str(budget), "--fit", fit
        )
        assert result.returncode == 0, result.stderr
        expected = render_catalog_counted(catalog, budget, counter, fit)
        assert result.stdout.decode() == expected.text
        summary = result.stderr.decode().splitlines()[-1]
        assert f" tokens={expected.tokens} budget={budget} ({name})" in summary


def test_budget_tokens_on_render_manifest(tmp_path: Path) -> None:
    workspace = _long_workspace(tmp_path)
    manifest = tmp_path / "manifest.json"
    assert cli("manifest", workspace, "-o", manifest).returncode == 0
    options = ("--tokenizer", "o200k_base", "--budget-tokens", "1500", "--fit", "compact")
    from_manifest = cli("render-manifest", manifest, *options)
    from_scan = cli("catalog", workspace, *options)
    assert from_manifest.returncode == 0, from_manifest.stderr
    assert from_manifest.stdout == from_scan.stdout
    assert b"budget=1500 (o200k_base) fit=compact form=" in from_manifest.stderr


# ------------------------------------------------------------------- a real collection

REAL = (
    Path(os.environ.get("A13N_REAL_REPOS", "/work/repos")) / "K-Dense-AI+claude-scientific-skills"
)


@pytest.mark.skipif(not (REAL / "scientific-skills").is_dir(), reason="K-Dense-AI not exported")
def test_k_dense_scientific_skills_all_listed_at_the_default_window() -> None:
    """134 skills; the prefix rule lists 19 (a-d) at the default window, the compact fit all."""
    document = json.loads(cli("catalog", REAL, "--root", "scientific-skills", "--json").stdout)
    catalog = _catalog_of(document)
    assert catalog.total == 134
    default = cli("catalog", REAL, "--root", "scientific-skills")
    assert _summary_fields(default.stderr)[:3] == (19, 115, 134)
    assert default.stdout.decode() == render_catalog(catalog, 9_200).text
    compact = cli("catalog", REAL, "--root", "scientific-skills", "--fit", "compact")
    assert compact.returncode == 0
    listed, omitted, total, _, budget = _summary_fields(compact.stderr)
    assert (listed, omitted, total, budget) == (134, 0, 134, 9_200)
    rendered = render_catalog(catalog, 9_200, "compact")
    assert compact.stdout.decode() == rendered.text
    verify_rendering(catalog, 9_200, rendered, "compact")
    for bad in (
        replace(rendered, text=rendered.text.replace("- adaptyv", "- adaptyvv", 1)),
        replace(rendered, listed=133, omitted=1),
        replace(rendered, form="listing"),
        RenderedCatalog(default.stdout.decode(), "listing", 19, 115, 134, 9_200),
    ):
        with pytest.raises(DefinitionError) as caught:
            verify_rendering(catalog, 9_200, bad, "compact")
        assert caught.value.code == "rendering_not_certified"
