"""The merge-gate form of the mutation gate (``mutmut.py --changed-since REF``): which
functions of the pure core changed since a commit, and which test modules can reach them."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

from _gate import process
from _gate.mutmut_mutants import module_file

REPO = Path(__file__).resolve().parents[2]


def function_sources(source: str) -> dict[str, str]:
    """``{mutmut's mangled name: AST dump}`` of each function and method of a module.

    mutmut names a module function ``x_<name>`` and a method ``xǁ<Class>ǁ<name>``.
    """
    found: dict[str, str] = {}
    tree = ast.parse(source)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found[f"x_{node.name}"] = ast.dump(node)
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    found[f"xǁ{node.name}ǁ{item.name}"] = ast.dump(item)
    return found


def changed_functions(before: str | None, after: str) -> list[str]:
    """Mangled names of the functions of ``after`` that are new or differ from ``before``."""
    old = function_sources(before) if before is not None else {}
    return sorted(name for name, dump in function_sources(after).items() if old.get(name) != dump)


def _git(*arguments: str) -> process.Finished:
    # A local git query: a CPU minute is far beyond any (a hung one must not hold the gate).
    return process.run(["git", *arguments], limits=process.Limits(60), cwd=REPO, stderr=False)


def _git_show(ref: str, path: str) -> str | None:
    shown = _git("show", f"{ref}:{path}")
    return shown.output if shown.passed else None


def changes_since(ref: str, modules: Iterable[str]) -> dict[str, list[str]]:
    """``{module: changed mangled functions}`` between ``ref`` and the working tree."""
    if not _git("rev-parse", "--verify", f"{ref}^{{commit}}").passed:
        raise SystemExit(f"--changed-since: {ref!r} is not a commit here")
    changed: dict[str, list[str]] = {}
    for module in modules:
        path = f"core/a13n_harness/context/{module_file(module)}"
        current = (REPO / path).read_text(encoding="utf-8")
        names = changed_functions(_git_show(ref, path), current)
        if names:
            changed[module] = names
    return changed


def changes_between(old: str, new: str, modules: Iterable[str]) -> dict[str, list[str]]:
    """``{module: mangled functions}`` that are new, differ or are gone between two commits."""
    changed: dict[str, list[str]] = {}
    for module in modules:
        path = f"core/a13n_harness/context/{module_file(module)}"
        before, after = _git_show(old, path), _git_show(new, path)
        names = set(changed_functions(before, after or "")) | set(
            changed_functions(after, before or "")
        )
        if names:
            changed[module] = sorted(names)
    return changed


def _imported_modules(source: str) -> set[str]:
    """The ``a13n_harness`` modules a source imports, dotted below the package
    (``context.encoder``, ``testing.strategies``); names imported from a package count too."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "a13n_harness" or node.module.startswith("a13n_harness."):
                base = node.module.removeprefix("a13n_harness").lstrip(".")
                found.add(base)
                found |= {f"{base}.{alias.name}".lstrip(".") for alias in node.names}
        elif isinstance(node, ast.Import):
            found |= {
                alias.name.removeprefix("a13n_harness.")
                for alias in node.names
                if alias.name.startswith("a13n_harness.")
            }
    return found


def selection_reaching(modules: Iterable[str], tests: Iterable[str]) -> list[str]:
    """The test modules of ``tests`` that import one of ``modules`` directly or through other
    modules of the package (strategies included).

    A test that imports nothing reaching a changed module cannot call it, so its
    stats would map nothing to the changed functions: leaving it out is exact.
    """
    package = REPO / "core" / "a13n_harness"
    # A package's __init__ is the package (``context.lint``): what imports it reaches it.
    imports = {
        ".".join(path.relative_to(package).with_suffix("").parts).removesuffix(
            ".__init__"
        ): _imported_modules(path.read_text(encoding="utf-8"))
        for path in package.rglob("*.py")
    }
    reaching = {f"context.{module}" for module in modules}
    grew = True
    while grew:
        grew = False
        for module, imported in imports.items():
            if module not in reaching and imported & reaching:
                reaching.add(module)
                grew = True
    # Fuzz targets, which the corpus replay loads by path, reach what they import.
    fuzz_reach: set[str] = set()
    for target in (REPO / "fuzz").glob("fuzz_*.py"):
        fuzz_reach |= _imported_modules(target.read_text(encoding="utf-8"))
    selected = []
    for test in tests:
        path = REPO / test
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8")
        reached = _imported_modules(text)
        if "spec_from_file_location" in text or "load_target" in text:
            reached |= fuzz_reach
        if reached & reaching:
            selected.append(test)
    return selected
