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


@dataclass(frozen=True, slots=True)
class FileStat:
    """What a path names after following links: its ``kind`` and its ``size`` in bytes."""

    kind: EntryKind
    size: int


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
