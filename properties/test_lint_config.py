"""Lint's configuration is a file of the untrusted checkout, read under the checkout's rules.

docs/rules.md ("Configuration") and docs/security.md ("Lint's configuration"): the
configuration is found from each PATH up to its repository's top and never past it; it is
read through the repository's confined operator (a symbolic link leaving it is refused, the
same way whether its target exists or not), only as a regular file (a FIFO, socket or
folder is a ``lint_config_invalid`` finding at once, never a hang, never a silent skip),
bounded, and its TOML is refused before ``tomllib`` where ``tomllib`` is quadratic or
recursive; per-path ignores cost findings plus patterns, and a glob costs its length.

Every test here goes through ``run_lint`` or the console script, the way a pull request's
configuration reaches lint.
"""

from __future__ import annotations

import fnmatch
import gc
import json
import os
import time
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from a13n_harness.cli import _lint_config
from a13n_harness.cli._lint import LintResult, run_lint
from a13n_harness.cli._lint_config import LintConfig
from a13n_harness.cli._output import Progress
from cli_run import run_here

# A skill whose name differs from its folder (skill_name_mismatch) and that has an unknown
# field (skill_field_unknown): two findings a configuration can act on.
DOCUMENT = "---\nname: b\ndescription: d\nversion: 1\n---\n"
CONFIG = ".a13n-skills.toml"


def _workspace(root: Path) -> Path:
    folder = root / "skills" / "a"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(DOCUMENT)
    return root


def _repository(root: Path) -> Path:
    """``root`` made a git work tree as git finds one (no git is run)."""
    (root / ".git" / "objects").mkdir(parents=True)
    (root / ".git" / "refs").mkdir()
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    return root


def _lint(*paths: Path | str, **options: Any) -> LintResult:
    return run_lint([str(p) for p in paths], (), Progress(), **options)


def _rules(result: LintResult) -> list[str]:
    return [finding.rule for finding in result.findings]


def _only_problem(result: LintResult) -> tuple[str, int, int, str]:
    (finding,) = result.findings
    assert finding.rule == "lint_config_invalid", result.findings
    assert finding.severity == "error"
    assert result.skills == 0
    return finding.path, finding.line, finding.column, finding.message


# ------------------------------------------------------------ not a regular file


def _make(path: Path, kind: str) -> None:
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.mkdir()


@pytest.mark.parametrize("kind", ["fifo", "folder"])
@pytest.mark.parametrize("name", [CONFIG, "pyproject.toml"])
def test_a_configuration_that_is_no_regular_file_is_a_finding_at_once(
    tmp_path: Path, name: str, kind: str
) -> None:
    """A FIFO or a folder where the configuration would be is reported, not skipped and
    not opened (a FIFO opened for reading blocks until a writer comes)."""
    workspace = _workspace(tmp_path / "ws")
    _make(workspace / name, kind)
    result = run_here("lint", "--format", "json", workspace, cpu_seconds=30)
    assert result.returncode == 1, result.stdout
    assert b"lint_config_invalid" in result.stdout
    assert str(workspace / name).encode() in result.stdout
    assert b"not a regular file" in result.stdout


@pytest.mark.parametrize("kind", ["fifo", "folder"])
def test_config_flag_naming_no_regular_file_is_a_finding_at_once(tmp_path: Path, kind: str) -> None:
    workspace = _workspace(tmp_path / "ws")
    named = tmp_path / "c.toml"
    _make(named, kind)
    result = run_here("lint", "--format", "json", "--config", named, workspace, cpu_seconds=30)
    assert result.returncode == 1, result.stdout
    (finding,) = json.loads(result.stdout)["findings"]
    assert finding["rule"] == "lint_config_invalid"
    assert (finding["path"], finding["line"], finding["column"]) == (str(named), 1, 1)
    assert "not a regular file" in finding["message"]


