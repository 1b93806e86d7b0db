"""Discovery rules of docs/contract.md §7, pinned by examples and properties."""

from __future__ import annotations

import asyncio
import os
import re
import threading
import tracemalloc
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from a13n_harness.capabilities import (
    DIAGNOSTIC_CODES,
    MAX_ENTRIES_PER_ROOT,
    MAX_SKILLS,
    FileSkillSource,
    SkillManager,
    SkillScan,
    SkillsPolicy,
    read_limit,
)
from a13n_harness.capabilities import discovery as discovery_module
from a13n_harness.capabilities import pool as pool_module
from a13n_harness.context.errors import DefinitionError
from a13n_harness.context.frontmatter import FrontmatterLimits
from a13n_harness.environment import (
    DirectoryEntry,
    FileOperator,
    FileOperatorError,
    LocalFileOperator,
    MemoryBroken,
    MemoryDenied,
    MemoryFileOperator,
    MemorySpecial,
    MemorySymlink,
)
from a13n_harness.environment import local as local_module
from a13n_harness.testing.discovery_strategies import ShuffledCompletionOperator, skill_document
from bounded import join_bounded, until, wait_bounded


def doc(name: str, description: str = "Does things.") -> bytes:
    return skill_document(name, description)


def packages(prefix: str, count: int) -> dict[str, object]:
    return {
        f"{prefix}{index:04d}": {"SKILL.md": doc(f"{prefix}{index:04d}")} for index in range(count)
    }


def inspect(
    files: FileOperator | Mapping[str, object],
    sources: Sequence[FileSkillSource],
    policy: SkillsPolicy | None = None,
) -> SkillScan:
    operator = files if not isinstance(files, Mapping) else MemoryFileOperator(files)
    manager = SkillManager(sources, policy=policy or SkillsPolicy())
    return asyncio.run(manager.inspect(files=operator))


def code_of(
    files: FileOperator | Mapping[str, object],
    sources: Sequence[FileSkillSource],
    policy: SkillsPolicy | None = None,
) -> str:
    with pytest.raises(DefinitionError) as caught:
        inspect(files, sources, policy)
    return caught.value.code


def source(source_id: str, *roots: str, required: bool = True) -> FileSkillSource:
    return FileSkillSource(source_id, roots, required=required)


# --- limits, pinned at their exact values ---------------------------------------


def test_limits_have_their_documented_values() -> None:
    assert MAX_ENTRIES_PER_ROOT == 256
    assert MAX_SKILLS == 512
    assert FileSkillSource("s", ("/r",)).max_entries_per_root == 256
    assert SkillsPolicy().max_skills == 512


def test_root_with_256_entries_is_scanned() -> None:
    scan = inspect({"r": packages("p", 256)}, [source("s", "/r")])
    assert len(scan.items) == 256


def test_root_with_257_entries_overflows_never_truncates() -> None:
    """More than max_entries_per_root listed entries: skill_root_overflow, never a silent cut."""
    tree = {"r": packages("p", 256) | {"zz-file": b"x"}}
    assert code_of(tree, [source("s", "/r")]) == "skill_root_overflow"
    assert code_of(tree, [source("s", "/r", required=False)]) == "skill_root_overflow"


def test_512_skills_in_one_source_pass_513_overflow() -> None:
    tree = {"a": packages("a", 256), "b": packages("b", 256), "c": packages("c", 1)}
    assert len(inspect(tree, [source("s", "/a", "/b")]).items) == 512
    assert code_of(tree, [source("s", "/a", "/b", "/c")]) == "skill_catalog_overflow"


def test_final_catalog_over_512_overflows() -> None:
    tree = {"a": packages("a", 256), "b": packages("b", 256), "c": packages("c", 1)}
    assert code_of(tree, [source("s", "/a", "/b"), source("t", "/c")]) == "skill_catalog_overflow"


def test_overlapping_sources_count_the_final_catalog() -> None:
    tree = {"a": packages("a", 256), "b": packages("b", 256)}
    scan = inspect(tree, [source("s", "/a", "/b"), source("t", "/a")])
    assert len(scan.items) == 512


@given(st.integers(1, 6), st.integers(0, 8))
def test_max_skills_is_an_exact_bound(limit: int, count: int) -> None:
    tree = {"r": packages("p", count)}
    policy = SkillsPolicy(max_skills=limit)
    if count <= limit:
        assert len(inspect(tree, [source("s", "/r")], policy).items) == count
    else:
        assert code_of(tree, [source("s", "/r")], policy) == "skill_catalog_overflow"


@given(st.integers(1, 6), st.integers(0, 8))
def test_max_entries_per_root_is_an_exact_bound(limit: int, count: int) -> None:
    tree = {"r": packages("p", count)}
    sources = [FileSkillSource("s", ("/r",), max_entries_per_root=limit)]
    if count <= limit:
        assert len(inspect(tree, sources).items) == count
    else:
        assert code_of(tree, sources) == "skill_root_overflow"


# --- precedence and conflicts ------------------------------------------------------


