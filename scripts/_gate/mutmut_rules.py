"""The mutation gate's equivalence rules: a mutant that means the same is not run.

- **Messages are not behaviour** (docs/mutation.md): callers branch on
  ``DefinitionError.code`` and ``.reason``, never on ``.message``. Two function bodies that
  are the same AST once every message argument is a placeholder are equivalent
  (``message_only``); the message-taking helpers of a module are found by ``message_slots``.
- **Spellings the language makes equal** (``_respell``): a codec name's spelling, a truth
  flag's falsy spellings, a ``None`` start of a ``str`` search, the value a message describes.

Pure functions of source text. Each rule has its negative control in
``properties/harness/test_mutmut_rules.py``: a changed code, reason, required argument or
computation is never excused.
"""

from __future__ import annotations

import ast
import codecs
import contextlib
import textwrap

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