def test_a_fifo_below_the_start_of_the_lookup_is_reported_from_every_path(tmp_path: Path) -> None:
    """The walk up meets the FIFO in a folder above PATH: reported there too."""
    repository = _repository(_workspace(tmp_path / "repo"))
    os.mkfifo(repository / CONFIG)
    for path in (repository / "skills", repository / "skills" / "a"):
        where, line, column, message = _only_problem(_lint(path))
        assert os.path.samefile(where, repository / CONFIG)
        assert (line, column) == (1, 1)
        assert "not a regular file" in message


# ------------------------------------------------------------ links leaving the repository


OUTSIDE_VALUE = "value-of-the-outside-file"


@pytest.mark.parametrize("name", [CONFIG, "pyproject.toml"])
@pytest.mark.parametrize("via", ["file", "folder"])
def test_a_link_leaving_the_repository_reads_nothing_and_tells_nothing(
    tmp_path: Path, name: str, via: str
) -> None:
    """The configuration read through a link to a file outside the checkout: refused, and
    the finding is the same whether the outside file exists or not (no existence oracle)."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "real.toml").write_text(
        f'[lint]\nprofile = "{OUTSIDE_VALUE}"\n'
        f'[tool.a13n-skills.lint]\nprofile = "{OUTSIDE_VALUE}"\n'
    )
    answers = []
    for target in ("real.toml", "missing.toml"):
        workspace = _workspace(tmp_path / f"ws-{target}")
        if via == "file":
            (workspace / name).symlink_to(Path("..") / "outside" / target)
        else:  # the file inside a linked folder
            (workspace / "conf").symlink_to(Path("..") / "outside")
            (workspace / name).symlink_to(Path("conf") / target)
        path, line, column, message = _only_problem(_lint(workspace))
        assert OUTSIDE_VALUE not in message
        assert "symbolic link" in message
        assert path == str(workspace / name)
        answers.append((line, column, message))
    assert answers[0] == answers[1]


def test_config_flag_through_a_link_leaving_the_repository_is_refused(tmp_path: Path) -> None:
    """``--config`` spelled inside the repository is read in it: a link out is refused."""
    repository = _repository(_workspace(tmp_path / "repo"))
    (tmp_path / "outside.toml").write_text(f'[lint]\nprofile = "{OUTSIDE_VALUE}"\n')
    (repository / "ci.toml").symlink_to(Path("..") / "outside.toml")
    path, _, _, message = _only_problem(_lint(repository, config_file=str(repository / "ci.toml")))
    assert path == str(repository / "ci.toml")
    assert OUTSIDE_VALUE not in message
    # A link that stays inside the repository is followed.
    (repository / "real.toml").write_text('[lint]\nignore = ["skill_field_unknown"]\n')
    (repository / "inside.toml").symlink_to("real.toml")
    assert _rules(_lint(repository, config_file=str(repository / "inside.toml"))) == [
        "skill_name_mismatch"
    ]


# ------------------------------------------------------------ the walk up


def test_lookup_walks_up_to_the_repository_top_and_never_past_it(tmp_path: Path) -> None:
    """From each PATH (a folder of skills, a skill folder, a SKILL.md) up to the repository's
    top, the nearest configuration wins; one above the top is never read."""
    outer = tmp_path / "outer"
    repository = _repository(_workspace(outer / "repo"))
    (outer / CONFIG).write_text('[lint]\nselect = ["skill_reference_missing"]\n')
    skills = repository / "skills"
    paths = (skills, skills / "a", skills / "a" / "SKILL.md")
    for path in paths:
        assert _rules(_lint(path)) == ["skill_name_mismatch", "skill_field_unknown"], path
    (repository / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.a13n-skills.lint]\nignore = ["skill_field_unknown"]\n'
    )
    for path in paths:
        assert _rules(_lint(path)) == ["skill_name_mismatch"], path
    (skills / CONFIG).write_text('[lint]\nignore = ["skill_name_mismatch"]\n')
    assert _rules(_lint(repository)) == ["skill_name_mismatch"]
    for path in paths:
        assert _rules(_lint(path)) == ["skill_field_unknown"], path
    # A pyproject.toml without the table is passed over on the way up.
    (skills / CONFIG).unlink()
    (skills / "pyproject.toml").write_text('[project]\nname = "other"\n')
    assert _rules(_lint(skills / "a")) == ["skill_name_mismatch"]


def test_each_path_has_its_own_configuration(tmp_path: Path) -> None:
    first = _repository(_workspace(tmp_path / "one"))
    second = _repository(_workspace(tmp_path / "two"))
    (first / CONFIG).write_text('[lint]\nignore = ["skill_name_mismatch"]\n')
    (second / CONFIG).write_text('[lint]\nignore = ["skill_field_unknown"]\n')
    result = _lint(first, second)
    assert [(Path(f.path).parts[-4], f.rule) for f in result.findings] == [
        ("one", "skill_field_unknown"),
        ("two", "skill_name_mismatch"),
    ]
    assert result.skills == 2


# ------------------------------------------------------------ TOML tomllib does badly


def _refuse_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail the test if the text reaches ``tomllib`` (it must be refused before)."""

    def loads(text: str, **_: object) -> dict[str, Any]:
        raise AssertionError(f"tomllib was given {len(text)} characters it handles badly")

    monkeypatch.setattr(tomllib, "loads", loads)


