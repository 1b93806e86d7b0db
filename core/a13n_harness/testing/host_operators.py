"""A Host's file operator whose returned values lie: every one must be taken as its
exact built-in value, and no method of it may run.

:class:`HostOperator` wraps a :class:`~a13n_harness.environment.MemoryFileOperator` and
hands back what a Host's own operator may: entry names and kinds that are ``str``
subclasses, entries of a :class:`~a13n_harness.environment.DirectoryEntry` subclass
whose fields are properties, listings and batch results that are ``list`` or ``tuple``
subclasses, reads that are ``bytes`` subclasses, errors of its own subclasses (whose
``__str__`` and ``__repr__`` raise and whose every attribute read is recorded), other
exceptions whose ``__str__`` raises, and (:class:`HostBatchOperator`) a
``read_concurrency`` that is NaN, text, a float, a ``bool``, an ``int`` subclass or a
property that raises. Every method of those values records its name in
:data:`~a13n_harness.testing.hostile.CALLS` and lies (``__len__`` is 0, ``__iter__``
yields nothing, ``__eq__`` is always true, ``decode`` gives ``""``).

:data:`VALUE_TRAITS` keep the values (only their types lie): a scan through the
operator must give exactly what the plain operator gives. :data:`FAILING_TRAITS`
change what the operator says (an exception that is not a file error; a
``read_concurrency`` that is not a positive ``int``): a scan must then give a value or
a ``DefinitionError``, still without running any of it.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import Any, NoReturn

from a13n_harness.environment import (
    DirectoryEntry,
    FileOperatorError,
    FileStat,
    MemoryFileOperator,
)
from a13n_harness.testing.hostile import CALLS, HostCodeRan, LyingInt, LyingStr

__all__ = [
    "CONCURRENCIES",
    "FAILING_TRAITS",
    "VALUE_TRAITS",
    "HostBatchOperator",
    "HostOperator",
    "HostProvider",
    "LoudFailure",
    "LyingBytes",
    "LyingList",
    "LyingTuple",
]

VALUE_TRAITS = (
    "str_names",  # entry names as LyingStr
    "str_kinds",  # entry kinds as LyingStr
    "entry_subclass",  # DirectoryEntry subclass whose name and kind are lying properties
    "list_listing",  # the listing as a LyingList
    "tuple_listing",  # the listing as a LyingTuple
    "bytes_reads",  # reads as LyingBytes
    "loud_errors",  # file errors of a subclass whose __str__, __repr__ and attributes lie
)
FAILING_TRAITS = ("foreign_errors",)  # file errors replaced by a LoudFailure


class LyingBytes(bytes):
    """``bytes`` whose methods lie about its content."""

    def __len__(self) -> int:
        CALLS.append("bytes.__len__")
        return 0

    def __iter__(self) -> Iterator[int]:
        CALLS.append("bytes.__iter__")
        return iter(())

    def __getitem__(self, key: Any) -> Any:
        CALLS.append("bytes.__getitem__")
        return b""

    def __eq__(self, other: object) -> bool:
        CALLS.append("bytes.__eq__")
        return True

    def __ne__(self, other: object) -> bool:
        CALLS.append("bytes.__ne__")
        return False

    def __hash__(self) -> int:
        CALLS.append("bytes.__hash__")
        return 0

    def __bytes__(self) -> bytes:
        CALLS.append("bytes.__bytes__")
        return b""

    def __contains__(self, key: object) -> bool:
        CALLS.append("bytes.__contains__")
        return False

    def decode(self, encoding: str = "utf-8", errors: str = "strict") -> str:
        CALLS.append("bytes.decode")
        return ""

    def startswith(self, *args: Any) -> bool:
        CALLS.append("bytes.startswith")
        return True

    def find(self, *args: Any) -> int:
        CALLS.append("bytes.find")
        return -1

    def split(self, *args: Any, **kwargs: Any) -> list[bytes]:
        CALLS.append("bytes.split")
        return []

    def __str__(self) -> str:
        CALLS.append("bytes.__str__")
        raise HostCodeRan("bytes.__str__")


class LyingList(list[Any]):
    """A ``list`` whose iteration, length, indexing and comparisons lie."""

    def __iter__(self) -> Iterator[Any]:
        CALLS.append("list.__iter__")
        return iter(())

    def __len__(self) -> int:
        CALLS.append("list.__len__")
        return 0

    def __getitem__(self, key: Any) -> NoReturn:
        CALLS.append("list.__getitem__")
        raise HostCodeRan("list.__getitem__")

    def __reversed__(self) -> Iterator[Any]:
        CALLS.append("list.__reversed__")
        return iter(())

    def __eq__(self, other: object) -> bool:
        CALLS.append("list.__eq__")
        return True

    __hash__ = None


class LyingTuple(tuple[Any, ...]):
    """A ``tuple`` whose iteration, length and indexing lie."""

    def __iter__(self) -> Iterator[Any]:
        CALLS.append("tuple.__iter__")
        return iter(())

    def __len__(self) -> int:
        CALLS.append("tuple.__len__")
        return 0

    def __getitem__(self, key: Any) -> NoReturn:
        CALLS.append("tuple.__getitem__")
        raise HostCodeRan("tuple.__getitem__")


class _LyingEntry(DirectoryEntry):
    """A :class:`DirectoryEntry` whose ``name`` and ``kind`` are properties that lie."""

    __slots__ = ()

    @property
    def name(self) -> str:
        CALLS.append("entry.name")
        return "SKILL.md"

    @property
    def kind(self) -> Any:
        CALLS.append("entry.kind")
        return "file"


def _lying_entry(name: str, kind: str) -> DirectoryEntry:
    entry = object.__new__(_LyingEntry)
    DirectoryEntry.__dict__["name"].__set__(entry, name)
    DirectoryEntry.__dict__["kind"].__set__(entry, kind)
    return entry


class LoudFailure(RuntimeError):
    """A Host operator's own exception: its text raises."""

    def __str__(self) -> str:
        CALLS.append("LoudFailure.__str__")
        raise HostCodeRan("LoudFailure.__str__")

    def __repr__(self) -> str:
        CALLS.append("LoudFailure.__repr__")
        raise HostCodeRan("LoudFailure.__repr__")


