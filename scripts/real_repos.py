"""Export the seven public skill repositories and run the CLI over them, as users do.

The repositories are test inputs, never fixtures: nothing they hold is committed. A snapshot
is taken from a bare mirror (``--mirrors DIR`` holding ``owner+name/repo``, as the search tool's
``fetch`` leaves them) or from a folder that already holds the exported trees (``--repos DIR``).

    python scripts/real_repos.py export --mirrors /work/.mirror --repos build/real-repos
    python scripts/real_repos.py check --repos build/real-repos [--json]

``check`` prints, per repository: SKILL.md files in the tree, skills ``catalog --root <folder>``
lists (namespace form ``/skills``, and as users type it, ``skills/``), skills and findings of
``lint`` with no argument (per rule), the findings about a platform's fields under
``--profile claude-code`` (0 when every Claude Code field is used as documented), and the
commit.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from _gate import process  # scripts/ is first on sys.path when this runs as a script

ROOT = Path(__file__).resolve().parent.parent
# CPU seconds one command may spend on one checkout (the largest, a few hundred skills, takes
# a few): a CPU budget, not wall time, so a busy machine slows the check down without failing it.
CLI_CPU_SECONDS = 600

# owner+name -> the folder(s) of skill folders an author would pass as --root.
REPOSITORIES: dict[str, tuple[str, ...]] = {
    "anthropics+skills": ("skills",),
    "openai+skills": ("skills/.curated", "skills/.system", "skills/.experimental"),
    "obra+superpowers": ("skills",),
    "vercel-labs+agent-skills": ("skills",),
    "trailofbits+skills": (),  # plugins/*/skills: found by lint's walk, listed per plugin below
    "K-Dense-AI+claude-scientific-skills": ("scientific-skills",),
    "pydantic+pydantic-ai": (".agents/skills", ".claude/skills"),
}

# Paths a `git archive` cannot export from a partial mirror (large objects absent).
EXCLUDE = {"pydantic+pydantic-ai": (":!tests/models/cassettes",)}


def export(mirrors: Path, repos: Path) -> None:
    repos.mkdir(parents=True, exist_ok=True)
    for name in REPOSITORIES:
        git_dir = mirrors / name / "repo"
        target = repos / name
        if target.exists():
            continue
        target.mkdir()
        archive = subprocess.run(
            [
                "git",
                "--git-dir",
                str(git_dir),
                "archive",
                "HEAD",
                "--",
                ".",
                *EXCLUDE.get(name, ()),
            ],
            check=True,
            capture_output=True,
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
        commit = subprocess.run(
            ["git", "--git-dir", str(git_dir), "rev-parse", "--short", "HEAD"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        (target.parent / f"{name}.commit").write_text(commit + "\n")
        print(f"exported {name} at {commit}")


def _cli(workspace: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    """``a13n-skills ARGV`` in the checkout, under a CPU budget (``_gate.process``): a stopped
    run is an exit code of its own and the reason on its last line of stderr."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "core"))
    command = [sys.executable, "-m", "a13n_harness", *argv]
    limits = process.Limits(CLI_CPU_SECONDS)
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errors:
        finished = process.run(command, limits=limits, cwd=workspace, env=env, stderr=errors)
        errors.seek(0)
        stderr = errors.read()
    if finished.stopped:
        stderr += f"\nstopped: {limits.describe(finished.stopped)}\n"
    return subprocess.CompletedProcess(command, finished.exit_code, finished.output, stderr)


def _roots(workspace: Path, name: str) -> tuple[str, ...]:
    if name == "trailofbits+skills":
        return tuple(
            str(p.relative_to(workspace)) for p in sorted((workspace / "plugins").glob("*/skills"))
        )
    return REPOSITORIES[name]


def _catalog_skills(workspace: Path, roots: list[str]) -> int | str:
    """Skills ``catalog --json`` finds under ``roots``, or why it failed (``-``: no roots)."""
    if not roots:
        return "-"
    argv = ["catalog", ".", "--json"]
    for root in roots:
        argv += ["--root", root]
    done = _cli(workspace, *argv)
    try:
        return len(json.loads(done.stdout)["skills"])
    except (ValueError, KeyError, TypeError):
        return f"exit {done.returncode}: {done.stderr.strip().splitlines()[-1:]}"


def check(repos: Path) -> list[dict[str, object]]:
    rows = []
    for name in REPOSITORIES:
        workspace = repos / name
        if not workspace.is_dir():
            continue
        files = sum(1 for _ in workspace.rglob("SKILL.md"))
        roots = _roots(workspace, name)
        listed = _catalog_skills(workspace, [f"/{root}" for root in roots])
        # The same roots as users type them: relative, with a trailing slash.
        typed = _catalog_skills(workspace, [f"{root}/" for root in roots])
        default = _cli(workspace, "catalog", ".")
        lint = _cli(workspace, "lint", ".", "--format", "json")
        try:
            report = json.loads(lint.stdout)
            findings = report.get("findings", [])
            per_rule = collections.Counter(f"{f['severity']}:{f['rule']}" for f in findings)
            skills: object = report.get("skills", report.get("summary", {}))
        except (ValueError, AttributeError):
            per_rule, skills = collections.Counter(), f"exit {lint.returncode}"
        # Under --profile claude-code no documented Claude Code field is reported.
        claude = _cli(workspace, "lint", ".", "--format", "json", "--profile", "claude-code")
        try:
            platform_fields: object = sum(
                f["rule"] in ("skill_field_not_portable", "skill_field_invalid")
                for f in json.loads(claude.stdout).get("findings", [])
            )
        except (ValueError, AttributeError):
            platform_fields = f"exit {claude.returncode}"
        commit_file = repos / f"{name}.commit"
        rows.append(
            {
                "repository": name,
                "commit": commit_file.read_text().strip() if commit_file.exists() else "?",
                "skill_md_files": files,
                "catalog_roots": list(roots),
                "catalog_listed": listed,
                "catalog_listed_as_typed": typed,
                "catalog_default_summary": default.stderr.strip().splitlines()[-1:],
                "lint_skills": skills,
                "lint_exit": lint.returncode,
                "lint_findings": dict(sorted(per_rule.items())),
                "lint_claude_code_platform_field_findings": platform_fields,
            }
        )
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    ex = sub.add_parser("export")
    ex.add_argument("--mirrors", type=Path, required=True)
    ex.add_argument("--repos", type=Path, default=ROOT / "build" / "real-repos")
    ch = sub.add_parser("check")
    ch.add_argument("--repos", type=Path, default=ROOT / "build" / "real-repos")
    ch.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.command == "export":
        export(args.mirrors, args.repos)
        return 0
    rows = check(args.repos)
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        for row in rows:
            print(f"## {row['repository']} ({row['commit']})")
            for key, value in row.items():
                if key not in ("repository", "commit"):
                    print(f"  {key}: {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
