"""Every public function of the pure core is under a CrossHair contract, or listed with why not.

The public functions are the functions each module of ``a13n_harness.context`` names in its
``__all__`` (private modules, ``_checks``, left out). A function is under a contract when a
``*_contract`` function of ``properties/crosshair_contracts.py`` (the quick gate's) or
``properties/crosshair_core.py`` (the full gate's) calls it, from its body or
through the module's own helpers it calls (``certified`` for ``verify_rendering``); the
conditions in docstrings do not count, they are what is checked, not what is run.
``NOT_CONTRACTED`` in ``crosshair_core.py`` names the others, each with its reason.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil

import a13n_harness.context
from harness.scratch import REPO

QUICK = REPO / "properties" / "crosshair_contracts.py"
CORE = REPO / "properties" / "crosshair_core.py"


def sources() -> list[str]:
    return [path.read_text(encoding="utf-8") for path in (QUICK, CORE)]


def public_functions() -> set[str]:
    """``module.name`` of every function the public modules of the core export."""
    found: set[str] = set()
    for info in pkgutil.iter_modules(a13n_harness.context.__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"a13n_harness.context.{info.name}")
        for name in getattr(module, "__all__", ()):
            if inspect.isfunction(getattr(module, name)):
                found.add(f"{info.name}.{name}")
    return found


def contracted(source: str) -> dict[str, set[str]]:
    """``{core function: contracts that run it}`` from the contracts module's source."""
    tree = ast.parse(source)
    imported: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
            "a13n_harness.context."
        ):
            module = (node.module or "").removeprefix("a13n_harness.context.")
            for alias in node.names:
                imported[alias.asname or alias.name] = f"{module}.{alias.name}"
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}

    def called(name: str, seen: set[str]) -> set[str]:
        if name in seen:
            return set()
        seen.add(name)
        body = functions[name].body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]  # the docstring: its conditions are checked, not run
        found: set[str] = set()
        for statement in body:
            for node in ast.walk(statement):
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                    if node.id in imported:
                        found.add(imported[node.id])
                    elif node.id in functions:
                        found |= called(node.id, seen)
        return found

    runs: dict[str, set[str]] = {}
    for name in functions:
        if name.endswith("_contract"):
            for function in called(name, set()):
                runs.setdefault(function, set()).add(name)
    return runs


def not_contracted(source: str) -> dict[str, str]:
    """The ``NOT_CONTRACTED`` table of the contracts module's source."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.AnnAssign | ast.Assign):
            targets = [node.target] if isinstance(node, ast.AnnAssign) else node.targets
            if any(isinstance(t, ast.Name) and t.id == "NOT_CONTRACTED" for t in targets):
                assert node.value is not None
                value = ast.literal_eval(node.value)
                assert isinstance(value, dict)
                return value
    return {}


def problems(texts: list[str], public: set[str]) -> list[str]:
    """What is wrong with the contracts' coverage of ``public`` (empty when nothing is)."""
    runs: dict[str, set[str]] = {}
    listed: dict[str, str] = {}
    for text in texts:
        for function, contracts in contracted(text).items():
            runs.setdefault(function, set()).update(contracts)
        listed.update(not_contracted(text))
    found = [
        f"{name}: no CrossHair contract, and not listed"
        for name in sorted(public - set(runs) - set(listed))
    ]
    found += [
        f"{name}: listed, but no such public function" for name in sorted(set(listed) - public)
    ]
    found += [
        f"{name}: listed, but {', '.join(sorted(runs[name]))} runs it"
        for name in sorted(set(listed) & set(runs))
    ]
    found += [f"{name}: listed without a reason" for name, why in listed.items() if not why.strip()]
    return found


def test_every_public_function_of_the_core_has_a_contract_or_a_listed_reason() -> None:
    public = public_functions()
    assert len(public) > 40  # the enumeration reaches the modules
    assert problems(sources(), public) == []


def test_negative_control_a_function_whose_contract_is_gone_is_reported() -> None:
    quick, core = sources()
    # The contract of is_valid_name calls it; without that call nothing else runs it.
    broken = core.replace("    return is_valid_name(name)\n", "    return True\n")
    assert broken != core
    assert problems([quick, broken], public_functions()) == [
        "frontmatter.is_valid_name: no CrossHair contract, and not listed"
    ]


def test_negative_control_a_new_public_function_is_reported() -> None:
    public = public_functions() | {"render.render_sideways"}
    assert problems(sources(), public) == [
        "render.render_sideways: no CrossHair contract, and not listed"
    ]


def test_negative_control_a_stale_or_empty_listing_is_reported() -> None:
    quick, core = sources()
    core = core.replace(
        "NOT_CONTRACTED: dict[str, str] = {",
        'NOT_CONTRACTED: dict[str, str] = {"encoder.encode_value": "x", "render.gone": " ",',
        1,
    )
    assert problems([quick, core], public_functions()) == [
        "render.gone: listed, but no such public function",
        "encoder.encode_value: listed, but encode_contract runs it",
        "render.gone: listed without a reason",
    ]


def test_a_call_in_a_condition_is_not_a_contract() -> None:
    """Only what a contract runs counts: ``reference_render`` in a ``post:`` line is the oracle."""
    source = '''
from a13n_harness.context.render import reference_render, render_catalog
def render_contract(budget: int) -> str:
    """post: __return__ == reference_render(None, budget).text"""
    return render_catalog(None, budget).text
'''
    assert contracted(source) == {"render.render_catalog": {"render_contract"}}
