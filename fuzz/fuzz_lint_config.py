"""Any bytes given as lint's configuration are a configuration or one finding at its place.

``parse_config`` (``a13n_harness.cli._lint_config``) takes the bytes of an
``.a13n-skills.toml`` or a ``pyproject.toml`` as a pull request writes them and
either returns a ``LintConfig`` whose every field is of its type and names known
rules, or raises ``ConfigProblem`` (the ``lint_config_invalid`` finding) at a
1-based line and column inside the text with a one-line message; nothing else
escapes, ``RecursionError`` and ``ValueError`` included, and every input ends
in time linear in its length. The TOML guard is
complete: text ``check_toml`` passes is parsed by ``tomllib`` or refused with
``TOMLDecodeError``, never another exception. Every per-path glob of an
accepted configuration matches as ``fnmatch.fnmatchcase`` does (on short
patterns, where ``fnmatch`` itself is quick, but for a reversed range, which is
no member here) and is compiled in time linear in its length.

Bug class: a configuration reader that trusts the checkout. ``tomllib`` is
quadratic on a dotted key of many parts (64,000 parts: 67 s) and recursive on
nesting (600 arrays: ``RecursionError``); ``int()`` refuses 5,000 digits;
``fnmatch`` looks for the ``]`` of each unclosed ``[`` to the end of the pattern
(quadratic); a regular expression that locates a key backtracks on blanks. The
large seeds (``corpus/fuzz_lint_config/generated.json``) end in well under a
second each; libFuzzer's timeout turns a hang into a crash.
"""

from __future__ import annotations

import contextlib
import fnmatch
import tomllib

from _target import contract, instrumented, main

with instrumented(__name__):  # coverage feedback when atheris drives this file
    from a13n_harness.cli._glob import compile_glob
    from a13n_harness.cli._lint_config import ConfigProblem, LintConfig, parse_config
    from a13n_harness.cli._toml_guard import TomlLimit, check_toml
    from a13n_harness.context.lint import PROFILES, RULES

_SEVERITIES = frozenset({"error", "warning", "note"})
# fnmatch is the oracle only where it is itself quick (it is quadratic on long patterns).
_ORACLE_LENGTH = 64
_PATHS = ("skills/a/SKILL.md", "a", "", "[", "skills/[a]/x", "-", "!", "skills/legacy/b/SKILL.md")


def _reversed_range(pattern: str) -> bool:
    """Whether ``pattern`` spells ``x-y`` with ``x`` after ``y``: perhaps a class's reversed
    range, which fnmatch drops by rewriting the set (the matcher's one departure)."""
    return any(
        0 < index < len(pattern) - 1 and pattern[index - 1] > pattern[index + 1]
        for index, char in enumerate(pattern)
        if char == "-"
    )


def _guard_is_complete(data: bytes) -> None:
    """Text the guard passes reaches ``tomllib`` with nothing but its own error."""
    try:
        text = data.decode("utf-8")
        check_toml(text)
    except (UnicodeDecodeError, TomlLimit):
        return
    with contextlib.suppress(tomllib.TOMLDecodeError):
        tomllib.loads(text)


def _check_problem(data: bytes, problem: ConfigProblem) -> None:
    lines = data.count(b"\n") + 1
    assert type(problem.line) is int, problem.line
    assert type(problem.column) is int, problem.column
    assert 1 <= problem.line <= lines + 1, (problem.line, lines)
    assert problem.column >= 1, problem.column
    assert isinstance(problem.message, str), problem.message
    assert problem.message, problem
    assert "\n" not in problem.message, problem.message
    assert "\r" not in problem.message, problem.message


def _check_config(config: LintConfig) -> None:
    assert config.profile is None or config.profile in PROFILES, config.profile
    assert config.select is None or config.select <= RULES.keys(), config.select
    assert config.ignore <= RULES.keys(), config.ignore
    assert "lint_config_invalid" not in config.ignore
    for rule, level in config.severity.items():
        assert rule in RULES, rule
        assert level in _SEVERITIES, level
    for pattern, rules in config.per_path_ignores:
        assert isinstance(pattern, str), pattern
        assert rules <= RULES.keys(), rules
        assert "lint_config_invalid" not in rules
        glob = compile_glob(pattern)
        oracle = len(pattern) <= _ORACLE_LENGTH and not _reversed_range(pattern)
        for path in (*_PATHS, pattern):
            found = glob.matches(path)
            if oracle and len(path) <= _ORACLE_LENGTH:
                try:
                    expected = fnmatch.fnmatchcase(path, pattern)
                except (IndexError, ValueError):  # a few classes fnmatch cannot translate
                    continue
                assert found == expected, (pattern, path, found)
        for rule in rules:
            config.ignores_at(rule, "/" + _PATHS[0])


def _verdict(data: bytes) -> str:
    _guard_is_complete(data)
    verdicts: list[str] = []
    for pyproject in (False, True):
        try:
            config = parse_config(data, "c.toml", "/", pyproject=pyproject)
        except ConfigProblem as problem:
            _check_problem(data, problem)
            verdicts.append("lint_config_invalid")
            continue
        if config is None:
            assert pyproject  # only a pyproject.toml may lack the table
            verdicts.append("no_table")
            continue
        _check_config(config)
        verdicts.append("accepted")
    # The outcome is the .a13n-skills.toml reading's; the pyproject.toml reading is checked.
    return verdicts[0]


check, outcome = contract(_verdict)

if __name__ == "__main__":
    main(__file__, check, outcome)