def test_later_root_beats_earlier_root_of_the_same_source() -> None:
    tree = {
        "one": {"x": {"SKILL.md": doc("x", "first")}},
        "two": {"x": {"SKILL.md": doc("x", "second")}},
    }
    scan = inspect(tree, [source("s", "/one", "/two")])
    assert [(i.name, i.description, i.root) for i in scan.items] == [("x", "second", "/two")]
    assert [(d.code, d.path) for d in scan.diagnostics] == [("skill_overridden", "/one/x/SKILL.md")]


def test_later_source_beats_earlier_source() -> None:
    tree = {
        "one": {"x": {"SKILL.md": doc("x", "first")}, "y": {"SKILL.md": doc("y")}},
        "two": {"x": {"SKILL.md": doc("x", "second")}},
    }
    scan = inspect(tree, [source("a", "/two"), source("b", "/one")])
    assert [(i.name, i.source_id) for i in scan.items] == [("x", "b"), ("y", "b")]
    assert [d.code for d in scan.diagnostics] == ["skill_overridden"]
    scan = inspect(tree, [source("a", "/one"), source("b", "/two")])
    assert [(i.name, i.source_id, i.description) for i in scan.items] == [
        ("x", "b", "second"),
        ("y", "a", "Does things."),
    ]


def test_conflict_error_policy_raises_on_any_duplicate() -> None:
    tree = {"one": {"x": {"SKILL.md": doc("x")}}, "two": {"x": {"SKILL.md": doc("x")}}}
    policy = SkillsPolicy(conflict="error")
    assert code_of(tree, [source("s", "/one", "/two")], policy) == "skill_name_conflict"
    assert (
        code_of(tree, [source("s", "/one"), source("t", "/two")], policy) == "skill_name_conflict"
    )


def test_duplicate_name_below_one_root_is_a_conflict() -> None:
    tree = {"r": {"a": {"SKILL.md": doc("x")}, "b": {"SKILL.md": doc("x")}}}
    assert code_of(tree, [source("s", "/r")]) == "skill_name_conflict"


# --- required, per root --------------------------------------------------------------


@pytest.mark.parametrize(
    ("tree", "code"),
    [
        ({}, "skill_root_missing"),
        ({"r": b"a file"}, "skill_root_unsupported"),
        ({"r": MemorySpecial()}, "skill_root_unsupported"),
    ],
)
def test_required_root_problems_are_errors_or_skips(tree: dict[str, object], code: str) -> None:
    full = tree | {"ok": {"x": {"SKILL.md": doc("x")}}}
    assert code_of(full, [source("s", "/r", "/ok")]) == code
    scan = inspect(full, [source("s", "/r", "/ok", required=False)])
    assert [i.name for i in scan.items] == ["x"]
    assert [(d.code, d.path) for d in scan.diagnostics] == [("skill_root_skipped", "/r")]
    assert code in scan.diagnostics[0].message


@pytest.mark.parametrize(
    ("node", "code"),
    [
        (MemoryDenied("directory"), "skill_permission_denied"),
        (MemoryBroken("directory"), "skill_provider_failed"),
    ],
)
@pytest.mark.parametrize("required", [True, False])
def test_denial_and_provider_failure_stay_errors(node: object, code: str, required: bool) -> None:
    assert code_of({"r": node}, [source("s", "/r", required=required)]) == code


@pytest.mark.parametrize(
    ("node", "code"),
    [(MemoryDenied(), "skill_permission_denied"), (MemoryBroken(), "skill_provider_failed")],
)
def test_unreadable_skill_document_is_an_error(node: object, code: str) -> None:
    tree = {"r": {"x": {"SKILL.md": node}}}
    assert code_of(tree, [source("s", "/r", required=False)]) == code


def test_required_false_never_substitutes_another_path() -> None:
    operator = MemoryFileOperator({"other": {"x": {"SKILL.md": doc("x")}}})
    scan = inspect(operator, [source("s", "/missing", required=False)])
    assert scan.items == ()
    assert operator.opened == []


# --- frontmatter policy ------------------------------------------------------------------


def test_invalid_frontmatter_is_an_error_by_default_and_a_diagnostic_on_skip() -> None:
    tree = {
        "r": {
            "bad": {"SKILL.md": b"---\nname: Bad Name\ndescription: d\n---\n"},
            "ok": {"SKILL.md": doc("ok")},
        }
    }
    with pytest.raises(DefinitionError) as caught:
        inspect(tree, [source("s", "/r")])
    assert caught.value.code == "skill_frontmatter_invalid"
    assert caught.value.reason == "name_invalid"
    assert caught.value.path == "/r/bad/SKILL.md"
    assert caught.value.line == 2
    scan = inspect(tree, [source("s", "/r")], SkillsPolicy(invalid="skip"))
    assert [i.name for i in scan.items] == ["ok"]
    (diagnostic,) = scan.diagnostics
    assert (diagnostic.code, diagnostic.reason, diagnostic.line) == (
        "skill_frontmatter_skipped",
        "name_invalid",
        2,
    )


