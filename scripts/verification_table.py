"""Write (or check) ``docs/verification.md``: how each public function of the pure core is checked.

One row per public function of ``a13n_harness.context`` (the functions its public modules
name in ``__all__``): the CrossHair contracts that run it, how it is checked, the bound it is
proved on and the last result. Every column but the last is computed from the tree, so the
table cannot drift (``properties/harness/test_verification_table.py`` compares it):

- **contract**: the ``*_contract`` functions of ``properties/crosshair_contracts.py`` (``quick``,
  the quick gate's) and ``properties/crosshair_core.py`` (``full``) that run the function;
- **checked**: ``symbolic`` (a CrossHair contract; ``symbolic+h`` when a property of
  ``properties/symbolic_properties.py`` runs it under the hypothesis-crosshair backend too),
  ``sampled`` (a Hypothesis property or a test in ``properties/`` names it), ``fuzzed`` (a
  target in ``fuzz/`` names it), ``mutated`` (its module, or a module of its package, is in
  mutmut's ``MODULES``);
- **bound**: the contract's ``pre:`` conditions, the inputs CrossHair searches;
- **last result**: what the last run said: each contract's verdict (``confirmed`` over all
  paths; ``no counterexample`` in its CPU budget; ``precondition unmet``: no path ran;
  ``COUNTEREXAMPLE``), and how many of the symbolic properties naming the function passed.

The results are read from gate runs' reports (``--report build/verify-report.json`` of a
``--full`` run, or the reports of ``--full --only symbolic`` and ``--full --only crosshair``
runs, each ``--report`` once; ``--junit`` adds a JUnit file of symbolic properties run apart
with the same profile): the CrossHair steps' logs they name and the symbolic step's JUnit
file, where each property wrote the CPU seconds it took. A result no report holds is
kept from the table as written, for the contracts it was found for. Below the functions, one
row per symbolic property: its CPU budget (``properties/symbolic_properties.py``), the CPU
seconds it took and its result in that run.

Usage: ``python scripts/verification_table.py [--check] [--report FILE ...] [--junit FILE ...]``.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import importlib.util
import inspect
import json
import pkgutil
import re
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parent.parent
TABLE = REPO / "docs" / "verification.md"
QUICK = REPO / "properties" / "crosshair_contracts.py"
CORE = REPO / "properties" / "crosshair_core.py"
SYMBOLIC = REPO / "properties" / "symbolic_properties.py"
HEADER = """\
# How the pure core is verified

Written by `python scripts/verification_table.py` (its docstring defines each column);
`properties/harness/test_verification_table.py` fails when a column but the last differs
from what the tree gives. CrossHair checks the contracts with a budget of 4 CPU seconds a
condition (`scripts/_gate/steps.py`, `CONDITION_CPU`, and the `# crosshair:` directives of
`properties/crosshair_core.py` for a contract whose paths cost more): the quick gate the
`quick` ones, the `--full` gate all of them and the pure core's properties under the
hypothesis-crosshair backend (`properties/symbolic_properties.py`, 60 paths a property, each
property with its own CPU budget). A counterexample either finds becomes a plain test
(`properties/test_crosshair_replays.py`, which also checks every contract on its boundary
inputs, and on every choice of the contracts that choose among listed values).

Last result, read from the last gate run's report (below the table): `confirmed` (over all
paths), `no counterexample` (within the budget), or `precondition unmet` (CrossHair found no
path it could run), for each contract; `symbolic properties: N passed` for the properties
run under the hypothesis-crosshair backend that name the function. CrossHair runs a
`functools.cache` function again at every call, so the contracts and the symbolic properties
see the core's cached tables as constants (`properties/crosshair_setup.py`).

