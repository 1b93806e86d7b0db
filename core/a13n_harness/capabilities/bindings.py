"""``RunBindings``: what one run hands its capabilities (also ``a13n_harness.RunBindings``)."""

from __future__ import annotations

from collections.abc import Set
from dataclasses import dataclass
from typing import TYPE_CHECKING

from a13n_harness.context._checks import describe, is_count, type_name
from a13n_harness.context.defaults import DEFAULT_CONTEXT_TOKENS, DEFAULT_RESPONSE_RESERVE_TOKENS
from a13n_harness.context.errors import DefinitionError
from a13n_harness.context.render import FITS, catalog_allowance
from a13n_harness.context.tokens import TokenCounter
from a13n_harness.environment import Environment

if TYPE_CHECKING:
    from typing import Any

__all__ = ["DEFAULT_CONTEXT_TOKENS", "DEFAULT_RESPONSE_RESERVE_TOKENS", "RunBindings"]


@dataclass(frozen=True, slots=True)
class RunBindings:
    """The entered environment, the skill selection and the context budget of one run.

    ``skill_selection``: ``None`` exposes every skill; a set exposes exactly
    those names (empty: none). It is fresh per run, not persisted state. A bare
    string is refused (``skill_selection_unknown``): ``"code-review"`` is not a set.

    ``token_counter``: ``None`` spends the allowance as UTF-8 bytes (docs/contract.md §4,
    sound under ``BYTE_BOUNDED``); a :class:`~a13n_harness.context.tokens.TokenCounter`
    (e.g. ``a13n_harness.tokenizers.token_counter("cl100k_base")``) spends it as
    that counter's tokens (contract §9). Anything else is ``allowance_invalid``
    (reason ``counter``).

    ``budget_tokens``: ``None`` takes the allowance from the window
    (``catalog_allowance(context_tokens, response_reserve_tokens)``); a count is
    the budget itself, in ``token_counter``'s tokens, in place of the window's
    allowance (the CLI's ``--budget-tokens``). It needs a ``token_counter``;
    otherwise, or when it is not a non-negative ``int``, ``allowance_invalid``
    (reason ``budget``).

    ``fit``: ``"prefix"`` (the longest-prefix rule, default) or ``"compact"``
    (every skill with shortened descriptions before any is dropped; contract §4);
    anything else is ``allowance_invalid`` (reason ``fit``).
    """

    environment: Environment
    skill_selection: frozenset[str] | None = None
    context_tokens: int = DEFAULT_CONTEXT_TOKENS
    response_reserve_tokens: int = DEFAULT_RESPONSE_RESERVE_TOKENS
    token_counter: TokenCounter | None = None
    budget_tokens: int | None = None
    fit: str = "prefix"

    def __post_init__(self) -> None:
        object.__setattr__(self, "skill_selection", _selection(self.skill_selection))
        catalog_allowance(self.context_tokens, self.response_reserve_tokens)
        _check_counter(self.token_counter)
        _check_budget_tokens(self.budget_tokens, self.token_counter)
        object.__setattr__(self, "fit", _fit(self.fit))

    @classmethod
    def embedded(
        cls,
        *,
        environment: Environment,
        skill_selection: Set[str] | None = None,
        context_tokens: int = DEFAULT_CONTEXT_TOKENS,
        response_reserve_tokens: int = DEFAULT_RESPONSE_RESERVE_TOKENS,
        token_counter: TokenCounter | None = None,
        budget_tokens: int | None = None,
        fit: str = "prefix",
    ) -> RunBindings:
        """Bindings for a run embedded in a Host that owns ``environment``."""
        return cls(
            environment,
            _selection(skill_selection),
            context_tokens,
            response_reserve_tokens,
            token_counter,
            budget_tokens,
            fit,
        )

    @property
    def allowance_bytes(self) -> int:
        """``catalog_allowance(context_tokens, response_reserve_tokens)``."""
        return catalog_allowance(self.context_tokens, self.response_reserve_tokens)

    @property
    def allowance_tokens(self) -> int:
        """The budget in ``token_counter``'s tokens: ``budget_tokens`` when given, else the
        window's allowance."""
        if self.budget_tokens is not None:
            return self.budget_tokens
        return catalog_allowance(self.context_tokens, self.response_reserve_tokens)


def _check_counter(counter: object) -> None:
    # A name is not a counter (str.count exists): a13n_harness.tokenizers.token_counter(name).
    if counter is None:
        return
    named = issubclass(type(counter), (str, bytes, bytearray))
    try:
        count = getattr(counter, "count", None)
    except Exception as error:  # a Host's property or proxy raised
        raise DefinitionError(
            "allowance_invalid",
            f"reading token_counter.count raised {type_name(type(error))}",
            reason="counter",
        ) from error
    if named or not callable(count):
        raise DefinitionError(
            "allowance_invalid",
            f"token_counter must be None or have a count(text) method, got {describe(counter)}",
            reason="counter",
        )


def _check_budget_tokens(budget: object, counter: object) -> None:
    if budget is None:
        return
    if not is_count(budget):
        raise DefinitionError(
            "allowance_invalid",
            f"budget_tokens must be None or a non-negative int, got {describe(budget)}",
            reason="budget",
        )
    if counter is None:
        raise DefinitionError(
            "allowance_invalid",
            "budget_tokens needs a token_counter (a budget in whose tokens?)",
            reason="budget",
        )


def _fit(fit: object) -> str:
    """``fit`` as a plain ``str`` when it is one of ``FITS``, else ``allowance_invalid``."""
    for known in FITS:
        if type(fit) is str and fit == known:
            return known
    raise DefinitionError(
        "allowance_invalid",
        f"fit must be one of {', '.join(FITS)}, got {describe(fit)}",
        reason="fit",
    )


def _selection(selection: object) -> frozenset[str] | None:
    """``None``, or the selection frozen; anything but a set of ``str`` is refused.

    Checked before anything iterates or hashes it: ``frozenset(5)`` and
    ``frozenset([["a"]])`` raise ``TypeError``, and a list or a bare string is
    not a set (``"code-review"`` would select nine one-letter names).
    """
    if selection is None:
        return None
    kind = type(selection)
    refused = DefinitionError(
        "skill_selection_unknown",
        f"skill_selection must be None or a set of names, got {type_name(kind)}",
    )
    # Asked of the type (isinstance would read a Host's __class__); a set or frozenset
    # is read by the base type's iterator, any other Set by its own, once, and
    # whatever that raises is the refusal (a selection whose iteration raised must
    # not escape as the Host's own exception).
    if not issubclass(kind, Set):
        raise refused
    given: Any = selection
    try:
        if issubclass(kind, frozenset):
            names = list(frozenset.__iter__(given))
        elif issubclass(kind, set):
            names = list(set.__iter__(given))
        else:
            names = list(given)
    except Exception as error:
        raise refused from error
    if not all(issubclass(type(name), str) for name in names):
        raise refused
    # Each name as the plain str of its characters: a subclass's __hash__ and __eq__
    # never decide membership, and its __repr__ never runs in a message.
    return frozenset(str.__str__(name) for name in names)
