"""Any file tree the discovery engine scans gives a valid catalog or a documented DefinitionError.

The input bytes build an in-memory tree (format below) that three sources
scan with small limits. When the scan is accepted: items are strictly sorted
by name and within ``max_skills``; every item is a package the layout rule
allows (the root's own ``SKILL.md`` or an immediate child's) below a
configured root; every diagnostic has a documented code; only ``SKILL.md``
files were ever opened (never a FIFO, never a hidden entry, never anything
deeper than one level); and a second scan whose reads complete in an order
drawn from the input gives exactly the same items and diagnostics. When it
is refused, the error is a ``DefinitionError`` with a code of docs/contract.md, and the
reordered scan refuses with the same code and path. Every accepted item, and
every frontmatter refusal, is what parsing the whole SKILL.md gives (same
name and description; same reason, line and column). Nothing else escapes.

Bug class: a scanner that trusts its tree. Symbolic links climbing above the
root or looping, FIFOs and denied or failing entries, names with newlines,
lone surrogates or impossible characters, overflowing directories, duplicate
names, bad frontmatter and completion-order-dependent results must end in the
documented outcome, never in a hang, a ``RecursionError``, a ``KeyError``, a
silently truncated catalog or a result that changes with scheduling.

Input format: byte 0 holds policy flags (bit 0: ``invalid="skip"``, bit 1:
``conflict="error"``, bits 2-7: read delays); the rest is records separated
by ``0x1E``. A record is one kind byte and a path below ``/`` (segments split
on ``/``, decoded as UTF-8 with surrogate escapes), with ``0x1F`` before a
payload where the kind takes one: ``D`` directory, ``F`` file (payload: the
bytes), ``L`` symbolic link (payload: the target), ``S`` FIFO, ``P`` denied,
``B`` broken. Roots: ``/r`` and ``/s`` (source ``a``, not required) and
``/t`` (source ``b``, required); at most 16 entries per root and 24 skills.
"""

from __future__ import annotations

import asyncio

from _target import contract, instrumented, main, outcome_of

with instrumented(__name__):  # coverage feedback when atheris drives this file
    from a13n_harness.capabilities import (
        DIAGNOSTIC_CODES,
        FileSkillSource,
        SkillDiagnostic,
        SkillsPolicy,
        discovery,
    )
    from a13n_harness.context.errors import ERROR_CODES, DefinitionError, FrontmatterError
    from a13n_harness.context.frontmatter import parse_skill_document
    from a13n_harness.environment import (
        FileOperator,
        MemoryBroken,
        MemoryDenied,
        MemoryFileOperator,
        MemoryNode,
        MemorySpecial,
        MemorySymlink,
    )
    from a13n_harness.testing.discovery_strategies import ShuffledCompletionOperator

SOURCES = (
    FileSkillSource("a", ("/r", "/s"), required=False, max_entries_per_root=16),
    FileSkillSource("b", ("/t",), required=True, max_entries_per_root=16),
)
MAX_SKILLS = 24


def build(data: bytes) -> tuple[SkillsPolicy, dict[str, MemoryNode], list[int]]:
    """The policy, tree and read delays that ``data`` encodes (module docstring)."""
    flags = data[0] if data else 0
    policy = SkillsPolicy(
        conflict="error" if flags & 2 else "precedence",
        invalid="skip" if flags & 1 else "error",
        max_skills=MAX_SKILLS,
    )
    delays = [(flags >> 2) % 7, 0, (flags >> 4) % 5, 3, 1]
    tree: dict[str, MemoryNode] = {}
    for record in data[1:].split(b"\x1e"):
        if not record:
            continue
        kind, body = record[:1], record[1:]
        raw_path, _, payload = body.partition(b"\x1f")
        segments = [s for s in raw_path.decode("utf-8", "surrogateescape").split("/") if s]
        if not segments:
            continue
        node: MemoryNode
        if kind == b"D":
            node = {}
        elif kind == b"F":
            node = payload
        elif kind == b"L":
            node = MemorySymlink(payload.decode("utf-8", "surrogateescape"))
        elif kind == b"S":
            node = MemorySpecial()
        elif kind == b"P":
            node = MemoryDenied("directory" if payload else "file")
        elif kind == b"B":
            node = MemoryBroken("directory" if payload else "file")
        else:
            continue
        directory = tree
        for segment in segments[:-1]:
            child = directory.setdefault(segment, {})
            if not isinstance(child, dict):
                break
            directory = child
        else:
            if segments[-1] not in directory or kind != b"D":
                directory[segments[-1]] = node
    return policy, tree, delays


