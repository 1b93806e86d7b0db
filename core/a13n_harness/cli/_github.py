"""``a13n-skills lint --format github``: one GitHub Actions workflow command per finding.

``::error file=F,line=L,col=C,title=RULE::MESSAGE`` (``warning`` for a warning,
``notice`` for a note; a finding about the run carries ``file`` and ``line`` when its
path is a file, as a configuration error does, and only ``title`` otherwise).
Paths are relative to the repository root (``LintResult.root``), as GitHub resolves an
annotation's ``file``. Escaping is GitHub's own (the runner's ``escapeData`` and
``escapeProperty``): ``%`` becomes ``%25``, CR ``%0D``, LF ``%0A``, and in a property
also ``:`` ``%3A`` and ``,`` ``%2C``. Before that, :func:`one_line` writes every
character that could break or disguise a line as an escape, so no finding can end
its command, start another (``::stop-commands::``, ``::add-mask::``) or hide text.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING

from a13n_harness.cli._output import one_line
from a13n_harness.context.lint import RULES

if TYPE_CHECKING:
    from a13n_harness.cli._findings import Finding, LintResult

__all__ = ["escape_data", "escape_property", "github_line", "github_lines"]

_COMMAND = {"error": "error", "warning": "warning", "note": "notice"}


def escape_data(text: str) -> str:
    """A workflow command's message: one line, ``%``, CR and LF escaped (``%`` first)."""
    return one_line(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow command's property value: as :func:`escape_data`, and ``:`` and ``,``."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def shown_path(path: str, root: str | None) -> str:
    """``path`` relative to ``root`` when inside it (``/``-separated), else absolute."""
    absolute = os.path.abspath(path)
    if root is not None:
        relative = os.path.relpath(absolute, root)
        if relative != os.pardir and not relative.startswith(os.pardir + os.sep):
            return relative.replace(os.sep, "/")
    return absolute


def located(finding: Finding) -> bool:
    """Whether ``finding`` has a file and line to annotate: every finding about a file, a
    configuration error (at its key, or at the configuration path that is no regular file),
    and a finding about the run whose path is a file (a PATH that is another file); not one
    about a folder or a path that does not exist (no skill, a missing PATH or root)."""
    if not RULES[finding.rule].tool_level or finding.rule == "lint_config_invalid":
        return True
    return os.path.isfile(finding.path)


def github_line(finding: Finding, root: str | None) -> str:
    """The workflow command of one finding."""
    properties = []
    if located(finding):
        properties += [
            f"file={escape_property(shown_path(finding.path, root))}",
            f"line={finding.line}",
            f"col={finding.column}",
        ]
    properties.append(f"title={escape_property(finding.rule)}")
    return f"::{_COMMAND[finding.severity]} {','.join(properties)}::{escape_data(finding.message)}"


def github_lines(result: LintResult) -> Iterator[str]:
    for finding in result.findings:
        yield github_line(finding, result.root)
