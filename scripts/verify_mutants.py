"""The injected-defect verifier: every mutant in ``mutants/`` must be killed by its selection.

Each ``mutants/NNN_<slug>.toml`` names a source file, a ``find`` snippet that
must occur exactly once, its defective ``replace``, the pytest ``selection``
expected to kill it, the defect ``class``, a one-line ``why`` and a
``deadline`` in seconds (docs/harness-conventions.md).

1. Mutants sharing a selection form a group. Each group first runs its
   selection on a clean scratch copy of the tree: it must pass and select more
   than zero tests (else its mutants are "empty"). Groups run ``--workers`` at
   a time, the longest deadline first.
2. Each mutant then gets its own scratch copy (``core/``, ``properties/``,
   ``fuzz/``, ``corpus/``, ``pyproject.toml``); an anchor that does not occur
   exactly once is "rotten"; the patched copy runs
   ``python -m pytest -p no:cacheprovider -q -x <selection>`` with
   ``PYTHONPATH=<scratch>/core`` and ``HYPOTHESIS_PROFILE=mutants`` (``ci`` without
   shrinking). Only exit code 1 (tests failed) is a kill; 0 is a survivor;
   2-5 (interrupted, internal, usage or collection error, nothing collected)
   and a passed deadline are errors, never kills.

Prints a table and the line ``N mutants: K killed, ...``; ``--json`` writes the
summary the gate reads. Exits non-zero on any survivor, rotten anchor, empty
selection or error.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
COPIED = ("core", "properties", "fuzz", "corpus", "pyproject.toml")
REQUIRED = {
    "file": str,
    "find": str,
    "replace": str,
    "selection": list,
    "class": str,
    "why": str,
    "deadline": int,
}


@dataclass(frozen=True)
class Mutant:
    """One injected defect, as read from its TOML file."""

    ident: str
    file: str
    find: str
    replace: str
    selection: tuple[str, ...]
    defect_class: str
    why: str
    deadline: int


@dataclass
class Outcome:
    ident: str
    status: str  # killed, survived, rotten, empty, error, timeout
    seconds: float
    note: str
    defect_class: str = ""


def load_mutant(path: Path) -> Mutant:
    """Read and validate one mutant file (``ValueError`` on a malformed one)."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    for key, kind in REQUIRED.items():
        if not isinstance(data.get(key), kind) or isinstance(data.get(key), bool):
            raise ValueError(f"{path.name}: '{key}' must be a {kind.__name__}")
    unknown = set(data) - set(REQUIRED)
    if unknown:
        raise ValueError(f"{path.name}: unknown keys {sorted(unknown)}")
    selection = tuple(str(part) for part in data["selection"])
    if not selection or not all(isinstance(part, str) for part in data["selection"]):
        raise ValueError(f"{path.name}: selection must be a non-empty list of strings")
    if "-k" not in selection and not any("::" in part for part in selection):
        raise ValueError(f"{path.name}: selection must be narrow (a -k expression or a node id)")
    if data["find"] == data["replace"]:
        raise ValueError(f"{path.name}: replace equals find")
    return Mutant(
        path.stem,
        data["file"],
        data["find"],
        data["replace"],
        selection,
        data["class"],
        data["why"],
        data["deadline"],
    )


