"""Every line the command prints is whole, coded and safe in a CI log.

- A block stdout does not take whole (a short write under ``ulimit -f``, a full disk) is
  exit 1 with ``output_failed``, never exit 0 with part of the block and a summary that
  claims all of it (``BufferedWriter.write`` returns how much it took and keeps the error).
- No line on either stream, in any command or format, carries a raw control, separator or
  invisible character, or begins a GitHub Actions workflow command (``::``) with text the
  command did not write itself: argparse's messages echo argv, lint's lines start with a
  path, and both are written through ``cli._output.safe_line``.
- A name that is not UTF-8 is shown one way in every format (``\\xHH``) and JSON output is
  valid Unicode (no lone surrogate).
- Every error line reads ``a13n-skills: <code>: <message>`` with a code of ``ERROR_CODES``,
  operating-system and usage failures included.

The property runs ``main`` in process over drawn hostile names (every command and format);
the regression tests run the console script as a CI job does.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from a13n_harness.cli import _lint, _output, main
from a13n_harness.context.encoder import is_escaped
from a13n_harness.context.errors import ERROR_CODES
from bounded import run_bounded
from cli_run import cli_environment, command, run_here

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX names and limits")

_SKILL = "---\nname: {name}\ndescription: {description}\n---\nBody.\n"
_CODED = re.compile(r"a13n-skills: ([a-z_]+): ")


# ------------------------------------------------------------------ the checks


# The one workflow command the command writes itself (``lint --format github``): its
# properties are escaped (``:`` and ``,`` as %3A and %2C), so data cannot add another.
_PROPERTY = r"(file|line|col|endLine|endColumn|title)=[^,:]*"
_OWN_COMMAND = re.compile(rf"::(error|warning|notice)( {_PROPERTY}(,{_PROPERTY})*)?::")


def line_problems(stream: str, data: bytes, *, own_commands: bool = False) -> list[str]:
    """What is wrong with ``data`` as lines a CI log shows (empty when nothing is).

    With ``own_commands`` (``--format github``), a line may begin with the command's own
    workflow command, whose properties must then hold no unescaped ``:`` or ``,``."""
    try:
        text = data.decode("utf-8")  # strict: no stray byte, no encoded surrogate
    except UnicodeDecodeError as error:
        return [f"{stream}: not UTF-8: {error}"]
    problems = []
    for number, line in enumerate(text.split("\n"), 1):
        raw = sorted({f"U+{ord(c):04X}" for c in line if is_escaped(ord(c))})
        if raw:
            problems.append(f"{stream}:{number}: raw {', '.join(raw)} in {line!r}")
        if line.lstrip(" ").startswith("::") and not (own_commands and _OWN_COMMAND.match(line)):
            problems.append(f"{stream}:{number}: begins a workflow command: {line!r}")
    return problems


def error_line_problems(data: bytes) -> list[str]:
    """Every stderr line of ours that is not a warning carries a code of ``ERROR_CODES``."""
    problems = []
    for line in data.decode("utf-8", errors="replace").splitlines():
        if line.startswith("a13n-skills: warning: "):
            continue
        if line.startswith("a13n-skills: "):
            match = _CODED.match(line)
            if match is None or match.group(1) not in ERROR_CODES:
                problems.append(f"error line without a code: {line!r}")
        elif not line.startswith(("usage: ", " ", "listed=")):
            problems.append(f"stderr line of unknown shape: {line!r}")
    return problems


def _no_surrogates(value: object) -> bool:
    if isinstance(value, str):
        return not any("\ud800" <= c <= "\udfff" for c in value)
    if isinstance(value, dict):
        return all(_no_surrogates(k) and _no_surrogates(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_no_surrogates(item) for item in value)
    return True


def json_problems(data: bytes) -> list[str]:
    """JSON output that a strict reader refuses (a lone surrogate, even escaped)."""
    try:
        document = json.loads(data.decode("utf-8"))
    except ValueError as error:
        return [f"not JSON: {error}"]
    return [] if _no_surrogates(document) else ["a lone surrogate in the JSON document"]


@contextlib.contextmanager
def _captured() -> Iterator[tuple[io.BytesIO, io.BytesIO]]:
    out, err = io.BytesIO(), io.BytesIO()
    stdout = io.TextIOWrapper(out, encoding="utf-8", write_through=True)
    stderr = io.TextIOWrapper(err, encoding="utf-8", write_through=True)
    with mock.patch.object(sys, "stdout", stdout), mock.patch.object(sys, "stderr", stderr):
        yield out, err


def run_in_process(arguments: list[str], cwd: Path) -> tuple[int, bytes, bytes]:
    """``main(arguments)`` in ``cwd`` with stdout and stderr captured as bytes."""
    before = os.getcwd()
    os.chdir(cwd)
    try:
        with _captured() as (out, err):
            code = main(arguments)
            return code, out.getvalue(), err.getvalue()
    finally:
        os.chdir(before)


def problems_of_run(arguments: list[str], cwd: Path) -> list[str]:
    code, out, err = run_in_process(arguments, cwd)
    if arguments[0] == "manifest" and "-o" not in arguments:
        # The canonical manifest (docs/contract.md §5: UTF-8, no ASCII escaping) is a file
        # format, not a log line: one line that begins with "{", C0 controls escaped by
        # JSON; characters such as U+2028 in a value are carried raw (docs/security.md).
        found = [] if out.startswith(b"{") and b"\n" not in out else ["manifest shape"]
        found += [p for p in line_problems("stdout", out) if "begins a workflow" in p]
    else:
        found = line_problems("stdout", out, own_commands="github" in arguments)
    found += line_problems("stderr", err)
    found += error_line_problems(err)
    if code == 0 and ("--json" in arguments or {"json", "sarif"} & set(arguments)):
        found += json_problems(out)
    return [f"{arguments!r} (exit {code}): {problem}" for problem in found]


# ------------------------------------------------------------ hostile names

PIECES = (
    "::",
    "::error file=README.md,line=1::x",
    "::warning::",
    "\n",
    "\r",
    "\t",
    "\x1b[31m",
    "\x07",
    "\x85",
    "\u2028",
    "\u202e",
    "\u200b",
    " ",
    "-x",
    "a",
    "é",
    "\udcff",  # the byte 0xff: a name that is not UTF-8
)


def _valid_name(name: str) -> bool:
    return name not in (".", "..") and len(os.fsencode(name)) <= 200


hostile_names = st.lists(st.sampled_from(PIECES), min_size=1, max_size=4).map("".join)


def _build(root: Path, name: str) -> dict[str, str]:
    """A workspace and a few folders named ``name``; the arguments that reach them."""
    description = json.dumps("says " + name.replace("\udcff", "?"))
    skill = _SKILL.format(name="hostile", description=description)
    for folder in (
        root / "ws" / ".agents" / "skills" / name,
        root / name,
        root / "lone" / name,
    ):
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "SKILL.md").write_text(skill, encoding="utf-8", errors="surrogateescape")
    (root / name / ".agents" / "skills" / "plain").mkdir(parents=True)
    (root / name / ".agents" / "skills" / "plain" / "SKILL.md").write_text(
        _SKILL.format(name="plain", description=description)
    )
    return {"name": name, "in_ws": f"ws/.agents/skills/{name}", "lone": f"lone/{name}"}


def command_lines(places: dict[str, str]) -> list[list[str]]:
    """Every command and format, reaching the hostile names as workspaces, paths, roots
    and stray arguments."""
    name, in_ws, lone = places["name"], places["in_ws"], places["lone"]
    return [
        ["catalog", "ws"],
        ["catalog", "ws", "--json"],
        ["catalog", "--", name],
        ["catalog", "--json", "--", name],
        ["catalog", "--root", name, "ws"],
        ["catalog", "ws", name],  # an unrecognized argument
        ["lint", "ws"],
        ["lint", "ws", "--format", "json"],
        ["lint", "ws", "--format", "sarif"],
        ["lint", "--", name],  # file-list mode: the folder name starts the line
        ["lint", "--format", "json", "--", lone],
        ["lint", "--format", "sarif", "--", lone],
        ["lint", "--format", "github", "--", name],
        ["lint", "--format", "github", "ws"],
        ["lint", "--", in_ws, f"{lone}/SKILL.md"],
        ["lint", "--", f"missing/{name}"],
        ["env", "--", name],
        ["env", "--json", "--", name],
        ["env", "--", f"missing/{name}"],
        ["manifest", "--", name],
        ["manifest", "-o", "m.json", "--", name],
        ["render-manifest", "m.json", "--environment"],
        ["render-manifest", "--", name],
        [name],  # an unknown command
        ["lint", "--format", name],  # an invalid choice
    ]


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(name=hostile_names.filter(_valid_name))
def test_every_line_of_every_command_is_safe_and_every_error_coded(
    tmp_path: Path, name: str
) -> None:
    root = Path(tempfile.mkdtemp(dir=tmp_path))
    try:
        places = _build(root, name)
        found = [p for arguments in command_lines(places) for p in problems_of_run(arguments, root)]
        assert found == []
    finally:
        shutil.rmtree(root)


def test_negative_control_unsafe_lines_fail_the_property(tmp_path: Path) -> None:
    """With the line guard reduced to escaping controls (as the code once did), a
    folder named like a workflow command starts lint's first line and the check sees it;
    with no escaping at all, argparse's echo of a new line and ESC is seen too."""
    name = "::error file=README.md,line=1::x"
    places = _build(tmp_path, name)
    with mock.patch.object(_lint, "safe_line", _output.one_line):
        found = problems_of_run(["lint", "--", places["name"]], tmp_path)
    assert any("begins a workflow command" in problem for problem in found), found
    with mock.patch.object(_output, "safe_line", lambda text: text):
        found = problems_of_run(["lint", "-x\n::error::forged\x1b[31m/SKILL.md"], tmp_path)
    assert any("raw U+000A" in p or "begins a workflow" in p for p in found), found
    assert any("U+001B" in problem for problem in found), found
    assert error_line_problems(b"a13n-skills: error: /x: no such directory\n") != []
    assert json_problems(b'{"path": "bad\\udcffname"}\n') != []