| function | contract | checked | bound | last result |
|---|---|---|---|---|
"""
COLUMNS = 5


def public_functions() -> list[str]:
    """``module.name`` of every function the public modules of the core export, sorted."""
    import a13n_harness.context  # noqa: PLC0415 - the tree's, found through PYTHONPATH

    found: set[str] = set()
    for info in pkgutil.iter_modules(a13n_harness.context.__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"a13n_harness.context.{info.name}")
        for name in getattr(module, "__all__", ()):
            if inspect.isfunction(getattr(module, name)):
                found.add(f"{info.name}.{name}")
    return sorted(found)


def contract_functions(source: str) -> dict[str, ast.FunctionDef]:
    """The module-level functions of a contracts module's source, by name."""
    return {node.name: node for node in ast.parse(source).body if isinstance(node, ast.FunctionDef)}


def contracted(source: str) -> dict[str, set[str]]:
    """``{core function: contracts that run it}``: the core functions a ``*_contract`` function
    calls from its body, or through the module's own helpers it calls. A call in a docstring
    condition does not count: conditions are what is checked, not what is run."""
    tree = ast.parse(source)
    imported: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
            "a13n_harness.context."
        ):
            module = (node.module or "").removeprefix("a13n_harness.context.")
            for alias in node.names:
                imported[alias.asname or alias.name] = f"{module}.{alias.name}"
    functions = contract_functions(source)

    def called(name: str, seen: set[str]) -> set[str]:
        if name in seen:
            return set()
        seen.add(name)
        body = functions[name].body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]  # the docstring
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
    """The ``NOT_CONTRACTED`` table of a contracts module's source (``{}`` when it has none)."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.AnnAssign | ast.Assign):
            targets = [node.target] if isinstance(node, ast.AnnAssign) else node.targets
            if any(isinstance(t, ast.Name) and t.id == "NOT_CONTRACTED" for t in targets):
                value = ast.literal_eval(node.value) if node.value is not None else {}
                return value if isinstance(value, dict) else {}
    return {}


def problems(texts: list[str], public: list[str] | set[str]) -> list[str]:
    """What is wrong with the contracts' coverage of ``public`` (empty when nothing is): a
    function neither contracted nor listed, a listing of no public function or of a contracted
    one, a listing without a reason."""
    runs: dict[str, set[str]] = {}
    listed: dict[str, str] = {}
    for text in texts:
        for function, contracts in contracted(text).items():
            runs.setdefault(function, set()).update(contracts)
        listed.update(not_contracted(text))
    names = set(public)
    found = [
        f"{name}: no CrossHair contract, and not listed"
        for name in sorted(names - set(runs) - set(listed))
    ]
    found += [
        f"{name}: listed, but no such public function" for name in sorted(set(listed) - names)
    ]
    found += [
        f"{name}: listed, but {', '.join(sorted(runs[name]))} runs it"
        for name in sorted(set(listed) & set(runs))
    ]
    found += [f"{name}: listed without a reason" for name, why in listed.items() if not why.strip()]
    return found


def conditions(function: ast.FunctionDef, kind: str) -> list[str]:
    """The ``pre:`` or ``post:`` lines of a contract's docstring."""
    doc = ast.get_docstring(function) or ""
    return [m.group(1).strip() for m in re.finditer(rf"^\s*{kind}: (.+)$", doc, re.MULTILINE)]


def _mentions(text: str, name: str) -> bool:
    return re.search(rf"\b{re.escape(name)}\b", text) is not None


def _symbolic_table() -> ModuleType:
    """``properties/symbolic_properties.py``: the properties run symbolically, their budgets."""
    sys.path.insert(0, str(SYMBOLIC.parent))
    try:
        spec = importlib.util.spec_from_file_location("symbolic_properties", SYMBOLIC)
        assert spec is not None
        assert spec.loader is not None
        table = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(table)
    finally:
        sys.path.remove(str(SYMBOLIC.parent))
    return table


def _symbolic_sources() -> dict[str, str]:
    """``{node id: source}`` of every property run under the hypothesis-crosshair backend."""
    table = _symbolic_table()
    found = {}
    for path, names in table.PROPERTIES.items():
        functions = contract_functions((REPO / path).read_text(encoding="utf-8"))
        for name in names:
            if name in functions:
                found[f"{path}::{name}"] = ast.unparse(functions[name])
    return found


