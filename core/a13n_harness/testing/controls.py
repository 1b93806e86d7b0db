"""Negative controls: show that a property fails against a broken implementation."""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import Phase, settings

__all__ = ["FIND_ONLY", "control_settings", "property_fails"]

FIND_ONLY = (Phase.explicit, Phase.generate)
"""A control needs one failing example, not a shrunk one: skip shrinking."""

control_settings = settings(
    report_multiple_bugs=False, phases=FIND_ONLY, max_examples=500, deadline=None
)
"""Settings for a property run as a negative control (stops at the first failure)."""


def property_fails(
    run: Callable[[], None], expected: tuple[type[BaseException], ...] = (AssertionError,)
) -> BaseException:
    """Run a property against a broken implementation and return the failure it raised.

    Raises ``AssertionError`` when the property passed: a property that cannot
    fail is a defect.
    """
    try:
        run()
    except expected as failure:
        return failure
    raise AssertionError("the property passed against a broken implementation")
