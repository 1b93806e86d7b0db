"""The mutation gate's own rules (scripts/_gate/mutmut_*.py), each with its negative control.

- an equivalent listing is keyed by its change, not by mutmut's number;
- ``--changed-since`` judges only the changed functions and fails on a survivor;
- the message rule and the spelling rules excuse what means the same, and never a changed
  code, reason, required argument or computation (docs/mutation.md).
"""

from __future__ import annotations

import resource
import shutil
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
if str(REPO / "scripts") not in sys.path:
    sys.path.append(str(REPO / "scripts"))  # the gate's package, _gate

# scripts/ is on the path only from the lines above (E402 below).
from _gate.mutmut_killsets import compare_kill_sets  # noqa: E402
from _gate.mutmut_mutants import judge, mutant_changes  # noqa: E402
from _gate.mutmut_rules import (  # noqa: E402
    ARGUMENT,
    BOUND,
    FACTS,
    FALLBACK,
    GAP,
    SIGN,
    VALUE,
    ZIP,
    Fact,
    fact_excuses,
    message_only,
    message_slots,
    source_name,
)
from _gate.mutmut_run import (  # noqa: E402
    DESELECTED,
    TEST_OVER_BUDGET,
    cpu_budget,
    first_multiplier,
    recheck_multiplier,
    rechecked_multiplier,
)
from _gate.mutmut_select import changed_functions  # noqa: E402
from harness.scratch import bounded  # noqa: E402


def _mutated_module(scratch: Path, *functions: tuple[str, str]) -> None:
    folder = scratch / "mutants" / "src" / "a13n_harness" / "context"
    folder.mkdir(parents=True)
    text = "".join(f"def x_f__mutmut_{suffix}(a):\n{body}\n" for suffix, body in functions)
    (folder / "encoder.py").write_text(text, encoding="utf-8")


def test_mutmut_keys_follow_the_change_not_the_number(tmp_path: Path) -> None:
    """An equivalent listing names the change: renumbering keeps its key, another change (or a
    second identical change in the function) gets a different one."""
    orig = ("orig", "    b = 1\n    return a + b\n")
    first, second = tmp_path / "first", tmp_path / "second"
    _mutated_module(
        first, orig, ("1", "    b = 2\n    return a + b\n"), ("2", "    b = 1\n    return a - b\n")
    )
    _mutated_module(
        second,
        orig,
        ("1", "    b = 1\n    return a - b\n"),
        ("2", "    b = 1\n    return a - b\n"),
        ("3", "    b = 2\n    return a + b\n"),
    )
    one = mutant_changes(first, ["encoder"])
    two = mutant_changes(second, ["encoder"])
    name = "a13n_harness.context.encoder.x_f__mutmut_"
    assert one[name + "1"][2] == ["- b = 1", "+ b = 2"]
    assert one[name + "1"][1] == two[name + "3"][1]  # renumbered, same key
    assert one[name + "2"][1] == two[name + "1"][1]
    assert two[name + "2"][1] == two[name + "1"][1] + ".1"  # the same change again
    assert one[name + "1"][1] != one[name + "2"][1]


def test_control_changed_function_whose_mutant_survives_fails_the_mutation_gate() -> None:
    """--changed-since: a change no test sees leaves a survivor (or "no tests"), and fails."""
    before = "def f(a):\n    return a + 1\n\n\nclass C:\n    def m(self):\n        return 1\n"
    after = before.replace("a + 1", "a + 2") + "\n\ndef g(b):\n    return b\n"
    assert changed_functions(before, after) == ["x_f", "x_g"]
    assert changed_functions(None, before) == ["x_f", "xǁCǁm"]
    name = "a13n_harness.context.encoder.x_g__mutmut_1"
    changes: dict[str, tuple[str, str, list[str]]] = {
        name: ("a13n_harness.context.encoder.x_g", "k", [])
    }
    for status in ("no tests", "survived"):
        verdict = judge(
            {name: status, "a13n_harness.context.encoder.x_f__mutmut_1": "killed"},
            changes,
            {},
            {"a13n_harness.context.encoder.x_g"},
        )
        assert verdict["survived"] == [name]
        assert verdict["total"] == 1  # x_f is outside the changed functions
    listed = judge({name: "skipped"}, changes, {("a13n_harness.context.encoder.x_g", "k"): "r"})
    assert listed["equivalent"] == 1
    assert not listed["survived"]
    unlisted = judge({name: "skipped"}, changes, {})
    assert unlisted["unchecked"] == [name]


