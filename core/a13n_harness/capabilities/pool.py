"""The bounded read pool every scan uses.

At most :data:`MAX_READ_WORKERS` worker tasks pull jobs from one shared
queue; each job's result is stored at its index, so the outcome never depends
on the order reads complete in. Errors are returned as values (so one failed
read never cancels the others and the caller picks the first error *by
index*). The pool is an :class:`asyncio.TaskGroup`: when the caller is
cancelled, every worker is cancelled and joined before the call returns, so
no read outlives the file scope that the caller closes next.

With a :class:`~a13n_harness.environment.BatchReader` the jobs are
contiguous chunks, as many as the reader's ``read_concurrency`` (at most
eight), each read in one call with one read in flight; otherwise each job is
one ``read_bytes``.

A single job runs in the caller's task, with no task group: there is nothing
to overlap, and a reader whose calls never suspend (``read_concurrency`` 1,
:class:`~a13n_harness.environment.local.BlockingLocalFileOperator`) then reads
without an event loop, which is how the command line scans without importing
``asyncio`` (imported here only when there are jobs to run side by side).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import repeat
from typing import TYPE_CHECKING

from a13n_harness.context._checks import is_count, is_kind, plain_bytes
from a13n_harness.context.errors import DefinitionError
from a13n_harness.environment import FileOperatorError, FileProviderError
from a13n_harness.environment.errors import check_limit, contained_error
from a13n_harness.environment.operator import is_batch_reader, plain_sequence

if TYPE_CHECKING:
    from a13n_harness.environment import BatchReader, FileOperator

__all__ = ["MAX_READ_WORKERS", "ReadOutcome", "read_all"]

# 8 workers: enough to hide the per-file latency of a network mount, while
# bounding the file descriptors and provider requests one scan holds open.
MAX_READ_WORKERS = 8

ReadOutcome = bytes | DefinitionError
"""The bytes read, a FileOperatorError, or another DefinitionError (a stale scope)."""


def _checked(path: str, data: object, limit: int, *, batch: bool = False) -> ReadOutcome:
    """A Host operator's result as its exact built-in value: ``bytes`` (a subclass copied by
    the base type, none of its methods run) within ``limit``, or a library error (in a
    batch, only a :class:`FileOperatorError` stands for one read). Kinds are asked of the
    type itself (:func:`is_kind`), never of the object's ``__class__``."""
    if is_kind(data, FileOperatorError if batch else DefinitionError):
        return contained_error(data, path)
    if not is_kind(data, bytes):
        return FileProviderError("the file operator returned a non-bytes result", path=path)
    plain: bytes = plain_bytes(data)  # type: ignore[assignment]
    if len(plain) > limit:
        return FileProviderError("the file operator returned more than it was asked for", path=path)
    return plain


async def _read_one(files: FileOperator, path: str, limit: int) -> ReadOutcome:
    try:
        data = await files.read_bytes(path, limit)
    except Exception as error:  # a Host operator failing in its own way: a provider failure
        return contained_error(error, path)
    return _checked(path, data, limit)


async def _read_chunk(
    files: BatchReader, paths: Sequence[str], limit: int, again: bool = False
) -> list[ReadOutcome]:
    try:
        again_reader = getattr(files, "read_many_again", None) if again else None
        returned = await (again_reader or files.read_many)(paths, limit)
    except Exception as error:
        return [contained_error(error)] * len(paths)
    # The Host's sequence read by the base type (its own __iter__ and __len__ never run).
    results = plain_sequence(returned)
    if results is None:
        failure = FileProviderError("the file operator returned a batch that is not a list")
        return [failure] * len(paths)
    if len(results) != len(paths):
        failure = FileProviderError("the file operator returned the wrong number of results")
        return [failure] * len(paths)
    return [
        result  # the common case, checked inline: once per document of a scan
        if type(result) is bytes and len(result) <= limit
        else _checked(path, result, limit, batch=True)
        for path, result in zip(paths, results, strict=True)
    ]


def _read_concurrency(files: BatchReader) -> int:
    """The reader's ``read_concurrency``: a positive ``int`` (a subclass, a ``bool``, a float,
    NaN or text is not one), else the reader fails as a whole (:class:`FileProviderError`)."""
    try:
        declared: object = files.read_concurrency  # the protocol's own property: it runs
    except Exception as error:
        raise contained_error(error) from None
    if not is_count(declared, 1):
        raise FileProviderError("the file operator's read_concurrency is not a positive int")
    return declared


async def read_all(
    files: FileOperator,
    paths: Sequence[str],
    limit: int,
    *,
    workers: int = MAX_READ_WORKERS,
    on_result: Callable[[int, ReadOutcome], None] | None = None,
    again: bool = False,
) -> list[ReadOutcome]:
    """``read_bytes(path, limit)`` for every path, results by index, errors as values.

    ``on_result(index, outcome)``, when given, runs in the caller's event loop
    as each result arrives (in no particular order), while other reads are
    still in flight: the caller's pure per-result work overlaps the I/O.
    ``again=True`` says every path was just read as a regular file through
    ``files`` (discovery's final re-read): a batch reader that has
    ``read_many_again`` (:class:`~a13n_harness.environment.LocalFileOperator`)
    serves the chunks through it, with the same results in fewer system calls.
    """
    if (
        isinstance(paths, str | bytes)
        or not isinstance(paths, Sequence)
        or not all(map(isinstance, paths, repeat(str)))
    ):
        raise FileProviderError("paths must be a sequence of str")
    check_limit(limit)
    if not is_count(workers, 1) or workers > MAX_READ_WORKERS:
        raise FileProviderError(f"workers must be an int in 1..{MAX_READ_WORKERS}")
    if on_result is not None and not callable(on_result):
        raise FileProviderError("on_result must be callable")
    count = len(paths)
    if count == 0:
        return []
    results: list[ReadOutcome | None] = [None] * count
    failures: list[BaseException] = []  # a callback's error, raised after the workers are joined
    batch = is_batch_reader(files)
    if batch:
        assert is_batch_reader(files)
        lanes = min(workers, _read_concurrency(files))
        # One chunk per lane: measured faster than smaller chunks, whose extra
        # thread hops and interpreter-lock hand-offs cost more than the overlap gains.
        chunk = -(-count // lanes)
    else:
        lanes = workers
        chunk = 1
    jobs = iter(range(0, count, chunk))
    job_count = -(-count // chunk)

    async def worker() -> None:
        for start in jobs:
            end = min(start + chunk, count)
            if batch:
                assert is_batch_reader(files)
                results[start:end] = await _read_chunk(files, paths[start:end], limit, again)
            else:
                results[start] = await _read_one(files, paths[start], limit)
            if on_result is not None and not failures:
                try:
                    for index in range(start, end):
                        outcome = results[index]
                        assert outcome is not None
                        on_result(index, outcome)
                except Exception as error:  # never through the TaskGroup: it would wrap it
                    failures.append(error)

    if job_count == 1:
        await worker()
    else:
        import asyncio  # noqa: PLC0415 - a one-job read runs without it (module docstring)

        async with asyncio.TaskGroup() as group:
            for _ in range(min(lanes, job_count)):
                group.create_task(worker())
    if failures:
        failure = failures[0]
        if isinstance(failure, DefinitionError):
            raise failure
        raise FileProviderError(f"on_result failed: {type(failure).__name__}: {failure}")
    return [FileProviderError("read never completed") if r is None else r for r in results]
