"""The command line reads positionals and options in any order, as Unix tools do.

``a13n-skills lint A --format json B`` lints A and B; options between PATHs are options;
``--`` still ends the options (a PATH may start with ``-``); an unknown option is still a
usage error.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from a13n_harness.cli import build_parser, main


def _skill(root: Path, name: str) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: Checks {name} files before a release.\n---\nBody.\n",
        encoding="utf-8",
    )
    return folder


def test_paths_after_an_option_are_paths(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = _skill(tmp_path, "first-skill"), _skill(tmp_path, "second-skill")
    code = main(["lint", str(first), "--format", "json", str(second)])
    document = json.loads(capsys.readouterr().out)
    assert code == 0
    assert document["summary"]["skills"] == 2


@pytest.mark.parametrize(
    ("arguments", "paths", "format_"),
    [
        (["lint", "a", "--format", "sarif", "b"], ["a", "b"], "sarif"),
        (["lint", "--format", "json", "a", "b"], ["a", "b"], "json"),
        (["lint", "a", "b", "--format", "text"], ["a", "b"], "text"),
        (["lint", "--", "-a"], ["-a"], "text"),
    ],
)
def test_the_parser_reads_every_path_wherever_it_stands(
    arguments: list[str], paths: list[str], format_: str
) -> None:
    parsed = build_parser().parse_args(arguments)
    assert parsed.paths == paths
    assert parsed.format == format_


def test_an_unknown_option_between_paths_is_still_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["lint", "a", "--no-such-option", "b"]) == 2
    assert "usage_invalid: unrecognized arguments: --no-such-option" in capsys.readouterr().err