def test_name_mismatch_and_truncation_are_diagnostics() -> None:
    tree = {"r": {"folder": {"SKILL.md": doc("other", "d" * 2000)}}}
    scan = inspect(tree, [source("s", "/r")])
    (item,) = scan.items
    assert item.name == "other"
    assert item.description_truncated
    assert len(item.description) == 1024
    assert [d.code for d in scan.diagnostics] == [
        "skill_name_mismatch",
        "skill_description_truncated",
    ]


# --- layout and skips ------------------------------------------------------------------------


def test_layout_root_package_children_and_nothing_deeper() -> None:
    tree = {
        "r": {
            "SKILL.md": doc("home"),
            "a": {"SKILL.md": doc("a"), "deep": {"SKILL.md": doc("deep")}},
            "b": {"nested": {"SKILL.md": doc("nested")}},
            ".hidden": {"SKILL.md": doc("hidden")},
            "notes.txt": b"text",
            "fifo": MemorySpecial(),
        }
    }
    operator = MemoryFileOperator(tree)
    scan = inspect(operator, [source("s", "/r")])
    assert [i.name for i in scan.items] == ["a", "home"]
    assert [(d.code, d.path) for d in scan.diagnostics] == [
        ("skill_entry_skipped", "/r/.hidden"),
        ("skill_entry_skipped", "/r/b"),
        ("skill_entry_skipped", "/r/fifo"),
        ("skill_entry_skipped", "/r/notes.txt"),
    ]
    assert "/r/fifo/SKILL.md" not in operator.opened
    assert "/r/.hidden/SKILL.md" not in operator.opened
    assert all(d.code in DIAGNOSTIC_CODES for d in scan.diagnostics)


def test_a_hidden_symbolic_link_is_skipped_like_a_hidden_directory() -> None:
    """`.x -> pkg` is hidden: skipped with a diagnostic, never a package, never opened."""
    tree = {
        "r": {
            "pkg": {"SKILL.md": doc("pkg")},
            ".x": MemorySymlink("pkg"),
            ".y": MemorySymlink("/store/other"),
        },
        "store": {"other": {"SKILL.md": doc("other")}},
    }
    operator = MemoryFileOperator(tree)
    scan = inspect(operator, [source("s", "/r")])
    assert [i.path for i in scan.items] == ["/r/pkg/SKILL.md"]
    assert [(d.code, d.path, d.message) for d in scan.diagnostics] == [
        ("skill_entry_skipped", "/r/.x", "hidden entry"),
        ("skill_entry_skipped", "/r/.y", "hidden entry"),
    ]
    assert operator.opened == ["/r/pkg/SKILL.md"] * 2


def test_a_hidden_symbolic_link_on_disk_is_skipped(tmp_path: Path) -> None:
    _write(tmp_path / "r/pkg/SKILL.md", doc("pkg"))
    _write(tmp_path / "store/other/SKILL.md", doc("other"))
    os.symlink("pkg", tmp_path / "r/.x")
    os.symlink("../store/other", tmp_path / "r/.y")
    scan = inspect(LocalFileOperator(tmp_path), [source("s", "/r")])
    assert [i.path for i in scan.items] == ["/r/pkg/SKILL.md"]
    assert [(d.code, d.path) for d in scan.diagnostics] == [
        ("skill_entry_skipped", "/r/.x"),
        ("skill_entry_skipped", "/r/.y"),
    ]


def test_entries_are_processed_in_name_order_not_listing_order() -> None:
    tree = {"r": {name: {"SKILL.md": doc("x" + name, "d" * 1100)} for name in ("c", "a", "b")}}
    plain = inspect(tree, [source("s", "/r")])
    reversed_listing = inspect(
        ShuffledCompletionOperator(MemoryFileOperator(tree), [0]), [source("s", "/r")]
    )
    assert plain == reversed_listing
    assert [d.path for d in plain.diagnostics][::2] == [
        "/r/a/SKILL.md",
        "/r/b/SKILL.md",
        "/r/c/SKILL.md",
    ]


class _ListingOperator(MemoryFileOperator):
    def __init__(self, entries: list[object]) -> None:
        super().__init__({"r": {}})
        self.entries = entries

    async def list_directory(self, path: str) -> Sequence[DirectoryEntry]:
        return self.entries  # type: ignore[return-value]


@pytest.mark.parametrize(
    "entries",
    [
        [DirectoryEntry("..", "directory")],
        [DirectoryEntry("a/b", "directory")],
        [DirectoryEntry("", "directory")],
        [DirectoryEntry("a\x00", "directory")],
        [DirectoryEntry("a", "directory"), DirectoryEntry("a", "directory")],
        [DirectoryEntry("a", "socket")],  # type: ignore[arg-type]
        ["not an entry"],
    ],
)
def test_impossible_listings_are_provider_failures(entries: list[object]) -> None:
    assert code_of(_ListingOperator(entries), [source("s", "/r")]) == "skill_provider_failed"


