"""The command line against hostile streams and paths.

Run as the real ``a13n-skills`` console script in subprocesses:

- a closed stdout (``>&-``) is a write error: exit 1 and one line on stderr,
  never a traceback; a closed stderr never changes the exit code or stdout;
- ``render-manifest`` refuses anything that is not a regular file (FIFO,
  device, directory, socket, a link to one) at once, without blocking;
- ``manifest -o FILE`` never writes through a symbolic link at FILE: it writes
  a temporary file beside FILE and renames it over, and leaves nothing behind
  when that fails (FILE a directory, a missing directory).
"""

from __future__ import annotations

import errno
import io
import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from a13n_harness.context.manifest import decode_manifest
from bounded import call_bounded
from cli_run import one_error_line, run_cli

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX descriptors and FIFOs")

_SKILL = "---\nname: {name}\ndescription: {description}\n---\nBody.\n"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A workspace with two skills (one that lint refuses) and its manifest."""
    root = tmp_path_factory.mktemp("world")
    for name, description in (("good-skill", "Does good things."), ("bad-skill", "")):
        package = root / "ws" / ".agents" / "skills" / name
        package.mkdir(parents=True)
        (package / "SKILL.md").write_text(_SKILL.format(name=name, description=description))
    made = run_cli("manifest", root / "ws", "-o", root / "manifest.json")
    assert made.returncode == 0, made.stderr
    return root


# Every command with arguments that give output (exit 0, or 1 for lint's findings).
SUCCEEDING = {
    "catalog": ("catalog", "{ws}"),
    "catalog-json": ("catalog", "{ws}", "--json"),
    "lint": ("lint", "{ws}"),
    "lint-json": ("lint", "{ws}", "--format", "json"),
    "env": ("env", "{world}"),
    "env-json": ("env", "{world}", "--json"),
    "manifest": ("manifest", "{ws}"),
    "render-manifest": ("render-manifest", "{manifest}"),
    "render-manifest-stdin": ("render-manifest", "-"),
}


def _args(name: str, world: Path) -> list[str]:
    places = {"ws": world / "ws", "world": world, "manifest": world / "manifest.json"}
    return [argument.format(**places) for argument in SUCCEEDING[name]]


def _stdin_for(name: str, world: Path) -> bytes | None:
    return (world / "manifest.json").read_bytes() if name.endswith("-stdin") else None


@pytest.mark.parametrize("name", sorted(SUCCEEDING))
def test_closed_stdout_is_a_write_error_not_a_traceback(name: str, world: Path) -> None:
    args, stdin = _args(name, world), _stdin_for(name, world)
    baseline = run_cli(*args, stdin=stdin)
    assert baseline.returncode == (1 if name.startswith("lint") else 0), baseline.stderr
    assert baseline.stdout
    result = run_cli(*args, close="1", stdin=stdin)
    line = one_error_line(result)
    assert line == "a13n-skills: output_failed: standard output is closed", line


@pytest.mark.parametrize("name", sorted(SUCCEEDING))
def test_closed_stderr_keeps_the_exit_code_and_the_output(name: str, world: Path) -> None:
    args, stdin = _args(name, world), _stdin_for(name, world)
    baseline = run_cli(*args, stdin=stdin)
    assert baseline.returncode == (1 if name.startswith("lint") else 0), baseline.stderr
    result = run_cli(*args, close="2", stdin=stdin)
    assert result.returncode == baseline.returncode
    if name.startswith("env"):  # the date may turn between the two runs
        assert result.stdout.splitlines()[:4] == baseline.stdout.splitlines()[:4]
    else:
        assert result.stdout == baseline.stdout


@pytest.mark.parametrize("name", sorted(SUCCEEDING))
def test_both_closed_exits_1_quietly(name: str, world: Path) -> None:
    result = run_cli(*_args(name, world), close="12", stdin=_stdin_for(name, world))
    assert result.returncode == 1


def test_closed_stderr_keeps_error_and_usage_codes(tmp_path: Path) -> None:
    assert run_cli("env", tmp_path / "missing", close="2").returncode == 1
    assert run_cli("catalog", "--budget-bytes", "x", close="2").returncode == 2
    assert run_cli("no-such-command", close="2").returncode == 2
    assert run_cli("render-manifest", tmp_path, close="2").returncode == 1


def test_closed_stdout_with_an_output_file_succeeds(tmp_path: Path, world: Path) -> None:
    out = tmp_path / "m.json"
    result = run_cli("manifest", world / "ws", "-o", out, close="1")
    assert result.returncode == 0, result.stderr
    decode_manifest(out.read_bytes())


def test_closed_stdin_reads_as_empty() -> None:
    one_error_line(run_cli("render-manifest", "-", close="0"))


# ------------------------------------------------------- render-manifest FILE


def _fifo(tmp_path: Path) -> Path:
    path = tmp_path / "fifo"
    os.mkfifo(path)
    return path


_OPEN_SOCKETS: list[socket.socket] = []


def _socket(tmp_path: Path) -> Path:
    path = tmp_path / "sock"
    if len(os.fsencode(path)) >= 100:
        # A socket's path must fit sockaddr_un (108 bytes on Linux); a gate step's own temp
        # root can be deeper than that, so the socket goes into a short folder of its own.
        path = Path(tempfile.mkdtemp(prefix="a13n-sock-")) / "sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(1)
    _OPEN_SOCKETS.append(server)  # listening while the command runs; closed by the test
    return path


def _link_to_fifo(tmp_path: Path) -> Path:
    link = tmp_path / "link"
    link.symlink_to(_fifo(tmp_path))
    return link


def _directory(tmp_path: Path) -> Path:
    return tmp_path


NOT_REGULAR: dict[str, Callable[[Path], Path]] = {
    "fifo": _fifo,
    "socket": _socket,
    "link_to_fifo": _link_to_fifo,
    "directory": _directory,
    "dev_zero": lambda _: Path("/dev/zero"),
    "dev_null": lambda _: Path("/dev/null"),
    "dev_tty_like": lambda _: Path("/dev/urandom"),
}


@pytest.mark.parametrize("kind", sorted(NOT_REGULAR))
def test_render_manifest_refuses_what_is_not_a_regular_file_at_once(
    tmp_path: Path, kind: str
) -> None:
    path = NOT_REGULAR[kind](tmp_path)
    if not os.path.exists(path) and not os.path.islink(path):
        pytest.skip(f"{path} does not exist here")
    # A FIFO opened for reading blocks until a writer comes, that is forever: the run's
    # no-progress stop (bounded.run_bounded) is the failure, not a measured duration.
    result = run_cli("render-manifest", path, cpu_seconds=30)
    for server in _OPEN_SOCKETS:
        bound = Path(server.getsockname())
        server.close()
        if bound.parent.name.startswith("a13n-sock-"):
            shutil.rmtree(bound.parent)
    _OPEN_SOCKETS.clear()
    line = one_error_line(result)
    code = "path_is_a_directory" if kind == "directory" else "path_not_a_regular_file"
    assert line.startswith(f"a13n-skills: {code}: {path}: "), line


def test_render_manifest_of_a_growing_regular_file_is_bounded(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    with big.open("wb") as file:
        file.truncate(64 * 1024 * 1024)  # sparse: 64 MiB of NULs
    line = one_error_line(run_cli("render-manifest", big))
    assert "manifest_invalid" in line


# ------------------------------------------------------------- manifest -o FILE


@pytest.fixture
def manifest_to(world: Path) -> Callable[[Path], subprocess.CompletedProcess[bytes]]:
    def write(target: Path) -> subprocess.CompletedProcess[bytes]:
        return run_cli("manifest", world / "ws", "-o", target)

    return write


def _leftovers(directory: Path, expected: set[str]) -> set[str]:
    return {entry.name for entry in directory.iterdir()} - expected


def test_output_link_to_a_file_is_replaced_not_followed(
    tmp_path: Path, manifest_to: Callable[[Path], subprocess.CompletedProcess[bytes]]
) -> None:
    victim = tmp_path / "victim"
    victim.write_bytes(b"precious\n")
    link = tmp_path / "out.json"
    link.symlink_to(victim)
    result = manifest_to(link)
    assert result.returncode == 0, result.stderr
    assert victim.read_bytes() == b"precious\n"
    assert not link.is_symlink()
    decode_manifest(link.read_bytes())
    assert _leftovers(tmp_path, {"victim", "out.json"}) == set()


def test_output_hard_link_to_another_file_leaves_that_file_alone(
    tmp_path: Path, manifest_to: Callable[[Path], subprocess.CompletedProcess[bytes]]
) -> None:
    victim = tmp_path / "victim"
    victim.write_bytes(b"precious\n")
    target = tmp_path / "out.json"
    os.link(victim, target)
    assert manifest_to(target).returncode == 0
    assert victim.read_bytes() == b"precious\n"
    decode_manifest(target.read_bytes())


def test_output_dangling_link_is_replaced_and_its_target_not_created(
    tmp_path: Path, manifest_to: Callable[[Path], subprocess.CompletedProcess[bytes]]
) -> None:
    link = tmp_path / "out.json"
    link.symlink_to(tmp_path / "created-through-the-link")
    assert manifest_to(link).returncode == 0
    assert not (tmp_path / "created-through-the-link").exists()
    assert not link.is_symlink()
    decode_manifest(link.read_bytes())


def test_output_relative_link_out_of_the_directory(
    tmp_path: Path, manifest_to: Callable[[Path], subprocess.CompletedProcess[bytes]]
) -> None:
    (tmp_path / "inner").mkdir()
    victim = tmp_path / "victim"
    victim.write_bytes(b"precious\n")
    link = tmp_path / "inner" / "out.json"
    link.symlink_to(Path("..") / "victim")
    assert manifest_to(link).returncode == 0
    assert victim.read_bytes() == b"precious\n"
    assert not link.is_symlink()


def test_output_link_to_a_directory_is_replaced_and_the_directory_untouched(
    tmp_path: Path, manifest_to: Callable[[Path], subprocess.CompletedProcess[bytes]]
) -> None:
    directory = tmp_path / "dir"
    directory.mkdir()
    link = tmp_path / "out.json"
    link.symlink_to(directory)
    assert manifest_to(link).returncode == 0
    assert list(directory.iterdir()) == []
    assert not link.is_symlink()
    decode_manifest(link.read_bytes())


def test_output_that_is_a_directory_is_an_error_and_leaves_nothing(
    tmp_path: Path, manifest_to: Callable[[Path], subprocess.CompletedProcess[bytes]]
) -> None:
    directory = tmp_path / "out.json"
    directory.mkdir()
    line = one_error_line(manifest_to(directory))
    assert line.startswith(f"a13n-skills: path_is_a_directory: {directory}: "), line
    assert list(directory.iterdir()) == []
    assert _leftovers(tmp_path, {"out.json"}) == set()


def test_output_in_a_missing_directory_is_an_error(
    tmp_path: Path, manifest_to: Callable[[Path], subprocess.CompletedProcess[bytes]]
) -> None:
    target = tmp_path / "missing" / "out.json"
    line = one_error_line(manifest_to(target))
    assert line.startswith(f"a13n-skills: path_not_found: {target}: "), line
    assert not (tmp_path / "missing").exists()


def test_output_fifo_is_replaced_without_blocking(
    tmp_path: Path, manifest_to: Callable[[Path], subprocess.CompletedProcess[bytes]]
) -> None:
    fifo = tmp_path / "out.json"
    os.mkfifo(fifo)
    result = manifest_to(fifo)
    assert result.returncode == 0, result.stderr
    assert stat.S_ISREG(os.lstat(fifo).st_mode)


def test_output_overwrites_a_regular_file_and_keeps_its_mode(
    tmp_path: Path, manifest_to: Callable[[Path], subprocess.CompletedProcess[bytes]]
) -> None:
    target = tmp_path / "out.json"
    target.write_bytes(b"old")
    target.chmod(0o640)
    assert manifest_to(target).returncode == 0
    assert stat.S_IMODE(os.lstat(target).st_mode) == 0o640
    assert decode_manifest(target.read_bytes()).environment is not None
    assert _leftovers(tmp_path, {"out.json"}) == set()


def test_output_to_a_character_device_writes_in_place(
    tmp_path: Path, manifest_to: Callable[[Path], subprocess.CompletedProcess[bytes]]
) -> None:
    """A character device is written, never renamed over (as root that would replace it).

    The device is a null device made in the test's own folder, so that a regression
    replaces that node and not the machine's ``/dev/null``.
    """
    device = tmp_path / "null"
    try:
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except OSError as error:
        pytest.skip(f"cannot make a device node here: {error}")
    before = os.lstat(device)
    assert manifest_to(device).returncode == 0
    after = os.lstat(device)
    assert stat.S_ISCHR(after.st_mode)
    assert (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)
    assert _leftovers(tmp_path, {"null"}) == set()


@pytest.mark.parametrize("spelling", ["/dev/stdout", "/dev/fd/1"])
def test_output_to_dev_stdout_is_standard_output(world: Path, spelling: str) -> None:
    """``/dev/stdout`` is a link; it means stdout and is never replaced."""
    if spelling == "/dev/stdout" and os.geteuid() == 0:
        # A regression would rename over the machine's /dev/stdout as root.
        pytest.skip("only checked where /dev is not writable")
    result = run_cli("manifest", world / "ws", "-o", spelling)
    assert result.returncode == 0, result.stderr
    decode_manifest(result.stdout)
    assert os.path.islink(spelling) or not os.path.exists(spelling) or spelling == "/dev/fd/1"


def test_output_long_name_gets_a_short_temporary_name(
    tmp_path: Path, manifest_to: Callable[[Path], subprocess.CompletedProcess[bytes]]
) -> None:
    target = tmp_path / ("\u00e9" * 120)  # 240 bytes: a longer temporary name would not fit
    assert manifest_to(target).returncode == 0
    decode_manifest(target.read_bytes())
    assert _leftovers(tmp_path, {target.name}) == set()


def test_output_new_file_in_the_current_directory(tmp_path: Path, world: Path) -> None:
    shutil.copytree(world / "ws", tmp_path / "ws")
    result = run_cli("manifest", "ws", "-o", "out.json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    decode_manifest((tmp_path / "out.json").read_bytes())


# ------------------------------------------------ a non-blocking stdout that fills up


class _Filling(io.RawIOBase):
    """A non-blocking stream that takes ``takes[i]`` bytes on its i-th write: a number below
    the size offered is a short write, ``None`` takes nothing (a raw stream that would block),
    ``-n`` raises ``BlockingIOError`` after taking ``n`` bytes (as ``BufferedWriter`` does)."""

    def __init__(self, takes: list[int | None], descriptor: int) -> None:
        self.takes = list(takes)
        self.received = bytearray()
        self.descriptor = descriptor

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self.descriptor  # writable, so waiting for it returns at once

    def write(self, data: object) -> int | None:
        view = memoryview(data)  # type: ignore[arg-type]
        take = self.takes.pop(0) if self.takes else len(view)
        if take is None:
            return None
        if take < 0:
            self.received += view[:-take]
            raise BlockingIOError(errno.EAGAIN, "would block", -take)
        self.received += view[:take]
        return min(take, len(view))


@pytest.mark.parametrize(
    "takes",
    [
        [-3],
        [-3, -4, None, 2],
        [-1, None, None, -7],
        [5, -2, 1],
        [-10],
    ],
)
def test_a_full_non_blocking_stdout_gets_every_byte_once(takes: list[int | None]) -> None:
    """After a short write (a number, or ``BlockingIOError`` with the count it took) only the
    rest is written again, after waiting for the stream: nothing is written twice, nothing
    is lost."""
    from a13n_harness.cli._output import _write_all  # noqa: PLC0415

    data = bytes(range(48, 48 + 40))
    reader, writer = os.pipe()
    try:
        stream = _Filling(takes, writer)
        _write_all(stream, data)  # type: ignore[arg-type]
        assert bytes(stream.received) == data
    finally:
        os.close(reader)
        os.close(writer)


_NON_BLOCKING_WRITER = """
import fcntl, os, sys
sys.path.insert(0, sys.argv[1])
from a13n_harness.cli._output import write_out, write_out_bytes
flags = fcntl.fcntl(1, fcntl.F_GETFL)
fcntl.fcntl(1, fcntl.F_SETFL, flags | os.O_NONBLOCK)
text = "".join(f"{i:07d} ü\\n" for i in range(40_000))
write_out(text)
write_out_bytes(text.encode())
for i in range(4_000):  # small blocks: each meets a buffer the full pipe has not drained
    write_out(f"{i:07d} ü\\n")
