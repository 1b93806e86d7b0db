"""Named mounts, routes and mount-incarnation-pinned file scopes (docs/contract.md §7).

An :class:`Environment` maps names to :class:`FileProvider` values. Once
entered (``async with environment:``) it routes environment paths:

* ``/workspace`` and ``/workspace/...`` through the *default* mount;
* ``/environment/{name}`` and ``/environment/{name}/...`` through mount ``name``;
* anything else is unroutable.

Each ``mount()`` of a name creates a new *incarnation* with a fresh opaque
``mount_id``; a provider carries a ``generation`` that changes when it is
retargeted. :meth:`Environment.select_files` captures a route as an
:class:`EnvironmentPath` (mount name, mount id, generation, provider path,
whether the default route was used). Two selections of one path are the same
route exactly when those five values are equal; that is the whole staleness
rule. :meth:`Environment.open_scope` opens a :class:`PinnedFiles` operator
bound to one incarnation and generation: every call checks both before and
after it runs and raises ``skill_catalog_stale`` if either moved, so a pinned
scope never silently reads through a different mount or target.

Decisions the contract leaves open: routing and mount changes outside
``async with`` raise ``skill_root_unroutable`` (reason ``not_entered``);
unmounting an unknown name raises ``skill_root_unroutable`` (reason
``unknown_mount``); a mount name must be one canonical path segment
(``skill_root_invalid``, reason ``mount_name``); a non-canonical environment
path is ``skill_root_invalid``. Entering twice is refused. Leaving the
environment drops every incarnation, so a later scope or selection fails.
"""

from __future__ import annotations

import contextlib
import itertools
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType, TracebackType
from typing import Protocol, TypeVar

from a13n_harness.context._checks import describe, is_kind, plain_str
from a13n_harness.context.errors import DefinitionError
from a13n_harness.environment.errors import (
    FileNotFound,
    FileOperatorError,
    FilePermissionDenied,
    FileProviderError,
    check_limit,
    contained_error,
)
from a13n_harness.environment.local import LocalFileOperator, check_host_directory
from a13n_harness.environment.operator import (
    DirectoryEntry,
    FileOperator,
    FileStat,
    is_batch_reader,
    plain_fields,
    plain_sequence,
)
from a13n_harness.environment.paths import is_canonical_path, path_segments

_T = TypeVar("_T")

__all__ = [
    "DEFAULT_MOUNT",
    "Environment",
    "EnvironmentPath",
    "FileProvider",
    "LocalDirectoryProvider",
    "PinnedFiles",
]

DEFAULT_MOUNT = "workspace"

_incarnations = itertools.count(1)
_NO_MOUNTS: Mapping[str, FileProvider] = MappingProxyType({})


class FileProvider(Protocol):
    """What a mount points at: a file operator and a generation that changes on retarget."""

    @property
    def generation(self) -> int:
        """Changes whenever the provider starts serving a different tree."""
        ...

    def operator(self) -> FileOperator:
        """The operator serving the current generation."""
        ...


class LocalDirectoryProvider:
    """The built-in provider: a host directory served by a :class:`LocalFileOperator`.

    Each generation pins its directory when it starts (at construction and at
    every :meth:`retarget`): its operator opens the directory then and walks
    from that descriptor, so moving or relinking the host path later changes
    nothing it serves. The operator of a replaced generation is not closed
    here (a scope pinned to it may still be finishing a call, and then fails
    with ``skill_catalog_stale``); it releases its descriptor when it is
    collected or closed.
    """

    __slots__ = ("_generation", "_operator", "_path")

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self._path = check_host_directory(path)
        self._operator = LocalFileOperator(self._path)
        self._generation = 1

    @property
    def path(self) -> str:
        """The host directory currently served."""
        return self._path

    @property
    def generation(self) -> int:
        return self._generation

    def operator(self) -> FileOperator:
        return self._operator

    def retarget(self, new_path: str | os.PathLike[str]) -> None:
        """Serve ``new_path`` from now on; always bumps the generation (even to the same path).

        A bad ``new_path`` is ``skill_root_invalid`` and changes nothing.
        """
        path = check_host_directory(new_path)
        operator = LocalFileOperator(path)
        self._path = path
        self._operator = operator
        self._generation += 1

    def __repr__(self) -> str:
        return f"LocalDirectoryProvider({self._path!r}, generation={self._generation})"


