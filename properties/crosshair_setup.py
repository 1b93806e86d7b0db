"""CrossHair's view of the pure core's constant tables (test setup only: the core is as it ships).

CrossHair runs a ``functools.cache`` function's body again at every call (it patches the
cache wrapper's ``__call__``, ``crosshair.libimpl.functoolslib``: a cached value might hold
a symbolic one). The core builds its constant tables that way, on first use: the encoder's
table of printable escaped code points walks every escaped range, about 3 CPU s a call when
traced, so a single encoded non-ASCII value spent a whole path's budget and CrossHair met no
path through the renderer's candidates, the facts or the manifest. Each argument-free cached
function of ``a13n_harness.context`` is patched (``crosshair.core.register_patch``, on the
function the cache wraps, which is what the skipped cache calls) to return the value it
builds, built once here before any search: a value built during a search would make the
next path differ, which CrossHair takes for nondeterminism.

Used by the CrossHair contract modules (``crosshair check``) and, under the ``crosshair``
Hypothesis profile, by ``properties/conftest.py`` (the hypothesis-crosshair backend).
"""

from __future__ import annotations

import functools
import importlib
import inspect
import pkgutil
from collections.abc import Callable

import crosshair.core_and_libs  # noqa: F401 - CrossHair's own patches, registered first
from crosshair.core import _PATCH_REGISTRATIONS, realize, register_patch
from crosshair.libimpl.builtinslib import LazyIntSymbolicStr
from crosshair.tracers import NoTracing

_REGISTERED: list[str] = []


def _ord(char: str) -> int:
    """CrossHair's ``ord`` with the code point of a symbolic one-character string read while
    tracing: CrossHair 0.0.113 reads it with tracing off, and a character cut from a
    symbolic string (a regular expression's match, as the encoder's ``_numeric`` gets) holds
    symbolic bounds, whose arithmetic then raises ``CrossHairInternal`` ("Numeric operation
    on symbolic while not tracing") instead of exploring the path."""
    if len(char) != 1:
        raise TypeError
    with NoTracing():  # type: ignore[no-untyped-call]
        symbolic = isinstance(char, LazyIntSymbolicStr)
    if symbolic:
        code_point: int = char._codepoints[0]  # type: ignore[attr-defined]
        return code_point
    return ord(realize(char))


def constant_tables() -> dict[str, Callable[[], object]]:
    """``{module.name: function}``: every argument-free ``functools.cache`` function of the
    pure core's modules (the function the cache wraps)."""
    import a13n_harness.context  # noqa: PLC0415 - the tree's, through PYTHONPATH

    found: dict[str, Callable[[], object]] = {}
    for info in pkgutil.iter_modules(a13n_harness.context.__path__):
        module = importlib.import_module(f"a13n_harness.context.{info.name}")
        for name, value in vars(module).items():
            if not isinstance(value, functools._lru_cache_wrapper):
                continue
            wrapped: Callable[[], object] = value.__wrapped__
            if wrapped.__module__ == module.__name__ and not inspect.signature(wrapped).parameters:
                found[f"{info.name}.{name}"] = wrapped
    return found


def register_constant_tables() -> list[str]:
    """Patch each constant table's builder to return its value (once per process); the
    names patched."""
    if not _REGISTERED:
        # Replaces CrossHair's own patch of ord (its registration is the dictionary's entry,
        # read each time a search starts).
        _PATCH_REGISTRATIONS[ord] = _ord
        _REGISTERED.append("builtins.ord")
        for name, build in sorted(constant_tables().items()):
            value = build()
            register_patch(build, lambda value=value: value)
            _REGISTERED.append(name)
    return list(_REGISTERED)
