"""``a13n-skills lint --fix`` (and ``--fix --diff``): the safe fixes of a lint run.

A fix is made only where the author's intent is not in doubt, from a finding of the run:

- ``skill_name_mismatch`` / ``skill_name_invalid``: the ``name`` line takes its folder's
  name when the two differ only in case or separators (``PDF_Tools`` in ``pdf-tools/``), and
  the folder's name is itself a valid name;
- ``skill_field_unknown`` whose message suggests a field (``did you mean 'user-invocable'``):
  that top-level key is renamed, when the line starts with it;
- ``skill_invisible_characters``: the characters that are never text are removed (zero-width
  space, word joiner, a BOM after the start, the invisible operators and the variation
  selectors U+E0100..U+E01EF that can carry a byte each). Joiners (U+200C, U+200D) are left:
  they shape emoji and scripts.

:func:`fixed_text` is pure. :func:`apply_fixes` reads each file again (a regular file, never
through a link, inside the run's repository), and either writes it atomically (a temporary
file beside it, then a rename in the same folder; a link there is replaced, never followed)
or, with ``--diff``, returns a unified diff and writes nothing. Each line of the diff goes
through :func:`~a13n_harness.cli._output.safe_line` (no raw control character reaches the
terminal or a CI log), so it shows, not patches, an invisible character's removal.
"""

from __future__ import annotations

import difflib
import errno
import os
import re
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from a13n_harness.cli._files import read_regular_file, replace_file
from a13n_harness.cli._output import safe_line

__all__ = ["FixResult", "apply_fixes", "fixed_text"]

_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_NAME_MAX = 64  # the specification's name length limit
_SEPARATORS = str.maketrans({"_": "-", " ": "-", ".": "-"})
# "did you mean 'user-invocable'" (or with backticks or double quotes) in a finding's message.
_SUGGESTION = re.compile(r"did you mean [`'\"]([A-Za-z0-9][A-Za-z0-9_-]{0,63})[`'\"]")
_KEY = re.compile(r"([A-Za-z0-9_-]{1,64})[ \t]*:")
# Never text: removed. Zero-width space, word joiner, invisible times/separator/plus and the
# function application, BOM (after the start), variation selectors 17-256.
_INVISIBLE = dict.fromkeys(
    [0x200B, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0xFEFF, *range(0xE0100, 0xE01F0)]
)
# A SKILL.md is at most this big (lint's own bound): larger is not fixed, not read whole.
_READ_MAX = 1 << 20


@dataclass(frozen=True, slots=True)
class FixResult:
    """What ``--fix`` did: the files changed (or that would change), the fixes, the diff
    (``--diff``), and the files it would not touch with why."""

    files: tuple[str, ...] = ()
    fixes: int = 0
    diff: str = ""
    refused: tuple[tuple[str, str], ...] = ()


def _normal(name: str) -> str:
    return name.lower().translate(_SEPARATORS)


def _value(text: str) -> str:
    """A one-line YAML scalar as written, without its quotes."""
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


def _name_fix(line: str, folder: str) -> str | None:
    if not line.startswith("name:") or "#" in line:
        return None
    value = _value(line[len("name:") :])
    if value == folder or _normal(value) != _normal(folder):
        return None
    if len(folder) > _NAME_MAX or not _NAME.fullmatch(folder):
        return None
    return f"name: {folder}"


def _field_fix(line: str, message: str, keys: frozenset[str]) -> str | None:
    """The line with its key renamed as suggested, unless the frontmatter's top-level
    ``keys`` already hold the suggested one (a rename would make a duplicate key)."""
    suggestion = _SUGGESTION.search(message)
    key = _KEY.match(line)
    if suggestion is None or key is None or key.group(1) == suggestion.group(1):
        return None
    if suggestion.group(1) in keys:
        return None
    return suggestion.group(1) + line[len(key.group(1)) :]