def test_kill_sets_are_compared_by_change_and_a_lost_kill_is_reported() -> None:
    """The same kills before and after a change: a kill of a function whose code did not change
    must be a kill again; one whose function changed may be gone (its mutants are new)."""
    f, g, h = (f"a13n_harness.context.encoder.x_{name}" for name in "fgh")
    before = {
        f"{f} k1": {"status": "killed"},
        f"{f} k2": {"status": "timeout"},
        f"{g} k3": {"status": "killed"},
        f"{h} k4": {"status": "survived"},
        f"{h} k6": {"status": "killed"},
    }
    after = {
        f"{f} k1": {"status": "killed"},
        f"{f} k2": {"status": "survived"},
        f"{g} k5": {"status": "killed"},
        f"{h} k4": {"status": "killed"},
    }
    compared = compare_kill_sets(before, after, {g})
    assert compared["killed_again"] == [f"{f} k1"]
    assert compared["not_killed_again"] == [f"{f} k2"]  # lost: x_f did not change
    assert compared["gone_with_changed_functions"] == [f"{g} k3"]
    assert compared["gone_from_unchanged_functions"] == [f"{h} k6"]  # lost too
    assert compared["new_kills_in_changed_functions"] == [f"{g} k5"]
    assert compared["new_kills_in_unchanged_functions"] == [f"{h} k4"]
    # Negative control: a run compared with itself loses nothing.
    same = compare_kill_sets(before, before, set())
    assert not same["not_killed_again"]
    assert not same["gone_from_unchanged_functions"]
    assert len(same["killed_again"]) == 4


MESSAGE_MODULE = """
from a13n_harness.context.errors import DefinitionError


def _invalid(reason, message):
    return DefinitionError("catalog_invalid", message, reason=reason)


def check(value, where):
    if value < 0:
        raise _invalid("negative", f"{where} is {value}, below 0")
    if value > 9:
        raise DefinitionError("catalog_invalid", f"{chr(value)} too big", reason="large")
    return value
"""


@pytest.mark.parametrize(
    ("mutated", "excused"),
    [
        ('f"{where} is {value}, below 0"', 'f"XX{where} is {value}, below 0XX"'),
        ('"catalog_invalid", f"{chr(value)} too big"', '"catalog_invalid", None'),
        ('"catalog_invalid", f"{chr(value)} too big", ', '"catalog_invalid", '),
        ('f"{chr(value)} too big"', 'f"{chr(value)} TOO BIG"'),
    ],
)
def test_message_rule_excuses_a_mutant_that_only_changes_a_message(
    mutated: str, excused: str
) -> None:
    """Changed, upper-cased, ``None`` or dropped (defaulted) messages are equivalent."""
    slots = message_slots(MESSAGE_MODULE)
    assert slots["_invalid"] == ("message", 1, False)
    assert slots["check"] == ("where", 1, False)  # used only inside a message
    original = MESSAGE_MODULE[MESSAGE_MODULE.index("def check") :]
    assert mutated in original
    assert message_only(original, original.replace(mutated, excused, 1), slots)


@pytest.mark.parametrize(
    ("mutated", "changed"),
    [
        ('"catalog_invalid", f"{chr', '"XXcatalog_invalidXX", f"{chr'),  # the code
        ('reason="large"', 'reason="LARGE"'),  # the reason
        ('_invalid("negative"', '_invalid("XXnegativeXX"'),  # the reason, through a helper
        ('reason="large"', "reason=None"),
        ("chr(value)", "chr(None)"),  # the message now raises TypeError
        ('_invalid("negative", f"{where} is {value}, below 0")', '_invalid("negative", )'),
        ("value > 9", "value >= 9"),
    ],
)
def test_message_rule_does_not_excuse_a_code_or_reason_change(mutated: str, changed: str) -> None:
    """The rule's negative control: a code, a reason, a raising message, a required message
    dropped or any other change is left to the tests."""
    slots = message_slots(MESSAGE_MODULE)
    original = MESSAGE_MODULE[MESSAGE_MODULE.index("def check") :]
    assert mutated in original
    assert not message_only(original, original.replace(mutated, changed, 1), slots)


SPELLING_MODULE = """
import json

from a13n_harness.context.errors import DefinitionError


def check(text: str, value, data: bytes):
    if type(value) is not int:
        raise DefinitionError("catalog_invalid", f"got {type(value).__name__}", reason="type")
    if value < 0:
        raise DefinitionError("catalog_invalid", f"got {type(value.real).__name__}")
    if value > 9:
        raise DefinitionError("catalog_invalid", f"{describe(value)} > 9", reason="large")
    if value > 8:
        raise DefinitionError("catalog_invalid", f"{describe(value + 1)} > 8", reason="large")
    start = text.rfind("\\n", 0, 5) + value.find("x", 0)
    dumped = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return data.decode("utf-8"), text.encode("utf-8"), start, dumped
"""


@pytest.mark.parametrize(
    ("mutated", "excused"),
    [
        ('data.decode("utf-8")', 'data.decode("UTF-8")'),  # codec names: case-insensitive
        ('text.encode("utf-8")', 'text.encode("UTF_8")'),
        ("ensure_ascii=False", "ensure_ascii=None"),  # a flag read as a truth value
        ('text.rfind("\\n", 0, 5)', 'text.rfind("\\n", None, 5)'),  # str start: None is 0
        ("{type(value).__name__}", "{type(None).__name__}"),  # which type a message names
        ('f"{describe(value)} > 9"', 'f"{describe(None)} > 9"'),  # describe never raises
    ],
)
def test_spelling_rules_excuse_a_mutant_that_means_the_same(mutated: str, excused: str) -> None:
    """Codec-name case, a false flag spelt ``None``, a ``None`` start of a ``str`` parameter's
    search and the type a message names are equivalent by rule, not listed one by one."""
    slots = message_slots(SPELLING_MODULE)
    original = SPELLING_MODULE[SPELLING_MODULE.index("def check") :]
    assert mutated in original
    changed = original.replace(mutated, excused, 1)
    assert message_only(original, changed, slots, spellings=True)
    # Only the spelling rules excuse it: the message rule alone does not.
    assert not message_only(original, changed, slots) or "(None)" in excused


@pytest.mark.parametrize(
    ("mutated", "changed"),
    [
        ('data.decode("utf-8")', 'data.decode("latin-1")'),  # another codec
        ('data.decode("utf-8")', 'data.decode("XXutf-8XX")'),  # no codec: LookupError
        ("ensure_ascii=False", "ensure_ascii=True"),
        ("ensure_ascii=False, ", ""),  # the default is True
        ("sort_keys=True", "sort_keys=None"),
        (", sort_keys=True", ""),  # the default is False
        ('text.rfind("\\n", 0, 5)', 'text.rfind("\\n", 1, 5)'),
        ('value.find("x", 0)', 'value.find("x", None)'),  # not a str parameter: list.index...
        ("if type(value) is not int", "if type(None) is not int"),  # not a message
        ("{type(value.real).__name__}", "{type(None).__name__}"),  # value.real may raise
        ("{describe(value + 1)}", "{describe(None)}"),  # value + 1 may raise
        ("{describe(value)} > 9", "{repr(value)} > 9"),  # repr runs the value's own code
        ('"catalog_invalid", f"got {type(value).__name__}"', '"XXcatalog_invalidXX", None'),
        ('reason="type"', 'reason="TYPE"'),
        ('reason="type"', "reason=None"),
    ],
)
def test_spelling_rules_do_not_excuse_a_change_of_meaning(mutated: str, changed: str) -> None:
    """The spelling rules' negative control: another codec, a flag's other truth value, another
    start, a search on what may not be a ``str``, a ``type()`` outside a message or of an
    expression that may raise, and a changed code or reason are left to the tests."""
    slots = message_slots(SPELLING_MODULE)
    original = SPELLING_MODULE[SPELLING_MODULE.index("def check") :]
    assert mutated in original
    mutant = original.replace(mutated, changed, 1)
    assert not message_only(original, mutant, slots, spellings=True)


