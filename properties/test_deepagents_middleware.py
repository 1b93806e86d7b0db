"""The same middleware inside deepagents' ``create_deep_agent`` (extra ``deepagents``), offline.

deepagents builds on LangChain's ``create_agent`` and takes extra middleware; its own prompt,
filesystem tools and skills loader stay as they are, and ours adds the certified block and
the fence. Skipped where deepagents is not installed (the ``dev`` extra does not pull its
model providers); run it with ``pip install -e '.[dev,deepagents]'``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("deepagents")

from deepagents import create_deep_agent  # type: ignore[import-not-found, unused-ignore]
from langchain_core.messages import AIMessage

from a13n_harness.context.errors import DefinitionError
from a13n_harness.integrations.langchain import SkillsMiddleware
from langchain_agent import fake_model, system_text
from test_langchain_middleware import _langchain, _Run, run, workspace

__all__ = ["_langchain", "run", "workspace"]  # fixtures, imported for pytest


def _deep_agent(model: Any, run: _Run) -> Any:
    assert run.prepared is not None
    return create_deep_agent(
        model, system_prompt="You review changes.", middleware=[SkillsMiddleware(run.prepared)]
    )


def test_the_block_is_in_the_deep_agent_prompt(run: _Run) -> None:
    model = fake_model(AIMessage(content="done"))
    _deep_agent(model, run).invoke({"messages": [("user", "Review.")]})
    assert run.prepared is not None
    assert run.prepared.instructions in system_text(model.calls[0])


def _route_change(run: _Run) -> tuple[str | None, int]:
    model = fake_model(AIMessage(content="first"), AIMessage(content="second"))
    agent = _deep_agent(model, run)
    agent.invoke({"messages": [("user", "One.")]})
    run.provider.retarget(run.provider.path)
    code = None
    try:
        agent.invoke({"messages": [("user", "Two.")]})
    except DefinitionError as error:
        code = error.code
    return code, len(model.calls)


def test_a_route_change_fails_the_deep_agents_next_model_call(run: _Run) -> None:
    assert _route_change(run) == ("skill_catalog_stale", 1)


def test_negative_control_without_the_fence_the_deep_agent_goes_on(
    run: _Run, no_fence: Callable[[], None]
) -> None:
    no_fence()
    assert _route_change(run) == (None, 2)
