"""``a13n-skills mcp [WORKSPACE]``: the certified skills of a checkout over the Model Context
Protocol (stdio; extra ``mcp``, the official Python SDK). docs/contract.md §10, README "MCP".

What a client gets:

* the resource ``skills://catalog`` and the prompt ``skills_catalog``: the certified catalog
  block of the skills the model may activate, in the window or tokenizer the command's
  options give, naming each ``SKILL.md`` by its path in the checkout as ``a13n-skills
  catalog`` does (:func:`host_catalog`: rendered, then certified by ``verify_rendering`` or
  ``verify_rendering_counted``);
* the tool ``activate_skill(name)``, ``name`` an enum of the names the model may activate,
  returning the certified activation (``PreparedSkills.activate``, then ``verify_activation``);
* a prompt per skill the user may activate (``disable-model-invocation`` skills included: a
  prompt is the user's choice, a slash command or a menu entry in the hosts), giving that
  skill's activation ``by="user"``;
* the tool ``read_skill_resource(name, path)``: a file of that skill's folder, ``path``
  relative to it. Every component is checked by listing its folder through the workspace's
  confined operator: no ``..``, no absolute path, no symbolic link (even one staying
  inside), no FIFO, device or socket; a folder is refused; at most
  :data:`MAX_RESOURCE_BYTES` are read (a longer file is cut, and the result says so).

Every tool failure is a tool result with ``isError`` whose text starts with our code
(``skill_selection_unknown: ...``) and whose structured content is
``{"code", "reason", "message"}``; a failure reading the catalog is a JSON-RPC error whose
message starts with the code.

**Rescans.** The checkout's skill roots (``.agents/skills``, ``.claude/skills``,
``.github/skills``, or the ``--root`` folders given) are fingerprinted by ``lstat``: the
folders on the way, every entry of each root, and each entry's ``SKILL.md`` (kind, inode,
size, change and modification times).
Before every request, and every :data:`POLL_SECONDS` in between, the fingerprint is taken
again; when it differs the workspace's provider is retargeted (the previous scan's
``PreparedSkills`` go stale: a read still in flight through it fails with
``skill_catalog_stale``), the workspace is scanned and prepared again, and the client is told
(``notifications/tools/list_changed`` when the activatable names changed,
``notifications/resources/list_changed`` and ``notifications/prompts/list_changed`` when the
catalog block changed; on the 2026-07-28 protocol through ``subscriptions/listen``).
**A path from a stale scan is never served:** a resource read resolves the name in the
current scan, reads through that scan's fenced files, then checks the path's components and
the fingerprint again; if anything moved meanwhile the result is withheld
(``skill_catalog_stale``) and the change announced.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import anyio
import mcp_types as types
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.stdio import stdio_server
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ListenHandler,
    PromptsListChanged,
    ResourcesListChanged,
    ToolsListChanged,
)
from mcp.shared.exceptions import MCPError

from a13n_harness._version import __version__
from a13n_harness.capabilities import (
    FileSkillSource,
    PreparedSkills,
    RunBindings,
    SkillActivation,
    SkillManager,
    SkillsCapability,
    SkillsPolicy,
    verify_activation,
)
from a13n_harness.cli._output import os_error_code
from a13n_harness.context.catalog import CatalogEntry, SkillCatalog
from a13n_harness.context.errors import DefinitionError
from a13n_harness.context.render import render_catalog, verify_rendering
from a13n_harness.context.tokens import render_catalog_counted, verify_rendering_counted
from a13n_harness.environment import Environment, FilePermissionDenied, LocalDirectoryProvider

if TYPE_CHECKING:
    from a13n_harness.context.tokens import TokenCounter
    from a13n_harness.environment import FileOperator

__all__ = [
    "CATALOG_PROMPT",
    "CATALOG_URI",
    "MAX_RESOURCE_BYTES",
    "POLL_SECONDS",
    "SkillsServer",
    "host_catalog",
    "host_listing",
    "serve",
]

CATALOG_URI: Final = "skills://catalog"
CATALOG_PROMPT: Final = "skills_catalog"
MOUNT: Final = "workspace"
ROOTS: Final = (".agents/skills", ".claude/skills", ".github/skills")
"""The checkout's skill roots, as ``a13n-skills catalog`` finds them (cli._workspace)."""

