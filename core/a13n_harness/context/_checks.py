"""The shared argument checks of the project, written once.

Every public entry point checks what a Host hands it with these predicates
before touching it, so a bad argument becomes the entry point's own
``DefinitionError`` (docs/contract.md §0) rather than a ``TypeError`` or ``AttributeError``
from deep inside, and every entry point agrees on what "a count", "a u64",
"bytes" or "text" means. Each caller raises its own code: the predicates
only answer. The pure core, the file layer, discovery and the command line
all import them from here (these checks used to be written out 17, 5 and 2
times).
"""

from __future__ import annotations

from dataclasses import MISSING
from operator import attrgetter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeGuard, TypeVar

    _T = TypeVar("_T")

__all__ = [
    "BYTES_LIKE",
    "MAX_U64",
    "describe",
    "has_lone_surrogate",
    "is_bytes_like",
    "is_count",
    "is_kind",
    "is_text",
    "is_u64",
    "plain_bytes",
    "plain_fields",
    "plain_int",
    "plain_record",
    "plain_sequence",
    "plain_str",
    "plain_tuple",
    "type_name",
    "utf8_error_at",
]

MAX_U64 = 2**64 - 1  # the largest count a u64 consumer (JSON readers, Rust and Go hosts) holds

BYTES_LIKE = (bytes, bytearray, memoryview)
"""What "bytes" accepts: a buffer of bytes, never an ``int`` (``bytes(10**10)``
allocates 10 GB of zeros) nor an iterable of ints."""


def is_bytes_like(value: object) -> TypeGuard[bytes | bytearray | memoryview]:
    """Whether ``value`` is ``bytes``, ``bytearray`` or ``memoryview``."""
    return isinstance(value, BYTES_LIKE)


def is_count(value: object, minimum: int = 0) -> TypeGuard[int]:
    """Whether ``value`` is an ``int`` >= ``minimum`` that is not a ``bool``.

    ``True`` is not a count, nor is ``1.0`` or an ``int`` subclass. ``minimum``
    is ``0`` for a count and ``1`` for a positive bound.
    """
    return type(value) is int and value >= minimum


def is_u64(value: object) -> TypeGuard[int]:
    """Whether ``value`` is a count (:func:`is_count`) of at most :data:`MAX_U64`."""
    return type(value) is int and 0 <= value <= MAX_U64


def has_lone_surrogate(text: str) -> bool:
    """Whether ``text`` (a ``str``) holds a code point U+D800..U+DFFF: it has no UTF-8 form.

    Python's strict UTF-8 codec refuses exactly those code points, so the
    test runs in C; ASCII text cannot hold one and is answered at once.
    """
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def is_text(value: object) -> TypeGuard[str]:
    """Whether ``value`` is a ``str`` with a UTF-8 form (no lone surrogate)."""
    return isinstance(value, str) and not has_lone_surrogate(value)


def is_kind(value: object, kind: type[_T]) -> TypeGuard[_T]:
    """Whether ``value`` is an instance of ``kind``, asked without running its code.

    ``isinstance`` reads ``value.__class__`` when the type itself does not match,
    and a Host's object may make that a property; the type's own method order
    (what ``issubclass`` reads for a real class) cannot lie.
    """
    return issubclass(type(value), kind)


def plain_str(value: object) -> object:
    """A ``str`` subclass as the plain ``str`` of the same characters; anything else as is.

    The copy is made by ``str.__str__`` of the base type, which reads the
    characters themselves: none of the subclass's methods runs (``isascii``,
    ``isprintable``, ``encode``, ``replace``, ``__len__``, ``__iter__``, ``__str__``
    may all lie or raise in a Host's object). Every public entry point that takes
    text passes it through here first, so what it checks is what it renders.
    """
    kind = type(value)
    if kind is str or not issubclass(kind, str):
        return value
    return str.__str__(value)


def plain_bytes(value: object) -> object:
    """A ``bytes``/``bytearray`` subclass or a ``memoryview`` as plain ``bytes``; else as is.

    ``bytes(value)`` would call a subclass's ``__bytes__``; the base type's slice
    copies the buffer itself.
    """
    kind = type(value)
    if kind is bytes:
        return value
    if issubclass(kind, bytes):
        return bytes.__getitem__(value, slice(None))  # type: ignore[call-overload]
    if issubclass(kind, bytearray):
        return bytes(bytearray.__getitem__(value, slice(None)))  # type: ignore[call-overload]
    if kind is memoryview:
        return memoryview.tobytes(value)  # type: ignore[arg-type]
    return value