_LOUD: dict[type, type] = {}


def _loud_class(kind: type[FileOperatorError]) -> type[FileOperatorError]:
    """A subclass of the file error ``kind`` whose text raises and whose attributes lie."""
    if kind not in _LOUD:

        def text(self: object) -> NoReturn:
            CALLS.append("error.__str__")
            raise HostCodeRan("error.__str__")

        def attribute(self: object, name: str) -> Any:
            if name in ("message", "path", "reason", "code", "line", "column", "args"):
                CALLS.append(f"error.{name}")
                return LyingStr("lie")
            return object.__getattribute__(self, name)

        _LOUD[kind] = type(
            f"Loud{kind.__name__}",
            (kind,),
            {"__str__": text, "__repr__": text, "__getattribute__": attribute},
        )
    return _LOUD[kind]


def _loud(error: FileOperatorError) -> FileOperatorError:
    loud: FileOperatorError = BaseException.__new__(_loud_class(type(error)))
    BaseException.__dict__["__dict__"].__get__(loud).update(
        BaseException.__dict__["__dict__"].__get__(error)
    )
    BaseException.__dict__["args"].__set__(loud, BaseException.__dict__["args"].__get__(error))
    return loud


class HostOperator:
    """A Host's operator over ``inner`` whose values lie as ``traits`` say (module docstring)."""

    def __init__(self, inner: MemoryFileOperator, traits: frozenset[str]) -> None:
        self.inner = inner
        self.traits = traits

    def _failure(self, error: FileOperatorError) -> Exception:
        if "foreign_errors" in self.traits:
            return LoudFailure("the Host's own failure")
        if "loud_errors" in self.traits:
            return _loud(error)
        return error

    def _entry(self, entry: DirectoryEntry) -> DirectoryEntry:
        name: str = LyingStr(entry.name) if "str_names" in self.traits else entry.name
        kind: Any = LyingStr(entry.kind) if "str_kinds" in self.traits else entry.kind
        if "entry_subclass" in self.traits:
            return _lying_entry(name, kind)
        return DirectoryEntry(name, kind)

    def _sequence(self, items: list[Any]) -> Sequence[Any]:
        if "list_listing" in self.traits:
            return LyingList(items)
        if "tuple_listing" in self.traits:
            return LyingTuple(items)
        return items

    def _data(self, data: bytes) -> bytes:
        return LyingBytes(data) if "bytes_reads" in self.traits else data

    async def list_directory(self, path: str) -> Sequence[DirectoryEntry]:
        try:
            entries = await self.inner.list_directory(path)
        except FileOperatorError as error:
            raise self._failure(error) from None
        return self._sequence([self._entry(entry) for entry in entries])

    async def read_bytes(self, path: str, limit: int) -> bytes:
        try:
            return self._data(self.inner.read_now(path, limit))
        except FileOperatorError as error:
            raise self._failure(error) from None

    async def stat(self, path: str) -> FileStat:
        return await self.inner.stat(path)

    async def write_bytes(self, path: str, data: bytes) -> None:
        await self.inner.write_bytes(path, data)

    async def make_directory(self, path: str) -> None:
        await self.inner.make_directory(path)

    async def remove(self, path: str) -> None:
        await self.inner.remove(path)


class _RaisingConcurrency:
    """Stands for a ``read_concurrency`` property that raises."""


CONCURRENCIES: tuple[object, ...] = (
    2,
    8,
    10**100,
    math.nan,
    "2",
    2.5,
    True,
    LyingInt(2),
    0,
    -1,
    None,
    _RaisingConcurrency(),
)
"""``read_concurrency`` values of :class:`HostBatchOperator`: the first three are what the
protocol allows (a positive ``int``; past 8 is read as 8), the rest are not."""


class HostBatchOperator(HostOperator):
    """The same operator reading through ``read_many``, with a drawn ``read_concurrency``."""

    def __init__(
        self, inner: MemoryFileOperator, traits: frozenset[str], concurrency: object = 2
    ) -> None:
        super().__init__(inner, traits)
        self.concurrency = concurrency

    @property
    def read_concurrency(self) -> Any:
        if isinstance(self.concurrency, _RaisingConcurrency):
            # The property itself is the protocol (it runs); what it raises must be contained.
            raise HostCodeRan("read_concurrency")
        return self.concurrency

    async def read_many(
        self, paths: Sequence[str], limit: int
    ) -> Sequence[bytes | FileOperatorError]:
        results: list[Any] = []
        for path in paths:
            try:
                results.append(self._data(self.inner.read_now(path, limit)))
            except FileOperatorError as error:
                failure = self._failure(error)
                if not isinstance(failure, FileOperatorError):
                    raise failure from None  # a Host's own exception fails the whole batch
                results.append(failure)
        return self._sequence(results)


class HostProvider:
    """A Host's file provider serving ``files``, whose ``generation`` may be an ``int``
    subclass (whose ``__eq__`` says every generation is the current one)."""

    def __init__(self, files: object, generation: object = 1) -> None:
        self._files = files
        self._generation = generation

    @property
    def generation(self) -> Any:
        return self._generation

    def operator(self) -> Any:
        return self._files