# --------------------------------------------------------- regression tests


def test_argparse_echo_of_argv_is_escaped() -> None:
    """Argparse's "unrecognized arguments" echoed a pre-commit file name
    raw, forging ``::error::`` and writing a terminal escape into the log."""
    result = run_here("lint", "-x\n::error::forged\x1b[31m/SKILL.md")
    assert result.returncode == 2
    assert line_problems("stderr", result.stderr) == []
    last = result.stderr.decode().splitlines()[-1]
    assert last == (
        "a13n-skills: usage_invalid: unrecognized arguments: -x\\n::error::forged\\x1b[31m/SKILL.md"
    ), last


def test_a_folder_named_like_a_workflow_command_does_not_start_a_line(tmp_path: Path) -> None:
    """In file-list mode the folder name began lint's first line."""
    name = "::error file=README.md,line=1::x"
    (tmp_path / name).mkdir()
    (tmp_path / name / "SKILL.md").write_text(_SKILL.format(name="other", description="d"))
    for form in ("text", "json", "sarif"):
        result = run_here("lint", "--format", form, name, cwd=tmp_path)
        assert result.returncode == 1, result.stderr
        assert line_problems("stdout", result.stdout) == [], form
        assert line_problems("stderr", result.stderr) == [], form
    text = run_here("lint", name, cwd=tmp_path).stdout.decode()
    assert text.startswith("\\x3a:error file=README.md,line=1::x/SKILL.md:2:7: error: "), text


