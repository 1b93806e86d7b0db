"""``a13n-skills lint`` configuration: where it is, what it may say, how it changes findings.

Looked up unless ``--no-config``, for each PATH (a folder: itself; a ``SKILL.md``: its
folder), in that folder and then each folder above it up to the repository's top and
never past it (the git work tree holding it, found without running git; else the
workspace PATH itself, else the current directory when it holds PATH, else PATH's own
folder), the way ruff finds its configuration. In each folder ``.a13n-skills.toml`` (its
``[lint]`` table) comes first, then ``pyproject.toml`` when it has a
``[tool.a13n-skills.lint]`` table; the first found is PATH's configuration.
``--config FILE`` names the file instead (either table). Keys:

- ``profile``: one of :data:`~a13n_harness.context.lint.PROFILES` (``--profile`` wins);
- ``select``: rule ids; only these are reported;
- ``ignore``: rule ids never reported;
- ``severity``: a table of rule id to ``error``, ``warning`` or ``note``;
- ``per-path-ignores``: a table of glob (relative to the file's folder, ``*`` crossing
  ``/``; :mod:`a13n_harness.cli._glob`) to rule ids not reported for the paths it matches;
- ``tokenizer``: what ``skill_body_too_long`` counts, ``lines``, ``cl100k_base`` or
  ``o200k_base`` (``--tokenizer`` wins; a named tokenizer needs the ``tokens`` extra, and
  no file path is taken from a configuration), so every machine counts the same;
- ``exclude``: globs (the same language, relative to the file's folder) of skills left out:
  a ``SKILL.md`` is excluded when a pattern matches its path or one of its folders
  (``vendor`` leaves out ``vendor/x/SKILL.md``). A skill an agent loads (below an agent
  folder's ``skills``, such as ``.claude/skills``) is never left out: lint checks it and
  says ``exclude`` named it (``skill_excluded``), so a configuration cannot blind a gate.

The configuration is a file of the checkout, as untrusted as a ``SKILL.md``: it is read
through a :class:`BlockingLocalFileOperator` whose ``/`` is the repository's top (or, for a
``--config`` outside it, the file's folder), so a symbolic link leaving it is refused the
same way whether its target exists or not; only a regular file of at most
:data:`CONFIG_MAX_BYTES` is read (a FIFO, socket, device or folder is refused at once,
never opened); the text passes :func:`a13n_harness.cli._toml_guard.check_toml` (key parts,
nesting, digits) before ``tomllib`` parses it, so parsing is linear in its length.

A configuration that cannot be used (not a regular file, unreadable, too large, TOML
syntax or limits, an unknown key, a wrong type, an unknown rule, severity or profile) is
one ``lint_config_invalid`` finding at the file, line and column of the fault, and nothing
is linted: a half-read configuration would silently change what fails.
``lint_config_invalid`` itself cannot be ignored.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, field
from typing import Any

from a13n_harness.cli._glob import GlobSet
from a13n_harness.cli._toml_guard import TomlLimit, check_toml
from a13n_harness.context.errors import DefinitionError
from a13n_harness.context.lint import PROFILES, RULES, Severity
from a13n_harness.environment import FileNotFound, LocalFileOperator, NotADirectory
from a13n_harness.environment.local import BlockingLocalFileOperator, run_blocking

__all__ = [
    "CONFIG_FILE",
    "ConfigProblem",
    "LintConfig",
    "config_for",
    "find_config",
    "load_config",
    "parse_config",
]

CONFIG_FILE = ".a13n-skills.toml"
PYPROJECT = "pyproject.toml"
_CONFIG_RULE = "lint_config_invalid"
_SEVERITIES = ("error", "warning", "note")
_KEYS = ("profile", "select", "ignore", "severity", "per-path-ignores", "exclude", "tokenizer")
# A configuration file is a few hundred bytes; a bigger one is refused, not read whole.
CONFIG_MAX_BYTES = 1 << 20
# A message names at most this many characters of a key or pattern, and this many
# unknown rules: the file may be a megabyte, the finding is one line.
_SHOWN_CHARACTERS = 80
_SHOWN_RULES = 5


class ConfigProblem(Exception):
    """A configuration that cannot be used, with where it is wrong (1-based)."""

    def __init__(self, path: str, line: int, column: int, message: str) -> None:
        super().__init__(message)
        self.path = path
        self.line = line
        self.column = column
        self.message = message


@dataclass(frozen=True)
class LintConfig:
    """What a configuration file says; the empty configuration changes nothing."""

    path: str | None = None
    base: str = "."
    profile: str | None = None
    select: frozenset[str] | None = None
    ignore: frozenset[str] = frozenset()
    severity: dict[str, Severity] = field(default_factory=dict)
    per_path_ignores: tuple[tuple[str, frozenset[str]], ...] = ()
    exclude: tuple[str, ...] = ()
    tokenizer: str | None = None
    _globs: GlobSet = field(init=False, repr=False, compare=False)
    _excluded: GlobSet = field(init=False, repr=False, compare=False)
    _ignored: dict[str, frozenset[str]] = field(
        init=False, repr=False, compare=False, default_factory=dict
    )

    def __post_init__(self) -> None:
        # Compiled once: each path is then matched against all patterns in one look-up.
        object.__setattr__(self, "_globs", GlobSet(self.per_path_ignores))
        excluded = frozenset({"exclude"})
        object.__setattr__(self, "_excluded", GlobSet((p, excluded) for p in self.exclude))

    def excludes(self, path: str) -> bool:
        """Whether ``exclude`` matches ``path`` (a path as lint shows it) or one of its folders
        below the configuration's folder: one :class:`GlobSet` look-up per folder level."""
        if not self._excluded:
            return False
        relative = self._relative(path)
        if relative == ".." or relative.startswith("../"):
            return False  # not below the configuration's folder
        parts = relative.split("/")
        return any(
            self._excluded.values_at("/".join(parts[:end])) for end in range(1, len(parts) + 1)
        )

    def severity_of(self, rule: str, default: Severity) -> Severity | None:
        """The severity a finding of ``rule`` is reported with, or ``None``."""
        if rule == _CONFIG_RULE:
            return default
        if rule in self.ignore or (self.select is not None and rule not in self.select):
            return None
        return self.severity.get(rule, default)

    def ignores_at(self, rule: str, path: str) -> bool:
        """Whether a per-path ignore drops ``rule`` at ``path`` (a path as lint shows it).

        The rules ignored at a path are worked out once per path, so a run costs its
        findings plus its distinct paths times one :class:`GlobSet` look-up each.
        """
        if rule == _CONFIG_RULE or not self._globs:
            return False
        ignored = self._ignored.get(path)
        if ignored is None:
            ignored = self._globs.values_at(self._relative(path))
            self._ignored[path] = ignored
        return rule in ignored

    def _relative(self, path: str) -> str:
        """``path`` relative to the configuration's folder, with ``/`` separators."""
        relative = os.path.relpath(os.path.abspath(path), os.path.abspath(self.base))
        if relative.startswith(".."):  # the two spelled through different links
            real = os.path.join(
                os.path.realpath(os.path.dirname(os.path.abspath(path))), os.path.basename(path)
            )
            relative = os.path.relpath(real, os.path.realpath(self.base))
        return relative.replace(os.sep, "/")


