"""Frozen, slotted dataclasses whose methods are written once, not compiled per class.

``dataclasses.dataclass(frozen=True, slots=True)`` compiles six functions for every
class it makes (``__init__``, ``__repr__``, ``__eq__``, ``__hash__``, ``__setattr__``,
``__delattr__``, each through ``exec``): about 0.7 ms a class, ten times what the rest
of the decorator costs. The command line's ``catalog`` defines twelve such value types
before it reads a file, so that compiling was the largest part of its start-up above
the interpreter, PyYAML and ``dataclasses`` itself (``scripts/bench.py cli``).

:func:`frozen_dataclass` makes the same kind of class without compiling anything:

* ``dataclasses.dataclass(init=False, repr=False, eq=False, slots=True)`` still makes the
  fields, ``__dataclass_fields__``, ``__match_args__`` and the slots, so
  ``dataclasses.fields``, ``replace``, ``asdict``, ``astuple`` and ``is_dataclass`` work
  as for any dataclass;
* ``__repr__``, ``__eq__``, ``__hash__``, ``__setattr__``, ``__delattr__`` and the pickling
  pair ``__getstate__``/``__setstate__`` are closures over the class's field names, with
  the standard decorator's behaviour: the same text, comparison by exact class and field
  tuple, the hash of that tuple, :class:`dataclasses.FrozenInstanceError` with the same
  message, the state as the list of field values;
* ``__init__`` is the class's own, written out in its body: :func:`frozen_dataclass`
  checks at class creation that its parameters are the init fields in order, with the
  fields' defaults (:data:`FACTORY` for a ``default_factory``), so the two cannot drift;
* ``__dataclass_params__`` then says ``init``, ``repr``, ``eq`` and ``frozen``, which is
  what the class does (a frozen dataclass may subclass it).

mypy sees the standard decorator (the modules import ``dataclasses.dataclass`` under
that name when type checking), so it checks the classes as frozen dataclasses too.
``properties/test_values.py`` holds every value type equal in behaviour to the class the
standard decorator makes from the same body.
"""

from __future__ import annotations

import _thread
from dataclasses import MISSING, FrozenInstanceError, dataclass, fields
from operator import attrgetter

# Spelled here rather than imported from ``typing``: see ``a13n_harness/__init__.py``.
TYPE_CHECKING = False

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar

    _T = TypeVar("_T")

__all__ = ["FACTORY", "frozen_dataclass"]


class _Factory:
    """The default an ``__init__`` parameter has when its field has a ``default_factory``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<factory>"  # what inspect.signature shows for the standard decorator's


FACTORY: Any = _Factory()
"""The ``__init__`` default of a field with a ``default_factory``: replace it by a call."""


def frozen_dataclass(*, frozen: bool, slots: bool) -> Callable[[type[_T]], type[_T]]:
    """``dataclasses.dataclass(frozen=True, slots=True)``, without compiling methods.

    The decorated class defines ``__init__`` itself (see the module docstring).
    Anything but ``frozen=True, slots=True`` is a programming error (``ValueError``).
    """
    if frozen is not True or slots is not True:
        raise ValueError("frozen_dataclass makes frozen, slotted dataclasses only")
    return _frozen


def _frozen(cls: type[_T]) -> type[_T]:
    own_init = cls.__dict__.get("__init__")
    made = dataclass(init=False, repr=False, eq=False, slots=True)(cls)
    dataclass_made: Any = made  # what ``fields`` takes, for mypy
    every = fields(dataclass_made)
    names = tuple(f.name for f in every)
    _check_init(made.__qualname__, own_init, [f for f in every if f.init])
    shown = [f.name for f in every if f.repr]
    compared = _tuple_getter([f.name for f in every if f.compare])
    hashed = _tuple_getter([f.name for f in every if (f.compare if f.hash is None else f.hash)])
    qualname = made.__qualname__

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
        return hash(hashed(self))

    def __setattr__(self: Any, name: str, value: object) -> None:
        if type(self) is made or name in names:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        super(made, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is made or name in names:
            raise FrozenInstanceError(f"cannot delete field {name!r}")
        super(made, self).__delattr__(name)

    def __getstate__(self: Any) -> list[object]:
        return [getattr(self, name) for name in names]

    def __setstate__(self: Any, state: list[object]) -> None:
        for name, value in zip(names, state, strict=False):
            object.__setattr__(self, name, value)

    for method in (
        __repr__,
        __eq__,
        __hash__,
        __setattr__,
        __delattr__,
        __getstate__,
        __setstate__,
    ):
        method.__qualname__ = f"{qualname}.{method.__name__}"
        setattr(made, method.__name__, method)
    params = dataclass_made.__dataclass_params__
    params.init = params.repr = params.eq = params.frozen = True
    return made


def _tuple_getter(names: list[str]) -> Callable[[object], tuple[object, ...]]:
    """The field values of an object as a tuple (``attrgetter`` in C for two or more)."""
    if len(names) >= 2:
        return attrgetter(*names)
    return lambda obj: tuple(getattr(obj, name) for name in names)


def _check_init(qualname: str, init: object, init_fields: list[Any]) -> None:
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
    wanted = tuple(f.name for f in init_fields)
    if parameters != wanted or code.co_kwonlyargcount or code.co_flags & 0x0C:
        raise TypeError(f"{qualname}.__init__ must take exactly {wanted}")
    expected = tuple(
        f.default if f.default is not MISSING else FACTORY
        for f in init_fields
        if f.default is not MISSING or f.default_factory is not MISSING
    )
    given = getattr(init, "__defaults__", None) or ()
    if len(given) != len(expected) or any(
        a is not b and a != b for a, b in zip(given, expected, strict=True)
    ):
        raise TypeError(
            f"{qualname}.__init__ defaults {given!r} differ from the fields' {expected!r}"
        )
