"""``a13n-skills lint``: every problem of every package, with positions a tool can click.

Each root is scanned on its own (``invalid="skip"``), so bad frontmatter
becomes a finding instead of ending the scan and a hard error in one root
(an overflow, a denied read, a symbolic link leaving the workspace, two
packages of one name) does not hide the other roots. When every root scanned,
one more scan of all the roots together reports cross-root overrides.

Severities: ``error`` for bad frontmatter (reported with the
``skill_frontmatter_invalid`` code and its reason) and for any
``DefinitionError`` a scan raises; ``warning`` for what the scan tolerates
(``skill_name_mismatch``, ``skill_description_truncated``,
``skill_entry_skipped``, ``skill_overridden``); ``note`` for a default root
that does not exist (``skill_root_skipped``), which the text format leaves out.
Positions come from the YAML marks the parser records (1-based, counted in
the whole SKILL.md); where there is none the text format prints ``1:1`` and
JSON and SARIF leave the position out.
"""

from __future__ import annotations

import asyncio
import json
import os
import urllib.parse
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from a13n_harness.capabilities import (
    FileSkillSource,
    SkillDiagnostic,
    SkillManager,
    SkillsPolicy,
)
from a13n_harness.cli._output import PROGRAM, Progress, one_line
from a13n_harness.cli._workspace import SOURCE_ID, check_workspace, shown_in, source_for
from a13n_harness.context.errors import DefinitionError
from a13n_harness.environment import LocalFileOperator

__all__ = ["Finding", "format_findings", "lint_workspace"]

Severity = Literal["error", "warning", "note"]

_SEVERITY: dict[str, Severity] = {
    "skill_frontmatter_skipped": "error",
    "skill_name_mismatch": "warning",
    "skill_description_truncated": "warning",
    "skill_entry_skipped": "warning",
    "skill_overridden": "warning",
    "skill_root_skipped": "note",
}
_RULES = {
    "skill_frontmatter_invalid": "SKILL.md frontmatter is unusable; the package is left out",
    "skill_name_mismatch": "the skill's name differs from its folder",
    "skill_description_truncated": "the description is longer than 1,024 characters and is cut",
    "skill_entry_skipped": "an entry below a root is not a skill package",
    "skill_overridden": "a package of the same name in a later root wins",
    "skill_root_skipped": "a default root does not exist",
}
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


@dataclass(frozen=True, slots=True)
class Finding:
    """One lint result; ``path`` is relative to the current directory."""

    path: str
    line: int | None
    column: int | None
    code: str
    severity: Severity
    message: str
    reason: str | None = None


def _from_diagnostic(diagnostic: SkillDiagnostic, show: Callable[[str], str]) -> Finding:
    code = diagnostic.code
    if code == "skill_frontmatter_skipped":
        code = "skill_frontmatter_invalid"
    return Finding(
        show(diagnostic.path),
        diagnostic.line,
        diagnostic.column,
        code,
        _SEVERITY.get(diagnostic.code, "warning"),
        diagnostic.message,
        diagnostic.reason,
    )


def _from_error(error: DefinitionError, root: str, show: Callable[[str], str]) -> Finding:
    return Finding(
        show(error.path or root),
        error.line,
        error.column,
        error.code,
        "error",
        error.message,
        error.reason,
    )


def lint_workspace(workspace: str, roots: Sequence[str], progress: Progress) -> list[Finding]:
    """Every finding for ``workspace``, root by root in configuration order."""
    check_workspace(workspace)
    files = LocalFileOperator(workspace)
    configured = source_for(roots)
    policy = SkillsPolicy(invalid="skip")

    def show(path: str) -> str:
        return shown_in(workspace, path)

    findings: list[Finding] = []
    failed = False
    for root in configured.roots:
        progress.show(f"linting {root}")
        source = FileSkillSource(SOURCE_ID, (root,), required=configured.required)
        try:
            scan = asyncio.run(SkillManager([source], policy=policy).inspect(files=files))
        except DefinitionError as error:
            findings.append(_from_error(error, root, show))
            failed = True
            continue
        findings.extend(_from_diagnostic(d, show) for d in scan.diagnostics)
    if not failed and len(configured.roots) > 1:
        progress.show("checking overrides across roots")
        try:
            scan = asyncio.run(SkillManager([configured], policy=policy).inspect(files=files))
        except DefinitionError as error:
            findings.append(_from_error(error, "/", show))
        else:
            findings.extend(
                _from_diagnostic(d, show) for d in scan.diagnostics if d.code == "skill_overridden"
            )
    progress.clear()
    return findings


def _message(finding: Finding) -> str:
    return f"{finding.message} ({finding.reason})" if finding.reason else finding.message


def _text(findings: Sequence[Finding]) -> str:
    lines = [
        one_line(f"{f.path}:{f.line or 1}:{f.column or 1}: {f.code}: {_message(f)}")
        for f in findings
        if f.severity != "note"
    ]
    return "".join(line + "\n" for line in lines)


def _json(findings: Sequence[Finding]) -> str:
    document = {
        "findings": [
            {
                "code": f.code,
                "column": f.column,
                "line": f.line,
                "message": f.message,
                "path": f.path,
                "reason": f.reason,
                "severity": f.severity,
            }
            for f in findings
        ],
        "errors": sum(f.severity == "error" for f in findings),
        "warnings": sum(f.severity == "warning" for f in findings),
    }
    return json.dumps(document, indent=2, sort_keys=True) + "\n"


def _sarif_location(finding: Finding) -> dict[str, Any]:
    physical: dict[str, Any] = {
        "artifactLocation": {
            "uri": urllib.parse.quote(finding.path.replace(os.sep, "/"), errors="backslashreplace")
        }
    }
    if finding.line is not None:
        region: dict[str, int] = {"startLine": finding.line}
        if finding.column is not None:
            region["startColumn"] = finding.column
        physical["region"] = region
    return {"physicalLocation": physical}


def _sarif(findings: Sequence[Finding], version: str) -> str:
    codes = sorted({f.code for f in findings} | set(_RULES))
    rules = [
        {
            "id": code,
            "shortDescription": {"text": _RULES.get(code, code.replace("_", " "))},
        }
        for code in codes
    ]
    results = [
        {
            "ruleId": f.code,
            "ruleIndex": codes.index(f.code),
            "level": f.severity,
            "message": {"text": _message(f)},
            "locations": [_sarif_location(f)],
        }
        for f in findings
    ]
    document = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": PROGRAM, "version": version, "rules": rules}},
                "results": results,
            }
        ],
    }
    return json.dumps(document, indent=2, ensure_ascii=True) + "\n"


def format_findings(findings: Sequence[Finding], form: str, version: str) -> str:
    """``findings`` as ``text`` (``path:line:column: code: message`` lines), ``json``, ``sarif``."""
    if form == "json":
        return _json(findings)
    if form == "sarif":
        return _sarif(findings, version)
    return _text(findings)
