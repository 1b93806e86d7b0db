"""``.gitignore`` as git applies it: an untracked skill it ignores is left out (counted), a
tracked one never is, and a skill an agent loads is checked all the same.

docs/decisions.md ("The controls authors expect"): the index is read without running git
(the checkout is untrusted); without a readable index nothing is ignored. Git itself is the
oracle here: ``git`` builds the indexes and ``git check-ignore`` answers the pattern cases.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from a13n_harness.cli import _gitignore
from a13n_harness.cli._gitignore import GitIgnore, read_index
from a13n_harness.cli._lint import LintResult, run_lint, summary
from a13n_harness.cli._output import Progress
from bounded import run_bounded

GIT = shutil.which("git")
needs_git = pytest.mark.skipif(GIT is None, reason="git builds the fixtures' indexes")
DOC = "---\nname: {name}\ndescription: A demo.\n---\nSee [x](references/x.md).\n"


def _git(root: Path, *args: str) -> str:
    assert GIT is not None
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(root), "GIT_CONFIG_NOSYSTEM": "1"}
    done = run_bounded(
        [GIT, "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cpu_seconds=60,
        cwd=root,
        env=env,
        capture_output=True,
        check=True,
    )
    return done.stdout.decode()


def _skill(root: Path, where: str) -> Path:
    path = root / where / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(DOC.format(name=path.parent.name))
    return path


def _lint(root: Path) -> LintResult:
    return run_lint([str(root)], (), Progress())


def _checked(result: LintResult) -> set[str]:
    """The skills (SKILL.md files) the run reported on."""
    return {
        os.path.relpath(f.path, result.root or ".")
        for f in result.findings
        if f.path.endswith("SKILL.md")
    }


@needs_git
def test_an_untracked_ignored_skill_is_left_out_and_counted(tmp_path: Path) -> None:
    _git(tmp_path, "init", "-q")
    _skill(tmp_path, "skills/kept")
    ignored = _skill(tmp_path, "skills/scratch")
    (tmp_path / ".gitignore").write_text("# local work\nskills/scratch/\n")
    _git(tmp_path, "add", ".")
    result = _lint(tmp_path)
    assert _checked(result) == {"skills/kept/SKILL.md"}
    assert result.excluded == (str(ignored),)
    assert summary(result).endswith("in 1 skill, 1 skill excluded")


@needs_git
@pytest.mark.parametrize("version", ["2", "3", "4"])
def test_a_tracked_skill_is_never_ignored(tmp_path: Path, version: str) -> None:
    _git(tmp_path, "init", "-q")
    _skill(tmp_path, "skills/kept")
    _skill(tmp_path, "skills/scratch")
    (tmp_path / ".gitignore").write_text("scratch\n")
    _git(tmp_path, "add", "-f", ".")
    _git(tmp_path, "update-index", "--index-version", version)
    result = _lint(tmp_path)
    assert _checked(result) == {"skills/kept/SKILL.md", "skills/scratch/SKILL.md"}
    assert result.excluded == ()
    index = (tmp_path / ".git" / "index").read_bytes()
    listed = frozenset(_git(tmp_path, "ls-files").split())
    assert read_index(index) == listed


@needs_git
def test_negation_re_includes_and_an_ignored_folder_keeps_everything_below(
    tmp_path: Path,
) -> None:
    _git(tmp_path, "init", "-q")
    for name in ("a", "b", "keep"):
        _skill(tmp_path, f"skills/{name}")
    _skill(tmp_path, "skills/nested/c")
    (tmp_path / "skills" / ".gitignore").write_text("/*\n!/keep\n!/nested/c\n")
    _git(tmp_path, "add", "-f", "skills/.gitignore")
    result = _lint(tmp_path)
    # nested/ is ignored, so nested/c cannot be re-included (git's rule).
    assert _checked(result) == {"skills/keep/SKILL.md"}
    assert len(result.excluded) == 3


@needs_git
def test_an_agent_loaded_skill_that_is_ignored_is_checked_and_named(tmp_path: Path) -> None:
    _git(tmp_path, "init", "-q")
    _skill(tmp_path, ".claude/skills/mine")
    (tmp_path / ".gitignore").write_text(".claude/\n")
    _git(tmp_path, "add", ".gitignore")
    result = _lint(tmp_path)
    rules = sorted(f.rule for f in result.findings)
    assert rules == ["skill_excluded", "skill_reference_missing"]
    named = next(f for f in result.findings if f.rule == "skill_excluded")
    assert ".gitignore:1" in named.message
    assert result.excluded == ()


def test_without_a_repository_gitignore_means_nothing(tmp_path: Path) -> None:
    _skill(tmp_path, "skills/scratch")
    (tmp_path / ".gitignore").write_text("*\n")
    result = _lint(tmp_path)
    assert _checked(result) == {"skills/scratch/SKILL.md"}
    assert result.excluded == ()


@needs_git
def test_an_index_that_cannot_be_read_ignores_nothing(tmp_path: Path) -> None:
    _git(tmp_path, "init", "-q")
    _skill(tmp_path, "skills/scratch")
    (tmp_path / ".gitignore").write_text("scratch\n")
    _git(tmp_path, "add", ".gitignore")
    index = tmp_path / ".git" / "index"
    index.write_bytes(index.read_bytes()[:20])  # truncated
    assert _checked(_lint(tmp_path)) == {"skills/scratch/SKILL.md"}


@needs_git
def test_negative_control_an_index_read_as_empty_drops_a_tracked_skill(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _git(tmp_path, "init", "-q")
    _skill(tmp_path, "skills/scratch")
    (tmp_path / ".gitignore").write_text("scratch\n")
    _git(tmp_path, "add", "-f", ".")
    monkeypatch.setattr(_gitignore, "read_index", lambda data: frozenset())
    assert _checked(_lint(tmp_path)) == set()  # the test above rules this out


# Patterns and paths answered by git check-ignore (a folder ends with "/").
CASES = [
    ("*.md", ["a/SKILL.md", "a/b"]),
    ("/a", ["a/SKILL.md", "b/a/SKILL.md"]),
    ("a/", ["a/SKILL.md", "b/a/SKILL.md", "x/a"]),
    ("a/**/SKILL.md", ["a/SKILL.md", "a/b/c/SKILL.md", "b/a/SKILL.md"]),
    ("**/b", ["b/SKILL.md", "a/b/SKILL.md", "a/c/SKILL.md"]),
    ("a/*", ["a/SKILL.md", "a/b/SKILL.md", "c/a/b"]),
    ("[ab]?c", ["abc/SKILL.md", "bxc/SKILL.md", "cbc/SKILL.md"]),
    ("a\n!a/keep", ["a/keep/SKILL.md", "a/drop/SKILL.md"]),
    ("*\n!*/\n!SKILL.md", ["a/SKILL.md", "a/b/other.md"]),
    ("\\#x\n#y", ["#x/SKILL.md", "y/SKILL.md"]),
    ("a \nb\\ ", ["a/SKILL.md", "b /SKILL.md", "b/SKILL.md"]),
]


@needs_git
@pytest.mark.parametrize(("patterns", "paths"), CASES)
def test_patterns_mean_what_git_says(tmp_path: Path, patterns: str, paths: list[str]) -> None:
    _git(tmp_path, "init", "-q")
    (tmp_path / ".gitignore").write_text(patterns + "\n")
    ignore = GitIgnore(
        frozenset(), lambda folder: (patterns + "\n") if folder == () else None, None
    )
    for path in paths:
        done = run_bounded(
            [str(GIT), "check-ignore", "-q", "--no-index", path],
            cpu_seconds=60,
            cwd=tmp_path,
            capture_output=True,
        )
        assert done.returncode in (0, 1), done.stderr
        expected = done.returncode == 0
        # git check-ignore answers for the path itself; lint asks for a file below folders.
        assert (ignore.ignored(path) is not None) == expected, (patterns, path)


@given(st.binary(max_size=300))
def test_any_bytes_as_an_index_are_read_or_refused_never_raised(data: bytes) -> None:
    found = read_index(b"DIRC\0\0\0\x02" + data)
    assert found is None or isinstance(found, frozenset)


def test_a_tracked_path_is_answered_before_any_pattern_is_parsed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A .gitignore of sixty thousand patterns costs a tracked skill one look-up (in a
    clone every file present is tracked, so a hostile .gitignore cannot slow the gate), and
    an untracked one at most PATTERNS_MAX patterns parsed, then nothing more is ignored."""
    patterns = "".join(f"*{n}*[!x]\n" for n in range(60_000))
    parsed: list[int] = []
    real = _gitignore._parse

    def counted(text: str, *args: Any) -> Any:
        found = real(text, *args)
        parsed.append(len(found))
        return found

    monkeypatch.setattr(_gitignore, "_parse", counted)
    ignore = GitIgnore(frozenset({"skills/a/SKILL.md"}), lambda folder: patterns)
    assert ignore.ignored("skills/a/SKILL.md") is None
    assert parsed == []
    assert ignore.ignored("skills/b/SKILL.md") is None  # past the bound: not ignored
    assert sum(parsed) <= _gitignore.PATTERNS_MAX + 1
