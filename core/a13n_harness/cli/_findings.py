"""Lint's findings records: what ``a13n-skills lint`` found, as the formatters read it.

:class:`Finding` and :class:`LintResult` live here, apart from the lint driver
(:mod:`a13n_harness.cli._lint`) that makes them, so the formatters that read them
(:mod:`a13n_harness.cli._sarif`, :mod:`a13n_harness.cli._github`) import the records, never
their caller: the import direction is one way (an import contract in ``pyproject.toml``).
"""

from __future__ import annotations

from dataclasses import dataclass

from a13n_harness.context.lint import RULES, Severity

__all__ = ["Finding", "LintResult", "finding"]


@dataclass(frozen=True, slots=True)
class Finding:
    """One lint result; ``path`` is as the user can open it from the current directory."""

    path: str
    line: int
    column: int
    rule: str
    severity: Severity
    message: str


@dataclass(frozen=True, slots=True)
class LintResult:
    """Every finding, in PATH order then file order, and how many skills were checked.

    ``root`` is the repository the run is about (the git work tree holding the first PATH
    or the current directory, else that workspace): SARIF and ``--format github`` give
    paths relative to it.
    """

    findings: tuple[Finding, ...]
    skills: int
    root: str | None = None
    suppressed: tuple[Finding, ...] = ()
    """The findings an inline directive suppressed (counted, never printed as findings)."""
    excluded: tuple[str, ...] = ()
    """The SKILL.md files the configuration's ``exclude`` left out (not counted in ``skills``)."""
    checked: tuple[str, ...] = ()
    """Every SKILL.md checked, as shown (before ``exclude``)."""
    fixed: int = 0
    """How many fixes ``--fix`` made before this run's findings were found."""

    @property
    def failed(self) -> bool:
        return any(finding.severity == "error" for finding in self.findings)


def finding(path: str, line: int, column: int, rule: str, message: str) -> Finding:
    """A :class:`Finding` of ``rule`` at its severity in :data:`RULES`."""
    return Finding(path, line, column, rule, RULES[rule].severity, message)