@dataclass(frozen=True, slots=True)
class EnvironmentPath:
    """An environment path and the route it took when it was selected.

    Meaningful only while the :class:`Environment` that produced it stays
    entered; never persist it as authority.
    """

    path: str
    mount: str
    mount_id: str
    generation: int
    provider_path: str
    default_route: bool

    def __post_init__(self) -> None:
        plain_fields(self)  # a Host's subclasses as their plain values

    @property
    def route(self) -> tuple[str, str, int, str, bool]:
        """Everything that must stay equal for this path to still mean the same file."""
        return (self.mount, self.mount_id, self.generation, self.provider_path, self.default_route)

    def __str__(self) -> str:
        return self.path


@dataclass(frozen=True, slots=True, eq=False)
class _Incarnation:
    name: str
    provider: FileProvider
    mount_id: str


def _check_mount_name(name: object) -> str:
    name = plain_str(name)  # a Host's str subclass: its characters, none of its methods
    if (
        type(name) is not str
        or name in ("", ".", "..")
        or not is_canonical_path("/" + name)
        or "/" in name
    ):
        raise DefinitionError(
            "skill_root_invalid",
            f"mount name must be one path segment: {describe(name)}",
            reason="mount_name",
        )
    return name


def _generation(provider: FileProvider, path: str | None = None) -> int:
    """The provider's ``generation`` as an exact ``int`` (the property is the protocol's and
    runs; what it raises or returns is taken as the library's own): otherwise the
    provider fails, :class:`FileProviderError`. An ``int`` subclass, whose ``__eq__``
    could make a retargeted provider look current, is not a generation."""
    try:
        generation: object = provider.generation
    except Exception as error:
        raise contained_error(error, path) from None
    if type(generation) is not int:
        raise FileProviderError("the provider's generation is not an int", path=path)
    return generation


def _check_provider(provider: object) -> FileProvider:
    try:
        shaped = callable(getattr(provider, "operator", None)) and hasattr(provider, "generation")
    except Exception:  # a Host's property failing in its own way: not a provider
        shaped = False
    if not shaped:
        raise DefinitionError(
            "skill_root_invalid",
            f"a mount needs a FileProvider (generation and operator()), not {describe(provider)}",
            reason="provider",
        )
    return provider  # type: ignore[return-value]


def _is_plain_selection(selection: object) -> bool:
    """Whether ``selection`` is an :class:`EnvironmentPath` whose every field is of its exact
    built-in type (asked of the types, so nothing of a Host's runs)."""
    if not is_kind(selection, EnvironmentPath):
        return False
    return (
        type(selection.path) is str
        and type(selection.mount) is str
        and type(selection.mount_id) is str
        and type(selection.generation) is int
        and type(selection.provider_path) is str
        and type(selection.default_route) is bool
    )


def _check_selection(selection: object) -> EnvironmentPath:
    """``selection`` when it is an :class:`EnvironmentPath` whose fields are exact built-in
    values (one forged with a Host's subclasses, whose ``__eq__`` could make a moved route
    look current, is refused)."""
    if not _is_plain_selection(selection):
        raise DefinitionError(
            "skill_root_invalid",
            f"not an EnvironmentPath from select_files: {describe(selection)}",
            reason="selection",
        )
    return selection  # type: ignore[return-value]  # checked just above


def _stale(path: str, why: str) -> DefinitionError:
    return DefinitionError("skill_catalog_stale", why, path=path)