MAX_RESOURCE_BYTES: Final = 1 << 20
"""How many bytes ``read_skill_resource`` returns at most (the LangChain file tool's bound)."""
MAX_RESOURCE_DEPTH: Final = 16
"""Path components ``read_skill_resource`` takes at most (discovery's depth bound)."""
MAX_PATH_CHARACTERS: Final = 4096
"""The longest ``path`` argument taken (PATH_MAX on Linux)."""
FINGERPRINT_ENTRIES: Final = 100_000
"""Entries of one root fingerprinted at most (checkout discovery's bound per root,
``CHECKOUT_MAX_ENTRIES``): past it the root counts as changed on every look, so it is
rescanned, and the scan reports the overflow."""
POLL_SECONDS: Final = 1.0
"""How often the checkout is looked at between requests, to announce a change unasked.
A schedule, not a limit: no work is bounded by it."""

_ERROR_CODES_OF_READS: Final = {
    "skill_root_missing": "path_not_found",
    "skill_root_unsupported": "path_not_a_regular_file",
}


# ------------------------------------------------------------------ the checkout's fingerprint


def _status(path: str) -> tuple[object, ...]:
    try:
        found = os.lstat(path)
    except OSError as error:
        return (path, "error", error.errno)
    return (
        path,
        stat.S_IFMT(found.st_mode),
        found.st_dev,
        found.st_ino,
        found.st_size,
        found.st_mtime_ns,
        found.st_ctime_ns,
    )


def fingerprint(workspace: str, roots: Sequence[str] = ROOTS) -> tuple[object, ...]:
    """What the checkout's skill ``roots`` (relative to ``workspace``) are now, by ``lstat``
    alone (the module docstring).

    Counted work: the folders on the way to each root, at most :data:`FINGERPRINT_ENTRIES`
    entries per root, and one ``SKILL.md`` per entry.
    """
    parts: list[object] = [_status(workspace)]
    for root in roots:
        here = workspace
        for segment in filter(None, root.split("/")):
            here = os.path.join(here, segment)
            parts.append(_status(here))
        try:
            with os.scandir(here) as listing:
                names = []
                for entry in listing:
                    names.append(entry.name)
                    if len(names) > FINGERPRINT_ENTRIES:
                        parts.append((here, "overflow", object()))  # never equal: rescan
                        break
        except OSError as error:
            parts.append((here, "unlisted", error.errno))
            continue
        for name in sorted(names):
            entry_path = os.path.join(here, name)
            parts.append(_status(entry_path))
            parts.append(_status(os.path.join(entry_path, "SKILL.md")))
    return tuple(parts)


# ------------------------------------------------------------------ the server's state


@dataclass(frozen=True, slots=True)
class Scan:
    """One scan of the checkout: its prepared skills and the fingerprint it was taken at."""

    prepared: PreparedSkills | None
    failure: DefinitionError | None
    fingerprint: tuple[object, ...]
    number: int
    catalog: str = ""  # the certified block served (:func:`host_catalog`)

    def require(self) -> PreparedSkills:
        if self.prepared is None:
            assert self.failure is not None
            raise self.failure
        return self.prepared


def _shown(path: str) -> str:
    """A path of the run's namespace as the checkout names it (``/workspace/.agents/x`` is
    ``.agents/x``, the workspace itself ``.``), as ``a13n-skills catalog`` shows paths."""
    prefix = f"/{MOUNT}"
    if path == prefix or path.startswith(prefix + "/"):
        path = path[len(prefix) :]
    return path.lstrip("/") or "."


def host_listing(prepared: PreparedSkills) -> SkillCatalog:
    """The model's catalog of ``prepared`` with the checkout's own paths.

    The skills the model may activate (no ``disable-model-invocation`` skill), each ``file``
    relative to the workspace, and the roots scanned (a skipped optional root is not named):
    what ``a13n-skills catalog`` lists, so a host's agent, working in the checkout, can open
    every path it names. ``prepared.instructions`` names them in the run's namespace
    (``/workspace/...``), which no host's file tool knows.
    """
    catalog = prepared.catalog
    skipped = {d.path for d in catalog.diagnostics if d.code == "skill_root_skipped"}
    return SkillCatalog(
        tuple(
            CatalogEntry(item.name, item.description, _shown(item.path))
            for item in catalog.items
            if not item.disable_model_invocation
        ),
        0,
        tuple(dict.fromkeys(_shown(root) for root in catalog.roots if root not in skipped)),
    )


