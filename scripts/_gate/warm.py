"""Short pytest runs forked from a warm parent.

Starting ``python -m pytest`` costs about a second of imports (pytest, Hypothesis, the
libraries the tests use) before a test runs; the injected-defect verifier starts one run per
defect. Here the parent imports those libraries once (never the package under test nor a
test module), and each run is a fork of it that changes into its own tree, puts that tree's
``core/`` first on ``sys.path`` and calls ``pytest.main``. Each fork is its own session, and
when its process tree has spent its CPU budget, or made no progress at all
(``process.Limits``), the whole process group (the tests' own subprocesses too) is killed.

The parent must not have started threads before it forks: this module forks from the calling
thread and waits with ``os.wait4``, nothing else.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import importlib.util
import json
import os
import signal
import sys
import time
import traceback
import types
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

import pytest

from _gate import process, versions
from _gate.pytest_results import Exit, JUnit

# Imported once by the parent; a fork finds them in sys.modules. Only third-party and
# standard modules: the package under test and the tests are imported by each fork from
# its own tree.
PRELOAD = (
    "pytest",
    "_pytest.python",
    "_pytest.junitxml",
    "hypothesis",
    "hypothesis.strategies",
    "yaml",
    "asyncio",
    "json",
    "tiktoken",
    "xml.etree.ElementTree",
    "jsonschema",  # lint's SARIF and CI tests: a fifth of a CPU second a run
    # What every run imported itself, about 0.03 CPU s a run: the plugins pytest registers by
    # default and Hypothesis's (pdb, readline and faulthandler come with them), the modules
    # tmp_path (getpass, termios) and the JSON escapes (encodings.unicode_escape) need.
    *(f"_pytest.{name}" for name in ("config", "debugging", "faulthandler", "helpconfig")),
    *(f"_pytest.{name}" for name in ("pastebin", "setuponly", "setupplan", "skipping")),
    *(f"_pytest.{name}" for name in ("stepwise", "threadexception", "tmpdir", "unittest")),
    *(f"_pytest.{name}" for name in ("unraisableexception", "warnings", "_argcomplete")),
    "_hypothesis_pytestplugin",
    "pdb",
    "readline",
    "faulthandler",
    "getpass",
    "termios",
    "encodings.unicode_escape",
    "ctypes",
    "tracemalloc",
)
# Third-party modules that one test module imports, preloaded only when a run of that module
# is coming: the LangChain middleware's tests import two CPU seconds of LangChain and
# pydantic in every run, the MCP tests a CPU second of mcp, anyio and starlette.
PRELOAD_FOR = {
    "properties/test_langchain_middleware.py": (
        "langchain.agents",
        "langchain.agents.middleware",
        "langchain_core.language_models.fake_chat_models",
        "langchain_core.messages",
        "langchain_core.outputs",
        "langchain_core.tools",
        "pydantic",
    ),
    "properties/test_mcp.py": (
        "anyio",
        "mcp",
        "mcp.shared.exceptions",
        "mcp.server.lowlevel",
        "mcp.server.stdio",
        "mcp.server.subscriptions",
        "mcp_types",
    ),
}
# pytest would rewrite the asserts of Hypothesis's modules (a plugin's distribution) and warns
# that it cannot, the parent having imported them; the tests' own asserts are still rewritten.
QUIET = ("-W", "ignore::pytest.PytestAssertRewriteWarning")
# A fork runs one defect's few tests in one process: pytest-xdist's plugins would only cost
# their import (a tenth of a CPU second a run).
NO_XDIST = ("-p", "no:xdist", "-p", "no:xdist.looponfail")
# pytest's start-up scans every installed distribution twice (plugin entry points, and the
# plugins' modules to rewrite): a tenth of a CPU second a run in a full environment. A fork
# starts with that scan off and loads the one plugin the tests use by name; the variable is
# removed once pytest is configured, so a pytest the tests start finds its plugins as usual.
AUTOLOAD = "PYTEST_DISABLE_PLUGIN_AUTOLOAD"
PLUGINS = ("-p", "_hypothesis_pytestplugin")


class _AutoloadBack:
    """Puts :data:`AUTOLOAD` back as it was (unset, or the caller's value) once pytest is
    configured."""

    def __init__(self, previous: str | None) -> None:
        self.previous = previous

    def pytest_configure(self) -> None:
        if self.previous is None:
            os.environ.pop(AUTOLOAD, None)
        else:
            os.environ[AUTOLOAD] = self.previous


# The Hypothesis profile a run with an example database loads: the conftest's, with the database
# (and, to replay, only the reuse phase).
GATE_PROFILE = "a13n-gate-run"
# How often the parent looks for finished forks (seconds); their CPU time is read every
# process.SAMPLE_SECONDS.
POLL = 0.02


def preloads_for(test_files: Iterable[str]) -> tuple[str, ...]:
    """:data:`PRELOAD` and the modules :data:`PRELOAD_FOR` names for ``test_files``."""
    extra = [name for file in sorted(set(test_files)) for name in PRELOAD_FOR.get(file, ())]
    return (*PRELOAD, *extra)


def preload(modules: Iterable[str] = PRELOAD) -> list[str]:
    """Import ``modules`` that are installed; the names imported. Hypothesis's verdict on
    which loaded modules are the project's own (a pure function it caches) is computed here
    once instead of in every fork."""
    loaded = []
    for name in modules:
        if importlib.util.find_spec(name.split(".")[0]) is None:
            continue
        importlib.import_module(name)
        loaded.append(name)
    if "hypothesis" not in loaded:
        return loaded
    versions.require("hypothesis")  # a private function: the tested series, or a clear exit
    from hypothesis.internal.constants_ast import is_local_module_file  # noqa: PLC0415

    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if isinstance(path, str):
            is_local_module_file(path)
    return loaded


# The folder the parent found ``_gate`` in (the verifier's ``scripts/``, first on its path).
_SCRIPTS = Path(__file__).resolve().parent.parent


def _forget_the_gate() -> None:
    """Leave in ``sys.modules`` and ``sys.path`` what ``python -m pytest`` would have:
    Hypothesis draws constants from the project's own loaded modules, and the gate's are not
    the project's; a test that imports the gate (``scripts/`` put on the path by the test)
    gets the run's tree's copy, with a defect planted in it, not the parent's."""
    for name in list(sys.modules):
        if name == "_gate" or name.startswith("_gate."):
            del sys.modules[name]
    sys.modules["__main__"] = types.ModuleType("__main__")
    sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _SCRIPTS]


