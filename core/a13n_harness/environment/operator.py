"""The async file-operator protocol every scan goes through (docs/contract.md §7).

The protocols themselves (:class:`FileOperator`, :class:`BatchReader`) and
:data:`EntryKind` are defined in ``_protocols`` and loaded from there on first
use (PEP 562): a scan needs only the values below, and ``typing``, which
defining a protocol imports, costs a command's start-up several milliseconds.
"""

from __future__ import annotations

from a13n_harness._lazy import lazy_getattr

# Spelled here rather than imported from ``typing``: see ``a13n_harness/__init__.py``.
TYPE_CHECKING = False

if TYPE_CHECKING:
    from dataclasses import dataclass as frozen_dataclass
else:  # the same classes, made without compiling their methods (start-up)
    from a13n_harness.context._values import frozen_dataclass

if TYPE_CHECKING:
    from typing import TypeGuard

    from a13n_harness.environment._protocols import BatchReader, EntryKind, FileOperator

__all__ = [
    "ENTRY_KINDS",
    "BatchReader",
    "DirectoryEntry",
    "EntryKind",
    "FileOperator",
    "FileStat",
]

ENTRY_KINDS: tuple[EntryKind, ...] = ("file", "directory", "symlink", "other")


@frozen_dataclass(frozen=True, slots=True)
class DirectoryEntry:
    """One listed name and what it is, as listed (a symbolic link is ``symlink``, not followed)."""

    name: str
    kind: EntryKind

    def __init__(self, name: str, kind: EntryKind) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "kind", kind)


@frozen_dataclass(frozen=True, slots=True)
class FileStat:
    """What a path names after following links: its ``kind`` and its ``size`` in bytes."""

    kind: EntryKind
    size: int

    def __init__(self, kind: EntryKind, size: int) -> None:
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "size", size)


def is_batch_reader(files: object) -> TypeGuard[BatchReader]:
    """``isinstance(files, BatchReader)`` without loading ``typing``: the same test.

    ``BatchReader`` is a runtime-checkable protocol, whose check is that every
    member is there and that its method is not ``None``.
    """
    return hasattr(files, "read_concurrency") and getattr(files, "read_many", None) is not None


if not TYPE_CHECKING:
    # The protocols are loaded on first use (module docstring).
    __getattr__ = lazy_getattr(
        __name__,
        dict.fromkeys(
            ("BatchReader", "EntryKind", "FileOperator"), "a13n_harness.environment._protocols"
        ),
    )
