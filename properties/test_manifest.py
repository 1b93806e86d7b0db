"""The context manifest: canonical JSON, strict decoding, publication (docs/contract.md §5)."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from a13n_harness import DefinitionError
from a13n_harness.context import manifest as manifest_module
from a13n_harness.context.catalog import MAX_TOTAL, CatalogEntry, SkillCatalog
from a13n_harness.context.facts import EnvironmentFacts, GitStatus
from a13n_harness.context.manifest import (
    ContextManifest,
    decode_manifest,
    encode_manifest,
    environment_json,
    publish_catalog,
)
from a13n_harness.testing.strategies import (
    catalog_entries,
    environment_facts,
    skill_catalogs,
    unlisted_counts,
)

FACTS = EnvironmentFacts(
    "/repo", "bash", "linux", "2026-11-29", "UTC", GitStatus("main", None, 1, 0, 2, 1, 3, 0, 0)
)
manifests = st.builds(ContextManifest, st.none() | environment_facts(), skill_catalogs())


def manifest_bytes(
    skills: object = (), unlisted: object = 0, roots: object = (), **top: object
) -> bytes:
    value: dict[str, object] = {
        "environment": None,
        "skill_catalog": {"roots": roots, "skills": skills, "unlisted": unlisted},
        "version": 1,
    }
    value.update(top)
    # Sorted, without whitespace: canonical for ASCII values; a lone surrogate is written as
    # its escape, which only a refusal needs.
    return json.dumps(value, sort_keys=True, separators=(",", ":")).encode()


def refusal(data: bytes, max_bytes: int = 1_048_576) -> tuple[str, str | None]:
    with pytest.raises(DefinitionError) as caught:
        decode_manifest(data, max_bytes)
    return caught.value.code, caught.value.reason


@given(manifests)
def test_decode_inverts_encode(manifest: ContextManifest) -> None:
    """decode_manifest(encode_manifest(m)) == m."""
    assert decode_manifest(encode_manifest(manifest)) == manifest


@given(manifests)
def test_encoding_is_canonical_json(manifest: ContextManifest) -> None:
    """Sorted keys, compact separators, UTF-8, no ASCII escaping; re-encoding is byte-identical."""
    data = encode_manifest(manifest)
    value = json.loads(data)
    canonical = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert data == canonical.encode("utf-8")
    assert encode_manifest(decode_manifest(data)) == data


@given(st.integers(0, 2**66))
def test_counts_are_admitted_up_to_the_u64_boundary(unlisted: int) -> None:
    """Counts whose checked total fits u64 are admitted; beyond: catalog_total_unrepresentable."""
    skills = [{"name": "a", "description": "d", "file": "f"}]
    data = manifest_bytes(skills, unlisted)
    if unlisted + 1 <= MAX_TOTAL:
        assert decode_manifest(data).skill_catalog.total == unlisted + 1
    else:
        assert refusal(data)[0] == "catalog_total_unrepresentable"


@given(unlisted_counts())
def test_arbitrary_counts_round_trip(unlisted: int) -> None:
    manifest = ContextManifest(None, SkillCatalog((), unlisted))
    assert decode_manifest(encode_manifest(manifest)).skill_catalog.unlisted == unlisted


def test_exact_encoding() -> None:
    catalog = SkillCatalog((CatalogEntry("a", "dé\u2028<", "/s/a/SKILL.md"),), 2, ("/s",))
    assert (
        encode_manifest(ContextManifest(FACTS, catalog))
        == (
            '{"environment":{"current_date":"2026-11-29","cwd":"/repo","git":{"ahead":1,"behind":0,'
            '"branch":"main","conflicted":0,"renamed":0,"staged":2,"unstaged":1,"untracked":3,'
            '"upstream":null},"os":"linux","shell":"bash","timezone":"UTC"},"skill_catalog":'
            '{"roots":["/s"],"skills":[{"description":"dé\u2028<","file":"/s/a/SKILL.md","name":"a"}],'
            '"unlisted":2},"version":1}'
        ).encode()
    )


@pytest.mark.parametrize(
    ("data", "code", "reason"),
    [
        (b"\xff{}", "manifest_invalid", "encoding"),
        (b"{", "manifest_invalid", "json"),
        (b"[]", "manifest_invalid", "type"),
        (b"[" * 2_000_000, "manifest_invalid", "oversize"),
        (b"[" * 100_000, "manifest_invalid", "too_deep"),
        (b'{"version":1,"version":1}', "manifest_invalid", "duplicate_key"),
        (manifest_bytes(unlisted=float("nan")), "manifest_invalid", "non_finite"),
        (manifest_bytes(unlisted=float("inf")), "manifest_invalid", "non_finite"),
        (manifest_bytes(unlisted=True), "manifest_invalid", "type"),
        (manifest_bytes(unlisted=1.0), "manifest_invalid", "type"),
        (manifest_bytes(unlisted=-1), "manifest_invalid", "type"),
        (manifest_bytes(unlisted="1"), "manifest_invalid", "type"),
        (manifest_bytes(unlisted=2**64), "catalog_total_unrepresentable", None),
        (manifest_bytes(extra=1), "manifest_invalid", "unknown_key"),
        (b'{"environment":null,"version":1}', "manifest_invalid", "missing_key"),
        (manifest_bytes(version=2), "manifest_invalid", "version"),
        (manifest_bytes(version=True), "manifest_invalid", "version"),
        (manifest_bytes(roots=["\ud800"]), "manifest_invalid", "surrogate"),
        (
            manifest_bytes([{"name": "a", "description": "\udfff", "file": "f"}]),
            "manifest_invalid",
            "surrogate",
        ),
        (
            manifest_bytes([{"name": "A", "description": "d", "file": "f"}]),
            "manifest_invalid",
            "catalog",
        ),
        (
            manifest_bytes([{"name": "a", "description": "", "file": "f"}]),
            "manifest_invalid",
            "catalog",
        ),
        (
            manifest_bytes([{"name": "a", "description": "d", "file": "f", "x": 1}]),
            "manifest_invalid",
            "unknown_key",
        ),
        (
            manifest_bytes([{"name": n, "description": "d", "file": "f"} for n in ("b", "a")]),
            "manifest_invalid",
            "catalog",
        ),
        (
            manifest_bytes([{"name": "a", "description": "d", "file": "f"}] * 2),
            "manifest_invalid",
            "catalog",
        ),
        (manifest_bytes(skills={}), "manifest_invalid", "type"),
        (manifest_bytes(environment={"cwd": "/"}), "manifest_invalid", "missing_key"),
        (b"1" * 5000, "manifest_invalid", "json"),
        (b'{"a":1e999}', "manifest_invalid", "unknown_key"),
        (b"\xef\xbb\xbf{}", "manifest_invalid", "json"),
    ],
    ids=lambda value: repr(value)[:40] if isinstance(value, bytes) else str(value),
)
def test_hostile_manifests_are_refused(data: bytes, code: str, reason: str | None) -> None:
    """Every documented refusal, with its code and reason."""
    assert refusal(data, max_bytes=2_000_000 if data.startswith(b"{{") else 1_048_576) == (
        code,
        reason,
    )


def test_size_limit_is_pinned() -> None:
    data = manifest_bytes()
    assert decode_manifest(data, len(data)).skill_catalog.total == 0
    assert refusal(data, len(data) - 1) == ("manifest_invalid", "oversize")


def git_json(**change: object) -> bytes:
    git: dict[str, object] = {
        "branch": "m",
        "upstream": None,
        "ahead": 0,
        "behind": 0,
        "staged": 0,
        "unstaged": 0,
    }
    git |= {"untracked": 0, "conflicted": 0, "renamed": 0}
    git.update(change)
    env = {
        "cwd": "/",
        "shell": "sh",
        "os": "linux",
        "current_date": "d",
        "timezone": "UTC",
        "git": git,
    }
    return manifest_bytes(environment=env)


def test_git_counts_are_checked() -> None:
    assert decode_manifest(git_json(ahead=MAX_TOTAL)).environment is not None
    for bad in (True, -1, MAX_TOTAL + 1, 1.5, None):
        assert refusal(git_json(ahead=bad)) == ("manifest_invalid", "type")
        # The decoder refuses it itself, naming the JSON path, before any record sees it.
        with pytest.raises(DefinitionError, match=r"git\.ahead must be an integer"):
            decode_manifest(git_json(ahead=bad))
    assert refusal(git_json(branch=3)) == ("manifest_invalid", "type")


@given(st.binary(max_size=300))
def test_arbitrary_bytes_give_a_manifest_or_a_definition_error(data: bytes) -> None:
    try:
        manifest = decode_manifest(data)
    except DefinitionError as error:
        assert error.code in {"manifest_invalid", "catalog_total_unrepresentable"}
    else:
        assert decode_manifest(encode_manifest(manifest)) == manifest


def test_encoding_refuses_lone_surrogates_in_facts() -> None:
    facts = EnvironmentFacts("/\ud800", "sh", "linux", "d", "UTC", None)
    with pytest.raises(DefinitionError) as caught:
        encode_manifest(ContextManifest(facts, SkillCatalog(())))
    assert (caught.value.code, caught.value.reason) == ("manifest_invalid", "surrogate")


def brute_force_prefix(
    items: list[CatalogEntry], roots: tuple[str, ...], limit: int, facts: EnvironmentFacts | None
) -> int | None:
    """The longest prefix found by encoding every candidate manifest."""
    ordered = sorted(items, key=lambda e: e.name)
    best = None
    for k in range(len(ordered) + 1):
        catalog = SkillCatalog(tuple(ordered[:k]), len(ordered) - k, roots)
        if len(encode_manifest(ContextManifest(facts, catalog))) <= limit:
            best = k
    return best


@given(
    st.lists(catalog_entries(), max_size=10, unique_by=lambda e: e.name),
    st.lists(st.sampled_from(["/.agents/skills", "/é/skills"]), max_size=2).map(tuple),
    st.integers(0, 3000),
    st.none() | environment_facts(),
)
def test_publish_catalog_equals_brute_force(
    items: list[CatalogEntry], roots: tuple[str, ...], limit: int, facts: EnvironmentFacts | None
) -> None:
    """publish_catalog lists the longest sorted prefix that keeps the manifest within the limit."""
    best = brute_force_prefix(items, roots, limit, facts)
    try:
        catalog = publish_catalog(items, roots, limit, environment=facts)
    except DefinitionError as error:
        assert (error.code, error.reason) == ("manifest_invalid", "oversize")
        assert best is None
        return
    assert len(catalog.entries) == best
    assert catalog.total == len(items)
    assert [e.name for e in catalog.entries] == sorted(e.name for e in items)[
        : len(catalog.entries)
    ]
    assert len(encode_manifest(ContextManifest(facts, catalog))) <= limit


def test_publish_catalog_refuses_duplicates() -> None:
    entry = CatalogEntry("a", "d", "f")
    with pytest.raises(DefinitionError) as caught:
        publish_catalog([entry, entry], (), 10_000)
    assert caught.value.code == "catalog_invalid"


def test_manifest_version_is_checked() -> None:
    with pytest.raises(DefinitionError) as caught:
        ContextManifest(None, SkillCatalog(()), version=2)
    assert caught.value.code == "manifest_invalid"


@pytest.mark.parametrize("items", [[object()], 5, [CatalogEntry("a", "d", "f"), "b"]])
def test_publish_catalog_refuses_non_entries_with_a_definition_error(items: object) -> None:
    """No exception but DefinitionError leaves publish_catalog, whatever the items."""
    with pytest.raises(DefinitionError) as caught:
        publish_catalog(items, (), 10_000)  # type: ignore[arg-type]
    assert (caught.value.code, caught.value.reason) == ("catalog_invalid", "entries")


def test_manifest_holds_values_raw_so_the_encoder_list_does_not_change_its_bytes() -> None:
    """The manifest is data: values travel raw (JSON, no ASCII escaping), never encoder output.

    Widening the encoder's list (tag characters) changed no manifest: a manifest's bytes depend on
    the values alone, so its format (version 1) did not change.
    """
    hidden = "dates" + "".join(chr(0xE0000 + ord(c)) for c in "run") + "\u200b\u00ad<&"
    manifest = ContextManifest(None, SkillCatalog((CatalogEntry("a", hidden, "/s/a"),), 0, ()))
    assert encode_manifest(manifest) == (
        '{"environment":null,"skill_catalog":{"roots":[],"skills":[{"description":"'
        + hidden
        + '","file":"/s/a","name":"a"}],"unlisted":0},"version":1}'
    ).encode("utf-8")
    assert decode_manifest(encode_manifest(manifest)) == manifest


_LONE = "\ud800"


def _entry(**tampered: object) -> CatalogEntry:
    """An entry altered behind the frozen dataclass's back."""
    entry = CatalogEntry("a", "d", "f")
    for name, value in tampered.items():
        object.__setattr__(entry, name, value)
    return entry