def test_names_with_newlines_and_lone_surrogates() -> None:
    tree = {"r": {"a\nb": {"SKILL.md": doc("a-b")}, "bad\udcff": {"SKILL.md": doc("bad")}}}
    scan = inspect(tree, [source("s", "/r")])
    assert [(i.name, i.path) for i in scan.items] == [("a-b", "/r/a\nb/SKILL.md")]
    assert [d.code for d in scan.diagnostics] == ["skill_name_mismatch", "skill_entry_skipped"]


def test_reads_are_bounded_by_the_frontmatter_limit() -> None:
    limits = FrontmatterLimits()
    assert read_limit(limits) == limits.max_bytes + 4096
    seen: list[int] = []

    class Recording(MemoryFileOperator):
        async def read_bytes(self, path: str, limit: int) -> bytes:
            seen.append(limit)
            return await super().read_bytes(path, limit)

    huge = doc("big") + b"x" * (10 * read_limit(limits))
    scan = inspect(Recording({"r": {"big": {"SKILL.md": huge}}}), [source("s", "/r")])
    assert [i.name for i in scan.items] == ["big"]
    assert seen == [read_limit(limits)] * 2


def test_truncated_read_cuts_a_padded_fence_line_instead_of_trusting_it() -> None:
    """A fence-looking line cut by the read bound is never taken for the closing fence."""
    limit = read_limit(FrontmatterLimits())
    head = b"---\nname: padded\ndescription: d\n"
    padded = head + b"---" + b" " * limit + b"x\nname: evil\n---\n"
    tree = {"r": {"padded": {"SKILL.md": padded}}}
    with pytest.raises(DefinitionError) as caught:
        inspect(tree, [source("s", "/r")])
    assert caught.value.reason in {"unterminated", "too_large"}


class _Flipping(MemoryFileOperator):
    """Returns different bytes on the second and later reads of one file (``change`` of them)."""

    def __init__(
        self,
        tree: Mapping[str, object],
        victim: str,
        change: Callable[[bytes], bytes] = lambda data: data + b"changed",
    ) -> None:
        super().__init__(tree)
        self.victim = victim
        self.change = change
        self.count = 0

    async def read_bytes(self, path: str, limit: int) -> bytes:
        data = await super().read_bytes(path, limit)
        if path == self.victim:
            self.count += 1
            if self.count > 1:
                return self.change(data)
        return data


def test_a_document_changed_after_parsing_fails_the_scan() -> None:
    tree = {"r": {"x": {"SKILL.md": doc("x")}, "y": {"SKILL.md": doc("y")}}}
    operator = _Flipping(tree, "/r/y/SKILL.md")
    with pytest.raises(DefinitionError) as caught:
        inspect(operator, [source("s", "/r")])
    assert (caught.value.code, caught.value.path) == ("skill_document_changed", "/r/y/SKILL.md")


def _last_byte_flipped(data: bytes) -> bytes:
    """The same number of bytes, the last one changed."""
    return data[:-1] + bytes([data[-1] ^ 1])


@pytest.mark.parametrize("body", [b"", b"A body.\n" * 4_000])
def test_a_same_size_change_before_the_re_read_fails_the_scan(body: bytes) -> None:
    """The re-read is compared with what was parsed through a digest of those bytes (a
    resolved skill keeps the digest, not the bytes): one byte changed, the length kept, at the
    end of what was read (a document within the first read, and one past it), fails the scan."""
    tree = {"r": {"x": {"SKILL.md": doc("x")}, "y": {"SKILL.md": doc("y") + body}}}
    operator = _Flipping(tree, "/r/y/SKILL.md", _last_byte_flipped)
    with pytest.raises(DefinitionError) as caught:
        inspect(operator, [source("s", "/r")])
    assert (caught.value.code, caught.value.path) == ("skill_document_changed", "/r/y/SKILL.md")
    assert operator.count == 2


def test_the_final_re_read_holds_a_page_of_documents_at_a_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Past a page of resolved skills the re-read goes page by page, like the first reads:
    what it holds at once is bounded by the page, not by the catalog (1,100 skills here)."""
    asked: list[int] = []
    read_all = pool_module.read_all

    async def recording(files: FileOperator, paths: Sequence[str], limit: int, **kw: object):  # type: ignore[no-untyped-def]
        asked.append(len(paths))
        return await read_all(files, paths, limit, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(discovery_module, "read_all", recording)
    count = discovery_module.PAGE + 76
    scan = inspect({"r": packages("s", count)}, [source("s", "/r")], SkillsPolicy.checkout())
    assert len(scan.items) == count
    assert max(asked) <= discovery_module.PAGE, asked
    assert sum(asked) == 2 * count, asked  # each document read once, then once again


def test_a_resolved_skill_keeps_a_digest_not_the_bytes() -> None:
    """What discovery keeps of each resolved skill's document until the re-read is 32 bytes,
    whatever the document's size (the catalog aside)."""
    big = doc("big") + b"A body line.\n" * 2_000
    tree = {"r": {"big": {"SKILL.md": big}}}
    found = asyncio.run(
        discovery_module.discover(
            [source("s", "/r")], SkillsPolicy(), (), lambda _: MemoryFileOperator(tree)
        )
    )
    (skill,) = found.skills
    kept = [getattr(skill, slot) for slot in type(skill).__slots__]
    held = [value for value in kept if isinstance(value, bytes | bytearray | memoryview)]
    assert [len(value) for value in held] == [32], kept
    assert held[0] == discovery_module.document_digest(big[: read_limit(FrontmatterLimits())])


