"""Open models' tokenizers: a Hugging Face ``tokenizer.json`` as a counter (SPEC §10).

Each test trains small ``tokenizer.json`` files offline with the ``tokenizers``
package, one per shape open models ship (Llama 3 and Qwen: a split pattern then
byte-level BPE; GPT-2: byte-level BPE with its own pattern; a byte-level BPE
that adds a prefix space; SentencePiece-style BPE; an NFC normalizer), and
loads them through :func:`a13n_harness.tokenizers.token_counter`. Whatever a
counter declares is then checked by property against the real tokenizer, and
whatever it does not declare is shown to fail (the declarations are found,
never assumed). Hostile paths are refused with a code, read bounded, never
waited on.
"""

from __future__ import annotations

import inspect
import json
import os
import resource
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from a13n_harness import DefinitionError, tokenizers
from a13n_harness.context.catalog import SkillCatalog
from a13n_harness.context.render import framed_candidate, minimal_candidate
from a13n_harness.context.tokens import render_catalog_counted, verify_rendering_counted
from a13n_harness.testing.controls import property_fails
from a13n_harness.testing.counters import (
    check_byte_bounded,
    check_declarations,
    check_line_additive,
)
from a13n_harness.testing.strategies import budgets, skill_catalogs
from a13n_harness.tokenizers import Establishment, HuggingFaceCounter
from bounded import run_bounded
from cli_run import CORE

hf = pytest.importorskip("tokenizers", reason="the hf extra (pip install -e '.[dev]')")

from tokenizers import (  # noqa: E402
    Regex,
    Tokenizer,
    decoders,
    models,
    normalizers,
    pre_tokenizers,
    trainers,
)

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "examples" / "demo-workspace"

# Llama 3's split pattern (cl100k's, without possessive quantifiers).
LLAMA3_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}"
    r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)


def _real_world() -> list[str]:
    """Prose, Markdown and code: the project's docs and README, some stdlib sources."""
    prose = [*sorted((REPO / "docs").glob("*.md")), REPO / "README.md"]
    found = [path.read_text("utf-8") for path in prose if path.is_file()]
    found += [inspect.getsource(module) for module in (json, textwrap, inspect)]
    return [text for text in found if text]


SAMPLES = _real_world()


def _training_texts() -> Iterator[str]:
    """Paragraphs that keep their blank line, so GPT-2's pattern learns a ``\\n\\n`` token."""
    for text in SAMPLES:
        for paragraph in text.split("\n\n"):
            yield paragraph + "\n\n"


def _train(shape: str) -> Tokenizer:
    """A small tokenizer of ``shape``, trained offline on this repository's text."""
    byte_level = shape != "sentencepiece"
    model = models.BPE(byte_fallback=not byte_level, unk_token=None if byte_level else "<unk>")
    tokenizer = Tokenizer(model)
    if shape in ("llama3", "nfc"):
        tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
            [
                pre_tokenizers.Split(Regex(LLAMA3_PATTERN), behavior="isolated"),
                pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
            ]
        )
    elif shape == "gpt2":
        tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    elif shape == "prefix-space":
        tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=True)
    else:
        tokenizer.pre_tokenizer = pre_tokenizers.Metaspace()
    if shape == "nfc":
        tokenizer.normalizer = normalizers.NFC()
    tokenizer.decoder = decoders.ByteLevel() if byte_level else decoders.Metaspace()
    trainer = trainers.BpeTrainer(
        vocab_size=1_500,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet() if byte_level else [],
        special_tokens=["<|endoftext|>"] if byte_level else ["<unk>", "<|endoftext|>"],
        show_progress=False,
    )
    tokenizer.train_from_iterator(_training_texts(), trainer)
    return tokenizer


SHAPES = ("llama3", "gpt2", "prefix-space", "sentencepiece", "nfc")