def _encode_refusal(catalog: object) -> tuple[str, str | None]:
    """The code and reason with which ``encode_manifest`` refuses a forged catalog."""
    manifest = ContextManifest(None, SkillCatalog(()))
    object.__setattr__(manifest, "skill_catalog", catalog)
    with pytest.raises(DefinitionError) as caught:
        encode_manifest(manifest)
    return caught.value.code, caught.value.reason


def _forged(**fields: object) -> SkillCatalog:
    catalog = SkillCatalog((CatalogEntry("b", "d", "g"),), 0, ("r",))
    for name, value in fields.items():
        object.__setattr__(catalog, name, value)
    return catalog


@pytest.mark.parametrize(
    ("catalog", "reason"),
    [
        # A lone surrogate in any root or in any entry's name, description or file, with
        # valid roots and entries before and after it: "surrogate".
        (_forged(roots=("r", _LONE)), "surrogate"),
        (_forged(roots=(_LONE,), entries=(CatalogEntry("b", "d", "g"),) * 2), "surrogate"),
        (_forged(entries=(_entry(name=_LONE), CatalogEntry("b", "d", "g"))), "surrogate"),
        (_forged(entries=(CatalogEntry("b", "d", "g"), _entry(name=_LONE))), "surrogate"),
        (_forged(entries=(_entry(description=_LONE), CatalogEntry("b", "d", "g"))), "surrogate"),
        (_forged(entries=(_entry(file="x" + _LONE), CatalogEntry("b", "d", "g"))), "surrogate"),
        (SimpleNamespace(roots=(_LONE,)), "surrogate"),
        (SimpleNamespace(entries=(SimpleNamespace(file=_LONE),)), "surrogate"),
        # Everything else the catalog check refuses is "catalog": no surrogate, or one that
        # sits where a catalog holds no string (a list of roots or entries, another attribute).
        (_forged(unlisted=-1), "catalog"),
        (_forged(roots=[_LONE]), "catalog"),
        (_forged(entries=[_entry(name=_LONE)]), "catalog"),
        (_forged(entries=(object(),)), "catalog"),
        (_forged(entries=(_entry(description=5),)), "catalog"),
        (_forged(entries=(SimpleNamespace(path=_LONE),)), "catalog"),
        (None, "catalog"),
        (SimpleNamespace(), "catalog"),
    ],
)
def test_encoding_a_forged_catalog_says_whether_a_string_has_no_utf8_form(
    catalog: object, reason: str
) -> None:
    """contract §5: ``encode_manifest`` refuses a catalog forged past its constructor with
    ``manifest_invalid``; the reason is ``surrogate`` exactly when a root, name, description
    or file of it holds a lone surrogate, and ``catalog`` otherwise (never another error)."""
    assert _encode_refusal(catalog) == ("manifest_invalid", reason)


def _code_reason(call: object, *args: object) -> tuple[str, str | None]:
    assert callable(call)
    with pytest.raises(DefinitionError) as caught:
        call(*args)
    return caught.value.code, caught.value.reason


@pytest.mark.parametrize("bad", [-1, True, "5", 5.0, None])
def test_publish_catalog_refuses_a_bad_byte_limit(bad: object) -> None:
    """§5: ``max_manifest_bytes`` is a non-negative int, else ``manifest_invalid``/``type``."""
    assert _code_reason(publish_catalog, [], [], bad) == ("manifest_invalid", "type")


def test_publish_catalog_refuses_items_that_are_not_entries() -> None:
    """§3, §5: published items are ``CatalogEntry``, else ``catalog_invalid``/``entries``."""
    good = CatalogEntry("a", "d", "f")
    item = SimpleNamespace(name="b", description="d", file="f")
    assert _code_reason(publish_catalog, [good, item], [], 10_000) == ("catalog_invalid", "entries")


def test_publish_catalog_keeps_the_roots() -> None:
    """contract §5: the published catalog carries the configured roots."""
    published = publish_catalog([CatalogEntry("a", "d", "f")], ["r/", "s"], 10_000)
    assert published == SkillCatalog((CatalogEntry("a", "d", "f"),), 0, ("r/", "s"))


