"""Write ``constraints/dev.txt``: the exact version of every distribution the ``dev`` extra
installs (and what they require in turn), as installed in the running environment.

CI installs through it (``pip install -c constraints/dev.txt -e '.[dev]'``, ``.ci/run``), so
the gate runs next month with the tools it ran with today. To move the pins::

    python -m pip install --upgrade -e '.[dev]'   # newest versions the extra allows
    python scripts/constraints.py                  # rewrite the file from this environment
    python scripts/verify.py                       # the gate on the new tools

``--check`` compares instead of writing (exit 1 and the differing lines when the file is not
what this environment would write). Distributions the environment lacks (a requirement
whose marker is false here, such as atheris off Linux) are kept from the existing file.
"""

from __future__ import annotations

import argparse
import re
import sys
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

REPO = Path(__file__).resolve().parent.parent
TARGET = REPO / "constraints" / "dev.txt"
HEADER = """\
# The development tools CI installs, pinned: pip install -c constraints/dev.txt -e '.[dev]'
# Written by `python scripts/constraints.py` from an environment where the dev extra is
# installed (scripts/constraints.py says how to move the pins). Do not edit by hand.
"""


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def closure(requirements: list[str], extras: tuple[str, ...] = ()) -> dict[str, str]:
    """Every installed distribution the requirements reach, by canonical name: version."""
    found: dict[str, str] = {}
    pending = [(Requirement(text), extras) for text in requirements]
    while pending:
        requirement, parent_extras = pending.pop()
        marker = requirement.marker
        if marker is not None and not any(
            marker.evaluate({"extra": extra}) for extra in (parent_extras or ("",))
        ):
            continue
        name = canonical(requirement.name)
        try:
            distribution = metadata.distribution(requirement.name)
        except metadata.PackageNotFoundError:
            continue
        seen = name in found
        found[name] = distribution.version
        if seen and not requirement.extras:
            continue
        for text in distribution.requires or []:
            pending.append((Requirement(text), tuple(requirement.extras)))
    return found


def pins(pyproject: Path = REPO / "pyproject.toml") -> dict[str, str]:
    """The pins this environment gives: the project's dependencies and its dev extra."""
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    found = closure([*project["dependencies"], *project["optional-dependencies"]["dev"]])
    found.pop(canonical(project["name"]), None)
    return found


def read_pins(path: Path) -> dict[str, str]:
    """``name==version`` lines of a constraints file, by canonical name."""
    if not path.is_file():
        return {}
    found = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        name, _, version = line.partition("==")
        if version and not line.startswith("#"):
            found[canonical(name)] = version.strip()
    return found


def render(found: dict[str, str]) -> str:
    return HEADER + "".join(f"{name}=={found[name]}\n" for name in sorted(found))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    parser.add_argument("--output", type=Path, default=TARGET)
    args = parser.parse_args(argv)
    found = {**read_pins(args.output), **pins()}
    text = render(found)
    if args.check:
        current = args.output.read_text(encoding="utf-8") if args.output.is_file() else ""
        differ = sorted(set(text.splitlines()) ^ set(current.splitlines()))
        for line in differ:
            print(("+ " if line in text.splitlines() else "- ") + line)
        return 1 if differ else 0
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text, encoding="utf-8")
    print(f"{len(found)} pins written to {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