def copy_tree(root: Path, destination: Path) -> None:
    """Copy what the tests need; the corpus is read-only, so it is linked, not copied."""
    destination.mkdir(parents=True, exist_ok=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis")
    for name in COPIED:
        source = root / name
        if not source.exists():
            continue
        if name == "corpus":
            (destination / name).symlink_to(source.resolve(), target_is_directory=True)
        elif source.is_dir():
            shutil.copytree(source, destination / name, ignore=ignore)
        else:
            shutil.copy2(source, destination / name)


def _tests_ran(output: str) -> int:
    summary = [line for line in output.splitlines() if re.search(r"\d+ (passed|failed)", line)]
    if not summary:
        return 0
    return sum(int(n) for n in re.findall(r"(\d+) (?:passed|failed|errors?)", summary[-1]))


def run_selection(tree: Path, selection: tuple[str, ...], deadline: int) -> tuple[int, str, float]:
    """Run pytest on ``selection`` in ``tree``: (exit code, -1 on timeout; output; seconds)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(tree / "core")
    env["HYPOTHESIS_PROFILE"] = "mutants"
    env["A13N_HARNESS_ROOT"] = str(tree)
    # Bytecode (and pytest's rewritten test modules) cached under the scratch
    # folder, shared by every run: without it each run recompiles hypothesis
    # and pytest's plugins, about a second apiece. Every tree has its own path,
    # so a mutated module never meets another tree's cached bytecode.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(tree.parent / "pycache")
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-x", *selection]
    started = time.monotonic()
    try:
        completed = subprocess.run(
            command,
            cwd=tree,
            env=env,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=deadline,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return -1, "", time.monotonic() - started
    return completed.returncode, completed.stdout + completed.stderr, time.monotonic() - started


def _tail(output: str) -> str:
    return " | ".join(output.strip().splitlines()[-2:])[-200:]


def baseline(clean: Path, selection: tuple[str, ...], deadline: int) -> str:
    """Run ``selection`` on the clean tree: the problem with it, or "" when it is usable."""
    code, output, _ = run_selection(clean, selection, deadline)
    if code == -1:
        return "clean run passed its deadline"
    if code != 0:
        return f"fails on the clean tree (exit {code}): {_tail(output)}"
    if _tests_ran(output) == 0:
        return "selects no test"
    return ""


def verify_group(root: Path, scratch: Path, group: list[Mutant]) -> list[Outcome]:
    """The clean baseline of the group's shared selection, then each of its mutants."""
    selection = group[0].selection
    problem = baseline(scratch / "clean", selection, max(mutant.deadline for mutant in group))
    if problem:
        return [
            Outcome(mutant.ident, "empty", 0.0, problem, mutant.defect_class) for mutant in group
        ]
    outcomes = []
    for mutant in group:
        outcome = run_mutant(root, scratch, mutant)
        outcome.defect_class = mutant.defect_class
        outcomes.append(outcome)
    return outcomes


def run_mutant(root: Path, scratch: Path, mutant: Mutant) -> Outcome:
    """Patch a scratch copy with ``mutant`` and run its selection."""
    tree = scratch / mutant.ident
    copy_tree(root, tree)
    target = tree / mutant.file
    if not target.is_file():
        return Outcome(mutant.ident, "rotten", 0.0, f"{mutant.file} does not exist")
    source = target.read_text(encoding="utf-8")
    occurrences = source.count(mutant.find)
    if occurrences != 1:
        return Outcome(mutant.ident, "rotten", 0.0, f"anchor occurs {occurrences} times")
    target.write_text(source.replace(mutant.find, mutant.replace), encoding="utf-8")
    code, output, seconds = run_selection(tree, mutant.selection, mutant.deadline)
    shutil.rmtree(tree, ignore_errors=True)
    if code == 1:
        return Outcome(mutant.ident, "killed", seconds, "")
    if code == 0:
        return Outcome(mutant.ident, "survived", seconds, f"{_tests_ran(output)} tests passed")
    if code == -1:
        return Outcome(mutant.ident, "timeout", seconds, f"deadline {mutant.deadline}s passed")
    return Outcome(mutant.ident, "error", seconds, f"pytest exit {code}: {_tail(output)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Verify that every injected defect is caught.")
    parser.add_argument("--root", type=Path, default=REPO, help="tree to verify")
    parser.add_argument("--mutants", type=Path, help="mutant folder (default <root>/mutants)")
    parser.add_argument("--json", type=Path, help="write the summary here")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("-k", dest="pattern", default="", help="mutant id regex")
    args = parser.parse_args(argv)
    root: Path = args.root.resolve()
    folder: Path = args.mutants or root / "mutants"
    started = time.monotonic()
    outcomes: list[Outcome] = []
    mutants: list[Mutant] = []
    for path in sorted(folder.glob("*.toml")):
        if not re.search(args.pattern, path.stem):
            continue
        try:
            mutants.append(load_mutant(path))
        except (ValueError, tomllib.TOMLDecodeError) as error:
            outcomes.append(Outcome(path.stem, "error", 0.0, str(error)))
    with tempfile.TemporaryDirectory(prefix="a13n-mutants-") as scratch_name:
        scratch = Path(scratch_name)
        copy_tree(root, scratch / "clean")
        groups: dict[tuple[str, ...], list[Mutant]] = {}
        for mutant in mutants:
            groups.setdefault(mutant.selection, []).append(mutant)
        # Longest expected work first, so no slow group starts last and runs alone.
        ordered = sorted(
            groups.values(), key=lambda group: (-max(m.deadline for m in group), -len(group))
        )
        with ThreadPoolExecutor(max_workers=args.workers) as pool:
            for results in pool.map(lambda group: verify_group(root, scratch, group), ordered):
                outcomes.extend(results)
    outcomes.sort(key=lambda outcome: outcome.ident)
    width = max([len(outcome.ident) for outcome in outcomes] + [6])
    print(f"{'mutant':<{width}}  {'status':<8}  {'seconds':>7}  class / note")
    for outcome in outcomes:
        print(
            f"{outcome.ident:<{width}}  {outcome.status:<8}  {outcome.seconds:>7.1f}  "
            f"{outcome.defect_class}{' / ' + outcome.note if outcome.note else ''}"
        )
    by_status: dict[str, list[str]] = {}
    for outcome in outcomes:
        by_status.setdefault(outcome.status, []).append(outcome.ident)
    killed = len(by_status.get("killed", []))
    seconds = round(time.monotonic() - started, 1)
    summary: dict[str, Any] = {
        "total": len(outcomes),
        "killed": killed,
        "survived": by_status.get("survived", []),
        "rotten": by_status.get("rotten", []),
        "empty": by_status.get("empty", []),
        "errors": by_status.get("error", []) + by_status.get("timeout", []),
        "seconds": seconds,
        "mutants": [
            {
                "id": o.ident,
                "status": o.status,
                "seconds": round(o.seconds, 1),
                "class": o.defect_class,
                "note": o.note,
            }
            for o in outcomes
        ],
    }
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    bad = len(outcomes) - killed
    print(
        f"{len(outcomes)} mutants: {killed} killed, {len(summary['survived'])} survived, "
        f"{len(summary['rotten'])} rotten, {len(summary['empty'])} empty selections, "
        f"{len(summary['errors'])} errors in {seconds}s"
    )
    if not outcomes:
        print("no mutants found: nothing was verified")
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
