"""Frozen, slotted dataclasses made without ``dataclasses`` until someone asks for it.

``dataclasses.dataclass(frozen=True, slots=True)`` compiles six functions for every
class it makes (``__init__``, ``__repr__``, ``__eq__``, ``__hash__``, ``__setattr__``,
``__delattr__``, each through ``exec``, about 0.7 ms a class), and importing
``dataclasses`` imports ``inspect`` (with ``ast``, ``dis``, ``tokenize``): together more
than half of a bare interpreter's start. The command line's ``catalog`` makes twelve
value types and never reads their dataclass metadata, so :func:`frozen_dataclass` makes
the same kind of class without either:

* the slots, ``__match_args__``, and ``__repr__``, ``__eq__``, ``__hash__``,
  ``__setattr__``, ``__delattr__``, ``__getstate__``/``__setstate__`` and ``__replace__``
  (``copy.replace``, as Python 3.13's decorator adds) are written once
  here (closures over the field names), with the standard decorator's behaviour: the
  same text, comparison by exact class and field tuple, the hash of that tuple,
  :class:`dataclasses.FrozenInstanceError` with the same message, the state as the
  list of field values;
* ``__init__`` is the class's own, written out in its body, and checked when the class
  is made: its parameters are the init fields in order, with the fields' defaults
  (:data:`FACTORY` for a ``default_factory``), so the two cannot drift;
* ``__dataclass_fields__`` and ``__dataclass_params__`` are there from the start (so
  ``dataclasses.is_dataclass``, ``fields``, ``replace``, ``asdict``, ``astuple`` and a
  frozen dataclass subclassing one all work) but are filled on first use, from the
  class the standard decorator makes out of the same fields: real ``Field`` objects and
  parameters, built with ``dataclasses``' public API only.

Fields are declared with :func:`value_field` where ``dataclasses.field`` would be
used. mypy sees the standard decorator and ``field`` (the modules import them under
these names when type checking), so it checks the classes as frozen dataclasses.
``properties/test_values.py`` holds every value type equal in behaviour to the class
the standard decorator makes from the same fields.
"""

from __future__ import annotations

import _thread
from collections.abc import Mapping
from operator import attrgetter

# Spelled here rather than imported from ``typing``: see ``a13n_harness/__init__.py``.
TYPE_CHECKING = False

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any, TypeVar

    _T = TypeVar("_T")

__all__ = ["FACTORY", "frozen_dataclass", "value_field"]


class _Sentinel:
    __slots__ = ("_shown",)

    def __init__(self, shown: str) -> None:
        self._shown = shown

    def __repr__(self) -> str:
        return self._shown


_MISSING: Any = _Sentinel("<missing>")
FACTORY: Any = _Sentinel("<factory>")  # what inspect.signature shows for the standard one
"""The ``__init__`` default of a field with a ``default_factory``: replace it by a call."""


class _FieldSpec:
    """What :func:`value_field` declares (a ``dataclasses.field`` without ``dataclasses``)."""

    __slots__ = ("compare", "default", "default_factory", "init", "repr")

    def __init__(
        self, default: object, default_factory: object, init: bool, repr: bool, compare: bool
    ) -> None:
        self.default = default
        self.default_factory = default_factory
        self.init = init
        self.repr = repr
        self.compare = compare


def value_field(
    *,
    default: Any = _MISSING,
    default_factory: Any = _MISSING,
    init: bool = True,
    repr: bool = True,
    compare: bool = True,
) -> Any:
    """``dataclasses.field`` for a :func:`frozen_dataclass` (the parameters it uses)."""
    if default is not _MISSING and default_factory is not _MISSING:
        raise ValueError("cannot specify both default and default_factory")
    return _FieldSpec(default, default_factory, init, repr, compare)


def frozen_dataclass(*, frozen: bool, slots: bool) -> Callable[[type[_T]], type[_T]]:
    """``dataclasses.dataclass(frozen=True, slots=True)``, made as the module docstring says.

    The decorated class defines ``__init__`` itself and a docstring, and has no base but
    ``object``. Anything else, and anything but ``frozen=True, slots=True``, is a
    programming error (``TypeError``, ``ValueError``).
    """
    if frozen is not True or slots is not True:
        raise ValueError("frozen_dataclass makes frozen, slotted dataclasses only")
    return _frozen