def _top_level_keys(lines: list[str]) -> frozenset[str]:
    """The keys written at the margin between the frontmatter's fences (line 1's ``---``
    and the next ``---`` line)."""
    keys = []
    for line in lines[1:]:
        if line.rstrip("\r") == "---":
            break
        key = _KEY.match(line)
        if key is not None:
            keys.append(key.group(1))
    return frozenset(keys)


def fixed_text(text: str, folder: str, findings: Iterable[tuple[str, int, str]]) -> tuple[str, int]:
    """``text`` (a SKILL.md) with the safe fixes of ``findings`` (rule, 1-based line,
    message) made, and how many were made. ``folder`` is the skill folder's name. Pure."""
    lines = text.split("\n")
    made = 0
    invisible = False
    keys = _top_level_keys(lines)
    for rule, number, message in findings:
        if rule == "skill_invisible_characters":
            invisible = True
            continue
        if not 0 < number <= len(lines):
            continue
        line = lines[number - 1]
        ending = "\r" if line.endswith("\r") else ""
        bare = line[: len(line) - len(ending)]
        if rule in ("skill_name_mismatch", "skill_name_invalid"):
            changed = _name_fix(bare, folder)
        elif rule == "skill_field_unknown":
            changed = _field_fix(bare, message, keys)
        else:
            continue
        if changed is not None and changed != bare:
            lines[number - 1] = changed + ending
            made += 1
    fixed = "\n".join(lines)
    if invisible:
        start = fixed[:1] if fixed.startswith("\ufeff") else ""
        removed = start + fixed[len(start) :].translate(_INVISIBLE)
        if removed != fixed:
            fixed, made = removed, made + 1
    return fixed, made


def _inside(path: str, top: str) -> bool:
    real, base = os.path.realpath(path), os.path.realpath(top)
    return real == base or real.startswith(base.rstrip(os.sep) + os.sep)


def _read(path: str, top: str) -> bytes:
    """The bytes of the SKILL.md ``path``: inside ``top``, a regular file, not a link."""
    folder = os.path.dirname(path) or os.curdir
    if not _inside(folder, top):
        raise OSError(errno.EACCES, "outside the repository", path)
    mode = os.lstat(path).st_mode
    if not stat.S_ISREG(mode):
        kind = "a symbolic link" if stat.S_ISLNK(mode) else "not a regular file"
        raise OSError(errno.EINVAL, f"{kind}: never written through", path)
    data = read_regular_file(path, _READ_MAX + 1)
    if len(data) > _READ_MAX:
        raise OSError(errno.EFBIG, f"larger than {_READ_MAX} bytes", path)
    return data


def _diff(path: str, before: str, after: str) -> list[str]:
    lines = difflib.unified_diff(
        before.splitlines(), after.splitlines(), f"a/{path}", f"b/{path}", lineterm=""
    )
    return [safe_line(line) for line in lines]


def apply_fixes(
    findings: Sequence[tuple[str, str, int, str]], top: str, *, write: bool
) -> FixResult:
    """Fix every file of ``findings`` (path, rule, line, message; paths as lint shows them),
    confined to ``top`` (the run's repository). ``write``: replace each changed file
    atomically; else only the unified diff. Files in the order they first appear."""
    by_path: dict[str, list[tuple[str, int, str]]] = {}
    for path, rule, line, message in findings:
        if os.path.basename(path) == "SKILL.md":
            by_path.setdefault(path, []).append((rule, line, message))
    files: list[str] = []
    refused: list[tuple[str, str]] = []
    diff: list[str] = []
    fixes = 0
    for path, found in by_path.items():
        try:
            data = _read(path, top)
            text = data.decode("utf-8", "surrogateescape")
            folder = os.path.basename(os.path.dirname(os.path.abspath(path)))
            after, made = fixed_text(text, folder, found)
            if not made:
                continue
            if write:
                replace_file(path, after.encode("utf-8", "surrogateescape"))
            else:
                diff.extend(_diff(path, text, after))
        except OSError as error:
            refused.append((path, error.strerror or str(error)))
            continue
        files.append(path)
        fixes += made
    text = "".join(line + "\n" for line in diff)
    return FixResult(tuple(files), fixes, text, tuple(refused))
