"""The async file-operator protocol every scan goes through (docs/contract.md §7).

The protocols themselves (:class:`FileOperator`, :class:`BatchReader`) and
:data:`EntryKind` are defined in ``_protocols`` and exported from here too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from a13n_harness.environment._protocols import BatchReader, EntryKind, FileOperator

if TYPE_CHECKING:
    from typing import TypeGuard

__all__ = [
    "ENTRY_KINDS",
    "BatchReader",
    "DirectoryEntry",
    "EntryKind",
    "FileOperator",
    "FileStat",
]

ENTRY_KINDS: tuple[EntryKind, ...] = ("file", "directory", "symlink", "other")


@dataclass(frozen=True, slots=True)
class DirectoryEntry:
    """One listed name and what it is, as listed (a symbolic link is ``symlink``, not followed)."""

    name: str
    kind: EntryKind

    def __post_init__(self) -> None:
        if type(self.name) is not str or type(self.kind) is not str:
            plain_fields(self)


@dataclass(frozen=True, slots=True)
class FileStat:
    """What a path names after following links: its ``kind`` and its ``size`` in bytes."""

    kind: EntryKind
    size: int

    def __post_init__(self) -> None:
        plain_fields(self)


def is_batch_reader(files: object) -> TypeGuard[BatchReader]:
    """``isinstance(files, BatchReader)`` without loading ``typing``: the same test.

    ``BatchReader`` is a runtime-checkable protocol, whose check is that every
    member is there and that its method is not ``None``.

    A Host's ``read_concurrency`` property that raises something other than
    ``AttributeError`` still declares the member: the answer is then about ``read_many``
    alone, and the pool reports the failing property as the reader's failure.
    """
    try:
        declared = hasattr(files, "read_concurrency")
    except Exception:  # declared, but failing: read_all reports that as the reader's failure
        declared = True
    if not declared:
        return False
    try:
        return getattr(files, "read_many", None) is not None
    except Exception:
        return False


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
            return _plain_record(value, tuple(fields))
        return value
    items = plain_sequence(value)
    if items is None:
        return value
    plain = [_plain_value(item, records=False) for item in items]
    if kind is tuple and all(a is b for a, b in zip(plain, value, strict=True)):  # type: ignore[call-overload]
        return value
    return tuple(plain) if issubclass(kind, tuple) else plain


def _plain_record(record: object, names: tuple[str, ...]) -> object:
    """A record of the library's nested in another: itself when its fields are plain, else a
    copy whose fields are (one forged past its constructor holding a Host's values)."""
    values = [object.__getattribute__(record, name) for name in names]
    plain = [_plain_value(value) for value in values]
    if all(a is b for a, b in zip(plain, values, strict=True)):
        return record
    copy = object.__new__(type(record))
    for name, value in zip(names, plain, strict=True):
        object.__setattr__(copy, name, value)
    return copy


def plain_fields(record: object) -> None:
    """Make every field of the frozen slotted dataclass ``record`` its exact built-in value,
    in place (called from ``__post_init__``): a Host's ``str``, ``bytes`` or ``int``
    subclass becomes the plain value of the same characters, bytes or number, a ``list``
    or ``tuple`` (or a subclass, read by the base type) one of plain items; nothing of the
    Host's runs. A record built by its constructor then holds no value that can lie."""
    for name in type(record).__slots__:  # type: ignore[attr-defined]  # the dataclass fields
        value = object.__getattribute__(record, name)
        plain = _plain_value(value)
        if plain is not value:
            object.__setattr__(record, name, plain)