def _frozen(cls: type[_T]) -> type[_T]:
    qualname = cls.__qualname__
    if cls.__bases__ != (object,) or not cls.__doc__:
        raise TypeError(f"{qualname}: a frozen_dataclass has a docstring and no base class")
    specs: list[tuple[str, object, _FieldSpec]] = []
    for name, annotation in cls.__annotations__.items():  # no base: the class's own
        if any(word in str(annotation) for word in ("ClassVar", "InitVar", "KW_ONLY")):
            raise TypeError(f"{qualname}.{name}: frozen_dataclass takes plain fields only")
        declared = cls.__dict__.get(name, _MISSING)
        if not isinstance(declared, _FieldSpec):
            if type(declared).__name__ == "Field":
                raise TypeError(f"{qualname}.{name}: use value_field, not dataclasses.field")
            declared = _FieldSpec(declared, _MISSING, True, True, True)
        specs.append((name, annotation, declared))
    names = tuple(name for name, _, _ in specs)
    init_specs = [(name, spec) for name, _, spec in specs if spec.init]
    _check_init(qualname, cls.__dict__.get("__init__"), init_specs)

    namespace = {
        key: value
        for key, value in cls.__dict__.items()
        if key not in names and key not in ("__dict__", "__weakref__")
    }
    namespace["__slots__"] = names
    namespace["__match_args__"] = tuple(name for name, _ in init_specs)
    metaclass: Any = type(cls)
    made: Any = metaclass(cls.__name__, cls.__bases__, namespace)
    made.__qualname__ = qualname

    shown = [name for name, _, spec in specs if spec.repr]
    compared = _tuple_getter([name for name, _, spec in specs if spec.compare])
    running: set[tuple[int, int]] = set()

    def __repr__(self: Any) -> str:
        # As the standard decorator's: "..." where a value holds the object itself.
        key = (id(self), _thread.get_ident())
        if key in running:
            return "..."
        running.add(key)
        try:
            values = ", ".join(f"{name}={getattr(self, name)!r}" for name in shown)
        finally:
            running.discard(key)
        return f"{self.__class__.__qualname__}({values})"

    def __eq__(self: Any, other: object) -> bool:
        if other.__class__ is self.__class__:
            equal: bool = compared(self) == compared(other)
            return equal
        return NotImplemented

    def __hash__(self: Any) -> int:
        return hash(compared(self))

    def __setattr__(self: Any, name: str, value: object) -> None:
        if type(self) is made or name in names:
            raise _frozen_instance_error(f"cannot assign to field {name!r}")
        super(made, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is made or name in names:
            raise _frozen_instance_error(f"cannot delete field {name!r}")
        super(made, self).__delattr__(name)

    def __getstate__(self: Any) -> list[object]:
        return [getattr(self, name) for name in names]

    def __setstate__(self: Any, state: list[object]) -> None:
        for name, value in zip(names, state, strict=False):
            object.__setattr__(self, name, value)

    def __replace__(self: Any, **changes: object) -> Any:
        # What Python 3.13's standard decorator adds for copy.replace.
        import dataclasses  # noqa: PLC0415 - on first use (module docstring)

        return dataclasses.replace(self, **changes)

    for method in (
        __repr__,
        __eq__,
        __hash__,
        __setattr__,
        __delattr__,
        __getstate__,
        __setstate__,
        __replace__,
    ):
        method.__qualname__ = f"{qualname}.{method.__name__}"
        setattr(made, method.__name__, method)
    twin = _StandardTwin(made, specs)
    type.__setattr__(made, "__dataclass_fields__", _Fields(twin))
    type.__setattr__(made, "__dataclass_params__", _Params(twin))
    result: type[_T] = made
    return result


def _frozen_instance_error(message: str) -> Exception:
    from dataclasses import FrozenInstanceError  # noqa: PLC0415 - only when refusing (start-up)

    return FrozenInstanceError(message)


def _tuple_getter(names: list[str]) -> Callable[[object], tuple[object, ...]]:
    """The field values of an object as a tuple (``attrgetter`` in C for two or more)."""
    if len(names) >= 2:
        return attrgetter(*names)
    return lambda obj: tuple(getattr(obj, name) for name in names)


def _check_init(qualname: str, init: object, init_specs: list[tuple[str, _FieldSpec]]) -> None:
    """The class's own ``__init__`` takes the init fields, in order, with their defaults.

    A decorated ``__init__`` (``functools.wraps``, as mutmut's trampolines are) is checked
    through the function it wraps.
    """
    for _ in range(8):  # 8: decorators stack a few deep at most; a cycle must still end
        init = getattr(init, "__wrapped__", init)
    code = getattr(init, "__code__", None)
    if code is None:
        raise TypeError(f"{qualname} must define __init__ (frozen_dataclass writes none)")
    parameters = code.co_varnames[1 : code.co_argcount]
    wanted = tuple(name for name, _ in init_specs)
    if parameters != wanted or code.co_kwonlyargcount or code.co_flags & 0x0C:
        raise TypeError(f"{qualname}.__init__ must take exactly {wanted}")
    expected = tuple(
        spec.default if spec.default is not _MISSING else FACTORY
        for _, spec in init_specs
        if spec.default is not _MISSING or spec.default_factory is not _MISSING
    )
    given = getattr(init, "__defaults__", None) or ()
    if len(given) != len(expected) or any(
        a is not b and a != b for a, b in zip(given, expected, strict=True)
    ):
        raise TypeError(f"{qualname}.__init__ defaults {given!r} are not the fields' {expected!r}")


class _StandardTwin:
    """The class ``dataclass(frozen=True, slots=True)`` makes from the same fields, made
    the first time a value type's dataclass metadata is read."""

    __slots__ = ("_made", "_of", "_specs")

    def __init__(self, of: type, specs: list[tuple[str, object, _FieldSpec]]) -> None:
        self._of = of
        self._specs = specs
        self._made: Any = None

    def get(self) -> Any:
        if self._made is None:
            import dataclasses  # noqa: PLC0415 - on first use (module docstring)

            namespace: dict[str, object] = {
                "__annotations__": {name: annotation for name, annotation, _ in self._specs},
                "__module__": self._of.__module__,
                "__qualname__": self._of.__qualname__,
                "__doc__": self._of.__doc__,
            }
            field: Any = dataclasses.field  # one call for every combination (mypy: overloads)
            for name, _, spec in self._specs:
                namespace[name] = field(
                    default=dataclasses.MISSING if spec.default is _MISSING else spec.default,
                    default_factory=(
                        dataclasses.MISSING
                        if spec.default_factory is _MISSING
                        else spec.default_factory
                    ),
                    init=spec.init,
                    repr=spec.repr,
                    compare=spec.compare,
                )
            plain = type(self._of.__name__, (), namespace)
            self._made = dataclasses.dataclass(frozen=True, slots=True)(plain)
        return self._made


class _Fields(Mapping[str, object]):
    """A value type's ``__dataclass_fields__``: the standard twin's, read on first use."""

    __slots__ = ("_twin",)

    def __init__(self, twin: _StandardTwin) -> None:
        self._twin = twin

    def _fields(self) -> dict[str, object]:
        fields: dict[str, object] = self._twin.get().__dataclass_fields__
        return fields

    def __getitem__(self, name: str) -> object:
        return self._fields()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._fields())

    def __len__(self) -> int:
        return len(self._fields())

    def __repr__(self) -> str:
        return repr(self._fields())


class _Params:
    """A value type's ``__dataclass_params__``: the standard twin's, read on first use."""

    __slots__ = ("_twin",)

    def __init__(self, twin: _StandardTwin) -> None:
        self._twin = twin

    def __getattr__(self, name: str) -> object:
        value: object = getattr(self._twin.get().__dataclass_params__, name)
        return value

    def __repr__(self) -> str:
        return repr(self._twin.get().__dataclass_params__)