def _mutated_modules() -> tuple[str, ...]:
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        from _gate.mutmut_run import MODULES  # noqa: PLC0415 - the gate's package

        # A package whose modules are mutated (``lint._references``) is mutated: its public
        # functions are defined in them.
        return (*MODULES, *sorted({module.split(".")[0] for module in MODULES if "." in module}))
    finally:
        sys.path.remove(str(REPO / "scripts"))


def crosshair_results(log: str, files: dict[str, str]) -> dict[str, str]:
    """``{contract: verdict}`` from a ``crosshair check --report_all`` log: each line
    ``FILE:LINE: info|error: ...`` belongs to the contract whose source holds LINE."""
    spans: list[tuple[str, int, int, str]] = []
    for label, source in files.items():
        for name, node in contract_functions(source).items():
            if name.endswith("_contract"):
                spans.append((label, node.lineno, node.end_lineno or node.lineno, name))
    verdicts: dict[str, list[str]] = {}
    for line in log.splitlines():
        match = re.match(r"^(?P<file>\S+?):(?P<line>\d+): (?P<kind>\w+): (?P<text>.*)$", line)
        if match is None:
            continue
        number = int(match["line"])
        for label, first, last, name in spans:
            if match["file"].endswith(label) and first <= number <= last:
                text = match["text"]
                verdict = (
                    "confirmed"
                    if "Confirmed over all paths" in text
                    else "no counterexample"
                    if "Not confirmed" in text
                    else "precondition unmet"
                    if "Unable to meet precondition" in text
                    else "COUNTEREXAMPLE"
                    if match["kind"] == "error"
                    else text.rstrip(".")
                )
                verdicts.setdefault(name, []).append(verdict)
    order = ("COUNTEREXAMPLE", "precondition unmet", "no counterexample", "confirmed")
    return {
        name: min(found, key=lambda v: order.index(v) if v in order else -1)
        for name, found in verdicts.items()
    }


@dataclass
class Run:
    """What a gate run's report says: ``contracts`` ``{contract: verdict}``, ``properties``
    ``{node id: (result, CPU s)}`` of the symbolic step, and ``steps`` the lines naming each
    step it ran (status, CPU and wall seconds) with the run's date and load."""

    contracts: dict[str, str] = field(default_factory=dict)
    properties: dict[str, tuple[str, str]] = field(default_factory=dict)
    steps: list[str] = field(default_factory=list)


CROSSHAIR_STEPS = ("crosshair", "crosshair core")
SYMBOLIC_STEP = "symbolic properties"


def junit_properties(text: str) -> dict[str, tuple[str, str]]:
    """``{node id: (result, CPU s)}`` of a JUnit file: ``passed``, ``FAILED`` or ``skipped``,
    and the ``cpu_seconds`` property the crosshair profile's budget fixture wrote."""
    found: dict[str, tuple[str, str]] = {}
    # The gate's own JUnit file (S314's concern is XML from outside).
    for case in ET.fromstring(text).iter("testcase"):  # noqa: S314
        parts = case.get("classname", "").split(".")
        if len(parts) < 2 or not case.get("name"):
            continue
        node = f"{'/'.join(parts)}.py::{case.get('name')}"
        if case.find("failure") is not None or case.find("error") is not None:
            result = "FAILED"
        elif case.find("skipped") is not None:
            result = "skipped"
        else:
            result = "passed"
        cpu = next(
            (
                item.get("value", "")
                for item in case.iter("property")
                if item.get("name") == "cpu_seconds"
            ),
            "",
        )
        found[node] = (result, cpu)
    return found


