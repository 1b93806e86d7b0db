"""Host objects that lie: ``str`` subclasses and friends whose methods must never run.

A Host embedding the library may hand it values of its own classes. A certified
renderer must not depend on them behaving: every public entry point takes the
exact built-in value (the plain ``str`` of the same characters) without calling
the subclass's methods, and no error message runs a Host's ``__repr__``,
ordering or iteration. These builders make such values for property tests:
each records the name of every method of its own that runs in :data:`CALLS`,
and lies in what it answers (``isascii`` and ``isprintable`` say ``True``,
``encode`` gives ``b""``, ``replace`` changes nothing, ``__len__`` is 0,
``__iter__`` yields nothing, ``__lt__`` and ``__str__`` raise; ``__repr__`` is
recorded but answers, so that test tools can show the value).

>>> from a13n_harness.context.encoder import encode_value
>>> CALLS.clear()
>>> encode_value(LyingStr("</x>"))
'&lt;/x&gt;'
>>> CALLS
[]
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, NoReturn

from hypothesis import strategies as st

__all__ = [
    "CALLS",
    "LyingInt",
    "LyingStr",
    "RaisingCounter",
    "RaisingSet",
    "UnorderableName",
    "lying_strs",
    "no_host_code",
]

CALLS: list[str] = []
"""The name of every method of a lying object that ran, in order; tests clear it first."""


def _called(name: str) -> None:
    CALLS.append(name)


class HostCodeRan(RuntimeError):
    """Raised by the lying objects' methods that must never run in an error path."""


class LyingStr(str):
    """A ``str`` whose methods lie about its characters (see the module docstring)."""

    def isascii(self) -> bool:
        _called("isascii")
        return True

    def isprintable(self) -> bool:
        _called("isprintable")
        return True

    def encode(self, encoding: str = "utf-8", errors: str = "strict") -> bytes:
        _called("encode")
        return b""

    def replace(self, old: str, new: str, count: Any = -1) -> str:
        _called("replace")
        return self

    def translate(self, table: Any) -> str:
        _called("translate")
        return self

    def startswith(self, *args: Any) -> bool:
        _called("startswith")
        return True

    def endswith(self, *args: Any) -> bool:
        _called("endswith")
        return True

    def lstrip(self, chars: Any = None) -> str:
        _called("lstrip")
        return self

    def split(self, *args: Any, **kwargs: Any) -> list[str]:
        _called("split")
        return []

    def __len__(self) -> int:
        _called("__len__")
        return 0

    def __iter__(self) -> Iterator[str]:
        _called("__iter__")
        return iter(())

    def __getitem__(self, key: Any) -> str:
        _called("__getitem__")
        return ""

    def __contains__(self, key: object) -> bool:
        _called("__contains__")
        return False

    def __add__(self, other: object) -> str:
        _called("__add__")
        return "<injected>"

    def __mod__(self, other: object) -> str:
        _called("__mod__")
        return "<injected>"

    def __format__(self, spec: str) -> str:
        _called("__format__")
        return "<injected>"

    def __str__(self) -> str:
        _called("__str__")
        raise HostCodeRan("__str__")

    def __repr__(self) -> str:
        # Recorded, not raised: test tools (pytest, Hypothesis) show values too.
        _called("__repr__")
        return f"LyingStr({str.__repr__(self)})"

    def __eq__(self, other: object) -> bool:
        _called("__eq__")
        return True

    def __ne__(self, other: object) -> bool:
        _called("__ne__")
        return False

    def __lt__(self, other: object) -> bool:
        _called("__lt__")
        raise HostCodeRan("__lt__")

    def __hash__(self) -> int:
        _called("__hash__")
        return 0


class UnorderableName(LyingStr):
    """A selected name whose ``__repr__`` and ordering raise (an unknown selection)."""


class LyingInt(int):
    """An ``int`` whose conversions and comparisons lie or raise."""

    def __format__(self, spec: str) -> str:
        _called("__format__")
        raise HostCodeRan("__format__")

    def __repr__(self) -> str:
        _called("__repr__")
        raise HostCodeRan("__repr__")

    def __index__(self) -> int:
        _called("__index__")
        raise HostCodeRan("__index__")

    def __eq__(self, other: object) -> bool:
        _called("__eq__")
        return True

    def __hash__(self) -> int:
        _called("__hash__")
        return 0


class RaisingSet(frozenset[str]):
    """A selection whose iteration, length and membership raise."""

    def __iter__(self) -> NoReturn:
        _called("__iter__")
        raise HostCodeRan("__iter__")

    def __len__(self) -> NoReturn:
        _called("__len__")
        raise HostCodeRan("__len__")

    def __contains__(self, item: object) -> NoReturn:
        _called("__contains__")
        raise HostCodeRan("__contains__")

    def __sub__(self, other: object) -> NoReturn:
        _called("__sub__")
        raise HostCodeRan("__sub__")


class RaisingCounter:
    """A token counter whose declaration attributes (properties) raise; ``count`` is
    the UTF-8 length, or, with ``count_raises``, the named attribute raises too."""

    def __init__(self, raising: str = "prefix_monotone") -> None:
        self._raising = raising

    def __getattr__(self, name: str) -> Any:
        if name == self._raising:
            _called(name)
            raise HostCodeRan(name)
        if name == "count":
            return self._count
        raise AttributeError(name)

    def _count(self, text: str) -> int:
        return len(str.encode(text, "utf-8"))


def lying_strs(text: st.SearchStrategy[str] | None = None) -> st.SearchStrategy[LyingStr]:
    """Hypothesis strategy: :class:`LyingStr` of drawn text (default: any text,
    with the characters the encoder escapes, markup and surrogates well represented)."""
    if text is None:
        pieces = st.sampled_from(
            ["<", ">", "&", "</skills_instructions>", "\u202e", "\n", "\x00", "\ud800", "&amp;"]
        )
        text = st.lists(st.one_of(pieces, st.text(max_size=4)), max_size=6).map("".join)
    return text.map(LyingStr)


def no_host_code(run: Callable[[], object]) -> tuple[object, list[str]]:
    """``run()`` and the lying methods it ran (the value, or the exception it raised)."""
    CALLS.clear()
    try:
        value: object = run()
    except Exception as error:  # the caller inspects what was raised
        value = error
    return value, list(CALLS)
