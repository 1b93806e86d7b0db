"""Read concurrency: bounded, and invisible in the result (docs/contract.md §7)."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from a13n_harness.capabilities import (
    MAX_READ_WORKERS,
    FileSkillSource,
    SkillManager,
    SkillScan,
    SkillsPolicy,
)
from a13n_harness.context.errors import DefinitionError
from a13n_harness.environment import FileOperator, MemoryFileOperator
from a13n_harness.testing.discovery_strategies import (
    ShuffledBatchOperator,
    ShuffledCompletionOperator,
    skill_document,
    skill_trees,
)

SOURCES = (
    FileSkillSource("first", ("/one", "/two"), required=False),
    FileSkillSource("second", ("/three",), required=False),
)


def outcome(files: FileOperator, policy: SkillsPolicy) -> SkillScan | tuple[str, str | None]:
    manager = SkillManager(SOURCES, policy=policy)
    try:
        return asyncio.run(manager.inspect(files=files))
    except DefinitionError as error:
        return (error.code, error.path)


policies = st.builds(
    SkillsPolicy,
    conflict=st.sampled_from(["precedence", "error"]),
    invalid=st.sampled_from(["skip", "error"]),
)


@given(
    one=skill_trees(),
    two=skill_trees(),
    three=skill_trees(),
    delays=st.lists(st.integers(0, 12), min_size=1, max_size=40),
    policy=policies,
    batch=st.booleans(),
)
def test_result_and_diagnostics_do_not_depend_on_completion_order(
    *,
    one: dict[str, object],
    two: dict[str, object],
    three: dict[str, object],
    delays: list[int],
    policy: SkillsPolicy,
    batch: bool,
) -> None:
    """Same result, diagnostics and error whatever order reads complete in; <= 8 in flight."""
    tree = {"one": one, "two": two, "three": three}
    baseline = outcome(MemoryFileOperator(tree), policy)
    wrapper = ShuffledBatchOperator if batch else ShuffledCompletionOperator
    shuffled = wrapper(MemoryFileOperator(tree), delays)
    assert outcome(shuffled, policy) == baseline
    assert shuffled.peak <= MAX_READ_WORKERS


@settings(max_examples=30)
@given(delays=st.lists(st.integers(1, 6), min_size=1, max_size=20))
def test_a_wide_tree_is_read_concurrently_but_at_most_eight_at_once(delays: list[int]) -> None:
    tree = {"one": {f"p{i:03d}": {"SKILL.md": skill_document(f"p{i:03d}", "d")} for i in range(60)}}
    operator = ShuffledCompletionOperator(MemoryFileOperator(tree), delays)
    scan = outcome(operator, SkillsPolicy())
    assert isinstance(scan, SkillScan)
    assert len(scan.items) == 60
    assert 1 < operator.peak <= MAX_READ_WORKERS


def test_cancelling_a_scan_joins_its_workers() -> None:
    class Blocking(ShuffledCompletionOperator):
        def __init__(self, inner: MemoryFileOperator) -> None:
            super().__init__(inner, [0])
            self.release = asyncio.Event()

        async def read_bytes(self, path: str, limit: int) -> bytes:
            self.in_flight += 1
            self.peak = max(self.peak, self.in_flight)
            try:
                await self.release.wait()
            finally:
                self.in_flight -= 1
            return self.inner.read_now(path, limit)

    tree = {"one": {f"p{i}": {"SKILL.md": skill_document(f"p{i}", "d")} for i in range(30)}}

    async def run() -> Blocking:
        operator = Blocking(MemoryFileOperator(tree))
        task = asyncio.create_task(SkillManager(SOURCES).scan(files=operator))
        while operator.in_flight < MAX_READ_WORKERS:
            await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert operator.in_flight == 0  # every worker finished before the scan returned
        return operator

    operator = asyncio.run(run())
    assert operator.peak == MAX_READ_WORKERS
