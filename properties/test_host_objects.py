"""What a Host passes cannot subvert encoding or error paths.

- A ``str`` subclass whose methods lie (``isascii``, ``isprintable``, ``encode``,
  ``__len__``, ``replace`` ...) is taken, at every public entry point, as the plain
  ``str`` of the same characters, and none of its methods runs: the output equals the
  output for the plain string (``encode_value``, ``decode_value``,
  ``render_environment``, the catalog's entries and pointer-line roots, renderings
  handed in for certification, ``encode_manifest``), constructed or forged.
- Building an error never runs a Host's code: an unknown selected name whose
  ``__repr__`` and ordering raise, a selection whose iteration raises, a counter whose
  declaration attributes raise, all give ``DefinitionError``.
- Integers past Python's 4,300-digit conversion limit never raise ``ValueError`` from
  a message (``civil_date(10**5000, 0)``, a rendering claiming ``tokens=10**5000``, a
  counter returning ``10**5000``).
- A manifest count written ``-0`` is refused: the manifest is canonical.

The lying objects are :mod:`a13n_harness.testing.hostile`.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import inspect
from collections.abc import Iterator, Set
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import test_hostile_arguments as hostile_arguments
from a13n_harness import Environment, RunBindings
from a13n_harness.capabilities import (
    BoundSkillCatalog,
    FileSkillSource,
    PreparedSkills,
    SkillManager,
    SkillsCapability,
    SkillsPolicy,
)
from a13n_harness.context import encoder
from a13n_harness.context.catalog import CatalogEntry, SkillCatalog
from a13n_harness.context.encoder import decode_value, encode_value
from a13n_harness.context.errors import DefinitionError
from a13n_harness.context.facts import EnvironmentFacts, GitStatus, civil_date, render_environment
from a13n_harness.context.frontmatter import FrontmatterLimits
from a13n_harness.context.lint import check_document
from a13n_harness.context.manifest import ContextManifest, decode_manifest, encode_manifest
from a13n_harness.context.render import RenderedCatalog, render_catalog, verify_rendering
from a13n_harness.context.tokens import (
    CountedRendering,
    Utf8ByteCounter,
    render_catalog_counted,
    verify_rendering_counted,
)
from a13n_harness.environment import (
    EnvironmentPath,
    LocalDirectoryProvider,
    LocalFileOperator,
    MemoryFileOperator,
)
from a13n_harness.testing.controls import control_settings, property_fails
from a13n_harness.testing.discovery_strategies import skill_document
from a13n_harness.testing.host_operators import LyingBytes, LyingList, LyingTuple
from a13n_harness.testing.hostile import (
    CALLS,
    LyingInt,
    LyingStr,
    RaisingCounter,
    RaisingSet,
    UnorderableName,
    lying_strs,
    no_host_code,
)

HUGE = 10**5000  # str() of it raises ValueError (the 4,300-digit conversion limit)


def _forged(cls: type, **fields: object) -> Any:
    obj: Any = object.__new__(cls)
    for name, value in fields.items():
        object.__setattr__(obj, name, value)
    return obj


def _or(value: str, default: str) -> str:
    """``value or default`` without asking ``value`` (a lying ``__len__`` says 0)."""
    return value if str.__len__(value) else default


def _plain(value: LyingStr) -> str:
    return str.__str__(value)


def _facts(cwd: str, branch: str | None = "main") -> EnvironmentFacts:
    return EnvironmentFacts(
        cwd, "bash", "linux", "2026-11-29", "UTC", GitStatus(branch, None, 1, 0, 0, 0, 0, 0, 0)
    )


def _catalog(description: str, file: str, root: str) -> SkillCatalog:
    return SkillCatalog((CatalogEntry("alpha", description, file),), 3, (root,))


# ----------------------------------------------------- str subclasses: one family


def _same_as_plain(hostile: LyingStr, build: Any) -> None:
    """``build(hostile)`` equals ``build(plain)`` (value or error code) and runs no lying method."""
    plain = _plain(hostile)
    expected, _ = no_host_code(lambda: build(plain))
    got, calls = no_host_code(lambda: build(hostile))
    assert calls == [], calls
    if isinstance(expected, DefinitionError):
        assert isinstance(got, DefinitionError), got
        assert (got.code, got.reason) == (expected.code, expected.reason)
    else:
        assert not isinstance(got, BaseException), got
        assert got == expected
        assert type(got) is type(expected)


ENTRY_POINTS: dict[str, Any] = {
    "encode_value": encode_value,
    "decode_value": decode_value,
    "decode_value_of_encoded": lambda s: decode_value(encode_value(s)),
    "render_environment_cwd": lambda s: render_environment(_facts(s)),
    "render_environment_branch": lambda s: render_environment(_facts("/r", s)),
    "render_environment_forged": lambda s: render_environment(
        _forged(
            EnvironmentFacts,
            cwd=s,
            shell=s,
            os="linux",
            current_date="d",
            timezone=s,
            git=_forged(
                GitStatus,
                branch=s,
                upstream=s,
                ahead=0,
                behind=0,
                staged=0,
                unstaged=0,
                untracked=0,
                conflicted=0,
                renamed=0,
            ),
        )
    ),
    "catalog_description_file_root": lambda s: (
        render_catalog(_catalog(_or(s, "d"), _or(s, "f"), _or(s, "r")), 2000).text
    ),
    "catalog_pointer_root_minimal": lambda s: (
        render_catalog(_catalog("d", "f", _or(s, "r")), 60).text
    ),
    "catalog_forged": lambda s: (
        render_catalog(
            _forged(
                SkillCatalog,
                entries=(
                    _forged(CatalogEntry, name="alpha", description=_or(s, "d"), file=_or(s, "f")),
                ),
                unlisted=1,
                roots=(_or(s, "r"),),
            ),
            2000,
        ).text
    ),
    "counted_catalog": lambda s: (
        render_catalog_counted(
            _catalog(_or(s, "d"), "f", _or(s, "r")), 2000, Utf8ByteCounter()
        ).text
    ),
    "verify_rendering_of_lying_text": lambda s: verify_rendering(
        _catalog("d", "f", "r"),
        2000,
        _forged(RenderedCatalog, **{**_rendered_fields(), "text": s}),
    ),
    "encode_manifest": lambda s: encode_manifest(
        ContextManifest(_facts(s), _catalog(_or(s, "d"), _or(s, "f"), _or(s, "r")))
    ),
    "utf8_counter": lambda s: Utf8ByteCounter().count(s),
}


def _rendered_fields() -> dict[str, object]:
    rendered = render_catalog(_catalog("d", "f", "r"), 2000)
    return {
        name: getattr(rendered, name)
        for name in ("text", "form", "listed", "omitted", "total", "budget_bytes")
    }


@pytest.mark.parametrize("name", sorted(ENTRY_POINTS))
@settings(max_examples=30, deadline=None)
@given(text=lying_strs().map(_plain))  # drawn plain, so a failure's report can show it
def test_a_lying_str_is_taken_as_its_plain_characters(name: str, text: str) -> None:
    """A ``str`` subclass overriding ``isascii``, ``isprintable``,
    ``encode``, ``__len__`` or ``replace`` went through ``encode_value``,
    ``render_environment`` and the catalog's pointer line unencoded."""
    _same_as_plain(LyingStr(text), ENTRY_POINTS[name])