def test_manifest_construction_refusals_have_their_reasons() -> None:
    """§5: a bad version is reason ``version``; a wrong catalog or facts type is ``type``."""
    catalog = SkillCatalog(())
    assert _code_reason(ContextManifest, None, catalog, 2) == ("manifest_invalid", "version")
    assert _code_reason(ContextManifest, None, "catalog") == ("manifest_invalid", "type")
    assert _code_reason(ContextManifest, "facts", catalog) == ("manifest_invalid", "type")
    assert _code_reason(encode_manifest, "manifest") == ("manifest_invalid", "type")


def _facts(git: GitStatus | None) -> EnvironmentFacts:
    return EnvironmentFacts("/w", "bash", "linux", "2024-01-01", "UTC", git)


@pytest.mark.parametrize("ahead", [2**64, True])
def test_encoding_refuses_git_counts_decoding_would_refuse(ahead: int) -> None:
    """§5: ``encode_manifest`` never emits what ``decode_manifest`` refuses: a git count is a
    non-bool int up to 2**64 - 1 (``manifest_invalid``, reason ``type``)."""
    manifest = ContextManifest(
        _facts(GitStatus(None, None, ahead, 0, 0, 0, 0, 0, 0)), SkillCatalog(())
    )
    assert _code_reason(encode_manifest, manifest) == ("manifest_invalid", "type")
    good = ContextManifest(
        _facts(GitStatus("m", None, 2**64 - 1, 0, 0, 0, 0, 0, 0)), SkillCatalog(())
    )
    assert decode_manifest(encode_manifest(good)) == good


def test_encoding_refuses_a_lone_surrogate_in_a_tampered_catalog() -> None:
    """§5: a lone surrogate never reaches the manifest bytes, even in a catalog altered behind
    the frozen dataclass's back: ``manifest_invalid``, reason ``surrogate``."""
    catalog = SkillCatalog(())
    object.__setattr__(catalog, "roots", ("\ud800",))
    manifest = ContextManifest(None, catalog)
    assert _code_reason(encode_manifest, manifest) == ("manifest_invalid", "surrogate")


def test_publish_catalog_is_exact_at_every_manifest_size() -> None:
    """§5: the longest prefix whose whole manifest fits, by exact JSON sizes (mutant 025)."""
    items = [CatalogEntry(f"skill-{i}", f"does thing {i} ✓", f"/s/skill-{i}") for i in range(6)]
    roots = ("/s",)

    def size(listed: int) -> int:
        catalog = SkillCatalog(tuple(items[:listed]), len(items) - listed, roots)
        return len(encode_manifest(ContextManifest(None, catalog)))

    sizes = [size(listed) for listed in range(len(items) + 1)]
    for budget in range(sizes[0], sizes[-1] + 2):
        published = publish_catalog(items, roots, budget)
        fitting = max(k for k in range(len(items) + 1) if sizes[k] <= budget)
        assert len(published.entries) == fitting, budget
        assert len(encode_manifest(ContextManifest(None, published))) <= budget


# ------------------------------------------------------------------ hostile arguments, exactly
# The refusals of the arguments themselves (their wider family runs in
# test_hostile_arguments.py, which mutation testing does not run): exact code and reason.