def host_catalog(prepared: PreparedSkills, bindings: RunBindings) -> str:
    """:func:`host_listing` rendered at ``bindings``' budget and fit, in its counter's tokens
    when it has one, and certified (``verify_rendering`` or ``verify_rendering_counted``)."""
    listing = host_listing(prepared)
    counter = bindings.token_counter
    if counter is None:
        budget = bindings.allowance_bytes
        rendered = render_catalog(listing, budget, bindings.fit)
        verify_rendering(listing, budget, rendered, bindings.fit)
        return rendered.text
    tokens = bindings.allowance_tokens
    counted = render_catalog_counted(listing, tokens, counter, bindings.fit)
    verify_rendering_counted(listing, tokens, counted, counter, bindings.fit)
    return counted.text


def _activatable(prepared: PreparedSkills) -> tuple[str, ...]:
    """The names the model may activate (``disable-model-invocation`` skills are the user's):
    the enum of both tools."""
    return prepared.activatable(by="model")


def _code_text(error: DefinitionError) -> str:
    return f"{error.code}: {error.message}"


def _tool_error(error: DefinitionError) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=_code_text(error))],
        structured_content={"code": error.code, "reason": error.reason, "message": error.message},
        is_error=True,
    )


def _relative_parts(path: object) -> tuple[str, ...]:
    """``path`` as components below a skill's folder, or ``skill_permission_denied``.

    Grammar: ``segment ("/" segment)*``, each segment non-empty, not ``.`` or ``..``, no NUL;
    at most :data:`MAX_RESOURCE_DEPTH` segments and :data:`MAX_PATH_CHARACTERS` characters.
    """
    if type(path) is not str or not path or len(path) > MAX_PATH_CHARACTERS or "\0" in path:
        raise DefinitionError(
            "skill_permission_denied",
            "path must be a file's path relative to the skill's folder (e.g. references/api.md)",
            reason="outside_skill",
        )
    parts = tuple(path.split("/"))
    if path.startswith("/") or any(part in ("", ".", "..") for part in parts):
        raise DefinitionError(
            "skill_permission_denied",
            f"{path!r} leaves the skill's folder or is not a plain relative path",
            reason="outside_skill",
        )
    if len(parts) > MAX_RESOURCE_DEPTH:
        raise DefinitionError(
            "skill_permission_denied",
            f"{path!r} is deeper than {MAX_RESOURCE_DEPTH} folders",
            reason="outside_skill",
        )
    return parts


async def _walk(files: FileOperator, directory: str, parts: Sequence[str]) -> str:
    """The Environment path of ``parts`` below ``directory``: each component a listed folder
    or, last, a regular file; never a link. Raises the coded error otherwise."""
    here = directory
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        kinds = {entry.name: entry.kind for entry in await files.list_directory(here)}
        here = f"{here}/{part}"
        kind = kinds.get(part)
        shown = "/".join(parts[: index + 1])
        if kind is None:
            raise DefinitionError("path_not_found", f"{shown!r}: no such file in the skill")
        if kind == "symlink":
            raise FilePermissionDenied(
                f"{shown!r} is a symbolic link; a skill's resources are its own files",
                reason="link_escapes",
            )
        if not last and kind != "directory":
            raise DefinitionError("path_not_a_directory", f"{shown!r} is not a folder")
        if last and kind == "directory":
            raise DefinitionError("path_is_a_directory", f"{shown!r} is a folder")
        if last and kind != "file":
            raise DefinitionError(
                "path_not_a_regular_file", f"{shown!r} is not a regular file (a FIFO, a device?)"
            )
    return here


