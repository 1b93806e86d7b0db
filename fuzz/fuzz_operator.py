"""Any file tree, built on disk and in memory, gets the same answers from both file operators.

The input bytes decode to a tree of directories, files, FIFOs and symbolic
links (relative or absolute, escaping above the root, looping, hidden,
spelled with ``//``, ``.`` and ``..``) and a short sequence of writes, new
directories and removals. The tree is built in a temporary directory on disk
(beside a sibling ``a/SKILL.md`` to escape to) and in memory; after the
changes, every listing, read and stat of every probe path gives the same
result or the same error class from :class:`LocalFileOperator` (the real
confinement walk, :mod:`a13n_harness.environment._confinement`) and from
:class:`MemoryFileOperator` (its independent model), each change has the
same outcome, and nothing outside the disk root is touched
(:mod:`a13n_harness.testing.operator_trees`, shared with
``properties/test_operator_differential.py``). Nothing else escapes.

Bug class: a confinement walk that drifts from its model. A link climbing
above the root followed (clamped) instead of refused, an absolute target
spelled ``//x/./y`` read as outside, a loop that hangs, a change that
follows its last link out of the tree, an error class that differs between
the two (so a caller's handling differs between tests and production).

Input format (a :class:`ByteReader`; missing bytes read as 0): the number of
changes (``byte % 5``), then the root directory: an entry count
(``byte % 5``), and per entry a name (``a``, ``b``, ``.h``, ``SKILL.md``;
repeats skipped) and a kind of ``link file dir link fifo`` (``link file``
two levels down): ``file`` (length ``byte % 13``, then the bytes), ``dir``
(a directory the same way), ``link`` (``1 + byte % 4`` segments of
``.. a b .h SKILL.md .. . "" zz ..``, then the absolute bit) or ``fifo``;
then each change, an operation and a probe path. Two bytes ``00 01`` are
the tree ``a -> ..``.
"""

from __future__ import annotations

from _target import ByteReader, contract, instrumented, main

with instrumented(__name__):  # coverage feedback when atheris drives this file
    from a13n_harness.testing.operator_trees import (
        CHANGES,
        NAMES,
        PROBES,
        SEGMENTS,
        Tree,
        check_mutations_agree,
        link_target,
    )

MAX_CHANGES = 4  # a short sequence reaches every interplay; each change costs a disk walk
MAX_ENTRIES = 4  # per directory: the four names
MAX_DEPTH = 2  # directories nest two levels below the root, as in the property
MAX_FILE = 12  # bytes in a file: enough to tell files apart and to cut a read short
# Drawn kinds and link segments, weighted towards the bug class: links twice as likely as
# any other kind, ``..`` (the way out) three times as likely as any other segment, and both
# what a missing byte (0) draws, so the shortest inputs already hold an escaping link.
_KINDS = ("link", "file", "dir", "link", "fifo")
_LEAF_KINDS = ("link", "file")
_SEGMENTS = ("..", *SEGMENTS, "..")


def _tree(reader: ByteReader, depth: int) -> Tree:
    tree: Tree = {}
    for _ in range(reader.below(MAX_ENTRIES + 1)):
        name = NAMES[reader.below(len(NAMES))]
        kinds = _KINDS if depth < MAX_DEPTH else _LEAF_KINDS
        kind = kinds[reader.below(len(kinds))]
        node: object
        if kind == "file":
            node = bytes(reader.byte() for _ in range(reader.below(MAX_FILE + 1)))
        elif kind == "dir":
            node = _tree(reader, depth + 1)
        elif kind == "fifo":
            node = "fifo"
        else:
            parts = [_SEGMENTS[reader.below(len(_SEGMENTS))] for _ in range(1 + reader.below(4))]
            node = ("link", *link_target(parts, bool(reader.byte() & 1)))
        tree.setdefault(name, node)
    return tree


def decode(data: bytes) -> tuple[Tree, list[tuple[str, str]]]:
    """The tree and the changes ``data`` describes (module docstring; total)."""
    reader = ByteReader(data)
    count = reader.below(MAX_CHANGES + 1)
    tree = _tree(reader, 0)
    changes = [
        (CHANGES[reader.below(len(CHANGES))], PROBES[reader.below(len(PROBES))])
        for _ in range(count)
    ]
    return tree, changes


def _verdict(data: bytes) -> str:
    tree, changes = decode(data)
    check_mutations_agree(tree, changes)  # a disagreement raises: agreement is the one outcome
    return "accepted"


check, outcome = contract(_verdict)

if __name__ == "__main__":
    main(__file__, check, outcome)
