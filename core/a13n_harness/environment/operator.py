"""The async file-operator protocol every scan goes through (docs/contract.md §7).

The protocols themselves (:class:`FileOperator`, :class:`BatchReader`) and
:data:`EntryKind` are defined in ``_protocols`` and exported from here too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

# Written once in the pure core (its records use them too); imported from here as before.
from a13n_harness.context._checks import plain_fields as plain_fields  # noqa: PLC0414
from a13n_harness.context._checks import plain_sequence as plain_sequence  # noqa: PLC0414
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
