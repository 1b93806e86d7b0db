"""The on-disk and in-memory operators give the same answers (docs/contract.md §7).

A security boundary has an oracle: :class:`MemoryFileOperator` is the model the
fuzzer runs, :class:`LocalFileOperator` what users run. For a drawn tree of
directories, files, FIFOs and symbolic links (relative, absolute, escaping,
looping, hidden, spelled with ``//``, ``.`` and ``..``), built once on disk
and once in memory, every operation on every probe path gives the same result
or the same error class; a drawn sequence of writes, new directories and
removals gives the same outcomes and leaves the same tree, and never touches
the directory beside the disk root. The two walks are separate implementations
on purpose (:mod:`a13n_harness.environment._confinement`): this property is the
oracle of both; the builder and the comparison live in
:mod:`a13n_harness.testing.operator_trees`, shared with ``fuzz/fuzz_operator.py``.
Negative controls: a disk walk that follows one escaping link
instead of refusing it (through reads, and through changes), one that stops
resolving spelling lexically, and a ``remove`` that follows its last link, each
make the property fail.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import stat
from collections.abc import Sequence
from typing import cast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from a13n_harness.environment import FileNotFound, FileOperatorError, LocalFileOperator
from a13n_harness.environment import _confinement as confinement_module
from a13n_harness.environment import local as local_module
from a13n_harness.environment import paths as paths_module
from a13n_harness.testing.controls import control_settings, property_fails
from a13n_harness.testing.operator_trees import (
    CHANGES,
    NAMES,
    PROBES,
    SEGMENTS,
    Tree,
    check_agreement,
    check_mutations_agree,
    link_target,
    on_disk,
    probes_for,
)

_segment = st.sampled_from(SEGMENTS)


@st.composite
def link_targets(draw: st.DrawFn) -> tuple[str, bool]:
    """(target spelled below the root, absolute?) with every spelling docs/contract.md §7 names."""
    return link_target(draw(st.lists(_segment, min_size=1, max_size=4)), draw(st.booleans()))


@st.composite
def trees(draw: st.DrawFn, depth: int = 0) -> Tree:
    tree: Tree = {}
    for name in draw(st.lists(st.sampled_from(NAMES), unique=True, max_size=4)):
        kinds = ("file", "dir", "link", "link", "fifo") if depth < 2 else ("file", "link")
        kind = draw(st.sampled_from(kinds))
        if kind == "file":
            tree[name] = draw(st.binary(max_size=12))
        elif kind == "dir":
            tree[name] = draw(trees(depth + 1))
        elif kind == "fifo":
            tree[name] = "fifo"
        else:
            tree[name] = ("link", *draw(link_targets()))
    return tree


@settings(max_examples=40)
@given(trees())
def test_disk_and_memory_operators_agree_on_every_operation(tree: Tree) -> None:
    check_agreement(tree)


@pytest.mark.parametrize(
    "tree",
    [
        {"a": ("link", "../a", False)},  # climbs above the root
        {"a": {"b": ("link", "../../a/SKILL.md", False)}},
        {"a": ("link", "b", False), "b": ("link", "a", False)},  # a loop
        {".h": ("link", "a", False), "a": {"SKILL.md": b"x"}},  # hidden
        {"a": {"SKILL.md": b"x"}, "b": ("link", "/a//./SKILL.md", True)},
        {"a": {"SKILL.md": b"x"}, "b": ("link", "a/../a/SKILL.md/", False)},
        {"a": {"b": b"y"}, "b": ("link", "zz/../a/b", False)},  # lexical, not physical
        {"a": "fifo", "b": ("link", "a", False)},
    ],
)
def test_disk_and_memory_agree_on_chosen_trees(tree: Tree) -> None:
    check_agreement(tree)


def _follows_escaping_links(
    parent: list[str] | tuple[str, ...], target: str, root: list[str] | tuple[str, ...]
) -> list[str] | None:
    """Broken: a relative link climbing above the root is followed (clamped) instead of refused."""
    if target.startswith("/"):
        return paths_module.resolve_link_target(parent, target, root)
    stack = list(parent)
    for segment in target.split("/"):
        if segment == "..":
            if stack:
                stack.pop()
        elif segment not in ("", "."):
            stack.append(segment)
    return stack


def _not_lexical(
    parent: list[str] | tuple[str, ...], target: str, root: list[str] | tuple[str, ...]
) -> list[str] | None:
    """Broken: ``//`` and ``/./`` in an absolute target are not resolved, so it reads as outside."""
    if target.startswith("/") and ("//" in target or "/./" in target):
        return None
    return paths_module.resolve_link_target(parent, target, root)


@pytest.mark.parametrize("broken", [_follows_escaping_links, _not_lexical])
def test_negative_control_a_disk_walk_that_differs_fails_the_property(
    monkeypatch: pytest.MonkeyPatch, broken: object
) -> None:
    monkeypatch.setattr(confinement_module, "resolve_link_target", broken)
    property_fails(control_settings(given(trees())(check_agreement)))


@settings(max_examples=15)
@given(trees())
def test_the_general_walk_alone_agrees_too(tree: Tree) -> None:
    """With the ``openat2`` fast path switched off, every read takes the general walk."""
    saved = list(confinement_module._openat2_state)
    confinement_module._openat2_state[:] = [None]
    try:
        check_agreement(tree)
    finally:
        confinement_module._openat2_state[:] = saved