class Environment:
    """Named file mounts with a default route; see the module docstring."""

    def __init__(
        self, mounts: Mapping[str, FileProvider] = _NO_MOUNTS, default: str = DEFAULT_MOUNT
    ) -> None:
        if not isinstance(mounts, Mapping):
            raise DefinitionError(
                "skill_root_invalid", "mounts must be a mapping of names to providers"
            )
        self._configured = {
            _check_mount_name(name): _check_provider(provider) for name, provider in mounts.items()
        }
        self._default = _check_mount_name(default)
        self._live: dict[str, _Incarnation] | None = None

    async def __aenter__(self) -> Environment:
        if self._live is not None:
            raise DefinitionError(
                "skill_root_unroutable", "environment is already entered", reason="entered"
            )
        self._live = {
            name: _Incarnation(name, provider, f"mount-{next(_incarnations)}")
            for name, provider in self._configured.items()
        }
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._live = None

    @property
    def entered(self) -> bool:
        """True between ``__aenter__`` and ``__aexit__``."""
        return self._live is not None

    @property
    def default(self) -> str:
        """The mount ``/workspace`` routes through."""
        return self._default

    def _require_live(self) -> dict[str, _Incarnation]:
        if self._live is None:
            raise DefinitionError(
                "skill_root_unroutable", "environment is not entered", reason="not_entered"
            )
        return self._live

    def mount(self, name: str, provider: FileProvider) -> str:
        """Mount ``provider`` as ``name``, replacing any mount of that name; returns its id."""
        live = self._require_live()
        checked = _check_mount_name(name)
        incarnation = _Incarnation(
            checked, _check_provider(provider), f"mount-{next(_incarnations)}"
        )
        live[checked] = incarnation
        return incarnation.mount_id

    def unmount(self, name: str) -> None:
        """Remove mount ``name``."""
        live = self._require_live()
        name = plain_str(name)  # type: ignore[assignment]  # its characters decide
        if type(name) is not str or name not in live:
            raise DefinitionError(
                "skill_root_unroutable", f"no mount named {describe(name)}", reason="unknown_mount"
            )
        del live[name]

    def set_default(self, name: str) -> None:
        """Route ``/workspace`` through mount ``name`` (it need not exist yet)."""
        self._default = _check_mount_name(name)

    def mount_names(self) -> tuple[str, ...]:
        """The names mounted now, sorted."""
        return tuple(sorted(self._require_live()))

    def _route(self, path: str) -> tuple[_Incarnation, str, bool]:
        live = self._require_live()
        if not is_canonical_path(path) or type(path) is not str:
            raise DefinitionError(
                "skill_root_invalid", "not a canonical absolute path", path=describe(path)
            )
        segments = path_segments(path)
        if segments[:1] == ["workspace"]:
            name, rest, default_route = self._default, segments[1:], True
        elif segments[:1] == ["environment"] and len(segments) >= 2:
            name, rest, default_route = segments[1], segments[2:], False
        else:
            raise DefinitionError(
                "skill_root_unroutable",
                "only /workspace/... and /environment/{name}/... are routed",
                reason="outside_namespace",
                path=path,
            )
        incarnation = live.get(name)
        if incarnation is None:
            raise DefinitionError(
                "skill_root_unroutable",
                f"no mount named {describe(name)}",
                reason="no_mount",
                path=path,
            )
        return incarnation, "/" + "/".join(rest), default_route

    def select_files(self, path: str) -> EnvironmentPath:
        """Capture the route ``path`` takes now (a ``str`` subclass as its plain characters)."""
        path = plain_str(path)  # type: ignore[assignment]  # a non-str is refused by _route
        incarnation, provider_path, default_route = self._route(path)
        return EnvironmentPath(
            path=path,
            mount=incarnation.name,
            mount_id=incarnation.mount_id,
            generation=_generation(incarnation.provider, path),
            provider_path=provider_path,
            default_route=default_route,
        )

    def is_current(self, selection: EnvironmentPath) -> bool:
        """True when ``selection.path`` still takes exactly the route it took."""
        if not _is_plain_selection(selection):  # a Host may pass anything
            return False
        try:
            return self.select_files(selection.path).route == selection.route
        except DefinitionError:
            return False

    def require_current(self, selection: EnvironmentPath) -> None:
        """Raise ``skill_catalog_stale`` unless :meth:`is_current`."""
        _check_selection(selection)
        if not self.is_current(selection):
            raise _stale(selection.path, "the route of this path changed")

    @property
    def files(self) -> FileOperator:
        """The unpinned facade: every call routes through the mounts as they are at that moment."""
        return _EnvironmentFiles(self)

    @contextlib.asynccontextmanager
    async def open_scope(self, selection: EnvironmentPath) -> AsyncIterator[PinnedFiles]:
        """A file operator pinned to the incarnation and generation ``selection`` captured."""
        self.require_current(selection)
        live = self._require_live()
        scope = PinnedFiles(self, live[selection.mount], selection)
        try:
            yield scope
        finally:
            scope.close()

    def _incarnation(self, name: str) -> _Incarnation | None:
        return None if self._live is None else self._live.get(name)


