"""Any bytes given as a ``tokenizer.json`` give a counter whose declarations hold, or
``allowance_invalid`` (reason ``tokenizer``).

The bytes are written to a fresh ``tokenizer.json`` and loaded with
``a13n_harness.tokenizers.token_counter(PATH)``. Accepted: the counter counts
deterministically, declares ``prefix_monotone`` never, and what it declares holds on probe
texts drawn from the input (``byte_bounded``: no text gets more tokens than bytes;
``line_additive``: a text ending a line and one starting a line count as their sum). Refused:
``DefinitionError(code="allowance_invalid", reason="tokenizer")``; nothing else escapes.

Bug class: a loader that trusts its file. JSON nesting bombs, integers past ``int()``'s
digit limit, text that is not UTF-8, JSON the ``tokenizers`` package refuses with a bare
``Exception``, a byte-level vocabulary with an empty token or a token of no bytes, BPE
dropout (random counts), a truncation or padding in the file, a declaration taken on
trust: each must end in the documented refusal or a counter whose declarations are true.
Needs the ``hf`` extra (``tokenizers``); without it every input is the refusal naming it.
"""

from __future__ import annotations

import os
import tempfile

from _target import ByteReader, attempt, contract, instrumented, judge, main

with instrumented(__name__):  # coverage feedback when atheris drives this file
    from a13n_harness.context.errors import DefinitionError
    from a13n_harness.tokenizers import HuggingFaceCounter, TiktokenCounter, token_counter

_FOLDER = tempfile.TemporaryDirectory(prefix="fuzz_tokenizer_json-")
_PATH = os.path.join(_FOLDER.name, "tokenizer.json")
# Texts every accepted counter is probed with, besides slices of the input itself.
_PROBES = ("", "a", "a b\n", "x\n\nb", "\u0130\u0958", "<|endoftext|>", "- name: d (f)\n")


def _load(data: bytes) -> TiktokenCounter | HuggingFaceCounter:
    with open(_PATH, "wb") as file:
        file.write(data)
    return token_counter(_PATH)


def _check_refused(_data: bytes, error: DefinitionError) -> None:
    assert (error.code, error.reason) == ("allowance_invalid", "tokenizer"), (error.code, error)


def _texts(data: bytes) -> list[str]:
    reader = ByteReader(data)
    text = data.decode("utf-8", errors="replace")
    start = reader.below(len(text) + 1)
    return [*_PROBES, text[start : start + 200]]


def _check_accepted(data: bytes, counter: object) -> None:
    assert isinstance(counter, HuggingFaceCounter), type(counter)
    assert counter.prefix_monotone is False
    texts = _texts(data)
    for text in texts:
        tokens = counter.count(text)
        assert type(tokens) is int, tokens
        assert tokens >= 0, tokens
        assert counter.count(text) == tokens  # deterministic
        if counter.byte_bounded:
            assert tokens <= len(text.encode("utf-8")), (text, tokens)
    if counter.line_additive:
        for a in texts:
            a = a if a.endswith("\n") else a + "\n"
            for b in ("b", "- x", "1 more", "</skills_instructions>\n"):
                assert counter.count(a + b) == counter.count(a) + counter.count(b), (a, b)


def _verdict(data: bytes) -> str:
    """The contract of ``data`` as a tokenizer.json (declarations true, or the refusal)."""
    return judge(data, attempt(_load, data), _check_accepted, _check_refused)


check, outcome = contract(_verdict)

if __name__ == "__main__":
    main(__file__, check, outcome)