# What each shape is found to be: (byte_bounded, line_additive).
EXPECTED = {
    "llama3": (True, True),  # the split pattern ends a piece after a line feed
    "gpt2": (True, False),  # \s+(?!\S) keeps "\n\n" whole at a text's end, splits it before "b"
    "prefix-space": (False, False),  # the added space is a byte the text does not have
    "sentencepiece": (False, False),  # the "▁" prepended to a text, three bytes
    "nfc": (False, True),  # NFC writes U+0958 (3 bytes) as two characters (6 bytes)
}


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each shape's ``tokenizer.json``, written to a folder of its own."""
    base = tmp_path_factory.mktemp("tokenizers")
    paths = {}
    for shape in SHAPES:
        folder = base / shape
        folder.mkdir()
        paths[shape] = folder / "tokenizer.json"
        _train(shape).save(str(paths[shape]))
    return paths


@pytest.fixture(scope="module", params=SHAPES)
def shape(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    return name


def _counter(trained: dict[str, Path], shape: str) -> HuggingFaceCounter:
    counter = tokenizers.token_counter(trained[shape])
    assert isinstance(counter, HuggingFaceCounter)
    return counter


def _reference(path: Path) -> Callable[[str], int]:
    """An independent count: the library's own tokenizer, special tokens read as text."""
    tokenizer = Tokenizer.from_file(str(path))
    tokenizer.encode_special_tokens = True
    return lambda text: len(tokenizer.encode(text, add_special_tokens=False).ids)


# ------------------------------------------------------------ declarations, found


def test_the_byte_level_alphabet_is_the_librarys() -> None:
    assert tokenizers.byte_level_alphabet() == frozenset(pre_tokenizers.ByteLevel.alphabet())
    assert len(tokenizers.byte_level_alphabet()) == 256


def test_each_shape_is_found_to_be_what_it_is(trained: dict[str, Path], shape: str) -> None:
    counter = _counter(trained, shape)
    assert (counter.byte_bounded, counter.line_additive) == EXPECTED[shape], counter.establishment
    assert counter.prefix_monotone is False
    assert counter.byte_bounded is (counter.establishment.byte_bound is None)
    assert counter.line_additive is (counter.establishment.line_joint is None)


def test_what_a_counter_declares_holds_by_property(trained: dict[str, Path], shape: str) -> None:
    """Every declaration, checked against the real tokenizer over hostile and real text."""
    check_declarations(_counter(trained, shape), SAMPLES)


def test_what_a_counter_does_not_declare_fails_by_property(
    trained: dict[str, Path], shape: str
) -> None:
    """Not declared because it does not hold: the property fails against the tokenizer.

    NFC's byte-bound failure needs a character NFC expands, shown by example.
    """
    counter = _counter(trained, shape)
    if not counter.line_additive:
        property_fails(lambda: check_line_additive(counter, SAMPLES, control=True))
    if shape == "nfc":
        assert counter.count("\u0958") > len("\u0958".encode())
    elif not counter.byte_bounded:
        property_fails(lambda: check_byte_bounded(counter, SAMPLES, control=True))


def test_negative_control_a_loader_that_assumes_the_declarations_is_caught(
    monkeypatch: pytest.MonkeyPatch, trained: dict[str, Path]
) -> None:
    """Broken: every declaration assumed. The property catches the counter it loads."""
    monkeypatch.setattr(tokenizers, "_establish", lambda *args, **kwargs: Establishment(None, None))
    monkeypatch.setattr(tokenizers, "_hf_loaded", {})
    for shape in ("gpt2", "prefix-space"):
        assumed = _counter(trained, shape)
        assert assumed.line_additive
        assert assumed.byte_bounded
        property_fails(lambda: check_declarations(assumed, SAMPLES))  # noqa: B023


def test_negative_control_a_probe_without_blank_lines_misjudges_gpt2(
    monkeypatch: pytest.MonkeyPatch, trained: dict[str, Path]
) -> None:
    """Broken: the line joint probe without its blank-line ends. GPT-2's shape then passes the
    probe, is declared line-additive, and the property against the tokenizer catches it."""
    ends = tuple(end for end in tokenizers._LINE_ENDS if "\n\n" not in end and end != "x\n \n")
    monkeypatch.setattr(tokenizers, "_LINE_ENDS", ends)
    monkeypatch.setattr(tokenizers, "_hf_loaded", {})
    counter = _counter(trained, "gpt2")
    assert counter.line_additive
    property_fails(lambda: check_line_additive(counter, SAMPLES, control=True))


def test_gpt2s_pattern_does_not_join_a_blank_line(trained: dict[str, Path]) -> None:
    """Why GPT-2's shape is not line-additive: ``\\n\\n`` is one token at a text's end only."""
    count = _counter(trained, "gpt2").count
    assert count("x\n\nb") > count("x\n\n") + count("b")


@pytest.mark.parametrize("shape", ["llama3", "gpt2"])
def test_counted_rendering_is_the_plain_rule(trained: dict[str, Path], shape: str) -> None:
    """Rendering by line sums (llama3) or whole candidates (gpt2) is the rule as it reads."""
    counter = _counter(trained, shape)

    @given(skill_catalogs(max_entries=8), budgets(max_budget=1_500))
    def check(catalog: SkillCatalog, budget: int) -> None:
        rendered = render_catalog_counted(catalog, budget, counter)
        expected = ""
        if catalog.total:
            candidates = [framed_candidate(catalog, k) for k in range(len(catalog.entries), -1, -1)]
            candidates.append(minimal_candidate(catalog))
            expected = next((t for t in candidates if counter.count(t) <= budget), "")
        assert rendered.text == expected
        assert rendered.tokens == (counter.count(expected) if expected else 0)
        verify_rendering_counted(catalog, budget, rendered, counter)

    check()


def test_counts_equal_the_librarys_own(trained: dict[str, Path], shape: str) -> None:
    counter = _counter(trained, shape)
    reference = _reference(trained[shape])

    @given(st.text(max_size=200) | st.sampled_from(SAMPLES).map(lambda text: text[:2_000]))
    def check(text: str) -> None:
        assert counter.count(text) == reference(text)

    check()


# ------------------------------------------------------------ the file's settings


def _edited(trained: dict[str, Path], tmp_path: Path, edit: Callable[[dict], None]) -> Path:  # type: ignore[type-arg]
    document = json.loads(trained["llama3"].read_text("utf-8"))
    edit(document)
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(document), "utf-8")
    return path