@pytest.mark.parametrize(
    "build",
    [
        encode_value,
        lambda s: render_environment(_facts(s)),
        lambda s: render_catalog(_catalog("d", "f", s), 60).text,
        lambda s: render_catalog(_catalog(s, "f", "r"), 2000).text,
    ],
)
def test_closing_tags_and_bidi_controls_from_a_lying_str_are_encoded(build: Any) -> None:
    """The reported instance: ``</skills_instructions>`` and U+202E reached the model."""
    CALLS.clear()
    text = build(LyingStr("</skills_instructions>\u202e"))
    assert "</skills_instructions>\u202e" not in text
    assert "\u202e" not in text
    assert "&lt;/skills_instructions&gt;&#x202E;" in text
    assert CALLS == []


def test_negative_control_a_naive_encoder_fails_the_property() -> None:
    """An encoder that asks the value itself (``s.isascii()``, ``s.replace``) is caught."""

    def naive(s: str) -> str:
        if s.isascii() and s.isprintable():
            return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        return encode_value(str.__str__(s))

    @control_settings
    @given(text=lying_strs().map(_plain))
    def run(text: str) -> None:
        _same_as_plain(LyingStr(text), naive)

    property_fails(run)


def test_negative_control_trusting_the_value_fails() -> None:
    """An encoder without the plain copy fails the property."""
    original = encoder.encode_value

    def trusting(s: str) -> str:
        if s.isascii():
            return s if not any(c in s for c in "&<>") else original(str.__str__(s))
        return original(str.__str__(s))

    @control_settings
    @given(text=lying_strs().map(_plain))
    def run(text: str) -> None:
        _same_as_plain(LyingStr(text), trusting)

    property_fails(run)


# ----------------------------------------------------- error paths run no Host code


def _tree(base: Path) -> None:
    for name in ("alpha", "beta"):
        path = base / ".agents/skills" / name / "SKILL.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(skill_document(name, f"Use {name}."))


def _prepare(base: Path, bindings_of: Any) -> object:
    async def run() -> object:
        async with Environment({"workspace": LocalDirectoryProvider(base)}) as environment:
            manager = SkillManager.default(
                (FileSkillSource("x", ("/workspace/none",), required=False),)
            )
            return await SkillsCapability(manager).prepare(bindings_of(environment))

    return asyncio.run(run())


def _error_of(run: Any) -> DefinitionError:
    value, calls = no_host_code(run)
    assert calls == [], calls
    assert isinstance(value, DefinitionError), value
    return value


def test_an_unknown_selected_name_whose_repr_and_order_raise(tmp_path: Path) -> None:
    """``prepare`` raised the Host's ``RuntimeError`` from ``repr()`` or
    ``sorted()`` of an unknown selection."""
    _tree(tmp_path)
    names = frozenset({UnorderableName("nope"), UnorderableName("zz")})
    error = _error_of(
        lambda: _prepare(
            tmp_path, lambda env: RunBindings.embedded(environment=env, skill_selection=names)
        )
    )
    assert error.code == "skill_selection_unknown"
    assert "'nope'" in error.message
    forged = lambda env: _forged(  # noqa: E731 - bindings forged past their constructor
        RunBindings,
        environment=env,
        skill_selection=names,
        context_tokens=200_000,
        response_reserve_tokens=16_000,
        token_counter=None,
    )
    assert _error_of(lambda: _prepare(tmp_path, forged)).code == "skill_selection_unknown"


