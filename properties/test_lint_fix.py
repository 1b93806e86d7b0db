"""``a13n-skills lint --fix`` and ``--fix --diff``: only the safe fixes, atomic and confined.

docs/rules.md ("Fixes"): a name that differs from its folder only in case or separators
takes the folder's name; a field lint suggests a name for is renamed; the characters that
are never text are removed (joiners kept). ``--diff`` writes nothing and exits 1 when there
is a fix; ``--fix`` replaces each file by a rename in its folder (a link is never written
through, a file outside the repository never touched) and reports what is left.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from a13n_harness.cli import _fix
from a13n_harness.cli._fix import apply_fixes, fixed_text
from cli_run import run_here


def _skill(root: Path, folder: str, text: str) -> Path:
    path = root / "skills" / folder / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    return path


def _doc(name: str, body: str = "# Demo\n") -> str:
    return f"---\nname: {name}\ndescription: A demo.\n---\n{body}"


@pytest.mark.parametrize(
    ("name", "folder", "fixed"),
    [
        ("PDF_Tools", "pdf-tools", "pdf-tools"),
        ("'Pdf.Tools'", "pdf-tools", "pdf-tools"),
        ('"pdf tools"', "pdf-tools", "pdf-tools"),
        ("PDF-TOOLS", "pdf-tools", "pdf-tools"),
        # Not only case or separators: left to the author.
        ("pdf-tool", "pdf-tools", None),
        ("pdftools", "pdf-tools", None),
        ("other", "pdf-tools", None),
        # The folder's own name is not a valid name: nothing to take from it.
        ("pdf-tools", "PDF_Tools", None),
        ("pdf-tools # a comment", "Pdf-Tools", None),
    ],
)
def test_a_name_takes_its_folders_only_when_case_or_separators_differ(
    name: str, folder: str, fixed: str | None
) -> None:
    text = _doc(name)
    after, made = fixed_text(text, folder, [("skill_name_mismatch", 2, "")])
    if fixed is None:
        assert (after, made) == (text, 0)
    else:
        assert after == _doc(fixed)
        assert made == 1


def test_a_suggested_field_is_renamed_and_nothing_else() -> None:
    text = "---\nname: a\ndescription: d\nuser_invocable: true\n---\n"
    message = "unknown field 'user_invocable'; did you mean 'user-invocable'?"
    after, made = fixed_text(text, "a", [("skill_field_unknown", 4, message)])
    assert after == text.replace("user_invocable:", "user-invocable:")
    assert made == 1
    # No suggestion in the message: the field is left as it is.
    unchanged = fixed_text(text, "a", [("skill_field_unknown", 4, "put it under metadata")])
    assert unchanged == (text, 0)


def test_invisible_characters_are_removed_and_joiners_kept() -> None:
    text = _doc("a", "Fill\u200b forms\u2060.\n\U0001f469\u200d\U0001f4bb and \u200c.\n")
    after, made = fixed_text(text, "a", [("skill_invisible_characters", 6, "")])
    assert after == _doc("a", "Fill forms.\n\U0001f469\u200d\U0001f4bb and \u200c.\n")
    assert made == 1
    # A leading BOM stays (lint allows one); one after the start goes.
    bom = "\ufeff" + _doc("a", "x\ufeffy\n")
    assert fixed_text(bom, "a", [("skill_invisible_characters", 6, "")])[0] == (
        "\ufeff" + _doc("a", "xy\n")
    )


@given(st.text(st.sampled_from("ab-_ .\r\n:name'\u200b\u200d"), max_size=60), st.integers(1, 6))
def test_fixes_touch_only_the_lines_they_name(text: str, line: int) -> None:
    after, made = fixed_text(text, "a-b", [("skill_name_invalid", line, "")])
    before_lines, after_lines = text.split("\n"), after.split("\n")
    assert len(before_lines) == len(after_lines)
    changed = [
        n for n, (x, y) in enumerate(zip(before_lines, after_lines, strict=True), 1) if x != y
    ]
    assert changed in ([], [line])
    assert made == len(changed)
    if changed:
        assert after_lines[line - 1].rstrip("\r") == "name: a-b"


def test_negative_control_a_looser_name_match_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_fix, "_normal", lambda name: name.lower().replace("-", ""))
    _, made = fixed_text(_doc("pdftools"), "pdf-tools", [("skill_name_mismatch", 2, "")])
    assert made == 1  # the parametrized case ("pdftools", "pdf-tools", None) would fail


# ---------------------------------------------------------------- the command


def test_fix_diff_shows_and_writes_nothing_fix_writes(tmp_path: Path) -> None:
    path = _skill(tmp_path, "pdf-tools", _doc("PDF_Tools", "Use\u200b it.\n"))
    before = path.read_bytes()
    shown = run_here("lint", "--fix", "--diff", "skills/pdf-tools", cwd=tmp_path)
    assert shown.returncode == 1
    diff = shown.stdout.decode()
    assert "-name: PDF_Tools\n+name: pdf-tools\n" in diff
    assert "-Use\\u200b it.\n+Use it.\n" in diff  # shown escaped, never raw
    assert diff.startswith("--- a/skills/pdf-tools/SKILL.md\n+++ b/skills/pdf-tools/SKILL.md\n")
    assert path.read_bytes() == before
    inode = path.stat().st_ino
    path.chmod(0o640)
    done = run_here("lint", "--fix", "skills/pdf-tools", cwd=tmp_path)
    assert done.returncode == 0
    assert path.read_bytes() == _doc("pdf-tools", "Use it.\n").encode()
    assert done.stdout.decode().splitlines()[-1] == "0 errors, 0 warnings in 1 skill, 2 fixes made"
    assert path.stat().st_ino != inode  # replaced by a rename, not rewritten in place
    assert path.stat().st_mode & 0o777 == 0o640
    assert sorted(os.listdir(path.parent)) == ["SKILL.md"]  # no temporary file left
    again = run_here("lint", "--fix", "--diff", "skills/pdf-tools", cwd=tmp_path)
    assert (again.returncode, again.stdout) == (0, b"")


def test_diff_needs_fix(tmp_path: Path) -> None:
    _skill(tmp_path, "a", _doc("a"))
    done = run_here("lint", "--diff", "skills/a", cwd=tmp_path)
    assert done.returncode == 2
    assert b"--fix --diff" in done.stderr


def test_a_linked_skill_file_is_never_written_through(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.md"
    target.write_text(_doc("PDF_Tools"))
    folder = tmp_path / "skills" / "pdf-tools"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").symlink_to(target)
    done = apply_fixes(
        [(str(folder / "SKILL.md"), "skill_name_invalid", 2, "")], str(tmp_path), write=True
    )
    assert done.files == ()
    assert len(done.refused) == 1
    assert "symbolic link" in done.refused[0][1]
    assert target.read_text() == _doc("PDF_Tools")
    assert (folder / "SKILL.md").is_symlink()


def test_a_file_outside_the_repository_is_never_fixed(tmp_path: Path) -> None:
    path = _skill(tmp_path / "other", "pdf-tools", _doc("PDF_Tools"))
    (tmp_path / "repo").mkdir()
    done = apply_fixes(
        [(str(path), "skill_name_invalid", 2, "")], str(tmp_path / "repo"), write=True
    )
    assert done.files == ()
    assert done.refused == ((str(path), "outside the repository"),)
    assert path.read_text() == _doc("PDF_Tools")
    # A folder that leads outside through a link is outside too.
    (tmp_path / "repo" / "skills").symlink_to(tmp_path / "other" / "skills")
    linked = str(tmp_path / "repo" / "skills" / "pdf-tools" / "SKILL.md")
    done = apply_fixes([(linked, "skill_name_invalid", 2, "")], str(tmp_path / "repo"), write=True)
    assert done.files == ()
    assert path.read_text() == _doc("PDF_Tools")


def test_negative_control_without_the_link_check_the_target_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "elsewhere.md"
    target.write_text(_doc("PDF_Tools"))
    folder = tmp_path / "skills" / "pdf-tools"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").symlink_to(target)

    def careless(path: str, top: str) -> bytes:
        return Path(path).read_bytes()

    def through(path: str, data: bytes) -> None:
        Path(path).write_bytes(data)

    monkeypatch.setattr(_fix, "_read", careless)
    monkeypatch.setattr(_fix, "replace_file", through)
    apply_fixes(
        [(str(folder / "SKILL.md"), "skill_name_invalid", 2, "")], str(tmp_path), write=True
    )
    assert target.read_text() == _doc("pdf-tools")  # what the property above rules out
