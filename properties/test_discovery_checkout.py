"""Checkout mode (docs/contract.md §7 "Checkout mode"): skip and keep going.

``SkillsPolicy.checkout()`` skips every bad entry with a coded diagnostic and goes on,
lists a root completely up to ``CHECKOUT_MAX_ENTRIES``, and counts two routes to the
same package once. Strict mode (``SkillsPolicy()``, ``SkillsPolicy(invalid="skip")``)
keeps the host seed's errors: each test holds both side by side, so the strict
answer is the negative control of the checkout one.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from a13n_harness.capabilities import (
    CHECKOUT_MAX_ENTRIES,
    SKIP_REASONS,
    FileSkillSource,
    SkillManager,
    SkillScan,
    SkillsPolicy,
)
from a13n_harness.capabilities.discovery import PAGE
from a13n_harness.context.errors import DefinitionError
from a13n_harness.environment import (
    LocalFileOperator,
    MemoryBroken,
    MemoryDenied,
    MemoryFileOperator,
    MemorySpecial,
    MemorySymlink,
)

CHECKOUT = SkillsPolicy.checkout()
STRICT_POLICIES = (SkillsPolicy(), SkillsPolicy(invalid="skip"))


def doc(name: str, description: str = "does things") -> bytes:
    return f"---\nname: {name}\ndescription: {description}\n---\n# {name}\n".encode()


def inspect(files: object, roots: tuple[str, ...], policy: SkillsPolicy) -> SkillScan:
    manager = SkillManager([FileSkillSource("s", roots)], policy=policy)
    return asyncio.run(manager.inspect(files=files))  # type: ignore[arg-type]


def write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def five_with_an_escaping_link(base: Path) -> Path:
    """Five skill entries below /skills, ``c`` a link to a skill outside the workspace."""
    workspace = base / "ws"
    for name in ("a", "b", "d", "e"):
        write(workspace / "skills" / name / "SKILL.md", doc(name))
    write(base / "dotfiles" / "c" / "SKILL.md", doc("c"))
    os.symlink(base / "dotfiles" / "c", workspace / "skills" / "c")
    return workspace


def test_one_escaping_link_is_skipped_and_the_scan_keeps_going(tmp_path: Path) -> None:
    workspace = five_with_an_escaping_link(tmp_path)
    with LocalFileOperator(workspace) as files:
        scan = inspect(files, ("/skills",), CHECKOUT)
        assert [item.name for item in scan.items] == ["a", "b", "d", "e"]
        skipped = [d for d in scan.diagnostics if d.code == "skill_entry_skipped"]
        assert [(d.path, d.reason) for d in skipped] == [("/skills/c", "link_escapes")]
        # Strict mode, the host seed's: the same link fails the scan.
        for policy in STRICT_POLICIES:
            with pytest.raises(DefinitionError) as caught:
                inspect(files, ("/skills",), policy)
            assert caught.value.code == "skill_permission_denied"


def test_nothing_outside_the_root_is_read_or_stat_ed(tmp_path: Path) -> None:
    """The link's target is refused on its spelling: an unreadable outside, a missing
    outside and a readable one all give the same skip."""
    workspace = five_with_an_escaping_link(tmp_path)
    os.symlink("/nonexistent/elsewhere", workspace / "skills" / "f")
    os.symlink("../../dotfiles/c", workspace / "skills" / "g")
    with LocalFileOperator(workspace) as files:
        scan = inspect(files, ("/skills",), CHECKOUT)
    reasons = {d.path: d.reason for d in scan.diagnostics}
    assert reasons == {
        "/skills/c": "link_escapes",
        "/skills/f": "link_escapes",
        "/skills/g": "link_escapes",
    }
    messages = {d.path: d.message for d in scan.diagnostics}
    assert len(set(messages.values())) == 1  # no detail of what lies outside shows through


@pytest.mark.parametrize(
    ("node", "reason"),
    [
        (MemorySymlink("/skills/bad/SKILL.md"), "link_loop"),
        (MemorySymlink("../../../outside"), "link_escapes"),
        (MemorySpecial(), "not_a_regular_file"),
        ({}, "not_a_regular_file"),
        (MemoryDenied(), "permission_denied"),
        (MemoryBroken(), "unreadable"),
    ],
)
def test_every_bad_skill_file_is_skipped_with_its_reason(node: object, reason: str) -> None:
    tree = {
        "skills": {
            "a": {"SKILL.md": doc("a")},
            "bad": {"SKILL.md": node},
            "z": {"SKILL.md": doc("z")},
        }
    }
    files = MemoryFileOperator(tree)
    scan = inspect(files, ("/skills",), CHECKOUT)
    assert [item.name for item in scan.items] == ["a", "z"]
    (skipped,) = scan.diagnostics
    assert (skipped.code, skipped.path, skipped.reason) == (
        "skill_entry_skipped",
        "/skills/bad",
        reason,
    )
    # invalid="error" in checkout mode fails on the same entry, as --invalid error does.
    if reason not in ("link_loop", "not_a_regular_file"):
        with pytest.raises(DefinitionError):
            inspect(files, ("/skills",), SkillsPolicy.checkout(invalid="error"))


def test_bad_frontmatter_and_a_second_package_of_one_name_are_skipped() -> None:
    tree = {
        "skills": {
            "a": {"SKILL.md": doc("a")},
            "broken": {"SKILL.md": b"---\nname: [\n---\n"},
            "twin": {"SKILL.md": doc("a", "another a")},
        }
    }
    files = MemoryFileOperator(tree)
    scan = inspect(files, ("/skills",), CHECKOUT)
    assert [(item.name, item.path) for item in scan.items] == [("a", "/skills/a/SKILL.md")]
    assert [(d.code, d.reason) for d in scan.diagnostics] == [
        ("skill_frontmatter_skipped", "yaml_syntax"),
        ("skill_name_mismatch", "name_mismatch"),
        ("skill_entry_skipped", "duplicate_name"),
    ]
    with pytest.raises(DefinitionError) as caught:
        inspect(files, ("/skills",), SkillsPolicy(invalid="skip"))
    assert caught.value.code == "skill_name_conflict"


def test_every_diagnostic_carries_a_known_reason_code(tmp_path: Path) -> None:
    tree = {
        "skills": {
            ".hidden": {"SKILL.md": doc("hidden")},
            "README.md": b"readme",
            "empty": {},
            "fifo": {"SKILL.md": MemorySpecial()},
            "long": {"SKILL.md": doc("long", "x" * 2_000)},
            "mismatch": {"SKILL.md": doc("other")},
            "out": MemorySymlink("/../x"),
        },
        "late": {"long": {"SKILL.md": doc("long", "later")}},
    }
    files = MemoryFileOperator(tree)
    manager = SkillManager(
        [FileSkillSource("s", ("/skills", "/late", "/missing"), required=False)],
        policy=CHECKOUT,
    )
    scan = asyncio.run(manager.inspect(files=files))
    assert scan.diagnostics
    for diagnostic in scan.diagnostics:
        assert diagnostic.reason in SKIP_REASONS, diagnostic


def test_a_root_is_listed_completely_past_256_entries() -> None:
    """Strict mode refuses a root of 257 entries (skill_root_overflow); checkout mode lists
    every one of 1,000, and the catalog past 512 skills."""
    tree = {"skills": {f"s{i:04d}": {"SKILL.md": doc(f"s{i:04d}")} for i in range(1_000)}}
    files = MemoryFileOperator(tree)
    scan = inspect(files, ("/skills",), CHECKOUT)
    assert [item.name for item in scan.items] == [f"s{i:04d}" for i in range(1_000)]
    assert scan.diagnostics == ()
    for policy in STRICT_POLICIES:
        with pytest.raises(DefinitionError) as caught:
            inspect(files, ("/skills",), policy)
        assert caught.value.code == "skill_root_overflow"


def test_past_the_hard_bound_a_root_is_an_explicit_error() -> None:
    tree: dict[str, dict[str, dict[str, bytes]]] = {
        "skills": {f"e{i}": {} for i in range(CHECKOUT_MAX_ENTRIES + 1)}
    }
    files = MemoryFileOperator(tree)
    with pytest.raises(DefinitionError) as caught:
        inspect(files, ("/skills",), CHECKOUT)
    assert caught.value.code == "skill_root_overflow"
    assert f"{CHECKOUT_MAX_ENTRIES + 1} entries" in caught.value.message
    del tree["skills"]["e0"]
    assert inspect(MemoryFileOperator(tree), ("/skills",), CHECKOUT).items == ()


def test_the_same_package_by_two_routes_is_one_skill(tmp_path: Path) -> None:
    """pydantic-ai's layout: .claude/skills/x links to ../../.agents/skills/x."""
    write(tmp_path / ".agents/skills/x/SKILL.md", doc("x"))
    write(tmp_path / ".agents/skills/y/SKILL.md", doc("y", "agents' y"))
    (tmp_path / ".claude/skills").mkdir(parents=True)
    os.symlink("../../.agents/skills/x", tmp_path / ".claude/skills/x")
    write(tmp_path / ".claude/skills/y/SKILL.md", doc("y", "claude's y"))
    os.symlink("../x/SKILL.md", tmp_path / ".claude/skills/w")
    roots = ("/.agents/skills", "/.claude/skills")
    with LocalFileOperator(tmp_path) as files:
        scan = inspect(files, roots, CHECKOUT)
        assert [(item.name, item.path) for item in scan.items] == [
            ("x", "/.agents/skills/x/SKILL.md"),
            ("y", "/.claude/skills/y/SKILL.md"),
        ]
        overrides = [d for d in scan.diagnostics if d.code == "skill_overridden"]
        # Different content under one name is still an override, naming both paths.
        assert [d.message for d in overrides] == [
            "/.agents/skills/y/SKILL.md (source 's') is overridden by "
            "/.claude/skills/y/SKILL.md (source 's')"
        ]
        # Strict mode keeps its answer: the linked copy overrides the original.
        strict = inspect(files, roots, SkillsPolicy(invalid="skip"))
        assert {d.path for d in strict.diagnostics if d.code == "skill_overridden"} == {
            "/.agents/skills/x/SKILL.md",
            "/.agents/skills/y/SKILL.md",
        }