# Text mutmut adds to a module it mutates: copies of its functions whose strings are mutated.
MUTMUT_LIKE_COPIES = (
    "\n\ndef x_catalog_total__mutmut_1(catalog):\n"
    '    raise _invalid("XXtypeXX", "XXmessageXX")\n'
    "\n\ndef x_check_name__mutmut_2(name):\n"
    '    raise _invalid("name", "XXmessageXX")\n'
)


def _checks_run(tmp_path: Path, selection: list[str]) -> int:
    """Exit code of ``test_checks.py`` against a copy of the core holding mutmut-like copies."""
    source = tmp_path / "src"
    shutil.copytree(REPO / "core" / "a13n_harness", source / "a13n_harness")
    catalog = source / "a13n_harness" / "context" / "catalog.py"
    catalog.write_text(catalog.read_text(encoding="utf-8") + MUTMUT_LIKE_COPIES, encoding="utf-8")
    return bounded(
        [sys.executable, "-m", "pytest", "-q", "-x", "properties/test_checks.py", *selection],
        cwd=REPO,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(source), "HYPOTHESIS_PROFILE": "ci"},
    ).returncode


@pytest.mark.environment  # two runs of a test module; the mutmut step it protects is --full's
def test_mutmut_deselects_every_test_that_reads_the_source_text(tmp_path: Path) -> None:
    """mutmut's clean run sees the core with every mutant's copy in it: the tests that read
    the source text are deselected (every full run failed its stats run when one was not)."""
    assert _checks_run(tmp_path / "with", list(DESELECTED)) == 0
    # Negative control: the same tree without the deselection fails.
    assert _checks_run(tmp_path / "without", []) == 1


def test_the_timeout_recheck_stretches_with_the_load_per_core() -> None:
    """A mutant stopped at 2x is rerun at 4x on an idle box, more on a busy one, 16x at most."""
    assert recheck_multiplier(0.3, 2) == 4.0
    assert recheck_multiplier(2.0, 2) == 4.0
    assert recheck_multiplier(6.0, 2) == 12.0
    assert recheck_multiplier(9.0, 2) == 16.0
    assert recheck_multiplier(3.0, 0) == 12.0  # an unknown core count counts as one


_BUDGETED = """
import os
import sys

sys.path.insert(0, {scripts!r})
from _gate.mutmut_run import CpuBudgets

import pytest


def test_quick():
    assert sum(range(1000)) == 499500


def test_endless():
    while True:
        pass


durations = {{"test_budgeted.py::test_quick": 0.001, "test_budgeted.py::test_endless": 0.001}}
exit_code = pytest.main(
    ["-q", "-p", "no:cacheprovider", "test_budgeted.py::" + sys.argv[1]],
    plugins=[CpuBudgets(durations, 0.5)],
)
os._exit(int(exit_code))
"""


def _budgeted(folder: Path, test: str) -> tuple[int, float]:
    """Exit status and CPU seconds of a worker-like process running one test under budgets."""
    folder.mkdir(exist_ok=True)
    (folder / "test_budgeted.py").write_text(
        _BUDGETED.format(scripts=str(REPO / "scripts")), encoding="utf-8"
    )
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    finished = bounded([sys.executable, "test_budgeted.py", test], cwd=folder, cpu_seconds=120)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return finished.returncode, cpu


def test_a_test_past_its_cpu_budget_ends_the_worker_as_a_timeout(tmp_path: Path) -> None:
    """A mutant that makes a loop endless is stopped by the cheap test reaching it, after that
    test's own CPU budget (2 x multiplier x (its time + TEST_CONSTANT)), not the whole set's."""
    budget = cpu_budget(0.001, 0.5)
    assert budget == pytest.approx(0.251)
    assert cpu_budget(None, 2.0) is None  # a test the stats did not time has no budget
    status, cpu = _budgeted(tmp_path, "test_endless")
    assert status == TEST_OVER_BUDGET == 36  # mutmut's "timeout": a kill, rechecked
    assert cpu < 30  # stopped by the test's budget, not by the run's own 120 CPU s
    # Negative control: a test inside its budget passes, and the worker exits 0.
    assert _budgeted(tmp_path, "test_quick")[0] == 0


