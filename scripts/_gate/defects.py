"""The injected-defect verifier's logic (``scripts/verify_mutants.py`` is its command line).

Each ``mutants/NNN_<slug>.toml`` names a source file, a ``find`` snippet that must occur
exactly once, its defective ``replace``, the pytest ``selection`` expected to kill it, the
defect ``class``, a one-line ``why`` and the ``cpu_seconds`` its run may use (older files
spell it ``deadline``: read the same way, as CPU seconds, docs/harness-conventions.md).
``load`` reads them, ``verify`` runs them (each in a scratch copy of the tree, forked from a
warm parent by ``_gate.warm``) and confirms every kill on the clean tree (a Hypothesis kill by
replaying the failing example the defect's run saved), ``summary`` and ``report`` say what
happened.

Each defect runs only its ``selection``: the tests that can see it, named by whoever wrote
it (a node id or a ``-k`` expression inside its module), never the whole suite.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _gate import warm
from _gate.pytest_results import Exit, exit_meaning, read_junit
from _gate.report import table

# action.yml and scripts/: the action's tests run its steps and import scripts/lint_actions.py.
COPIED = ("core", "properties", "fuzz", "corpus", "pyproject.toml", "action.yml", "scripts")
REQUIRED = {
    "file": str,
    "find": str,
    "replace": str,
    "selection": list,
    "class": str,
    "why": str,
}
# The CPU seconds a defect's run may use (its process tree: pytest and what its tests start);
# ``deadline`` is the older name of the same field, read the same way.
BUDGET_KEYS = ("cpu_seconds", "deadline")
# A mutated file's modification time: one second apart per mutant and long before any real
# edit, so bytecode cached for the clean file or another mutant never matches it.
MUTANT_EPOCH = 1_000_000_000


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
    cpu_seconds: int


@dataclass
class Outcome:
    ident: str
    status: str  # killed, survived, rotten, empty, error, timeout (its budget spent, or stalled)
    seconds: float
    note: str
    defect_class: str = ""
    killed_by: tuple[str, ...] = ()
    cpu_seconds: float = 0.0


def load_mutant(path: Path) -> Mutant:
    """Read and validate one mutant file (``ValueError`` on a malformed one)."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    for key, kind in REQUIRED.items():
        if not isinstance(data.get(key), kind) or isinstance(data.get(key), bool):
            raise ValueError(f"{path.name}: '{key}' must be a {kind.__name__}")
    budgets = [key for key in BUDGET_KEYS if key in data]
    if len(budgets) != 1:
        raise ValueError(f"{path.name}: give one of {' or '.join(BUDGET_KEYS)} (CPU seconds)")
    budget = data[budgets[0]]
    if not isinstance(budget, int) or isinstance(budget, bool) or budget < 1:
        raise ValueError(f"{path.name}: '{budgets[0]}' must be a positive int (CPU seconds)")
    unknown = set(data) - set(REQUIRED) - set(BUDGET_KEYS)
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
        budget,
    )


def copy_tree(root: Path, destination: Path) -> None:
    """Copy what the tests need (modification times kept, so cached bytecode stays valid);
    the corpus is read-only, so it is linked, not copied."""
    shutil.rmtree(destination, ignore_errors=True)
    destination.mkdir(parents=True)
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


def anchor_problem(root: Path, mutant: Mutant) -> str:
    """Why ``mutant`` cannot be applied to the tree ("" when its anchor occurs once)."""
    target = root / mutant.file
    if not target.is_file():
        return f"{mutant.file} does not exist"
    occurrences = target.read_text(encoding="utf-8").count(mutant.find)
    return "" if occurrences == 1 else f"anchor occurs {occurrences} times"


# A defect's run that uses under process.STALL_CPU CPU seconds in this many wall seconds is hung
# (a blocking read the defect let through): its tests' own waits are seconds, and at load 20
# on two cores a run still gets about 12 CPU seconds in two minutes.
STALL_SECONDS = 120.0


def tree_state(tree: Path) -> dict[str, tuple[int, int]]:
    """Every file and link under ``tree`` (links not followed, bytecode folders left out) with
    its size and modification time: what a run may have changed in its slot's tree."""
    state: dict[str, tuple[int, int]] = {}
    for folder, names, files in os.walk(tree):
        names[:] = [name for name in names if name not in {"__pycache__", ".hypothesis"}]
        for name in files + [n for n in names if os.path.islink(os.path.join(folder, n))]:
            info = os.lstat(os.path.join(folder, name))
            state[os.path.relpath(os.path.join(folder, name), tree)] = (
                info.st_size,
                info.st_mtime_ns,
            )
    return state


class SlotTrees:
    """One scratch copy of the tree per worker slot, reused from one run to the next.

    Copying the tree for every defect cost a tenth of a CPU second each (35 of the step's 278
    for 340 defects). A slot's tree is copied once; before each run the file the previous
    defect patched is copied back from the clean tree (its modification time with it, so its
    cached bytecode is valid again), and the whole tree is compared with its state after the
    copy: a run that left any other change (a file written, removed or touched) has its slot
    copied afresh, so every run still starts from the clean tree plus its one patch."""

    def __init__(self, root: Path, scratch: Path) -> None:
        self.root = root
        self.scratch = scratch
        self.patched: dict[int, str | None] = {}
        self.state: dict[int, dict[str, tuple[int, int]]] = {}
        self.copies = 0

    def clean(self, slot: int) -> Path:
        """Slot ``slot``'s tree, equal to the clean tree."""
        tree = self.scratch / f"slot{slot}"
        if slot in self.state:
            patched = self.patched.get(slot)
            if patched is not None:
                shutil.copy2(self.root / patched, tree / patched)
                self.patched[slot] = None
            if tree_state(tree) == self.state[slot]:
                return tree
        copy_tree(self.root, tree)
        self.copies += 1
        self.patched[slot] = None
        self.state[slot] = tree_state(tree)
        return tree

    def mutated(self, slot: int, mutant: Mutant, index: int) -> Path:
        """Slot ``slot``'s tree with ``mutant``'s patch on disk (its file's time its own)."""
        tree = self.clean(slot)
        target = tree / mutant.file
        source = target.read_text(encoding="utf-8")
        # Marked before the write: a failed write still leaves the slot to be restored.
        self.patched[slot] = mutant.file
        target.write_text(source.replace(mutant.find, mutant.replace), encoding="utf-8")
        stamp = MUTANT_EPOCH + index
        os.utime(target, (stamp, stamp))
        return tree


def mutant_job(
    slots: SlotTrees, mutant: Mutant, index: int, stall: float = STALL_SECONDS
) -> warm.Job:
    """The pytest run of ``mutant``: a scratch copy of the tree with its patch on disk, its
    Hypothesis tests saving their failing example in a database of its own."""
    return warm.Job(
        mutant.ident,
        # One line a failure (--tb=line): a killed defect's traceback is never shown, and
        # formatting it cost a twentieth of a CPU second a kill.
        ("-p", "no:cacheprovider", "-q", "-x", "--tb=line", *mutant.selection),
        lambda slot: slots.mutated(slot, mutant, index),
        slots.scratch / "logs" / f"{mutant.ident}.log",
        mutant.cpu_seconds,
        stall_seconds=stall,
        database=str(slots.scratch / "examples" / mutant.ident),
    )