def test_each_operation_rediscovers_the_checkout(tmp_path: Path) -> None:
    """The checkout seed: "subsequent operations rediscover checkout skills"."""
    write(tmp_path / "skills/a/SKILL.md", doc("a", "first"))
    write(tmp_path / "skills/b/SKILL.md", doc("b"))
    manager = SkillManager([FileSkillSource("s", ("/skills",))], policy=CHECKOUT)
    with LocalFileOperator(tmp_path) as files:
        first = asyncio.run(manager.inspect(files=files))
        write(tmp_path / "skills/a/SKILL.md", doc("a", "second"))
        (tmp_path / "skills/b/SKILL.md").unlink()
        write(tmp_path / "skills/c/SKILL.md", doc("c"))
        second = asyncio.run(manager.inspect(files=files))
        third = asyncio.run(manager.scan(files=files))
    described = "does things"
    assert [(i.name, i.description) for i in first.items] == [("a", "first"), ("b", described)]
    assert [(i.name, i.description) for i in second.items] == [("a", "second"), ("c", described)]
    assert third == second.items
    assert [(d.path, d.reason) for d in second.diagnostics] == [("/skills/b", "no_skill_file")]


def test_an_operator_failing_as_a_whole_still_fails_the_scan() -> None:
    """A batch read that fails for every path is not one bad entry."""

    class Failing(MemoryFileOperator):
        read_concurrency = 1

        async def read_many(self, paths: object, limit: int) -> list[bytes]:
            raise OSError("the provider is down")

    tree = {"skills": {"a": {"SKILL.md": doc("a")}, "b": {"SKILL.md": doc("b")}}}
    with pytest.raises(DefinitionError) as caught:
        inspect(Failing(tree), ("/skills",), CHECKOUT)
    assert caught.value.code == "skill_provider_failed"


