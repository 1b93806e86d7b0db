"""Lint's checks of one ``SKILL.md``: bytes and values in, findings out (no I/O).

Every rule ``a13n-skills lint`` can report is a row of :data:`RULES` (its id,
severity, what it checks, the sentence of the Agent Skills specification it
comes from or "beyond the specification", and a failing example).
``docs/rules.md`` (written by ``scripts/rules_doc.py``) and the SARIF rule
metadata are generated from this table and a test keeps the document equal to it,
so a rule cannot exist in one place only.

:func:`check_document` checks the bytes of one ``SKILL.md`` against its folder's
name and a profile (:data:`PROFILES`): encoding, frontmatter, the fields, the
body's length, the characters a reader cannot see, and it lists the file
references of the body (:func:`find_references`), each already normalised
lexically (how far it climbs, whether it is absolute); whether the file exists
is the caller's question (it needs the file system, see
:mod:`a13n_harness.cli._lint`).

Linear by construction: a ``SKILL.md`` is untrusted (a pull request writes it),
and lint runs on every pull request. Each step is one left-to-right pass over
the body, or a regular expression whose every attempt stops at the next
bracket, quote or backtick run (possessive quantifiers, no backtracking into
what was consumed), so no line shape makes the work grow faster than its
length (``scripts/bench.py``, section ``lint``, measures it on the hostile shapes).

Frontmatter is first parsed by :func:`parse_skill_document`, which enforces
every structural guard (size, depth, node count, aliases, tags, duplicate keys)
while the events stream; only a document that passes those guards is walked
again here to check the fields, so this walk is bounded the same way.

Field values are checked as a YAML 1.2 reader sees them: a plain (unquoted)
scalar that the YAML 1.2 core schema types as a number, a boolean or null
(``version: 1.0``, ``enabled: true``, ``license:``) is not a string, whatever
our own catalog parser (which keeps every scalar as written) makes of it,
because a JavaScript or Go client loading the same file gets a number.

One concept per module: the rule table (``_rules``), positions in the decoded text
(``_text``), the frontmatter's YAML nodes (``_nodes``), the field checks (``_fields``), the
content rules (``_content``), the reference scanner (``_references``) and the document
driver (``_document``). This package is their public face: every public name is imported
from here, and reports this package as its module.
"""

from __future__ import annotations

# The `name as name` imports are imported from here beyond __all__: by the command line
# (the configuration, the unit of installation, the one parse of each document) and SARIF's help.
from a13n_harness.context.lint._document import DocumentCheck, check_document
from a13n_harness.context.lint._document import DocumentParse as DocumentParse
from a13n_harness.context.lint._document import check_parsed as check_parsed
from a13n_harness.context.lint._document import parse_document as parse_document
from a13n_harness.context.lint._references import PLUGIN_MANIFESTS as PLUGIN_MANIFESTS
from a13n_harness.context.lint._references import PROJECT_AGENT_FOLDERS as PROJECT_AGENT_FOLDERS
from a13n_harness.context.lint._references import Reference, find_references
from a13n_harness.context.lint._references import installation_unit as installation_unit
from a13n_harness.context.lint._rules import (
    BASE64_MIN_CHARS,
    BODY_MAX_LINES,
    BODY_MAX_TOKENS,
    COMPATIBILITY_MAX_CHARS,
    DEFAULT_PROFILE,
    DESCRIPTION_MAX_CHARS,
    DOCUMENT_MAX_BYTES,
    PLACEHOLDERS,
    PLATFORM_FIELDS,
    PLATFORM_NAMES,
    PROFILES,
    REFERENCES_MAX,
    RULES,
    SPEC_FIELDS,
    Issue,
    Rule,
    rule_for_error,
    rules_document,
)
from a13n_harness.context.lint._rules import FieldKind as FieldKind
from a13n_harness.context.lint._rules import Severity as Severity
from a13n_harness.context.lint._rules import rule_markdown as rule_markdown

__all__ = [
    "BASE64_MIN_CHARS",
    "BODY_MAX_LINES",
    "BODY_MAX_TOKENS",
    "COMPATIBILITY_MAX_CHARS",
    "DEFAULT_PROFILE",
    "DESCRIPTION_MAX_CHARS",
    "DOCUMENT_MAX_BYTES",
    "PLACEHOLDERS",
    "PLATFORM_FIELDS",
    "PLATFORM_NAMES",
    "PROFILES",
    "REFERENCES_MAX",
    "RULES",
    "SPEC_FIELDS",
    "DocumentCheck",
    "Issue",
    "Reference",
    "Rule",
    "check_document",
    "find_references",
    "rule_for_error",
    "rules_document",
]

# The public records and functions name this package as their module (reprs, pickles and
# the public-surface tests see the path users import), not the private module holding them.
for _public in (
    DocumentCheck,
    Issue,
    Reference,
    Rule,
    check_document,
    find_references,
    rule_for_error,
    rule_markdown,
    rules_document,
):
    _public.__module__ = __name__
del _public