def test_host_operator_exceptions_become_provider_failures() -> None:
    class Exploding(MemoryFileOperator):
        async def read_bytes(self, path: str, limit: int) -> bytes:
            raise OSError("disk on fire")

    tree = {"r": {"x": {"SKILL.md": doc("x")}}}
    assert code_of(Exploding(tree), [source("s", "/r")]) == "skill_provider_failed"


# --- canonical roots -----------------------------------------------------------------------------

_CANONICAL = re.compile(r"/|(/[^/\x00]+)+")


def _oracle_canonical(root: str) -> bool:
    if not _CANONICAL.fullmatch(root):
        return False
    if any(segment in (".", "..") for segment in root.split("/")):
        return False
    try:
        root.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@pytest.mark.parametrize(
    "root",
    ["", "a", "a/b", "//", "/a/", "/a//b", "/./a", "/a/.", "/a/../b", "/..", "/a\x00b", "/\udc80"],
)
def test_non_canonical_roots_are_refused(root: str) -> None:
    with pytest.raises(DefinitionError) as caught:
        FileSkillSource("s", (root,))
    assert caught.value.code == "skill_root_invalid"


@pytest.mark.parametrize("root", ["/", "/a", "/.agents/skills", "/a b/c\nd", "/...", "/a\\b"])
def test_canonical_roots_are_accepted(root: str) -> None:
    assert FileSkillSource("s", (root,)).roots == (root,)


@given(st.text(alphabet="/.a\x00b", max_size=12))
def test_root_validation_matches_the_grammar(root: str) -> None:
    if _oracle_canonical(root):
        assert FileSkillSource("s", (root,)).roots == (root,)
    else:
        with pytest.raises(DefinitionError) as caught:
            FileSkillSource("s", (root,))
        assert caught.value.code == "skill_root_invalid"


def test_source_configuration_errors() -> None:
    for bad in ("/a", ["/a", "/a"]):
        with pytest.raises(DefinitionError):
            FileSkillSource("s", bad)  # type: ignore[arg-type]
    with pytest.raises(DefinitionError):
        FileSkillSource("a/b", ("/a",))
    with pytest.raises(DefinitionError):
        SkillManager([FileSkillSource("s", ("/a",)), FileSkillSource("s", ("/b",))])
    with pytest.raises(DefinitionError):
        SkillsPolicy(conflict="first")  # type: ignore[arg-type]
    with pytest.raises(DefinitionError):
        SkillsPolicy(max_skills=True)


def test_manager_roots_and_default() -> None:
    manager = SkillManager.default(
        (FileSkillSource("org", ("/environment/shared/skills", "/workspace/.agents/skills")),)
    )
    assert manager.roots == ("/workspace/.agents/skills", "/environment/shared/skills")
    assert [s.source_id for s in manager.sources] == ["workspace", "org"]
    assert manager.sources[0].required is False


# --- the local operator: symlinks, FIFOs, huge files ---


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def local_scan(base: Path, *roots: str) -> SkillScan:
    return inspect(LocalFileOperator(base), [source("s", *roots)])


def local_code(base: Path, *roots: str) -> str:
    return code_of(LocalFileOperator(base), [source("s", *roots)])


def test_symlinked_package_inside_the_root_is_followed(tmp_path: Path) -> None:
    _write(tmp_path / "ws/store/real/SKILL.md", doc("real"))
    _write(tmp_path / "ws/store/other/SKILL.md", doc("other"))
    (tmp_path / "ws/skills").mkdir()
    os.symlink("../store/real", tmp_path / "ws/skills/real")
    os.symlink(str(tmp_path / "ws/store/other"), tmp_path / "ws/skills/other")
    scan = local_scan(tmp_path / "ws", "/skills")
    assert [i.path for i in scan.items] == ["/skills/other/SKILL.md", "/skills/real/SKILL.md"]
    assert scan.diagnostics == ()


def test_symlink_to_a_directory_outside_is_denied(tmp_path: Path) -> None:
    _write(tmp_path / "outside/evil/SKILL.md", doc("evil"))
    (tmp_path / "ws/skills").mkdir(parents=True)
    os.symlink(str(tmp_path / "outside/evil"), tmp_path / "ws/skills/evil")
    assert local_code(tmp_path / "ws", "/skills") == "skill_permission_denied"
    os.remove(tmp_path / "ws/skills/evil")
    os.symlink("../../outside/evil", tmp_path / "ws/skills/evil")
    assert local_code(tmp_path / "ws", "/skills") == "skill_permission_denied"


