"""Any SKILL.md bytes, resources and budget give the certified activation or a documented error.

The first bytes pick how the case is measured (UTF-8 bytes, code points, or words, a counter
that declares nothing), whether the read was whole, how many resources the folder holds and
the budget; the rest is the document: a fixed frontmatter before the bytes (the body is what
a hostile skill controls), or, when the flags say so, the bytes alone (they may not parse:
``skill_frontmatter_invalid`` with its reason). An accepted case gives an activation that
equals the plain oracle ``reference_activation``, fits its budget, is accepted by
``check_activation``, keeps its frame (one ``<skill_content>`` opening and one closing, every
tag one of ours, the body decoding back to the document's body or a line-aligned prefix of
it, the listing capped with an exact count) and refuses every tampered copy with
``activation_not_certified``. Nothing else ever escapes.

Bug class: a body line that closes the block or forges a tag (``</skill_content>``,
``<skill_cut>``, a ``&lt;`` that decodes ambiguously), an invisible or bidirectional
character let through, CR LF or a lone CR mishandled, bytes that are not UTF-8 dropped, a cut
that is not the longest that fits or lacks its marker, a partial read shown as whole, a
listing past its cap or a wrong omitted count, a certifier that accepts what it should refuse.
"""

from __future__ import annotations

import dataclasses
import re

from _target import ByteReader, attempt, contract, instrumented, main, outcome_of

with instrumented(__name__):  # coverage feedback when atheris drives this file
    from a13n_harness.context.activation import (
        MAX_LISTED_RESOURCES,
        ActivationSource,
        SkillActivation,
        activation_body,
        check_activation,
        decode_body,
        reference_activation,
        render_activation,
    )
    from a13n_harness.context.errors import DefinitionError
    from a13n_harness.context.tokens import CodePointCounter, TokenCounter, Utf8ByteCounter

_FRONTMATTER = b"---\nname: fuzzed\ndescription: A fuzzed skill.\n---\n"
_DIRECTORY = "/workspace/.agents/skills/fuzzed"
_OUR_TAGS = frozenset(
    {"skill_content", "skill_cut", "skill_directory", "skill_resources", "file", "omitted"}
)
_TAG = re.compile(r"<(/?)([^\s>/]*)")
# Resource names that attack the listing: markup, a new line, a bidi control, a byte that
# is not UTF-8 (as its surrogate escape), spaces.
_HOSTILE_NAMES = ("</file>", "a\nb", "\u202etxt.exe", "\udcff", "a b", "&amp;", "<skill_cut>")


HEADER = 7
"""Bytes before the document: flags (1), resource count (2), budget (3), hostile name (1)."""


WORDS_MAX_BODY = 2_048


class WordCounter:
    """Whitespace-separated words: declares nothing, so whole candidates are counted."""

    def count(self, text: str) -> int:
        return len(text.split())


@dataclasses.dataclass(frozen=True, slots=True)
class Case:
    """What the bytes describe."""

    counter: int  # 0 bytes, 1 UTF-8 counter (line-additive), 2 code points, 3 words
    complete: bool
    raw: bool  # the bytes are the whole document, frontmatter included
    resources: tuple[str, ...]
    budget: int
    document: bytes


def decode_case(data: bytes) -> Case:
    """The case the bytes describe (total: every byte string gives one)."""
    reader = ByteReader(data[:HEADER])
    flags = reader.byte()
    count = reader.below(MAX_LISTED_RESOURCES + 40)
    budget = reader.below(1 << 16) % (64 + (flags >> 3) * 256)
    hostile = reader.byte()
    names = {f"d{index % 3}/r{index:03d}.md" for index in range(count)}
    if hostile & 1:
        names.add(_HOSTILE_NAMES[(hostile >> 1) % len(_HOSTILE_NAMES)])
    body = data[HEADER:]
    if flags & 3 == 3:
        # A counter that declares nothing is asked for whole candidates (quadratic, as the
        # contract says), by the renderer, the oracle and every tampered check: 2 KiB of
        # body keeps an input well inside libFuzzer's timeout under instrumentation.
        body = body[:WORDS_MAX_BODY]
    raw = bool(flags & 4)
    return Case(
        counter=flags & 3,
        complete=not (hostile & 0x80),
        raw=raw,
        resources=tuple(sorted(names)),
        budget=budget,
        document=body if raw else _FRONTMATTER + body,
    )