def test_undecodable_names_are_one_spelling_and_valid_json(tmp_path: Path) -> None:
    """A folder named with the byte 0xff put ``bad\\udcffname`` into
    ``lint --format json`` and ``catalog --json``, which strict JSON readers refuse."""
    skills = os.fsencode(tmp_path / "ws" / ".agents" / "skills")
    os.makedirs(skills + b"/bad\xffname")
    with open(skills + b"/bad\xffname/SKILL.md", "wb") as file:
        file.write(b"---\nname: bad\ndescription: x\n---\n")
    spelled = "bad\\xffname"
    texts = {
        "lint": run_here("lint", "ws", cwd=tmp_path).stdout,
        "catalog-stderr": run_here("catalog", "ws", cwd=tmp_path).stderr,
    }
    documents = {
        "lint-json": run_here("lint", "ws", "--format", "json", cwd=tmp_path).stdout,
        "lint-sarif": run_here("lint", "ws", "--format", "sarif", cwd=tmp_path).stdout,
        "catalog-json": run_here("catalog", "ws", "--json", cwd=tmp_path).stdout,
    }
    for form, data in documents.items():
        assert json_problems(data) == [], form
        assert b"\\udcff" not in data, form
    for form, data in {**texts, **documents}.items():
        if form == "lint-sarif":  # its only path is the uri, percent-encoded (below)
            continue
        assert spelled in data.decode("utf-8").replace("\\\\", "\\"), form
    findings = json.loads(documents["lint-json"])["findings"]
    assert f"ws/.agents/skills/{spelled}" in [f["path"] for f in findings]
    assert texts["lint"].decode().startswith(f"ws/.agents/skills/{spelled}:1:1: warning: ")
    sarif = json.loads(documents["lint-sarif"])
    uris = [
        result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for result in sarif["runs"][0]["results"]
    ]
    assert "ws/.agents/skills/bad%FFname" in uris


