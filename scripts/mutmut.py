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

Speed (docs/mutation.md has the measured run): mutmut runs each mutant against
only the tests its stats phase saw calling the mutated function; this script
runs mutmut in-process (``--as-mutmut``) with three changes: the tests of a
mutant run once each, cheapest first, so ``-x`` stops at the first cheap kill;
the ``mutmut`` Hypothesis profile (25 examples, no shrinking); and a mutant
whose change is already listed as equivalent is marked "skipped" instead of
run (``--check-equivalents`` runs them too, to find stale listings). mutmut
forks its workers from a server that has pytest and the tests imported.

``--changed-since REF`` mutates only the functions whose code differs between
REF and the working tree, with the stats phase restricted to the test modules
that import the changed module (directly or through another core module):
the merge-gate form, about a minute for a one-function change. ``--functions
lint._fence_at lint._Checker.name`` mutates only the functions named, the same way: a
sample to time a change of the harness on, before and after.
Part of ``scripts/verify.py --full`` (everything) and ``--changed-since``.

The pieces are in the gate's package: ``_gate/mutmut_run.py`` (the run and its reports),
``_gate/mutmut_mutants.py`` (the mutants' keys, the listing, the judgement),
``_gate/mutmut_rules.py`` (the equivalence rules), ``_gate/mutmut_select.py`` (the
changed functions and the tests reaching them) and ``_gate/mutmut_killsets.py`` (two runs'
kill sets compared, mutant by mutant).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from _gate import mutmut_run, versions  # scripts/ is first on sys.path when run as a script


def main(argv: list[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else argv
    versions.require("mutmut")  # before any patch of its private API (an UntestedVersion exit)
    if arguments[:1] == ["--as-mutmut"]:
        mutmut_run.as_mutmut(arguments[1:], Path(__file__).resolve().parent)
        return 0
    parser = argparse.ArgumentParser(description="mutmut over the pure core, in a scratch copy.")
    parser.add_argument("--modules", nargs="*", default=list(mutmut_run.MODULES))
    parser.add_argument("--json", type=Path, help="write the summary here")
    parser.add_argument("--max-children", type=int, default=2)
    parser.add_argument("--keep", action="store_true", help="keep the scratch directory")
    parser.add_argument(
        "--reuse", type=Path, help="judge a kept scratch directory again instead of running"
    )
    parser.add_argument("--explain", type=Path, help="write unlisted survivors' diffs here")
    parser.add_argument(
        "--changed-since", metavar="REF", help="only the functions changed since this commit"
    )
    parser.add_argument(
        "--functions",
        nargs="+",
        metavar="MODULE.FUNCTION",
        help="only these functions' mutants (lint._fence_at, lint._Checker.name): a sample",
    )
    parser.add_argument(
        "--check-equivalents", action="store_true", help="run listed equivalents too"
    )
    parser.add_argument("--table", type=Path, help="write the per-module Markdown table here")
    parser.add_argument(
        "--prune", action="store_true", help="remove stale listings from the equivalents file"
    )
    return mutmut_run.run(parser.parse_args(arguments), Path(__file__).resolve())


if __name__ == "__main__":
    sys.exit(main())
