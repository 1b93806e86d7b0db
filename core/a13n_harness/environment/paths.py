"""Canonical absolute paths, the only path form the environment accepts.

Grammar::

    path    = "/" / 1*( "/" segment )
    segment = 1*( any character but "/" and NUL ), not "." and not ".."

So: it starts with ``/``; no empty, ``.`` or ``..`` segment (hence no repeated
or trailing ``/`` except the root ``/`` itself); no NUL; and, decision, no lone
surrogate (a path that is not valid Unicode cannot reach a catalog or model
context faithfully). Paths are never normalized: a non-canonical path is
refused, so two spellings can never name one file.
"""

from __future__ import annotations

from collections.abc import Sequence

from a13n_harness.context._checks import describe, has_lone_surrogate, plain_str
from a13n_harness.context.errors import DefinitionError
from a13n_harness.environment.operator import plain_sequence

__all__ = ["is_canonical_path", "join_path", "path_segments", "resolve_link_target"]


def is_canonical_path(path: object) -> bool:
    """True when ``path`` is a canonical absolute path (module grammar).

    A ``str`` subclass is judged by its characters (its own methods never run), so
    one whose ``startswith`` or ``split`` lies is not a path; callers keep
    :func:`~a13n_harness.context._checks.plain_str` of what passed."""
    if type(path) is not str:
        path = plain_str(path)
    if type(path) is not str or not path.startswith("/") or "\x00" in path:
        return False
    if path == "/":
        return True
    # With one "/" appended, every segment is followed by "/": an empty, "." or ".."
    # segment is exactly a "//", "/./" or "/../" in it (one substring search each, in C).
    closed = path + "/"
    if "//" in closed or "/./" in closed or "/../" in closed:
        return False
    return path.isascii() or not has_lone_surrogate(path)


def path_segments(path: str) -> list[str]:
    """The segments of a canonical path (``[]`` for ``/``); not a str: ``skill_root_invalid``."""
    path = plain_str(path)  # type: ignore[assignment]  # a Host's subclass: its characters
    if type(path) is not str:
        raise DefinitionError("skill_root_invalid", f"a path must be a str: {describe(path)}")
    return [] if path == "/" else path[1:].split("/")


def join_path(directory: str, name: str) -> str:
    """``directory`` joined with one segment ``name``.

    A ``str`` subclass is taken as its plain characters (``plain_str``); anything that is
    not text is ``skill_root_invalid`` (formatting an ``int`` past Python's digit limit would
    raise ``ValueError``)."""
    folder = directory if type(directory) is str else plain_str(directory)
    segment = name if type(name) is str else plain_str(name)
    if type(folder) is not str or type(segment) is not str:
        raise DefinitionError("skill_root_invalid", "a path and a segment are each a str")
    return f"/{segment}" if folder == "/" else f"{folder}/{segment}"


def _plain_segments(value: object) -> object:
    items = plain_sequence(value)
    return value if items is None else [plain_str(item) for item in items]


def resolve_link_target(
    parent: Sequence[str], target: str, root: Sequence[str]
) -> list[str] | None:
    """Where a symbolic link leads, as segments below the root, or ``None`` when it leaves.

    ``parent`` is the directory holding the link (segments below the root),
    ``target`` the link's text and ``root`` the host segments of the root
    (``[]`` for an operator whose ``/`` is its own namespace). The target is
    resolved *lexically*, however it is spelled: empty and ``.`` segments are
    dropped (``//x``, ``/./x``, ``x/``), ``..`` removes the segment before it
    (``a/../b`` is ``b``). An absolute target is resolved over the whole host
    path (``..`` at the host ``/`` stays there, as POSIX says) and must then be
    the root or below it; a relative target starts at ``parent`` and may not
    climb above the root. No file system is consulted: the answer depends on
    the spelling alone, so the on-disk and in-memory operators agree on it.
    """
    # A Host's subclasses as their plain values: a str's characters, a list's or tuple's items
    # (read by the base type; their own __iter__ and __len__ never run).
    target = plain_str(target)  # type: ignore[assignment]
    parent = _plain_segments(parent)  # type: ignore[assignment]
    root = _plain_segments(root)  # type: ignore[assignment]
    if (
        type(target) is not str
        or isinstance(parent, str)
        or isinstance(root, str)
        or not isinstance(parent, Sequence)
        or not isinstance(root, Sequence)
    ):
        raise DefinitionError(
            "skill_root_invalid", "a link target is a str, parent and root sequences of str"
        )
    absolute = target.startswith("/")
    stack: list[str] = [] if absolute else list(parent)
    for segment in target.split("/"):
        if segment in ("", "."):
            continue
        if segment == "..":
            if stack:
                stack.pop()
            elif not absolute:
                return None  # a relative target climbing above the root
            continue
        stack.append(segment)
    if not absolute:
        return stack
    depth = len(root)
    if stack[:depth] != list(root):
        return None
    return stack[depth:]
