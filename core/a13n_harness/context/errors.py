"""The one error type of the project, and its stable codes.

Callers branch on ``error.code`` (and, for frontmatter, ``error.reason``),
never on message text. Every failure a caller can act on is a
:class:`DefinitionError` or a subclass; no other exception type leaves a
public entry point.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from a13n_harness.context._checks import describe

if TYPE_CHECKING:
    from collections.abc import Mapping

# types.MappingProxyType without importing ``types`` (which defines it the same way).
_ReadOnly = type(type.__dict__)

ERROR_CODES: frozenset[str] = frozenset(
    {
        "context_value_invalid",
        "skill_frontmatter_invalid",
        "catalog_invalid",
        "catalog_total_unrepresentable",
        "allowance_invalid",
        "rendering_not_certified",
        "manifest_invalid",
        "date_out_of_range",
        "git_status_invalid",
        "skill_root_invalid",
        "skill_root_missing",
        "skill_root_unroutable",
        "skill_root_unsupported",
        "skill_root_overflow",
        "skill_permission_denied",
        "skill_provider_failed",
        "skill_catalog_overflow",
        "skill_name_conflict",
        "skill_materializer_root",
        "skill_document_changed",
        "skill_catalog_stale",
        "skill_selection_unknown",
        "activation_not_certified",
        # The command line's own failures (docs/contract.md §8): an operating-system
        # error on a path it was given or on stdout, and a usage error. Listed here so
        # that every line ``a13n-skills: <code>: ...`` carries a code from this table.
        "path_not_found",
        "path_not_a_directory",
        "path_is_a_directory",
        "path_not_a_regular_file",
        "path_permission_denied",
        "os_error",
        "output_failed",
        "usage_invalid",
        # Run-level problems of ``lint``, printed on stderr like the errors above.
        "no_skills_found",
        "lint_config_invalid",
    }
)
"""Every code a :class:`DefinitionError` may carry (docs/contract.md "Error codes and reasons"),
and every code the command prints for an operating-system or usage failure."""

FRONTMATTER_REASONS: frozenset[str] = frozenset(
    {
        "encoding",
        "missing_fence",
        "unterminated",
        "too_large",
        "multiple_documents",
        "not_mapping",
        "alias",
        "tag",
        "non_scalar_key",
        "duplicate_key",
        "too_deep",
        "too_many_nodes",
        "yaml_syntax",
        "missing_name",
        "name_invalid",
        "missing_description",
        "description_invalid",
    }
)
"""Every ``reason`` a :class:`FrontmatterError` may carry (docs/contract.md §2)."""

ERROR_REASONS: Mapping[str, frozenset[str]] = _ReadOnly(
    {
        "context_value_invalid": frozenset({"entity", "raw_character", "cwd"}),
        "skill_frontmatter_invalid": FRONTMATTER_REASONS | {"limits"},
        "catalog_invalid": frozenset(
            {
                "entries",
                "order",
                "name",
                "description",
                "file",
                "listed",
                "form",
                "unlisted",
                "roots",
                "type",
                "policy",
                "manager",
                "bindings",
                "prepared",
                "activation",
            }
        ),
        "catalog_total_unrepresentable": frozenset(),
        "allowance_invalid": frozenset({"budget", "counter", "fit", "text", "tokenizer"}),
        "rendering_not_certified": frozenset(),
        "manifest_invalid": frozenset(
            {
                "oversize",
                "encoding",
                "json",
                "too_deep",
                "duplicate_key",
                "non_finite",
                "unknown_key",
                "missing_key",
                "type",
                "surrogate",
                "version",
                "catalog",
                "not_canonical",  # valid JSON of a valid manifest, not spelled as encoded
            }
        ),
        "date_out_of_range": frozenset(),
        "git_status_invalid": frozenset(
            {"record", "header", "truncated", "missing_head", "timeout"}
        ),
        "skill_root_invalid": frozenset(
            {
                "source",
                "source_id",
                "duplicate_source",
                "host_root",
                "limit",
                "mount_name",
                "provider",
                "selection",
                "outside_workspace",
            }
        ),
        "skill_root_missing": frozenset(),
        "skill_root_unroutable": frozenset(
            {"not_entered", "entered", "no_mount", "unknown_mount", "outside_namespace"}
        ),
        "skill_root_unsupported": frozenset({"link_loop"}),
        "skill_root_overflow": frozenset({"resources"}),
        "skill_permission_denied": frozenset({"link_escapes", "outside_skill"}),
        "skill_provider_failed": frozenset(),
        "skill_catalog_overflow": frozenset(),
        "skill_name_conflict": frozenset(),
        "skill_materializer_root": frozenset(),
        "skill_document_changed": frozenset(),
        "skill_catalog_stale": frozenset(),
        "skill_selection_unknown": frozenset(),
        "activation_not_certified": frozenset(),
        "path_not_found": frozenset(),
        "path_not_a_directory": frozenset(),
        "path_is_a_directory": frozenset(),
        "path_not_a_regular_file": frozenset(),
        "path_permission_denied": frozenset(),
        "os_error": frozenset(),
        "output_failed": frozenset(),
        "usage_invalid": frozenset(),
        "no_skills_found": frozenset(),
        "lint_config_invalid": frozenset(),
    }
)
"""The ``reason`` values each code may carry (docs/contract.md "Error codes and reasons").