@pytest.mark.parametrize(
    ("arguments", "code", "message"),
    [
        (
            ("render-manifest", "/dev/null"),
            "path_not_a_regular_file",
            "/dev/null: not a regular file",
        ),
        (("env", "/no/such/dir"), "path_not_found", "/no/such/dir: no such directory"),
        (("catalog", "/no/such/dir"), "path_not_found", "/no/such/dir: no such directory"),
        (("manifest", "/etc/hostname"), "path_not_a_directory", "/etc/hostname: not a directory"),
        (("lint", "/no/such/dir"), "path_not_found", "/no/such/dir: no such file or directory"),
        (("render-manifest", "/"), "path_is_a_directory", "/: Is a directory"),
        (("catalog", "--budget-bytes", "1", "--context-tokens", "2"), "usage_invalid", None),
    ],
)
def test_every_error_line_has_a_code(
    arguments: tuple[str, ...], code: str, message: str | None
) -> None:
    """``a13n-skills: error: /dev/null: not a regular file`` and
    ``a13n-skills: error: /x: no such directory`` carried the word ``error``."""
    place = arguments[1]
    if place.startswith("/") and "no/such" not in place and not os.path.exists(place):
        pytest.skip(f"{arguments[1]} does not exist here")
    result = run_here(*arguments)
    assert result.returncode == (2 if code == "usage_invalid" else 1)
    last = result.stderr.decode().splitlines()[-1]
    assert code in ERROR_CODES
    assert last.startswith(f"a13n-skills: {code}: "), last
    if message is not None:
        assert last == f"a13n-skills: {code}: {message}", last
    assert error_line_problems(result.stderr) == []


# ------------------------------------------------------------ short writes


def _limited(limit: int) -> Callable[[], None]:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


def _run_into_file(arguments: list[str], target: Path, limit: int, cwd: Path) -> tuple[int, bytes]:
    with open(target, "wb") as out:
        result = run_bounded(
            [*command(), *arguments],
            stdout=out,
            stderr=subprocess.PIPE,
            cwd=cwd,
            # No bytecode written: under the file size limit a cached module would be cut
            # short, and every later interpreter would fail to load it.
            env=cli_environment({"PYTHONDONTWRITEBYTECODE": "1"}),
            preexec_fn=_limited(limit),
            cpu_seconds=60,
        )
    return result.returncode, result.stderr


