"""LangChain's side of ``properties/test_langchain_middleware.py``: the agent, its fake model and
the middleware, in a module that test imports when its first test runs (not at collection,
where every pytest-xdist worker would import LangChain for a few tests one of them runs)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage
from langchain_core.outputs import ChatResult
from pydantic import ValidationError

from a13n_harness.environment import LocalDirectoryProvider
from a13n_harness.integrations.langchain import (
    SkillsMiddleware,
    skill_activation_tool,
    skill_file_tool,
)

__all__ = [
    "AIMessage",
    "RecordingFakeModel",
    "RetargetAfterTheModel",
    "SkillsMiddleware",
    "ValidationError",
    "create_agent",
    "fake_model",
    "skill_activation_tool",
    "skill_file_tool",
    "system_text",
]


class RecordingFakeModel(GenericFakeChatModel):
    """LangChain's fake chat model, recording the messages of every call; tools accepted."""

    calls: list[list[BaseMessage]] = []  # noqa: RUF012 - replaced per instance below

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> RecordingFakeModel:
        return self

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        self.calls.append(list(messages))
        return super()._generate(messages, *args, **kwargs)


def fake_model(*replies: AIMessage) -> RecordingFakeModel:
    model = RecordingFakeModel(messages=iter(replies))
    object.__setattr__(model, "calls", [])
    return model


def system_text(messages: list[BaseMessage]) -> str:
    assert isinstance(messages[0], SystemMessage)
    return str(messages[0].text)


class RetargetAfterTheModel(AgentMiddleware):
    """Retargets the workspace mount once, after the first model call and before its tools."""

    def __init__(self, provider: LocalDirectoryProvider) -> None:
        super().__init__()
        self.provider = provider
        self.done = False

    def after_model(self, state: Any, runtime: Any) -> None:
        if not self.done:
            self.done = True
            self.provider.retarget(self.provider.path)
