"""The shared argument checks of the pure core.

Every public entry point checks what a Host hands it with these predicates
before touching it, so a bad argument becomes the entry point's own
``DefinitionError`` (docs/contract.md §0) rather than a ``TypeError`` or ``AttributeError``
from deep inside, and every entry point agrees on what "a count" or "bytes"
means. Each caller raises its own code: the predicates only answer.
"""

from __future__ import annotations

__all__ = ["BYTES_LIKE", "has_lone_surrogate", "is_bytes_like", "is_count", "is_text"]

BYTES_LIKE = (bytes, bytearray, memoryview)
"""What "bytes" accepts: a buffer of bytes, never an ``int`` (``bytes(10**10)``
allocates 10 GB of zeros) nor an iterable of ints."""


def is_bytes_like(value: object) -> bool:
    """Whether ``value`` is ``bytes``, ``bytearray`` or ``memoryview``."""
    return isinstance(value, BYTES_LIKE)


def is_count(value: object) -> bool:
    """Whether ``value`` is an ``int`` >= 0 that is not a ``bool`` (``True`` is not a count)."""
    return type(value) is int and value >= 0


def has_lone_surrogate(text: str) -> bool:
    """Whether ``text`` (a ``str``) holds a code point U+D800..U+DFFF: it has no UTF-8 form."""
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def is_text(value: object) -> bool:
    """Whether ``value`` is a ``str`` with a UTF-8 form (no lone surrogate)."""
    return isinstance(value, str) and not has_lone_surrogate(value)