def test_symlinked_skill_document_outside_is_denied(tmp_path: Path) -> None:
    _write(tmp_path / "outside/SKILL.md", doc("evil"))
    (tmp_path / "ws/skills/evil").mkdir(parents=True)
    os.symlink(str(tmp_path / "outside/SKILL.md"), tmp_path / "ws/skills/evil/SKILL.md")
    assert local_code(tmp_path / "ws", "/skills") == "skill_permission_denied"


def test_symlink_to_a_missing_outside_path_is_denied_not_reported_missing(tmp_path: Path) -> None:
    (tmp_path / "ws/skills/probe").mkdir(parents=True)
    os.symlink("/nonexistent/secret", tmp_path / "ws/skills/probe/SKILL.md")
    assert local_code(tmp_path / "ws", "/skills") == "skill_permission_denied"


def test_root_itself_linked_outside_is_denied(tmp_path: Path) -> None:
    _write(tmp_path / "outside/x/SKILL.md", doc("x"))
    (tmp_path / "ws").mkdir()
    os.symlink(str(tmp_path / "outside"), tmp_path / "ws/skills")
    assert local_code(tmp_path / "ws", "/skills") == "skill_permission_denied"


def test_symlink_loop_is_a_skip_not_a_hang(tmp_path: Path) -> None:
    (tmp_path / "ws/skills").mkdir(parents=True)
    os.symlink("loop-b", tmp_path / "ws/skills/loop-a")
    os.symlink("loop-a", tmp_path / "ws/skills/loop-b")
    _write(tmp_path / "ws/skills/ok/SKILL.md", doc("ok"))
    scan = local_scan(tmp_path / "ws", "/skills")
    assert [i.name for i in scan.items] == ["ok"]
    assert [(d.code, d.path) for d in scan.diagnostics] == [
        ("skill_entry_skipped", "/skills/loop-a"),
        ("skill_entry_skipped", "/skills/loop-b"),
    ]


def test_fifo_is_never_opened(tmp_path: Path) -> None:
    """A FIFO named SKILL.md (or listed as an entry) is never opened: opening one for reading
    blocks until a writer comes. A writer thread waits on it; its open returns only when a
    reader opens the FIFO, so it records whether the scan did (no clock is read)."""
    (tmp_path / "ws/skills/piped").mkdir(parents=True)
    fifo = tmp_path / "ws/skills/piped/SKILL.md"
    os.mkfifo(fifo)
    os.mkfifo(tmp_path / "ws/skills/pipe")
    scanning = threading.Event()
    opened_during_scan: list[bool] = []

    def writer() -> None:
        descriptor = os.open(fifo, os.O_WRONLY)  # returns when a reader opens the FIFO
        opened_during_scan.append(scanning.is_set())
        os.close(descriptor)

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    scanning.set()
    try:
        scan = local_scan(tmp_path / "ws", "/skills")
    finally:
        scanning.clear()
        # Release the writer: this open, not the scan's, is the one it should see.
        reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        try:
            join_bounded(thread, cpu_seconds=60, what="the FIFO's writer")
        finally:
            os.close(reader)
    assert opened_during_scan == [False], "the scan opened the FIFO"
    assert scan.items == ()
    assert [(d.code, d.path) for d in scan.diagnostics] == [
        ("skill_entry_skipped", "/skills/pipe"),
        ("skill_entry_skipped", "/skills/piped"),
    ]


class _SwapsForAFifo(LocalFileOperator):
    """Replaces one SKILL.md with a FIFO once the first pass has read it, before the re-read."""

    __slots__ = ("victim",)

    def __init__(self, root: Path, victim: Path) -> None:
        super().__init__(root)
        self.victim = victim

    async def read_many(
        self, paths: Sequence[str], limit: int
    ) -> Sequence[bytes | FileOperatorError]:
        results = await super().read_many(paths, limit)
        os.unlink(self.victim)
        os.mkfifo(self.victim)
        return results


def test_a_document_swapped_for_a_fifo_before_the_re_read_fails_the_scan_without_waiting(
    tmp_path: Path,
) -> None:
    """The final re-read opens a path it has just read in one confined, non-blocking call
    (docs/security.md): a FIFO swapped in meanwhile is refused as a change, never waited on."""
    for name in ("a", "b"):
        _write(tmp_path / f"ws/skills/{name}/SKILL.md", doc(name))
    operator = _SwapsForAFifo(tmp_path / "ws", tmp_path / "ws/skills/b/SKILL.md")
    codes: list[str] = []
    worker = threading.Thread(
        target=lambda: codes.append(code_of(operator, [source("s", "/skills")])), daemon=True
    )
    worker.start()
    join_bounded(worker, cpu_seconds=60, what="the scan of a swapped FIFO")
    assert codes == ["skill_document_changed"]