def _refused(path: object) -> DefinitionError:
    with pytest.raises(DefinitionError) as caught:
        tokenizers.token_counter(path)  # type: ignore[call-overload]
    assert (caught.value.code, caught.value.reason) == ("allowance_invalid", "tokenizer")
    return caught.value


def test_truncation_padding_and_added_special_tokens_do_not_change_a_count(
    trained: dict[str, Path], tmp_path: Path
) -> None:
    """A file asking to truncate at 4, pad to 64 and add a start token counts the text alone."""

    def edit(document: dict) -> None:  # type: ignore[type-arg]
        document["truncation"] = {
            "direction": "Right",
            "max_length": 4,
            "strategy": "LongestFirst",
            "stride": 0,
        }
        document["padding"] = {
            "strategy": {"Fixed": 64},
            "direction": "Right",
            "pad_to_multiple_of": None,
            "pad_id": 0,
            "pad_type_id": 0,
            "pad_token": "<|endoftext|>",
        }
        document["post_processor"] = {
            "type": "TemplateProcessing",
            "single": [
                {"SpecialToken": {"id": "<|endoftext|>", "type_id": 0}},
                {"Sequence": {"id": "A", "type_id": 0}},
            ],
            "pair": [{"Sequence": {"id": "A", "type_id": 0}}],
            "special_tokens": {
                "<|endoftext|>": {"id": "<|endoftext|>", "ids": [0], "tokens": ["<|endoftext|>"]}
            },
        }

    counter = tokenizers.token_counter(_edited(trained, tmp_path, edit))
    plain = _counter(trained, "llama3")
    text = "a sentence that is longer than four tokens, surely\n"
    assert counter.count(text) == plain.count(text) > 4
    assert counter.count("") == 0


