"""A reference run loop against a real HTTP model endpoint.

The model is a loopback HTTP server speaking a chat-completions style API (the standard
library's ``http.server``, started by the test, no network). The loop is what a small Host
writes: system message = the prepared block, one ``read_file`` tool reading through
``prepared.files``, every model call through ``prepared.model_call`` and every tool call
through ``prepared.tool_call``. Checked: the first request carries exactly the rendered
block; the tool's ``SKILL.md`` read is observed; retargeting the skill's mount between two
turns fails the next model call with ``skill_catalog_stale`` and nothing reaches the
server; at an 8,192-token window with 1,024 reserved the request carries the pointer and no
entry (the seed's small-model scenario). The negative control removes the fence: the stale
turn then reaches the server.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from a13n_harness import Environment, RunBindings
from a13n_harness.capabilities import PreparedSkills, SkillManager, SkillsCapability
from a13n_harness.context.errors import DefinitionError
from a13n_harness.environment import LocalDirectoryProvider
from a13n_harness.testing.discovery_strategies import skill_document
from bounded import call_bounded

SKILL = "/workspace/.agents/skills/alpha/SKILL.md"
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "description": "Read a file of the workspace.",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "required": ["path"],
            },
        },
    }
]


class ChatServer:
    """A loopback chat-completions endpoint answering from a script; records every request."""

    def __init__(self, replies: list[dict[str, Any]]) -> None:
        self.requests: list[dict[str, Any]] = []
        self._replies = list(replies)
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                server.requests.append({"path": self.path, "body": json.loads(body)})
                message = server._replies.pop(0) if server._replies else {"content": "done"}
                payload = json.dumps(
                    {
                        "id": f"chatcmpl-{len(server.requests)}",
                        "object": "chat.completion",
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", **message},
                                "finish_reason": "tool_calls"
                                if "tool_calls" in message
                                else "stop",
                            }
                        ],
                    }
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), daemon=True
        )

    def __enter__(self) -> ChatServer:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def complete(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        """The client side: one blocking POST (http.client ignores proxy variables), under a
        CPU budget instead of a socket timeout (a busy machine slows the server thread down)."""

        def post() -> dict[str, Any]:
            connection = http.client.HTTPConnection("127.0.0.1", self.port)
            try:
                body = json.dumps({"model": "loopback", "messages": messages, "tools": TOOLS})
                connection.request(
                    "POST", "/v1/chat/completions", body, {"Content-Type": "application/json"}
                )
                response = connection.getresponse()
                assert response.status == 200
                reply: dict[str, Any] = json.loads(response.read())
                return reply
            finally:
                connection.close()

        return call_bounded(post, cpu_seconds=30, what="the chat server's answer")


def _tool_reply(path: str) -> dict[str, Any]:
    call = {"id": "call-1", "type": "function"}
    call["function"] = {"name": "read_file", "arguments": json.dumps({"path": path})}  # type: ignore[assignment]
    return {"content": None, "tool_calls": [call]}


async def reference_loop(
    prepared: PreparedSkills,
    server: ChatServer,
    user: str,
    *,
    between_turns: Callable[[int], None] = lambda turn: None,
    max_turns: int = 4,
) -> str:
    """The loop a Host writes: every model and tool call through the prepared fence."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": prepared.instructions},
        {"role": "user", "content": user},
    ]
    for turn in range(max_turns):
        if turn:
            between_turns(turn)
        reply = await prepared.model_call(asyncio.to_thread, server.complete, messages)
        message = reply["choices"][0]["message"]
        messages.append(message)
        calls = message.get("tool_calls") or []
        if not calls:
            return str(message["content"])
        for call in calls:
            path = json.loads(call["function"]["arguments"])["path"]
            data = await prepared.tool_call(prepared.files.read_bytes, path, 1 << 16)
            messages.append(
                {"role": "tool", "tool_call_id": call["id"], "content": data.decode("utf-8")}
            )
    raise AssertionError("the loop did not finish")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    for name in ("alpha", "beta"):
        path = tmp_path / f".agents/skills/{name}/SKILL.md"
        path.parent.mkdir(parents=True)
        path.write_bytes(skill_document(name, f"Use {name} for <{name}> tasks & more."))
    return tmp_path