# ------------------------------------------------------------------------ reading


def _read(
    files: LocalFileOperator, inner: str, shown: str, *, required: bool, where: str
) -> bytes | None:
    """The bytes of ``inner`` (an operator path of ``files``, whose ``/`` is ``where``),
    ``None`` when there is no such file and it is not ``required``; :class:`ConfigProblem`
    when it cannot be read or is too large. A link leaving ``where`` is refused before its
    target is looked at: the same finding whether that target exists or not."""
    try:
        data = run_blocking(files.read_bytes(inner, CONFIG_MAX_BYTES + 1))
    except (FileNotFound, NotADirectory) as error:
        if not required:
            return None
        raise ConfigProblem(shown, 1, 1, f"cannot read it: {error.message}") from None
    except DefinitionError as error:
        if error.reason == "link_escapes":
            reason = f"a symbolic link leading out of {where}"
        else:
            reason = error.message
        raise ConfigProblem(
            shown, 1, 1, f"cannot read it: {reason} (a configuration is a regular file)"
        ) from None
    if len(data) > CONFIG_MAX_BYTES:
        raise ConfigProblem(shown, 1, 1, f"larger than {CONFIG_MAX_BYTES} bytes")
    return data


def _inside(path: str, top: str) -> str | None:
    """``path`` (absolute, normalised) as an operator path of ``top``, or ``None``."""
    for base in dict.fromkeys((os.path.abspath(top), os.path.realpath(top))):
        if path == base:
            return "/"
        prefix = base.rstrip(os.sep) + os.sep
        if path.startswith(prefix):
            return "/" + path[len(prefix) :].replace(os.sep, "/")
    return None


