"""One file tree built twice, on disk and in memory, and the two operators' answers compared.

The oracle of the confinement walk (:mod:`a13n_harness.environment._confinement`):
:class:`~a13n_harness.environment.MemoryFileOperator` is the model,
:class:`~a13n_harness.environment.LocalFileOperator` what users run, and the two
walks are separate implementations on purpose. A :data:`Tree` is plain data
(directories, file bytes, FIFOs and symbolic links spelled with ``//``, ``.``
and ``..``, relative or absolute, escaping, looping or hidden);
:func:`check_agreement` builds it on disk (:func:`on_disk`, with a sibling
directory to escape to) and in memory (:func:`memory_tree`) and requires the
same result or the same error class for every listing, read and stat of every
probe path; :func:`check_mutations_agree` does the same after a sequence of
writes, new directories and removals, and checks the directory beside the disk
root was never touched.

Used by ``properties/test_operator_differential.py`` (trees drawn by Hypothesis)
and ``fuzz/fuzz_operator.py`` (trees decoded from fuzzer bytes). Needs no
Hypothesis; POSIX only (FIFOs, symbolic links).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from a13n_harness.environment import (
    FileOperator,
    FileOperatorError,
    LocalFileOperator,
    MemoryFileOperator,
    MemoryNode,
    MemorySpecial,
    MemorySymlink,
)

__all__ = [
    "CHANGES",
    "NAMES",
    "PROBES",
    "SEGMENTS",
    "Tree",
    "answers",
    "build_on_disk",
    "check_agreement",
    "check_mutations_agree",
    "link_target",
    "memory_tree",
    "mutated",
    "on_disk",
    "probes_for",
]

# Entry names: plain, hidden, and the one name discovery opens.
NAMES = ("a", "b", ".h", "SKILL.md")
# Link target segments: every spelling docs/contract.md §7 names ("" makes "//").
SEGMENTS = ("a", "b", ".h", "SKILL.md", "..", ".", "", "zz")
# The operations that change a tree.
CHANGES = ("write", "mkdir", "remove")

Tree = dict[str, object]
"""A directory: name -> ``bytes`` (a file), a :data:`Tree`, ``"fifo"`` or
``("link", target, absolute)``, the target spelled below the root (an absolute
one is ``"/" + target`` in memory and ``<root>/<target>`` on disk)."""


def link_target(parts: Sequence[str], absolute: bool) -> tuple[str, bool]:
    """The link ``("link", target, absolute)`` the drawn segments spell, buildable on both sides.

    A relative target may not start with ``/`` (that would make it absolute)
    nor be empty (no such link on disk). An absolute target may not climb
    above the root by name: on disk that leaves the root, in memory it would
    stay at ``/``, so its ``..`` are made ``zz``.
    """
    text = "/".join(parts)
    if not absolute:
        return text.lstrip("/") or "zz", False
    depth = 0
    for part in parts:
        if part == "..":
            if depth == 0:
                return text.replace("..", "zz"), True
            depth -= 1
        elif part not in ("", "."):
            depth += 1
    return text, True


def memory_tree(tree: Tree) -> dict[str, MemoryNode]:
    """``tree`` as :class:`MemoryFileOperator` nodes."""
    out: dict[str, MemoryNode] = {}
    for name, node in tree.items():
        if isinstance(node, dict):
            out[name] = memory_tree(node)
        elif isinstance(node, bytes):
            out[name] = node
        elif node == "fifo":
            out[name] = MemorySpecial()
        else:
            assert isinstance(node, tuple)
            _, target, absolute = node
            out[name] = MemorySymlink(("/" + target) if absolute else target)
    return out


def build_on_disk(base: Path, tree: Tree, root: Path) -> None:
    """Create ``tree`` in the existing directory ``base`` (absolute links read against ``root``)."""
    for name, node in tree.items():
        path = base / name
        if isinstance(node, dict):
            path.mkdir()
            build_on_disk(path, node, root)
        elif isinstance(node, bytes):
            path.write_bytes(node)
        elif node == "fifo":
            os.mkfifo(path)
        else:
            assert isinstance(node, tuple)
            _, target, absolute = node
            os.symlink((str(root) + "/" + target) if absolute else target, path)


def _probe_paths(firsts: Sequence[str]) -> tuple[str, ...]:
    paths = ["/"]
    for first in firsts:
        paths.append(f"/{first}")
        for second in NAMES:
            paths.append(f"/{first}/{second}")
            paths.append(f"/{first}/{second}/a")
    return tuple(paths)


# Trees are built in memory-backed /dev/shm where there is one: a fuzzer builds and removes
# one tree an input, and removing directories on a journaling disk cost 5 ms each. Only as
# mkdtemp's folder (a fresh, private, randomly named directory), so S108's worry, a guessable
# shared path, does not apply.
_SCRATCH = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None  # noqa: S108

# Every path up to three segments deep over the names, and one name no tree holds.
PROBES = _probe_paths((*NAMES, "zz"))


def probes_for(tree: Tree, steps: Sequence[tuple[str, str]] = ()) -> tuple[str, ...]:
    """The probes that can tell the two operators apart on ``tree`` after ``steps``.

    Those below a top-level name the tree holds or a step creates, and those
    below ``zz``, which nothing holds: below any other absent name both
    answer exactly as below ``zz`` (the walk ends at the missing first name).
    """
    present = set(tree) | {path.split("/")[1] for _, path in steps if path != "/"}
    return _probe_paths([name for name in (*NAMES, "zz") if name in present or name == "zz"])


async def _answer(files: FileOperator, path: str, operation: str) -> object:
    try:
        if operation == "list":
            listing = await files.list_directory(path)
            return sorted((e.name, e.kind) for e in listing)
        if operation == "read":
            return await files.read_bytes(path, 64)
        found = await files.stat(path)
        return (found.kind, found.size if found.kind == "file" else None)
    except FileOperatorError as error:
        return type(error).__name__


async def answers(files: FileOperator, probes: Sequence[str] = PROBES) -> list[object]:
    """The result, or the error class, of every listing, read and stat of every probe path.

    All asked at once (the tree does not change meanwhile), as discovery asks.
    """
    asked = [(path, operation) for path in probes for operation in ("list", "read", "stat")]
    found = await asyncio.gather(*(_answer(files, *question) for question in asked))
    return [(*question, result) for question, result in zip(asked, found, strict=True)]


@contextmanager
def on_disk(tree: Tree) -> Iterator[Path]:
    """``tree`` built in a new temporary ``root`` beside ``a/SKILL.md`` (something to escape to)."""
    temporary = Path(tempfile.mkdtemp(prefix="a13n-tree-", dir=_SCRATCH))
    try:
        root = temporary / "root"
        root.mkdir()
        (temporary / "a").mkdir()
        (temporary / "a" / "SKILL.md").write_bytes(b"outside")
        build_on_disk(root, tree, root)
        yield root
    finally:
        shutil.rmtree(temporary)


def _agree(disk: list[object], memory: list[object]) -> None:
    for disk_answer, memory_answer in zip(disk, memory, strict=True):
        assert disk_answer == memory_answer, (disk_answer, memory_answer)


def check_agreement(tree: Tree) -> None:
    """Disk and memory: the same result or the same error class for every probe."""
    probes = probes_for(tree)
    with on_disk(tree) as root, LocalFileOperator(root) as local:
        disk = asyncio.run(answers(local, probes))
    _agree(disk, asyncio.run(answers(MemoryFileOperator(memory_tree(tree)), probes)))


async def mutated(
    files: FileOperator, steps: Sequence[tuple[str, str]], probes: Sequence[str] = PROBES
) -> list[object]:
    """Each step's outcome (``ok`` or the error class), then every answer on the tree left."""
    out: list[object] = []
    for operation, path in steps:
        try:
            if operation == "write":
                await files.write_bytes(path, b"written")
            elif operation == "mkdir":
                await files.make_directory(path)
            else:
                await files.remove(path)
            outcome = "ok"
        except FileOperatorError as error:
            outcome = type(error).__name__
        out.append((operation, path, outcome))
    out.extend(await answers(files, probes))
    return out


def check_mutations_agree(tree: Tree, steps: Sequence[tuple[str, str]]) -> None:
    """Writes, new directories, removals: the same outcomes and tree; nothing outside touched."""
    probes = probes_for(tree, steps)
    with on_disk(tree) as root, LocalFileOperator(root) as local:
        disk = asyncio.run(mutated(local, steps, probes))
        outside = root.parent / "a"
        assert sorted(p.name for p in outside.iterdir()) == ["SKILL.md"]
        assert (outside / "SKILL.md").read_bytes() == b"outside"
    memory = MemoryFileOperator(memory_tree(tree))
    _agree(disk, asyncio.run(mutated(memory, steps, probes)))