class SkillsServer:
    """The state of ``a13n-skills mcp``: the entered workspace, the current scan, the client.

    :meth:`refresh` takes the fingerprint and rescans on a change; the handlers answer from
    the scan :meth:`refresh` returns. One client per server (stdio).
    """

    def __init__(
        self,
        workspace: str,
        *,
        roots: Sequence[str] = (),
        context_tokens: int | None = None,
        response_reserve_tokens: int | None = None,
        token_counter: TokenCounter | None = None,
        budget_tokens: int | None = None,
        fit: str = "prefix",
    ) -> None:
        self.workspace = os.path.abspath(workspace)
        self.provider = LocalDirectoryProvider(self.workspace)
        self.environment = Environment({MOUNT: self.provider})
        # Explicit roots (namespace form, "/skills") are required, the defaults are not: as
        # for ``catalog``.
        self.roots = tuple(root.strip("/") for root in roots) or ROOTS
        self.manager = SkillManager(
            [
                FileSkillSource(
                    MOUNT,
                    tuple(f"/{MOUNT}/{root}" if root else f"/{MOUNT}" for root in self.roots),
                    required=bool(roots),
                )
            ],
            policy=SkillsPolicy.checkout(),
        )
        options: dict[str, Any] = {"token_counter": token_counter, "fit": fit}
        if context_tokens is not None:
            options["context_tokens"] = context_tokens
        if response_reserve_tokens is not None:
            options["response_reserve_tokens"] = response_reserve_tokens
        if budget_tokens is not None:
            options["budget_tokens"] = budget_tokens
        self._options = options
        self._lock = anyio.Lock()
        self._scan = Scan(None, DefinitionError("skill_catalog_stale", "not scanned yet"), (), 0)
        self.bus = InMemorySubscriptionBus()
        self._session: Any = None  # the client's session (legacy era), for notifications

    # ------------------------------------------------------------ scans

    async def _prepare(self) -> tuple[PreparedSkills, str]:
        bindings = RunBindings.embedded(environment=self.environment, **self._options)
        prepared = await SkillsCapability(self.manager).prepare(bindings)
        return prepared, host_catalog(prepared, bindings)

    async def refresh(self) -> Scan:
        """The current scan: the one held when the checkout is unchanged, else a new one
        (and the client told what changed)."""
        async with self._lock:
            now = fingerprint(self.workspace, self.roots)
            held = self._scan
            if held.number and now == held.fingerprint:
                return held
            if held.number:
                self.provider.retarget(self.workspace)  # the held scan's routes go stale
            prepared: PreparedSkills | None = None
            failure: DefinitionError | None = None
            block = ""
            try:
                prepared, block = await self._prepare()
            except DefinitionError as error:
                failure = error
            except OSError as error:  # the workspace itself went away or was refused
                failure = DefinitionError(os_error_code(error), error.strerror or str(error))
            after = fingerprint(self.workspace, self.roots)
            if after != now:  # changed while scanned: scan again at the next look
                after = (*after, object())
            self._scan = Scan(prepared, failure, after, held.number + 1, block)
        if held.number:
            await self._announce(held, self._scan)
        return self._scan

    async def _announce(self, before: Scan, after: Scan) -> None:
        def catalog(scan: Scan) -> str | None:
            return None if scan.prepared is None else scan.catalog

        def names(scan: Scan) -> tuple[str, ...]:
            return () if scan.prepared is None else _activatable(scan.prepared)

        def users(scan: Scan) -> tuple[str, ...]:
            return () if scan.prepared is None else scan.prepared.activatable(by="user")

        changes: list[Any] = []
        if names(before) != names(after):
            changes.append(ToolsListChanged())
        if catalog(before) != catalog(after):
            changes.append(ResourcesListChanged())
        if catalog(before) != catalog(after) or users(before) != users(after):
            changes.append(PromptsListChanged())
        for change in changes:
            await self.bus.publish(change)
            session = self._session
            if session is None:
                continue
            send = {
                ToolsListChanged: "send_tool_list_changed",
                ResourcesListChanged: "send_resource_list_changed",
                PromptsListChanged: "send_prompt_list_changed",
            }[type(change)]
            with contextlib.suppress(Exception):  # a client gone: nothing to tell
                await getattr(session, send)()

    async def watch(self) -> None:
        """Look at the checkout every :data:`POLL_SECONDS`, announcing changes unasked."""
        while True:
            await anyio.sleep(POLL_SECONDS)
            await self.refresh()  # a scan's failure is held in the Scan, never raised here

    def _seen(self, ctx: Any) -> None:
        session = getattr(ctx, "session", None)
        if session is not None:
            self._session = session

    # ------------------------------------------------------------ handlers

    async def list_resources(self, ctx: Any, params: Any) -> types.ListResourcesResult:
        self._seen(ctx)
        await self.refresh()
        return types.ListResourcesResult(
            resources=[
                types.Resource(
                    name="catalog",
                    title="Skills catalog",
                    uri=CATALOG_URI,
                    description="The certified catalog of the workspace's skills: every value "
                    "encoded, bounded by the window. Activate a skill with activate_skill.",
                    mime_type="text/plain",
                )
            ]
        )

    async def _catalog_text(self) -> str:
        try:
            scan = await self.refresh()
            scan.require()
            return scan.catalog
        except DefinitionError as error:
            raise MCPError(types.INTERNAL_ERROR, _code_text(error)) from error

    async def read_resource(self, ctx: Any, params: Any) -> types.ReadResourceResult:
        self._seen(ctx)
        if str(params.uri) != CATALOG_URI:
            raise MCPError(types.INVALID_PARAMS, f"path_not_found: no resource {str(params.uri)!r}")
        text = await self._catalog_text()
        return types.ReadResourceResult(
            contents=[
                types.TextResourceContents(uri=CATALOG_URI, mime_type="text/plain", text=text)
            ]
        )

    async def list_prompts(self, ctx: Any, params: Any) -> types.ListPromptsResult:
        """The catalog prompt, then one prompt per skill the user may activate (a prompt is the
        user's choice in every host: a slash command, a menu entry)."""
        self._seen(ctx)
        scan = await self.refresh()
        users = scan.prepared.activatable(by="user") if scan.prepared is not None else ()
        return types.ListPromptsResult(
            prompts=[
                types.Prompt(
                    name=CATALOG_PROMPT,
                    title="Skills catalog",
                    description="The certified catalog of the workspace's skills, to put in "
                    "front of a conversation.",
                ),
                *(
                    types.Prompt(
                        name=name,
                        title=f"Skill {name}",
                        description="Activate this skill: its instructions, certified.",
                    )
                    for name in users
                ),
            ]
        )

    async def get_prompt(self, ctx: Any, params: Any) -> types.GetPromptResult:
        """The catalog, or the user's activation of a skill (``by="user"``)."""
        self._seen(ctx)
        if params.name == CATALOG_PROMPT:
            text = await self._catalog_text()
            description = "The certified skills catalog"
        else:
            try:
                text = (await self._activation(params.name, "user")).text
            except DefinitionError as error:
                raise MCPError(types.INVALID_PARAMS, _code_text(error)) from error
            description = f"The instructions of skill {params.name}"
        return types.GetPromptResult(
            description=description,
            messages=[
                types.PromptMessage(role="user", content=types.TextContent(type="text", text=text))
            ],
        )

    async def list_tools(self, ctx: Any, params: Any) -> types.ListToolsResult:
        self._seen(ctx)
        scan = await self.refresh()
        names = list(_activatable(scan.prepared)) if scan.prepared is not None else []
        return types.ListToolsResult(
            tools=[
                types.Tool(
                    name="activate_skill",
                    description="Load a skill's instructions (its SKILL.md body, wrapped in "
                    "<skill_content>, with a listing of its files). Use it when a task matches "
                    "a skill of the catalog.",
                    input_schema={
                        "type": "object",
                        "properties": {"name": {"type": "string", "enum": names}},
                        "required": ["name"],
                        "additionalProperties": False,
                    },
                    annotations=types.ToolAnnotations(read_only_hint=True),
                ),
                types.Tool(
                    name="read_skill_resource",
                    description="Read a file a skill bundles (a reference, a script, a "
                    "template), by the skill's name and the file's path relative to the "
                    f"skill's folder. At most {MAX_RESOURCE_BYTES} bytes.",
                    input_schema={
                        "type": "object",
                        "properties": {
                            "name": {"type": "string", "enum": names},
                            "path": {"type": "string", "maxLength": MAX_PATH_CHARACTERS},
                        },
                        "required": ["name", "path"],
                        "additionalProperties": False,
                    },
                    annotations=types.ToolAnnotations(read_only_hint=True),
                ),
            ]
        )

    async def call_tool(self, ctx: Any, params: Any) -> types.CallToolResult:
        self._seen(ctx)
        arguments = params.arguments if isinstance(params.arguments, dict) else {}
        try:
            if params.name == "activate_skill":
                return await self.activate_skill(arguments.get("name"))
            if params.name == "read_skill_resource":
                return await self.read_skill_resource(arguments.get("name"), arguments.get("path"))
            raise DefinitionError("skill_selection_unknown", f"no tool {params.name!r}")
        except DefinitionError as error:
            return _tool_error(error)

    # ------------------------------------------------------------ tools

    async def _activation(self, name: object, by: str) -> SkillActivation:
        """``name``'s certified activation ``by`` the model or the user, from the current scan."""
        scan = await self.refresh()
        prepared = scan.require()
        if type(name) is not str or name not in prepared.activatable(by=by):
            raise DefinitionError(
                "skill_selection_unknown", f"name must be one of the skills the {by} may activate"
            )
        activation = await prepared.activate(name, by=by)
        verify_activation(prepared, name, activation)  # certified before it is served
        await self._require_unchanged(scan)
        return activation

    async def activate_skill(self, name: object) -> types.CallToolResult:
        activation = await self._activation(name, "model")
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=activation.text)],
            structured_content={
                "name": activation.name,
                "form": activation.form,
                "truncated": activation.truncated,
                "resources_omitted": activation.resources_omitted,
            },
        )

    async def read_skill_resource(self, name: object, path: object) -> types.CallToolResult:
        scan = await self.refresh()
        prepared = scan.require()
        skill = next((p for p in prepared.skill_paths if p.name == name), None)
        if skill is None or skill.name not in _activatable(prepared):
            raise DefinitionError(
                "skill_selection_unknown", "name must be one of the catalog's skills' names"
            )
        parts = _relative_parts(path)
        files = prepared.files  # fenced: a read through a stale scan is skill_catalog_stale
        target = await _walk(files, skill.directory.path, parts)
        try:
            data = await files.read_bytes(target, MAX_RESOURCE_BYTES + 1)
        except DefinitionError as error:
            code = _ERROR_CODES_OF_READS.get(error.code)
            if code is None:
                raise
            raise DefinitionError(code, error.message) from error
        # Served only if nothing moved meanwhile: the same components, the same checkout.
        await _walk(files, skill.directory.path, parts)
        await self._require_unchanged(scan)
        cut = len(data) > MAX_RESOURCE_BYTES
        text = data[:MAX_RESOURCE_BYTES].decode("utf-8", errors="replace")
        if cut:
            text += f"\n[a13n-skills: cut at {MAX_RESOURCE_BYTES} bytes]\n"
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)],
            structured_content={"name": skill.name, "path": "/".join(parts), "truncated": cut},
        )

    async def _require_unchanged(self, scan: Scan) -> None:
        """``skill_catalog_stale`` when the checkout moved since ``scan`` (and a rescan)."""
        if fingerprint(self.workspace, self.roots) != scan.fingerprint or scan is not self._scan:
            await self.refresh()
            raise DefinitionError(
                "skill_catalog_stale",
                "the checkout changed while the call ran; its result is withheld (list the "
                "tools again)",
            )

    # ------------------------------------------------------------ the server

    def server(self) -> Server[Any]:
        return Server(
            "a13n-skills",
            version=__version__,
            instructions="Skills of this checkout: read the skills://catalog resource (or the "
            "skills_catalog prompt), then activate_skill(name) when a task matches one.",
            on_list_tools=self.list_tools,
            on_call_tool=self.call_tool,
            on_list_resources=self.list_resources,
            on_read_resource=self.read_resource,
            on_list_prompts=self.list_prompts,
            on_get_prompt=self.get_prompt,
            on_subscriptions_listen=ListenHandler(self.bus),
        )


@contextlib.asynccontextmanager
async def _entered(state: SkillsServer) -> AsyncIterator[SkillsServer]:
    async with state.environment:
        yield state


async def serve(
    state: SkillsServer,
    streams: Callable[[], contextlib.AbstractAsyncContextManager[tuple[Any, Any]]] = stdio_server,
) -> None:
    """Serve ``state`` over stdin and stdout until the client closes stdin.

    ``streams`` gives the (read, write) pair to serve on instead: the tests' in-memory
    streams, so that a session needs no interpreter of its own."""
    async with _entered(state):
        first = await state.refresh()
        first.require()  # a workspace that cannot be scanned at all is the command's error
        server = state.server()
        options = server.create_initialization_options(
            NotificationOptions(prompts_changed=True, resources_changed=True, tools_changed=True)
        )
        async with streams() as (read, write), anyio.create_task_group() as tasks:
            tasks.start_soon(state.watch)
            await server.run(read, write, options)
            tasks.cancel_scope.cancel()


def run(state: SkillsServer) -> None:
    """Run :func:`serve` in a fresh event loop (the command's entry); stdout is the protocol's."""
    anyio.run(serve, state)
