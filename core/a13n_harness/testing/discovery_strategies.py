"""Hypothesis strategies and test operators for skill discovery.

Importable by Hosts that want to test their own operators or sources against
the same generators:

* :func:`skill_document` builds SKILL.md bytes;
* :func:`skill_trees` draws a root directory (a :class:`MemoryFileOperator`
  tree) mixing valid packages, mismatched names, truncated descriptions, bad
  frontmatter, hidden entries, plain files, FIFOs, links and empty folders;
* :class:`ShuffledCompletionOperator` wraps an operator so that each read
  completes after a drawn number of event-loop turns (so reads complete in a
  drawn order) and records the peak number of reads in flight;
  :class:`ShuffledBatchOperator` does the same through ``read_many``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from hypothesis import strategies as st

from a13n_harness.environment import (
    DirectoryEntry,
    FileOperator,
    FileOperatorError,
    FileStat,
    MemoryFileOperator,
    MemoryNode,
    MemorySpecial,
    MemorySymlink,
)

__all__ = [
    "ShuffledBatchOperator",
    "ShuffledCompletionOperator",
    "package_names",
    "skill_document",
    "skill_trees",
]


def skill_document(name: str, description: str, body: str = "Body.\n") -> bytes:
    """A SKILL.md with the given frontmatter values (written as plain YAML scalars)."""
    return f"---\nname: {name}\ndescription: {description}\n---\n\n{body}".encode()


package_names = st.from_regex(r"[a-z][a-z0-9]{0,6}(-[a-z0-9]{1,4})?", fullmatch=True)
"""Valid skill names, short enough to collide now and then."""

_descriptions = st.text(
    alphabet=st.characters(min_codepoint=0x61, max_codepoint=0x7A), min_size=1, max_size=30
)


@st.composite
def _entry(draw: st.DrawFn, name: str, siblings: Sequence[str]) -> MemoryNode:
    kind = draw(
        st.sampled_from(
            (
                "package",
                "package",
                "package",
                "mismatch",
                "long",
                "invalid",
                "empty",
                "file",
                "special",
                "link",
            )
        )
    )
    if kind == "package":
        return {"SKILL.md": skill_document(name, draw(_descriptions))}
    if kind == "mismatch":
        return {"SKILL.md": skill_document(name + "-x", draw(_descriptions))}
    if kind == "long":
        return {"SKILL.md": skill_document(name, "d" * 1_100)}
    if kind == "invalid":
        return {"SKILL.md": b"---\nname: [unclosed\n---\n"}
    if kind == "empty":
        return {"README.md": b"no skill here\n"}
    if kind == "file":
        return b"just a file\n"
    if kind == "special":
        return MemorySpecial()
    target = draw(st.sampled_from(list(siblings) or [name]))
    return MemorySymlink(target)


@st.composite
def skill_trees(
    draw: st.DrawFn, *, min_entries: int = 0, max_entries: int = 24
) -> dict[str, MemoryNode]:
    """One root directory's contents: ``{name: node}``."""
    names = draw(st.lists(package_names, min_size=min_entries, max_size=max_entries, unique=True))
    tree: dict[str, MemoryNode] = {}
    for name in names:
        tree[name] = draw(_entry(name, [n for n in names if n != name]))
    if draw(st.booleans()):
        tree[".hidden"] = {"SKILL.md": skill_document("hidden", "never read")}
    if draw(st.booleans()):
        tree["SKILL.md"] = skill_document("root-package", "the root itself")
    return tree


class ShuffledCompletionOperator:
    """Delays each read by ``delays[i % len(delays)]`` loop turns and records concurrency."""

    def __init__(self, inner: MemoryFileOperator, delays: Sequence[int]) -> None:
        self.inner = inner
        self.delays = list(delays) or [0]
        self.calls = 0
        self.in_flight = 0
        self.peak = 0

    async def _delayed(self, turns: int) -> None:
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        try:
            for _ in range(turns):
                await asyncio.sleep(0)
        finally:
            self.in_flight -= 1

    def _next_delay(self) -> int:
        delay = self.delays[self.calls % len(self.delays)]
        self.calls += 1
        return delay

    async def list_directory(self, path: str) -> Sequence[DirectoryEntry]:
        entries = await self.inner.list_directory(path)
        return list(reversed(entries))  # never the order a naive scan would like

    async def read_bytes(self, path: str, limit: int) -> bytes:
        turns = self._next_delay()
        await self._delayed(turns)
        return self.inner.read_now(path, limit)

    async def stat(self, path: str) -> FileStat:
        return await self.inner.stat(path)

    async def write_bytes(self, path: str, data: bytes) -> None:
        await self.inner.write_bytes(path, data)

    async def make_directory(self, path: str) -> None:
        await self.inner.make_directory(path)

    async def remove(self, path: str) -> None:
        await self.inner.remove(path)


class ShuffledBatchOperator(ShuffledCompletionOperator):
    """The same, reading chunks through ``read_many`` with ``read_concurrency`` 8."""

    read_concurrency = 8

    async def read_many(
        self, paths: Sequence[str], limit: int
    ) -> Sequence[bytes | FileOperatorError]:
        await self._delayed(self._next_delay())
        results: list[bytes | FileOperatorError] = []
        for path in paths:
            try:
                results.append(self.inner.read_now(path, limit))
            except FileOperatorError as error:
                results.append(error)
        return results


def _operator_check(operator: FileOperator) -> FileOperator:
    return operator


_operator_check(ShuffledCompletionOperator(MemoryFileOperator(), [0]))
