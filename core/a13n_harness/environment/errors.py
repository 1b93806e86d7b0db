"""The errors a :class:`~a13n_harness.environment.FileOperator` raises.

Decision (docs/contract.md §7 names the classes, not their base): every file
operator error is a :class:`~a13n_harness.context.errors.DefinitionError`,
so nothing but a ``DefinitionError`` ever leaves a public entry point, and
each class carries the discovery code it stands for when it reaches a skill
root. Discovery still branches on the class, never on the code, because the
same class means different things for a root and for an entry below it
(``FileNotFound`` at a root is ``skill_root_missing``; below it, a skipped
entry).
"""

from __future__ import annotations

from a13n_harness.context._checks import is_count
from a13n_harness.context.errors import ERROR_REASONS, DefinitionError

__all__ = [
    "FileNotFound",
    "FileOperatorError",
    "FilePermissionDenied",
    "FileProviderError",
    "FileUnsupported",
    "NotADirectory",
    "check_limit",
]


def _reasons(code: str) -> frozenset[str]:
    return ERROR_REASONS.get(code, frozenset())


class FileOperatorError(DefinitionError):
    """Base class of every error a file operator raises."""

    default_code = "skill_provider_failed"

    def __init__(
        self, message: str = "", *, path: str | None = None, reason: str | None = None
    ) -> None:
        # A reason the code does not carry (a Host's operator spelling one of its own) is
        # dropped, never an error of its own: the class and the code still say what failed.
        known = (
            reason if isinstance(reason, str) and reason in _reasons(self.default_code) else None
        )
        super().__init__(self.default_code, message, path=path, reason=known)


class FileNotFound(FileOperatorError):
    """The path names nothing."""

    default_code = "skill_root_missing"


class FilePermissionDenied(FileOperatorError):
    """Access refused, or the path or a symbolic link would leave the operator's root."""

    default_code = "skill_permission_denied"


class NotADirectory(FileOperatorError):
    """A directory was expected and the path names something else."""

    default_code = "skill_root_unsupported"


class FileUnsupported(FileOperatorError):
    """The path names something the operator will not open: a FIFO, a device, a link loop."""

    default_code = "skill_root_unsupported"


class FileProviderError(FileOperatorError):
    """The provider behind the operator failed (I/O error, broken mount, closed scope)."""

    default_code = "skill_provider_failed"


def check_limit(limit: object) -> int:
    """``limit`` (a read bound) when it is a non-negative ``int``, else :class:`FileProviderError`.

    Every operator and scope checks its ``limit`` argument with this one rule.
    """
    if not is_count(limit):
        raise FileProviderError("limit must be a non-negative int")
    return limit
