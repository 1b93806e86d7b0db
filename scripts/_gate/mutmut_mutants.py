"""What a mutmut scratch copy holds, and the judgement of it.

mutmut writes every mutant of a function ``f`` as ``f__mutmut_<n>`` beside ``f__mutmut_orig``
in ``mutants/src``; a mutant is known here by its function and the key of its change (a hash
of the changed lines), which survives mutmut renumbering the function's mutants. The
checked-in listing ``scripts/mutmut_equivalent.txt`` names the equivalent survivors by that
key (docs/harness-conventions.md); ``judge`` sorts mutmut's statuses into killed,
equivalent (by rule or listed), survived and unchecked.
"""

from __future__ import annotations

import ast
import difflib
import hashlib
import json
import re
from pathlib import Path
from typing import Any

from _gate.mutmut_rules import FACTS, fact_excuses, message_only, message_slots

REPO = Path(__file__).resolve().parents[2]
EQUIVALENT = Path(__file__).resolve().parents[1] / "mutmut_equivalent.txt"
PACKAGE = "a13n_harness.context"


def module_file(module: str) -> str:
    """The path below ``a13n_harness/context/`` of a mutated module: ``encoder.py``, or for a
    module of a package (``lint._references``) ``lint/_references.py``."""
    return module.replace(".", "/") + ".py"


def module_of(name: str) -> str:
    """The module of a mutant or function named as mutmut names it below :data:`PACKAGE`
    (``a13n_harness.context.lint._references.x__scan_body__mutmut_3``: ``lint._references``):
    every part but the function's, which holds no dot (``x_f``, ``xǁCǁm``)."""
    return name.removeprefix(PACKAGE + ".").rsplit(".", 1)[0]


# mutmut's statuses of a mutant the tests noticed.
KILLED = frozenset({"killed", "timeout", "suspicious", "segfault"})


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
    path = scratch / "mutants" / "src" / "a13n_harness" / "context" / module_file(module)
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
    language makes equal (``message_only`` with ``spellings``), or what a fact of ``FACTS``
    says cannot matter in its function (``fact_excuses``)."""
    found: set[str] = set()
    for module in modules:
        original = scratch / "src" / "a13n_harness" / "context" / module_file(module)
        if not original.is_file():
            original = REPO / "core" / "a13n_harness" / "context" / module_file(module)
        slots = message_slots(original.read_text(encoding="utf-8"))
        for function, variants in mutant_bodies(scratch, module, with_def=True).items():
            before = "\n".join(variants.get("orig", []))
            for suffix, body in variants.items():
                mutated = "\n".join(body)
                if suffix != "orig" and (
                    message_only(before, mutated, slots, spellings=True)
                    or fact_excuses(FACTS, module, function, before, mutated) is not None
                ):
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
                name = f"{PACKAGE}.{module}.{function}"
                changes[f"{name}__mutmut_{number}"] = (name, key, changed)
    return changes


def parse_results(text: str) -> dict[str, str]:
    """``mutmut results --all true`` lines ``name: status`` -> ``{name: status}``."""
    results: dict[str, str] = {}
    for line in text.splitlines():
        match = re.match(r"^\s*([\w.ǁ]+__mutmut_\d+): ([\w ]+?)\s*$", line)
        if match:
            results[match.group(1)] = match.group(2)
    return results


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
        module = module_of(name)
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
        if status in KILLED:
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