@pytest.fixture(scope="module")
def big_world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("big")
    for index in range(60):
        package = root / "ws" / ".agents" / "skills" / f"skill-{index:02d}"
        package.mkdir(parents=True)
        (package / "SKILL.md").write_text(
            _SKILL.format(name=f"skill-{index:02d}", description="x" * 150 + "\n")
            if index % 7
            else _SKILL.format(name=f"misnamed-{index}", description="y" * 150)
        )
    made = run_here("manifest", root / "ws", "-o", root / "m.json")
    assert made.returncode == 0, made.stderr
    return root


BLOCKS = {
    "catalog": ["catalog", "ws"],
    "catalog-json": ["catalog", "ws", "--json"],
    "lint-text": ["lint", "ws"],
    "lint-json": ["lint", "ws", "--format", "json"],
    "lint-sarif": ["lint", "ws", "--format", "sarif"],
    "manifest": ["manifest", "ws"],
    "render-manifest": ["render-manifest", "m.json", "--environment"],
    "env": ["env", "ws"],
    "env-json": ["env", "ws", "--json"],
}


@pytest.mark.parametrize("name", sorted(BLOCKS))
def test_a_block_cut_short_by_a_file_size_limit_fails(name: str, big_world: Path) -> None:
    """With stdout on a file limited to 4 KiB the commands exited 0 with
    4,096 bytes of 9-114 KB written and a summary claiming the full size."""
    arguments = BLOCKS[name]
    whole = big_world / f"{name}.whole"
    # The whole block, from the command run in this process (no limit to set: no child);
    # the limited runs below need a process of their own.
    done = run_here(*arguments, cwd=big_world)
    assert done.returncode == (1 if name.startswith("lint") else 0), done.stderr
    whole.write_bytes(done.stdout)
    size = whole.stat().st_size
    assert size > 64
    limit = min(4096, size // 2)
    cut = big_world / f"{name}.cut"
    code, stderr = _run_into_file(arguments, cut, limit, big_world)
    assert cut.stat().st_size == limit
    lines = stderr.decode().splitlines()
    assert code == 1, lines
    assert lines[-1].startswith("a13n-skills: output_failed: cannot write standard output: "), lines
    assert not any(line.startswith("listed=") for line in lines), lines
    # The limit exactly the block's size is no failure (the negative control; for two
    # blocks, which share the writer with the others).
    if name not in ("catalog", "lint-sarif"):
        return
    exact = big_world / f"{name}.exact"
    code, stderr = _run_into_file(arguments, exact, size, big_world)
    assert code == (1 if name.startswith("lint") else 0), stderr
    if not name.startswith("env"):  # the date may turn between runs
        assert exact.read_bytes() == whole.read_bytes()


class _ShortRaw(io.RawIOBase):
    """A raw stream that takes at most ``room`` bytes in all, then fails as a full disk."""

    def __init__(self, room: int) -> None:
        self.room = room
        self.data = bytearray()

    def writable(self) -> bool:
        return True

    def write(self, data: object) -> int:
        view = memoryview(data)  # type: ignore[arg-type]
        if self.room == 0:
            raise OSError(28, "No space left on device")
        taken = min(self.room, len(view), 1000)
        self.data += view[:taken]
        self.room -= taken
        return taken


@pytest.mark.parametrize("write", ["text", "bytes"])
def test_short_writes_are_continued_then_reported(write: str) -> None:
    """A raw stream that takes 1,000 bytes a call: everything arrives; one that runs out of
    room: ``OutputError``, never a silent success."""
    block = "x" * 50_000
    for room, fails in ((10**6, False), (20_000, True)):
        raw = _ShortRaw(room)
        stream = io.TextIOWrapper(io.BufferedWriter(raw, buffer_size=4096), encoding="utf-8")
        with mock.patch.object(sys, "stdout", stream), contextlib.ExitStack() as stack:
            if fails:
                stack.enter_context(pytest.raises(_output.OutputError))
                stack.enter_context(mock.patch.object(_output, "_silence_stdout"))
            if write == "text":
                _output.write_out(block)
            else:
                _output.write_out_bytes(block.encode())
        assert bytes(raw.data) == block.encode()[: min(room, len(block))]
