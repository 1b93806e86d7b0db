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

from a13n_harness.context._checks import is_count, plain_str, type_name
from a13n_harness.context.errors import (
    ERROR_CODES,
    ERROR_REASONS,
    DefinitionError,
    FrontmatterError,
)

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
        # A Host's str subclasses as their plain characters: none of their methods runs.
        text: object = plain_str(message)
        where: object = plain_str(path)
        spelled: object = plain_str(reason)
        known = spelled if type(spelled) is str and spelled in _reasons(self.default_code) else None
        super().__init__(
            self.default_code,
            text,  # type: ignore[arg-type]
            path=where,  # type: ignore[arg-type]
            reason=known,
        )


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


_FIELDS = ("code", "message", "reason", "path", "line", "column")
_EXCEPTION_STATE = BaseException.__dict__["__dict__"]  # the instance dict, read by the base type
_EXCEPTION_ARGS = BaseException.__dict__["args"]
_TYPE_MRO = type.__dict__["__mro__"]


def _own_errors() -> tuple[type[DefinitionError], ...]:
    return (
        DefinitionError,
        FrontmatterError,
        FileOperatorError,
        FileNotFound,
        FilePermissionDenied,
        NotADirectory,
        FileUnsupported,
        FileProviderError,
    )


def _plain_field(name: str, value: object) -> object:
    value = plain_str(value)
    if name in ("line", "column"):
        return value if type(value) is int else None
    return value if type(value) is str else None


def contained_error(error: BaseException, path: str | None = None) -> DefinitionError:
    """What a Host's code raised (or a Host's operator returned as a result), as one of the
    library's own errors whose every field is an exact built-in value.

    Nothing of the Host's runs: the error's fields are read from its instance dictionary
    through the base type (never its ``__getattribute__``, properties, ``__str__`` or
    ``__repr__``), ``str`` subclasses among them become plain ``str``, and the class is the
    nearest library class the error derives from (a Host's subclass of
    :class:`FileNotFound` is a :class:`FileNotFound`). An error of the library's own class
    with plain fields is returned as it is. Any other exception, and a
    ``DefinitionError`` whose code is not a known one, is a :class:`FileProviderError`
    (at ``path``) naming the exception's class and, when it is a plain ``str``, its first
    argument.
    """
    kind = type(error)
    own = _own_errors()
    if issubclass(kind, DefinitionError):
        state = _EXCEPTION_STATE.__get__(error)
        fields = {name: state.get(name) for name in _FIELDS}
        plain = {name: _plain_field(name, value) for name, value in fields.items()}
        code, reason = plain["code"], plain["reason"]
        if isinstance(code, str) and code in ERROR_CODES:
            if kind in own and all(plain[name] is fields[name] for name in _FIELDS):
                return error  # type: ignore[return-value]  # the library's own, plain
            base = next(cls for cls in _TYPE_MRO.__get__(kind) if cls in own)
            rebuilt: DefinitionError = BaseException.__new__(base)
            message = plain["message"] or code
            rebuilt.__dict__.update(plain, message=message)
            if reason is not None and reason not in ERROR_REASONS[code]:
                rebuilt.reason = None
            Exception.__init__(rebuilt, message)
            return rebuilt
    detail = type_name(kind)
    arguments = _EXCEPTION_ARGS.__get__(error)
    if type(arguments) is tuple and arguments and type(arguments[0]) is str:
        detail = f"{detail}: {arguments[0]}"
    return FileProviderError(f"the file operator failed: {detail}", path=path)
