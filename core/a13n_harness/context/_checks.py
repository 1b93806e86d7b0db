"""The shared argument checks of the project, written once.

Every public entry point checks what a Host hands it with these predicates
before touching it, so a bad argument becomes the entry point's own
``DefinitionError`` (docs/contract.md §0) rather than a ``TypeError`` or ``AttributeError``
from deep inside, and every entry point agrees on what "a count", "a u64",
"bytes" or "text" means. Each caller raises its own code: the predicates
only answer. The pure core, the file layer, discovery and the command line
all import them from here (these checks used to be written out 17, 5 and 2
times).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import TypeGuard, TypeVar

    _T = TypeVar("_T")

__all__ = [
    "BYTES_LIKE",
    "MAX_U64",
    "describe",
    "has_lone_surrogate",
    "is_bytes_like",
    "is_count",
    "is_kind",
    "is_text",
    "is_u64",
    "plain_bytes",
    "plain_str",
    "plain_tuple",
    "type_name",
    "utf8_error_at",
]

MAX_U64 = 2**64 - 1  # the largest count a u64 consumer (JSON readers, Rust and Go hosts) holds

BYTES_LIKE = (bytes, bytearray, memoryview)
"""What "bytes" accepts: a buffer of bytes, never an ``int`` (``bytes(10**10)``
allocates 10 GB of zeros) nor an iterable of ints."""


def is_bytes_like(value: object) -> TypeGuard[bytes | bytearray | memoryview]:
    """Whether ``value`` is ``bytes``, ``bytearray`` or ``memoryview``."""
    return isinstance(value, BYTES_LIKE)


def is_count(value: object, minimum: int = 0) -> TypeGuard[int]:
    """Whether ``value`` is an ``int`` >= ``minimum`` that is not a ``bool``.

    ``True`` is not a count, nor is ``1.0`` or an ``int`` subclass. ``minimum``
    is ``0`` for a count and ``1`` for a positive bound.
    """
    return type(value) is int and value >= minimum


def is_u64(value: object) -> TypeGuard[int]:
    """Whether ``value`` is a count (:func:`is_count`) of at most :data:`MAX_U64`."""
    return type(value) is int and 0 <= value <= MAX_U64


def has_lone_surrogate(text: str) -> bool:
    """Whether ``text`` (a ``str``) holds a code point U+D800..U+DFFF: it has no UTF-8 form.

    Python's strict UTF-8 codec refuses exactly those code points, so the
    test runs in C; ASCII text cannot hold one and is answered at once.
    """
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def is_text(value: object) -> TypeGuard[str]:
    """Whether ``value`` is a ``str`` with a UTF-8 form (no lone surrogate)."""
    return isinstance(value, str) and not has_lone_surrogate(value)


def is_kind(value: object, kind: type[_T]) -> TypeGuard[_T]:
    """Whether ``value`` is an instance of ``kind``, asked without running its code.

    ``isinstance`` reads ``value.__class__`` when the type itself does not match,
    and a Host's object may make that a property; the type's own method order
    (what ``issubclass`` reads for a real class) cannot lie.
    """
    return issubclass(type(value), kind)


def plain_str(value: object) -> object:
    """A ``str`` subclass as the plain ``str`` of the same characters; anything else as is.

    The copy is made by ``str.__str__`` of the base type, which reads the
    characters themselves: none of the subclass's methods runs (``isascii``,
    ``isprintable``, ``encode``, ``replace``, ``__len__``, ``__iter__``, ``__str__``
    may all lie or raise in a Host's object). Every public entry point that takes
    text passes it through here first, so what it checks is what it renders.
    """
    kind = type(value)
    if kind is str or not issubclass(kind, str):
        return value
    return str.__str__(value)


def plain_bytes(value: object) -> object:
    """A ``bytes``/``bytearray`` subclass or a ``memoryview`` as plain ``bytes``; else as is.

    ``bytes(value)`` would call a subclass's ``__bytes__``; the base type's slice
    copies the buffer itself.
    """
    kind = type(value)
    if kind is bytes:
        return value
    if issubclass(kind, bytes):
        return bytes.__getitem__(value, slice(None))  # type: ignore[call-overload]
    if issubclass(kind, bytearray):
        return bytes(bytearray.__getitem__(value, slice(None)))  # type: ignore[call-overload]
    if kind is memoryview:
        return memoryview.tobytes(value)  # type: ignore[arg-type]
    return value


def plain_tuple(value: object) -> object:
    """A ``tuple`` subclass as a plain ``tuple`` of its items (its ``__iter__``,
    ``__len__`` and ``__getitem__`` not run); anything else as is."""
    kind = type(value)
    if kind is tuple or not issubclass(kind, tuple):
        return value
    return tuple.__getitem__(value, slice(None))  # type: ignore[call-overload]


def type_name(kind: type) -> str:
    """The name of the class ``kind`` as the interpreter holds it: a metaclass's
    ``__name__`` property (a Host's code) is not run."""
    # Always a str: the interpreter refuses to set a class's __name__ to anything else.
    name: str = type.__dict__["__name__"].__get__(kind)
    return name


_SHOWN_BITS = 64  # ints up to a u64 are shown in full; a longer one by its size


def describe(value: object) -> str:
    """A safe description of a refused argument, for an error message.

    Never raises and never runs the argument's own code: a ``str`` is shown
    quoted (``repr`` of a ``str`` cannot fail), ``None``, a ``bool`` and an
    ``int`` up to 64 bits as written, a longer ``int`` by its size
    (``str()`` of an int of more than 4,300 digits raises ``ValueError``), and
    anything else by its type name alone (its ``__repr__`` is the caller's
    code: it may raise, hang or be huge).

    >>> describe("x"), describe(-1), describe(10**5000), describe(object())
    ("'x'", '-1', 'an int of 16610 bits', 'an object of type object')
    """
    kind = type(value)
    if kind is int:
        assert isinstance(value, int)
        bits = value.bit_length()
        return repr(value) if bits <= _SHOWN_BITS else f"an int of {bits} bits"
    if value is None or kind is bool or kind is str:
        return repr(value)
    return f"an object of type {type_name(kind)}"


def utf8_error_at(data: bytes, offset: int) -> tuple[int, int]:
    """The 1-based line and column (in code points) of byte ``offset`` of ``data``, where
    UTF-8 decoding failed: every byte before it is valid UTF-8. The one locator of an
    encoding error, for the frontmatter parser and lint alike."""
    prefix = data[:offset]
    line_start = prefix.rfind(b"\n") + 1
    return prefix.count(b"\n") + 1, len(prefix[line_start:].decode("utf-8")) + 1