class _RaisingAbstractSet(Set[str]):
    """A ``collections.abc.Set`` of the Host's own whose iteration raises."""

    def __iter__(self) -> Iterator[str]:
        CALLS.append("__iter__")
        raise RuntimeError("the Host's __iter__")

    def __len__(self) -> int:
        return 1

    def __contains__(self, item: object) -> bool:
        return True


def test_a_selection_whose_iteration_raises(tmp_path: Path) -> None:
    """A selection set whose iteration raises escaped as the Host's error;
    a ``frozenset`` subclass is read by the base type's iterator (its own never runs)."""
    _tree(tmp_path)
    value, calls = no_host_code(
        lambda: RunBindings.embedded(
            environment=Environment(), skill_selection=RaisingSet({"alpha"})
        )
    )
    assert calls == []
    assert isinstance(value, RunBindings)
    assert type(value.skill_selection) is frozenset
    assert value.skill_selection == frozenset({"alpha"})
    value, calls = no_host_code(
        lambda: RunBindings.embedded(
            environment=Environment(), skill_selection=_RaisingAbstractSet()
        )
    )
    assert isinstance(value, DefinitionError), value
    assert value.code == "skill_selection_unknown"
    forged = lambda env: _forged(  # noqa: E731
        RunBindings,
        environment=env,
        skill_selection=_RaisingAbstractSet(),
        context_tokens=200_000,
        response_reserve_tokens=16_000,
        token_counter=None,
    )
    value, _ = no_host_code(lambda: _prepare(tmp_path, forged))
    assert isinstance(value, DefinitionError), value
    assert value.code == "skill_selection_unknown"


@pytest.mark.parametrize("raising", ["prefix_monotone", "line_additive", "byte_bounded", "count"])
def test_a_counter_whose_declarations_raise(raising: str) -> None:
    """A counter whose declaration attributes are properties that raise (or a proxy)."""
    counter = RaisingCounter(raising)
    catalog = _catalog("d", "f", "r")
    for run in (
        lambda: render_catalog_counted(catalog, 2000, counter),
        lambda: verify_rendering_counted(
            catalog, 2000, render_catalog_counted(catalog, 2000, Utf8ByteCounter()), counter
        ),
        lambda: RunBindings.embedded(environment=Environment(), token_counter=counter),
    ):
        value, _ = no_host_code(run)
        if raising in ("count", "prefix_monotone") or not isinstance(
            value, (RunBindings, CountedRendering, type(None))
        ):
            assert isinstance(
                value, (DefinitionError, RunBindings, CountedRendering, type(None))
            ), value
        if isinstance(value, DefinitionError):
            assert (value.code, value.reason) == ("allowance_invalid", "counter")


def test_the_counters_own_exception_text_is_not_run() -> None:
    class Loud(Exception):
        def __str__(self) -> str:
            CALLS.append("__str__")
            raise RuntimeError("the Host's __str__ ran")

    class Failing:
        def count(self, text: str) -> int:
            raise Loud

    error = _error_of(lambda: render_catalog_counted(_catalog("d", "f", "r"), 2000, Failing()))
    assert (error.code, error.reason) == ("allowance_invalid", "counter")


# ------------------------------------------------------------ the digit limit


def test_civil_date_of_a_huge_instant_is_out_of_range() -> None:
    for arguments in ((HUGE, 0), (0, HUGE), (-HUGE, 0), (HUGE, 10**12 - HUGE)):
        with pytest.raises(DefinitionError) as caught:
            civil_date(*arguments)
        assert caught.value.code == "date_out_of_range"
        assert "bits" in caught.value.message or "1000000000000" in caught.value.message


def test_a_rendering_claiming_huge_counts_is_not_certified() -> None:
    catalog = _catalog("d", "f", "r")
    real = render_catalog_counted(catalog, 2000, Utf8ByteCounter())
    fields = {
        name: getattr(real, name)
        for name in ("text", "form", "listed", "omitted", "total", "budget_tokens", "tokens")
    }
    for name in ("tokens", "listed", "omitted", "total"):
        claimed = CountedRendering(**{**fields, name: HUGE})
        with pytest.raises(DefinitionError) as caught:
            verify_rendering_counted(catalog, 2000, claimed, Utf8ByteCounter())
        assert caught.value.code == "rendering_not_certified"
    bytes_real = render_catalog(catalog, 2000)
    for name in ("listed", "omitted", "total", "budget_bytes"):
        values = {
            n: getattr(bytes_real, n)
            for n in ("text", "form", "listed", "omitted", "total", "budget_bytes")
        }
        with pytest.raises(DefinitionError) as caught:
            verify_rendering(catalog, 2000, RenderedCatalog(**{**values, name: HUGE}))
        assert caught.value.code == "rendering_not_certified"