@pytest.mark.parametrize(
    ("items", "roots"),
    [("ab", ()), (b"ab", ()), ((), "/skills"), ((), b"/skills"), ("ab", "/skills")],
    ids=repr,
)
def test_publish_catalog_refuses_strings_of_items_or_roots(items: object, roots: object) -> None:
    """A str or bytes of items or of roots is iterable, but a string of roots is one root, not
    one per character: ``catalog_invalid`` with reason ``roots``, whichever of the two it is."""
    assert _code_reason(publish_catalog, items, roots, 10_000) == ("catalog_invalid", "roots")


def _unset_manifest(**fields: object) -> ContextManifest:
    """A ContextManifest made past its constructor, with only ``fields`` set."""
    manifest = object.__new__(ContextManifest)
    for name, value in fields.items():
        object.__setattr__(manifest, name, value)
    return manifest


def test_encoding_a_manifest_with_unset_fields() -> None:
    """A manifest made with ``object.__new__`` is refused for its first missing field (version,
    then catalog), never an ``AttributeError``; an unset environment is no environment."""
    assert _code_reason(encode_manifest, _unset_manifest()) == ("manifest_invalid", "version")
    assert _code_reason(encode_manifest, _unset_manifest(version=1)) == (
        "manifest_invalid",
        "catalog",
    )
    unset = _unset_manifest(version=1, skill_catalog=SkillCatalog(()))
    assert encode_manifest(unset) == encode_manifest(ContextManifest(None, SkillCatalog(())))


@pytest.mark.parametrize(
    ("facts", "where"),
    [
        (EnvironmentFacts("/\ud800", "sh", "linux", "d", "UTC", None), "environment.cwd"),
        (EnvironmentFacts("/", "sh", "linux", "d", "\udfff", None), "environment.timezone"),
        (
            EnvironmentFacts(
                "/", "sh", "linux", "d", "UTC", GitStatus("\ud800", None, 0, 0, 0, 0, 0, 0, 0)
            ),
            "git.branch",
        ),
    ],
    ids=repr,
)
def test_a_lone_surrogate_in_facts_is_refused_where_it_sits(
    facts: EnvironmentFacts, where: str
) -> None:
    """The facts are checked as decode_manifest would check them before anything is encoded:
    ``manifest_invalid`` with reason ``surrogate``, and the message names the fact holding it
    (the whole-manifest encoder could only say "a string")."""
    for catalog in (SkillCatalog(()), SkillCatalog((CatalogEntry("a", "d", "f"),), 2, ("r",))):
        with pytest.raises(DefinitionError) as caught:
            encode_manifest(ContextManifest(facts, catalog))
        assert (caught.value.code, caught.value.reason) == ("manifest_invalid", "surrogate")
        assert where in caught.value.message


def _forged_facts(**fields: object) -> EnvironmentFacts:
    facts = EnvironmentFacts("/", "sh", "linux", "d", "UTC", None)
    for name, value in fields.items():
        object.__setattr__(facts, name, value)
    return facts


@pytest.mark.parametrize(
    "facts",
    [_forged_facts(cwd=5), _forged_facts(git="main"), _forged_facts(shell=None), "facts"],
    ids=repr,
)
def test_environment_json_refuses_facts_forged_past_their_type(facts: object) -> None:
    """``environment_json`` checks the facts it is handed: ``manifest_invalid``, reason ``type``."""
    assert _code_reason(environment_json, facts) == ("manifest_invalid", "type")
    assert environment_json(None) is None


@pytest.mark.parametrize("value", ["\ud800", ["a", "\udfff"], {"k": "\ud800"}], ids=repr)
def test_the_encoder_refuses_a_lone_surrogate_it_is_handed(value: object) -> None:
    """The last line of defence: whatever reaches the JSON encoder with a lone surrogate is
    ``manifest_invalid`` with reason ``surrogate`` (every public path checks before it)."""
    assert _code_reason(manifest_module._dumps, value) == ("manifest_invalid", "surrogate")
    assert manifest_module._dumps(["a", "é"]) == '["a","é"]'.encode()


