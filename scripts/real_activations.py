"""Activate every skill of the exported public repositories and certify each activation.

    python scripts/real_activations.py --repos /work/real-repos [--json]

Every folder holding a ``SKILL.md`` (outside ``.git``) is a package; its parent is a root.
For each root, a run is prepared over the repository mounted as ``/workspace`` (checkout
policy: a bad entry is skipped, as the command line does) and every skill of it is activated
with ``by="user"`` (user-only skills too) at the default window, then certified with
``verify_activation``; a second activation must be the note. Prints, per repository:
skills activated, skills refused (with the code), the forms (full or cut), the largest
activation (UTF-8 bytes, or ``--tokenizer``'s tokens, the run then budgeting in them) and
the listings that hit the 100-resource cap; and overall the largest activation. An
activation that fails to verify ends the script with its ``DefinitionError``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

from a13n_harness import Environment, RunBindings
from a13n_harness.capabilities import (
    FileSkillSource,
    SkillManager,
    SkillsCapability,
    SkillsPolicy,
    verify_activation,
)
from a13n_harness.context.errors import DefinitionError
from a13n_harness.context.tokens import TokenCounter
from a13n_harness.environment import LocalDirectoryProvider
from a13n_harness.tokenizers import token_counter


@dataclass
class Report:
    """What one repository's activations showed."""

    activated: int = 0
    forms: Counter[str] = field(default_factory=Counter)
    refused: list[tuple[str, str, str | None]] = field(default_factory=list)
    refused_roots: list[tuple[str, str]] = field(default_factory=list)
    largest: tuple[int, str, str] = (0, "", "")
    capped: list[tuple[str, int, int]] = field(default_factory=list)
    most_resources: tuple[int, str] = (0, "")


def _roots(repository: Path) -> list[str]:
    """Every folder that holds a package, as an Environment path, sorted."""
    roots = set()
    for document in repository.rglob("SKILL.md"):
        parts = document.relative_to(repository).parts
        if ".git" in parts or len(parts) < 2:
            continue
        roots.add("/".join(("/workspace", *parts[:-2])))
    return sorted(roots)


async def _check_root(
    repository: Path, root: str, report: Report, counter: TokenCounter | None
) -> None:
    manager = SkillManager(
        (FileSkillSource("repo", (root,), required=True),), policy=SkillsPolicy.checkout()
    )
    async with Environment({"workspace": LocalDirectoryProvider(repository)}) as environment:
        try:
            prepared = await SkillsCapability(manager).prepare(
                RunBindings.embedded(environment=environment, token_counter=counter)
            )
        except DefinitionError as error:
            report.refused_roots.append((root, error.code))
            return
        for name in prepared.activatable(by="user"):
            try:
                activation = await prepared.activate(name, by="user")
            except DefinitionError as error:
                report.refused.append((f"{root}/{name}", error.code, error.reason))
                continue
            verify_activation(prepared, name, activation)
            again = await prepared.activate(name, by="user")
            verify_activation(prepared, name, again)
            assert again.form == "repeat", again
            text = activation.text
            size = len(text.encode("utf-8")) if counter is None else counter.count(text)
            report.activated += 1
            report.forms[activation.form] += 1
            report.largest = max(report.largest, (size, f"{root}/{name}", activation.form))
            if activation.resources_omitted:
                report.capped.append(
                    (f"{root}/{name}", len(activation.resources), activation.resources_omitted)
                )
            total = len(activation.resources) + activation.resources_omitted
            report.most_resources = max(report.most_resources, (total, f"{root}/{name}"))


async def _check(repository: Path, counter: TokenCounter | None) -> Report:
    report = Report()
    for root in _roots(repository):
        await _check_root(repository, root, report, counter)
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repos", type=Path, required=True)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--tokenizer", help="cl100k_base or o200k_base: sizes in its tokens")
    arguments = parser.parse_args()
    counter = None if arguments.tokenizer is None else token_counter(arguments.tokenizer)
    reports: dict[str, Report] = {}
    for repository in sorted(path for path in arguments.repos.iterdir() if path.is_dir()):
        reports[repository.name] = asyncio.run(_check(repository, counter))
    if arguments.json:
        print(json.dumps({name: asdict(report) for name, report in reports.items()}, indent=2))
        return 0
    for name, report in reports.items():
        print(
            f"{name}: {report.activated} activated and verified, forms {dict(report.forms)}, "
            f"largest {report.largest}, capped listings {report.capped}, most resources "
            f"{report.most_resources}, refused {report.refused}, refused roots "
            f"{report.refused_roots}"
        )
    largest = max((report.largest, name) for name, report in reports.items())
    print(f"largest activation: {largest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