def read_run(report: Path) -> Run:
    """The results a gate run's report holds (its paths relative to the tree)."""
    data = json.loads(report.read_text(encoding="utf-8"))
    run = Run()
    files = {path.name: path.read_text(encoding="utf-8") for path in (QUICK, CORE)}
    for entry in data.get("steps", []):
        name = entry.get("name", "")
        if name not in (*CROSSHAIR_STEPS, SYMBOLIC_STEP):
            continue
        status = entry.get("status")
        note = f" ({entry.get('note')})" if status != "passed" and entry.get("note") else ""
        run.steps.append(
            f"- `{name}`: {status}{note}, {entry.get('cpu_seconds')} CPU s "
            f"({entry.get('seconds')} s wall)"
        )
        log = REPO / entry.get("log", "")
        if name in CROSSHAIR_STEPS and log.is_file():
            run.contracts.update(crosshair_results(log.read_text(encoding="utf-8"), files))
        junit = log.with_name(log.name.removesuffix(".log") + ".junit.xml")
        if name == SYMBOLIC_STEP and junit.is_file():
            run.properties.update(junit_properties(junit.read_text(encoding="utf-8")))
    if run.steps:
        load = ", ".join(str(value) for value in data.get("load_average", []))
        run.steps.insert(
            0, f"Run of {data.get('finished')} (`{data.get('mode')}`, load average {load}):"
        )
    return run


def _verdicts(cell: str) -> dict[str, str]:
    """``{what: verdict}`` of a written last-result cell."""
    return dict(part.split(": ", 1) for part in cell.split("; ") if ": " in part)


def rows(run: Run, kept: dict[str, tuple[str, str]]) -> list[list[str]]:
    """The table's rows: the results of ``run``, else each kept from the row as written
    (``kept``: ``{function: (contract cell, result)}``) when its contracts are the same."""
    sources = {"crosshair_contracts.py": QUICK, "crosshair_core.py": CORE}
    texts = {label: path.read_text(encoding="utf-8") for label, path in sources.items()}
    functions = {label: contract_functions(text) for label, text in texts.items()}
    runs = {label: contracted(text) for label, text in texts.items()}
    listed = {k: v for text in texts.values() for k, v in not_contracted(text).items()}
    properties = "\n".join(
        path.read_text(encoding="utf-8") for path in sorted((REPO / "properties").glob("test_*.py"))
    )
    fuzz = "\n".join(
        path.read_text(encoding="utf-8") for path in sorted((REPO / "fuzz").glob("fuzz_*.py"))
    )
    symbolic = _symbolic_sources()
    mutated = _mutated_modules()
    table = []
    for qualified in public_functions():
        module, name = qualified.split(".")
        contracts = []
        bounds = []
        names = []
        for label, found in runs.items():
            for contract in sorted(found.get(qualified, ())):
                gate = "quick" if label == "crosshair_contracts.py" else "full"
                contracts.append(f"`{contract}` ({gate})")
                names.append(contract)
                bounds += [f"`{pre}`" for pre in conditions(functions[label][contract], "pre")]
        naming = [node for node, source in symbolic.items() if _mentions(source, name)]
        checked = []
        if contracts:
            checked.append("symbolic+h" if naming else "symbolic")
        if _mentions(properties, name):
            checked.append("sampled")
        if _mentions(fuzz, name):
            checked.append("fuzzed")
        if any(name == module or name.startswith(f"{module}.") for name in mutated):
            checked.append("mutated")
        # A kept result stands only for the contracts it was found for.
        before = kept.get(qualified, ("", ""))
        same = before[0] == (", ".join(contracts) or "none")
        old = _verdicts(before[1]) if same else {}
        verdicts = [f"{c}: {run.contracts.get(c, old.get(c, 'not run yet'))}" for c in names]
        if naming:
            results = [run.properties[node][0] for node in naming if node in run.properties]
            if results:
                passed = results.count("passed")
                summary = (
                    f"{passed} passed"
                    if passed == len(results)
                    else f"{len(results) - passed} FAILED of {len(results)}"
                )
            else:
                summary = old.get("symbolic properties", "not run yet")
            verdicts.append(f"symbolic properties: {summary}")
        result = "; ".join(verdicts)
        if not contracts:
            result = f"not contracted: {listed.get(qualified, '')}"
        table.append(
            [
                f"`{qualified}`",
                ", ".join(contracts) or "none",
                ", ".join(checked),
                "; ".join(dict.fromkeys(bounds)) or "all inputs",
                result,
            ]
        )
    return table


