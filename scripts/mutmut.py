"""Run mutmut 3 over the pure core in a scratch copy and gate on its kill ratio.

mutmut writes its own ``mutants/`` folder (and a cache) in the directory it
runs in, which would collide with the injected-defect files in our
``mutants/``. So this script copies ``core/`` (as ``src/``), ``properties/``, ``fuzz/``,
``corpus/`` and ``pyproject.toml`` to a scratch directory, writes a
``[tool.mutmut]`` section there, runs ``mutmut run`` and reads
``mutmut results``. It never touches the repository's ``mutants/``.

The gate: killed / (killed + survived) >= 95%, where a survivor listed in
``scripts/mutmut_equivalent.txt`` is counted as equivalent, not survived. A
line there is ``<function> <key> <reason>``: mutmut numbers a function's
mutants in order, so an edit elsewhere in the function renumbers them; the key
is instead a hash of the mutant's changed lines (and its rank among mutants of
that function with the same change), which survives unrelated edits.
Indented lines under an entry show its diff for the reviewer and are not read.
``--explain FILE`` writes every unlisted survivor with its diff and key, ready
to be killed by a test or reasoned about and listed.

Timeouts and suspicious mutants count as killed (the test run noticed); "no
tests" mutants count as survivors; a mutant left unchecked (an interrupted
run) fails the gate.
Part of ``scripts/verify.py --full`` only: it takes tens of minutes.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
EQUIVALENT = Path(__file__).resolve().parent / "mutmut_equivalent.txt"
THRESHOLD = 0.95
# The modules mutated by default: the whole pure core.
MODULES = ("encoder", "frontmatter", "catalog", "render", "manifest", "tokens")
# A fast selection that still holds every oracle of those modules.
TESTS = (
    "properties/test_encoder.py",
    "properties/test_frontmatter.py",
    "properties/test_catalog.py",
    "properties/test_render.py",
    "properties/test_manifest.py",
    "properties/test_defects_core.py",
    "properties/test_corpus.py",
    "properties/test_tokens.py",
    "properties/test_mutmut_kills.py",
)


def _toml_list(items: list[str]) -> str:
    return "[" + ", ".join(json.dumps(item) for item in items) + "]"


def prepare(scratch: Path, modules: list[str]) -> None:
    """Copy the tree and write the mutmut configuration into the copy."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis")
    # mutmut puts mutants/src on sys.path (and keeps the original off it), so the
    # package goes under src/ in the copy rather than under core/.
    shutil.copytree(REPO / "core", scratch / "src", ignore=ignore)
    for name in ("properties", "fuzz"):
        shutil.copytree(REPO / name, scratch / name, ignore=ignore)
    (scratch / "corpus").symlink_to(REPO / "corpus", target_is_directory=True)
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    pyproject = re.sub(r"(?ms)^\[tool\.mutmut\].*?(?=^\[|\Z)", "", pyproject)
    paths = [f"src/a13n_harness/context/{module}.py" for module in modules]
    tests = [test for test in TESTS if (REPO / test).is_file()]
    pyproject += (
        "\n[tool.mutmut]\n"
        'source_paths = ["src"]\n'
        f"only_mutate = {_toml_list(paths)}\n"
        f"pytest_add_cli_args_test_selection = {_toml_list(tests)}\n"
        'also_copy = ["fuzz", "corpus", "properties"]\n'
        # A mutant that loops forever (a bisection that stops narrowing) is cut
        # off at 4x its tests' measured CPU time instead of mutmut's default 30x,
        # which held a worker for eight minutes per such mutant.
        "timeout_multiplier = 2.0\n"
    )
    (scratch / "pyproject.toml").write_text(pyproject, encoding="utf-8")


def equivalents() -> dict[tuple[str, str], str]:
    """The checked-in equivalent survivors: ``{(function, key): reason}``."""
    listed: dict[tuple[str, str], str] = {}
    if EQUIVALENT.is_file():
        for line in EQUIVALENT.read_text(encoding="utf-8").splitlines():
            # Indented lines show the listed mutant's diff, for the reviewer.
            if line.strip() and not line.startswith(("#", " ")):
                function, key, reason = line.strip().split(maxsplit=2)
                listed[function, key] = reason
    return listed


_MUTANT = re.compile(r"^(?P<function>.+)__mutmut_(?P<suffix>\d+|orig)$")


def mutant_changes(scratch: Path, modules: list[str]) -> dict[str, tuple[str, str, list[str]]]:
    """Each mutant's ``(function, key, changed lines)`` from mutmut's mutated sources.

    mutmut writes every mutant as a function ``<function>__mutmut_<n>`` beside
    ``<function>__mutmut_orig``; the changed lines are a line diff of their bodies.
    """
    changes: dict[str, tuple[str, str, list[str]]] = {}
    for module in modules:
        path = scratch / "mutants" / "src" / "a13n_harness" / "context" / f"{module}.py"
        if not path.is_file():
            continue
        source = path.read_text(encoding="utf-8")
        lines = source.splitlines()
        bodies: dict[str, dict[str, list[str]]] = {}
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                match = _MUTANT.match(node.name)
                if match is None:
                    continue
                # Skip the def line: it carries the mutant's own name.
                body = lines[node.lineno : node.end_lineno or node.lineno]
                bodies.setdefault(match["function"], {})[match["suffix"]] = body
        for function, variants in bodies.items():
            original = variants.get("orig", [])
            seen: dict[str, int] = {}
            numbered = sorted((int(n), body) for n, body in variants.items() if n != "orig")
            for number, body in numbered:
                matcher = difflib.SequenceMatcher(None, original, body, autojunk=False)
                changed = [
                    line
                    for tag, i1, i2, j1, j2 in matcher.get_opcodes()
                    if tag != "equal"
                    for line in [f"- {text.strip()}" for text in original[i1:i2]]
                    + [f"+ {text.strip()}" for text in body[j1:j2]]
                ]
                digest = hashlib.sha256("\n".join(changed).encode("utf-8")).hexdigest()[:12]
                rank = seen.get(digest, 0)
                seen[digest] = rank + 1
                key = digest if rank == 0 else f"{digest}.{rank}"
                name = f"a13n_harness.context.{module}.{function}"
                changes[f"{name}__mutmut_{number}"] = (name, key, changed)
    return changes