def plain_int(value: object) -> object:
    """An ``int`` subclass (not a ``bool``) as the plain ``int`` of the same number, read by
    ``int.__index__`` of the base type (none of its methods runs); anything else as is.

    For an ``int`` that is a value (a code point, a record's field). A count or a limit
    parameter stays exactly an ``int`` (:func:`is_count`), refusing a subclass as it refuses
    ``True``."""
    kind = type(value)
    if kind is int or not issubclass(kind, int) or issubclass(kind, bool):
        return value
    return int.__index__(value)  # type: ignore[arg-type]


def plain_tuple(value: object) -> object:
    """A ``tuple`` subclass as a plain ``tuple`` of its items (its ``__iter__``,
    ``__len__`` and ``__getitem__`` not run); anything else as is."""
    kind = type(value)
    if kind is tuple or not issubclass(kind, tuple):
        return value
    return tuple.__getitem__(value, slice(None))  # type: ignore[call-overload]


def plain_sequence(value: object) -> list[object] | None:
    """A Host's ``list`` or ``tuple`` (a subclass read by the base type, so its own
    ``__iter__``, ``__len__`` and ``__getitem__`` never run) as a plain ``list``; ``None``
    for anything else. Kinds are asked of the type, never of the object's ``__class__``."""
    kind = type(value)
    if issubclass(kind, list):
        items: list[object] = list.__getitem__(value, slice(None))  # type: ignore[call-overload]
        return items
    if issubclass(kind, tuple):
        return list(tuple.__getitem__(value, slice(None)))  # type: ignore[call-overload]
    return None


def _plain_value(value: object, *, records: bool = True) -> object:
    kind = type(value)
    if kind is str or kind is bool or kind is int or value is None:
        return value
    if issubclass(kind, str):
        return str.__str__(value)
    if issubclass(kind, int) and not issubclass(kind, bool):
        return int.__index__(value)  # type: ignore[arg-type]
    if issubclass(kind, bytes):
        return bytes.__getitem__(value, slice(None))  # type: ignore[call-overload]
    fields = getattr(kind, "__dataclass_fields__", None)
    if fields is not None:
        # A record held directly (an EnvironmentPath of an item) is made plain too; records
        # in a sequence (a catalog's items) were made plain by their own constructors, and
        # walking thousands of them again at every catalog would cost more than the scan.
        if records and kind.__module__.startswith("a13n_harness."):
            return _plain_record(value, fields)
        return value
    items = plain_sequence(value)
    if items is None:
        return value
    plain = [_plain_value(item, records=False) for item in items]
    if kind is tuple and all(a is b for a, b in zip(plain, value, strict=True)):  # type: ignore[call-overload]
        return value
    return tuple(plain) if issubclass(kind, tuple) else plain


def _plain_record(record: object, fields: dict[str, Any]) -> object:
    """A record of the library's nested in another: itself when its fields are plain, else a
    copy whose fields are (one forged past its constructor holding a Host's values).

    A private field (``_name``) is a cache the record's own code fills (a catalog's render
    plan): it is not walked, and a copy starts it at its default, to be filled again."""
    names = [name for name in fields if not name.startswith("_")]
    values = [_slot(record, name) for name in names]
    plain = [_plain_value(value) for value in values]
    if all(a is b for a, b in zip(plain, values, strict=True)) and not any(
        _host_subclass(_slot(record, name)) for name in fields if name.startswith("_")
    ):
        return record
    copy = object.__new__(type(record))
    for name, value in zip(names, plain, strict=True):
        if value is not _UNSET:  # a forged record may lack a field: the copy lacks it too
            object.__setattr__(copy, name, value)
    for name, spec in fields.items():
        if name.startswith("_") and spec.default is not MISSING:
            object.__setattr__(copy, name, spec.default)
    return copy


_UNSET = object()
_BUILT_IN = (str, bytes, int, tuple, list)


def _host_subclass(value: object) -> bool:
    """Whether ``value`` is of a subclass of a built-in type (a Host's, in a forged cache)."""
    kind = type(value)
    return kind not in _BUILT_IN and kind is not bool and issubclass(kind, _BUILT_IN)


def _slot(record: object, name: str) -> object:
    try:
        return object.__getattribute__(record, name)
    except AttributeError:
        return _UNSET