def test_checkout_policy_values() -> None:
    policy = SkillsPolicy.checkout()
    assert (policy.mode, policy.invalid, policy.max_skills) == (
        "checkout",
        "skip",
        CHECKOUT_MAX_ENTRIES,
    )
    assert SkillsPolicy().mode == "strict"
    assert SkillsPolicy.checkout(invalid="error").invalid == "error"
    with pytest.raises(DefinitionError) as caught:
        SkillsPolicy(mode="lenient")  # type: ignore[arg-type]
    assert caught.value.code == "catalog_invalid"


@pytest.mark.parametrize("extra", [-1, 0, 1, PAGE + 1])
def test_a_root_is_paged_to_exhaustion_at_every_page_edge(extra: int) -> None:
    """Candidates are read a page at a time: a root of one entry past a page, exactly a page,
    one short of it and past two pages lists every entry once, in name order; a bad entry on
    each side of a page edge is skipped with its diagnostic."""
    count = PAGE + extra
    names = [f"s{i:05d}" for i in range(count)]
    tree = {"skills": {name: {"SKILL.md": doc(name)} for name in names}}
    scan = inspect(MemoryFileOperator(tree), ("/skills",), CHECKOUT)
    assert [item.name for item in scan.items] == names
    assert scan.diagnostics == ()
    edges = sorted({PAGE - 1, PAGE, count - 1} & set(range(count)))
    for index in edges:
        tree["skills"][names[index]] = {"SKILL.md": b"---\nname: [\n---\n"}
    scan = inspect(MemoryFileOperator(tree), ("/skills",), CHECKOUT)
    assert [item.name for item in scan.items] == [
        name for index, name in enumerate(names) if index not in edges
    ]
    assert [d.path for d in scan.diagnostics] == [
        f"/skills/{names[index]}/SKILL.md" for index in edges
    ]


