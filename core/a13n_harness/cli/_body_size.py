"""What ``a13n-skills lint`` measures a SKILL.md body with (``skill_body_too_long``): a
tokenizer's tokens against the specification's 5,000, or 500 lines.

``--tokenizer`` names it, else the configuration's ``tokenizer``, else the default:
``cl100k_base`` when the ``tokens`` extra is installed, lines otherwise. ``lines`` asks for
lines whatever is installed.
"""

from __future__ import annotations

import functools
import importlib.util
from typing import TYPE_CHECKING

from a13n_harness.context.errors import DefinitionError

if TYPE_CHECKING:
    from a13n_harness.context.tokens import TokenCounter

LINES = "lines"
"""The name that asks for lines (no tokenizer)."""
DEFAULT_TOKENIZER = "cl100k_base"


class _OnFirstCount:
    """A named tiktoken vocabulary loaded at its first count (~0.35 s CPU): lint asks only
    about a body of more UTF-8 bytes than ``skill_body_too_long``'s token limit, since both
    named vocabularies count at most one token per byte (``byte_bounded``)."""

    byte_bounded = True

    def __init__(self, name: str) -> None:
        self.name = name
        self._counter: TokenCounter | None = None

    def count(self, text: str) -> int:
        if self._counter is None:
            from a13n_harness.tokenizers import token_counter  # noqa: PLC0415 - an extra

            self._counter = token_counter(self.name)
        return self._counter.count(text)


def installed(name: str) -> bool:
    """Whether the named vocabulary (``cl100k_base``, ``o200k_base``) can be loaded here: its
    package is installed and its data file located, nothing read or imported."""
    from a13n_harness.tokenizers import _data_path  # noqa: PLC0415 - located, not loaded

    try:
        return importlib.util.find_spec("tiktoken") is not None and bool(_data_path(name))
    except (DefinitionError, ImportError, ValueError):
        return False


@functools.cache
def body_counter(name: str | None) -> TokenCounter | None:
    """The counter for ``name`` (``None``: the default; ``lines``: none, count lines), once
    per name and process. An unknown name, or a named tokenizer whose extra is missing, is
    ``DefinitionError(code="allowance_invalid", reason="tokenizer")``."""
    if name == LINES:
        return None
    from a13n_harness.tokenizers import TOKENIZERS, token_counter  # noqa: PLC0415 - as above

    if name is not None and name not in TOKENIZERS:
        return token_counter(name)  # a tokenizer.json loaded now, or an unknown name refused
    chosen = name or DEFAULT_TOKENIZER
    if installed(chosen):
        return _OnFirstCount(chosen)
    return None if name is None else token_counter(name)  # refused: it names the extra
