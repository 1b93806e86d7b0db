"""Hypothesis profiles: ``ci`` for the gate, ``mutants`` for the defect verifier, ``mutmut`` for
mutmut's thousands of mutants, ``dev`` by default, ``nightly`` for the build box."""

from __future__ import annotations

import os
import re
import signal
import time
from collections.abc import Callable, Iterator

import pytest
from hypothesis import HealthCheck, Phase, settings

# The quick gate's examples: 60 a property, derandomized (the same examples every run). At 120
# the properties cost about 500 CPU s of the gate's 600; --full runs every property again
# under ``nightly``'s 2,000.
settings.register_profile(
    "ci",
    derandomize=True,
    database=None,
    max_examples=60,
    deadline=None,
    print_blob=True,
    suppress_health_check=(HealthCheck.too_slow,),
)
# The injected-defect verifier needs a failing example fast, not a shrunk one: the ci
# profile without the shrink phase, on 120 examples. At the ci profile's 60, three defects
# survived (their kills sit past the 60th derandomized example, or the examples change).
settings.register_profile(
    "mutants",
    settings.get_profile("ci"),
    max_examples=120,
    phases=(Phase.explicit, Phase.reuse, Phase.generate),
)
# mutmut runs thousands of mutants: each one needs a failing example fast, and a
# property that cannot find one in 25 examples is left to the ci profile's 60
# (docs/mutation.md records the kill ratio this profile reaches).
settings.register_profile(
    "mutmut",
    settings.get_profile("mutants"),
    max_examples=25,
)
# mutmut --changed-since maps tests to the functions they call on fewer examples still:
# every property calls the core on its first examples (scripts/_gate/mutmut_run.py EXAMPLES).
settings.register_profile("mutmut-stats", settings.get_profile("mutmut"), max_examples=8)
settings.register_profile("dev", max_examples=200, deadline=None)
# About 17 times the ci examples (20,000 took over two minutes for a single
# encoder property, so a whole nightly run would not finish in a build-box night).
settings.register_profile(
    "nightly",
    max_examples=2_000,
    deadline=None,
    suppress_health_check=(HealthCheck.too_slow,),
)
# Symbolic execution (hypothesis-crosshair): each example is one path CrossHair's solver
# chooses, not a sample. Counted work bounds it: 60 paths a property (the bound
# docs/verification.md states); each path has CrossHair's own CPU budget (2.5 CPU s with no
# deadline) and each property a CPU budget of its own (properties/symbolic.py).
settings.register_profile(
    "crosshair",
    backend="crosshair",
    database=None,
    max_examples=60,  # properties/symbolic_properties.py PATHS
    deadline=None,
    suppress_health_check=tuple(HealthCheck),
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))
if getattr(settings.default, "backend", None) == "crosshair":
    # The core's cached constant tables as constants to CrossHair, which runs a cached
    # function again at every call (properties/crosshair_setup.py).
    from crosshair_setup import register_constant_tables

    register_constant_tables()


class CpuBudgetSpent(BaseException):
    """A property run symbolically spent its CPU budget (a BaseException: neither
    Hypothesis nor CrossHair takes it for the property's own failure and retries)."""


@pytest.fixture(autouse=True)
def symbolic_cpu_budget(request: pytest.FixtureRequest) -> Iterator[None]:
    """Under the crosshair profile, stop a test that spends its CPU budget
    (``properties/symbolic_properties.py``): ITIMER_PROF counts this process's CPU time,
    not wall time, so a busy machine slows a property down without failing it."""
    if getattr(settings.default, "backend", None) != "crosshair":
        yield
        return
    from symbolic_properties import budget  # noqa: PLC0415 - only under this profile

    seconds = budget(request.node.nodeid)

    def spent(signum: int, frame: object) -> None:
        raise CpuBudgetSpent(f"{request.node.nodeid}: CPU budget {seconds:.0f}s spent")

    previous = signal.signal(signal.SIGPROF, spent)
    started = time.process_time()
    # Then again every CPU second: a stop that lands in a destructor is ignored there.
    signal.setitimer(signal.ITIMER_PROF, seconds, 1.0)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)
    used = time.process_time() - started
    # In the JUnit file: docs/verification.md's "last result" reads each property's CPU time.
    request.node.user_properties.append(("cpu_seconds", f"{used:.2f}"))
    if used > seconds:
        pytest.fail(f"CPU budget {seconds:.0f}s spent ({used:.1f} CPU s)", pytrace=False)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """The CPU timer of ``symbolic_cpu_budget`` ends with the test's own call: a property
    stopped by it is reported (its traceback formatted, which can take CPU seconds) without
    another stop landing inside pytest's reporting."""
    try:
        return (yield)
    finally:
        if getattr(settings.default, "backend", None) == "crosshair":
            signal.setitimer(signal.ITIMER_PROF, 0)


@pytest.fixture
def no_fence(monkeypatch: pytest.MonkeyPatch) -> Callable[[], None]:
    """The run-boundary tests' negative control: ``remove()`` makes the fence
    (``PreparedSkills.check_boundary``) do nothing for the rest of the test."""

    def remove() -> None:
        # Imported here, not at collection: conftest loads before every test module.
        from a13n_harness.capabilities import PreparedSkills  # noqa: PLC0415

        monkeypatch.setattr(PreparedSkills, "check_boundary", lambda self, environment=None: None)

    return remove


# A memory address in a test's id (``<object object at 0x7f...>``, an ``ids=repr`` of an object
# without a repr of its own) differs from one process to the next: pytest-xdist's workers then
# collect different tests and the run fails, and a node id printed for a rerun selects nothing.
ADDRESS_IN_ID = re.compile(r"0x[0-9a-fA-F]{6,}")


# Modules run first (in their own order, the rest after in theirs). The untrusted-checkout
# tests start about 1,000 git processes, through the collector's ``preexec_fn`` (a fork, not a
# vfork): a fork copies the process's page tables, so each costs CPU in proportion to the
# process's memory. Run after the tokenizer tests (their vocabularies and tiktoken's copies
# stay loaded), they took 22.8 CPU s; run first, 15.5 (31 in a full xdist worker).
RUN_FIRST = ("test_untrusted_checkout.py",)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Refuse a collection whose test ids are not the same in every process (an address);
    then put the :data:`RUN_FIRST` modules' tests first (the same order in every process:
    pytest-xdist's workers each collect, and must agree)."""
    unstable = [item.nodeid for item in items if ADDRESS_IN_ID.search(item.nodeid)]
    if unstable:
        shown = "\n  ".join(unstable[:10])
        raise pytest.UsageError(
            f"{len(unstable)} test ids hold a memory address, so they differ between processes "
            f"(give the parameter an id of its own):\n  {shown}"
        )
    items.sort(key=lambda item: item.path.name not in RUN_FIRST)  # stable: False sorts first
