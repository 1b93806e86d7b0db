"""The tools whose private API the harness uses, the series it was tested with, and the check
that stops the harness with a clear message before it patches or calls anything else.

A private API changes without notice in any release; a failed patch would not crash but
silently measure something else (mutmut's kill counts, Hypothesis' constant draws). So
each use checks the installed series first. ``constraints/dev.txt`` pins the versions CI
installs; moving a pin to another series means rereading the uses listed here.
"""

from __future__ import annotations

from importlib import metadata

# distribution: (tested series "major.minor", what of its private API the harness uses)
PRIVATE_API = {
    "mutmut": (
        "3.8",
        "scripts/_gate/mutmut_run.py replaces mutmut.__main__.collect_source_file_mutation_data "
        "and PytestRunner._pytest_args_regular_run and reads mutmut.state",
    ),
    "hypothesis": (
        "6",
        "scripts/_gate/warm.py calls hypothesis.internal.constants_ast.is_local_module_file "
        "and drops the _hypothesis_failing_examples of a test item its pytest plugin reads",
    ),
}


class UntestedVersion(SystemExit):
    """The installed tool is not the series the harness's use of its private API was tested
    with (a SystemExit: the script ends with the message, not a traceback)."""


def series(version: str, parts: int) -> str:
    """The first ``parts`` numbers of a version: ``series("3.8.1", 2) == "3.8"``."""
    return ".".join(version.split(".")[:parts])


def require(distribution: str, installed: str | None = None) -> str:
    """The installed version of ``distribution``; raises :class:`UntestedVersion` naming the
    tested series and the private API when it is another series (or not installed)."""
    tested, uses = PRIVATE_API[distribution]
    if installed is None:
        try:
            installed = metadata.version(distribution)
        except metadata.PackageNotFoundError:
            installed = "not installed"
    if series(installed, tested.count(".") + 1) != tested:
        raise UntestedVersion(
            f"{distribution} {installed} is not the tested {tested}.x: {uses}. Install the "
            f"pinned version (pip install -c constraints/dev.txt -e '.[dev]') or check those "
            f"uses against {distribution} {installed} and update PRIVATE_API in "
            f"scripts/_gate/versions.py."
        )
    return installed
