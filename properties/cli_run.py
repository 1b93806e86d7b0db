"""Running ``a13n-skills`` as a user does, for every command-line test module.

One subprocess helper instead of one per module: the environment (the package under
test first on the path, no user or system git configuration),
the checks every run shares (never a traceback on stderr) and the shape of a
failure (exit 1, one line ``a13n-skills: ...`` on stderr).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

import a13n_harness
from bounded import run_bounded

REPO = Path(__file__).resolve().parent.parent
# The folder holding the a13n_harness under test: core/ in a source-tree run, the fresh
# environment's site-packages in the gate's wheel run (scripts/verify.py --target wheel).
CORE = Path(a13n_harness.__file__).resolve().parent.parent
DEMO = REPO / "examples" / "demo-workspace"
SCRIPT = Path(sys.executable).with_name("a13n-skills")

Via = Literal["script", "module"]


def command(via: Via = "script") -> list[str]:
    """The installed console script (``module``: ``python -m a13n_harness.cli``; also the
    fallback when the package is not installed)."""
    if via == "script" and SCRIPT.exists():
        return [str(SCRIPT)]
    return [sys.executable, "-m", "a13n_harness.cli"]


def cli_environment(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """This process's environment with this checkout's package first and git configured by
    nothing outside the test (no global or system file)."""
    return {
        **os.environ,
        "PYTHONPATH": str(CORE),
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        **(extra or {}),
    }


def run_cli(
    *args: str | os.PathLike[str],
    via: Via = "script",
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    stdin: bytes | None = None,
    close: str = "",
    cpu_seconds: float = 60,
) -> subprocess.CompletedProcess[bytes]:
    """``a13n-skills ARGS`` in ``cwd`` (default the repository) with ``env`` added to the
    environment and the descriptors named in ``close`` ("0", "1", "2", "12") shut, under a CPU
    budget (``bounded.run_bounded``)."""
    argv = [*command(via), *map(str, args)]
    if close:
        redirections = " ".join(f"{fd}>&-" for fd in close)
        argv = ["/bin/sh", "-c", f'exec "$@" {redirections}', "sh", *argv]
    result = run_bounded(
        argv,
        cpu_seconds=cpu_seconds,
        cwd=cwd or REPO,
        env=cli_environment(env),
        input=stdin,
        capture_output=True,
    )
    assert b"Traceback" not in result.stderr, result.stderr.decode(errors="replace")
    return result


def one_error_line(result: subprocess.CompletedProcess[bytes]) -> str:
    """The single stderr line of a command that failed (exit 1)."""
    assert result.returncode == 1, result
    lines = result.stderr.decode().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("a13n-skills: "), lines
    return lines[0]