def test_a_counter_returning_a_huge_count() -> None:
    class Huge:
        prefix_monotone = True
        line_additive = True

        def count(self, text: str) -> int:
            return HUGE if text else 0

    catalog = _catalog("d", "f", "r")
    value, _ = no_host_code(lambda: render_catalog_counted(catalog, 2000, Huge()))
    assert isinstance(value, (CountedRendering, DefinitionError)), value
    real = render_catalog_counted(catalog, 2000, Utf8ByteCounter())
    value, _ = no_host_code(lambda: verify_rendering_counted(catalog, 2000, real, Huge()))
    assert isinstance(value, DefinitionError), value
    assert value.code in ("rendering_not_certified", "allowance_invalid")


# ------------------------------------------------------------ canonical counts


@pytest.mark.parametrize("count", ['"unlisted":-0', '"ahead":-0', '"renamed":-0'])
def test_a_count_written_minus_zero_is_refused(count: str) -> None:
    """``-0`` decoded as ``0`` and re-encoded to other bytes."""
    manifest = encode_manifest(ContextManifest(_facts("/r"), _catalog("d", "f", "r")))
    key = count.split(":", 1)[0]
    start = manifest.index(key.encode())
    end = manifest.index(b",", start) if b"," in manifest[start:] else len(manifest)
    end = min(end, manifest.index(b"}", start))
    forged = manifest[:start] + count.encode() + manifest[end:]
    assert forged != manifest
    with pytest.raises(DefinitionError) as caught:
        decode_manifest(forged)
    assert (caught.value.code, caught.value.reason) == ("manifest_invalid", "type")
    assert decode_manifest(manifest.replace(key.encode() + b":", key.encode() + b":", 1))


@given(st.integers(min_value=0, max_value=2**64 - 1))
def test_canonical_counts_still_round_trip(count: int) -> None:
    manifest = encode_manifest(ContextManifest(None, SkillCatalog((), count, ())))
    assert encode_manifest(decode_manifest(manifest)) == manifest


@pytest.mark.parametrize("root", ["/../../etc", "relative", "/a//b", "/ok/.", "/ok/root"])
def test_a_lying_root_is_judged_by_its_characters(root: str) -> None:
    """A root whose ``startswith``/``split``/``__contains__`` lie passed the canonical-path
    check (``/../../etc`` was accepted); it is judged, and kept, as its plain characters."""
    value, calls = no_host_code(lambda: FileSkillSource(LyingStr("x"), (LyingStr(root),)))
    assert calls == []
    expected, _ = no_host_code(lambda: FileSkillSource("x", (root,)))
    if isinstance(expected, DefinitionError):
        assert isinstance(value, DefinitionError), value
        assert value.code == expected.code == "skill_root_invalid"
    else:
        assert isinstance(value, FileSkillSource), value
        assert [type(r) for r in value.roots] == [str]
        assert type(value.source_id) is str


def test_a_lying_root_reaches_the_pointer_line_encoded(tmp_path: Path) -> None:
    """Through a run: the pointer line names the root encoded, and no method of it ran."""
    _tree(tmp_path)

    async def run() -> str:
        async with Environment({"workspace": LocalDirectoryProvider(tmp_path)}) as environment:
            manager = SkillManager(
                [FileSkillSource("ws", (LyingStr("/workspace/.agents/skills"),))]
            )
            prepared = await SkillsCapability(manager).prepare(
                RunBindings.embedded(environment=environment)
            )
            return prepared.instructions

    text, calls = no_host_code(lambda: asyncio.run(run()))
    assert calls == []
    assert isinstance(text, str), text
    assert "(list /workspace/.agents/skills/ to see all)" in text


# ------------------------------------- str subclasses at the newer entry points


class _EqualsAll(str):
    """A ``str`` whose only lie is equality (and membership tests built on it)."""

    def __eq__(self, other: object) -> bool:
        CALLS.append("__eq__")
        return True

    def __ne__(self, other: object) -> bool:
        CALLS.append("__ne__")
        return False

    def __hash__(self) -> int:
        CALLS.append("__hash__")
        return 0

    def __contains__(self, key: object) -> bool:
        CALLS.append("__contains__")
        return False


@pytest.mark.parametrize("kind", [LyingStr, _EqualsAll])
@pytest.mark.parametrize(
    "build",
    [
        lambda s: SkillsPolicy(conflict=s),
        lambda s: SkillsPolicy(invalid=s),
        lambda s: SkillsPolicy(mode=s),
        lambda s: SkillsPolicy.checkout(conflict=s),
        lambda s: SkillsPolicy.checkout(invalid=s),
    ],
    ids=["conflict", "invalid", "mode", "checkout_conflict", "checkout_invalid"],
)
def test_a_policy_value_is_judged_by_its_characters(kind: type[str], build: Any) -> None:
    """``SkillsPolicy(conflict=...)`` and ``SkillsPolicy.checkout(invalid=...)`` accepted
    ``"bogus"`` through a subclass whose equality lies; a valid value is kept plain."""
    value, calls = no_host_code(lambda: build(kind("bogus")))
    assert calls == []
    assert isinstance(value, DefinitionError), value
    assert (value.code, value.reason) == ("catalog_invalid", "policy")
    for good in ("precedence", "error", "skip", "strict", "checkout"):
        plain, _ = no_host_code(lambda: build(good))  # noqa: B023 - called at once
        value, calls = no_host_code(lambda: build(kind(good)))  # noqa: B023
        assert calls == []
        if isinstance(plain, DefinitionError):
            assert isinstance(value, DefinitionError)
            assert value.code == plain.code
        else:
            assert value == plain
            assert all(
                type(getattr(value, name)) is str for name in ("conflict", "invalid", "mode")
            )