class PinnedFiles:
    """A file operator over environment paths, pinned to one mount incarnation and generation.

    Accepts environment paths on the pinned mount's prefix (``/workspace`` for a
    default-route selection, ``/environment/{name}`` otherwise); anything else
    is :class:`FilePermissionDenied`. Every call raises ``skill_catalog_stale``
    when the mount incarnation, provider generation or default route moved,
    checked before and after the call; a closed scope raises
    :class:`FileProviderError`.
    """

    def __init__(
        self, environment: Environment, incarnation: _Incarnation, selection: EnvironmentPath
    ) -> None:
        if (
            not isinstance(environment, Environment)
            or not isinstance(incarnation, _Incarnation)
            or not isinstance(selection, EnvironmentPath)
        ):
            raise DefinitionError(
                "skill_root_invalid",
                "a PinnedFiles comes from Environment.open_scope",
                reason="selection",
            )
        self._environment = environment
        self._incarnation = incarnation
        self._selection = selection
        self._operator = incarnation.provider.operator()
        self._prefix = (
            "/workspace" if selection.default_route else f"/environment/{selection.mount}"
        )
        self._closed = False

    @property
    def selection(self) -> EnvironmentPath:
        return self._selection

    @property
    def read_concurrency(self) -> int:
        """The pinned operator's, or 8 when it reads one file per call."""
        operator = self._operator
        return operator.read_concurrency if is_batch_reader(operator) else 8

    def close(self) -> None:
        self._closed = True

    def _check(self, path: str) -> None:
        if self._closed:
            raise FileProviderError("file scope is closed", path=path)
        environment = self._environment
        if environment._incarnation(self._selection.mount) is not self._incarnation:
            raise _stale(path, "the pinned mount was unmounted or replaced")
        if _generation(self._incarnation.provider, path) != self._selection.generation:
            raise _stale(path, "the pinned provider was retargeted")
        if self._selection.default_route and environment.default != self._selection.mount:
            raise _stale(path, "the default route moved")

    def _provider_path(self, path: str) -> str:
        if not is_canonical_path(path):
            raise FilePermissionDenied("path is not a canonical absolute path", path=describe(path))
        prefix = self._prefix
        if path == prefix:
            return "/"
        if path.startswith(prefix + "/"):
            return path[len(prefix) :]
        raise FilePermissionDenied("path is outside the pinned mount", path=path)

    async def _fenced(self, path: str, call: Callable[[], Awaitable[_T]]) -> _T:
        """``call()`` between two checks of the pin: the one way every method reaches the
        pinned operator, so a retarget during the call fails it as surely as one before."""
        self._check(path)
        result = await call()
        self._check(path)
        return result

    async def list_directory(self, path: str) -> Sequence[DirectoryEntry]:
        inner = self._provider_path(path)
        return await self._fenced(path, lambda: self._operator.list_directory(inner))

    async def read_bytes(self, path: str, limit: int) -> bytes:
        inner = self._provider_path(path)
        check_limit(limit)
        return await self._fenced(path, lambda: self._operator.read_bytes(inner, limit))

    async def read_many(
        self, paths: Sequence[str], limit: int
    ) -> Sequence[bytes | FileOperatorError]:
        if isinstance(paths, str | bytes) or not isinstance(paths, Sequence):
            raise FileProviderError("paths must be a sequence of paths")
        check_limit(limit)
        inner: list[str] = []
        errors: dict[int, FileOperatorError] = {}
        for index, path in enumerate(paths):
            try:
                inner.append(self._provider_path(path))
            except FileOperatorError as error:
                errors[index] = error
                inner.append("/")
        first = paths[0] if paths and isinstance(paths[0], str) else self._prefix
        results = await self._fenced(first, lambda: self._read_each(inner, limit))
        for index, refused in errors.items():
            results[index] = refused
        return results

    async def _read_each(self, inner: Sequence[str], limit: int) -> list[bytes | FileOperatorError]:
        """The pinned operator's batch read, or its reads one by one, errors in place."""
        operator = self._operator
        if is_batch_reader(operator):
            returned = plain_sequence(await operator.read_many(inner, limit))
            if returned is None or len(returned) != len(inner):
                raise FileProviderError("the file operator returned a batch that is not a list")
            return returned  # type: ignore[return-value]  # each result is the reader's to check
        results: list[bytes | FileOperatorError] = []
        for path in inner:
            try:
                results.append(await operator.read_bytes(path, limit))
            except FileOperatorError as error:
                results.append(error)
        return results

    async def stat(self, path: str) -> FileStat:
        inner = self._provider_path(path)
        return await self._fenced(path, lambda: self._operator.stat(inner))

    async def write_bytes(self, path: str, data: bytes) -> None:
        inner = self._provider_path(path)
        await self._fenced(path, lambda: self._operator.write_bytes(inner, data))

    async def make_directory(self, path: str) -> None:
        inner = self._provider_path(path)
        await self._fenced(path, lambda: self._operator.make_directory(inner))

    async def remove(self, path: str) -> None:
        inner = self._provider_path(path)
        await self._fenced(path, lambda: self._operator.remove(inner))