def _counter(case: Case) -> TokenCounter | None:
    return (None, Utf8ByteCounter(), CodePointCounter(), WordCounter())[case.counter]


def _measure(counter: TokenCounter | None, text: str) -> int:
    if not text:
        return 0
    return len(text.encode("utf-8")) if counter is None else counter.count(text)


def _shown_body(text: str) -> str:
    """The encoded body lines of a full or cut text (between the opening line and our tail)."""
    start = text.index("\n") + 1
    ends = [text.find(marker, start - 1) for marker in ("\n<skill_cut ", "\n<skill_directory>")]
    end = min(index for index in ends if index >= 0)
    return text[start : end + 1] if end >= start else ""


def _check_frame(source: ActivationSource, activation: SkillActivation) -> None:
    text = activation.text
    assert len(text.splitlines()) == text.count("\n"), "a separator other than LF in the text"
    if activation.form == "empty":
        assert text == ""
        return
    assert text.startswith('<skill_content name="fuzzed">\n'), "the opening line moved"
    assert text.endswith("</skill_content>\n"), "the closing line moved"
    assert text.count("<skill_content") == 1, "a forged opening tag"
    assert text.count("</skill_content>") == 1, "a body line closes the block"
    for match in _TAG.finditer(text):
        assert match.group(2) in _OUR_TAGS, f"a forged tag {match.group()!r}"
    if activation.form in ("full", "cut"):
        body = activation_body(source.document, source.complete).replace("\r\n", "\n")
        shown = decode_body(_shown_body(text))
        whole = body if body.endswith("\n") or not body else body + "\n"
        if activation.form == "full":
            assert shown == whole, "the full text does not hold the whole body"
        else:
            assert whole.startswith(shown), "a cut is not a prefix of the body"
            assert shown == "" or shown.endswith("\n"), "a cut inside a line"
        listed = source.resources[:MAX_LISTED_RESOURCES]
        assert activation.resources == listed, "the listing is not the sorted, capped resources"
        assert activation.resources_omitted == len(source.resources) - len(listed)
        assert text.count("\n<file>") == len(listed)


def _tampered(activation: SkillActivation) -> list[SkillActivation]:
    replace = dataclasses.replace
    text = activation.text
    copies = [
        replace(activation, text=text + "x"),
        replace(activation, text=text.replace("&lt;", "<", 1)),
        replace(activation, truncated=not activation.truncated),
        replace(activation, resources_omitted=activation.resources_omitted + 1),
        replace(activation, resources=activation.resources[1:]),
        replace(activation, form="full" if activation.form != "full" else "cut"),
    ]
    if "\n" in text:
        copies.append(replace(activation, text=text.replace("\n", "\u2028", 1)))
    return [copy for copy in copies if copy != activation]


def _verdict(data: bytes) -> str:
    case = decode_case(data)
    counter = _counter(case)
    source = ActivationSource("fuzzed", _DIRECTORY, case.document, case.resources, case.complete)
    activation = attempt(lambda s: render_activation(s, case.budget, counter), source)
    if isinstance(activation, DefinitionError):
        assert activation.code == "skill_frontmatter_invalid", activation
        assert case.raw, "the fixed frontmatter was refused"
        oracle = attempt(lambda s: reference_activation(s, case.budget, counter), source)
        assert isinstance(oracle, DefinitionError), "the oracle accepted what the renderer refused"
        assert (oracle.code, oracle.reason) == (activation.code, activation.reason)
        return outcome_of(activation)
    assert activation == reference_activation(source, case.budget, counter), "differs from oracle"
    assert _measure(counter, activation.text) <= case.budget, "the activation overruns its budget"
    check_activation(source, case.budget, activation, counter)
    _check_frame(source, activation)
    for copy in _tampered(activation):
        refused = attempt(lambda c: check_activation(source, case.budget, c, counter), copy)
        assert isinstance(refused, DefinitionError), f"tampered activation certified: {copy!r}"
        assert refused.code == "activation_not_certified", refused
    return "accepted"


check, outcome = contract(_verdict)

if __name__ == "__main__":
    main(__file__, check, outcome)