@pytest.mark.parametrize("kind", [LyingStr, _EqualsAll])
def test_an_operator_root_holding_nul_is_skill_root_invalid(tmp_path: Path, kind: type) -> None:
    """A root holding NUL whose ``__contains__`` hid it raised ``ValueError`` from
    ``os.open``; a good root given as a subclass serves its plain path."""
    bad = kind(f"{tmp_path}\x00x")
    for build in (
        lambda: LocalDirectoryProvider(bad),
        lambda: LocalFileOperator(bad),
        lambda: LocalDirectoryProvider(tmp_path).retarget(bad),
    ):
        value, calls = no_host_code(build)
        assert calls == []
        assert isinstance(value, DefinitionError), value
        assert (value.code, value.reason) == ("skill_root_invalid", "host_root")
    provider, calls = no_host_code(lambda: LocalDirectoryProvider(kind(str(tmp_path))))
    assert calls == []
    assert isinstance(provider, LocalDirectoryProvider)
    assert type(provider.path) is str
    assert provider.path == str(tmp_path)


@pytest.mark.parametrize("kind", [LyingStr, _EqualsAll])
def test_check_document_compares_the_folder_by_its_characters(kind: type) -> None:
    """``check_document(doc, folder)`` lost ``skill_name_mismatch`` when the folder was a
    subclass whose equality lies."""
    document = skill_document("alpha", "Use alpha.")
    plain = check_document(document, "beta")
    assert "skill_name_mismatch" in {issue.rule for issue in plain.issues}
    value, calls = no_host_code(lambda: check_document(document, kind("beta")))
    assert calls == []
    assert value == plain
    value, calls = no_host_code(lambda: check_document(document, "alpha", kind("no-such-profile")))
    assert calls == []
    assert value == check_document(document, "alpha", "no-such-profile")


@pytest.mark.parametrize("kind", [LyingStr, _EqualsAll])
def test_a_boundary_of_an_unknown_kind_is_never_entered(kind: type) -> None:
    """``prepared.boundary(...)`` was entered for an unknown kind whose equality lies."""
    prepared = PreparedSkills(
        "", (), BoundSkillCatalog((), (), ()), render_catalog(_catalog("d", "f", "r"), 0)
    )
    entered = []

    def enter(kind_value: object) -> None:
        with prepared.boundary(kind_value):  # type: ignore[arg-type]
            entered.append(kind_value)

    value, calls = no_host_code(lambda: enter(kind("nope")))
    assert calls == []
    assert isinstance(value, DefinitionError), value
    assert (value.code, value.reason) == ("catalog_invalid", "prepared")
    assert entered == []
    plain, _ = no_host_code(lambda: enter("tool"))
    value, calls = no_host_code(lambda: enter(kind("tool")))
    assert calls == []
    assert isinstance(plain, DefinitionError)  # no environment to check: the same answer
    assert isinstance(value, DefinitionError), value
    assert (value.code, value.reason) == (plain.code, plain.reason)
    assert entered == []


# ------------------------------------------------ the whole public surface, from __all__
#
# Every callable named in a public ``__all__`` (found as test_hostile_arguments finds them)
# and every public method of a valid instance of each class, called with valid arguments
# and then with the same arguments as a Host's lying subclasses: each ``str`` a LyingStr,
# each ``bytes`` a LyingBytes, each ``list`` and ``tuple`` a LyingList and LyingTuple,
# recursively, and (in a second pass) each ``int`` a LyingInt and each record forged past
# its constructor with such fields. The property: no method of those values runs, nothing
# the call returns or raises holds one (every reachable value is of its exact built-in
# type), and the outcome is the plain call's (the same value, or the same error code); an
# ``int`` subclass or a forged record may instead be refused with a DefinitionError.


def _record(value: Any) -> dict[str, object]:
    return {field.name: getattr(value, field.name) for field in dataclasses.fields(value)}


