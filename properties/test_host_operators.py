"""A Host's file operator: every value it returns is taken as its exact built-in value.

A scan through a Host's operator (``SkillManager.inspect``, strict and checkout policy,
one read at a time and through ``read_many``) whose values are ``str``, ``bytes``,
``list`` and ``tuple`` subclasses that lie, entries of a ``DirectoryEntry`` subclass
whose fields are properties, and file errors of its own subclasses whose text raises,
gives exactly what the plain operator gives, holds only exact built-in values, and
runs none of their methods. An operator raising an exception of its own whose
``__str__`` raises, or declaring a ``read_concurrency`` that is not a positive ``int``
(NaN, text, a float, a ``bool``, an ``int`` subclass, a property that raises), fails
the scan with ``DefinitionError`` or is skipped as the policy says, never with its
own exception. The lying values are :mod:`a13n_harness.testing.host_operators`.
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from a13n_harness.capabilities import FileSkillSource, SkillManager, SkillsPolicy, _roots, discovery
from a13n_harness.context.errors import DefinitionError
from a13n_harness.environment import Environment, MemoryFileOperator
from a13n_harness.testing.controls import control_settings, property_fails
from a13n_harness.testing.discovery_strategies import skill_trees
from a13n_harness.testing.host_operators import (
    CONCURRENCIES,
    FAILING_TRAITS,
    VALUE_TRAITS,
    HostBatchOperator,
    HostOperator,
    HostProvider,
    LoudFailure,
)
from a13n_harness.testing.hostile import CALLS, HostCodeRan, LyingInt

POLICIES = {"strict": SkillsPolicy(), "checkout": SkillsPolicy.checkout()}
PLAIN = (str, bytes, int, bool, type(None))


def assert_plain(value: object, where: str = "result") -> None:
    """Every value reachable from ``value`` is of an exact built-in or library type."""
    kind = type(value)
    if kind in PLAIN:
        return
    if isinstance(value, tuple | list) and kind in (tuple, list):
        for index, item in enumerate(value):
            assert_plain(item, f"{where}[{index}]")
        return
    if isinstance(value, DefinitionError):
        assert kind.__module__.startswith("a13n_harness."), f"{where} is a {kind}"
        for name in ("code", "message", "reason", "path", "line", "column"):
            assert_plain(BaseException.__dict__["__dict__"].__get__(value)[name], where)
        return
    assert dataclasses.is_dataclass(value), f"{where} is a {kind}"
    assert kind.__module__.startswith("a13n_harness."), f"{where} is a {kind}"
    for field in dataclasses.fields(value):
        assert_plain(object.__getattribute__(value, field.name), f"{where}.{field.name}")


def scan(files: object, policy: str, route: str = "direct") -> object:
    """``inspect(files=...)``, or a scan of an environment whose workspace mount is a
    Host's provider serving ``files``; the value, or the exception raised."""
    root = "/skills" if route == "direct" else "/workspace/skills"
    manager = SkillManager([FileSkillSource("s", (root,))], policy=POLICIES[policy])

    async def run() -> object:
        if route == "direct":
            return await manager.inspect(files=files)  # type: ignore[arg-type]
        async with Environment({"workspace": HostProvider(files)}) as environment:
            return await manager.scan_environment(environment=environment)

    CALLS.clear()
    try:
        return asyncio.run(run())
    except Exception as error:  # the property inspects what was raised
        return error


def _outcome(value: object) -> object:
    """A value to compare: the scan as nested tuples without the environment's mount ids
    (each environment numbers its mounts anew), or the code of its error."""
    if isinstance(value, DefinitionError):
        return ("error", BaseException.__dict__["__dict__"].__get__(value)["code"])
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return tuple(
            (field.name, _outcome(getattr(value, field.name)))
            for field in dataclasses.fields(value)
            if field.name != "mount_id"
        )
    if isinstance(value, tuple | list):
        return tuple(_outcome(item) for item in value)
    return value


def check_operator(
    tree: dict[str, Any],
    policy: str,
    traits: frozenset[str],
    batch: object,
    route: str = "direct",
) -> None:
    """The property: see the module docstring."""
    expected = scan(MemoryFileOperator({"skills": tree}), policy, route)
    inner = MemoryFileOperator({"skills": tree})
    files = (
        HostOperator(inner, traits)
        if batch is None
        else HostBatchOperator(inner, traits, concurrency=batch)
    )
    got = scan(files, policy, route)
    calls = list(CALLS)
    assert calls == [], calls
    assert not isinstance(got, (HostCodeRan, LoudFailure)), type(got)
    assert isinstance(got, DefinitionError) or not isinstance(got, BaseException), type(got)
    assert_plain(got)
    if isinstance(got, DefinitionError):
        assert type(got.code) is str
    failing = bool(traits & set(FAILING_TRAITS)) or (
        batch is not None and not (type(batch) is int and batch >= 1)
    )
    if not failing:
        assert _outcome(got) == _outcome(expected)
    elif not isinstance(got, DefinitionError):
        # Nothing was read (or the Host's failures were skipped): the plain scan's items.
        assert _outcome(got.items) == _outcome(expected.items)  # type: ignore[attr-defined]