_DOTTED = "a" + ".a" * 63_999 + ".b = 1\n"  # 64,000 parts, 128 KB
_SHAPES: dict[str, tuple[str, int, str]] = {
    # shape: (text after the table header, column of the fault on its line, message)
    "dotted_key_64000_parts": (_DOTTED, 64, "dotted key of more than 32 parts"),
    "arrays_nested_600": ("x = " + "[" * 600 + "]" * 600 + "\n", 37, "nested more than 32"),
    "inline_tables_nested_600": ("x = " + "{a=" * 600 + "1" + "}" * 600 + "\n", 101, "nested"),
    "integer_of_5000_digits": ("x = " + "7" * 5000 + "\n", 5, "more than 128 digits"),
    "header_of_64000_parts": ("[" + "a." * 63_999 + "b]\n", 65, "dotted key"),
}


@pytest.mark.parametrize("shape", sorted(_SHAPES))
@pytest.mark.parametrize(
    ("name", "header"), [(CONFIG, "[lint]\n"), ("pyproject.toml", "[tool.a13n-skills.lint]\n")]
)
def test_toml_that_tomllib_handles_badly_is_a_finding_before_parsing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, header: str, shape: str
) -> None:
    """A 64,000-part dotted key (quadratic in tomllib), 600 nested arrays or inline tables
    (RecursionError) and a 5,000-digit integer (ValueError): a finding at the fault, and
    the text never reaches tomllib."""
    text, column, message = _SHAPES[shape]
    workspace = _workspace(tmp_path / "ws")
    (workspace / name).write_text(header + text)
    _refuse_parsing(monkeypatch)
    path, line, found_column, found = _only_problem(_lint(workspace))
    assert (path, line, found_column) == (str(workspace / name), 2, column)
    assert message in found


@pytest.mark.parametrize("shape", ["arrays_nested_600", "inline_tables_nested_600"])
def test_deep_toml_is_a_finding_on_the_command_line_without_a_traceback(
    tmp_path: Path, shape: str
) -> None:
    workspace = _workspace(tmp_path / "ws")
    (workspace / CONFIG).write_text("[lint]\n" + _SHAPES[shape][0])
    result = run_here("lint", workspace)  # run_cli fails on any traceback
    assert result.returncode == 1
    assert b"lint_config_invalid" in result.stdout