def _surface_values(root: Path) -> dict[str, object]:
    """A valid value for each parameter name of the public surface (overridden per
    callable by ``test_hostile_arguments.baselines``)."""
    catalog = hostile_arguments.valid_catalog()
    facts = hostile_arguments.valid_facts()
    rendered = render_catalog(catalog, 400)
    counted = render_catalog_counted(catalog, 400, Utf8ByteCounter())
    selection = _forged(
        EnvironmentPath,
        path="/workspace/s",
        mount="workspace",
        mount_id="mount-1",
        generation=1,
        provider_path="/s",
        default_route=True,
    )
    return {
        "items": (),
        "diagnostics": (),
        "roots": ("/s",),
        "name": "alpha",
        "description": "Does alpha.",
        "path": "/a",
        "new_path": str(root),
        "source_id": "w",
        "root": str(root),
        "description_truncated": False,
        "directory": selection,
        "document": selection,
        "mount_id": "mount-1",
        "observed_generation": 1,
        "code": "skill_root_missing",
        "message": "m",
        "paths": ["/a"],
        "limit": 100,
        "instructions": "",
        "skill_paths": (),
        "catalog": catalog,
        "rendering": rendered,
        "rendered": rendered,
        "materializers": (),
        "sources": (FileSkillSource("w", ("/workspace/s",)),),
        "data": b"---\nname: alpha\ndescription: d\n---\n",
        "t": "x &amp; y",
        "s": "x & y",
        "text": "x & y",
        "code_point": 0x202E,
        "reason": "yaml_syntax",
        **_record(facts),
        "facts": facts,
        **_record(facts.git),
        "max_bytes": 100,
        "issues": (),
        "references": (),
        "rule": "skill_name_mismatch",
        "line": 1,
        "column": 1,
        "target": "a/b",
        "id": "x",
        "severity": "error",
        "title": "t",
        "checks": "c",
        "source": "s",
        "example": "e",
        "folder": "alpha",
        "markdown": "see [a](scripts/a.py)",
        "form": "full",
        **{k: v for k, v in _record(counted).items() if k != "text"},
        "budget_bytes": 400,
        "cap": 10,
        "counter": Utf8ByteCounter(),
        "declaration": "prefix_monotone",
        "mount": "workspace",
        "generation": 1,
        "provider_path": "/s",
        "default_route": True,
        "selection": selection,
        "kind": "file",
        "size": 1,
        "parent": ["a"],
        "names": frozenset({"alpha"}),
        "limits": FrontmatterLimits(),
        "environment": Environment(),
        "context_tokens": 200_000,
        "response_reserve_tokens": 16_000,
        "by": "model",
        "prepared": hostile_arguments.instances(root)[
            "a13n_harness.capabilities.skills.PreparedSkills"
        ](),
        "files": MemoryFileOperator({"a": b"x"}),
        "budget": 1_000,
        "body": "Use <b>this</b> & that.",
        "resources": (),
        "resources_omitted": 0,
        "truncated": False,
        "activation": None,
        "index": 1,
    }


_SURFACE_OVERRIDES: dict[str, dict[str, object]] = {
    # Stateful methods: the plain call and the Host's call must meet the same state.
    "LocalFileOperator.remove": {"path": "/nothing-here"},
    "BlockingLocalFileOperator.remove": {"path": "/nothing-here"},
    "MemoryFileOperator.remove": {"path": "/nothing-here"},
    "LocalFileOperator.write_bytes": {"path": "/written", "data": b"x"},
    "BlockingLocalFileOperator.write_bytes": {"path": "/written", "data": b"x"},
    "MemoryFileOperator.write_bytes": {"path": "/written", "data": b"x"},
    "LocalFileOperator.make_directory": {"path": "/made"},
    "BlockingLocalFileOperator.make_directory": {"path": "/made"},
    "MemoryFileOperator.make_directory": {"path": "/made"},
    "Environment.unmount": {"name": "nothing"},
    "SkillCatalogItem": {"path": "/s/alpha/SKILL.md", "root": "/s"},
    "SkillDiagnostic": {"path": "/s", "source_id": "w"},
    "EnvironmentPath": {"path": "/workspace/s"},
    "resolve_link_target": {"target": "b", "root": ["r"]},
    "cut_description": {"description": "Does alpha at length.", "cap": 10},
    "join_path": {"directory": "/a", "name": "b"},
    "decisive_prefix": {"limit": 10},
    "SkillActivation": {"directory": "/s/alpha", "text": "x", "form": "full"},
    "check_repeat": {"directory": "/s/alpha"},
    "list_resources": {"directory": "/"},
    # A manifest with facts: its record fields are made plain at construction (the
    # surface's ``environment`` is an Environment, which a manifest refuses).
    "ContextManifest": {"environment": hostile_arguments.valid_facts()},
    "FrontmatterSpan": {"start": 4, "end": 30, "body": 34},
}

# Not called with a Host's values, each with the reason (never skipped silently).
_SURFACE_UNREACHED = {
    "a13n_harness.capabilities.skills.ObservedFiles": "built by PreparedSkills.files",
    "a13n_harness.environment.environment.PinnedFiles": "built by Environment.open_scope",
    "a13n_harness.environment.local.run_blocking": "takes a coroutine, no value to lie about",
    "a13n_harness.capabilities.pool.read_all": "takes a file operator; test_host_operators",
    "a13n_harness.capabilities.skills.PreparedSkills.model_call": "takes the Host's callable",
    "a13n_harness.capabilities.skills.PreparedSkills.tool_call": "takes the Host's callable",
    "a13n_harness.capabilities.manager.SkillManager.inspect": "a Host operator's values: "
    "test_host_operators",
    "a13n_harness.capabilities.manager.SkillManager.scan": "likewise",
    "a13n_harness.capabilities.manager.SkillManager.scan_environment": "likewise",
    "a13n_harness.capabilities.skills.SkillsCapability.prepare": "takes RunBindings only",
    "a13n_harness.environment.environment.Environment.mount": "takes a Host provider: "
    "test_host_operators",
    "a13n_harness.tokenizers.TiktokenCounter": "built by token_counter(name) on tiktoken's "
    "encoding (an optional extra)",
    "a13n_harness.tokenizers.HuggingFaceCounter": "built by token_counter(name) on a "
    "tokenizers object (an optional extra)",
    "a13n_harness.tokenizers.Establishment": "built by the tokenizer loader",
    "a13n_harness.context.activation.render_activation": "takes an ActivationSource: its "
    "constructor is called here with a Host's values",
    "a13n_harness.context.activation.reference_activation": "likewise",
    "a13n_harness.context.activation.check_activation": "likewise",
}