def load_config(path: str, top: str | None = None) -> LintConfig:
    """The configuration in ``path`` (``--config``); :class:`ConfigProblem` when it cannot be
    used. Read through an operator whose ``/`` is ``top`` (the repository) when ``path`` is
    spelled inside it, else its own folder: no link leaves either."""
    absolute = os.path.abspath(path)
    inner = _inside(absolute, top) if top is not None else None
    root = top if inner is not None else os.path.dirname(absolute)
    if inner is None:
        inner = "/" + os.path.basename(absolute)
    assert root is not None
    try:
        with BlockingLocalFileOperator(root) as files:
            where = "the repository" if root == top else "its folder"
            data = _read(files, inner, path, required=True, where=where)
    except DefinitionError as error:  # the folder itself cannot be opened
        raise ConfigProblem(path, 1, 1, f"cannot read it: {error.message}") from None
    assert data is not None
    base = os.path.dirname(absolute)
    found = parse_config(data, path, base, pyproject=os.path.basename(absolute) == PYPROJECT)
    return found if found is not None else LintConfig(path=path, base=base)


def _shown(start: str, up: int, real_folder: str, name: str) -> str:
    """The file ``name`` in the folder ``up`` levels above ``start``, as the user can open
    it: spelled from ``start`` when that spelling leads there, else the real path."""
    if up == 0:
        return os.path.join(start, name)
    spelled = os.path.normpath(os.path.join(start, *[os.pardir] * up))
    if os.path.realpath(spelled) == real_folder:
        return os.path.join(spelled, name)
    return os.path.join(real_folder, name)


def config_for(start: str, top: str, cache: dict[str, LintConfig] | None = None) -> LintConfig:
    """The configuration of the folder ``start``: the first found from it up to ``top`` (the
    repository's top, which holds it), never past it; the empty one when there is none.

    Every look-up and read goes through one operator whose ``/`` is ``top``. A candidate
    that is not a regular file, or a link leaving ``top``, is :class:`ConfigProblem`, not
    skipped. ``cache`` maps a found file's real path to its configuration (one parse per
    file when several PATHs share it).
    """
    real_top = os.path.realpath(top)
    real_start = os.path.realpath(start)
    inner = _inside(real_start, real_top)
    if inner is None:  # not below top after all: look in start alone
        real_top, inner = real_start, "/"
    parts = [part for part in inner.split("/") if part]
    try:
        files = BlockingLocalFileOperator(real_top)
    except DefinitionError as error:
        message = f"cannot look for a configuration: {error.message}"
        raise ConfigProblem(start, 1, 1, message) from None
    with files:
        for up in range(len(parts) + 1):
            folder = parts[: len(parts) - up]
            real_folder = os.path.join(real_top, *folder)
            for name in (CONFIG_FILE, PYPROJECT):
                shown = _shown(start, up, real_folder, name)
                inner = "/" + "/".join([*folder, name])
                data = _read(files, inner, shown, required=False, where="the repository")
                if data is None or (name == PYPROJECT and b"a13n-skills" not in data):
                    continue
                key = os.path.join(real_folder, name)
                if cache is not None and key in cache:
                    return cache[key]
                base = os.path.dirname(os.path.abspath(shown))
                found = parse_config(data, shown, base, pyproject=name == PYPROJECT)
                if found is None:
                    continue  # a pyproject.toml without a [tool.a13n-skills] table
                if cache is not None:
                    cache[key] = found
                return found
    return LintConfig()