def test_the_first_pass_follows_the_load_and_the_recheck_is_always_longer() -> None:
    """The first pass's wall budget stretches with the load per core (2x idle, 8x at most); the
    recheck's is above it even when the load dropped (mutmut reruns only on a change)."""
    assert first_multiplier(0.3, 2) == 2.0
    assert first_multiplier(6.0, 2) == 6.0
    assert first_multiplier(40.0, 2) == 8.0
    assert rechecked_multiplier(2.0, 0.3, 2) == 4.0
    assert rechecked_multiplier(6.0, 0.5, 2) == 12.0
    assert rechecked_multiplier(2.0, 9.0, 2) == 16.0
    assert rechecked_multiplier(8.0, 40.0, 2) == 16.0


FACT_MODULE = """
def scan(data: bytes, position: int, limit: int):
    found = data.find(b"\\n", position, limit + 1)
    if found < 0:
        return -1
    seen = False
    best = -1
    for a, b in zip(data, data[1:], strict=True):
        if seen:
            best = a
        seen = a == b
    line = mark.line or 1
    index = event.mark.index if event.mark is not None else 0
    note(1, position, "label")
    probe(1)
    probe(found)
    return found if best >= 0 else -1
"""
FACTS_UNDER_TEST = (
    Fact("encoder", "scan", GAP, "found", "a search from position 1 or later", high=0),
    Fact("encoder", "scan", BOUND, "data.find", "the bound only stops early"),
    Fact("encoder", "scan", SIGN, "", "the caller reads the sign"),
    Fact("encoder", "scan", VALUE, "seen", "a truth value", values="falsy", first=True),
    Fact("encoder", "scan", VALUE, "best", "compared with 0 only", values="negative", first=True),
    Fact("encoder", "scan", ZIP, "", "data and data[1:] ... one length by construction"),
    Fact("encoder", "scan", FALLBACK, "mark.line", "a mark's line is 1 or more"),
    Fact("encoder", "scan", FALLBACK, "event.mark is not None", "every event has a mark"),
    Fact("encoder", "scan", ARGUMENT, "note", "only the label is free", index=2),
    Fact("encoder", "scan", ARGUMENT, "probe", "a sample call only", statement="probe(1)"),
)


def _fact_for(original: str, mutated: str, module: str = "encoder") -> str | None:
    body = FACT_MODULE.lstrip()
    assert original in body
    fact = fact_excuses(
        FACTS_UNDER_TEST, module, "x_scan", body, body.replace(original, mutated, 1)
    )
    return None if fact is None else fact.kind


@pytest.mark.parametrize(
    ("original", "mutated", "kind"),
    [
        ("if found < 0:", "if found <= 0:", GAP),  # differs only at 0, which found never is
        ("if found < 0:", "if found < 1:", GAP),
        ("best >= 0 else", "best > 0 else", None),  # best has no gap fact
        ("limit + 1)", "limit + 2)", BOUND),
        (", limit + 1)", ", None)", BOUND),
        (", limit + 1)", ")", BOUND),
        ("        return -1", "        return -2", SIGN),
        ("else -1\n", "else -2\n", SIGN),
        ("seen = False", "seen = None", VALUE),
        ("best = -1", "best = -2", VALUE),
        ("strict=True", "strict=False", ZIP),
        (", strict=True", "", ZIP),
        ("mark.line or 1", "mark.line or 2", FALLBACK),
        ("else 0\n", "else 1\n", FALLBACK),
        ("if event.mark is not None else", "if (event.mark is not None) or True else", FALLBACK),
        ('"label")', '"XXlabelXX")', ARGUMENT),
        ('"label")', "None)", ARGUMENT),
        ("probe(1)", "probe(2)", ARGUMENT),
        ("probe(1)", "probe(None)", ARGUMENT),
    ],
)
def test_facts_excuse_what_their_kind_says_cannot_matter(
    original: str, mutated: str, kind: str | None
) -> None:
    assert _fact_for(original, mutated) == kind