def test_one_root_judges_the_same_package_by_its_whole_document() -> None:
    """Two entries of one root with one name are one package only when their ``SKILL.md``
    bytes are identical (a vendored copy under another folder name: one skill). The same
    name and description, what the catalog would show, over another body is a second
    package: skipped as ``duplicate_name``, not silently taken for the first."""
    twin = doc("a").replace(b"# a\n", b"# a, but other instructions\n")
    assert twin != doc("a")
    tree = {"skills": {"a": {"SKILL.md": doc("a")}, "b": {"SKILL.md": twin}}}
    scan = inspect(MemoryFileOperator(tree), ("/skills",), CHECKOUT)
    assert [item.path for item in scan.items] == ["/skills/a/SKILL.md"]
    assert [(d.code, d.path, d.reason) for d in scan.diagnostics] == [
        ("skill_name_mismatch", "/skills/b/SKILL.md", "name_mismatch"),
        ("skill_entry_skipped", "/skills/b/SKILL.md", "duplicate_name"),
    ]
    # A copy with the same bytes under another folder is the same package: one skill.
    copy = {"skills": {"a": {"SKILL.md": doc("a")}, "b": {"SKILL.md": doc("a")}}}
    scan = inspect(MemoryFileOperator(copy), ("/skills",), CHECKOUT)
    assert [item.path for item in scan.items] == ["/skills/a/SKILL.md"]
    assert [d.reason for d in scan.diagnostics] == ["name_mismatch"]