"""


def test_a_non_blocking_pipe_read_slowly_gets_the_whole_output(tmp_path: Path) -> None:
    """End to end: stdout a non-blocking pipe whose reader is late (the pipe fills many times
    over): both writers deliver every byte, in order, once, in one large block and in many
    small ones (the stream contract itself, each way a write can stop short, is pinned above
    with a stream that stops where it is told)."""
    core = Path(__file__).resolve().parent.parent / "core"
    child = subprocess.Popen(
        [sys.executable, "-c", _NON_BLOCKING_WRITER, str(core)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert child.stdout is not None
    received = bytearray()

    def read_slowly() -> bytes:
        assert child.stdout is not None
        while chunk := child.stdout.read(4096):
            received.extend(chunk)
            if len(received) < 2**16:
                time.sleep(0.001)  # late at first: the child meets a full pipe
        return child.communicate()[1]

    try:  # a writer that spins or blocks fails the test (its CPU spent, or no progress)
        errors = call_bounded(read_slowly, cpu_seconds=60, what="the non-blocking writer")
    finally:
        child.kill()
        child.wait()
    assert child.returncode == 0, errors
    text = "".join(f"{i:07d} ü\n" for i in range(40_000)).encode()
    small = "".join(f"{i:07d} ü\n" for i in range(4_000)).encode()
    assert bytes(received) == text + text + small
