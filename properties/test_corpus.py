"""Replay every checked-in corpus seed through its fuzz target, without atheris.

Each ``corpus/<target>/`` folder pairs with ``fuzz/<target>.py``. Every seed
file runs through the target's ``check`` (the contract holds) and its
``outcome`` must equal the one recorded in ``expected.json`` (docs/harness-conventions.md,
"Corpus"). The replay refuses to pass vacuously: a seed without an
expectation, an expectation without a seed, a corpus folder without a target,
a target without a corpus folder, and a target whose ``check`` swallows the
core's exceptions each fail.

Seeds over 1 MB are described in ``generated.json`` rather than stored;
``fuzz/seeds.py`` lists and generates them (checking size and SHA-256), so
they replay like any other seed and a description that drifted fails.

``A13N_HARNESS_ROOT`` points the replay at another tree (the harness's own
negative controls use it to feed it broken pieces).
"""

from __future__ import annotations

import importlib.util
import inspect
import json
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(os.environ.get("A13N_HARNESS_ROOT", Path(__file__).resolve().parent.parent))
FUZZ = ROOT / "fuzz"
CORPUS = ROOT / "corpus"


def _load_seeds_module() -> ModuleType:
    """``fuzz/seeds.py`` of the tree under test, imported by path."""
    path = FUZZ / "seeds.py"
    spec = importlib.util.spec_from_file_location("_a13n_fuzz_seeds", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SEEDS = _load_seeds_module()


def _targets() -> list[str]:
    return sorted(path.stem for path in FUZZ.glob("fuzz_*.py")) if FUZZ.is_dir() else []


def _corpus_folders() -> list[str]:
    if not CORPUS.is_dir():
        return []
    return sorted(path.name for path in CORPUS.iterdir() if path.is_dir())


def _seeds(target: str) -> list[str]:
    names: list[str] = SEEDS.seed_names(CORPUS / target)
    return names


def _expected(target: str) -> dict[str, str]:
    path = CORPUS / target / "expected.json"
    if not path.is_file():
        pytest.fail(f"corpus/{target}/expected.json is missing")
    value = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(value, dict), f"corpus/{target}/expected.json must be an object"
    return {str(key): str(item) for key, item in value.items()}


_MODULES: dict[str, ModuleType] = {}


def load_target(target: str) -> ModuleType:
    """Import ``fuzz/<target>.py`` by path (fails the test when it is missing or incomplete)."""
    if target in _MODULES:
        return _MODULES[target]
    path = FUZZ / f"{target}.py"
    if not path.is_file():
        pytest.fail(f"corpus/{target}/ has no fuzz target fuzz/{target}.py")
    if str(FUZZ) not in sys.path:
        sys.path.insert(0, str(FUZZ))  # a target imports its helpers (_target.py) from fuzz/
    name = f"_a13n_fuzz_targets.{target}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses in a target look their module up here
    spec.loader.exec_module(module)
    for attribute in ("check", "outcome"):
        assert callable(getattr(module, attribute, None)), f"fuzz/{target}.py has no {attribute}()"
    assert (module.__doc__ or "").strip(), f"fuzz/{target}.py has no contract docstring"
    _MODULES[target] = module
    return module


def _seed_params() -> Iterator[object]:
    for target in _corpus_folders():
        for seed in _seeds(target):
            yield pytest.param(target, seed, id=f"{target}/{seed}")


def test_corpus_is_not_empty() -> None:
    """A replay that finds nothing to replay must not pass."""
    assert _targets(), f"no fuzz targets in {FUZZ}"
    assert any(_seeds(target) for target in _corpus_folders()), f"no corpus seeds in {CORPUS}"


@pytest.mark.parametrize(("target", "seed"), list(_seed_params()))
def test_seed_meets_contract_and_expected_outcome(target: str, seed: str) -> None:
    """Every seed: ``check`` holds and ``outcome`` is the one recorded beside it."""
    expected = _expected(target)
    assert seed in expected, f"corpus/{target}/{seed} has no entry in expected.json"
    module = load_target(target)
    data: bytes = SEEDS.seed_bytes(CORPUS / target, seed)
    module.check(data)
    assert module.outcome(data) == expected[seed]


def test_outcome_of_the_bytes_just_checked_is_that_verdict_computed_once() -> None:
    """The replay asks ``check`` and then ``outcome`` of each seed: one verdict, not two; other
    bytes (equal ones too: a new object), or bytes whose check failed, are judged afresh."""
    load_target("fuzz_frontmatter")  # puts fuzz/ on the path (the harness trees have this one)
    from _target import contract  # noqa: PLC0415 - fuzz/ is on the path only from here

    judged: list[bytes] = []

    def verdict(data: bytes) -> str:
        judged.append(data)
        if data == b"bad":
            raise AssertionError("breach")
        return f"outcome {len(judged)}"

    check, outcome = contract(verdict)
    seed = bytes(range(10))
    check(seed)
    assert outcome(seed) == "outcome 1"
    assert len(judged) == 1
    # Negative controls: an equal but other object, and a check that failed, compute again.
    assert outcome(bytes(range(10))) == "outcome 2"
    bad = b"bad"
    with pytest.raises(AssertionError):
        check(bad)
    with pytest.raises(AssertionError):
        outcome(bad)
    assert len(judged) == 4


@pytest.mark.parametrize("target", _corpus_folders())
def test_every_expectation_names_a_seed(target: str) -> None:
    """An expectation whose seed is gone is a seed silently dropped."""
    stale = sorted(set(_expected(target)) - set(_seeds(target)))
    assert not stale, f"corpus/{target}/expected.json names missing files: {stale}"


@pytest.mark.parametrize("target", sorted(set(_targets()) | set(_corpus_folders())))
def test_targets_and_corpus_folders_pair_up(target: str) -> None:
    """Each fuzz target has a corpus folder with seeds, and each corpus folder a target."""
    assert (FUZZ / f"{target}.py").is_file(), f"corpus/{target}/ has no fuzz/{target}.py"
    assert (CORPUS / target).is_dir(), f"fuzz/{target}.py has no corpus/{target}/ folder"
    assert _seeds(target), f"corpus/{target}/ holds no seeds"


class CoreSentinel(Exception):
    """Raised by every core function during the liveness check; ``check`` must let it out."""


def _core_functions(module: ModuleType) -> Iterator[tuple[object, str]]:
    """(owner, attribute) of each a13n_harness function the target can call directly."""
    for name, value in vars(module).items():
        if inspect.isfunction(value) and value.__module__.startswith("a13n_harness"):
            yield module, name
        elif isinstance(value, ModuleType) and value.__name__.startswith("a13n_harness"):
            for inner, function in vars(value).items():
                if inspect.isfunction(function) and function.__module__ == value.__name__:
                    yield value, inner


@pytest.mark.parametrize("target", _targets())
def test_target_lets_core_exceptions_escape(target: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A target that catches every exception would hide every crash: prove it does not.

    Every core function the target calls is replaced by one that raises
    :class:`CoreSentinel`; on every seed, ``check`` must either raise it or
    never have called the core. At least one seed must reach the core.
    """
    module = load_target(target)
    calls = 0

    def raiser(*args: object, **kwargs: object) -> object:
        nonlocal calls
        calls += 1
        raise CoreSentinel

    patched = list(_core_functions(module))
    assert patched, f"fuzz/{target}.py calls no a13n_harness function by name"
    for owner, attribute in patched:
        monkeypatch.setattr(owner, attribute, raiser)
    reached = 0
    for seed in _seeds(target) if (CORPUS / target).is_dir() else []:
        before = calls
        check: Callable[[bytes], None] = module.check
        try:
            check(SEEDS.seed_bytes(CORPUS / target, seed))
        except CoreSentinel:
            reached += 1
            continue
        assert calls == before, f"fuzz/{target}.py swallowed a core exception on {seed}"
    assert reached, f"no seed of corpus/{target} reaches the core through fuzz/{target}.py"


@pytest.mark.parametrize("target", _corpus_folders())
def test_no_stored_seed_over_the_limit(target: str) -> None:
    """Seeds over 1 MB are described in ``generated.json``, never stored."""
    folder = CORPUS / target
    large = sorted(
        path.name
        for path in folder.iterdir()
        if path.is_file()
        and path.name not in SEEDS.NOT_SEEDS
        and path.stat().st_size > SEEDS.STORED_LIMIT
    )
    assert not large, f"describe these in corpus/{target}/generated.json instead: {large}"


def test_generated_seed_that_drifted_is_refused() -> None:
    """A description whose parts no longer make the recorded bytes fails, not replays."""
    description = SEEDS.describe(b"---\n" + b"x\n" * 300)
    assert SEEDS.generate(description).startswith(b"---\nx\n")
    drifted = dict(description, parts=[["---\n", 1], ["x\n", 301]])
    with pytest.raises(ValueError, match="bytes"):
        SEEDS.generate(drifted)
    tampered = dict(description, sha256="0" * 64)
    with pytest.raises(ValueError, match="hash"):
        SEEDS.generate(tampered)


@pytest.mark.parametrize("target", _targets())
def test_every_target_is_documented_and_packaged(target: str) -> None:
    """fuzz/README.md lists the target; it has the libFuzzer options ClusterFuzzLite reads, and
    the dictionary those options name exists (the build script copies both beside it)."""
    readme = (FUZZ / "README.md").read_text(encoding="utf-8")
    assert f"`{target}.py`" in readme, f"fuzz/README.md does not list {target}"
    options = FUZZ / f"{target}.options"
    assert options.is_file(), f"fuzz/{target}.options is missing"
    text = options.read_text(encoding="utf-8")
    assert "[libfuzzer]" in text
    for line in text.splitlines():
        if line.startswith("dict = "):
            assert (FUZZ / line.removeprefix("dict = ").strip()).is_file()