# The operations that change a tree, drawn as a short sequence of steps on the probe paths.
_MUTATIONS = st.lists(st.tuples(st.sampled_from(CHANGES), st.sampled_from(PROBES)), max_size=4)


@settings(max_examples=25)
@given(trees(), _MUTATIONS)
def test_disk_and_memory_operators_agree_on_every_change(
    tree: Tree, steps: list[tuple[str, str]]
) -> None:
    check_mutations_agree(tree, steps)


@pytest.mark.parametrize(
    ("tree", "steps"),
    [
        ({"a": ("link", "../a", False)}, [("write", "/a/SKILL.md"), ("remove", "/a/SKILL.md")]),
        ({"b": ("link", "a", False), "a": {"SKILL.md": b"x"}}, [("remove", "/b")]),
        ({"b": ("link", "a/b", False), "a": {}}, [("mkdir", "/b"), ("write", "/b/a")]),
        ({"a": "fifo"}, [("write", "/a"), ("mkdir", "/a/b"), ("remove", "/a")]),
        ({"a": {"b": {"SKILL.md": b"x"}}}, [("remove", "/a"), ("mkdir", "/a/b/a")]),
    ],
)
def test_disk_and_memory_agree_on_chosen_changes(tree: Tree, steps: list[tuple[str, str]]) -> None:
    check_mutations_agree(tree, steps)


def _remove_following_the_last_link(self: object, path: str) -> None:
    """Broken: ``remove`` resolves its last segment through a link, deleting the target."""
    walker = cast("confinement_module.Walker", self)
    found = walker.locate(path, follow_last=True)
    if found.name is None or found.mode is None:
        raise FileNotFound("no such file or directory", path=path)
    if stat.S_ISDIR(found.mode):
        shutil.rmtree(f"/proc/self/fd/{found.parent}/{found.name}")
    else:
        os.unlink(found.name, dir_fd=found.parent)


def test_negative_control_a_remove_that_follows_its_last_link_fails_the_property(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(local_module._Operations, "remove", _remove_following_the_last_link)
    property_fails(control_settings(given(trees(), _MUTATIONS)(check_mutations_agree)))


def test_negative_control_an_escaping_write_fails_the_property(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The escaping-link walk of the first control, seen through writes and removals."""
    monkeypatch.setattr(confinement_module, "resolve_link_target", _follows_escaping_links)
    property_fails(control_settings(given(trees(), _MUTATIONS.filter(bool))(check_mutations_agree)))


def _outcome(result: object) -> object:
    if isinstance(result, bytes):
        return result
    assert isinstance(result, FileOperatorError), result
    return (type(result).__name__, result.message, result.path)


async def _one_by_one(files: LocalFileOperator, paths: Sequence[str]) -> list[object]:
    results: list[object] = []
    for path in paths:
        try:
            results.append(await files.read_bytes(path, 64))
        except FileOperatorError as error:
            results.append(error)
    return results


def check_read_again_agrees(tree: Tree) -> None:
    """``read_many`` (discovery's batch read) and ``read_many_again`` (its final re-read) give
    what ``read_bytes`` gives path by path, bytes or the same error (class, message, path),
    for every probe path of the tree: files, folders, FIFOs, missing paths and every kind of
    link, escaping or looping."""
    probes = probes_for(tree)
    with on_disk(tree) as root, LocalFileOperator(root) as local:
        single = [_outcome(r) for r in asyncio.run(_one_by_one(local, probes))]
        first = asyncio.run(local.read_many(probes, 64))
        again = asyncio.run(local.read_many_again(probes, 64))
    assert [_outcome(r) for r in first] == single
    assert [_outcome(r) for r in again] == single


@settings(max_examples=30)
@given(trees())
def test_a_read_again_agrees_with_a_read_on_every_path(tree: Tree) -> None:
    check_read_again_agrees(tree)


def _opens_whatever_it_finds(self: object, path: str) -> tuple[int, int] | None:
    # Broken on purpose: the one-call open without the regular-file check.
    openers = confinement_module._openat2()
    if openers is None or path == "/":
        return None
    fd = openers[1](cast(confinement_module.Walker, self)._root_fd, os.fsencode(path[1:]))
    return None if fd < 0 else (fd, 64)


def test_negative_control_a_read_again_that_skips_the_regular_file_check_fails_the_property(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(confinement_module.Walker, "open_again", _opens_whatever_it_finds)
    property_fails(control_settings(given(trees())(check_read_again_agrees)))


def _batch_without_the_walk(
    self: object, paths: Sequence[object], limit: int, *, again: bool
) -> list[object]:
    # Broken on purpose: a batch read that gives up where the fast path declines.
    walker = cast(local_module._Operations, self)
    results: list[object] = []
    for path in paths:
        fast = walker.open_beneath(cast(str, path))
        if fast is None:
            results.append(FileNotFound("no such file or directory", path=cast(str, path)))
            continue
        fd, size = fast
        try:
            results.append(os.read(fd, min(limit, size + 1)))
        finally:
            os.close(fd)
    return results


def test_negative_control_a_batch_read_that_differs_from_a_single_read_fails_the_property(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(local_module._Operations, "read_each", _batch_without_the_walk)
    property_fails(control_settings(given(trees())(check_read_again_agrees)))