def plain_record(record: object) -> object:
    """A record of the library's (a frozen slotted dataclass) whose fields are all plain:
    ``record`` itself when they are, else a copy whose fields are made plain as
    :func:`plain_fields` makes them (one forged past its constructor, holding a Host's
    values). Anything that is not a record of the library's is returned as is."""
    kind = type(record)
    fields = getattr(kind, "__dataclass_fields__", None)
    if fields is None or not kind.__module__.startswith("a13n_harness."):
        return record
    return _plain_record(record, fields)


_PLAIN_TYPES = frozenset({str, int, bool, float, bytes, type(None)})
# A record class of the library's -> the getter of its public fields and their names, built
# on the first record of the class (a Host's subclass is not remembered: walked each time).
_FIELD_GETTERS: dict[type, tuple[Callable[[object], Any], tuple[str, ...]]] = {}


def _field_getter(kind: type) -> tuple[Callable[[object], Any], tuple[str, ...]]:
    known = _FIELD_GETTERS.get(kind)
    if known is None:
        names = tuple(name for name in kind.__slots__ if not name.startswith("_"))  # type: ignore[attr-defined]
        read = attrgetter(*names) if len(names) > 1 else _one(attrgetter(*names))
        known = (read, names)
        if kind.__module__.startswith("a13n_harness."):
            _FIELD_GETTERS[kind] = known
    return known


def _one(read: Callable[[object], Any]) -> Callable[[object], tuple[Any, ...]]:
    return lambda record: (read(record),)


def plain_fields(record: object) -> None:
    """Make every field of the frozen slotted dataclass ``record`` its exact built-in value,
    in place (called from ``__post_init__``): a Host's ``str``, ``bytes`` or ``int``
    subclass becomes the plain value of the same characters, bytes or number, a ``list``
    or ``tuple`` (or a subclass, read by the base type) one of plain items, a record held
    in a field a plain copy (:func:`plain_record`); nothing of the Host's runs. A record
    built by its constructor then holds no value that can lie. Private fields (``_name``)
    are caches the record's own code fills, not walked.

    A record whose fields are all of exact scalar types (the common case: a rendering per
    render) pays one C-level read of its fields and one set test."""
    read, names = _field_getter(type(record))
    values = read(record)
    if _PLAIN_TYPES.issuperset(map(type, values)):
        return
    for name, value in zip(names, values, strict=True):
        plain = _plain_value(value)
        if plain is not value:
            object.__setattr__(record, name, plain)


def type_name(kind: type) -> str:
    """The name of the class ``kind`` as the interpreter holds it: a metaclass's
    ``__name__`` property (a Host's code) is not run."""
    # Always a str: the interpreter refuses to set a class's __name__ to anything else.
    name: str = type.__dict__["__name__"].__get__(kind)
    return name


_SHOWN_BITS = 64  # ints up to a u64 are shown in full; a longer one by its size


def describe(value: object) -> str:
    """A safe description of a refused argument, for an error message.

    Never raises and never runs the argument's own code: a ``str`` is shown
    quoted (``repr`` of a ``str`` cannot fail), ``None``, a ``bool`` and an
    ``int`` up to 64 bits as written, a longer ``int`` by its size
    (``str()`` of an int of more than 4,300 digits raises ``ValueError``), and
    anything else by its type name alone (its ``__repr__`` is the caller's
    code: it may raise, hang or be huge).

    >>> describe("x"), describe(-1), describe(10**5000), describe(object())
    ("'x'", '-1', 'an int of 16610 bits', 'an object of type object')
    """
    kind = type(value)
    if kind is int:
        assert isinstance(value, int)
        bits = value.bit_length()
        return repr(value) if bits <= _SHOWN_BITS else f"an int of {bits} bits"
    if value is None or kind is bool or kind is str:
        return repr(value)
    return f"an object of type {type_name(kind)}"


def utf8_error_at(data: bytes, offset: int) -> tuple[int, int]:
    """The 1-based line and column (in code points) of byte ``offset`` of ``data``, where
    UTF-8 decoding failed: every byte before it is valid UTF-8. The one locator of an
    encoding error, for the frontmatter parser and lint alike."""
    prefix = data[:offset]
    line_start = prefix.rfind(b"\n") + 1
    return prefix.count(b"\n") + 1, len(prefix[line_start:].decode("utf-8")) + 1