def test_special_token_text_is_counted_as_the_text_it_is(trained: dict[str, Path]) -> None:
    counter = _counter(trained, "llama3")
    assert counter.count("<|endoftext|>") > 1
    assert counter.count("a <|endoftext|> b") > counter.count("a  b")


def test_bpe_dropout_is_refused(trained: dict[str, Path], tmp_path: Path) -> None:
    """Dropout makes counts random: a budget needs one count per text."""

    def edit(document: dict) -> None:  # type: ignore[type-arg]
        document["model"]["dropout"] = 0.5

    assert "dropout" in _refused(_edited(trained, tmp_path, edit)).message


@pytest.mark.parametrize("bad", ["empty", "not-bytes"])
def test_a_byte_level_vocabulary_with_a_token_of_no_byte_is_refused(
    trained: dict[str, Path], tmp_path: Path, bad: str
) -> None:
    """The byte bound rests on every token being at least one byte: checked on the vocabulary."""

    def edit(document: dict) -> None:  # type: ignore[type-arg]
        vocabulary = document["model"]["vocab"]
        vocabulary["" if bad == "empty" else "\u65e5"] = max(vocabulary.values()) + 1
        for added in document["added_tokens"]:
            added["id"] = max(vocabulary.values()) + 1 + added["id"]
            vocabulary.pop(added["content"], None)

    error = _refused(_edited(trained, tmp_path, edit))
    assert (
        "empty token" in error.message
        if bad == "empty"
        else "not a string of bytes" in error.message
    )


def test_a_vocabulary_check_does_not_refuse_a_shape_the_proof_does_not_cover(
    trained: dict[str, Path],
) -> None:
    """SentencePiece's "▁" is no byte-level character: the check is the byte-level proof's."""
    assert not _counter(trained, "sentencepiece").byte_bounded


# ------------------------------------------------------------ names and paths


