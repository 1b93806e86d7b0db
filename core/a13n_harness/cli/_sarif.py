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
- Every result has ``partialFingerprints["a13nFinding/v2"]``: a SHA-256 of the rule, the
  URI, the message with each number masked (and the plural it selects) and the finding's
  rank among identical ones in its file, and never of its line or column, so the same
  finding keeps its fingerprint across runs, when lines move and when only a count in its
  message changes ("the body has 612 lines" growing to 613, "1 HTML comment" to "2 HTML
  comments"): code scanning then updates an alert instead of closing it and opening another.
- The rules that guard what the model reads (hidden characters, HTML comments, encoded
  payloads, references leaving the repository: :data:`SECURITY_SEVERITY`) carry the tag
  ``security``, a CWE tag and ``security-severity``, so code scanning files their results
  as security alerts with a severity; the other rules are tagged ``agent-skills`` only.
- A problem of the run, not of a file (``no_skills_found``, a missing or invalid root,
  an unusable configuration: ``Rule.tool_level``) is a ``toolExecutionNotification`` of
  the run's invocation, not a result; ``executionSuccessful`` is false when one is an
  error.
- Columns count Unicode code points (``columnKind``), as the text format does.
- A finding an inline directive suppressed (``<!-- a13n-skills: disable-next-line RULE
  -->``) is a result too, with ``suppressions: [{"kind": "inSource"}]``, after the others:
  code scanning shows it as suppressed instead of opening an alert (fingerprinted as the
  other results).
"""

from __future__ import annotations

import hashlib
import os
import re
import urllib.parse
from typing import TYPE_CHECKING, Any

from a13n_harness.cli._files import replace_file
from a13n_harness.cli._output import PROGRAM, json_text
from a13n_harness.context.lint import RULES, Rule, rule_markdown

if TYPE_CHECKING:
    from a13n_harness.cli._findings import Finding, LintResult

__all__ = [
    "FINGERPRINT",
    "PROJECT_URL",
    "RULES_URL",
    "SARIF_SCHEMA",
    "SECURITY_SEVERITY",
    "sarif_document",
    "write_sarif",
]

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
PROJECT_URL = "https://github.com/a13n-harness/skills"
"""The project's home; the same address is ``Homepage`` in ``pyproject.toml``."""
RULES_URL = f"{PROJECT_URL}/blob/main/docs/rules.md"
SRCROOT = "%SRCROOT%"


def _camel(rule_id: str) -> str:
    return "".join(part.capitalize() for part in rule_id.split("_"))


# The rules that guard the model's input, with the CWE each guards against and GitHub's
# security-severity score (0.1-3.9 low, 4.0-6.9 medium, 7.0-8.9 high, 9.0+ critical).
# CWE-1427 is "Improper Neutralization of Input Used for LLM Prompting"; CWE-22 path traversal.
SECURITY_SEVERITY: dict[str, tuple[str, str]] = {
    # Tag characters spell out instructions no reviewer can see ("ASCII smuggling").
    "skill_tag_characters": ("8.0", "1427"),
    # Bidirectional controls make the reviewed text differ from the text read (Trojan Source).
    "skill_bidi_control": ("7.5", "1427"),
    # A reference leaving the repository leads the agent to files no reviewer saw.
    "skill_reference_escapes": ("7.0", "22"),
    # Zero-width and control characters hide text; most published ones are harmless typing.
    "skill_invisible_characters": ("5.0", "1427"),
    # A comment is hidden in the rendered file; many carry no instruction at all.
    "skill_html_comment": ("4.0", "1427"),
    # An encoded run can hide a payload, and is as often an embedded image.
    "skill_base64_run": ("4.0", "1427"),
}


def _properties(rule_id: str) -> dict[str, Any]:
    if rule_id not in SECURITY_SEVERITY:
        return {"tags": ["agent-skills"]}
    severity, cwe = SECURITY_SEVERITY[rule_id]
    return {
        "tags": ["agent-skills", "security", f"external/cwe/cwe-{cwe}"],
        "security-severity": severity,
    }


def _rule(rule: Rule) -> dict[str, Any]:
    return {
        "id": rule.id,
        "name": _camel(rule.id),
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": rule.checks},
        "help": {"text": f"{rule.checks} Source: {rule.source}", "markdown": rule_markdown(rule)},
        "helpUri": f"{RULES_URL}#{rule.id}",
        "defaultConfiguration": {"level": rule.severity},
        "properties": _properties(rule.id),
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


FINGERPRINT = "a13nFinding/v2"
"""v2: numbers in the message are masked (v1 hashed the message as written)."""

# A count, a size or a limit in a message ("1,392 characters", "3 HTML comments"): a whole
# word of digits, so "U+200B", "v2" and "step1.md" (part of a name) are kept as written.
_NUMBER = re.compile(r"(?<!\w)\d+(?:[.,]\d+)*(?!\w)")
# The plural a count selects ("1 HTML comment", "2 HTML comments"): a final s of any word.
_PLURAL = re.compile(r"(?<=\w)s(?!\w)")


def _fingerprint_message(message: str) -> str:
    """``message`` with every number and every word's plural ending masked: what identifies a
    finding besides its rule and file, whatever count it reports."""
    return _PLURAL.sub("", _NUMBER.sub("#", message))


def _fingerprint(rule: str, uri: str, message: str, rank: int) -> str:
    """Stable across runs, line moves and changed counts: no line, no column, no number of the
    message (``message`` is masked by :func:`_fingerprint_message`), no run-dependent value."""
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
    suppressed = len(result.findings)
    for number, finding in enumerate((*result.findings, *result.suppressed)):
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
        key = (finding.rule, uri, _fingerprint_message(finding.message))
        ranks[key] = rank = ranks.get(key, -1) + 1
        entry: dict[str, Any] = {
            "ruleId": finding.rule,
            "ruleIndex": ids.index(finding.rule),
            "level": finding.severity,
            "message": {"text": finding.message},
            "locations": [location],
            "partialFingerprints": {FINGERPRINT: _fingerprint(*key, rank)},
        }
        if number >= suppressed:
            entry["suppressions"] = [{"kind": "inSource"}]
        results.append(entry)
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


def write_sarif(result: LintResult, path: str, version: str) -> None:
    """Write the SARIF log of ``result`` to the file ``path`` (``lint --sarif-output FILE``).

    One lint run gives both what ``--format`` prints and this file, so a CI job reads the
    checkout once for its annotations and its code-scanning upload. The file is replaced
    whole, never written through a link (:func:`~a13n_harness.cli._files.replace_file`);
    an ``OSError`` reaches the command, which reports it with its code and exits 1.
    """
    replace_file(path, json_text(sarif_document(result, version), sort_keys=False).encode())