class _Outcomes:
    """Each test's outcome as pytest reports it, written to ``path`` as JSON once the session
    has finished; the run then ends there (``os._exit`` with the session's exit status):
    what pytest does after it (plugins' unconfigure, a full garbage collection to find
    unraisable exceptions, the JUnit writer this replaces) costs a twentieth of a CPU second a
    run and can change no outcome the file holds.

    A test is failed when any of its phases failed (setup, call or teardown), skipped when
    its setup or call was skipped (an expected failure included) and did not fail, passed
    otherwise; a collector that failed (an import error) is a failed entry under its own
    node id.

    With ``job.database`` the run's Hypothesis tests keep their failing examples in that
    example database (a directory), and ``saved`` names each failed test whose failing
    example is in it. With ``job.replay`` too, Hypothesis generates nothing: each test runs
    the examples the database holds for it, and ``replayed`` names each test that ran at
    least one and saw every one pass (none failed, none was invalid)."""

    def __init__(self, path: Path, job: Job) -> None:
        self.path = path
        self.job = job
        self.outcomes: dict[str, str] = {}
        self.status: int | None = None
        self.database: Any = None
        self.saved: list[str] = []
        self.current = ""
        self.observed: dict[str, list[str]] = {}

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self) -> None:
        if not self.job.database:
            return
        # The conftest has loaded its profile (an initial conftest); no test module, whose
        # tests take the profile when they are defined, is imported yet.
        from hypothesis import Phase, settings  # noqa: PLC0415 - preloaded
        from hypothesis.database import DirectoryBasedExampleDatabase  # noqa: PLC0415

        self.database = DirectoryBasedExampleDatabase(self.job.database)
        changes: dict[str, Any] = {"database": self.database}
        if self.job.replay:
            changes["phases"] = (Phase.reuse,)
            from hypothesis.internal import observability  # noqa: PLC0415

            # Observations without the coverage Hypothesis would trace for them (a tracer
            # slows the replayed examples down and is nothing the replay reads).
            observability.OBSERVABILITY_COLLECT_COVERAGE = False
            observability.add_observability_callback(self._observe, all_threads=True)
        settings.register_profile(GATE_PROFILE, settings.default, **changes)
        settings.load_profile(GATE_PROFILE)

    def _observe(self, observation: Any, thread: int) -> None:
        if observation.type == "test_case" and observation.metadata.phase == "reuse":
            self.observed.setdefault(self.current, []).append(observation.status)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: Any) -> Any:
        self.current = item.nodeid
        try:
            return (yield)
        finally:
            self.current = ""

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: Any) -> Any:
        report = yield
        handle = getattr(getattr(item, "obj", None), "hypothesis", None)
        if report.failed and self.database is not None and handle is not None:
            from hypothesis.internal.reflection import function_digest  # noqa: PLC0415

            # Hypothesis's key for the test (its digest of the test and its parameters).
            if next(iter(self.database.fetch(function_digest(handle.inner_test))), None):
                self.saved.append(report.nodeid)
        return report

    def pytest_collectreport(self, report: Any) -> None:
        if report.failed:
            self.outcomes[report.nodeid] = "failed"

    def pytest_runtest_logreport(self, report: Any) -> None:
        now = self.outcomes.get(report.nodeid, "passed")
        if report.failed:
            now = "failed"
        elif report.skipped and now != "failed":
            now = "skipped"
        self.outcomes[report.nodeid] = now

    def pytest_sessionfinish(self, exitstatus: int) -> None:
        self.status = int(exitstatus)

    @pytest.hookimpl(tryfirst=True)
    def pytest_unconfigure(self) -> None:
        if self.status is None:  # no session ran (a usage error): pytest ends as it does
            return
        replayed = [
            node
            for node, statuses in self.observed.items()
            if node and statuses and all(status == "passed" for status in statuses)
        ]
        record = {"outcomes": self.outcomes, "saved": self.saved, "replayed": replayed}
        self.path.write_text(json.dumps(record), encoding="utf-8")
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(self.status)


