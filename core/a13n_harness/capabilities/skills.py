"""``SkillsCapability``: one bound catalog turned into run instructions and fences.

:meth:`SkillsCapability.prepare` scans the run's environment (always the
Environment-aware mode), checks the selection (an unknown name is
``skill_selection_unknown`` before anything is rendered), renders the
selected items with the longest-prefix renderer at
``catalog_allowance(context_tokens, response_reserve_tokens)`` and certifies
the rendering with ``verify_rendering``: UTF-8 bytes by default, the bound
``token_counter``'s tokens when there is one (``render_catalog_counted`` and
``verify_rendering_counted``). The pointer routes only where the run may go
(docs/contract.md §7): with a selection, ``R`` is the selected packages' folders; without
one, the configured roots that were scanned (a skipped optional root is not
named). The resulting
:class:`PreparedSkills` fences the *selected* items only: a route change that
affects an unselected skill does not stop the run. A selected skill whose frontmatter
says ``disable-model-invocation`` is left out of the model's catalog and paths; it is
still selected, fenced and activatable with ``by="user"`` (:meth:`PreparedSkills.activate`,
docs/contract.md §10).

The run boundary by construction (docs/contract.md §7, "The run boundary"): a run's
model and tool calls go through :meth:`PreparedSkills.model_call` and
:meth:`PreparedSkills.tool_call` (or :meth:`PreparedSkills.boundary` around code that
cannot be passed as a callable), its tools read through :attr:`PreparedSkills.files`.
Each checks the fence before and after the call and refuses to dispatch once the run
is stale: the first ``skill_catalog_stale`` is latched, so a route that moves and moves
back does not revive the run. A :class:`PreparedSkills` belongs to one run: a resumed or
child run prepares again (fresh selection, fresh scan), and it refuses to be pickled.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, overload

from a13n_harness.capabilities.bindings import RunBindings, _selection
from a13n_harness.capabilities.bound import BoundSkillCatalog
from a13n_harness.capabilities.manager import SkillManager
from a13n_harness.context._checks import (
    describe,
    is_count,
    is_kind,
    plain_str,
    plain_tuple,
    type_name,
)
from a13n_harness.context.activation import (
    ActivationSource,
    SkillActivation,
    activation_allowance,
)
from a13n_harness.context.catalog import CatalogEntry, SkillCatalog
from a13n_harness.context.defaults import DEFAULT_CONTEXT_TOKENS, DEFAULT_RESPONSE_RESERVE_TOKENS
from a13n_harness.context.errors import DefinitionError
from a13n_harness.context.frontmatter import FrontmatterLimits
from a13n_harness.context.render import RenderedCatalog, render_catalog, verify_rendering
from a13n_harness.context.tokens import (
    CountedRendering,
    TokenCounter,
    render_catalog_counted,
    verify_rendering_counted,
)
from a13n_harness.environment import (
    DirectoryEntry,
    Environment,
    EnvironmentPath,
    FileOperator,
    FileStat,
)
from a13n_harness.environment.operator import plain_fields

__all__ = ["BOUNDARY_KINDS", "ObservedFiles", "PreparedSkills", "SkillPath", "SkillsCapability"]

_T = TypeVar("_T")

BOUNDARY_KINDS = ("model", "tool", "files")
"""What a fence is around, for its messages: a model call, a tool call, a file call."""


@dataclass(frozen=True, slots=True)
class SkillPath:
    """Where a selected skill lives in the entered environment."""

    name: str
    directory: EnvironmentPath
    document: EnvironmentPath

    def __post_init__(self) -> None:
        plain_fields(self)  # a Host's subclasses as their plain values


class PreparedSkills:
    """The prepared skills of one run: instructions, paths, catalog, rendering and read log."""

    __slots__ = (
        "_activation_budget",
        "_activations",
        "_counter",
        "_documents",
        "_environment",
        "_failure",
        "_limits",
        "_observed",
        "catalog",
        "instructions",
        "rendering",
        "skill_paths",
    )

    def __init__(
        self,
        instructions: str,
        skill_paths: tuple[SkillPath, ...],
        catalog: BoundSkillCatalog,
        rendering: RenderedCatalog | CountedRendering,
        *,
        environment: Environment | None = None,
        activation_budget: int | None = None,
        token_counter: TokenCounter | None = None,
        limits: FrontmatterLimits | None = None,
    ) -> None:
        # A Host's subclasses as their plain values (a tuple's items read by the base type).
        instructions = plain_str(instructions)  # type: ignore[assignment]
        skill_paths = plain_tuple(skill_paths)  # type: ignore[assignment]
        if (
            not isinstance(instructions, str)
            or not isinstance(skill_paths, tuple)
            or not all(isinstance(path, SkillPath) for path in skill_paths)
            or not isinstance(catalog, BoundSkillCatalog)
            or not isinstance(rendering, RenderedCatalog | CountedRendering)
            or not (environment is None or isinstance(environment, Environment))
        ):
            raise DefinitionError(
                "catalog_invalid",
                "PreparedSkills needs instructions (str), a tuple of SkillPath, "
                "a BoundSkillCatalog, a rendering and an Environment or None",
                reason="prepared",
            )
        self.instructions = instructions
        self.skill_paths = skill_paths
        self.catalog = catalog
        self.rendering = rendering
        self._environment = environment
        self._documents = {path.document.path: path.name for path in skill_paths}
        self._observed: list[str] = []
        self._failure: DefinitionError | None = None
        self._set_activation(activation_budget, token_counter, limits)

    def _set_activation(self, budget: object, counter: TokenCounter | None, limits: object) -> None:
        """The activation allowance (default: the default window's), counter and limits."""
        if budget is None:
            budget = activation_allowance(DEFAULT_CONTEXT_TOKENS, DEFAULT_RESPONSE_RESERVE_TOKENS)
        if not is_count(budget) or not (limits is None or type(limits) is FrontmatterLimits):
            raise DefinitionError(
                "catalog_invalid",
                f"activation_budget must be a count and limits FrontmatterLimits or None, "
                f"got {describe(budget)} and {describe(limits)}",
                reason="prepared",
            )
        self._activation_budget: int = budget
        self._counter = counter
        self._limits = FrontmatterLimits() if limits is None else limits
        # name -> what its activation read (None while it is being read)
        self._activations: dict[str, ActivationSource | None] = {}

    def __reduce__(self) -> tuple[object, ...]:
        # Selection and routes are not portable run state (the seed): a resumed run prepares again.
        raise DefinitionError(
            "catalog_invalid",
            "prepared skills belong to one run of one entered Environment and are never "
            "persisted; a resumed or child run calls SkillsCapability.prepare again",
            reason="prepared",
        )

    @property
    def environment(self) -> Environment | None:
        """The entered Environment the skills were prepared in (``None`` if built by hand)."""
        return self._environment

    def observe_read(self, path: str | EnvironmentPath) -> bool:
        """Record a read of a selected SKILL.md; returns whether ``path`` was one."""
        text: object = plain_str(path.path if is_kind(path, EnvironmentPath) else path)
        if type(text) is not str:  # no selected SKILL.md has such a path
            return False
        name = self._documents.get(text)
        if name is None:
            return False
        self._observed.append(name)
        return True

    @property
    def observed_reads(self) -> tuple[str, ...]:
        """Names of the selected skills whose SKILL.md was read, in read order."""
        return tuple(self._observed)

    def check_boundary(self, environment: Environment | None = None) -> None:
        """The model/tool-boundary fence: ``skill_catalog_stale`` if a selected route changed.

        ``environment`` defaults to the one the skills were prepared in. Once a fence has
        failed the run stays stale: every later check raises again.
        """
        if environment is None:
            environment = self._bound_environment()
        if self._failure is not None:
            raise self._stale_again()
        try:
            self.catalog.require_current(environment)
        except DefinitionError as error:
            if error.code == "skill_catalog_stale":
                self._failure = error
            raise

    @property
    def stale(self) -> bool:
        """Whether a fence of this run has failed (the run may not dispatch anything more)."""
        return self._failure is not None

    def _bound_environment(self) -> Environment:
        if self._environment is None:
            raise DefinitionError(
                "catalog_invalid",
                "these PreparedSkills have no Environment: pass one to check_boundary, "
                "or use SkillsCapability.prepare",
                reason="prepared",
            )
        return self._environment

    def _stale_again(self) -> DefinitionError:
        failure = self._failure
        assert failure is not None
        return DefinitionError(
            "skill_catalog_stale",
            f"the run is stale since an earlier fence failed: {failure.message}",
            path=failure.path,
        )

    @contextlib.contextmanager
    def boundary(self, kind: str = "model") -> Iterator[None]:
        """Fence the code in the block: ``check_boundary`` before it runs and after it ends.

        Stale before: the block never runs (nothing is dispatched). Stale after: the block's
        result must not be used, ``skill_catalog_stale`` is raised in its place. A block that
        raises keeps its own exception, and a route change it overlapped still makes the run
        stale for every later fence. ``kind`` (``"model"``, ``"tool"`` or ``"files"``) only
        names the boundary.
        """
        kind = plain_str(kind)  # type: ignore[assignment]  # a Host's subclass: its characters
        if type(kind) is not str or kind not in BOUNDARY_KINDS:
            raise DefinitionError(
                "catalog_invalid",
                f"boundary kind must be one of {', '.join(BOUNDARY_KINDS)}",
                reason="prepared",
            )
        self.check_boundary()
        try:
            yield
        except BaseException:
            with contextlib.suppress(DefinitionError):
                self.check_boundary()  # latch a change the failed call overlapped
            raise
        self.check_boundary()

    @overload
    async def model_call(
        self, call: Callable[..., Awaitable[_T]], /, *args: Any, **kwargs: Any
    ) -> _T: ...

    @overload
    async def model_call(self, call: Callable[..., _T], /, *args: Any, **kwargs: Any) -> _T: ...

    async def model_call(self, call: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        """``call(*args, **kwargs)`` (awaited if it returns an awaitable) inside the fence."""
        return await self._fenced("model", call, args, kwargs)

    @overload
    async def tool_call(
        self, call: Callable[..., Awaitable[_T]], /, *args: Any, **kwargs: Any
    ) -> _T: ...

    @overload
    async def tool_call(self, call: Callable[..., _T], /, *args: Any, **kwargs: Any) -> _T: ...

    async def tool_call(self, call: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        """``call(*args, **kwargs)`` (awaited if it returns an awaitable) inside the fence."""
        return await self._fenced("tool", call, args, kwargs)

    async def _fenced(
        self, kind: str, call: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> Any:
        if not callable(call):
            raise DefinitionError(
                "catalog_invalid", f"a {kind} call must be callable", reason="prepared"
            )
        with self.boundary(kind):
            result = call(*args, **kwargs)
            if isinstance(result, Awaitable):
                result = await result
        return result

    async def activate(
        self, name: str, *, by: str = "model", directory: str | None = None
    ) -> SkillActivation:
        """Deliver the selected skill ``name``'s instructions (docs/contract.md §10).

        Fenced like a tool call; ``by="model"`` refuses a user-only skill
        (``disable-model-invocation``) as ``skill_selection_unknown``, like an unknown or
        unselected name; a second activation of a name in this run returns a short note.
        ``directory``: the skill's folder as the Host shows it to the model (an absolute
        path, e.g. the checkout's own); default the Environment path the run's tools read.
        The result is certified (``verify_activation`` holds for it).
        """
        from a13n_harness.capabilities.activation import activate  # noqa: PLC0415

        return await activate(self, name, by, directory)

    def activatable(self, *, by: str = "model") -> tuple[str, ...]:
        """The names ``by`` may activate, sorted: every selected skill for ``"user"``, those
        offered to the model for ``"model"`` (the ``activate_skill`` tool's enum)."""
        from a13n_harness.capabilities.activation import _check_by  # noqa: PLC0415

        user = _check_by(by) == "user"
        return tuple(
            item.name for item in self.catalog.items if user or not item.disable_model_invocation
        )

    @property
    def files(self) -> ObservedFiles:
        """The Environment's files for the run's tools: calls fenced, SKILL.md reads observed."""
        return ObservedFiles(self, self._bound_environment())


class ObservedFiles:
    """``environment.files`` for a run's tools (a :class:`FileOperator`).

    Every call is fenced like a tool call (``skill_catalog_stale`` before anything is read
    once a selected route moved), and a read of a selected skill's exact ``SKILL.md`` path
    is recorded by :meth:`PreparedSkills.observe_read` once it succeeded.
    """

    __slots__ = ("_files", "_prepared")

    def __init__(self, prepared: PreparedSkills, environment: Environment) -> None:
        if not isinstance(prepared, PreparedSkills) or not isinstance(environment, Environment):
            raise DefinitionError(
                "catalog_invalid",
                "ObservedFiles comes from PreparedSkills.files",
                reason="prepared",
            )
        self._prepared = prepared
        self._files: FileOperator = environment.files

    async def list_directory(self, path: str) -> Sequence[DirectoryEntry]:
        with self._prepared.boundary("files"):
            return await self._files.list_directory(path)

    async def read_bytes(self, path: str, limit: int) -> bytes:
        with self._prepared.boundary("files"):
            data = await self._files.read_bytes(path, limit)
        self._prepared.observe_read(path)
        return data

    async def stat(self, path: str) -> FileStat:
        with self._prepared.boundary("files"):
            return await self._files.stat(path)

    async def write_bytes(self, path: str, data: bytes) -> None:
        with self._prepared.boundary("files"):
            await self._files.write_bytes(path, data)

    async def make_directory(self, path: str) -> None:
        with self._prepared.boundary("files"):
            await self._files.make_directory(path)

    async def remove(self, path: str) -> None:
        with self._prepared.boundary("files"):
            await self._files.remove(path)


def _routes(
    catalog: BoundSkillCatalog, selected: BoundSkillCatalog, selection: frozenset[str] | None
) -> tuple[str, ...]:
    """The pointer's ``R``: where the run may look for more skills (contract §7).

    With a selection, the selected packages' folders (in name order): the
    roots also hold skills the run did not select. Without one, the configured
    roots minus those skipped (``skill_root_skipped``), each named once.
    """
    if selection is not None:
        return tuple(item.directory.path for item in selected.items)
    skipped = {d.path for d in catalog.diagnostics if d.code == "skill_root_skipped"}
    return tuple(dict.fromkeys(root for root in catalog.roots if root not in skipped))


class SkillsCapability:
    """Adapts a :class:`SkillManager` into run selection, instructions, paths and fences."""

    __slots__ = ("_manager",)

    def __init__(self, manager: SkillManager) -> None:
        if not isinstance(manager, SkillManager):
            raise DefinitionError(
                "catalog_invalid", "SkillsCapability needs a SkillManager", reason="manager"
            )
        self._manager = manager

    @property
    def manager(self) -> SkillManager:
        return self._manager

    async def prepare(self, bindings: RunBindings) -> PreparedSkills:
        """Scan, select, render and certify; see the module docstring."""
        if not is_kind(bindings, RunBindings):
            raise DefinitionError(
                "catalog_invalid",
                f"prepare needs RunBindings, got {type_name(type(bindings))}",
                reason="bindings",
            )
        # Checked again here: bindings forged past their constructor may hold a Host's
        # set, whose iteration, ordering or names' repr must not run while the error
        # below is built; this gives a frozenset of plain str or refuses.
        selection = _selection(getattr(bindings, "skill_selection", None))
        catalog = await self._manager.scan_environment(environment=bindings.environment)
        if selection is not None:
            known = {item.name for item in catalog.items}
            unknown = sorted(selection - known)
            if unknown:
                raise DefinitionError(
                    "skill_selection_unknown",
                    f"selected skills not in the catalog: {', '.join(map(repr, unknown))}",
                )
        selected = catalog.restricted(selection)
        offered = BoundSkillCatalog(  # what the model sees: no user-only skill
            tuple(item for item in selected.items if not item.disable_model_invocation),
            selected.diagnostics,
            selected.roots,
        )
        listing = SkillCatalog(
            entries=tuple(
                CatalogEntry(item.name, item.description, item.path) for item in offered.items
            ),
            roots=_routes(catalog, offered, selection),
        )
        rendering: RenderedCatalog | CountedRendering
        counter = bindings.token_counter
        if counter is None:
            budget = bindings.allowance_bytes
            rendering = render_catalog(listing, budget, bindings.fit)
            verify_rendering(listing, budget, rendering, bindings.fit)
        else:
            budget = bindings.allowance_tokens
            rendering = render_catalog_counted(listing, budget, counter, bindings.fit)
            verify_rendering_counted(listing, budget, rendering, counter, bindings.fit)
        paths = tuple(SkillPath(item.name, item.directory, item.document) for item in offered.items)
        return PreparedSkills(
            rendering.text,
            paths,
            selected,
            rendering,
            environment=bindings.environment,
            activation_budget=activation_allowance(
                bindings.context_tokens, bindings.response_reserve_tokens
            ),
            token_counter=counter,
            limits=self._manager.policy.frontmatter,
        )