class _EnvironmentFiles:
    """The unpinned ``environment.files`` facade."""

    def __init__(self, environment: Environment) -> None:
        self._environment = environment

    def _target(self, path: str) -> tuple[FileOperator, str]:
        try:
            incarnation, provider_path, _ = self._environment._route(path)
        except DefinitionError as failure:
            if failure.code == "skill_root_invalid":
                raise FilePermissionDenied(failure.message, path=describe(path)) from None
            raise FileNotFound(failure.message, path=path) from None
        return incarnation.provider.operator(), provider_path

    async def list_directory(self, path: str) -> Sequence[DirectoryEntry]:
        operator, inner = self._target(path)
        return await operator.list_directory(inner)

    async def read_bytes(self, path: str, limit: int) -> bytes:
        operator, inner = self._target(path)
        return await operator.read_bytes(inner, limit)

    async def stat(self, path: str) -> FileStat:
        operator, inner = self._target(path)
        return await operator.stat(inner)

    async def write_bytes(self, path: str, data: bytes) -> None:
        operator, inner = self._target(path)
        await operator.write_bytes(inner, data)

    async def make_directory(self, path: str) -> None:
        operator, inner = self._target(path)
        await operator.make_directory(inner)

    async def remove(self, path: str) -> None:
        operator, inner = self._target(path)
        await operator.remove(inner)