A reason is API like a code: :class:`DefinitionError` refuses one outside
its code's set with ``ValueError`` at the raise site, so a typo fails the
first test that reaches it instead of reaching a caller who branches on it.
A code with an empty set carries no reason."""


def format_location(path: str, line: int | None = None, column: int | None = None) -> str:
    """``path``, or ``path:line:column`` (1-based) when the line is known.

    The one spelling of a location: error messages, discovery warnings and
    lint findings all use it. A known line without a column is column 1 (the
    start of the line); a column without a line is not shown.

    >>> format_location("a/SKILL.md"), format_location("a/SKILL.md", 3, 7)
    ('a/SKILL.md', 'a/SKILL.md:3:7')
    >>> format_location("a/SKILL.md", 3)
    'a/SKILL.md:3:1'
    """
    if line is None:
        return path
    return f"{path}:{line}:{1 if column is None else column}"


class DefinitionError(Exception):
    """A failure with a stable ``code`` a caller can act on.

    ``reason`` refines the code; ``path``, ``line`` and ``column`` (1-based)
    locate the problem where that helps.
    """

    code: str
    message: str
    reason: str | None
    path: str | None
    line: int | None
    column: int | None

    def __init__(
        self,
        code: str,
        message: str = "",
        *,
        reason: str | None = None,
        path: str | None = None,
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        if not isinstance(code, str) or code not in ERROR_CODES:
            raise ValueError(f"unknown error code {describe(code)}")
        if reason is not None and (
            not isinstance(reason, str) or reason not in ERROR_REASONS[code]
        ):
            raise ValueError(f"unknown reason {describe(reason)} for code {code}")
        self.code = code
        self.message = message or code
        self.reason = reason
        self.path = path
        self.line = line
        self.column = column
        super().__init__(self.message)

    def __str__(self) -> str:
        where = ""
        if self.path is not None:
            where = format_location(self.path, self.line, self.column) + ": "
        reason = f" ({self.reason})" if self.reason else ""
        return f"{where}{self.code}{reason}: {self.message}"

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(code={self.code!r}, message={self.message!r}, "
            f"reason={self.reason!r}, path={self.path!r}, line={self.line!r}, "
            f"column={self.column!r})"
        )

    def __reduce__(self) -> tuple[object, ...]:
        return (_rebuild, (type(self), self.__dict__.copy()))


def _rebuild(cls: type[DefinitionError], state: dict[str, object]) -> DefinitionError:
    """Unpickle: ``state`` is the ``__dict__`` that ``__reduce__`` copied, so it holds
    every attribute ``__init__`` set, ``message`` among them."""
    error = cls.__new__(cls)
    error.__dict__.update(state)
    Exception.__init__(error, state["message"])
    return error


class FrontmatterError(DefinitionError):
    """A SKILL.md whose frontmatter is unusable: code ``skill_frontmatter_invalid``."""

    def __init__(
        self,
        reason: str,
        message: str = "",
        *,
        path: str | None = None,
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        if not isinstance(reason, str) or reason not in FRONTMATTER_REASONS:
            raise ValueError(f"unknown frontmatter reason {describe(reason)}")
        super().__init__(
            "skill_frontmatter_invalid",
            message or reason.replace("_", " "),
            reason=reason,
            path=path,
            line=line,
            column=column,
        )