@pytest.mark.parametrize(
    ("original", "mutated"),
    [
        ("if found < 0:", "if found < -1:"),  # differs at -1, a miss: the gap is only 0
        ("if found < 0:", "if found > 0:"),
        ("if found < 0:", "if found <= 1:"),  # differs at 1
        ("limit + 1)", "limit - 1)"),  # a smaller bound may stop before the newline
        ("limit + 1)", "limit + 0)"),
        ("position, limit", "position + 1, limit"),  # the start is not the bound
        ("        return -1", "        return 1"),  # a miss read as a find
        ("seen = False", "seen = True"),  # another truth value
        ("seen = a == b", "seen = None"),  # not the first assignment
        ("best = -1", "best = 0"),  # no longer negative
        ("best = a", "best = -2"),  # not the first assignment
        ("zip(data, data[1:]", "zip(data, data[2:]"),  # the iterables, not the flag
        ("mark.line or 1", "mark.column or 1"),  # the tested value itself
        ("if event.mark is not None else", "if event.mark is None else"),
        ("else 0\n", "else 0 + index\n"),  # still the fallback: excused (kept as a check below)
        ("note(1,", "note(2,"),  # another argument than the free one
        ("note(1, position,", "note(1, position + 1,"),
        ("probe(found)", "probe(None)"),  # the same callee, not the sample call
    ],
)
def test_facts_negative_control_a_change_outside_the_fact_is_left_to_the_tests(
    original: str, mutated: str
) -> None:
    kind = _fact_for(original, mutated)
    if mutated == "else 0 + index\n":
        assert kind == FALLBACK  # the else branch is never taken: whatever it computes
    else:
        assert kind is None


def test_facts_hold_only_in_their_own_module_and_function() -> None:
    body = FACT_MODULE.strip()
    mutated = body.replace("if found < 0:", "if found <= 0:")
    assert fact_excuses(FACTS_UNDER_TEST, "render", "x_scan", body, mutated) is None
    assert fact_excuses(FACTS_UNDER_TEST, "encoder", "x_other", body, mutated) is None
    # A package's modules share its facts (lint split into lint/...): encoder.part is encoder's.
    assert fact_excuses(FACTS_UNDER_TEST, "encoder.part", "x_scan", body, mutated) is not None
    assert fact_excuses(FACTS_UNDER_TEST, "encoder/part", "x_scan", body, mutated) is not None
    assert fact_excuses(FACTS_UNDER_TEST, "encoders", "x_scan", body, mutated) is None
    assert source_name("xǁ_Bodyǁ__init__") == "_Body.__init__"
    assert source_name("x__scan_body") == "_scan_body"


def _core_sources(module: str) -> str:
    """The source of a core module, or of every module of a core package of that name."""
    folder = REPO / "core" / "a13n_harness" / "context"
    files = [folder / f"{module}.py", *sorted((folder / module).glob("*.py"))]
    return "\n".join(path.read_text(encoding="utf-8") for path in files if path.is_file())


def test_every_fact_names_a_function_that_holds_its_target() -> None:
    """A fact cannot rot silently: its function exists in its module (or package) and holds
    what the fact is about, and every fact has a reason."""
    import ast  # noqa: PLC0415 - only here

    for fact in FACTS:
        assert fact.reason.strip(), fact
        tree = ast.parse(_core_sources(fact.module))
        owner, _, name = fact.function.rpartition(".")
        scopes = (
            [
                node
                for node in ast.walk(tree)
                if isinstance(node, ast.ClassDef) and node.name == owner
            ]
            if owner
            else [tree]
        )
        functions = [
            node
            for scope in scopes
            for node in (scope.body if owner else ast.walk(scope))
            if isinstance(node, ast.FunctionDef) and node.name == name
        ]
        assert functions, f"{fact.module}.{fact.function}: no such function"
        if fact.target:
            texts = {ast.unparse(node) for node in ast.walk(functions[0])}
            assert fact.target in texts, f"{fact.function}: no {fact.target}"
        if fact.kind == ZIP:
            assert "zip(" in ast.unparse(functions[0]), fact


def test_the_listing_stays_short() -> None:
    """What a rule cannot say is listed one mutant a line; families are facts or rules."""
    listed = [
        line
        for line in (REPO / "scripts" / "mutmut_equivalent.txt").read_text().splitlines()
        if line.strip() and not line.startswith(("#", " "))
    ]
    assert len(listed) <= 60
