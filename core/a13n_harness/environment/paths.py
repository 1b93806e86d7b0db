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

__all__ = ["is_canonical_path", "join_path", "path_segments"]


def _has_lone_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def is_canonical_path(path: object) -> bool:
    """True when ``path`` is a canonical absolute path (module grammar)."""
    if not isinstance(path, str) or not path.startswith("/") or "\x00" in path:
        return False
    if path == "/":
        return True
    segments = path[1:].split("/")
    if any(segment in ("", ".", "..") for segment in segments):
        return False
    return not _has_lone_surrogate(path)


def path_segments(path: str) -> list[str]:
    """The segments of a canonical path (``[]`` for ``/``)."""
    return [] if path == "/" else path[1:].split("/")


def join_path(directory: str, name: str) -> str:
    """``directory`` joined with one segment ``name``."""
    return f"/{name}" if directory == "/" else f"{directory}/{name}"
