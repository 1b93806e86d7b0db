"""The held-out defect families, closed as families: each rule tested where it can fail.

Written from the contract, not from ``mutants/``: a held-out audit killed 73 of 81 defects,
and the eight survivors had one thing in common, a rule tested only where it cannot fail.
Each section here draws the inputs where it can:

* the ``openat2`` fast path and the lexical walk on trees whose links are crossed by ``..``
  (the only trees where a kernel that follows links would read another file);
* bounded reads split at every byte offset around a fence line, ``CR LF`` included;
* the verdict memo asked again with every field of ``FrontmatterLimits`` changed;
* near misses of every exact-match rule, generated from the rule tables (field names spelled
  with ``_`` for ``-``, another case, one character more or less; ``SKILL.md``'s spelling);
* per-input rules (``no_skills_found``) with several inputs, one of them failing;
* output details: SARIF's base URI ends in ``/``; a stderr whose writes fail (``/dev/full``)
  changes nothing else;
* the git allow-list: a carried-over or checkout configuration key never changes git's answer.

Public APIs only (the operators, ``SkillManager``, ``parse_skill_document``, ``check_document``,
the command line, ``collect_git_status``), so the tests outlive refactors.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from a13n_harness.capabilities import FENCE_SLACK, FileSkillSource, SkillManager, SkillsPolicy
from a13n_harness.context.catalog import CatalogEntry, SkillCatalog
from a13n_harness.context.errors import FrontmatterError
from a13n_harness.context.frontmatter import FrontmatterLimits, parse_skill_document
from a13n_harness.context.lint import PLATFORM_FIELDS, PROFILES, SPEC_FIELDS, check_document
from a13n_harness.context.render import render_catalog
from a13n_harness.context.tokens import render_catalog_counted
from a13n_harness.environment import LocalFileOperator, MemoryFileOperator
from a13n_harness.environment.local import BlockingLocalFileOperator
from a13n_harness.testing.discovery_strategies import skill_document
from a13n_harness.testing.operator_trees import Tree, answers, on_disk
from bounded import run_bounded
from cli_run import cli_environment, command, run_here

# --- the openat2 fast path and the lexical walk where links are crossed by ".." -------------------

# A skeleton where ".." after a link differs from ".." after a directory: d/l is a link into
# x/y, so "d/l/.." is /d lexically and /x physically; every level holds a different "f".
_SKELETON: Tree = {
    "f": b"root",
    "d": {"f": b"d", "l": ("link", "../x/y", False), "e": {"f": b"d/e"}},
    "x": {"f": b"x", "y": {"f": b"x/y", "z": {"f": b"x/y/z"}}},
    "m": ("link", "x/y/z", False),
}
_CROSSING = ("d", "l", "m", "x", "y", "z", "e", "f", "..", "..", ".")


@st.composite
def crossing_trees(draw: st.DrawFn) -> Tree:
    inner_dir = _SKELETON["d"]
    assert isinstance(inner_dir, dict)
    d: Tree = dict(inner_dir)
    tree: Tree = {**_SKELETON, "d": d}
    for name in draw(st.lists(st.sampled_from(("a", "b", "c")), unique=True, min_size=1)):
        parts = draw(st.lists(st.sampled_from(_CROSSING), min_size=2, max_size=6))
        tree[name] = ("link", "/".join(parts), False)
    inner = draw(st.lists(st.sampled_from(_CROSSING), min_size=2, max_size=5))
    d["k"] = ("link", "/".join(inner), False)
    return tree


def _probes(tree: Tree) -> tuple[str, ...]:
    paths = []
    for name in sorted(tree):
        paths.append(f"/{name}")
        for below in ("f", "k", "l", "y", "z", "y/f", "z/f", "l/f", "k/f"):
            paths.append(f"/{name}/{below}")
    return tuple(paths)


def _three_answers(tree: Tree) -> tuple[list[object], list[object], list[object]]:
    from a13n_harness.testing.operator_trees import memory_tree  # noqa: PLC0415

    probes = _probes(tree)
    with on_disk(tree) as root:
        with LocalFileOperator(root) as fast:  # openat2 first, the walk when it declines
            kernel = asyncio.run(answers(fast, probes))
        with BlockingLocalFileOperator(root) as walk:  # the confinement walk alone
            lexical = asyncio.run(answers(walk, probes))
    model = asyncio.run(answers(MemoryFileOperator(memory_tree(tree)), probes))
    return kernel, lexical, model


@settings(max_examples=40, deadline=None)
@given(crossing_trees())
@example({**_SKELETON, "a": ("link", "d/l/../f", False)})
@example({**_SKELETON, "a": ("link", "m/../../f", False)})
def test_fast_path_and_walk_agree_where_links_are_crossed_by_dotdot(tree: Tree) -> None:
    kernel, lexical, model = _three_answers(tree)
    assert kernel == lexical
    assert lexical == model


def test_the_crossing_skeleton_really_crosses_a_link() -> None:
    """Negative control of the family: on the skeleton a physical resolution reads another
    file than the lexical one, so a fast path that follows links would be seen."""
    with on_disk({**_SKELETON, "a": ("link", "d/l/../f", False)}) as root:
        physical = (root / "a").read_bytes()  # the kernel follows d/l, then ".."
        with BlockingLocalFileOperator(root) as walk:
            lexical = asyncio.run(walk.read_bytes("/a", 64))
    assert (physical, lexical) == (b"x", b"d")


# --- bounded reads split at every byte offset around a fence line ---------------------------------

_LIMITS = FrontmatterLimits(max_bytes=256)
_FIRST_READ = _LIMITS.max_bytes + FENCE_SLACK


def _verdict(data: bytes) -> object:
    try:
        front = parse_skill_document(data, _LIMITS)
    except FrontmatterError as error:
        return ("refused", error.reason, error.line, error.column)
    return ("ok", front.name, front.description)


def _discovered(data: bytes) -> object:
    files = MemoryFileOperator({"skills": {"s": {"SKILL.md": data}}})
    manager = SkillManager(
        (FileSkillSource("p", ("/skills",)),),
        policy=SkillsPolicy(invalid="skip", frontmatter=_LIMITS),
    )
    scan = asyncio.run(manager.inspect(files=files))
    if scan.items:
        (item,) = scan.items
        return ("ok", item.name, item.description)
    (diagnostic,) = [d for d in scan.diagnostics if d.code == "skill_frontmatter_skipped"]
    return ("refused", diagnostic.reason, diagnostic.line, diagnostic.column)


def _fence_shapes() -> list[tuple[str, bytes]]:
    """Documents whose opening or closing fence line (padded with blanks) ends at every byte
    offset from 4 before to 4 after the end of a bounded read: the first one and the two
    longer reads that follow it (x4 each) while a padded fence line is undecided."""
    shapes = []
    for read, boundary in enumerate((_FIRST_READ, 4 * _FIRST_READ, 16 * _FIRST_READ)):
        for eol in (b"\n", b"\r\n", b"\r", b"x\n"):
            for shift in range(-4, 5):
                for fence in ("opening", "closing"):
                    head = b"---"
                    if fence == "opening":
                        blanks = boundary + shift - len(head)
                        rest = b"name: s\ndescription: d\n---\nbody\n"
                        data = head + b" " * blanks + eol + rest
                    else:
                        front = b"---\nname: s\ndescription: d\n"
                        blanks = boundary + shift - len(front) - len(head)
                        data = front + head + b" " * blanks + eol + b"body\n"
                    shapes.append((f"read{read}-{fence}-{eol!r}-{shift:+d}", data))
    return shapes


_SHAPES = _fence_shapes()


@pytest.mark.parametrize(("shape", "data"), _SHAPES, ids=[s for s, _ in _SHAPES])
def test_discovery_decides_every_fence_split_like_the_whole_file(shape: str, data: bytes) -> None:
    assert _discovered(data) == _verdict(data), shape


def test_the_fence_shapes_reach_both_verdicts() -> None:
    """Negative control: the shapes are not all one verdict (a parser that says "ok" or
    "unterminated" to everything would otherwise pass)."""
    kinds = {_verdict(data)[0] for _, data in _SHAPES}  # type: ignore[index]
    assert kinds == {"ok", "refused"}


# --- the verdict memo asked again with each limit changed -----------------------------------------


def _nested(depth: int) -> bytes:
    value = "v"
    for _ in range(depth):
        value = "{k: " + value + "}"
    return value.encode()


# For every FrontmatterLimits field: a document, and two limits that give it two verdicts.
_LIMIT_CASES = {
    "max_bytes": (
        skill_document("s", "x" * 300),
        FrontmatterLimits(),
        FrontmatterLimits(max_bytes=200),
    ),
    "max_depth": (
        b"---\nname: s\ndescription: d\nmetadata: " + _nested(6) + b"\n---\n",
        FrontmatterLimits(),
        FrontmatterLimits(max_depth=4),
    ),
    "max_nodes": (
        b"---\nname: s\ndescription: d\nmetadata: {"
        + b", ".join(b"k%d: v" % i for i in range(40))
        + b"}\n---\n",
        FrontmatterLimits(),
        FrontmatterLimits(max_nodes=30),
    ),
    "max_description_chars": (
        skill_document("s", "y" * 40),
        FrontmatterLimits(),
        FrontmatterLimits(max_description_chars=10),
    ),
}


def test_every_limit_field_has_a_case() -> None:
    import dataclasses  # noqa: PLC0415

    assert {f.name for f in dataclasses.fields(FrontmatterLimits)} == set(_LIMIT_CASES)


def _scan_with(data: bytes, limits: FrontmatterLimits) -> object:
    files = MemoryFileOperator({"skills": {"s": {"SKILL.md": data}}})
    manager = SkillManager(
        (FileSkillSource("p", ("/skills",)),),
        policy=SkillsPolicy(invalid="skip", frontmatter=limits),
    )
    scan = asyncio.run(manager.inspect(files=files))
    return (
        [(i.name, i.description, i.description_truncated) for i in scan.items],
        [
            (d.code, d.reason if d.code == "skill_frontmatter_skipped" else None)
            for d in scan.diagnostics
        ],
    )


def _fresh(data: bytes, limits: FrontmatterLimits) -> object:
    try:
        front = parse_skill_document(data, limits)
    except FrontmatterError as error:
        return ([], [("skill_frontmatter_skipped", error.reason)])
    diagnostics = [("skill_description_truncated", None)] if front.description_truncated else []
    return ([(front.name, front.description, front.description_truncated)], diagnostics)


@pytest.mark.parametrize("field", sorted(_LIMIT_CASES))
def test_the_verdict_memo_answers_each_limit_set_with_its_own_verdict(field: str) -> None:
    data, first, second = _LIMIT_CASES[field]
    assert _fresh(data, first) != _fresh(data, second)  # control: the limits matter here
    for order in ((first, second, first), (second, first, second)):
        for limits in order:  # the same bytes, scanned again under other limits
            assert _scan_with(data, limits) == _fresh(data, limits), (field, limits)


class _WordCounter:
    """Tokens = whitespace-separated words (line-additive, prefix-monotone, byte-bounded)."""

    line_additive = True
    prefix_monotone = True
    byte_bounded = True

    def count(self, text: str) -> int:
        return len(text.split())


class _DoubleBytes:
    """Tokens = twice the UTF-8 bytes."""

    line_additive = True
    prefix_monotone = True
    byte_bounded = True

    def count(self, text: str) -> int:
        return 2 * len(text.encode())


def _catalog() -> SkillCatalog:
    return SkillCatalog(
        tuple(
            CatalogEntry(f"s{i:02d}", "word " * (i + 1), f"/r/s{i:02d}/SKILL.md") for i in range(30)
        ),
        roots=("/r",),
    )


def test_a_catalog_rendered_again_under_other_parameters_renders_as_a_fresh_one() -> None:
    """A catalog keeps a render plan after its first render: rendering it again with another
    budget, in bytes or under another counter, gives what a fresh catalog gives."""
    kept = _catalog()
    for budget in (0, 50, 200, 400, 2_000):
        for counter in (_WordCounter(), _DoubleBytes(), _WordCounter()):
            again = render_catalog_counted(kept, budget, counter)
            assert again == render_catalog_counted(_catalog(), budget, counter)
        assert render_catalog(kept, budget) == render_catalog(_catalog(), budget)
    forms = {render_catalog(kept, b).form for b in (0, 200, 2_000)}
    assert len(forms) > 1  # control: the budgets reach different renderings


# --- near misses of every exact-match rule, from the rule tables ----------------------------------

_KNOWN = frozenset(SPEC_FIELDS) | {f for fields in PLATFORM_FIELDS.values() for f in fields}


def _near_misses(field: str) -> set[str]:
    misses = {
        field.replace("-", "_"),
        field.replace("_", "-"),
        field.upper(),
        field[:1].upper() + field[1:],
        field + "s",
        field[:-1],
        "x-" + field,
        field + "_",
    }
    return {m for m in misses if m and m not in _KNOWN}


def _document_with(field: str, value: str = '"x"') -> bytes:
    lines = ["---", "name: s", "description: d"]
    if field not in ("name", "description"):
        lines.append(f"{field}: {value}")
    return ("\n".join([*lines, "---", "Body."]) + "\n").encode()


def _rules(data: bytes, profile: str) -> set[str]:
    return {issue.rule for issue in check_document(data, "s", profile).issues}


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("field", sorted(_KNOWN))
def test_every_near_miss_of_a_field_name_is_an_unknown_field(field: str, profile: str) -> None:
    allowed = set(SPEC_FIELDS) | set(PLATFORM_FIELDS.get(profile, {}))
    exact = _rules(_document_with(field), profile)
    assert "skill_field_unknown" not in exact  # control: the exact spelling is known
    if field in allowed:
        assert "skill_field_not_portable" not in exact
    misses = _near_misses(field)
    assert misses
    for miss in sorted(misses):
        rules = _rules(_document_with(miss), profile)
        assert "skill_field_unknown" in rules, (field, miss, profile, rules)


@pytest.mark.parametrize("field", ["name", "description"])
def test_near_misses_of_the_required_keys_do_not_stand_in_for_them(field: str) -> None:
    """The catalog parser knows ``name`` and ``description`` by exact spelling only."""
    for miss in sorted(_near_misses(field) | {field.upper(), field.title()}):
        other = "description: d" if field == "name" else "name: s"
        data = f"---\n{other}\n{miss}: v\n---\n".encode()
        with pytest.raises(FrontmatterError) as caught:
            parse_skill_document(data)
        assert caught.value.reason == f"missing_{field}", miss


_NAME_ALPHABET = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-")
# What a near miss of a name puts in: characters that look or sort like the allowed ones.
_NAME_LOOKALIKES = ("_", "A", "-", ".", " ", "\u00e9", "\uff10", "\u2010", "\u0131", "\u212a")


def _name_is_valid(name: str) -> bool:
    """The specification's rule, written out independently of the parser's pattern."""
    return (
        1 <= len(name) <= 64
        and set(name) <= _NAME_ALPHABET
        and not name.startswith("-")
        and not name.endswith("-")
        and "--" not in name
    )


def _name_variants(name: str) -> set[str]:
    variants = set()
    for index in range(len(name) + 1):
        for char in _NAME_LOOKALIKES:
            variants.add(name[:index] + char + name[index:])  # one character more
            if index < len(name):
                variants.add(name[:index] + char + name[index + 1 :])  # one replaced
    return variants


@pytest.mark.parametrize("name", ["pdf-forms", "a", "x9", "a-b-c"])
def test_near_misses_of_a_valid_name_are_judged_by_the_rule(name: str) -> None:
    """Every one-character near miss of a valid name: the catalog parser and lint both accept
    it exactly when the rule does (``pdf_forms``, ``pdf-Forms``, ``pdf--forms`` are refused)."""
    assert _name_is_valid(name)
    refused = 0
    for variant in sorted(_name_variants(name)):
        data = ('---\nname: "' + variant + '"\ndescription: d\n---\n').encode()
        try:
            parse_skill_document(data)
            parsed = True
        except FrontmatterError as error:
            assert error.reason == "name_invalid", (variant, error.reason)
            parsed = False
        linted = "skill_name_invalid" not in _rules(data, "agentskills")
        assert parsed == linted == _name_is_valid(variant), variant
        refused += not parsed
    assert refused  # control: the variants include refused names


_DOCUMENT_MISSES = (
    "skill.md",
    "SKILL.MD",
    "Skill.md",
    "SKILL.md.bak",
    "SKILL.markdown",
    "_SKILL.md",
)


def test_near_misses_of_skill_md_are_not_packages() -> None:
    tree: dict[str, object] = {"good": {"SKILL.md": skill_document("good", "g")}}
    for index, miss in enumerate(_DOCUMENT_MISSES):
        tree[f"p{index}"] = {miss: skill_document(f"p{index}", "no")}
    tree["SKILL.MD"] = skill_document("root", "no")  # not the root's own package either
    files = MemoryFileOperator({"skills": tree})
    manager = SkillManager((FileSkillSource("p", ("/skills",)),))
    scan = asyncio.run(manager.inspect(files=files))
    assert [item.name for item in scan.items] == ["good"]
    skipped = {d.path for d in scan.diagnostics if d.code == "skill_entry_skipped"}
    assert {f"/skills/p{i}" for i in range(len(_DOCUMENT_MISSES))} <= skipped


# --- per-input rules with several inputs ----------------------------------------------------------


def test_no_skills_found_is_reported_for_each_path_that_has_none(tmp_path: Path) -> None:
    good = tmp_path / "good"
    document = good / ".agents/skills/good/SKILL.md"
    document.parent.mkdir(parents=True)
    document.write_bytes(skill_document("good", "Checks that lint reports each path."))
    empty_one, empty_two = tmp_path / "empty-one", tmp_path / "empty-two"
    empty_one.mkdir()
    empty_two.mkdir()
    for order in ((good, empty_one, empty_two), (empty_one, good, empty_two)):
        result = run_here("lint", *order, "--format", "json")
        assert result.returncode == 1, result.stderr
        findings = json.loads(result.stdout)["findings"]
        missing = sorted(f["path"] for f in findings if f["rule"] == "no_skills_found")
        assert missing == sorted([str(empty_one), str(empty_two)]), findings
    alone = run_here("lint", good, "--format", "json")  # control: the good path alone passes
    assert alone.returncode == 0, alone.stdout


_ROOT_STATES = ("present", "missing", "file", "empty")


@pytest.mark.parametrize(
    "states",
    [s for s in itertools.product(_ROOT_STATES, repeat=3) if len(set(s)) > 1],
    ids="-".join,
)
def test_each_optional_root_is_skipped_on_its_own(states: tuple[str, ...]) -> None:
    """required=False is per root: every missing or unusable root is skipped with its own
    diagnostic, wherever it stands among the others, and every other root is scanned."""
    tree: dict[str, object] = {}
    expected_items, expected_skips = [], []
    for index, state in enumerate(states):
        name = f"r{index}"
        if state == "present":
            tree[name] = {f"s{index}": {"SKILL.md": skill_document(f"s{index}", "d")}}
            expected_items.append(f"s{index}")
        elif state == "file":
            tree[name] = b"not a directory"
            expected_skips.append(f"/{name}")
        elif state == "empty":
            tree[name] = {}
        else:
            expected_skips.append(f"/{name}")
    roots = tuple(f"/r{index}" for index in range(len(states)))
    manager = SkillManager((FileSkillSource("p", roots, required=False),))
    scan = asyncio.run(manager.inspect(files=MemoryFileOperator(tree)))
    assert [item.name for item in scan.items] == expected_items
    skipped = [d.path for d in scan.diagnostics if d.code == "skill_root_skipped"]
    assert skipped == expected_skips


# --- output details outside the main results ------------------------------------------------------


def _workspace(base: Path) -> Path:
    """A workspace with one valid skill and one with a finding (a name unlike its folder)."""
    for folder, name in (("good", "good"), ("odd", "other-name")):
        document = base / f".agents/skills/{folder}/SKILL.md"
        document.parent.mkdir(parents=True)
        document.write_bytes(skill_document(name, "Checks output details."))
    return base


def test_the_sarif_base_uri_ends_with_a_slash(tmp_path: Path) -> None:
    workspace = _workspace(tmp_path / "ws")
    for cwd in (workspace, workspace / ".agents", Path("/")):
        result = run_here("lint", workspace, "--format", "sarif", cwd=cwd)
        run = json.loads(result.stdout)["runs"][0]
        assert run["results"]  # control: there is a result whose uri the base resolves
        base = run["originalUriBaseIds"]["%SRCROOT%"]["uri"]
        assert base.startswith("file:///"), base
        assert base.endswith("/"), base


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("command_line", ["catalog", "lint-missing", "usage"])
def test_a_stderr_whose_writes_fail_changes_nothing_else(tmp_path: Path, command_line: str) -> None:
    """stderr is best effort: with writes failing (ENOSPC, not a closed descriptor) the exit
    status and stdout are what they are with a working stderr."""
    workspace = _workspace(tmp_path / "ws")
    args = {
        "catalog": ("catalog", str(workspace)),
        "lint-missing": ("lint", str(workspace / "nope")),
        "usage": ("catalog", str(workspace), "--budget-bytes", "x"),
    }[command_line]
    normal = run_bounded(
        [*command(), *args], cpu_seconds=60, capture_output=True, env=cli_environment()
    )
    with open("/dev/full", "wb") as full:
        failing = run_bounded(
            [*command(), *args],
            cpu_seconds=60,
            stdout=subprocess.PIPE,
            stderr=full,
            env=cli_environment(),
        )
    assert normal.stderr  # control: these commands do write to stderr
    assert (failing.returncode, failing.stdout) == (normal.returncode, normal.stdout)


# --- the git allow-list: nothing in the checkout's configuration changes git's answer -------------

_GIT = shutil.which("git")

# Keys a checkout could set that change which files `git status` reports as untracked, plus
# the carried-over file-system flags set to values that would (ignorecase, untracked cache).
_ANSWER_CHANGING = (
    ("status", "showUntrackedFiles", "no"),
    ("status", "showUntrackedFiles", "all"),
    ("core", "excludesFile", "EXCLUDES"),
    ("core", "ignoreCase", "true"),
    ("core", "untrackedCache", "true"),
    ("core", "sparseCheckout", "true"),
    ("status", "submoduleSummary", "true"),
)


def _git(cwd: Path, *args: str) -> None:
    run_bounded(
        [_GIT or "git", *args],
        cpu_seconds=60,
        cwd=cwd,
        check=True,
        capture_output=True,
        env=cli_environment(),
    )


@pytest.mark.skipif(_GIT is None, reason="needs git")
@pytest.mark.parametrize(("section", "key", "value"), _ANSWER_CHANGING)
def test_no_checkout_key_changes_the_untracked_count(
    tmp_path: Path, section: str, key: str, value: str
) -> None:
    from a13n_harness.environment.facts import collect_git_status  # noqa: PLC0415

    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    _git(
        repo,
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@t",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "i",
    )
    (repo / "dir").mkdir()
    for name in ("one.txt", "Two.txt", "dir/three.txt", "dir/four.txt"):
        (repo / name).write_text(name)
    (tmp_path / "EXCLUDES").write_text("*.txt\n")
    baseline = collect_git_status(repo)
    assert baseline is not None
    assert baseline.untracked == 3  # one.txt, Two.txt and dir/ (git's default "normal")
    setting = str(tmp_path / "EXCLUDES") if value == "EXCLUDES" else value
    _git(repo, "config", f"{section}.{key}", setting)
    after = collect_git_status(repo)
    assert after is not None
    assert after == baseline, (section, key, value)


@pytest.mark.skipif(_GIT is None, reason="needs git")
@pytest.mark.parametrize("claim", ["true", "false"])
def test_a_checkout_claiming_case_folding_hides_no_untracked_file(
    tmp_path: Path, claim: str
) -> None:
    """``one.txt`` beside the tracked ``One.txt`` is untracked on a case-sensitive file
    system, whatever ``core.ignorecase`` the checkout's configuration claims."""
    from a13n_harness.environment.facts import collect_git_status  # noqa: PLC0415

    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    (repo / "One.txt").write_text("tracked")
    _git(repo, "add", "One.txt")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "i")
    (repo / "one.txt").write_text("untracked")
    if (repo / "ONE.TXT").exists():
        pytest.skip("this file system folds case")
    _git(repo, "config", "core.ignorecase", claim)
    status = collect_git_status(repo)
    assert status is not None
    assert status.untracked == 1