def test_toml_at_the_limits_is_parsed(tmp_path: Path) -> None:
    """The limits are where they say: 32 parts, 32 levels, 128 digits are fine."""
    workspace = _workspace(tmp_path / "ws")
    (workspace / "pyproject.toml").write_text(
        "a" + ".a" * 31 + " = 1\n"
        "b = " + "[" * 32 + "]" * 32 + "\n"
        "c = " + "1" * 128 + "\n"
        'd = "' + "." * 5000 + '"\n'
        "[tool.a13n-skills.lint]\n"
        'ignore = ["skill_field_unknown"]\n'
    )
    assert _rules(_lint(workspace)) == ["skill_name_mismatch"]


# ------------------------------------------------------------ cost of per-path ignores


def _cpu(work: Callable[[], object]) -> float:
    """The least CPU time of five runs of ``work``, each repeated to at least 50 ms.

    The collector is off while it measures: a full collection of a pytest worker's heap late in
    the suite costs tens of milliseconds and landed in one side of a ratio (8.98 for a linear
    matcher, once, in a whole gate run); it is work of the suite, not of the matcher."""
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        best = float("inf")
        for _ in range(5):
            repeats = 0
            start = time.process_time()
            while True:
                work()
                repeats += 1
                spent = time.process_time() - start
                if spent >= 0.05:
                    break
            best = min(best, spent / repeats)
        return best
    finally:
        if enabled:
            gc.enable()


def _growth(make: Callable[[int], Callable[[], object]], size: int) -> float:
    """CPU time at 4x ``size`` over CPU time at ``size`` (linear: about 4; quadratic: 16)."""
    return _cpu(make(4 * size)) / _cpu(make(size))


def _ignores(patterns: int, paths: int) -> Callable[[], list[bool]]:
    def work() -> list[bool]:
        config = LintConfig(
            base="/repo",
            per_path_ignores=tuple(
                (f"skills/s{index}/*", frozenset({"skill_field_unknown"}))
                for index in range(patterns)
            ),
        )
        return [
            config.ignores_at("skill_field_unknown", f"/repo/skills/s{index}/SKILL.md")
            for index in range(paths)
        ]

    return work


def test_per_path_ignores_cost_findings_plus_patterns_not_their_product() -> None:
    """Four times the patterns and four times the findings cost about four times as much
    (the product would cost sixteen)."""
    assert all(_ignores(50, 50)())
    assert _growth(lambda size: _ignores(size, size), 100) < 8


