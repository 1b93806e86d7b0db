"""The certified skill catalog inside a LangChain agent (extra ``a13n-harness-skills[langchain]``).

:class:`SkillsMiddleware` is a LangChain (``langchain>=1``) ``AgentMiddleware`` for
``langchain.agents.create_agent`` and for deepagents, which builds on it. Given the
:class:`~a13n_harness.capabilities.PreparedSkills` of one run it

* puts the certified block (``prepared.instructions``: every value encoded, bounded by the
  run's allowance) in front of the system prompt of every model call;
* fences every model call and every tool call with ``prepared.boundary``: the first
  ``skill_catalog_stale`` is raised out of the agent before the model or the tool is
  called, and a call overlapped by a route change has its result withheld;
* offers :func:`skill_activation_tool`, an ``activate_skill`` tool whose ``name`` is an enum
  of the skills offered to the model (selected, without ``disable-model-invocation``): it
  returns the certified activation (``prepared.activate(name, by="model")``: the body in
  ``<skill_content>``, bounded, encoded, a note the second time), the
  :class:`~a13n_harness.capabilities.SkillActivation` itself as the tool message's artifact;
* with ``tools=True`` also :func:`skill_file_tool`, a ``read_file`` tool reading through
  ``prepared.files``, so the run's reads of selected ``SKILL.md`` files are observed.

The middleware holds one run's prepared skills: build a new one for every run (root, resumed
or child), from ``await SkillsCapability(manager).prepare(bindings)``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, Literal

from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import SystemMessage
from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel, Field, create_model

from a13n_harness.capabilities.skills import PreparedSkills
from a13n_harness.context.activation import SkillActivation
from a13n_harness.context.errors import DefinitionError

__all__ = ["SkillsMiddleware", "skill_activation_tool", "skill_file_tool"]

MAX_TOOL_READ = 1 << 20
"""How many bytes the file tool reads at most (a ``SKILL.md`` is far smaller)."""


def _check_prepared(prepared: object) -> PreparedSkills:
    if not isinstance(prepared, PreparedSkills):
        raise DefinitionError(
            "catalog_invalid",
            "the LangChain integration needs the PreparedSkills of a run",
            reason="prepared",
        )
    return prepared


def with_block(system_prompt: str | None, block: str) -> str:
    """The certified block, then the Host's own system prompt (if any)."""
    if not block:
        return system_prompt or ""
    return block if not system_prompt else f"{block}\n{system_prompt}"


class SkillsMiddleware(AgentMiddleware):
    """Skill instructions in the system prompt, every model and tool call fenced."""

    def __init__(
        self, prepared: PreparedSkills, *, tools: bool = False, activation: bool = True
    ) -> None:
        super().__init__()
        self.prepared = _check_prepared(prepared)
        self.tools = []
        if activation and prepared.activatable(by="model"):
            self.tools.append(skill_activation_tool(prepared))
        if tools:
            self.tools.append(skill_file_tool(prepared))

    @property
    def name(self) -> str:
        return "a13n_harness_skills"

    def _with_block(self, request: Any) -> Any:
        block = self.prepared.instructions
        if not block:
            return request
        prompt = with_block(request.system_prompt, block)
        return request.override(system_message=SystemMessage(content=prompt))

    def wrap_model_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        with self.prepared.boundary("model"):
            return handler(self._with_block(request))

    async def awrap_model_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        with self.prepared.boundary("model"):
            return await handler(self._with_block(request))

    def wrap_tool_call(self, request: Any, handler: Callable[[Any], Any]) -> Any:
        with self.prepared.boundary("tool"):
            return handler(request)

    async def awrap_tool_call(self, request: Any, handler: Callable[[Any], Awaitable[Any]]) -> Any:
        with self.prepared.boundary("tool"):
            return await handler(request)


def skill_file_tool(prepared: PreparedSkills, *, name: str = "read_file") -> BaseTool:
    """A tool reading a workspace file through ``prepared.files`` (fenced, reads observed).

    Paths are Environment paths (``/workspace/...``, ``/environment/{name}/...``), the ones the
    catalog's ``file`` fields name. The text is decoded as UTF-8 with replacement.
    """
    checked = _check_prepared(prepared)

    async def read(path: str) -> str:
        data = await checked.files.read_bytes(path, MAX_TOOL_READ)
        return data.decode("utf-8", errors="replace")

    def read_blocking(path: str) -> str:
        return asyncio.run(read(path))

    return StructuredTool.from_function(
        func=read_blocking,
        coroutine=read,
        name=name,
        description="Read a file of the workspace, e.g. a skill's SKILL.md, by its path.",
    )


def _activation_input(names: tuple[str, ...]) -> type[BaseModel]:
    """The tool's arguments: ``name``, one of ``names`` (a JSON-schema ``enum``)."""
    choice: Any = Literal.__getitem__(names)
    return create_model(
        "ActivateSkillInput",
        name=(choice, Field(description="The skill to activate, as the catalog lists it.")),
    )


def skill_activation_tool(prepared: PreparedSkills, *, name: str = "activate_skill") -> BaseTool:
    """A tool activating a skill for the model: ``name`` is an enum of ``prepared.activatable()``.

    Returns the certified activation's text (the tool message's content) and the
    :class:`~a13n_harness.capabilities.SkillActivation` (its artifact). A run with no skill
    the model may activate has no such tool (``catalog_invalid``, reason ``prepared``).
    """
    checked = _check_prepared(prepared)
    names = checked.activatable(by="model")
    if not names:
        raise DefinitionError(
            "catalog_invalid",
            "no selected skill may be activated by the model: offer no activate_skill tool",
            reason="prepared",
        )

    async def activate(name: str) -> tuple[str, SkillActivation]:
        activation = await checked.activate(name, by="model")
        return activation.text, activation

    def activate_blocking(name: str) -> tuple[str, SkillActivation]:
        return asyncio.run(activate(name))

    return StructuredTool.from_function(
        func=activate_blocking,
        coroutine=activate,
        name=name,
        description=(
            "Load a skill's full instructions, its folder and its list of files, when a task "
            "matches the skill's description in the catalog."
        ),
        args_schema=_activation_input(names),
        response_format="content_and_artifact",
    )
