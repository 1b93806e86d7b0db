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

import sys

from harness.scratch import REPO

if str(REPO / "scripts") not in sys.path:
    sys.path.append(str(REPO / "scripts"))

# scripts/ is on the path only from the lines above (E402 below).
from verification_table import contracted, problems, public_functions

QUICK = REPO / "properties" / "crosshair_contracts.py"
CORE = REPO / "properties" / "crosshair_core.py"


def sources() -> list[str]:
    return [path.read_text(encoding="utf-8") for path in (QUICK, CORE)]


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
    public = {*public_functions(), "render.render_sideways"}
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
