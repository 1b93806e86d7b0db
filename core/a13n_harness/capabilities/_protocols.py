"""The skill source and materializer protocols (docs/contract.md §7), exported by
``capabilities.sources``.

Kept apart from the values of ``sources`` so that a scan, which needs only
those, does not import ``typing`` (defining a protocol does).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from a13n_harness.environment import FileOperator

__all__ = ["SkillMaterializer", "SkillSource"]


class SkillSource(Protocol):
    """The whole source surface: an id, its roots, and how they are read."""

    @property
    def source_id(self) -> str: ...

    @property
    def roots(self) -> tuple[str, ...]: ...

    @property
    def required(self) -> bool: ...

    @property
    def max_entries_per_root(self) -> int: ...


class SkillMaterializer(Protocol):
    """Trusted Host code that publishes managed packages beneath ``target_root`` before a scan."""

    @property
    def materializer_id(self) -> str: ...

    @property
    def target_root(self) -> str: ...

    async def materialize(self, *, files: FileOperator) -> None: ...
