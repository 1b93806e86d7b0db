"""``a13n-skills lint`` configuration: where it is, what it may say, how it changes findings.

Looked up in the workspace (the first PATH that is a workspace, else the current
directory) unless ``--no-config``: ``.a13n-skills.toml`` (its ``[lint]`` table) first,
then ``pyproject.toml`` (its ``[tool.a13n-skills.lint]`` table, when it has one).
``--config FILE`` names the file instead (either table). Keys:

- ``profile``: one of :data:`~a13n_harness.context.lint.PROFILES` (``--profile`` wins);
- ``select``: rule ids; only these are reported;
- ``ignore``: rule ids never reported;
- ``severity``: a table of rule id to ``error``, ``warning`` or ``note``;
- ``per-path-ignores``: a table of glob (relative to the file's folder, ``*`` crossing
  ``/``) to rule ids not reported for the paths it matches.

A configuration that cannot be used (TOML syntax, an unknown key, a wrong type, an
unknown rule, severity or profile) is one ``lint_config_invalid`` finding at the file,
line and column of the fault, and nothing is linted: a half-read configuration would
silently change what fails. ``lint_config_invalid`` itself cannot be ignored.
"""

from __future__ import annotations

import fnmatch
import os
import re
import tomllib
from dataclasses import dataclass, field
from typing import Any

from a13n_harness.context.lint import PROFILES, RULES, Severity

__all__ = ["CONFIG_FILE", "ConfigProblem", "LintConfig", "find_config", "load_config"]

CONFIG_FILE = ".a13n-skills.toml"
PYPROJECT = "pyproject.toml"
_CONFIG_RULE = "lint_config_invalid"
_SEVERITIES = ("error", "warning", "note")
_KEYS = ("profile", "select", "ignore", "severity", "per-path-ignores")
# A configuration file is a few hundred bytes; a bigger one is refused, not read whole.
CONFIG_MAX_BYTES = 1 << 20


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

    def severity_of(self, rule: str, default: Severity) -> Severity | None:
        """The severity a finding of ``rule`` at ``path`` is reported with, or ``None``."""
        if rule == _CONFIG_RULE:
            return default
        if rule in self.ignore or (self.select is not None and rule not in self.select):
            return None
        return self.severity.get(rule, default)

    def ignores_at(self, rule: str, path: str) -> bool:
        """Whether a per-path ignore drops ``rule`` at ``path`` (a path as lint shows it)."""
        if rule == _CONFIG_RULE or not self.per_path_ignores:
            return False
        relative = os.path.relpath(os.path.abspath(path), os.path.abspath(self.base))
        relative = relative.replace(os.sep, "/")
        return any(
            rule in rules and fnmatch.fnmatchcase(relative, pattern)
            for pattern, rules in self.per_path_ignores
        )


def find_config(workspace: str) -> str | None:
    """The configuration file of ``workspace``, or ``None`` when it has none."""
    own = os.path.join(workspace, CONFIG_FILE)
    if os.path.isfile(own):
        return own
    pyproject = os.path.join(workspace, PYPROJECT)
    if os.path.isfile(pyproject):
        try:
            with open(pyproject, "rb") as stream:
                head = stream.read(CONFIG_MAX_BYTES + 1)
        except OSError:
            return pyproject  # load_config reports why it cannot be read
        if re.search(rb"(?m)^[ \t]*\[[ \t]*tool[ \t]*\.[ \t]*\"?a13n-skills\"?", head):
            return pyproject
    return None


def _position(text: str, key: str) -> tuple[int, int]:
    """Where ``key`` is assigned in ``text`` (best effort: its first assignment), else 1:1."""
    pattern = re.compile(rf"(?m)^([ \t]*)[\"']?{re.escape(key)}[\"']?[ \t]*=")
    found = pattern.search(text)
    if found is None:
        return 1, 1
    line = text.count("\n", 0, found.start()) + 1
    return line, len(found.group(1)) + 1


def _rules(value: object, where: str) -> frozenset[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ValueError(f"{where} must be a list of rule ids")
    unknown = sorted(set(value) - set(RULES))
    if unknown:
        raise ValueError(f"{where} names unknown rule(s) {', '.join(map(repr, unknown))}")
    if _CONFIG_RULE in value and where.startswith(("ignore", "per-path-ignores")):
        raise ValueError(f"{where}: {_CONFIG_RULE} cannot be ignored")
    return frozenset(value)


def _table(document: dict[str, Any], path: str) -> tuple[dict[str, Any] | None, str]:
    """The lint table of a parsed file and its dotted name."""
    tool = document.get("tool")
    if isinstance(tool, dict) and "a13n-skills" in tool:
        skills = tool["a13n-skills"]
        if not isinstance(skills, dict):
            return None, "tool.a13n-skills"
        return skills.get("lint", {}), "tool.a13n-skills.lint"
    if os.path.basename(path) == PYPROJECT:
        return {}, "tool.a13n-skills.lint"
    return document.get("lint", {}), "lint"


def load_config(path: str) -> LintConfig:
    """The configuration in ``path``; :class:`ConfigProblem` when it cannot be used."""
    try:
        with open(path, "rb") as stream:
            data = stream.read(CONFIG_MAX_BYTES + 1)
    except OSError as error:
        raise ConfigProblem(path, 1, 1, f"cannot read it: {error.strerror}") from error
    if len(data) > CONFIG_MAX_BYTES:
        raise ConfigProblem(path, 1, 1, f"larger than {CONFIG_MAX_BYTES} bytes")
    try:
        text = data.decode("utf-8")
        document = tomllib.loads(text)
    except UnicodeDecodeError as error:
        raise ConfigProblem(path, 1, 1, f"not UTF-8 ({error.reason})") from error
    except tomllib.TOMLDecodeError as error:
        where = re.search(r"\(at line (\d+), column (\d+)\)", str(error))
        if where:
            line, column = int(where.group(1)), int(where.group(2))
        else:  # "(at end of document)": the line after the last
            line, column = text.count("\n") + 1, len(text) - text.rfind("\n")
        reason = re.sub(r"\s*\(at (?:line \d+, column \d+|end of document)\)", "", str(error))
        raise ConfigProblem(path, line, column, f"not valid TOML: {reason}") from error
    table, name = _table(document, path)
    if not isinstance(table, dict):
        line, column = _position(text, name.rsplit(".", 1)[-1])
        raise ConfigProblem(path, line, column, f"[{name}] must be a table")
    config: dict[str, Any] = {"path": path, "base": os.path.dirname(os.path.abspath(path))}
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
            raise ValueError(f"profile must be one of {', '.join(PROFILES)}, not {value!r}")
        return {"profile": value}
    if key in ("select", "ignore"):
        return {key: _rules(value, key)}
    if key == "severity":
        if not isinstance(value, dict):
            raise ValueError("severity must be a table of rule id = severity")
        _rules(list(value), "severity")
        for rule, level in value.items():
            if level not in _SEVERITIES:
                raise ValueError(
                    f"severity of {rule!r} must be one of {', '.join(_SEVERITIES)}, not {level!r}"
                )
        return {"severity": dict(value)}
    if key == "per-path-ignores":
        if not isinstance(value, dict):
            raise ValueError("per-path-ignores must be a table of glob = [rule ids]")
        return {
            "per_path_ignores": tuple(
                (pattern, _rules(rules, f"per-path-ignores {pattern!r}"))
                for pattern, rules in value.items()
            )
        }
    raise ValueError(f"unknown key {key!r} (known: {', '.join(_KEYS)})")
