"""``a13n-skills lint --format sarif``: SARIF 2.1.0 that GitHub code scanning accepts.

- Every result has a ``region`` (``startLine``, ``startColumn``; 1:1 for a whole file),
  because code scanning places an alert on a line.
- Every rule of :data:`~a13n_harness.cli._rules.RULES` is described in
  ``tool.driver.rules`` (``name``, ``shortDescription``, ``fullDescription``, ``help``
  as text and Markdown, ``helpUri`` into ``docs/rules.md``, ``defaultConfiguration``),
  whether or not it fired, so ``ruleIndex`` is stable across runs.
- Artifact URIs are relative to the current directory, with ``uriBaseId``
  ``%SRCROOT%`` and ``originalUriBaseIds`` giving that directory as a ``file:`` URI:
  run lint from the repository root and the paths match the checkout.
- Columns count Unicode code points (``columnKind``), as the text format does.
"""

from __future__ import annotations

import os
import urllib.parse
from typing import TYPE_CHECKING, Any

from a13n_harness.cli._output import PROGRAM
from a13n_harness.context.lint import RULES, Rule, rule_markdown

if TYPE_CHECKING:
    from a13n_harness.cli._lint import LintResult

__all__ = ["PROJECT_URL", "RULES_URL", "SARIF_SCHEMA", "sarif_document"]

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
PROJECT_URL = "https://github.com/a13n-harness/skills"
"""The project's home; the same address is ``Homepage`` in ``pyproject.toml``."""
RULES_URL = f"{PROJECT_URL}/blob/main/docs/rules.md"
SRCROOT = "%SRCROOT%"


def _camel(rule_id: str) -> str:
    return "".join(part.capitalize() for part in rule_id.split("_"))


def _rule(rule: Rule) -> dict[str, Any]:
    return {
        "id": rule.id,
        "name": _camel(rule.id),
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": rule.checks},
        "help": {"text": f"{rule.checks} Source: {rule.source}", "markdown": rule_markdown(rule)},
        "helpUri": f"{RULES_URL}#{rule.id}",
        "defaultConfiguration": {"level": rule.severity},
        "properties": {"tags": ["agent-skills"]},
    }


def _uri(path: str) -> str:
    """``path`` relative to the current directory, as a percent-encoded URI reference."""
    relative = os.path.relpath(os.path.abspath(path)).replace(os.sep, "/")
    # surrogateescape: a file name that is not UTF-8 keeps its own bytes.
    return urllib.parse.quote(relative, safe="/", errors="surrogateescape")


def _srcroot() -> str:
    here = os.path.abspath(os.curdir).replace(os.sep, "/")
    quoted = urllib.parse.quote(here.rstrip("/") + "/", safe="/", errors="surrogateescape")
    return f"file://{quoted}"


def sarif_document(result: LintResult, version: str) -> dict[str, Any]:
    """The SARIF 2.1.0 log of one lint run."""
    ids = list(RULES)
    results = [
        {
            "ruleId": finding.rule,
            "ruleIndex": ids.index(finding.rule),
            "level": finding.severity,
            "message": {"text": finding.message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": _uri(finding.path), "uriBaseId": SRCROOT},
                        "region": {"startLine": finding.line, "startColumn": finding.column},
                    }
                }
            ],
        }
        for finding in result.findings
    ]
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": PROGRAM,
                        "version": version,
                        "semanticVersion": version,
                        "informationUri": PROJECT_URL,
                        "rules": [_rule(rule) for rule in RULES.values()],
                    }
                },
                "originalUriBaseIds": {SRCROOT: {"uri": _srcroot()}},
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }
