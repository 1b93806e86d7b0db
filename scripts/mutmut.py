"""Run mutmut 3 over the pure core in a scratch copy and gate on its kill ratio.

mutmut writes its own ``mutants/`` folder (and a cache) in the directory it
runs in, which would collide with the injected-defect files in our
``mutants/``. So this script copies ``core/`` (as ``src/``), ``properties/``, ``fuzz/``,
``corpus/`` and ``pyproject.toml`` to a scratch directory, writes a
``[tool.mutmut]`` section there, runs ``mutmut run`` and reads
``mutmut results``. It never touches the repository's ``mutants/``.

The gate: killed / (killed + survived) >= 95%, where a survivor listed in
``scripts/mutmut_equivalent.txt`` is counted as equivalent, not survived. A
line there is ``<function> <key> <reason>``: mutmut numbers a function's
mutants in order, so an edit elsewhere in the function renumbers them; the key
is instead a hash of the mutant's changed lines (and its rank among mutants of
that function with the same change), which survives unrelated edits.
Indented lines under an entry show its diff for the reviewer and are not read.
``--explain FILE`` writes every unlisted survivor with its diff and key, ready
to be killed by a test or reasoned about and listed.

Timeouts and suspicious mutants count as killed (the test run noticed); "no
tests" mutants count as survivors; a mutant left unchecked (an interrupted
run) fails the gate.

Speed (docs/mutation.md has the measured run): mutmut runs each mutant against
only the tests its stats phase saw calling the mutated function; this script
runs mutmut in-process (``--as-mutmut``) with three changes: the tests of a
mutant run once each, cheapest first, so ``-x`` stops at the first cheap kill;
the ``mutmut`` Hypothesis profile (25 examples, no shrinking); and a mutant
whose change is already listed as equivalent is marked "skipped" instead of
run (``--check-equivalents`` runs them too, to find stale listings). mutmut
forks its workers from a server that has pytest and the tests imported.

``--changed-since REF`` mutates only the functions whose code differs between
REF and the working tree, with the stats phase restricted to the test modules
that import the changed module (directly or through another core module):
the merge-gate form, about a minute for a one-function change.
Part of ``scripts/verify.py --full`` (everything) and ``--changed-since``.
"""

from __future__ import annotations

import argparse
import ast
import codecs
import contextlib
import difflib
import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

# The gate's package (_gate) beside this file: already on the path when this runs as a
# script; appended (after the real mutmut package) when a test loads this file by path.
if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.append(str(Path(__file__).resolve().parent))

from _gate import process
from _gate.report import write_json

REPO = Path(__file__).resolve().parent.parent
EQUIVALENT = Path(__file__).resolve().parent / "mutmut_equivalent.txt"
THRESHOLD = 0.97
# The modules mutated by default: the whole pure core.
# _checks and errors hold the shared validators, the reasons table and the location
# format that the other modules call (issue 13 item 4): mutated with them.
MODULES = ("encoder", "frontmatter", "catalog", "render", "manifest", "tokens", "_checks", "errors")
# A fast selection that still holds every oracle of those modules.
TESTS = (
    "properties/test_encoder.py",
    "properties/test_frontmatter.py",
    "properties/test_catalog.py",
    "properties/test_render.py",
    "properties/test_manifest.py",
    "properties/test_corpus.py",
    "properties/test_tokens.py",
    "properties/test_checks.py",
)


# Tests that read the core's source text (marked ``source_text``), which under mutmut holds
# every mutant's body (its "XX...XX" codes and reasons): they fail mutmut's clean run, and
# kill nothing there. A marker, not a list of names, so a new such test is covered too.
DESELECTED = ["-m", "not source_text"]


def _toml_list(items: list[str]) -> str:
    return "[" + ", ".join(json.dumps(item) for item in items) + "]"


# Examples per property in the Hypothesis profiles mutmut runs under (properties/conftest.py).
EXAMPLES = {"mutmut": 25, "mutmut-stats": 8}
# mutmut stops a mutant at this multiple of its tests' measured time; a mutant stopped so
# is run once more at RECHECK_MULTIPLIER, so only a real loop (not a busy box) is a timeout.
TIMEOUT_MULTIPLIER = 2.0
RECHECK_MULTIPLIER = 8.0
# The driver's instructions, written into the scratch copy by ``main``.
PLAN = "a13n-mutmut-plan.json"
# One mutmut command (the full run is under 30 minutes on two cores, docs/mutation.md).
MUTMUT_DEADLINE = 3600
PACKAGE = "a13n_harness.context"


def prepare(scratch: Path, modules: list[str], tests: Iterable[str] = TESTS) -> None:
    """Copy the tree and write the mutmut configuration into the copy."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis")
    # mutmut puts mutants/src on sys.path (and keeps the original off it), so the
    # package goes under src/ in the copy rather than under core/.
    shutil.copytree(REPO / "core", scratch / "src", ignore=ignore)
    for name in ("properties", "fuzz"):
        shutil.copytree(REPO / name, scratch / name, ignore=ignore)
    # A copy, not a link: mutmut copies it again when it reruns (the timeout recheck), and
    # the tree may have moved on by then (new seeds for newer code fail the old core).
    shutil.copytree(REPO / "corpus", scratch / "corpus")
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    pyproject = re.sub(r"(?ms)^\[tool\.mutmut\].*?(?=^\[|\Z)", "", pyproject)
    paths = [f"src/a13n_harness/context/{module}.py" for module in modules]
    tests = [test for test in tests if (REPO / test).is_file()]
    pyproject += (
        "\n[tool.mutmut]\n"
        'source_paths = ["src"]\n'
        f"only_mutate = {_toml_list(paths)}\n"
        f"pytest_add_cli_args_test_selection = {_toml_list(tests)}\n"
        f"pytest_add_cli_args = {_toml_list(DESELECTED)}\n"
        'also_copy = ["fuzz", "corpus", "properties"]\n'
        # A mutant that loops forever (a bisection that stops narrowing) is cut
        # off at 4x its tests' measured CPU time instead of mutmut's default 30x,
        # which held a worker for eight minutes per such mutant.
        f"timeout_multiplier = {TIMEOUT_MULTIPLIER}\n"
        # Each mutant runs in a fork of mutmut's own process ("fork"). Not the fork
        # server: in its workers, parametrised tests whose ids hold escapes went
        # missing (pytest exit 4), which mutmut records as a timeout, i.e. a kill.
        'process_isolation = "fork"\n'
    )
    (scratch / "pyproject.toml").write_text(pyproject, encoding="utf-8")


def equivalents() -> dict[tuple[str, str], str]:
    """The checked-in equivalent survivors: ``{(function, key): reason}``."""
    listed: dict[tuple[str, str], str] = {}
    if EQUIVALENT.is_file():
        for line in EQUIVALENT.read_text(encoding="utf-8").splitlines():
            # Indented lines show the listed mutant's diff, for the reviewer.
            if line.strip() and not line.startswith(("#", " ")):
                function, key, reason = line.strip().split(maxsplit=2)
                listed[function, key] = reason
    return listed


_MUTANT = re.compile(r"^(?P<function>.+)__mutmut_(?P<suffix>\d+|orig)$")


def mutant_bodies(
    scratch: Path, module: str, *, with_def: bool = False
) -> dict[str, dict[str, list[str]]]:
    """``{function: {suffix: body lines}}`` of mutmut's mutated module (``orig`` included);
    ``with_def`` keeps the ``def`` line (renamed ``_``) so that the lines parse."""
    path = scratch / "mutants" / "src" / "a13n_harness" / "context" / f"{module}.py"
    if not path.is_file():
        return {}
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    bodies: dict[str, dict[str, list[str]]] = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            match = _MUTANT.match(node.name)
            if match is None:
                continue
            # Skip the def line: it carries the mutant's own name.
            body = lines[node.lineno : node.end_lineno or node.lineno]
            if with_def:
                body = [lines[node.lineno - 1].replace(node.name, "_", 1), *body]
            bodies.setdefault(match["function"], {})[match["suffix"]] = body
    return bodies


def message_mutants(scratch: Path, modules: list[str]) -> set[str]:
    """The mutants equivalent by rule: they change only a message argument, or a spelling the
    language makes equal (``message_only`` with ``spellings``)."""
    found: set[str] = set()
    for module in modules:
        original = scratch / "src" / "a13n_harness" / "context" / f"{module}.py"
        if not original.is_file():
            original = REPO / "core" / "a13n_harness" / "context" / f"{module}.py"
        slots = message_slots(original.read_text(encoding="utf-8"))
        for function, variants in mutant_bodies(scratch, module, with_def=True).items():
            before = "\n".join(variants.get("orig", []))
            for suffix, body in variants.items():
                mutated = "\n".join(body)
                if suffix != "orig" and message_only(before, mutated, slots, spellings=True):
                    found.add(f"{PACKAGE}.{module}.{function}__mutmut_{suffix}")
    return found


def harness_errors(scratch: Path) -> list[str]:
    """Mutants whose worker raised instead of running the tests (mutmut's exit code 255)."""
    found = []
    for meta in (scratch / "mutants" / "src").rglob("*.meta"):
        codes = json.loads(meta.read_text(encoding="utf-8")).get("exit_code_by_key", {})
        found += [name for name, code in codes.items() if code == 255]
    return sorted(found)


def mutant_changes(scratch: Path, modules: list[str]) -> dict[str, tuple[str, str, list[str]]]:
    """Each mutant's ``(function, key, changed lines)`` from mutmut's mutated sources.

    mutmut writes every mutant as a function ``<function>__mutmut_<n>`` beside
    ``<function>__mutmut_orig``; the changed lines are a line diff of their bodies.
    """
    changes: dict[str, tuple[str, str, list[str]]] = {}
    for module in modules:
        bodies = mutant_bodies(scratch, module)
        for function, variants in bodies.items():
            original = variants.get("orig", [])
            seen: dict[str, int] = {}
            numbered = sorted((int(n), body) for n, body in variants.items() if n != "orig")
            for number, body in numbered:
                matcher = difflib.SequenceMatcher(None, original, body, autojunk=False)
                changed = [
                    line
                    for tag, i1, i2, j1, j2 in matcher.get_opcodes()
                    if tag != "equal"
                    for line in [f"- {text.strip()}" for text in original[i1:i2]]
                    + [f"+ {text.strip()}" for text in body[j1:j2]]
                ]
                digest = hashlib.sha256("\n".join(changed).encode("utf-8")).hexdigest()[:12]
                rank = seen.get(digest, 0)
                seen[digest] = rank + 1
                key = digest if rank == 0 else f"{digest}.{rank}"
                name = f"a13n_harness.context.{module}.{function}"
                changes[f"{name}__mutmut_{number}"] = (name, key, changed)
    return changes


# The message policy (docs/mutation.md): callers branch on DefinitionError.code and
# .reason, never on .message, so a mutant that only changes, drops or nulls a message is
# equivalent. The message parameters of the error types; helpers are found from them.
MESSAGE_PARAMETERS = {"DefinitionError": ("message", 1), "FrontmatterError": ("message", 1)}
_PLACEHOLDER = "<message>"


def _callee(call: ast.Call) -> str | None:
    return call.func.id if isinstance(call.func, ast.Name) else None


def _message_argument(call: ast.Call, slot: tuple[str, int]) -> ast.expr | None:
    name, index = slot
    if len(call.args) > index:
        return call.args[index]
    return next((k.value for k in call.keywords if k.arg == name), None)


def message_slots(source: str) -> dict[str, tuple[str, int, bool]]:
    """``{callable: (parameter, position, has default)}`` for every callable of a module that
    takes a message: the error types, and each function (nested ones too) with a parameter
    used only inside the message argument of another message-taking call."""
    slots = {
        name: (parameter, index, True) for name, (parameter, index) in MESSAGE_PARAMETERS.items()
    }
    functions = [
        node
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    ]
    grew = True
    while grew:
        grew = False
        for function in functions:
            if function.name in slots:
                continue
            inside: dict[str, int] = {}
            for call in ast.walk(function):
                if not isinstance(call, ast.Call) or _callee(call) not in slots:
                    continue
                parameter, index, _ = slots[_callee(call) or ""]
                message = _message_argument(call, (parameter, index))
                for name in ast.walk(message) if message is not None else ():
                    if isinstance(name, ast.Name):
                        inside[name.id] = inside.get(name.id, 0) + 1
            positional = [*function.args.posonlyargs, *function.args.args]
            defaults = len(function.args.defaults)
            for index, argument in enumerate(positional):
                uses = [
                    node
                    for node in ast.walk(function)
                    if isinstance(node, ast.Name) and node.id == argument.arg
                ]
                loads = [node for node in uses if isinstance(node.ctx, ast.Load)]
                if loads and len(loads) == len(uses) == inside.get(argument.arg, 0):
                    has_default = index >= len(positional) - defaults
                    slots[function.name] = (argument.arg, index, has_default)
                    grew = True
                    break
    return slots


def _normalise(
    body: str, slots: dict[str, tuple[str, int, bool]], *, spellings: bool = False
) -> tuple[str, list[ast.expr | None]]:
    """The body's AST with every message argument (given, or left to its default) replaced by
    one placeholder keyword, and the message arguments it had (``None`` where left out).

    A required message left out stays out, so that mutant (a ``TypeError``) differs.
    ``spellings`` also rewrites the spellings the other rules make equal (``_respell``).
    """
    tree = ast.parse(textwrap.dedent(body))
    if spellings:
        _respell(tree)
    messages: list[ast.expr | None] = []
    for call in ast.walk(tree):
        if not isinstance(call, ast.Call) or _callee(call) not in slots:
            continue
        parameter, index, has_default = slots[_callee(call) or ""]
        given = _message_argument(call, (parameter, index))
        if len(call.args) > index:
            del call.args[index]
        call.keywords = [k for k in call.keywords if k.arg != parameter]
        if given is not None or has_default:
            call.keywords.append(ast.keyword(parameter, ast.Constant(_PLACEHOLDER)))
            messages.append(given)
    return ast.dump(tree), messages


# One-argument callables that never raise, whatever they are given: ``type``, and the pure
# core's ``describe`` (context/_checks.py, "never raises and never runs the argument's own
# code", a property in properties/test_checks.py). In a message, which value they are given
# is message text.
TOTAL_IN_MESSAGES = frozenset({"type", "describe"})
# Spellings the language makes equal, each a rule rather than a listing (docs/mutation.md).
# Flag parameters of the standard library that are read only as truth values: False, None
# and leaving out a false default are one value. {(callee, keyword): default}
TRUTH_FLAGS = {
    ("json.dumps", "ensure_ascii"): True,
    ("json.dumps", "sort_keys"): False,
}
# str and bytes methods whose start argument None means 0 (the slice rule).
_START_METHODS = frozenset({"count", "find", "rfind", "index", "rindex"})


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base is not None else None
    return None


def _text_parameters(tree: ast.AST) -> set[str]:
    """Parameters annotated ``str`` or ``bytes`` (and never rebound) of the function in
    ``tree``: their methods are the built-in ones."""
    found: set[str] = set()
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        arguments = function.args
        for argument in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]:
            annotation = argument.annotation
            if isinstance(annotation, ast.Name) and annotation.id in {"str", "bytes"}:
                found.add(argument.arg)
    stored = {
        node.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del)
    }
    return found - stored


def _respell(tree: ast.AST) -> None:
    """Rewrite, in place, the spellings that mean the same to one of them:

    - a codec name given to ``.encode``/``.decode`` by its canonical name (codec names are
      looked up case- and punctuation-insensitively: ``"UTF-8"`` is ``"utf-8"``);
    - a flag of ``TRUTH_FLAGS`` given as a constant by its truth value, and a left-out flag
      by its default;
    - a ``None`` start of ``count``/``find``/``rfind``/``index``/``rindex`` on a parameter
      annotated ``str`` or ``bytes`` by ``0``.
    """
    text = _text_parameters(tree)
    for call in ast.walk(tree):
        if not isinstance(call, ast.Call):
            continue
        method = call.func.attr if isinstance(call.func, ast.Attribute) else None
        if method in {"encode", "decode"} and call.args:
            codec = call.args[0]
            if isinstance(codec, ast.Constant) and isinstance(codec.value, str):
                with contextlib.suppress(LookupError):  # no codec: left as written
                    codec.value = codecs.lookup(codec.value).name
        callee = _dotted(call.func)
        for (flagged, keyword), default in TRUTH_FLAGS.items():
            if callee != flagged:
                continue
            given = [k for k in call.keywords if k.arg == keyword]
            if not given:
                call.keywords.append(ast.keyword(keyword, ast.Constant(default)))
            elif isinstance(given[0].value, ast.Constant):
                given[0].value = ast.Constant(bool(given[0].value.value))
        if (
            method in _START_METHODS
            and isinstance(call.func, ast.Attribute)
            and isinstance(call.func.value, ast.Name)
            and call.func.value.id in text
            and len(call.args) >= 2
            and isinstance(call.args[1], ast.Constant)
            and call.args[1].value is None
        ):
            call.args[1] = ast.Constant(0)


def _shape(message: ast.expr) -> str:
    """A message expression with its literal text blanked: what can run (and raise) in it."""
    blank = ast.parse(ast.unparse(message), mode="eval")
    for node in ast.walk(blank):
        if (
            isinstance(node, ast.Call)
            and _callee(node) in TOTAL_IN_MESSAGES
            and len(node.args) == 1
            and not node.keywords
            and isinstance(node.args[0], ast.Name | ast.Constant)
        ):
            # Of a bound name or of a constant these never raise: which value they
            # describe is message text (``type(None).__name__`` for ``type(value).__name__``).
            node.args = [ast.Constant(None)]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            node.value = ""
        elif isinstance(node, ast.JoinedStr):
            node.values = [part for part in node.values if not isinstance(part, ast.Constant)]
    return ast.dump(blank)


def message_only(
    original: str,
    mutated: str,
    slots: dict[str, tuple[str, int, bool]],
    *,
    spellings: bool = False,
) -> bool:
    """Whether two function bodies differ only in message arguments (the message policy).

    Outside the messages the bodies must be the same AST; each mutated message must be
    left out, ``None``, or the original with only its literal text changed (or the type
    of another name or constant named). A mutant that changes what a message *computes*
    (``ord(None)`` raises) is not excused. With ``spellings`` the bodies are compared after
    the spelling rules too (``_respell``): the same AST up to those spellings and messages.
    """
    if original == mutated:
        return False
    try:
        before, originals = _normalise(original, slots, spellings=spellings)
        after, mutants = _normalise(mutated, slots, spellings=spellings)
    except SyntaxError:
        return False
    if before != after or len(originals) != len(mutants):
        return False
    for old, new in zip(originals, mutants, strict=True):
        if new is None or (isinstance(new, ast.Constant) and new.value is None):
            continue
        if old is None or _shape(old) != _shape(new):
            return False
    return True


def parse_results(text: str) -> dict[str, str]:
    """``mutmut results --all true`` lines ``name: status`` -> ``{name: status}``."""
    results: dict[str, str] = {}
    for line in text.splitlines():
        match = re.match(r"^\s*([\w.ǁ]+__mutmut_\d+): ([\w ]+?)\s*$", line)
        if match:
            results[match.group(1)] = match.group(2)
    return results


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
    # A local git query; a minute is far beyond any (a hung one must not hold the gate).
    return process.run(["git", *arguments], deadline=60, cwd=REPO, stderr=False)


def _git_show(ref: str, path: str) -> str | None:
    shown = _git("show", f"{ref}:{path}")
    return shown.output if shown.passed else None


def changes_since(ref: str, modules: Iterable[str]) -> dict[str, list[str]]:
    """``{module: changed mangled functions}`` between ``ref`` and the working tree."""
    if not _git("rev-parse", "--verify", f"{ref}^{{commit}}").passed:
        raise SystemExit(f"--changed-since: {ref!r} is not a commit here")
    changed: dict[str, list[str]] = {}
    for module in modules:
        path = f"core/a13n_harness/context/{module}.py"
        current = (REPO / path).read_text(encoding="utf-8")
        names = changed_functions(_git_show(ref, path), current)
        if names:
            changed[module] = names
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


def selection_reaching(modules: Iterable[str], tests: Iterable[str] = TESTS) -> list[str]:
    """The test modules that import one of ``modules`` directly or through other modules of
    the package (strategies included).

    A test that imports nothing reaching a changed module cannot call it, so its
    stats would map nothing to the changed functions: leaving it out is exact.
    """
    package = REPO / "core" / "a13n_harness"
    imports = {
        ".".join(path.relative_to(package).with_suffix("").parts): _imported_modules(
            path.read_text(encoding="utf-8")
        )
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


def as_mutmut(arguments: list[str]) -> None:
    """mutmut's own CLI, run in this process with the gate's changes (module docstring).

    Runs in the scratch copy; reads ``a13n-mutmut-plan.json`` there: ``skip`` (mutant
    names to mark skipped, for listed equivalents) and ``functions`` (when not
    empty, only mutants of these ``<module>.<mangled>`` names are run).
    """
    # Run as a script, this file's folder comes first on sys.path and its name is mutmut's.
    here = Path(__file__).resolve().parent
    sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != here]
    import mutmut.__main__ as mutmut_main  # noqa: PLC0415 - only the driver process needs mutmut
    from mutmut.runners.harness import PytestRunner  # noqa: PLC0415
    from mutmut.state import state  # noqa: PLC0415

    plan: dict[str, Any] = json.loads(Path(PLAN).read_text(encoding="utf-8"))
    regular_run = PytestRunner._pytest_args_regular_run

    def cheapest_first(self: PytestRunner, tests: Iterable[str]) -> list[str]:
        durations = state().duration_by_test
        ordered = sorted(set(tests), key=lambda test: (durations.get(test, 0.0), test))
        return regular_run(self, ordered)

    PytestRunner._pytest_args_regular_run = cheapest_first  # type: ignore[method-assign]
    collect = mutmut_main.collect_source_file_mutation_data

    def planned(*, mutant_names: tuple[str, ...] | list[str]) -> Any:
        mutants, by_path = collect(mutant_names=mutant_names)
        modules = sorted({name.split(".")[2] for _, name, _ in mutants})
        changes = mutant_changes(Path.cwd(), modules)
        messages = message_mutants(Path.cwd(), modules)
        known = equivalents()
        functions = set(plan.get("functions", []))
        kept = []
        for data, name, result in mutants:
            function, key, _ = changes.get(name, ("", "", []))
            if functions and name.rsplit("__mutmut_", 1)[0] not in functions:
                continue
            equivalent = name in messages or (function, key) in known
            if not plan.get("check_equivalents") and equivalent:
                data.exit_code_by_key[name] = 34  # mutmut's "skipped"
                data.save()
                continue
            if result == 34:
                # Skipped by an earlier run, no longer equivalent (a listing removed): run it.
                data.exit_code_by_key[name] = None
                data.save()
                result = None
            kept.append((data, name, result))
        return kept, by_path

    mutmut_main.collect_source_file_mutation_data = planned
    profile = plan.get("stats_profile", "mutmut")
    # The stats run (a fork that imports the tests afresh) only maps tests to the functions
    # they call. In the merge-gate form it runs on fewer examples, and its durations are
    # scaled back up to the mutant runs' profile, since mutmut's timeouts derive from them.
    # It is retried once when it fails: its timing properties (linear cost, no quadratic
    # locate) have failed on a box at load 9 and passed on the next run; a test that
    # fails twice still fails the run.
    make_runner = vars(mutmut_main)["get_mutant_runner"]

    def runner_with_stats_retried(*arguments: Any) -> Any:
        runner = make_runner(*arguments)
        collect_stats = runner.collect_stats

        def stats(tests: Iterable[str] | None) -> int:
            mutants_profile = os.environ.get("HYPOTHESIS_PROFILE", "mutmut")
            os.environ["HYPOTHESIS_PROFILE"] = profile
            try:
                exit_code: int = collect_stats(tests)
                if exit_code != 0:
                    print(f"stats run failed (exit {exit_code}); retrying once", flush=True)
                    exit_code = collect_stats(tests)
            finally:
                os.environ["HYPOTHESIS_PROFILE"] = mutants_profile
            scale = EXAMPLES.get(mutants_profile, 1) / EXAMPLES.get(profile, 1)
            durations = state().duration_by_test
            for test in durations:
                durations[test] *= scale
            return exit_code

        runner.collect_stats = stats
        return runner

    vars(mutmut_main)["get_mutant_runner"] = runner_with_stats_retried
    mutmut_main.cli(arguments)


def judge(
    results: dict[str, str],
    changes: dict[str, tuple[str, str, list[str]]],
    known: dict[tuple[str, str], str],
    functions: set[str] | None = None,
    messages: set[str] | frozenset[str] = frozenset(),
) -> dict[str, Any]:
    """Sort mutmut's statuses into killed / equivalent / survived / unchecked, per module.

    ``functions`` (``--changed-since``) limits the judgement to those functions' mutants;
    ``messages`` are the mutants a rule makes equivalent (``message_mutants``).
    """
    killed_statuses = {"killed", "timeout", "suspicious", "segfault"}

    def listed(name: str) -> bool:
        function, key, _ = changes.get(name, ("", "", []))
        return (function, key) in known

    per_module: dict[str, dict[str, int]] = {}
    survived: list[str] = []
    unchecked: list[str] = []
    matched: set[tuple[str, str]] = set()
    killed = equivalent = 0
    for name, status in sorted(results.items()):
        if functions is not None and name.rsplit("__mutmut_", 1)[0] not in functions:
            continue
        module = name.split(".")[2]
        row = per_module.setdefault(
            module,
            {
                "mutants": 0,
                "killed": 0,
                "timeout": 0,
                "message_only": 0,
                "equivalent": 0,
                "survived": 0,
            },
        )
        row["mutants"] += 1
        if status in killed_statuses:
            killed += 1
            row["killed"] += 1
            row["timeout"] += status == "timeout"
        elif status in {"survived", "no tests", "skipped"} and name in messages:
            row["message_only"] += 1
        elif status in {"survived", "no tests", "skipped"} and listed(name):
            equivalent += 1
            row["equivalent"] += 1
            matched.add(changes[name][:2])
        elif status in {"survived", "no tests"}:
            survived.append(name)
            row["survived"] += 1
        else:
            # Not checked, interrupted, or skipped without a listing: the run is incomplete.
            unchecked.append(name)
    judged = killed + len(survived)
    return {
        "total": sum(row["mutants"] for row in per_module.values()),
        "killed": killed,
        "message_only": sum(row["message_only"] for row in per_module.values()),
        "equivalent": equivalent,
        "survived": survived,
        "unchecked": unchecked,
        "matched": matched,
        "per_module": per_module,
        "kill_ratio": killed / judged if judged else 1.0,
    }