def test_per_path_ignores_match_each_path_once_against_the_patterns_it_can_match(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Counted work: matching is done per distinct path, and only against the patterns whose
    literal prefix and suffix fit it; never each finding against each pattern."""
    calls = [0]
    original = fnmatch.fnmatchcase

    def counted(name: str, pattern: str) -> bool:
        calls[0] += 1
        return original(name, pattern)

    monkeypatch.setattr(fnmatch, "fnmatchcase", counted)
    from a13n_harness.cli import _glob  # noqa: PLC0415 - the matcher lint's configuration uses

    matches = _glob.Glob.matches

    def counted_matches(self: _glob.Glob, text: str) -> bool:
        calls[0] += 1
        return matches(self, text)

    monkeypatch.setattr(_glob.Glob, "matches", counted_matches)
    paths, patterns = 200, 200
    results = _ignores(patterns, paths)()
    assert all(results)
    assert calls[0] <= paths + patterns, calls[0]


# ------------------------------------------------------------ cost of one glob


_FRESH = [0]


def _glob_ignore(pattern: str) -> Callable[[], object]:
    def work() -> object:
        # A pattern never seen before each time: a matcher may cache what it compiled
        # (fnmatch does), and a pull request's pattern is always new.
        _FRESH[0] += 1
        fresh = f"{pattern}{_FRESH[0]:08d}"
        config = LintConfig(
            base="/repo", per_path_ignores=((fresh, frozenset({"skill_field_unknown"})),)
        )
        return config.ignores_at("skill_field_unknown", "/repo/" + "[" * 200 + "/SKILL.md")

    return work


@pytest.mark.parametrize(
    ("unit", "size"),
    [("[", 4000), ("[!", 2000), ("[a", 2000), ("*[", 2000), ("*a", 2000)],
)
def test_a_glob_costs_time_linear_in_its_length(unit: str, size: int) -> None:
    """An unclosed ``[`` (fnmatch looked for its ``]`` from every ``[``: 8,000 characters
    took 2.3 s), and its neighbours: four times the length, about four times the CPU."""
    assert _growth(lambda count: _glob_ignore(unit * count), size) < 8


def test_an_unknown_key_is_located_in_time_linear_in_the_file(tmp_path: Path) -> None:
    """The finding's line is found without a backtracking search (a key of blanks against
    lines of blanks: the regular expression it replaced was quadratic on them)."""

    def make(size: int) -> Callable[[], object]:
        path = tmp_path / f"c{size}.toml"
        blanks = (" " * size + "\n") * 4
        path.write_text("[lint]\n" + blanks + '"' + " " * size + 'x" = 1\n')

        def work() -> object:
            with pytest.raises(_lint_config.ConfigProblem) as problem:
                _lint_config.load_config(str(path))
            assert "unknown key" in problem.value.message
            return problem.value.line

        return work

    assert make(10)() == 6
    assert _growth(make, 4000) < 8


# ------------------------------------------------------- tokenizer: the body's unit


_TALL = "---\nname: a\ndescription: d\n---\n" + "x\n" * 501  # 501 lines, few tokens


def _body_rule(root: Path, capsys: pytest.CaptureFixture[str], *options: str) -> list[str]:
    from a13n_harness.cli import main  # noqa: PLC0415 - the in-process command line

    main(["lint", "--format", "json", *options, str(root)])
    document = json.loads(capsys.readouterr().out)
    return [
        f["message"].split(";")[0]
        for f in document["findings"]
        if f["rule"] in ("skill_body_too_long", "lint_config_invalid")
    ]


@pytest.fixture
def tall(tmp_path: Path) -> Path:
    folder = _repository(tmp_path) / "skills" / "a"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(_TALL)
    return tmp_path


def test_the_configuration_pins_the_bodys_unit_and_the_option_wins(
    tall: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("tiktoken")
    (tall / CONFIG).write_text('[lint]\ntokenizer = "lines"\n')
    assert _body_rule(tall, capsys) == ["the body has 501 lines"]
    (tall / CONFIG).write_text('[lint]\ntokenizer = "cl100k_base"\n')
    assert _body_rule(tall, capsys) == []  # 501 short lines are few tokens
    assert _body_rule(tall, capsys, "--tokenizer", "lines") == ["the body has 501 lines"]


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ('"gpt2"', "tokenizer must be one of lines, cl100k_base, o200k_base, not 'gpt2'"),
        ('"models/tokenizer.json"', "tokenizer must be one of"),  # no path from a checkout
        ("3", "tokenizer must be one of lines, cl100k_base, o200k_base, not int"),
    ],
)
def test_a_tokenizer_the_configuration_cannot_name_is_refused(
    tall: Path, capsys: pytest.CaptureFixture[str], value: str, said: str
) -> None:
    (tall / CONFIG).write_text(f"[lint]\ntokenizer = {value}\n")
    (message,) = _body_rule(tall, capsys)
    assert said in message


def test_a_named_tokenizer_without_its_extra_is_a_configuration_error(
    tall: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.util  # noqa: PLC0415 - patched for this test only

    from a13n_harness.cli._body_size import body_counter  # noqa: PLC0415 - its cache

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *rest: None if name.startswith("tiktoken") else real(name, *rest),
    )
    body_counter.cache_clear()
    try:
        (tall / CONFIG).write_text('[lint]\ntokenizer = "cl100k_base"\n')
        (message,) = _body_rule(tall, capsys)
        assert "tokenizer cl100k_base needs the tokens extra" in message
        (tall / CONFIG).write_text('[lint]\ntokenizer = "lines"\n')
        assert _body_rule(tall, capsys) == ["the body has 501 lines"]
    finally:
        body_counter.cache_clear()