class _CountingOperator(LocalFileOperator):
    """A local operator that counts its listings and the files it is asked to read."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.listings = 0
        self.reads = 0

    async def list_directory(self, path: str) -> Sequence[DirectoryEntry]:
        self.listings += 1
        return await super().list_directory(path)

    async def read_bytes(self, path: str, limit: int) -> bytes:
        self.reads += 1
        return await super().read_bytes(path, limit)

    async def read_many(
        self, paths: Sequence[str], limit: int
    ) -> Sequence[bytes | FileOperatorError]:
        self.reads += len(paths)
        return await super().read_many(paths, limit)


# --- a scan through the local operator: one job on one file thread ---


class _HopByHop(LocalFileOperator):
    """The local operator as any other operator is driven: a subclass, so a scan through it
    takes one thread hop per listing and per batch of reads instead of running in place."""


def _mixed_workspace(base: Path) -> None:
    """Good packages in two roots, one overridden, and an entry of every kind a checkout
    scan skips: bad frontmatter, a folder without SKILL.md, a FIFO named SKILL.md, a
    link leaving the workspace, a link loop, a hidden folder."""
    for name in ("alpha", "beta", "gamma"):
        _write(base / f"ws/.agents/skills/{name}/SKILL.md", doc(name, f"Use {name}."))
    _write(base / "ws/.claude/skills/beta/SKILL.md", doc("beta", "The other beta."))
    _write(base / "ws/.claude/skills/delta/SKILL.md", doc("delta"))
    _write(base / "ws/.claude/skills/broken/SKILL.md", b"---\nname: [unclosed\n---\n")
    (base / "ws/.claude/skills/empty").mkdir(parents=True)
    (base / "ws/.claude/skills/pipe").mkdir()
    os.mkfifo(base / "ws/.claude/skills/pipe/SKILL.md")
    _write(base / "outside/evil/SKILL.md", doc("evil"))
    os.symlink(str(base / "outside/evil"), base / "ws/.claude/skills/evil")
    os.symlink("loop-b", base / "ws/.claude/skills/loop-a")
    os.symlink("loop-a", base / "ws/.claude/skills/loop-b")
    _write(base / "ws/.claude/skills/.hidden/SKILL.md", doc("hidden"))


def _outcome(files: LocalFileOperator, policy: SkillsPolicy) -> object:
    sources = [source("a", "/.agents/skills"), source("c", "/.claude/skills")]
    try:
        return inspect(files, sources, policy)
    except DefinitionError as error:
        return (error.code, error.message, error.path)


@pytest.mark.parametrize(
    "policy",
    [SkillsPolicy(), SkillsPolicy(invalid="skip"), SkillsPolicy.checkout()],
    ids=["strict", "strict-skip", "checkout"],
)
def test_a_scan_in_place_gives_what_a_scan_hop_by_hop_gives(
    tmp_path: Path, policy: SkillsPolicy
) -> None:
    """``SkillManager.inspect`` through a ``LocalFileOperator`` runs as one job on a file
    thread (``run_in_place``); through a subclass, call by call. Items, diagnostics (in
    order) and errors are the same on a workspace holding every kind of bad entry."""
    _mixed_workspace(tmp_path)
    with LocalFileOperator(tmp_path / "ws") as in_place, _HopByHop(tmp_path / "ws") as hops:
        expected = _outcome(hops, policy)
        assert _outcome(in_place, policy) == expected
    if isinstance(expected, SkillScan):  # the comparison is not between two empty scans
        assert len(expected.items) >= 4
        assert len(expected.diagnostics) >= 4


def test_a_direct_scan_through_the_local_operator_is_one_thread_hop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two roots of a direct scan, their listings, reads and the final re-read: one job
    sent to the file threads, where a subclass of the operator sends one per call."""
    for root in (".agents", ".claude"):
        for name in ("one", "two", "three"):
            package = f"{root[1:]}-{name}"
            _write(tmp_path / f"ws/{root}/skills/{package}/SKILL.md", doc(package))
    sent: list[object] = []
    original = local_module._off_the_loop

    async def counting(function: object, *arguments: object, **options: object) -> object:
        sent.append(function)
        return await original(function, *arguments, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(local_module, "_off_the_loop", counting)
    sources = [source("s", "/.agents/skills", "/.claude/skills")]
    with LocalFileOperator(tmp_path / "ws") as files:
        assert len(inspect(files, sources).items) == 6
    assert len(sent) == 1
    sent.clear()
    with _HopByHop(tmp_path / "ws") as files:
        assert len(inspect(files, sources).items) == 6
    assert len(sent) == 5  # two listings, two batches of reads, one re-read


def test_a_cancelled_scan_in_place_makes_no_call_after_the_cancel_and_is_joined(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cancelling a scan that runs in place marks its job: the call in flight finishes,
    the next one fails, and the caller returns only after the thread is done."""
    for name in ("a", "b", "c"):
        _write(tmp_path / f"ws/skills/{name}/SKILL.md", doc(name))
    started = threading.Event()
    release = threading.Event()
    calls: list[int] = []
    finished: list[int] = []
    original = LocalFileOperator._call

    def call(self: LocalFileOperator, operation: object) -> object:
        calls.append(1)
        if len(calls) == 1:
            started.set()
            assert not wait_bounded(release.wait, cpu_seconds=30), "never released"
        try:
            return original(self, operation)  # type: ignore[arg-type]
        finally:
            finished.append(1)

    monkeypatch.setattr(LocalFileOperator, "_call", call)
    manager = SkillManager([source("s", "/skills")])

    async def cancel_while_listing() -> int:
        task = asyncio.ensure_future(manager.scan(files=files))
        # A scan that never lists fails here (its CPU spent, or no progress).
        await until(lambda: started.is_set() or task.done(), cpu_seconds=30, what="the listing")
        assert started.is_set(), "the scan never listed its root"
        task.cancel()
        for _ in range(3):
            await asyncio.sleep(0)  # the task takes the cancel: the job is marked
        release.set()
        with pytest.raises(asyncio.CancelledError):
            await task
        return len(finished)

    with LocalFileOperator(tmp_path / "ws") as files:
        assert asyncio.run(cancel_while_listing()) == 1  # joined: the listing had finished
    assert len(calls) == 1  # nothing was listed or read after the cancel


def test_a_rescan_reuses_an_item_only_for_the_same_verdict_source_and_root(tmp_path: Path) -> None:
    """Discovery hands a rescan the catalog item it built for the same verdict, document,
    source and root; the same document scanned under another source id, or as the root's
    own package rather than a child's, or with other bytes, gets its own item."""
    _write(tmp_path / "ws/skills/one/SKILL.md", doc("one", "First words."))
    with LocalFileOperator(tmp_path / "ws") as files:
        first = inspect(files, [source("a", "/skills")]).items
        assert inspect(files, [source("a", "/skills")]).items[0] is first[0]
        (other_source,) = inspect(files, [source("b", "/skills")]).items
        assert (other_source.source_id, other_source.root) == ("b", "/skills")
        (as_root,) = inspect(files, [source("b", "/skills/one")]).items
        assert (as_root.source_id, as_root.root) == ("b", "/skills/one")
        _write(tmp_path / "ws/skills/one/SKILL.md", doc("one", "Other words."))
        (changed,) = inspect(files, [source("b", "/skills/one")]).items
        assert changed.description == "Other words."
    assert first[0].description == "First words."
    assert first[0].source_id == "a"


def test_huge_skill_document_is_read_bounded(tmp_path: Path) -> None:
    """A 1 GiB SKILL.md costs what its frontmatter costs: the memory the scan allocates
    (tracemalloc's peak) stays far below the file."""
    path = tmp_path / "ws/skills/huge/SKILL.md"
    _write(path, doc("huge"))
    with open(path, "r+b") as handle:
        handle.truncate(1 << 30)  # sparse: 1 GiB of NULs after the frontmatter
    operator = _CountingOperator(tmp_path / "ws")
    tracemalloc.start()
    try:
        scan = inspect(operator, [source("s", "/skills")])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [i.name for i in scan.items] == ["huge"]
    assert peak < 64 << 20, peak


def test_thousands_of_entries_fail_fast(tmp_path: Path) -> None:
    """A root listing more entries than the cap is refused from its one listing: no entry
    is looked into, no file read."""
    skills = tmp_path / "ws/skills"
    skills.mkdir(parents=True)
    for index in range(3000):
        (skills / f"e{index}").touch()
    operator = _CountingOperator(tmp_path / "ws")
    assert code_of(operator, [source("s", "/skills")]) == "skill_root_overflow"
    assert (operator.listings, operator.reads) == (1, 0)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every file")
def test_unreadable_skill_document_is_permission_denied(tmp_path: Path) -> None:
    path = tmp_path / "ws/skills/locked/SKILL.md"
    _write(path, doc("locked"))
    path.chmod(0)
    assert local_code(tmp_path / "ws", "/skills") == "skill_permission_denied"


def test_local_and_memory_operators_agree(tmp_path: Path) -> None:
    tree = {
        "SKILL.md": doc("home"),
        "a": {"SKILL.md": doc("a")},
        "b": {"SKILL.md": doc("bee", "x" * 1500)},
        "c": {"README.md": b"nothing"},
        ".git": {"SKILL.md": doc("git")},
        "file.txt": b"x",
        "bad": {"SKILL.md": b"---\nname: ok\n"},
    }
    for name, node in tree.items():
        if isinstance(node, bytes):
            _write(tmp_path / "skills" / name, node)
        else:
            assert isinstance(node, dict)
            for child, data in node.items():
                _write(tmp_path / "skills" / name / child, data)
    policy = SkillsPolicy(invalid="skip")
    local = inspect(LocalFileOperator(tmp_path), [source("s", "/skills")], policy)
    memory = inspect({"skills": tree}, [source("s", "/skills")], policy)
    assert local.items == memory.items
    assert [(d.code, d.path) for d in local.diagnostics] == [
        (d.code, d.path) for d in memory.diagnostics
    ]
