"""The value types made by ``frozen_dataclass`` behave as the standard decorator's classes.

``a13n_harness.context._values.frozen_dataclass`` makes the frozen, slotted dataclasses
the command line's scan needs without compiling their methods (start-up).
For each such type the property builds the class ``dataclasses.dataclass(frozen=True,
slots=True)`` makes from the same fields and methods and holds the two equal in
everything a caller can see: the ``__init__`` signature and its errors, field values,
``repr``, equality and hash, the frozen refusals and their messages, pickling and
copying, ``dataclasses.fields``/``replace``/``asdict``/``astuple``, ``__match_args__``,
``__slots__`` and ``__dataclass_params__``. Negative controls break one method each.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import inspect
import pickle
import sys
from collections.abc import Callable
from typing import Any, ClassVar

import pytest
from hypothesis import given
from hypothesis import strategies as st

from a13n_harness.capabilities.items import SkillCatalogItem, SkillDiagnostic, SkillScan
from a13n_harness.capabilities.sources import FileSkillSource, SkillsPolicy
from a13n_harness.context._values import FACTORY, frozen_dataclass, value_field
from a13n_harness.context.catalog import CatalogEntry, SkillCatalog
from a13n_harness.context.frontmatter import FrontmatterLimits, SkillFrontmatter
from a13n_harness.context.render import RenderedCatalog
from a13n_harness.environment.operator import DirectoryEntry, FileStat
from a13n_harness.testing.controls import property_fails

_ENTRY = CatalogEntry("alpha", "Does alpha.", "/s/alpha/SKILL.md")
_ITEM = SkillCatalogItem("alpha", "Does alpha.", "/s/alpha/SKILL.md", "ws", "/s")
_DIAGNOSTIC = SkillDiagnostic("skill_overridden", "beaten", "/s/alpha/SKILL.md", "ws")

Call = tuple[tuple[object, ...], dict[str, object]]

SAMPLES: dict[type, list[Call]] = {
    FrontmatterLimits: [((), {}), ((100,), {}), ((1, 2, 3, 4), {}), ((), {"max_nodes": 5})],
    SkillFrontmatter: [
        (("a", "Does a.", False), {}),
        ((), {"name": "b", "description": "d", "description_truncated": True}),
    ],
    CatalogEntry: [(("alpha", "Does alpha.", "/s/alpha/SKILL.md"), {})],
    SkillCatalog: [
        (((_ENTRY,),), {}),
        (((_ENTRY,), 3, (".agents/skills",)), {}),
        (((),), {"roots": ("a", "b"), "unlisted": 2}),
    ],
    RenderedCatalog: [(("text\n", "listing", 1, 0, 1, 10), {})],
    DirectoryEntry: [(("x", "file"), {}), ((), {"kind": "symlink", "name": "y"})],
    FileStat: [(("file", 3), {})],
    FileSkillSource: [(("ws", ("/a",)), {}), (("ws", ("/a", "/b"), False, 10), {})],
    SkillsPolicy: [
        ((), {}),
        (("error", 3, "skip", FrontmatterLimits(100)), {}),
        ((), {"invalid": "skip"}),
    ],
    SkillDiagnostic: [
        (("c", "m", "/p", "s"), {}),
        (("c", "m", "/p", "s", "r", 1, 2), {}),
        (("c", "m", "/p", "s"), {"column": 3}),
    ],
    SkillCatalogItem: [
        (("a", "d", "/a/SKILL.md", "s", "/"), {}),
        (("a", "d", "/a/SKILL.md", "s", "/", True), {}),
    ],
    SkillScan: [(((_ITEM,), (_DIAGNOSTIC,)), {}), (((), ()), {})],
}
"""Every value type ``frozen_dataclass`` makes, with calls its constructor accepts."""


def standard_twin(cls: type) -> Any:
    """The class ``dataclass(frozen=True, slots=True)`` makes from ``cls``'s fields.

    A subclass, so that ``cls``'s own methods (``__post_init__``, properties) serve it
    unchanged, including their ``isinstance`` checks; everything the decorator writes is
    the standard decorator's.
    """
    spec = [
        (
            f.name,
            f.type,
            dataclasses.field(
                default=f.default,
                default_factory=f.default_factory,
                init=f.init,
                repr=f.repr,
                hash=f.hash,
                compare=f.compare,
                metadata=f.metadata,
                kw_only=f.kw_only,
            ),
        )
        for f in dataclasses.fields(cls)
    ]
    return dataclasses.make_dataclass(
        cls.__name__,
        spec,
        bases=(cls,),
        namespace={"__doc__": cls.__doc__},
        frozen=True,
        slots=True,
    )


def _outcome(call: Callable[..., object], *args: object, **kwargs: object) -> tuple[str, str]:
    try:
        return ("ok", repr(call(*args, **kwargs)))
    except Exception as error:
        return (type(error).__name__, str(error))


def check_like_standard(cls: Any, calls: list[Call]) -> None:
    """``cls`` is indistinguishable from its standard twin (module docstring)."""
    twin = standard_twin(cls)
    assert [str(p) for p in inspect.signature(cls).parameters.values()] == [
        str(p) for p in inspect.signature(twin).parameters.values()
    ]
    for attribute in (
        "name",
        "type",
        "default",
        "default_factory",
        "init",
        "repr",
        "hash",
        "compare",
        "kw_only",
    ):
        assert [getattr(f, attribute) for f in dataclasses.fields(cls)] == [
            getattr(f, attribute) for f in dataclasses.fields(twin)
        ], attribute
    assert cls.__match_args__ == twin.__match_args__
    # The standard decorator's slots for a class without dataclass bases: the fields.
    assert cls.__slots__ == tuple(f.name for f in dataclasses.fields(cls))
    assert repr(cls.__dataclass_params__) == repr(twin.__dataclass_params__)
    assert cls.__doc__ == twin.__doc__
    assert not hasattr(cls(*calls[0][0], **calls[0][1]), "__dict__")
    # Wrong calls fail alike (Python's own messages name the class's __init__).
    wrong_calls: list[Call] = [((), {}), ((0,) * 12, {}), ((), {"no_such_field": 1})]
    for args, kwargs in wrong_calls:
        assert _outcome(cls, *args, **kwargs) == _outcome(twin, *args, **kwargs)
    names = [f.name for f in dataclasses.fields(cls)]
    for args, kwargs in calls:
        ours, theirs = cls(*args, **kwargs), twin(*args, **kwargs)
        assert [getattr(ours, n) for n in names] == [getattr(theirs, n) for n in names]
        assert repr(ours) == repr(theirs)
        assert hash(ours) == hash(theirs)
        again = cls(*args, **kwargs)
        assert ours == again
        assert not ours != again  # noqa: SIM202 - __ne__ is the one derived from __eq__
        assert ours.__eq__(theirs) is NotImplemented
        assert theirs.__eq__(ours) is NotImplemented
        assert ours.__getstate__() == theirs.__getstate__()
        for clone in (pickle.loads(pickle.dumps(ours)), copy.copy(ours), copy.deepcopy(ours)):
            assert type(clone) is cls
            assert clone == ours
            assert [getattr(clone, n) for n in names] == [getattr(ours, n) for n in names]
        assert dataclasses.asdict(ours) == dataclasses.asdict(theirs)
        assert dataclasses.astuple(ours) == dataclasses.astuple(theirs)
        assert dataclasses.replace(ours) == ours
        assert ours.__replace__() == ours
        for name in names:
            assert _outcome(setattr, ours, name, 1) == _outcome(setattr, theirs, name, 1)
            assert _outcome(delattr, ours, name) == _outcome(delattr, theirs, name)
        # Any other name: the frozen refusal. (Python 3.11's standard frozen, slotted classes
        # raise TypeError there instead: their __setattr__ calls super() with the class
        # object the slotted copy replaced. The refusal is what the decorator means.)
        assert _outcome(setattr, ours, "not_a_field", 1) == (
            "FrozenInstanceError",
            "cannot assign to field 'not_a_field'",
        )
        assert _outcome(delattr, ours, "not_a_field") == (
            "FrozenInstanceError",
            "cannot delete field 'not_a_field'",
        )
        assert [getattr(ours, n) for n in names] == [getattr(theirs, n) for n in names]
        for other_args, other_kwargs in calls:
            other = cls(*other_args, **other_kwargs)
            equal = [getattr(ours, f.name) for f in dataclasses.fields(cls) if f.compare] == [
                getattr(other, f.name) for f in dataclasses.fields(cls) if f.compare
            ]
            assert (ours == other) is equal
            if equal:
                assert hash(ours) == hash(other)


@pytest.mark.parametrize("cls", list(SAMPLES), ids=lambda cls: cls.__name__)
def test_value_types_behave_as_the_standard_dataclass(cls: type) -> None:
    check_like_standard(cls, SAMPLES[cls])


@given(st.tuples(st.text(), st.text(), *[st.integers(min_value=-(2**70), max_value=2**70)] * 4))
def test_renderings_of_any_values_behave_as_the_standard_dataclass(
    values: tuple[object, ...],
) -> None:
    check_like_standard(RenderedCatalog, [(values, {})])


def test_every_value_type_of_the_catalog_path_is_checked() -> None:
    """A new ``frozen_dataclass`` type in these modules must be added to SAMPLES."""
    modules = {sys.modules[cls.__module__] for cls in SAMPLES}
    made = {
        value
        for module in modules
        for value in vars(module).values()
        if isinstance(value, type)
        and dataclasses.is_dataclass(value)
        and value.__module__ == module.__name__
        and value.__setattr__.__module__ == frozen_dataclass.__module__
    }
    assert made == set(SAMPLES)


# ------------------------------------------------------------------ negative controls


@frozen_dataclass(frozen=True, slots=True)
class _Pair:
    """A control type."""

    left: str
    right: int = 0

    def __init__(self, left: str, right: int = 0) -> None:
        object.__setattr__(self, "left", left)
        object.__setattr__(self, "right", right)


_PAIR_CALLS: list[Call] = [(("a",), {}), (("a", 1), {}), (("b", 1), {})]


def _broken(method: str, replacement: Callable[..., object]) -> Callable[[], None]:
    def run() -> None:
        original = getattr(_Pair, method)
        setattr(_Pair, method, replacement)
        try:
            check_like_standard(_Pair, _PAIR_CALLS)
        finally:
            setattr(_Pair, method, original)

    return run


def test_the_control_type_passes() -> None:
    check_like_standard(_Pair, _PAIR_CALLS)


@pytest.mark.parametrize(
    ("method", "replacement"),
    [
        ("__hash__", lambda self: hash(self.left)),
        ("__repr__", lambda self: f"_Pair(left={self.left!r})"),
        ("__eq__", lambda self, other: self.left == getattr(other, "left", None)),
        ("__setattr__", object.__setattr__),
        ("__delattr__", lambda self, name: None),
        ("__getstate__", lambda self: [self.left]),
    ],
)
def test_negative_control_a_broken_method_fails_the_property(
    method: str, replacement: Callable[..., object]
) -> None:
    property_fails(_broken(method, replacement))


def test_negative_control_a_different_signature_fails_the_property() -> None:
    def init(self: Any, left: str, right: int = 1) -> None:
        object.__setattr__(self, "left", left)
        object.__setattr__(self, "right", right)

    property_fails(_broken("__init__", init))


# ----------------------------------------------------------- the decorator's own checks


def test_an_init_that_differs_from_the_fields_is_refused_at_class_creation() -> None:
    with pytest.raises(TypeError, match="must define __init__"):

        @frozen_dataclass(frozen=True, slots=True)
        class NoInit:
            """A test type."""

            a: int

    with pytest.raises(TypeError, match="must take exactly"):

        @frozen_dataclass(frozen=True, slots=True)
        class Swapped:
            """A test type."""

            a: int
            b: int

            def __init__(self, b: int, a: int) -> None:
                object.__setattr__(self, "a", a)
                object.__setattr__(self, "b", b)

    with pytest.raises(TypeError, match="defaults"):

        @frozen_dataclass(frozen=True, slots=True)
        class OtherDefault:
            """A test type."""

            a: int = 1

            def __init__(self, a: int = 2) -> None:
                object.__setattr__(self, "a", a)

    with pytest.raises(TypeError, match="defaults"):

        @frozen_dataclass(frozen=True, slots=True)
        class FactoryNotMarked:
            """A test type."""

            a: tuple[int, ...] = value_field(default_factory=tuple)

            def __init__(self, a: tuple[int, ...] = ()) -> None:
                object.__setattr__(self, "a", a)

    with pytest.raises(ValueError, match="frozen, slotted"):
        frozen_dataclass(frozen=False, slots=True)


def test_a_factory_default_is_called_per_instance() -> None:
    @frozen_dataclass(frozen=True, slots=True)
    class Holder:
        """A test type."""

        items: list[int] = value_field(default_factory=list)

        def __init__(self, items: list[int] = FACTORY) -> None:
            object.__setattr__(self, "items", [] if items is FACTORY else items)

    assert Holder().items == []
    assert Holder().items is not Holder().items
    assert repr(inspect.signature(Holder).parameters["items"].default) == "<factory>"


def test_a_decorated_init_is_checked_through_the_function_it_wraps() -> None:
    """mutmut wraps every function in a ``functools.wraps`` trampoline taking ``*args``."""

    def trampoline(init: Callable[..., None]) -> Callable[..., None]:
        @functools.wraps(init)
        def call(*args: object, **kwargs: object) -> None:
            init(*args, **kwargs)

        return call

    @frozen_dataclass(frozen=True, slots=True)
    class Wrapped:
        """A test type."""

        a: int
        b: int = 2

        @trampoline
        def __init__(self, a: int, b: int = 2) -> None:
            object.__setattr__(self, "a", a)
            object.__setattr__(self, "b", b)

    assert (Wrapped(1).a, Wrapped(1).b) == (1, 2)
    with pytest.raises(TypeError, match="defaults"):

        @frozen_dataclass(frozen=True, slots=True)
        class WrappedOtherDefault:
            """A test type."""

            a: int = 1

            @trampoline
            def __init__(self, a: int = 3) -> None:
                object.__setattr__(self, "a", a)


def test_what_frozen_dataclass_does_not_make_is_refused_at_class_creation() -> None:
    with pytest.raises(TypeError, match="docstring"):

        @frozen_dataclass(frozen=True, slots=True)
        class Undocumented:
            a: int

            def __init__(self, a: int) -> None:
                object.__setattr__(self, "a", a)

    with pytest.raises(TypeError, match="no base"):

        @frozen_dataclass(frozen=True, slots=True)
        class Derived(_Pair):
            """A test type."""

    with pytest.raises(TypeError, match="value_field"):

        @frozen_dataclass(frozen=True, slots=True)
        class StandardField:
            """A test type."""

            a: int = dataclasses.field(default=1)

            def __init__(self, a: int = 1) -> None:
                object.__setattr__(self, "a", a)

    with pytest.raises(TypeError, match="plain fields"):

        @frozen_dataclass(frozen=True, slots=True)
        class WithClassVar:
            """A test type."""

            a: ClassVar[int] = 1

            def __init__(self) -> None:
                pass

    with pytest.raises(ValueError, match="both"):
        value_field(default=1, default_factory=list)


def test_dataclass_metadata_is_read_from_the_standard_twin_on_first_use() -> None:
    fields = dataclasses.fields(SkillCatalog)
    assert all(type(f) is dataclasses.Field for f in fields)
    assert [f.name for f in fields if not f.compare] == ["_render_plan", "_checked_entries"]
    params: Any = vars(SkillCatalog)["__dataclass_params__"]
    assert params.frozen is True
    assert "frozen=True" in repr(params)
    assert dataclasses.replace(SkillsPolicy(), invalid="skip").invalid == "skip"
    policy: Any = SkillsPolicy()
    assert policy.__replace__(invalid="skip") == SkillsPolicy(invalid="skip")
    assert dataclasses.is_dataclass(SkillsPolicy)
    assert dataclasses.is_dataclass(SkillsPolicy())