def test_names_and_paths(trained: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    path = trained["llama3"]
    assert tokenizers.token_counter(path).name == str(path)
    assert tokenizers.token_counter(str(path)).count("a b\n") == _reference(path)("a b\n")
    monkeypatch.chdir(path.parent)
    assert isinstance(tokenizers.token_counter("tokenizer.json"), HuggingFaceCounter)
    for name in ("gpt2", "tokenizer", "llama3"):
        error = _refused(name)
        assert "unknown tokenizer" in error.message
        assert "cl100k_base, o200k_base" in error.message


def test_a_missing_extra_says_what_to_install(
    trained: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "tokenizers", None)
    monkeypatch.setattr(tokenizers, "_hf_loaded", {})
    assert "[hf]" in _refused(trained["llama3"]).message


@pytest.mark.parametrize(
    "contents",
    [b"", b"\xff\xfe", b"[" * 100_000, b"1" * 5_000, b"[]", b'{"model": 1}', b'{"a": 1}'],
    ids=["empty", "not-utf-8", "deep", "huge-int", "list", "bad-model", "not-a-tokenizer"],
)
def test_a_file_that_is_no_tokenizer_is_refused(tmp_path: Path, contents: bytes) -> None:
    path = tmp_path / "tokenizer.json"
    path.write_bytes(contents)
    _refused(path)


HOSTILE_LOAD = textwrap.dedent(
    """
    import json, sys
    from a13n_harness import DefinitionError, tokenizers
    try:
        counter = tokenizers.token_counter(sys.argv[1])
    except DefinitionError as error:
        print(json.dumps([error.code, error.reason, error.message]))
    else:
        print(json.dumps(counter.count("hello world")))
    """
)


def _load_isolated(path: Path) -> object:
    """Load in a child with a 1 GiB address space and a CPU budget: a broken loader can neither
    hang the suite nor eat the machine."""

    def limited() -> None:  # pragma: no cover - runs in the child
        limit = 1024**3
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    result = run_bounded(
        [sys.executable, "-c", HOSTILE_LOAD, str(path)],
        cpu_seconds=60,
        what=f"loading {path}",
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(CORE)},
        preexec_fn=limited,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.parametrize(
    "kind",
    [
        "fifo",
        "link-outside",
        "link-to-dev-zero",
        "oversize",
        "folder",
        "missing",
        "link-loop",
        "link-to-a-fifo-inside",
    ],
)
def test_a_hostile_path_is_a_coded_error_never_a_hang(
    trained: dict[str, Path], tmp_path: Path, kind: str
) -> None:
    folder = tmp_path / "model"
    folder.mkdir()
    path = folder / "tokenizer.json"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "link-outside":
        path.symlink_to(trained["llama3"])  # a real tokenizer, but outside the link's folder
    elif kind == "link-to-dev-zero":
        path.symlink_to("/dev/zero")
    elif kind == "oversize":
        with path.open("wb") as file:  # sparse: 1 byte past the bound costs no disk
            file.truncate(tokenizers.MAX_TOKENIZER_JSON_BYTES + 1)
    elif kind == "folder":
        path.mkdir()
    elif kind == "link-loop":
        path.symlink_to(path)
    elif kind == "link-to-a-fifo-inside":
        os.mkfifo(folder / "fifo")
        path.symlink_to("fifo")
    outcome = _load_isolated(path)
    assert isinstance(outcome, list), outcome
    code, reason, message = outcome
    assert (code, reason) == ("allowance_invalid", "tokenizer"), message


def test_a_link_inside_its_folder_is_followed(trained: dict[str, Path], tmp_path: Path) -> None:
    folder = tmp_path / "model"
    (folder / "v2").mkdir(parents=True)
    (folder / "v2" / "tokenizer.json").write_bytes(trained["llama3"].read_bytes())
    (folder / "tokenizer.json").symlink_to("v2/tokenizer.json")
    assert _load_isolated(folder / "tokenizer.json") == _reference(trained["llama3"])("hello world")


def test_counting_what_is_not_text_is_a_coded_error(trained: dict[str, Path]) -> None:
    counter = _counter(trained, "llama3")
    for text, reason in ((5, "text"), (None, "text"), (b"x", "text"), ("a\ud800", "text")):
        with pytest.raises(DefinitionError) as caught:
            counter.count(text)  # type: ignore[arg-type]
        assert (caught.value.code, caught.value.reason) == ("allowance_invalid", reason)


# ------------------------------------------------------------ the command line


def _cli(*args: str | os.PathLike[str]) -> subprocess.CompletedProcess[str]:
    result = run_bounded(
        [sys.executable, "-m", "a13n_harness.cli", *map(str, args)],
        env={**os.environ, "PYTHONPATH": str(CORE)},
        capture_output=True,
        text=True,
        cpu_seconds=120,
    )
    assert "Traceback" not in result.stderr, result.stderr
    return result


@pytest.mark.parametrize("shape", ["llama3", "gpt2"])
def test_cli_counts_in_the_tokenizer_json(trained: dict[str, Path], shape: str) -> None:
    """``catalog --tokenizer PATH``: the summary's count is the library's count of stdout."""
    path = trained[shape]
    result = _cli(
        "catalog", DEMO, "--tokenizer", path, "--context-tokens", "8192", "--reserve-tokens", "1024"
    )
    assert result.returncode == 0, result.stderr
    summary = result.stderr.splitlines()[-1]
    assert f" tokens={_reference(path)(result.stdout)} budget=358 ({path})" in summary
    refused = _cli("catalog", DEMO, "--tokenizer", path.parent)
    assert refused.returncode == 1
    assert refused.stderr.startswith("a13n-skills: allowance_invalid: ")