# ------------------------------------------------------------- canonical means canonical


def _canonical_bytes(manifest: ContextManifest) -> bytes:
    return encode_manifest(manifest)


def _respellings(data: bytes) -> list[bytes]:
    """The same JSON value spelled another way: every byte a JSON reader accepts and
    ``encode_manifest`` would not write."""
    text = data.decode("utf-8")
    spelled = [
        b" " + data,
        data + b"\n",
        b"\t" + data,
        data.replace(b":", b": ", 1),
        data.replace(b",", b", ", 1),
        data.replace(b"{", b"{ ", 1),
        data.replace(b"{", b"{\n", 1),
        data.replace(b'"version":1', b'"version" :1'),
        data.replace(b'"version":1', b'"\\u0076ersion":1'),  # an escaped key
        data.replace(b"[", b"[ ", 1),
        data.replace(b'"version":1}', b'"version":1 }'),
    ]
    if '"name":"' in text:  # an escaped ASCII character inside a value
        at = text.index('"name":"') + len('"name":"')
        for escape in (f"\\u{ord(text[at]):04x}", f"\\u{ord(text[at]):04X}"):
            spelled.append((text[:at] + escape + text[at + 1 :]).encode("utf-8"))
    if "/" in text:
        spelled.append(text.replace("/", "\\/", 1).encode("utf-8"))
    wide = next((char for char in text if not char.isascii()), None)
    if wide is not None and len(wide.encode("utf-16-le")) == 2:  # a non-ASCII character escaped
        spelled.append(text.replace(wide, f"\\u{ord(wide):04x}", 1).encode("utf-8"))
    return [other for other in spelled if other != data]


@pytest.mark.parametrize(
    "respelled",
    _respellings(
        encode_manifest(
            ContextManifest(
                FACTS, SkillCatalog((CatalogEntry("a", "d", "/s/a/SKILL.md"),), 0, ("/s",))
            )
        )
    ),
)
def test_a_manifest_spelled_otherwise_is_refused_as_not_canonical(respelled: bytes) -> None:
    """Contract §5: the decoder accepts exactly what ``encode_manifest`` writes: a space
    after a colon, a tab, leading whitespace, an escaped key or ASCII character are refused
    (reason ``not_canonical``), although they spell the same JSON value."""
    assert refusal(respelled) == ("manifest_invalid", "not_canonical")


def assert_accepts_exactly_canonical(data: bytes) -> None:
    """``decode_manifest`` accepts ``data`` if and only if ``data`` is what encoding its
    value writes."""
    try:
        decoded = decode_manifest(data)
    except DefinitionError as error:
        assert error.code in ("manifest_invalid", "catalog_total_unrepresentable")
        return
    assert encode_manifest(decoded) == data


@given(manifests, st.data())
def test_decode_accepts_a_manifest_iff_it_is_its_own_encoding(
    manifest: ContextManifest, data: st.DataObject
) -> None:
    canonical = encode_manifest(manifest)
    assert decode_manifest(canonical) == manifest
    others = [b"\xef\xbb\xbf" + canonical, canonical.replace(b'"version":1', b'"version":1.0')]
    for respelled in [*_respellings(canonical), *others]:
        assert_accepts_exactly_canonical(respelled)
    # Any byte inserted anywhere: refused or (a digit, a letter in a string) canonical.
    at = data.draw(st.integers(0, len(canonical)))
    byte = data.draw(st.sampled_from([b" ", b"\t", b"\n", b"\r", b"\\", b"0", b"a"]))
    assert_accepts_exactly_canonical(canonical[:at] + byte + canonical[at:])


def test_negative_control_a_decoder_without_the_canonical_check_accepts_a_respelling(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The property sees a decoder that takes any spelling of a valid value."""
    monkeypatch.setattr(manifest_module, "_check_canonical", lambda data, manifest: None)
    with pytest.raises(AssertionError):
        assert_accepts_exactly_canonical(
            b" " + encode_manifest(ContextManifest(None, SkillCatalog(())))
        )
