"""The injected-defect verifier: every mutant in ``mutants/`` must be killed by its selection.

Each ``mutants/NNN_<slug>.toml`` names a source file, a ``find`` snippet that
must occur exactly once, its defective ``replace``, the pytest ``selection``
expected to kill it (the tests that can see the defect: only they run), the
defect ``class``, a one-line ``why`` and the ``cpu_seconds`` its run may use
(``deadline`` in older files, read the same way; docs/harness-conventions.md).

1. An anchor that does not occur exactly once in the tree is "rotten".
2. Each mutant runs in a scratch copy of the tree (``core/``, ``properties/``,
   ``fuzz/``, ``pyproject.toml``; ``corpus/`` linked) with the patch on disk,
   so tests that start subprocesses see it too:
   ``pytest -q -x <selection>`` with ``core/`` first on the path and
   ``HYPOTHESIS_PROFILE=mutants`` (``ci`` without shrinking). Each test's
   outcome is read in the run itself (a plugin, no JUnit file). Runs are forks of
   a parent that has pytest and Hypothesis imported (``_gate.warm``),
   ``--workers`` at a time. Only exit code 1 (tests failed) is a kill; 0 is a
   survivor; 5 (nothing collected) is an empty selection; 2-4 (interrupted,
   internal, usage or collection error) and a run stopped by the runner are
   errors, never kills. A run is stopped when its process tree has used its
   CPU seconds, or made no progress (under one CPU second) for
   ``--stall-seconds`` of wall time: never for the machine's load.
3. Every kill is confirmed on the clean tree: the tests that failed on the
   mutants run once more, unpatched, and must pass there (a test that fails,
   is skipped or does not run on the clean tree confirms nothing: the kill is
   reported as an empty selection). A Hypothesis test that failed on an
   example it generated is confirmed by replaying that example: each defect's
   run keeps its failing example in an example database of its own, and the
   clean tree runs only those examples (no generation); every one must run
   and pass, else the test runs whole as the others do. With
   ``--passed-in JUNIT`` (the gate gives its properties step's), a killing
   test that file shows passing is confirmed already, when the file is newer
   than every source of the tree (a run of this tree, under the ``ci``
   profile: the ``mutants`` profile generates the same examples, derandomized,
   and only drops the phases after them).

Prints a table and the line ``N mutants: K killed, ...``; ``--json`` writes the
summary the gate reads. Exits non-zero on any survivor, rotten anchor, empty
selection or error. The logic is in ``scripts/_gate/defects.py``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from _gate import defects  # scripts/ is first on sys.path when this runs as a script
from _gate.report import write_json

REPO = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Verify that every injected defect is caught.")
    parser.add_argument("--root", type=Path, default=REPO, help="tree to verify")
    parser.add_argument("--mutants", type=Path, help="mutant folder (default <root>/mutants)")
    parser.add_argument("--json", type=Path, help="write the summary here")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("-k", dest="pattern", default="", help="mutant id regex")
    parser.add_argument("--logs", type=Path, help="keep the pytest log of each defect not killed")
    parser.add_argument(
        "--passed-in",
        type=Path,
        action="append",
        default=[],
        help="a JUnit file of this tree's properties: the tests it passed need no confirmation "
        "(repeat it for each such file)",
    )
    parser.add_argument(
        "--stall-seconds",
        type=float,
        default=defects.STALL_SECONDS,
        help="stop a run whose tests use no CPU for this long (default %(default)s)",
    )
    args = parser.parse_args(argv)
    root: Path = args.root.resolve()
    started = time.monotonic()
    mutants, broken = defects.load(args.mutants or root / "mutants", args.pattern)
    phases: dict[str, float] = {}
    passed: frozenset[str] = frozenset()
    for junit in args.passed_in:
        taken, why = defects.passed_on(root, junit.resolve())
        passed |= taken
        print(f"{len(taken)} tests passed in {junit}" + (f" (not used: {why})" if why else ""))
    outcomes = sorted(
        broken
        + defects.verify(
            root, mutants, args.workers, phases, args.logs, stall=args.stall_seconds, passed=passed
        ),
        key=lambda outcome: outcome.ident,
    )
    totals = defects.summary(outcomes, phases, round(time.monotonic() - started, 1))
    if args.json is not None:
        write_json(args.json, totals)
    print("\n".join(defects.report(outcomes, totals, args.logs)))
    if not outcomes:
        print("no mutants found: nothing was verified")
        return 1
    return 1 if totals["total"] - totals["killed"] else 0


if __name__ == "__main__":
    sys.exit(main())