def clean_jobs(
    slots: SlotTrees,
    tests: dict[str, float],
    workers: int,
    stall: float = STALL_SECONDS,
    *,
    replay: Path | None = None,
) -> list[warm.Job]:
    """Runs of ``tests`` (node id -> CPU seconds) on the clean tree, about one per worker,
    each a run of neighbouring tests (a test module is imported by one run, not by each);
    with ``replay``, runs of only the examples that example database holds for them."""
    ordered = sorted(tests)
    count = max(1, min(workers, len(ordered)))
    groups = [
        ordered[len(ordered) * n // count : len(ordered) * (n + 1) // count] for n in range(count)
    ]
    kind = "replay" if replay is not None else "clean"
    return [
        warm.Job(
            f"{kind}-{number}",
            ("-p", "no:cacheprovider", "-q", *group),
            slots.clean,
            slots.scratch / "logs" / f"{kind}-{number}.log",
            sum(tests[test] for test in group),
            stall_seconds=stall,
            database="" if replay is None else str(replay),
            replay=replay is not None,
        )
        for number, group in enumerate(groups)
        if group
    ]


def merge_examples(folders: list[Path], into: Path) -> None:
    """One example database holding every entry of ``folders`` (Hypothesis's directory
    layout: a folder per key, a file per example, both named by hashes)."""
    into.mkdir(parents=True, exist_ok=True)
    for folder in folders:
        if folder.is_dir():
            shutil.copytree(folder, into, dirs_exist_ok=True)


def _tail(log: Path) -> str:
    text = log.read_text(encoding="utf-8", errors="replace") if log.is_file() else ""
    return " | ".join(text.strip().splitlines()[-2:])[-200:]


def judge(mutant: Mutant, done: warm.Done) -> Outcome:
    """A mutant's status from its run's exit code and JUnit file."""

    def outcome(status: str, note: str = "", killed_by: tuple[str, ...] = ()) -> Outcome:
        return Outcome(
            mutant.ident,
            status,
            done.seconds,
            note,
            mutant.defect_class,
            killed_by,
            done.cpu_seconds,
        )

    if done.problem:
        return outcome("error", done.problem)
    if done.timed_out:
        return outcome("timeout", done.job.limits.describe(done.stopped))
    if done.exit_code == Exit.TESTS_FAILED and done.junit.failed:
        return outcome("killed", killed_by=done.junit.failed)
    if done.exit_code == Exit.OK:
        return outcome("survived", f"{done.junit.ran} tests passed")
    if done.exit_code == Exit.NO_TESTS_COLLECTED:
        return outcome("empty", "selects no test")
    return outcome("error", f"pytest {exit_meaning(done.exit_code)}: {_tail(done.job.log)}")


def verify(
    root: Path,
    mutants: list[Mutant],
    workers: int,
    phases: dict[str, float],
    keep: Path | None = None,
    *,
    stall: float = STALL_SECONDS,
    passed: frozenset[str] = frozenset(),
) -> list[Outcome]:
    """Run every applicable mutant, then confirm each kill on the clean tree; ``phases`` gets
    the wall seconds of each phase (and the confirmation's CPU seconds), ``keep`` the pytest
    logs of every defect not killed; a run whose tree makes no progress for ``stall`` wall
    seconds is stopped (``process.Limits``). A killing test in ``passed`` (the node ids a run
    of this same tree passed, :func:`passed_on`) is confirmed already and not run again."""
    started = time.monotonic()
    if keep is not None:
        shutil.rmtree(keep, ignore_errors=True)  # logs of an earlier run are not this run's
    outcomes: list[Outcome] = []
    runnable: list[Mutant] = []
    for mutant in mutants:
        problem = anchor_problem(root, mutant)
        if problem:
            outcomes.append(Outcome(mutant.ident, "rotten", 0.0, problem, mutant.defect_class))
        else:
            runnable.append(mutant)
    # Bytecode of the scratch trees is cached across runs (each slot's path is reused, and
    # a mutated file's time is its own), so no run recompiles pytest, Hypothesis or the core.
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    warm.preload(warm.preloads_for(mutant.selection[0].split("::")[0] for mutant in runnable))
    with tempfile.TemporaryDirectory(prefix="a13n-mutants-") as name:
        scratch = Path(name)
        (scratch / "logs").mkdir()
        os.environ["PYTHONPYCACHEPREFIX"] = str(scratch / "pycache")
        os.environ["HYPOTHESIS_PROFILE"] = "mutants"
        # The corpus replay finds the tree beside its own file: each run's scratch copy (a
        # root named from outside would be another slot's, rebuilt while this one runs).
        os.environ.pop("A13N_HARNESS_ROOT", None)
        by_ident = {mutant.ident: mutant for mutant in runnable}
        # The largest budgets first, so no slow mutant starts last and runs alone.
        order = sorted(runnable, key=lambda mutant: (-mutant.cpu_seconds, mutant.ident))
        slots = SlotTrees(root, scratch)
        jobs = [mutant_job(slots, mutant, index, stall) for index, mutant in enumerate(order)]
        phases["start"] = round(time.monotonic() - started, 1)
        first: list[Outcome] = []
        saved: dict[str, frozenset[str]] = {}
        for done in warm.run_jobs(jobs, workers):
            first.append(judge(by_ident[done.job.key], done))
            saved[done.job.key] = done.saved
        phases["mutants"] = round(time.monotonic() - started - phases["start"], 1)
        killers: dict[str, float] = {}
        # A killing test whose every kill saved its failing example (a Hypothesis test
        # failing on an example it generated): the clean tree replays those examples.
        replayable: dict[str, bool] = {}
        for outcome in first:
            for test in outcome.killed_by:
                killers[test] = killers.get(test, 0.0) + by_ident[outcome.ident].cpu_seconds
                kept = test in saved.get(outcome.ident, frozenset())
                replayable[test] = replayable.get(test, True) and kept
        confirmation_cpu = 0.0
        phases["confirmed_by_the_properties"] = len(set(killers) & passed)
        to_confirm = {test: cpu for test, cpu in killers.items() if test not in passed}
        # A kill is confirmed by its test on the clean tree: passing there (named as passed
        # by a run: a test that failed, was skipped or never ran, its module failed to
        # import, is not), or, for a replayable test, passing on every failing example the
        # defects' runs saved for it, each of which ran and passed there. A replayable test
        # not confirmed by its replay runs whole, as every other test does.
        confirmed = set(killers) & passed
        to_replay = {test: cpu for test, cpu in to_confirm.items() if replayable[test]}
        examples = scratch / "examples-all"
        merge_examples(
            [scratch / "examples" / outcome.ident for outcome in first if outcome.killed_by],
            examples,
        )
        for done in warm.run_jobs(
            clean_jobs(slots, to_replay, workers, stall, replay=examples), workers
        ):
            confirmation_cpu += done.cpu_seconds
            confirmed |= set(done.junit.passed) & done.replayed & set(to_replay)
        phases["replayed_tests"] = len(confirmed & set(to_replay))
        whole = {test: cpu for test, cpu in to_confirm.items() if test not in confirmed}
        for done in warm.run_jobs(clean_jobs(slots, whole, workers, stall), workers):
            confirmation_cpu += done.cpu_seconds
            confirmed |= set(done.junit.passed) & set(whole)
        clean_failures = set(killers) - confirmed
        phases["confirmation"] = round(
            time.monotonic() - started - phases["start"] - phases["mutants"], 1
        )
        phases["confirmed_tests"] = len(to_confirm)
        phases["whole_tests"] = len(whole)
        phases["tree_copies"] = slots.copies
        phases["confirmation_cpu"] = round(confirmation_cpu, 1)
        for outcome in first:
            unconfirmed = sorted(clean_failures & set(outcome.killed_by))
            if unconfirmed:
                outcome.status = "empty"
                outcome.note = f"{unconfirmed[0]} fails on the clean tree too"
            log = scratch / "logs" / f"{outcome.ident}.log"
            if keep is not None and outcome.status != "killed" and log.is_file():
                keep.mkdir(parents=True, exist_ok=True)
                shutil.copy2(log, keep / log.name)
    return sorted(outcomes + first, key=lambda outcome: outcome.ident)


def passed_on(root: Path, junit: Path) -> tuple[frozenset[str], str]:
    """The node ids ``junit`` (a run of the properties over ``root``) passed, and why none
    are taken: a file older than any source of the tree describes another tree."""
    if not junit.is_file():
        return frozenset(), f"{junit} does not exist"
    written = junit.stat().st_mtime
    for folder in ("core", "properties"):
        for path in (root / folder).rglob("*.py"):
            if path.stat().st_mtime > written:
                return frozenset(), f"{junit} is older than {path.relative_to(root)}"
    report = read_junit(junit, root)
    if not report.readable:
        return frozenset(), f"{junit} is not a JUnit file"
    return frozenset(report.passed), ""


def load(folder: Path, pattern: str = "") -> tuple[list[Mutant], list[Outcome]]:
    """The mutants of ``folder`` whose id matches ``pattern``, and an error outcome for
    each file that is malformed."""
    mutants: list[Mutant] = []
    broken: list[Outcome] = []
    for path in sorted(folder.glob("*.toml")):
        if not re.search(pattern, path.stem):
            continue
        try:
            mutants.append(load_mutant(path))
        except (ValueError, tomllib.TOMLDecodeError) as error:
            broken.append(Outcome(path.stem, "error", 0.0, str(error)))
    return mutants, broken


def summary(outcomes: list[Outcome], phases: dict[str, float], seconds: float) -> dict[str, Any]:
    """The JSON summary the gate reads: totals, the ids by status, and one row per mutant."""
    by_status: dict[str, list[str]] = {}
    for outcome in outcomes:
        by_status.setdefault(outcome.status, []).append(outcome.ident)
    return {
        "total": len(outcomes),
        "killed": len(by_status.get("killed", [])),
        "survived": by_status.get("survived", []),
        "rotten": by_status.get("rotten", []),
        "empty": by_status.get("empty", []),
        "errors": by_status.get("error", []) + by_status.get("timeout", []),
        "seconds": seconds,
        # The defects' runs and the confirmation's (the parent's own is a second or two).
        "cpu_seconds": round(
            sum(o.cpu_seconds for o in outcomes) + phases.get("confirmation_cpu", 0.0), 1
        ),
        "phases": phases,
        "mutants": [
            {
                "id": o.ident,
                "status": o.status,
                "seconds": round(o.seconds, 1),
                "cpu_seconds": round(o.cpu_seconds, 1),
                "class": o.defect_class,
                "note": o.note,
                "killed_by": list(o.killed_by),
            }
            for o in outcomes
        ],
    }


def report(outcomes: list[Outcome], totals: dict[str, Any], logs: Path | None) -> list[str]:
    """What the verifier prints: a table of the mutants, the totals line, the phases, and
    the command (and kept log) of each mutant not killed."""
    lines = [
        table(
            ("mutant", "status", "seconds", "class / note"),
            [
                (
                    o.ident,
                    o.status,
                    f"{o.seconds:.1f}",
                    o.defect_class + (f" / {o.note}" if o.note else ""),
                )
                for o in outcomes
            ],
            numeric=1,
        ),
        f"{totals['total']} mutants: {totals['killed']} killed, "
        f"{len(totals['survived'])} survived, {len(totals['rotten'])} rotten, "
        f"{len(totals['empty'])} empty selections, {len(totals['errors'])} errors "
        f"in {totals['seconds']}s",
        f"phases (wall s): {totals['phases']}",
    ]
    for outcome in outcomes:
        if outcome.status != "killed":
            kept = logs / f"{outcome.ident}.log" if logs is not None else None
            shown = f"  log: {kept}" if kept is not None and kept.is_file() else ""
            command = f"python scripts/verify_mutants.py -k '^{outcome.ident}$'"
            lines.append(f"rerun {outcome.ident}: {command}{shown}")
    return lines