def find_config(workspace: str, top: str | None = None) -> str | None:
    """The configuration file of ``workspace`` (looked up to ``top``, default the workspace
    itself), or ``None`` when it has none; :class:`ConfigProblem` as :func:`config_for`."""
    return config_for(workspace, workspace if top is None else top).path


# ------------------------------------------------------------------------ parsing


def _position(text: str, key: str) -> tuple[int, int]:
    """Where ``key`` is assigned in ``text`` (best effort: its first assignment), else 1:1.

    Line by line, each line read once: ``key`` at its start (after blanks, perhaps quoted),
    then ``=`` after blanks.
    """
    for number, line in enumerate(text.split("\n"), start=1):
        stripped = line.lstrip(" \t")
        rest = stripped[1:] if stripped[:1] in ("'", '"') else stripped
        if not rest.startswith(key):
            continue
        after = rest[len(key) :]
        after = after[1:] if after[:1] in ("'", '"') else after
        if after.lstrip(" \t").startswith("="):
            return number, len(line) - len(stripped) + 1
    return 1, 1


def _at(text: str, position: int) -> tuple[int, int]:
    """The 1-based line and column of an index into ``text``."""
    line_start = text.rfind("\n", 0, position) + 1
    return text.count("\n", 0, position) + 1, position - line_start + 1


def _short(value: str) -> str:
    shown = value if len(value) <= _SHOWN_CHARACTERS else value[:_SHOWN_CHARACTERS] + "..."
    return repr(shown)


