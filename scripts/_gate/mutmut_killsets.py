"""The kill sets of two mutmut runs, compared mutant by mutant (docs/mutation.md).

A mutant is keyed by its function and the key of its change (``mutmut_mutants``), so a
function's mutants renumbered by an edit elsewhere in it still match. From ``scripts/``::

    python -m _gate.mutmut_killsets save SCRATCH OUT.json
    python -m _gate.mutmut_killsets compare BEFORE.json AFTER.json OLD NEW [--json OUT]

``save`` writes the kill set of a scratch copy kept by ``mutmut.py --keep``; ``compare``
reads two of them and the commits they ran on (for the functions changed between them) and
prints how the kills of the first fare in the second. ``--killed-before STATUS`` counts
another status of the first as a kill (a timeout whose recheck was stopped, say).

Not imported by the run: Hypothesis draws example constants from every local module loaded
(the gate's own included), so the literals of the modules the mutmut driver loads are part
of what the mutants' tests try; this module's stay out of them.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from _gate.mutmut_mutants import KILLED, PACKAGE, module_of
from _gate.mutmut_run import Mutmut, statuses
from _gate.mutmut_select import changes_between
from _gate.report import write_json

SCRIPT = Path(__file__).resolve().parents[1] / "mutmut.py"


def kill_set(
    results: dict[str, str], changes: dict[str, tuple[str, str, list[str]]]
) -> dict[str, dict[str, Any]]:
    """Each mutant's status keyed ``"<function> <key>"`` (so renumbering does not matter),
    with mutmut's name for it and its changed lines."""
    keyed: dict[str, dict[str, Any]] = {}
    for name, status in sorted(results.items()):
        unknown: tuple[str, str, list[str]] = (name.rsplit("__mutmut_", 1)[0], f"?{name}", [])
        function, key, changed = changes.get(name, unknown)
        keyed[f"{function} {key}"] = {"name": name, "status": status, "change": changed}
    return keyed


def compare_kill_sets(
    before: dict[str, dict[str, Any]],
    after: dict[str, dict[str, Any]],
    changed: set[str],
    killed_before: frozenset[str] = KILLED,
) -> dict[str, list[str]]:
    """How the kills of ``before`` fare in ``after`` (two ``kill_set``s), by key.

    ``changed`` are the functions whose code differs between the two trees (new and removed
    ones too): their mutants are new mutants, so a kill of theirs that is gone is not lost.
    ``killed_before`` are the statuses counted as kills in ``before``.
    """
    killed = {key for key, row in before.items() if row["status"] in killed_before}
    killed_after = {key for key, row in after.items() if row["status"] in KILLED}

    absent = killed - after.keys()
    new = killed_after - killed
    gone = {key for key in absent if key.split(" ", 1)[0] in changed}
    new_in_changed = {key for key in new if key.split(" ", 1)[0] in changed}
    return {
        "killed_again": sorted(killed & killed_after),
        "not_killed_again": sorted((killed & after.keys()) - killed_after),
        "gone_with_changed_functions": sorted(gone),
        "gone_from_unchanged_functions": sorted(absent - gone),
        "new_kills_in_changed_functions": sorted(new_in_changed),
        "new_kills_in_unchanged_functions": sorted(new - new_in_changed),
    }


def save(scratch: Path, out: Path) -> dict[str, dict[str, Any]]:
    """The kill set of a kept scratch copy, written to ``out``."""
    folder = scratch / "mutants" / "src" / "a13n_harness" / "context"
    modules = sorted(
        ".".join(path.relative_to(folder).with_suffix("").parts)
        for path in folder.rglob("*.py")
        if path.name != "__init__.py"
    )
    _, results, changes, _ = statuses(Mutmut(SCRIPT, scratch), modules)
    keyed = kill_set(results, changes)
    write_json(out, keyed)
    return keyed


def compare(
    before: dict[str, dict[str, Any]],
    after: dict[str, dict[str, Any]],
    refs: tuple[str, str],
    killed_before: frozenset[str] = KILLED,
) -> dict[str, Any]:
    """``compare_kill_sets`` with the functions changed between the two commits."""
    modules = {module_of(key) for key in [*before, *after]}
    changed = {
        f"{PACKAGE}.{module}.{name}"
        for module, names in changes_between(*refs, sorted(modules)).items()
        for name in names
    }
    compared: dict[str, Any] = compare_kill_sets(before, after, changed, killed_before)
    compared["changed_functions"] = sorted(changed)
    return compared


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    commands = parser.add_subparsers(dest="command", required=True)
    saving = commands.add_parser("save", help="the kill set of a kept scratch copy")
    saving.add_argument("scratch", type=Path)
    saving.add_argument("out", type=Path)
    comparing = commands.add_parser("compare", help="two kill sets, by function and change")
    comparing.add_argument("before", type=Path)
    comparing.add_argument("after", type=Path)
    comparing.add_argument("old", help="the commit the first run mutated")
    comparing.add_argument("new", help="the commit the second run mutated")
    comparing.add_argument("--killed-before", action="append", default=[], metavar="STATUS")
    comparing.add_argument("--json", type=Path, help="write the comparison here")
    args = parser.parse_args(argv)
    if args.command == "save":
        keyed = save(args.scratch, args.out)
        counts: dict[str, int] = {}
        for row in keyed.values():
            counts[row["status"]] = counts.get(row["status"], 0) + 1
        print(f"{len(keyed)} mutants: {counts}")
        return 0
    before, after = (
        json.loads(path.read_text(encoding="utf-8")) for path in (args.before, args.after)
    )
    compared = compare(before, after, (args.old, args.new), KILLED | set(args.killed_before))
    if args.json is not None:
        write_json(args.json, compared)
    for name, keys in compared.items():
        print(f"{name}: {len(keys)}")
    # A kill of an unchanged function not made again: lost, unless the second run never
    # checked it (its status says which).
    for key in compared["not_killed_again"] + compared["gone_from_unchanged_functions"]:
        print(f"not killed again: {key}: {after.get(key, {}).get('status', 'absent')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