def property_rows(run: Run, kept: dict[str, tuple[str, str]]) -> list[list[str]]:
    """One row per symbolic property: its node id, its CPU budget, and the CPU seconds and
    result of ``run`` (else as written: ``kept`` ``{node id: (CPU s, result)}``)."""
    table = _symbolic_table()
    found = []
    for node in table.node_ids():
        result, cpu = run.properties.get(node, ("", ""))
        if not result:
            cpu, result = kept.get(node, ("", "not run yet"))
        found.append([f"`{node}`", f"{table.budget(node):g}", cpu or "-", result])
    return found


PROPERTIES_HEADER = """
## The symbolic properties

Each runs under the hypothesis-crosshair backend with its CPU budget (stopped when it spends
it); the CPU seconds are what it took in the last run.

| property | budget (CPU s) | CPU s | result |
|---|---|---|---|
"""
RUN_HEADER = "\n## Last run\n\n"


def parse_table(text: str, columns: int = COLUMNS) -> dict[str, list[str]]:
    """``{first cell: cells}`` of the rows of ``columns`` cells of a written table."""
    found: dict[str, list[str]] = {}
    for line in text.splitlines():
        if line.startswith("| `"):
            cells = [cell.strip() for cell in line.strip().strip("|").split(" | ")]
            if len(cells) == columns:
                found[cells[0].strip("`")] = cells
    return found


def last_run(text: str) -> list[str]:
    """The lines of the written table's last-run section."""
    if RUN_HEADER not in text:
        return []
    return [line for line in text.split(RUN_HEADER, 1)[1].splitlines() if line.strip()]


def render(table: list[list[str]], properties: list[list[str]], steps: list[str]) -> str:
    lines = "".join("| " + " | ".join(row) + " |\n" for row in table)
    listed = "".join("| " + " | ".join(row) + " |\n" for row in properties)
    run = RUN_HEADER + "\n".join(steps or ["None recorded yet."]) + "\n"
    return HEADER + lines + PROPERTIES_HEADER + listed + run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    parser.add_argument(
        "--report",
        type=Path,
        action="append",
        default=[],
        help="a gate run's report (build/verify-report.json); repeatable",
    )
    parser.add_argument(
        "--junit",
        type=Path,
        action="append",
        default=[],
        help="a JUnit file of symbolic properties run apart (crosshair profile); repeatable",
    )
    args = parser.parse_args(argv)
    current = TABLE.read_text(encoding="utf-8") if TABLE.is_file() else ""
    kept = {name: (cells[1], cells[-1]) for name, cells in parse_table(current).items()}
    kept_properties = {
        name: (cells[2], cells[3]) for name, cells in parse_table(current, 4).items()
    }
    run = Run()
    for report in args.report:
        found = read_run(report)
        run.contracts.update(found.contracts)
        run.properties.update(found.properties)
        run.steps += found.steps
    for junit in args.junit:
        # A part of the step run apart: its properties' results where no report has them.
        apart = junit_properties(junit.read_text(encoding="utf-8"))
        run.properties = {**apart, **run.properties}
        shown = junit.resolve().relative_to(REPO) if junit.resolve().is_relative_to(REPO) else junit
        run.steps.append(
            f"- `{shown}`: {len(apart)} symbolic properties run apart, "
            f"{sum(result == 'passed' for result, _ in apart.values())} passed"
        )
    text = render(
        rows(run, kept), property_rows(run, kept_properties), run.steps or last_run(current)
    )
    if args.check:
        if text != current:
            print(f"{TABLE.relative_to(REPO)} differs: run python scripts/verification_table.py")
            return 1
        return 0
    TABLE.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