Outcome = tuple[tuple[object, ...], tuple[SkillDiagnostic, ...]] | DefinitionError


def _scan(files: FileOperator, policy: SkillsPolicy) -> Outcome:
    def access(_root: str) -> FileOperator:
        return files

    async def run() -> Outcome:
        try:
            found = await discovery.discover(SOURCES, policy, (), access)
            await discovery.confirm_unchanged(
                found.skills, policy, access, "skill_document_changed"
            )
        except DefinitionError as error:
            return error
        return tuple(skill.item for skill in found.skills), found.diagnostics

    return asyncio.run(run())


def _verdict(data: bytes) -> str:
    """The scan of the tree ``data`` builds, checked; its outcome."""
    policy, tree, delays = build(data)
    files = MemoryFileOperator(tree)
    result = _scan(files, policy)
    shuffled = _scan(ShuffledCompletionOperator(MemoryFileOperator(tree), delays), policy)
    if isinstance(result, DefinitionError):
        assert result.code in ERROR_CODES, result.code
        assert isinstance(shuffled, DefinitionError), shuffled
        assert (shuffled.code, shuffled.path) == (result.code, result.path)
        str(result)
        if isinstance(result, FrontmatterError) and result.path is not None:
            # The refusal is the one parsing the whole file gives: same reason and position.
            try:
                parse_skill_document(files.read_now(result.path, 1 << 30), policy.frontmatter)
            except FrontmatterError as refusal:
                assert (refusal.reason, refusal.line, refusal.column) == (
                    result.reason,
                    result.line,
                    result.column,
                )
            else:
                raise AssertionError(f"{result.path}: refused by discovery, accepted whole")
        return outcome_of(result)
    assert not isinstance(shuffled, DefinitionError), shuffled
    assert shuffled == result
    items, diagnostics = result
    names = [getattr(item, "name", None) for item in items]
    assert all(isinstance(n, str) for n in names)
    assert names == sorted(set(names)), names  # type: ignore[type-var]
    assert len(items) <= MAX_SKILLS
    roots = {root for source in SOURCES for root in source.roots}
    for item in items:
        path = str(getattr(item, "path", ""))
        root = str(getattr(item, "root", ""))
        assert root in roots
        assert path.endswith("/SKILL.md")
        relative = path[len(root) :]
        assert path.startswith(root + "/")
        assert relative.count("/") in (1, 2), path
        assert not relative.lstrip("/").startswith(".")
    for diagnostic in diagnostics:
        assert diagnostic.code in DIAGNOSTIC_CODES, diagnostic
    for opened in files.opened:
        assert opened.endswith("/SKILL.md"), opened
        assert any(opened.startswith(root + "/") for root in roots), opened
    for item in items:
        # Discovery's bounded read gives what parsing the whole file gives.
        whole = files.read_now(str(getattr(item, "path", "")), 1 << 30)
        front = parse_skill_document(whole, policy.frontmatter)
        assert (front.name, front.description) == (
            getattr(item, "name", None),
            getattr(item, "description", None),
        )
    return outcome_of(result)


check, outcome = contract(_verdict)

if __name__ == "__main__":
    main(__file__, check, outcome)