class _NoPatch:
    """Hypothesis's pytest plugin turns each failing example into a source patch for the
    terminal summary (``.hypothesis/patches``): it imports libcst and parses the whole test
    module with it, a quarter to half a CPU second a Hypothesis kill, for a file nobody reads.
    The example is dropped from the test item before that plugin looks (a private attribute:
    the tested series, ``versions.require``); the failure, the saved example and the replay
    are unchanged."""

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_makereport(self, item: Any) -> None:
        item.__dict__.pop(FAILING_EXAMPLES, None)


# Where Hypothesis's plugin finds the failing examples of a test item (_NoPatch).
FAILING_EXAMPLES = "_hypothesis_failing_examples"


@dataclass(frozen=True)
class Outcomes:
    """What an :class:`_Outcomes` file says: the totals, and the tests whose failing example
    the run saved and whose saved examples it replayed."""

    junit: JUnit = field(default_factory=JUnit)
    saved: frozenset[str] = frozenset()
    replayed: frozenset[str] = frozenset()


def read_outcomes(path: Path) -> Outcomes:
    """The :class:`_Outcomes` file at ``path`` (all zero, not readable, when it is missing or
    malformed: a run that wrote none ended before its session did)."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        outcomes = {str(node): str(state) for node, state in record["outcomes"].items()}
        saved = frozenset(str(node) for node in record["saved"])
        replayed = frozenset(str(node) for node in record["replayed"])
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return Outcomes()
    states = list(outcomes.values())
    junit = JUnit(
        tests=len(states),
        failures=states.count("failed"),
        skipped=states.count("skipped"),
        failed=tuple(node for node, state in outcomes.items() if state == "failed"),
        readable=True,
        passed=tuple(node for node, state in outcomes.items() if state == "passed"),
    )
    return Outcomes(junit, saved, replayed)


@dataclass(frozen=True)
class Job:
    """One pytest run: ``prepare(slot)`` builds its tree in worker slot ``slot`` (in the
    parent, just before the fork) and returns it; pytest runs there with ``arguments``."""

    key: str
    arguments: tuple[str, ...]
    prepare: Callable[[int], Path]
    log: Path
    cpu_seconds: float  # the CPU its process tree may use (process.Limits)
    env: Mapping[str, str] = field(default_factory=dict)
    stall_seconds: float = process.STALL_SECONDS  # no progress for this long: stopped
    database: str = ""  # Hypothesis's example database for the run (a folder), if any
    replay: bool = False  # run only the examples the database holds (_Outcomes)

    @property
    def limits(self) -> process.Limits:
        return process.Limits(self.cpu_seconds, self.stall_seconds)


@dataclass(frozen=True)
class Done:
    """A finished job: pytest's exit code (-1 when the runner stopped it: ``stopped`` says
    why), time, JUnit totals."""

    job: Job
    exit_code: int
    seconds: float
    cpu_seconds: float
    junit: JUnit
    tree: Path
    problem: str = ""  # the tree could not be prepared
    stopped: str = ""  # "cpu" or "stall" when the runner killed it (process.Limits)
    saved: frozenset[str] = frozenset()  # failed tests whose failing example is saved
    replayed: frozenset[str] = frozenset()  # tests whose saved examples ran and passed

    @property
    def timed_out(self) -> bool:
        return bool(self.stopped)


def _child(job: Job, tree: Path, results: Path) -> NoReturn:
    code = int(Exit.INTERNAL_ERROR)
    try:
        os.setsid()  # its own process group: a stop kills the tests' subprocesses too
        output = os.open(job.log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(output, 1)
        os.dup2(output, 2)
        os.close(output)
        nothing = os.open(os.devnull, os.O_RDONLY)
        os.dup2(nothing, 0)
        os.close(nothing)
        os.chdir(tree)
        _forget_the_gate()
        os.environ.update(job.env)
        os.environ["PYTHONPATH"] = str(tree / "core")
        # Hypothesis's caches beside the tree, kept from one run of this slot to the next.
        os.environ.setdefault("HYPOTHESIS_STORAGE_DIRECTORY", f"{tree}.hypothesis")
        # pytest's tmp_path root beside the tree too: the shared /tmp/pytest-of-USER is
        # cleaned by every pytest on the machine, and a run removing another's old folder
        # ended one in an internal error ("Directory not empty") on a busy machine.
        os.environ["PYTEST_DEBUG_TEMPROOT"] = f"{tree}.tmp"
        os.makedirs(f"{tree}.tmp", exist_ok=True)
        # As ``PYTHONPATH=core python -m pytest`` in the tree: core/ and the tree first.
        sys.path[:0] = [str(tree / "core"), str(tree)]
        # The interpreter read PYTHONPYCACHEPREFIX when the parent started; one the caller set
        # since (the defect verifier's, outside the trees it rebuilds) must be applied here, or
        # every run recompiles the core and its test modules into the tree's own __pycache__.
        sys.pycache_prefix = os.environ.get("PYTHONPYCACHEPREFIX") or sys.pycache_prefix
        sys.dont_write_bytecode = bool(os.environ.get("PYTHONDONTWRITEBYTECODE"))
        import pytest  # noqa: PLC0415 - preloaded by the parent: a dictionary lookup

        previous = os.environ.get(AUTOLOAD)
        os.environ[AUTOLOAD] = "1"
        arguments = [*QUIET, *NO_XDIST, *PLUGINS, *job.arguments]
        plugins = [_AutoloadBack(previous), _Outcomes(results, job), _NoPatch()]
        code = int(pytest.main(arguments, plugins=plugins))
    except BaseException:  # a harness error is reported as pytest's internal error
        traceback.print_exc()
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)


def run_jobs(jobs: Iterable[Job], workers: int) -> list[Done]:
    """Run ``jobs`` ``workers`` at a time, each in a fork; results in the order they finish."""
    pending = list(jobs)
    running: dict[int, tuple[Job, int, Path, Path, float]] = {}  # pid -> job, slot, tree, ...
    free = list(range(max(1, workers)))
    done: list[Done] = []
    watches: dict[int, process.Watch] = {}
    stopped: dict[int, str] = {}
    sampled = time.monotonic()
    while pending or running:
        while pending and free:
            job = pending.pop(0)
            slot = free.pop(0)
            try:
                tree = job.prepare(slot)
            except (OSError, ValueError) as error:
                done.append(
                    Done(job, int(Exit.INTERNAL_ERROR), 0.0, 0.0, JUnit(), Path(), str(error))
                )
                free.append(slot)
                continue
            results = job.log.with_suffix(".outcomes.json")
            results.unlink(missing_ok=True)
            sys.stdout.flush()
            sys.stderr.flush()
            gc.freeze()  # what the parent has made is never collected in a fork: no scan of it
            pid = os.fork()
            if pid == 0:
                _child(job, tree, results)
            running[pid] = (job, slot, tree, results, time.monotonic())
            watches[pid] = process.Watch(job.limits)
        if not running:
            continue
        pid, status, usage = os.wait4(-1, os.WNOHANG)
        if pid == 0:
            if time.monotonic() - sampled >= process.SAMPLE_SECONDS:
                sampled = time.monotonic()
                _stop_spent(running, watches, stopped)
            time.sleep(POLL)
            continue
        job, slot, tree, results, started = running.pop(pid)
        with contextlib.suppress(ProcessLookupError):  # subprocesses the tests left behind
            os.killpg(pid, signal.SIGKILL)
        free.append(slot)
        watches.pop(pid, None)
        reason = stopped.pop(pid, "")
        code = -1 if reason else os.waitstatus_to_exitcode(status)
        outcomes = read_outcomes(results)
        done.append(
            Done(
                job,
                code,
                time.monotonic() - started,
                usage.ru_utime + usage.ru_stime,
                outcomes.junit,
                tree,
                stopped=reason,
                saved=outcomes.saved,
                replayed=outcomes.replayed,
            )
        )
    return done


def _stop_spent(
    running: Mapping[int, object], watches: Mapping[int, process.Watch], stopped: dict[int, str]
) -> None:
    """Kill the process group of each running fork whose tree spent its budget (or made no
    progress), and note why in ``stopped``."""
    totals = process.tree_cpu(list(running))
    for child in running:
        if child in stopped:
            continue
        reason = watches[child].sample(None if totals is None else totals[child])
        if reason:
            stopped[child] = reason
            process.stop_tree(child)
