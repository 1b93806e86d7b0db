"""The mutation gate names the modules of a package (``lint`` is one) by their own dotted
names: each sub-module is mutated, selected and reported on its own, and its mutants' names
lead back to its file."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
if str(REPO / "scripts") not in sys.path:
    sys.path.append(str(REPO / "scripts"))  # the gate's package, _gate

# scripts/ is on the path only from the lines above (E402 below).
from _gate.mutmut_mutants import PACKAGE, module_file, module_of  # noqa: E402
from _gate.mutmut_run import MODULES, named_functions  # noqa: E402
from _gate.mutmut_select import selection_reaching  # noqa: E402

CONTEXT = REPO / "core" / "a13n_harness" / "context"


def test_every_mutated_module_is_a_file_of_the_pure_core() -> None:
    for module in MODULES:
        assert (CONTEXT / module_file(module)).is_file(), module


def test_every_module_of_the_lint_package_is_mutated() -> None:
    package = {
        f"lint.{path.stem}" for path in (CONTEXT / "lint").glob("*.py") if path.stem != "__init__"
    }
    assert package <= set(MODULES)
    assert "lint" not in MODULES  # a package has no source of its own to mutate


@pytest.mark.parametrize(
    ("name", "module"),
    [
        (f"{PACKAGE}.encoder.x_encode_value__mutmut_3", "encoder"),
        (f"{PACKAGE}.lint._references.x__scan_body__mutmut_12", "lint._references"),
        (f"{PACKAGE}.lint._references.xǁ_Bodyǁcode__mutmut_1", "lint._references"),
        (f"{PACKAGE}.lint._fields.xǁ_Checkerǁname", "lint._fields"),
    ],
)
def test_a_mutant_name_leads_back_to_its_module(name: str, module: str) -> None:
    assert module_of(name) == module
    assert (CONTEXT / module_file(module)).is_file()


def test_named_functions_take_the_longest_module() -> None:
    assert named_functions(["lint._references._fence_at", "lint._fields._Checker.name"]) == {
        "lint._references": ["x__fence_at"],
        "lint._fields": ["xǁ_Checkerǁname"],
    }
    with pytest.raises(SystemExit):
        named_functions(["lint._fence_at"])  # the package itself is no module of functions


def test_a_sub_module_is_reached_by_the_tests_importing_its_package() -> None:
    tests = ["properties/test_lint_scan.py", "properties/test_encoder.py"]
    assert selection_reaching(["lint._references"], tests) == ["properties/test_lint_scan.py"]
    assert selection_reaching(["lint._rules"], tests) == ["properties/test_lint_scan.py"]