def _run(
    workspace: Path,
    replies: list[dict[str, Any]],
    *,
    retarget_before: int | None = None,
    context_tokens: int = 200_000,
    response_reserve_tokens: int = 16_000,
) -> tuple[ChatServer, PreparedSkills, str | BaseException]:
    provider = LocalDirectoryProvider(workspace)

    def between_turns(turn: int) -> None:
        if turn == retarget_before:
            provider.retarget(workspace)  # same directory, new generation: the route moved

    async def run() -> tuple[PreparedSkills, str | BaseException]:
        async with Environment({"workspace": provider}) as environment:
            bindings = RunBindings.embedded(
                environment=environment,
                context_tokens=context_tokens,
                response_reserve_tokens=response_reserve_tokens,
            )
            prepared = await SkillsCapability(SkillManager.default()).prepare(bindings)
            try:
                answer: str | BaseException = await reference_loop(
                    prepared, server, "Review this change.", between_turns=between_turns
                )
            except DefinitionError as error:
                answer = error
            return prepared, answer

    with ChatServer(replies) as server:
        prepared, answer = asyncio.run(run())
    return server, prepared, answer


def test_the_first_request_carries_exactly_the_block_and_the_tool_read_is_observed(
    workspace: Path,
) -> None:
    server, prepared, answer = _run(workspace, [_tool_reply(SKILL), {"content": "reviewed"}])
    assert answer == "reviewed"
    assert len(server.requests) == 2
    first = server.requests[0]
    assert first["path"] == "/v1/chat/completions"
    system = first["body"]["messages"][0]
    assert system == {"role": "system", "content": prepared.instructions}
    assert prepared.instructions == prepared.rendering.text
    assert prepared.rendering.listed == 2
    assert "&lt;alpha&gt; tasks &amp; more." in system["content"]  # encoded on the wire too
    assert prepared.observed_reads == ("alpha",)
    tool_message = server.requests[1]["body"]["messages"][-1]
    assert tool_message["role"] == "tool"
    assert tool_message["content"] == (workspace / ".agents/skills/alpha/SKILL.md").read_text()


def test_a_retarget_between_turns_fails_the_next_model_call_before_it_is_sent(
    workspace: Path,
) -> None:
    server, prepared, answer = _run(
        workspace, [_tool_reply(SKILL), {"content": "reviewed"}], retarget_before=1
    )
    assert isinstance(answer, DefinitionError)
    assert answer.code == "skill_catalog_stale"
    assert len(server.requests) == 1  # nothing dispatched after the route moved
    assert prepared.stale
    assert prepared.observed_reads == ("alpha",)  # the read of turn 0 happened before


def test_negative_control_without_the_fence_the_stale_turn_reaches_the_model(
    workspace: Path, no_fence: Callable[[], None]
) -> None:
    no_fence()
    server, _prepared, answer = _run(
        workspace, [_tool_reply(SKILL), {"content": "reviewed"}], retarget_before=1
    )
    assert answer == "reviewed"
    assert len(server.requests) == 2


@pytest.fixture
def many_skills(tmp_path: Path) -> Path:
    long = "Checks a change against the team's review rules, " * 4
    for index in range(12):
        name = f"skill-{index:02d}"
        path = tmp_path / f".agents/skills/{name}/SKILL.md"
        path.parent.mkdir(parents=True)
        path.write_bytes(skill_document(name, long.strip()))
    return tmp_path


def test_a_small_window_sends_the_pointer_and_no_entry(many_skills: Path) -> None:
    """8,192 tokens with 1,024 reserved: (8192 - 1024) // 20 = 358 bytes, no entry fits."""
    server, prepared, answer = _run(
        many_skills, [{"content": "ok"}], context_tokens=8_192, response_reserve_tokens=1_024
    )
    assert answer == "ok"
    system = server.requests[0]["body"]["messages"][0]["content"]
    assert system == prepared.instructions
    assert prepared.rendering.budget_bytes == 358  # type: ignore[union-attr]
    assert len(system.encode()) <= 358
    assert prepared.rendering.listed == 0
    assert "12 skills available (list /workspace/.agents/skills/ to see all)" in system
    assert "12 more skills not listed." in system
    assert not any(line.startswith("- ") for line in system.splitlines())
    assert "skill-00" not in system
