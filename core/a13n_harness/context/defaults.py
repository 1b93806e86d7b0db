"""The defaults the library and the command line share, each written once, with its reason.

A leaf module (it imports nothing), so the command line, the run bindings, the facts
collector and the manifest codec import their numbers from here instead of restating them.
"""

__all__ = [
    "DEFAULT_CONTEXT_TOKENS",
    "DEFAULT_RESPONSE_RESERVE_TOKENS",
    "GIT_TIMEOUT_SECONDS",
    "MAX_MANIFEST_BYTES",
]

DEFAULT_CONTEXT_TOKENS = 200_000
"""A current frontier model's context window; the budget when no budget option is given."""

DEFAULT_RESPONSE_RESERVE_TOKENS = 16_000
"""Room kept for the model's answer (the 200K/16K example of docs/contract.md §7)."""

GIT_TIMEOUT_SECONDS = 5.0
"""How long ``git status`` may run. Git answers in milliseconds on a healthy checkout; a
network file system, a huge untracked tree or a credential prompt can hang it, and the facts
must not hold a turn hostage (Codex uses a few seconds too)."""

MAX_MANIFEST_BYTES = 1_048_576
"""1 MiB: 512 full entries take about 0.7 MiB; more is not a catalog."""
