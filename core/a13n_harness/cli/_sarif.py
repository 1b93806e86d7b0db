"""``a13n-skills lint --format sarif``: SARIF 2.1.0 that GitHub code scanning accepts.

- Every result has a ``region`` (``startLine``, ``startColumn``; 1:1 for a whole file),
  because code scanning places an alert on a line.
- Every rule of :data:`~a13n_harness.cli._rules.RULES` is described in
  ``tool.driver.rules`` (``name``, ``shortDescription``, ``fullDescription``, ``help``
  as text and Markdown, ``helpUri`` into ``docs/rules.md``, ``defaultConfiguration``),
  whether or not it fired, so ``ruleIndex`` is stable across runs.
- Artifact URIs are relative to the repository root (``LintResult.root``: the git work
  tree holding the first PATH or the current directory, found without running git, else
  the workspace), with ``uriBaseId`` ``%SRCROOT%`` and ``originalUriBaseIds`` giving that
  root as a ``file:`` URI, so the paths match the checkout from whatever directory lint
  ran. A file outside the root gets an absolute ``file:`` URI and no base.
- Every result has ``partialFingerprints["a13nFinding/v1"]``: a SHA-256 of the rule, the
  URI, the message and the finding's rank among identical ones in its file, and never of
  its line or column, so the same finding keeps its fingerprint across runs and when
  lines move (code scanning then updates an alert instead of opening a second one).
- A problem of the run, not of a file (``no_skills_found``, a missing or invalid root,
  an unusable configuration: ``Rule.tool_level``) is a ``toolExecutionNotification`` of
  the run's invocation, not a result; ``executionSuccessful`` is false when one is an
  error.
- Columns count Unicode code points (``columnKind``), as the text format does.
"""

from __future__ import annotations

import hashlib
import os
import urllib.parse
from typing import TYPE_CHECKING, Any

from a13n_harness.cli._output import PROGRAM
from a13n_harness.context.lint import RULES, Rule, rule_markdown

if TYPE_CHECKING:
    from a13n_harness.cli._lint import Finding, LintResult

__all__ = ["FINGERPRINT", "PROJECT_URL", "RULES_URL", "SARIF_SCHEMA", "sarif_document"]

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


def _quote(path: str) -> str:
    # surrogateescape: a file name that is not UTF-8 keeps its own bytes.
    return urllib.parse.quote(path, safe="/", errors="surrogateescape")


def _artifact(path: str, root: str) -> dict[str, str]:
    """``path`` as an artifact location: relative to ``root`` under ``%SRCROOT%`` when inside."""
    absolute = os.path.abspath(path)
    relative = os.path.relpath(absolute, root)
    if relative == os.pardir or relative.startswith(os.pardir + os.sep):
        return {"uri": "file://" + _quote(absolute.replace(os.sep, "/"))}
    return {"uri": _quote(relative.replace(os.sep, "/")), "uriBaseId": SRCROOT}


def _srcroot(root: str) -> str:
    here = root.replace(os.sep, "/")
    return f"file://{_quote(here.rstrip('/') + '/')}"


FINGERPRINT = "a13nFinding/v1"


def _fingerprint(rule: str, uri: str, message: str, rank: int) -> str:
    """Stable across runs and line moves: no line, no column, no run-dependent value."""
    material = "\0".join((rule, uri, message, str(rank)))
    return hashlib.sha256(material.encode("utf-8", "surrogateescape")).hexdigest()


def _location(finding: Finding, root: str) -> dict[str, Any]:
    return {
        "physicalLocation": {
            "artifactLocation": _artifact(finding.path, root),
            "region": {"startLine": finding.line, "startColumn": finding.column},
        }
    }


def sarif_document(result: LintResult, version: str) -> dict[str, Any]:
    """The SARIF 2.1.0 log of one lint run."""
    ids = list(RULES)
    root = os.path.abspath(result.root if result.root is not None else os.curdir)
    results = []
    notifications = []
    ranks: dict[tuple[str, str, str], int] = {}
    for finding in result.findings:
        if RULES[finding.rule].tool_level:
            notifications.append(
                {
                    "level": finding.severity,
                    "message": {"text": finding.message},
                    "associatedRule": {"id": finding.rule, "index": ids.index(finding.rule)},
                    "locations": [_location(finding, root)],
                }
            )
            continue
        location = _location(finding, root)
        uri = location["physicalLocation"]["artifactLocation"]["uri"]
        key = (finding.rule, uri, finding.message)
        ranks[key] = rank = ranks.get(key, -1) + 1
        results.append(
            {
                "ruleId": finding.rule,
                "ruleIndex": ids.index(finding.rule),
                "level": finding.severity,
                "message": {"text": finding.message},
                "locations": [location],
                "partialFingerprints": {FINGERPRINT: _fingerprint(*key, rank)},
            }
        )
    successful = not any(n["level"] == "error" for n in notifications)
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
                "originalUriBaseIds": {SRCROOT: {"uri": _srcroot(root)}},
                "invocations": [
                    {
                        "executionSuccessful": successful,
                        "toolExecutionNotifications": notifications,
                    }
                ],
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }
