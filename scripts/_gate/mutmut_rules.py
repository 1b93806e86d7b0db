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
import copy
import operator
import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass

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


# Facts about one function, each proved by a reader and written down once with its reason:
# a mutant that changes only what a fact says cannot matter is equivalent (``fact_excuses``).
# A fact names a function as the source does (``undecided``, ``_Body.__init__``) in a module
# of the pure core (``lint`` covers the modules of a ``lint`` package too), and what it is about
# as ``ast.unparse`` writes it. The kinds:
GAP = "gap"  # target (an int) never takes a value in [low, high], or where it does, which way
# a comparison with a constant goes does not decide: comparisons agreeing outside it are one.
VALUE = "value"  # the value assigned to target (the first assignment only, with ``first``) is
# never decisive: any value ("any"), any falsy constant for a falsy one ("falsy": read only as
# a truth value), any negative int for a negative one ("negative": read only by its sign).
ZIP = "zip"  # every zip() of the function gets iterables of one length: ``strict`` never decides.
SIGN = "sign"  # the function's negative results are read only by their sign.
BOUND = "bound"  # target's end argument (the third) only stops a search early: leaving it
# out, None, or a larger constant added finds the same.
ARGUMENT = "argument"  # the arguments of calls to target (argument ``index``, or any) never
# decide there (``values`` as for VALUE; ``statement``: only that call, or in that statement).
FALLBACK = "fallback"  # target is never falsy (``target or c``: c is never used) or, for an
# ``if``/``else`` expression whose test is target, the test is always true.


@dataclass(frozen=True)
class Fact:
    """What a reader proved about one function of the pure core, with the reason."""

    module: str
    function: str
    kind: str
    target: str
    reason: str
    low: int = 0
    high: int = 0
    values: str = "any"
    first: bool = False
    index: int | None = None
    statement: str = ""


def source_name(mutmut_name: str) -> str:
    """A function's name as the source writes it, from mutmut's (``x_f``, ``xǁCǁm``)."""
    if mutmut_name.startswith("xǁ"):
        return ".".join(mutmut_name[2:].split("ǁ"))
    return mutmut_name.removeprefix("x_")


def _function(source: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    try:
        tree = ast.parse(textwrap.dedent(source))
    except SyntaxError:
        return None
    found = tree.body[0] if tree.body else None
    return found if isinstance(found, ast.FunctionDef | ast.AsyncFunctionDef) else None


def _difference(
    a: ast.AST, b: ast.AST, path: list[ast.AST]
) -> list[tuple[list[ast.AST], ast.AST, ast.AST]]:
    """Where two trees differ: the smallest subtrees (with their ancestors) that do."""
    if type(a) is not type(b):
        return [(path, a, b)]
    children: list[tuple[ast.AST, ast.AST]] = []
    for name, value in ast.iter_fields(a):
        other = getattr(b, name, None)
        if isinstance(value, list) and isinstance(other, list):
            if len(value) != len(other):
                return [(path, a, b)]
            for x, y in zip(value, other, strict=True):
                if isinstance(x, ast.AST) and isinstance(y, ast.AST):
                    children.append((x, y))
                elif x != y:
                    return [(path, a, b)]
        elif isinstance(value, ast.AST) and isinstance(other, ast.AST):
            children.append((value, other))
        elif value != other:
            return [(path, a, b)]
    found = []
    for x, y in children:
        if ast.dump(x) != ast.dump(y):
            found += _difference(x, y, [*path, a])
    return found


def _int(node: ast.expr) -> int | None:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.USub | ast.UAdd)
        and isinstance(node.operand, ast.Constant)
        and type(node.operand.value) is int
    ):
        return -node.operand.value if isinstance(node.op, ast.USub) else node.operand.value
    return None


_COMPARE: dict[type[ast.cmpop], Callable[[int, int], bool]] = {
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
}


def _nearest(path: list[ast.AST], node: ast.AST, kind: type | tuple[type, ...]) -> int | None:
    """The depth in ``path + [node]`` of the innermost node of ``kind`` (None: none)."""
    chain = [*path, node]
    for depth in range(len(chain) - 1, -1, -1):
        if isinstance(chain[depth], kind):
            return depth
    return None


def _allowed(values: str, old: ast.expr | None, new: ast.expr | None) -> bool:
    if values == "any":
        return True
    if values == "falsy":
        # A falsy constant, or an empty tuple, list or dict display.
        return all(
            (isinstance(v, ast.Constant) and v.value in (False, None, 0, ""))
            or (isinstance(v, ast.Tuple | ast.List) and not v.elts)
            or (isinstance(v, ast.Dict) and not v.keys)
            for v in (old, new)
        )
    if values == "negative":
        return all(v is not None and (_int(v) or 0) < 0 for v in (old, new))
    return False


def _gap(fact: Fact, old: ast.AST, new: ast.AST, path: list[ast.AST], a: ast.AST) -> bool:
    depth = _nearest(path, a, ast.Compare)
    if depth is None:
        return False
    compare_a = [*path, a][depth]
    compare_b = _same_place(old, new, compare_a)
    sides = []
    for compare in (compare_a, compare_b):
        if not isinstance(compare, ast.Compare) or len(compare.ops) != 1:
            return False
        test = _COMPARE.get(type(compare.ops[0]))
        constant = _int(compare.comparators[0])
        if test is None or constant is None or ast.unparse(compare.left) != fact.target:
            return False
        sides.append((test, constant))
    (first, c1), (second, c2) = sides
    values = range(min(c1, c2) - 3, max(c1, c2) + 4)
    return all(first(x, c1) == second(x, c2) for x in values if not fact.low <= x <= fact.high)


def _same_place(old: ast.AST, new: ast.AST, node: ast.AST) -> ast.AST | None:
    """The node of ``new`` at the place ``node`` has in ``old`` (the trees' shapes agree
    down to it)."""
    route: list[tuple[str, int | None]] = []

    def find(here: ast.AST, steps: list[tuple[str, int | None]]) -> bool:
        if here is node:
            route.extend(steps)
            return True
        for name, value in ast.iter_fields(here):
            if isinstance(value, list):
                for i, item in enumerate(value):
                    if isinstance(item, ast.AST) and find(item, [*steps, (name, i)]):
                        return True
            elif isinstance(value, ast.AST) and find(value, [*steps, (name, None)]):
                return True
        return False

    if not find(old, []):
        return None
    here: ast.AST | None = new
    for name, index in route:
        value = getattr(here, name, None)
        if index is not None:
            value = value[index] if isinstance(value, list) and len(value) > index else None
        here = value if isinstance(value, ast.AST) else None
        if here is None:
            return None
    return here


def _assignments(function: ast.AST, target: str) -> list[ast.Assign | ast.AnnAssign]:
    found: list[ast.Assign | ast.AnnAssign] = []
    for node in ast.walk(function):
        if isinstance(node, ast.Assign):
            names = [ast.unparse(t) for t in node.targets]
        elif isinstance(node, ast.AnnAssign):
            names = [ast.unparse(node.target)]
        else:
            continue
        if target in names:
            found.append(node)
    return sorted(found, key=lambda n: (n.lineno, n.col_offset))


def _value(fact: Fact, old: ast.AST, new: ast.AST, path: list[ast.AST], a: ast.AST) -> bool:
    depth = _nearest(path, a, (ast.Assign, ast.AnnAssign))
    if depth is None:
        return False
    statement = [*path, a][depth]
    assert isinstance(statement, ast.Assign | ast.AnnAssign)
    candidates = _assignments(old, fact.target)
    if statement not in (candidates[:1] if fact.first else candidates):
        return False
    other = _same_place(old, new, statement)
    if not isinstance(other, type(statement)):
        return False

    # Only the value may differ: the targets stay.
    def targets(node: ast.Assign | ast.AnnAssign) -> list[str]:
        found = node.targets if isinstance(node, ast.Assign) else [node.target]
        return [ast.dump(t) for t in found]

    if targets(statement) != targets(other):
        return False
    return _allowed(fact.values, statement.value, other.value)


def _strip_strict(tree: ast.AST) -> str:
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "zip":
            node.keywords = [k for k in node.keywords if k.arg != "strict"]
    return ast.dump(tree)


def _signs(tree: ast.AST) -> str:
    for node in ast.walk(tree):
        if isinstance(node, ast.Return) and node.value is not None:
            if (_int(node.value) or 0) < 0:
                node.value = ast.Constant(-1)
            for inner in ast.walk(node.value):
                for name, value in ast.iter_fields(inner):
                    if isinstance(value, ast.expr) and (_int(value) or 0) < 0:
                        setattr(inner, name, ast.Constant(-1))
    return ast.dump(tree)


def _calls(
    fact: Fact, old: ast.AST, new: ast.AST, path: list[ast.AST], a: ast.AST
) -> tuple[ast.Call, ast.Call] | None:
    chain = [*path, a]
    for depth in range(len(chain) - 1, -1, -1):
        call = chain[depth]
        if isinstance(call, ast.Call) and ast.unparse(call.func) == fact.target:
            other = _same_place(old, new, call)
            if isinstance(other, ast.Call) and ast.dump(other.func) == ast.dump(call.func):
                if fact.statement:
                    # The call itself as written, or its statement.
                    enclosing = next(
                        (n for n in reversed(chain[:depth]) if isinstance(n, ast.stmt)), call
                    )
                    if fact.statement not in (ast.unparse(call), ast.unparse(enclosing)):
                        return None
                return call, other
    return None


def _bound(fact: Fact, old: ast.AST, new: ast.AST, path: list[ast.AST], a: ast.AST) -> bool:
    found = _calls(fact, old, new, path, a)
    if found is None:
        return False
    call, other = found
    if call.keywords or other.keywords or len(call.args) != 3 or len(other.args) not in (2, 3):
        return False
    if [ast.dump(x) for x in call.args[:2]] != [ast.dump(x) for x in other.args[:2]]:
        return False
    if len(other.args) == 2:
        return True
    end, changed = call.args[2], other.args[2]
    if isinstance(changed, ast.Constant) and changed.value is None:
        return True
    return (
        isinstance(end, ast.BinOp)
        and isinstance(changed, ast.BinOp)
        and isinstance(end.op, ast.Add)
        and isinstance(changed.op, ast.Add)
        and ast.dump(end.left) == ast.dump(changed.left)
        and (_int(end.right) is not None and _int(changed.right) is not None)
        and (_int(changed.right) or 0) > (_int(end.right) or 0)
    )


def _argument(fact: Fact, old: ast.AST, new: ast.AST, path: list[ast.AST], a: ast.AST) -> bool:
    found = _calls(fact, old, new, path, a)
    if found is None:
        return False
    call, other = found
    if fact.index is None:
        return True
    if [ast.dump(k) for k in call.keywords] != [ast.dump(k) for k in other.keywords]:
        return False

    def shown(args: list[ast.expr], i: int) -> str | None:
        return ast.dump(args[i]) if i < len(args) else None

    for i in range(max(len(call.args), len(other.args))):
        before, after = shown(call.args, i), shown(other.args, i)
        if before == after:
            continue
        if i != fact.index:
            return False
        old_arg = call.args[i] if i < len(call.args) else None
        new_arg = other.args[i] if i < len(other.args) else None
        if not _allowed(fact.values, old_arg, new_arg):
            return False
    return True


def _fallback(fact: Fact, old: ast.AST, new: ast.AST, path: list[ast.AST], a: ast.AST) -> bool:
    chain = [*path, a]
    for depth in range(len(chain) - 1, -1, -1):
        node = chain[depth]
        inner = chain[depth + 1] if depth + 1 < len(chain) else None
        if (
            isinstance(node, ast.BoolOp)
            and isinstance(node.op, ast.Or)
            and ast.unparse(node.values[0]) == fact.target
            and inner is not node.values[0]
        ):
            other = _same_place(old, new, node)
            return (
                isinstance(other, ast.BoolOp)
                and isinstance(other.op, ast.Or)
                and (ast.dump(other.values[0]) == ast.dump(node.values[0]))
            )
        if isinstance(node, ast.IfExp) and ast.unparse(node.test) == fact.target:
            other = _same_place(old, new, node)
            if not isinstance(other, ast.IfExp) or ast.dump(other.body) != ast.dump(node.body):
                return False
            if inner is node.orelse:
                return ast.dump(other.test) == ast.dump(node.test)
            if inner is node.test or a is node:
                # The test replaced by ``(test) or True``: always true as it was.
                test = other.test
                return ast.dump(other.orelse) == ast.dump(node.orelse) and (
                    isinstance(test, ast.BoolOp)
                    and isinstance(test.op, ast.Or)
                    and [ast.dump(v) for v in test.values]
                    == [ast.dump(node.test), ast.dump(ast.Constant(True))]
                )
            return False
    return False


