"""``RunBindings``: what one run hands its capabilities (also ``a13n_harness.RunBindings``)."""

from __future__ import annotations

from collections.abc import Set
from dataclasses import dataclass

from a13n_harness.context.errors import DefinitionError
from a13n_harness.context.render import catalog_allowance
from a13n_harness.environment import Environment

__all__ = ["DEFAULT_CONTEXT_TOKENS", "DEFAULT_RESPONSE_RESERVE_TOKENS", "RunBindings"]

DEFAULT_CONTEXT_TOKENS = 200_000  # a current frontier model's context window
DEFAULT_RESPONSE_RESERVE_TOKENS = 16_000  # room kept for the model's answer


@dataclass(frozen=True, slots=True)
class RunBindings:
    """The entered environment, the skill selection and the context budget of one run.

    ``skill_selection``: ``None`` exposes every skill; a set exposes exactly
    those names (empty: none). It is fresh per run, not persisted state. A bare
    string is refused (``skill_selection_unknown``): ``"code-review"`` is not a set.
    """

    environment: Environment
    skill_selection: frozenset[str] | None = None
    context_tokens: int = DEFAULT_CONTEXT_TOKENS
    response_reserve_tokens: int = DEFAULT_RESPONSE_RESERVE_TOKENS

    def __post_init__(self) -> None:
        object.__setattr__(self, "skill_selection", _selection(self.skill_selection))
        catalog_allowance(self.context_tokens, self.response_reserve_tokens)

    @classmethod
    def embedded(
        cls,
        *,
        environment: Environment,
        skill_selection: Set[str] | None = None,
        context_tokens: int = DEFAULT_CONTEXT_TOKENS,
        response_reserve_tokens: int = DEFAULT_RESPONSE_RESERVE_TOKENS,
    ) -> RunBindings:
        """Bindings for a run embedded in a Host that owns ``environment``."""
        return cls(
            environment, _selection(skill_selection), context_tokens, response_reserve_tokens
        )

    @property
    def allowance_bytes(self) -> int:
        """``catalog_allowance(context_tokens, response_reserve_tokens)``."""
        return catalog_allowance(self.context_tokens, self.response_reserve_tokens)


def _selection(selection: object) -> frozenset[str] | None:
    """``None``, or the selection frozen; anything but a set of ``str`` is refused.

    Checked before anything iterates or hashes it: ``frozenset(5)`` and
    ``frozenset([["a"]])`` raise ``TypeError``, and a list or a bare string is
    not a set (``"code-review"`` would select nine one-letter names).
    """
    if selection is None:
        return None
    if not isinstance(selection, Set) or not all(isinstance(name, str) for name in selection):
        raise DefinitionError(
            "skill_selection_unknown",
            f"skill_selection must be None or a set of names, got {type(selection).__name__}",
        )
    return frozenset(selection)