@given(
    tree=skill_trees(max_entries=8),
    policy=st.sampled_from(sorted(POLICIES)),
    traits=st.frozensets(st.sampled_from(VALUE_TRAITS + FAILING_TRAITS)),
    batch=st.one_of(st.none(), st.sampled_from(CONCURRENCIES)),
    route=st.sampled_from(["direct", "environment"]),
)
def test_a_host_operators_values_are_taken_as_built_in_values(
    tree: dict[str, Any], policy: str, traits: frozenset[str], batch: object, route: str
) -> None:
    check_operator(tree, policy, traits, batch, route)


# Each reported value, alone, on a tree with one package, one folder without SKILL.md
# (a FileNotFound read) and a file at the root.
_TREE: dict[str, Any] = {
    "alpha": {"SKILL.md": b"---\nname: alpha\ndescription: Does alpha.\n---\nBody\n"},
    "empty": {"README.md": b"x"},
    "notes.txt": b"x",
}


@pytest.mark.parametrize("trait", VALUE_TRAITS + FAILING_TRAITS)
@pytest.mark.parametrize("policy", sorted(POLICIES))
@pytest.mark.parametrize("batch", [None, 2])
@pytest.mark.parametrize("route", ["direct", "environment"])
def test_each_lying_value_alone(trait: str, policy: str, batch: object, route: str) -> None:
    check_operator(_TREE, policy, frozenset({trait}), batch, route)


@pytest.mark.parametrize(
    "concurrency",
    CONCURRENCIES,
    ids=[f"{type(c).__name__}{i}" for i, c in enumerate(CONCURRENCIES)],
)
def test_a_read_concurrency_that_is_not_a_positive_int(concurrency: object) -> None:
    """``int(read_concurrency)`` let ``ValueError`` (NaN, text) or the property's own
    exception out of the scan."""
    check_operator(_TREE, "strict", frozenset(), concurrency)
    got = scan(
        HostBatchOperator(MemoryFileOperator({"skills": _TREE}), frozenset(), concurrency), "strict"
    )
    if type(concurrency) is int and concurrency >= 1:
        assert not isinstance(got, BaseException), got
    else:
        assert isinstance(got, DefinitionError), got
        # A generation that cannot be read is no provider at all (the mount is refused).
        assert got.code in ("skill_provider_failed", "skill_root_invalid")


def test_negative_control_a_listing_taken_as_given_fails_the_property(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A listing check that keeps the Host's entries (and asks their names) is caught."""

    def trusting(listing: Any, root: str, limit: int) -> list[Any]:
        return sorted(listing, key=lambda entry: entry.name)

    monkeypatch.setattr(_roots, "checked_listing", trusting)
    monkeypatch.setattr(discovery, "checked_listing", trusting)

    @control_settings
    @given(
        tree=skill_trees(min_entries=1, max_entries=4),
        traits=st.frozensets(st.sampled_from(VALUE_TRAITS), min_size=1),
    )
    def run(tree: dict[str, Any], traits: frozenset[str]) -> None:
        check_operator(tree, "strict", traits, None)

    property_fails(run)


@pytest.mark.parametrize("route", ["direct", "environment"])
def test_a_read_concurrency_through_an_environment(route: str) -> None:
    for concurrency in CONCURRENCIES:
        check_operator(_TREE, "checkout", frozenset(), concurrency, route)


def test_a_generation_that_is_not_an_int_is_a_provider_failure() -> None:
    """A provider whose ``generation`` is an ``int`` subclass (its ``__eq__`` made every
    generation look current), text, or a property that raises: a ``DefinitionError``,
    never its own exception, and none of its methods runs."""
    manager = SkillManager([FileSkillSource("s", ("/workspace/skills",))])

    class Raising:
        @property
        def generation(self) -> int:
            raise LoudFailure("the Host's generation")

        def operator(self) -> object:
            return MemoryFileOperator({"skills": _TREE})

    for provider in (
        HostProvider(MemoryFileOperator({"skills": _TREE}), LyingInt(1)),
        HostProvider(MemoryFileOperator({"skills": _TREE}), "1"),
        Raising(),
    ):

        async def run(provider: object = provider) -> object:
            async with Environment({"workspace": provider}) as environment:  # type: ignore[dict-item]
                return await manager.scan_environment(environment=environment)

        CALLS.clear()
        try:
            got: object = asyncio.run(run())
        except Exception as error:
            got = error
        assert CALLS == []
        assert isinstance(got, DefinitionError), got
        # A generation that cannot be read is no provider at all (the mount is refused).
        assert got.code in ("skill_provider_failed", "skill_root_invalid")