def _rules(value: object, where: str) -> frozenset[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ValueError(f"{where} must be a list of rule ids")
    unknown = sorted(set(value) - set(RULES))
    if unknown:
        named = ", ".join(map(_short, unknown[:_SHOWN_RULES]))
        more = f" and {len(unknown) - _SHOWN_RULES} more" if len(unknown) > _SHOWN_RULES else ""
        raise ValueError(f"{where} names unknown rule(s) {named}{more}")
    if _CONFIG_RULE in value and where.startswith(("ignore", "per-path-ignores")):
        raise ValueError(f"{where}: {_CONFIG_RULE} cannot be ignored")
    return frozenset(value)


def _table(document: dict[str, Any], pyproject: bool) -> tuple[object, str] | None:
    """The lint table of a parsed file and its dotted name; ``None`` for a
    ``pyproject.toml`` that has no ``[tool.a13n-skills]`` table."""
    tool = document.get("tool")
    if isinstance(tool, dict) and "a13n-skills" in tool:
        skills = tool["a13n-skills"]
        if not isinstance(skills, dict):
            return skills, "tool.a13n-skills"
        return skills.get("lint", {}), "tool.a13n-skills.lint"
    if pyproject:
        return None
    return document.get("lint", {}), "lint"


def _document(data: bytes, path: str) -> tuple[str, dict[str, Any]]:
    """The text and the TOML document of ``data``; :class:`ConfigProblem` when it is none."""
    if len(data) > CONFIG_MAX_BYTES:
        raise ConfigProblem(path, 1, 1, f"larger than {CONFIG_MAX_BYTES} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ConfigProblem(path, 1, 1, f"not UTF-8 ({error.reason})") from None
    try:
        check_toml(text)
    except TomlLimit as limit:
        line, column = _at(text, limit.position)
        raise ConfigProblem(path, line, column, f"not read as TOML: {limit.message}") from None
    try:
        return text, tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        where = re.search(r"\(at line (\d+), column (\d+)\)", str(error))
        if where:
            line, column = int(where.group(1)), int(where.group(2))
        else:  # "(at end of document)": the line after the last
            line, column = text.count("\n") + 1, len(text) - text.rfind("\n")
        reason = re.sub(r"\s*\(at (?:line \d+, column \d+|end of document)\)", "", str(error))
        raise ConfigProblem(path, line, column, f"not valid TOML: {reason}") from None
    except (ValueError, RecursionError) as error:  # what check_toml exists to rule out
        raise ConfigProblem(path, 1, 1, f"not valid TOML: {type(error).__name__}") from None


def parse_config(
    data: bytes, path: str, base: str, *, pyproject: bool = False
) -> LintConfig | None:
    """The configuration the bytes ``data`` of the file ``path`` (shown in findings; its
    per-path globs are relative to ``base``) say; ``None`` for a ``pyproject.toml`` without
    a ``[tool.a13n-skills]`` table; :class:`ConfigProblem` when it cannot be used. No I/O."""
    text, document = _document(data, path)
    found = _table(document, pyproject)
    if found is None:
        return None
    table, name = found
    if not isinstance(table, dict):
        line, column = _position(text, name.rsplit(".", 1)[-1])
        raise ConfigProblem(path, line, column, f"[{name}] must be a table")
    config: dict[str, Any] = {"path": path, "base": base}
    for key, value in table.items():
        try:
            config.update(_key(key, value))
        except ValueError as error:
            line, column = _position(text, key)
            raise ConfigProblem(path, line, column, f"[{name}] {error}") from None
    return LintConfig(**config)


def _key(key: str, value: object) -> dict[str, Any]:
    """One key of the lint table, checked: the ``LintConfig`` fields it sets."""
    if key == "profile":
        if not isinstance(value, str) or value not in PROFILES:
            shown = _short(value) if isinstance(value, str) else type(value).__name__
            raise ValueError(f"profile must be one of {', '.join(PROFILES)}, not {shown}")
        return {"profile": value}
    if key in ("select", "ignore"):
        return {key: _rules(value, key)}
    if key == "severity":
        if not isinstance(value, dict):
            raise ValueError("severity must be a table of rule id = severity")
        _rules(list(value), "severity")
        for rule, level in value.items():
            if level not in _SEVERITIES:
                shown = _short(level) if isinstance(level, str) else type(level).__name__
                raise ValueError(
                    f"severity of {rule!r} must be one of {', '.join(_SEVERITIES)}, not {shown}"
                )
        return {"severity": dict(value)}
    if key == "per-path-ignores":
        if not isinstance(value, dict):
            raise ValueError("per-path-ignores must be a table of glob = [rule ids]")
        return {
            "per_path_ignores": tuple(
                (pattern, _rules(rules, f"per-path-ignores {_short(pattern)}"))
                for pattern, rules in value.items()
            )
        }
    if key == "exclude":
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise ValueError("exclude must be a list of globs")
        return {"exclude": tuple(_exclude_pattern(pattern) for pattern in value)}
    if key == "tokenizer":
        return {"tokenizer": _tokenizer(value)}
    raise ValueError(f"unknown key {_short(key)} (known: {', '.join(_KEYS)})")


def _tokenizer(value: object) -> str:
    """``tokenizer``: ``lines`` or a named vocabulary that this machine can load."""
    from a13n_harness.cli._body_size import LINES, installed  # noqa: PLC0415 - lint's only
    from a13n_harness.tokenizers import TOKENIZERS  # noqa: PLC0415 - as above

    names = (LINES, *TOKENIZERS)
    if not isinstance(value, str) or value not in names:
        shown = _short(value) if isinstance(value, str) else type(value).__name__
        raise ValueError(f"tokenizer must be one of {', '.join(names)}, not {shown}")
    if value != LINES and not installed(value):
        raise ValueError(
            f"tokenizer {value} needs the tokens extra: pip install 'a13n-harness-skills[tokens]'"
        )
    return value


def _exclude_pattern(pattern: str) -> str:
    """An ``exclude`` pattern as matched: without a leading ``./`` or a trailing ``/``
    (``./vendor/`` and ``vendor`` name the same folder)."""
    trimmed = pattern.removeprefix("./").rstrip("/")
    return trimmed or pattern