def parse_results(text: str) -> dict[str, str]:
    """``mutmut results --all true`` lines ``name: status`` -> ``{name: status}``."""
    results: dict[str, str] = {}
    for line in text.splitlines():
        match = re.match(r"^\s*([\w.]+__mutmut_\d+): ([\w ]+?)\s*$", line)
        if match:
            results[match.group(1)] = match.group(2)
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="mutmut over the pure core, in a scratch copy.")
    parser.add_argument("--modules", nargs="*", default=list(MODULES))
    parser.add_argument("--json", type=Path, help="write the summary here")
    parser.add_argument("--max-children", type=int, default=2)
    parser.add_argument("--keep", action="store_true", help="keep the scratch directory")
    parser.add_argument(
        "--reuse", type=Path, help="judge a kept scratch directory again instead of running"
    )
    parser.add_argument("--explain", type=Path, help="write unlisted survivors' diffs here")
    args = parser.parse_args(argv)
    started = time.monotonic()
    scratch = args.reuse or Path(tempfile.mkdtemp(prefix="a13n-mutmut-"))
    env = dict(os.environ)
    env["HYPOTHESIS_PROFILE"] = "ci"
    env.pop("PYTHONPATH", None)  # mutmut puts mutants/src on sys.path itself
    run_exit: int | None = None
    run_output = ""

    def mutmut(*arguments: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "mutmut", *arguments],
            cwd=scratch,
            env=env,
            capture_output=True,
            text=True,
            errors="replace",
            check=False,
        )

    try:
        if args.reuse is None:
            prepare(scratch, args.modules)
            run = mutmut("run", "--max-children", str(args.max_children))
            run_exit, run_output = run.returncode, run.stdout[-2000:] + run.stderr[-2000:]
        listing = mutmut("results", "--all", "true")
        changes = mutant_changes(scratch, args.modules)
    finally:
        if not args.keep and args.reuse is None:
            shutil.rmtree(scratch, ignore_errors=True)
    results = parse_results(listing.stdout)
    known = equivalents()
    counts: dict[str, int] = {}
    for status in results.values():
        counts[status] = counts.get(status, 0) + 1
    killed_statuses = {"killed", "timeout", "suspicious", "segfault"}
    killed = sum(n for status, n in counts.items() if status in killed_statuses)
    survivors = sorted(
        name for name, status in results.items() if status in {"survived", "no tests"}
    )
    # Anything neither killed nor survived (not checked, skipped, interrupted)
    # means the run did not finish: it fails the gate rather than shrink the ratio.
    unchecked = sorted(
        name
        for name, status in results.items()
        if status not in killed_statuses | {"survived", "no tests"}
    )

    def listed(name: str) -> bool:
        function, key, _ = changes.get(name, ("", "", []))
        return (function, key) in known

    equivalent = [name for name in survivors if listed(name)]
    survived = [name for name in survivors if not listed(name)]
    # A listing that matches no surviving mutant is stale: the code changed, or
    # a test now kills what was thought equivalent. Reported, for pruning.
    matched = {changes[name][:2] for name in equivalent}
    stale = sorted(f"{function} {key}" for function, key in known if (function, key) not in matched)
    judged = killed + len(survived)
    ratio = killed / judged if judged else 0.0
    summary: dict[str, Any] = {
        "total": len(results),
        "killed": killed,
        "equivalent": len(equivalent),
        "survived": survived,
        "stale_listings": len(stale),
        "unchecked": len(unchecked),
        "by_status": counts,
        "kill_ratio": round(ratio, 4),
        "threshold": THRESHOLD,
        "modules": args.modules,
        "seconds": round(time.monotonic() - started, 1),
        "run_exit": run_exit,
    }
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    if args.explain is not None:
        blocks = []
        for name in survived:
            function, key, changed = changes.get(name, ("?", "?", []))
            shown = "".join(f"    {line}\n" for line in changed)
            blocks.append(f"# {name}\n{function} {key} REASON\n{shown}")
        args.explain.write_text("\n".join(blocks), encoding="utf-8")
    for name in survived:
        print(f"survived: {name}")
    for entry in stale:
        print(f"stale listing: {entry}")
    print(f"by status: {counts}")
    print(
        f"{len(results)} mutants in total: {killed} killed, {len(equivalent)} equivalent, "
        f"{len(survived)} survived; kill ratio {ratio:.1%} (gate {THRESHOLD:.0%}) "
        f"in {summary['seconds']}s"
    )
    if not results:
        print(run_output or listing.stdout[-2000:] + listing.stderr[-2000:])
        return 1
    if unchecked:
        print(f"{len(unchecked)} mutants were never checked: the run is incomplete")
        return 1
    return 0 if ratio >= THRESHOLD else 1


if __name__ == "__main__":
    sys.exit(main())
