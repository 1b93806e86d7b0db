"""The one error type of the project, and its stable codes.

Callers branch on ``error.code`` (and, for frontmatter, ``error.reason``),
never on message text. Every failure a caller can act on is a
:class:`DefinitionError` or a subclass; no other exception type leaves a
public entry point.
"""

from __future__ import annotations

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
    }
)
"""Every code a :class:`DefinitionError` may carry (docs/contract.md "Error codes and reasons")."""

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
            raise ValueError(f"unknown error code {code!r}")
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
            where = self.path
            if self.line is not None:
                where += f":{self.line}"
                if self.column is not None:
                    where += f":{self.column}"
            where += ": "
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
    error = cls.__new__(cls)
    error.__dict__.update(state)
    Exception.__init__(error, state.get("message", ""))
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
            raise ValueError(f"unknown frontmatter reason {reason!r}")
        super().__init__(
            "skill_frontmatter_invalid",
            message or reason.replace("_", " "),
            reason=reason,
            path=path,
            line=line,
            column=column,
        )