def _host_copy(value: object, *, ints: bool) -> object:
    """``value`` as a Host's lying copy (see above); ``value`` itself when nothing lies."""
    if type(value) is str:
        return LyingStr(value)
    if type(value) is bytes:
        return LyingBytes(value)
    if type(value) is list:
        return LyingList([_host_copy(item, ints=ints) for item in value])
    if type(value) is tuple:
        return LyingTuple(tuple(_host_copy(item, ints=ints) for item in value))
    if type(value) is int and ints:
        return LyingInt(value)
    kind = type(value)
    if ints and dataclasses.is_dataclass(value) and kind.__module__.startswith("a13n_harness."):
        return _forged(
            kind,
            **{name: _host_copy(item, ints=ints) for name, item in _record(value).items()},
        )
    return value


_HOST_TYPES = (LyingStr, LyingBytes, LyingList, LyingTuple, LyingInt)


def _holds_no_host_value(value: object, seen: set[int] | None = None, depth: int = 0) -> bool:
    """No value reachable from ``value`` (containers, records, the library's own objects,
    errors) is one of the Host's lying subclasses."""
    seen = set() if seen is None else seen
    if id(value) in seen or depth > 8:
        return True
    seen.add(id(value))
    kind = type(value)
    if issubclass(kind, _HOST_TYPES):
        return False
    if kind in (str, bytes, int, float, bool, type(None)):
        return True
    children: list[object] = []
    if kind in (tuple, list, set, frozenset):
        children = list(value)  # type: ignore[call-overload]
    elif isinstance(value, dict) and kind is dict:
        children = [*value, *value.values()]
    elif isinstance(value, BaseException):
        children = list(BaseException.__dict__["__dict__"].__get__(value).values())
    elif kind.__module__.startswith("a13n_harness.") and not isinstance(value, type):
        for cls in type.__dict__["__mro__"].__get__(kind):
            for slot in cls.__dict__.get("__slots__", ()):
                descriptor = cls.__dict__.get(slot)
                if descriptor is not None and hasattr(descriptor, "__get__"):
                    with contextlib.suppress(AttributeError):
                        children.append(descriptor.__get__(value))
        state = getattr(value, "__dict__", None)
        if type(state) is dict:
            children.extend(state.values())
    return all(_holds_no_host_value(child, seen, depth + 1) for child in children)


def _surface_outcome(value: object) -> object:
    """A value to compare with the plain call's, without asking the value itself."""
    if isinstance(value, DefinitionError):
        state = BaseException.__dict__["__dict__"].__get__(value)
        return ("error", state.get("code"))
    if isinstance(value, BaseException):
        return ("raised", type(value).__name__)
    kind = type(value)
    if kind in (str, bytes, int, float, bool, type(None)):
        return value
    if kind in (tuple, list):
        return tuple(_surface_outcome(item) for item in value)  # type: ignore[attr-defined]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        # Compared as the record compares itself: a field with compare=False is a cache
        # (a catalog's render plan), filled or not by what ran before, not the outcome.
        compared = {field.name for field in dataclasses.fields(value) if field.compare}
        return tuple(
            (name, _surface_outcome(item))
            for name, item in _record(value).items()
            if name != "mount_id" and name in compared
        )
    return kind.__name__


def _surface_calls(root: Path) -> dict[str, tuple[Any, dict[str, object]]]:
    """Each reached callable of the surface: a factory of the callable and its arguments."""
    values = _surface_values(root)
    baselines = hostile_arguments.baselines(root)
    instances = hostile_arguments.instances(root)
    found: dict[str, tuple[Any, dict[str, object]]] = {}

    def arguments(function: Any, key: str) -> dict[str, object] | None:
        chosen = {**baselines.get(key, {}), **_SURFACE_OVERRIDES.get(key, {})}
        kwargs: dict[str, object] = {}
        for parameter in hostile_arguments._parameters(function):
            if parameter.name in chosen:
                kwargs[parameter.name] = chosen[parameter.name]
            elif parameter.name in values:
                kwargs[parameter.name] = values[parameter.name]
            elif parameter.default is not parameter.empty:
                kwargs[parameter.name] = parameter.default
            else:
                return None
            if parameter.kind is parameter.POSITIONAL_ONLY:
                return None  # none on the surface takes a value positionally only
        return kwargs

    for qualified, function in hostile_arguments.CALLABLES.items():
        if (
            qualified in _SURFACE_UNREACHED
            or qualified in hostile_arguments.DOCUMENTED_VALUE_ERRORS
        ):
            continue
        kwargs = arguments(function, function.__qualname__)
        if kwargs is not None:
            found[qualified] = (lambda function=function: function, kwargs)
    for qualified, method in hostile_arguments.METHODS:
        name = f"{qualified}.{method}"
        factory = instances.get(qualified)
        cls = hostile_arguments.CALLABLES[qualified]
        if name in _SURFACE_UNREACHED or factory is None:
            continue
        if isinstance(inspect.getattr_static(cls, method), property):
            continue  # no argument to lie about
        kwargs = arguments(getattr(factory(), method), f"{cls.__qualname__}.{method}")
        if kwargs is not None:
            found[name] = (
                lambda factory=factory, method=method: getattr(factory(), method),
                kwargs,
            )
    return found