def fact_excuses(
    facts: tuple[Fact, ...], module: str, function: str, original: str, mutated: str
) -> Fact | None:
    """The fact that makes ``mutated`` (a body of ``function`` in ``module``, mutmut's name)
    mean what ``original`` means, or None."""
    name = source_name(function)
    relevant = [
        f
        for f in facts
        if f.function == name and re.match(rf"{re.escape(f.module)}(?:$|[./])", module)
    ]
    if not relevant:
        return None
    old, new = _function(original), _function(mutated)
    if old is None or new is None:
        return None
    for fact in relevant:
        if fact.kind == ZIP:
            if _strip_strict(copy.deepcopy(old)) == _strip_strict(copy.deepcopy(new)):
                return fact
            continue
        if fact.kind == SIGN:
            if _signs(copy.deepcopy(old)) == _signs(copy.deepcopy(new)):
                return fact
            continue
        differences = _difference(old, new, [])
        if len(differences) != 1:
            continue
        path, a, _ = differences[0]
        if fact.kind == GAP and _gap(fact, old, new, path, a):
            return fact
        if fact.kind == VALUE and _value(fact, old, new, path, a):
            return fact
        if fact.kind == BOUND and _bound(fact, old, new, path, a):
            return fact
        if fact.kind == ARGUMENT and _argument(fact, old, new, path, a):
            return fact
        if fact.kind == FALLBACK and _fallback(fact, old, new, path, a):
            return fact
    return None