def prune_listings(stale: set[str]) -> None:
    """Rewrite the equivalents file without the stale entries (and their diff lines)."""
    kept: list[str] = []
    dropping = False
    for line in EQUIVALENT.read_text(encoding="utf-8").splitlines():
        if line.startswith(" ") and dropping:
            continue
        dropping = False
        if line.strip() and not line.startswith(("#", " ")):
            function, key, _ = line.split(maxsplit=2)
            if f"{function} {key}" in stale:
                dropping = True
                continue
        kept.append(line)
    EQUIVALENT.write_text("\n".join(kept) + "\n", encoding="utf-8")


def markdown_table(summary: dict[str, Any]) -> str:
    """The per-module results as the Markdown table docs/mutation.md keeps."""
    columns = ("mutants", "killed", "timeout", "message_only", "equivalent", "survived")
    lines = [
        "| module | mutants | killed | of which timeout | equivalent by rule "
        "| listed equivalent | survived | killed / non-equivalent |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    totals = dict.fromkeys(columns, 0)
    rows = sorted(summary["per_module"].items())
    for module, row in [*rows, ("**total**", totals)]:
        if module != "**total**":
            for column in columns:
                totals[column] += row[column]
        judged = row["killed"] + row["survived"]
        ratio = f"{row['killed'] / judged:.1%}" if judged else "n/a"
        cells = " | ".join(str(row[column]) for column in columns)
        lines.append(f"| {module} | {cells} | {ratio} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else argv
    if arguments[:1] == ["--as-mutmut"]:
        as_mutmut(arguments[1:])
        return 0
    parser = argparse.ArgumentParser(description="mutmut over the pure core, in a scratch copy.")
    parser.add_argument("--modules", nargs="*", default=list(MODULES))
    parser.add_argument("--json", type=Path, help="write the summary here")
    parser.add_argument("--max-children", type=int, default=2)
    parser.add_argument("--keep", action="store_true", help="keep the scratch directory")
    parser.add_argument(
        "--reuse", type=Path, help="judge a kept scratch directory again instead of running"
    )
    parser.add_argument("--explain", type=Path, help="write unlisted survivors' diffs here")
    parser.add_argument(
        "--changed-since", metavar="REF", help="only the functions changed since this commit"
    )
    parser.add_argument(
        "--check-equivalents", action="store_true", help="run listed equivalents too"
    )
    parser.add_argument("--table", type=Path, help="write the per-module Markdown table here")
    parser.add_argument(
        "--prune", action="store_true", help="remove stale listings from the equivalents file"
    )
    args = parser.parse_args(arguments)
    started = time.monotonic()
    modules: list[str] = list(args.modules)
    functions: set[str] | None = None
    tests: list[str] = list(TESTS)
    if args.changed_since is not None:
        changed = changes_since(args.changed_since, modules)
        functions = {
            f"{PACKAGE}.{module}.{name}" for module, names in changed.items() for name in names
        }
        for function in sorted(functions):
            print(f"changed: {function}")
        if not functions:
            print(f"no function of the pure core changed since {args.changed_since}")
            return 0
        modules = sorted(changed)
        tests = selection_reaching(modules)
        print(f"tests reaching {', '.join(modules)}: {' '.join(tests)}")
    scratch = args.reuse or Path(tempfile.mkdtemp(prefix="a13n-mutmut-"))
    env = dict(os.environ)
    env["HYPOTHESIS_PROFILE"] = "mutmut"
    env.pop("PYTHONPATH", None)  # mutmut puts mutants/src on sys.path itself
    run_exit: int | None = None
    run_output = ""

    cpu_seconds = 0.0

    def mutmut(*command: str) -> process.Finished:
        nonlocal cpu_seconds
        finished = process.run(
            [sys.executable, str(Path(__file__).resolve()), "--as-mutmut", *command],
            deadline=MUTMUT_DEADLINE,
            cwd=scratch,
            env=env,
        )
        cpu_seconds += finished.cpu_seconds
        return finished

    try:
        if args.reuse is None:
            prepare(scratch, modules, tests)
            plan = {
                "functions": sorted(functions or ()),
                "check_equivalents": args.check_equivalents,
                # The merge-gate form maps tests to functions on fewer examples (see as_mutmut).
                "stats_profile": "mutmut-stats" if functions else "mutmut",
            }
            (scratch / PLAN).write_text(json.dumps(plan), encoding="utf-8")
            # Named mutants (globs) also restrict mutmut's clean run to their functions' tests.
            names = [f"{function}__mutmut_*" for function in sorted(functions or ())]
            run = mutmut("run", "--max-children", str(args.max_children), *names)
            run_exit, run_output = run.exit_code, run.output[-6000:]
            first = parse_results(mutmut("results", "--all", "true").output)
            timeouts = sorted(name for name, status in first.items() if status == "timeout")
            if timeouts:
                # A changed timeout setting makes mutmut rerun exactly its timed-out mutants.
                print(f"rechecking {len(timeouts)} timeouts at {RECHECK_MULTIPLIER}x", flush=True)
                config = (scratch / "pyproject.toml").read_text(encoding="utf-8")
                config = config.replace(
                    f"timeout_multiplier = {TIMEOUT_MULTIPLIER}",
                    f"timeout_multiplier = {RECHECK_MULTIPLIER}",
                )
                (scratch / "pyproject.toml").write_text(config, encoding="utf-8")
                again = timeouts if functions else []  # named mutants are always rerun
                recheck = mutmut("run", "--max-children", str(args.max_children), *again)
                run_output += recheck.output[-4000:]
        listing = mutmut("results", "--all", "true")
        changes = mutant_changes(scratch, modules)
        messages = message_mutants(scratch, modules)
        errors = harness_errors(scratch)
    finally:
        if not args.keep and args.reuse is None:
            shutil.rmtree(scratch, ignore_errors=True)
    results = parse_results(listing.output)
    for name in errors:
        # mutmut reports a worker's exception (exit 255) as a timeout, i.e. a kill;
        # it means the tests never ran, so it is an unchecked mutant here.
        results[name] = "harness error"
    known = equivalents()
    verdict = judge(results, changes, known, functions, messages)
    counts: dict[str, int] = {}
    for status in results.values():
        counts[status] = counts.get(status, 0) + 1
    survived: list[str] = verdict["survived"]
    unchecked: list[str] = verdict["unchecked"]
    # A listing that matches no surviving mutant is stale: the code changed, or a test
    # now kills what was thought equivalent. Reported, for pruning (full runs only).
    stale = sorted(
        f"{function} {key}" for function, key in known if (function, key) not in verdict["matched"]
    )
    if functions is not None or set(modules) != set(MODULES):
        stale = []
    ratio: float = verdict["kill_ratio"]
    summary: dict[str, Any] = {
        "total": verdict["total"],
        "killed": verdict["killed"],
        "message_only": verdict["message_only"],
        "equivalent": verdict["equivalent"],
        "survived": survived,
        "stale_listings": len(stale),
        "unchecked": len(unchecked),
        "by_status": counts,
        "per_module": verdict["per_module"],
        "kill_ratio": round(ratio, 4),
        "threshold": THRESHOLD,
        "modules": modules,
        "functions": sorted(functions) if functions is not None else None,
        "seconds": round(time.monotonic() - started, 1),
        "cpu_seconds": round(cpu_seconds, 1),
        "run_exit": run_exit,
    }
    if args.json is not None:
        write_json(args.json, summary)
    if args.table is not None:
        args.table.write_text(markdown_table(summary), encoding="utf-8")
    if args.explain is not None:
        blocks = []
        for name in survived:
            function, key, changed_lines = changes.get(name, ("?", "?", []))
            shown = "".join(f"    {line}\n" for line in changed_lines)
            blocks.append(f"# {name}\n{function} {key} REASON\n{shown}")
        args.explain.write_text("\n".join(blocks), encoding="utf-8")
    for name in survived:
        function, key, changed_lines = changes.get(name, ("?", "?", []))
        print(f"survived: {name} ({key}): {' | '.join(changed_lines)[:300]}")
    for entry in stale:
        print(f"stale listing: {entry}")
    if args.prune and stale:
        prune_listings(set(stale))
        print(f"pruned {len(stale)} stale listings from {EQUIVALENT.name}")
    for module, row in sorted(verdict["per_module"].items()):
        print(
            f"{module}: {row['mutants']} mutants, {row['killed']} killed "
            f"({row['timeout']} by timeout), {row['message_only']} equivalent by rule, "
            f"{row['equivalent']} listed equivalent, "
            f"{row['survived']} survived"
        )
    print(f"by status: {counts}")
    print(
        f"{verdict['total']} mutants in total: {verdict['killed']} killed, "
        f"{verdict['message_only']} equivalent by rule, {verdict['equivalent']} listed equivalent, "
        f"{len(survived)} survived; kill ratio {ratio:.1%} "
        f"(gate {THRESHOLD:.0%}) in {summary['seconds']}s ({summary['cpu_seconds']} CPU s)"
    )
    if not results or not verdict["total"]:
        print(run_output or listing.output[-4000:])
        return 1
    if unchecked:
        print(f"{len(unchecked)} mutants were never checked: the run is incomplete")
        print(run_output)
        return 1
    if functions is not None and survived:
        # The merge-gate form: every mutant of a changed function is killed or listed.
        return 1
    return 0 if ratio >= THRESHOLD else 1


if __name__ == "__main__":
    sys.exit(main())