@pytest.fixture(scope="module")
def surface_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("surface")
    skill = root / ".agents" / "skills" / "alpha"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_bytes(b"---\nname: alpha\ndescription: Does alpha.\n---\nBody\n")
    (root / "a").write_bytes(b"x")
    return root


_SURFACE = sorted(_surface_calls(Path("/nonexistent-surface-root")))


def _call(make: Any, kwargs: dict[str, object]) -> object:
    CALLS.clear()
    try:
        return hostile_arguments.outcome(lambda: make()(**kwargs))
    except Exception as error:  # compared below
        return error


def check_surface_call(make: Any, kwargs: dict[str, object], name: str) -> None:
    """The property for one callable: see the section comment."""
    expected = _call(make, kwargs)
    for ints in (False, True):
        for chosen in [*kwargs, None]:  # each argument alone, then all of them at once
            hostile = {
                key: _host_copy(value, ints=ints) if chosen in (None, key) else value
                for key, value in kwargs.items()
            }
            if all(hostile[key] is kwargs[key] for key in kwargs):
                continue
            got = _call(make, hostile)
            calls = list(CALLS)
            where = f"{name}({chosen or 'all'}, ints={ints})"
            assert calls == [], f"{where} ran the Host's {calls}"
            assert _holds_no_host_value(got), f"{where} kept a Host value"
            if _surface_outcome(got) == _surface_outcome(expected):
                continue
            mismatch = (where, _surface_outcome(got), _surface_outcome(expected))
            assert ints, mismatch  # a str, bytes, list or tuple subclass: the same outcome
            assert isinstance(got, DefinitionError), mismatch


# Open escapes the property found: each still runs and is reported as xfail with what it
# shows, never skipped. A fix removes its line (none is open now).
KNOWN_HOST_ESCAPES: dict[str, str] = {}


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(n, marks=pytest.mark.xfail(reason=KNOWN_HOST_ESCAPES[n], strict=False))
        if n in KNOWN_HOST_ESCAPES
        else n
        for n in _SURFACE
    ],
)
def test_every_public_callable_takes_host_values_as_built_in_values(
    name: str, surface_root: Path
) -> None:
    make, kwargs = _surface_calls(surface_root)[name]
    check_surface_call(make, kwargs, name)


def test_the_surface_is_reached_whole(surface_root: Path) -> None:
    """Every public callable and method is called with a Host's values, or listed with the
    reason it is not (a new one without a valid value for a parameter fails here)."""
    reached = set(_surface_calls(surface_root))
    every = set(hostile_arguments.CALLABLES) | {f"{q}.{m}" for q, m in hostile_arguments.METHODS}
    properties = {
        f"{q}.{m}"
        for q, m in hostile_arguments.METHODS
        if isinstance(inspect.getattr_static(hostile_arguments.CALLABLES[q], m), property)
    }
    unreached_classes = set(hostile_arguments.UNREACHED_CLASSES) | {
        q for q in hostile_arguments.CALLABLES if q in _SURFACE_UNREACHED
    }
    missing = sorted(
        name
        for name in every
        - reached
        - properties
        - set(_SURFACE_UNREACHED)
        - hostile_arguments.DOCUMENTED_VALUE_ERRORS
        if not any(name.startswith(q + ".") for q in unreached_classes)
    )
    assert missing == []
    assert len(reached) > 100


def test_negative_control_a_policy_that_asks_the_value_fails_the_surface_property(
    monkeypatch: pytest.MonkeyPatch, surface_root: Path
) -> None:
    """``SkillsPolicy`` checking ``conflict`` by its own ``__eq__`` (as it did) is caught."""
    original = SkillsPolicy.__post_init__

    def trusting(self: SkillsPolicy) -> None:
        if self.conflict not in ("precedence", "error"):
            raise DefinitionError("catalog_invalid", "bad", reason="policy")
        object.__setattr__(self, "conflict", str.__str__(self.conflict))
        original(self)

    monkeypatch.setattr(SkillsPolicy, "__post_init__", trusting)
    name = "a13n_harness.capabilities.sources.SkillsPolicy"
    make, kwargs = _surface_calls(surface_root)[name]
    with pytest.raises(AssertionError, match="ran the Host"):
        check_surface_call(make, kwargs, name)


class _NotTextEqualsAll:
    """Not a str at all, but equal to anything, by its own word."""

    def __eq__(self, other: object) -> bool:
        CALLS.append("__eq__")
        return True

    __hash__ = None  # type: ignore[assignment]


@pytest.mark.parametrize(
    "build",
    [
        lambda v: SkillsPolicy(conflict=v),
        lambda v: SkillsPolicy(invalid=v),
        lambda v: SkillsPolicy(mode=v),
        lambda v: SkillsPolicy.checkout(invalid=v),
    ],
    ids=["conflict", "invalid", "mode", "checkout_invalid"],
)
def test_a_policy_value_that_is_no_str_is_refused_without_asking_it(build: Any) -> None:
    """``"precedence" == value`` asks the value itself when it is not a ``str``."""
    value, calls = no_host_code(lambda: build(_NotTextEqualsAll()))
    assert calls == []
    assert isinstance(value, DefinitionError), value
    assert (value.code, value.reason) == ("catalog_invalid", "policy")