_NEVER_ZERO = "a search result: -1 for a miss, else an offset past where the search starts"
# The facts the pure core's equivalent mutants rest on, by module and function. What a fact
# excuses is what its kind says, checked on the mutant's tree, never a listing's guess.
FACTS: tuple[Fact, ...] = (
    # frontmatter
    Fact("frontmatter", "_frontmatter_text", GAP, "newline", _NEVER_ZERO + " (4 or later)"),
    Fact(
        "frontmatter",
        "_frontmatter_text",
        BOUND,
        "data.find",
        "a newline found past the bound puts position past max_bytes: the same too_large",
    ),
    Fact("frontmatter", "undecided", GAP, "end", "_fence_end gives None, -1 or 3 and more"),
    Fact("frontmatter", "undecided", GAP, "newline", _NEVER_ZERO + " (4 or later)"),
    Fact(
        "frontmatter",
        "undecided",
        BOUND,
        "data.find",
        "a newline at or past window puts position past max_bytes: False, as the original's",
    ),
    Fact("frontmatter", "_fence_end", SIGN, "", "undecided reads only the sign of -1"),
    Fact(
        "frontmatter",
        "_scan_events",
        VALUE,
        "expecting_key",
        "expecting_key is only read as a truth value",
        values="falsy",
    ),
    Fact(
        "frontmatter",
        "_scan_events",
        VALUE,
        "expecting_key",
        "the initial value is never read: the root MappingStart sets it, any other root is refused",
        first=True,
    ),
    Fact(
        "frontmatter",
        "_scan_events",
        VALUE,
        "pending",
        "the initial value is never read: pending is read at depth 1 after a key set it",
        first=True,
    ),
    # manifest
    Fact(
        "manifest",
        "publish_catalog",
        VALUE,
        "best",
        "best is only compared with 0 before the first fitting prefix overwrites it",
        values="negative",
        first=True,
    ),
    Fact(
        "manifest",
        "_holds_lone_surrogate",
        ARGUMENT,
        "getattr",
        "the default only meets isinstance(..., tuple): no falsy default is a tuple with items",
        index=2,
        values="falsy",
    ),
    # render
    Fact("render", "_compact_fit", GAP, "room", "at room 0 no entry line fits: as below 0"),
    # tokens
    Fact(
        "tokens",
        "_additive_applies",
        ARGUMENT,
        "_more_line",
        "the sample lines only test the precondition: any more line starts with a digit",
        statement="_more_line(1)",
    ),
    Fact(
        "tokens",
        "_additive_applies",
        ARGUMENT,
        "_pointer_line",
        "the sample lines only test the precondition: any pointer line ends in a line feed",
        statement="_pointer_line(1, _roots_phrase(catalog.roots))",
    ),
    Fact(
        "tokens",
        "_expected_by_lines",
        ARGUMENT,
        "_more_line",
        "the sample more line only tests the precondition: any count's line is alike",
        statement="_more_line(1)",
    ),
    Fact(
        "tokens",
        "_compact_fit_counted",
        VALUE,
        "whole",
        "whole is only read as a truth value",
        values="falsy",
    ),
    Fact(
        "tokens",
        "declares",
        ARGUMENT,
        "getattr",
        "a missing attribute gives the default, and no falsy default is True",
        index=2,
        values="falsy",
    ),
    # lint (the body scan, the field checks)
    Fact("lint", "_after_fence", GAP, "line_start", _NEVER_ZERO + " (after the opening line)"),
    Fact("lint", "_after_fence", GAP, "line_end", _NEVER_ZERO + " (a fence line's start)"),
    Fact("lint", "_fence_at", GAP, "line_end", _NEVER_ZERO + " (at or after a mark)"),
    Fact("lint", "_fence_at", SIGN, "", "every caller reads only the sign of a miss"),
    Fact(
        "lint",
        "_fence_at",
        ARGUMENT,
        "text[line_start:found].strip",
        "a line opens or closes a fence only when _FENCE (spaces and tabs) matches it too",
    ),
    Fact(
        "lint",
        "_scan_body",
        ARGUMENT,
        "line.lstrip",
        "a line opens a fence only when _FENCE (spaces and tabs only) matches it too",
    ),
    Fact("lint", "_scan_body", GAP, "found", _NEVER_ZERO + " (past the first line's start)"),
    Fact("lint", "_scan_body", GAP, "line_end", _NEVER_ZERO + " (at or after an event)"),
    Fact(
        "lint",
        "_scan_body",
        VALUE,
        "example",
        "the initial value is never read: example decides inline-code paths, which set it",
        first=True,
    ),
    Fact(
        "lint",
        "_scan_body",
        VALUE,
        "in_comment",
        "in_comment is only read as a truth value",
        values="falsy",
        first=True,
    ),
    Fact("lint", "_scan_line", GAP, "close", _NEVER_ZERO + " (searched from found + 4)"),
    Fact(
        "lint",
        "_scan_line",
        VALUE,
        "open_comment",
        "open_comment is only read as a truth value (the caller's in_comment)",
        values="falsy",
    ),
    Fact("lint", "_scan_line", ZIP, "", "the three span lists are built together (_Spans)"),
    Fact("lint", "_blank", ZIP, "", "starts and ends come in pairs; kept and gaps one longer"),
    Fact("lint", "_frontmatter_nodes", ZIP, "", "a mapping's children come as key, value pairs"),
    Fact("lint", "_first_arrow", ZIP, "", "opens and closes come in pairs (_Spans): one gap each"),
    Fact(
        "lint",
        "_distance",
        VALUE,
        "before",
        "the initial value is never read: a swap is looked at from the second row, after the "
        "first row set it",
        first=True,
    ),
    Fact(
        "lint",
        "_frontmatter_nodes",
        FALLBACK,
        "event.start_mark is not None",
        "yaml.parse's events always carry a start mark (libyaml and the pure-Python parser)",
    ),
    Fact(
        "lint",
        "_frontmatter_nodes",
        VALUE,
        "root",
        "root is read only by isinstance(root, _Mapping), which no constant is",
        first=True,
    ),
    Fact(
        "lint",
        "_Body.__init__",
        VALUE,
        "self.limit_at",
        "never read as set here: the considered-span cap sets it before it is read",
        first=True,
    ),
    Fact(
        "lint",
        "_Body.__init__",
        VALUE,
        "self.first_comment",
        "never read as set here: read only when comments > 0, and the first comment sets it",
        first=True,
    ),
    Fact(
        "lint",
        "_Body.__init__",
        VALUE,
        "self.open_comment",
        "never read as set here: every scanned line sets it before the scan reads it",
        first=True,
    ),
    Fact(
        "lint",
        "_Checker.allowed_tools",
        ARGUMENT,
        "self.string",
        "string() is reached here only for a value of no other type, where its rule is unused",
        index=0,
    ),
    Fact(
        "lint",
        "_Examples.at",
        VALUE,
        "answer",
        "answer is only read as a truth value (not example)",
        values="falsy",
        first=True,
    ),
)
