"""The context manifest: catalog and facts as canonical JSON (docs/contract.md §5).

Shape (every key required, no other key allowed)::

    {"environment": null | {"cwd": str, "current_date": str, "git": null | {
         "ahead": u64, "behind": u64, "branch": str | null, "conflicted": u64,
         "renamed": u64, "staged": u64, "unstaged": u64, "untracked": u64,
         "upstream": str | null},
       "os": str, "shell": str, "timezone": str},
     "skill_catalog": {"roots": [str], "skills": [{"description": str, "file": str,
                        "name": str}], "unlisted": u64},
     "version": 1}

Canonical form: UTF-8, keys sorted, ``(",", ":")`` separators, no ASCII
escaping (what :func:`json.dumps` writes with those settings). Decoding is
strict: the manifest is untrusted input and crosses process boundaries.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from a13n_harness.context._checks import (
    describe,
    has_lone_surrogate,
    is_bytes_like,
    is_count,
    is_kind,
    is_u64,
    plain_bytes,
    plain_fields,
    plain_sequence,
)
from a13n_harness.context.catalog import CatalogEntry, SkillCatalog, check_catalog, plain_catalog
from a13n_harness.context.defaults import MAX_MANIFEST_BYTES
from a13n_harness.context.errors import DefinitionError
from a13n_harness.context.facts import EnvironmentFacts, GitStatus, facts_problem, plain_facts

__all__ = [
    "MANIFEST_VERSION",
    "MAX_MANIFEST_BYTES",
    "ContextManifest",
    "decode_manifest",
    "encode_manifest",
    "environment_json",
    "publish_catalog",
]

MANIFEST_VERSION = 1
_TOP_KEYS = frozenset({"environment", "skill_catalog", "version"})
_CATALOG_KEYS = frozenset({"roots", "skills", "unlisted"})
_ENTRY_KEYS = frozenset({"description", "file", "name"})
_ENV_KEYS = frozenset({"cwd", "shell", "os", "current_date", "timezone", "git"})
_GIT_COUNTS = ("ahead", "behind", "staged", "unstaged", "untracked", "conflicted", "renamed")
_GIT_KEYS = frozenset({"branch", "upstream", *_GIT_COUNTS})
_T = TypeVar("_T")


def _invalid(reason: str, message: str) -> DefinitionError:
    return DefinitionError("manifest_invalid", message, reason=reason)


def _check_version(version: object) -> None:
    if type(version) is not int or version != MANIFEST_VERSION:
        raise _invalid("version", f"unsupported manifest version {describe(version)}")


@dataclass(frozen=True, slots=True)
class ContextManifest:
    """What one operation pins about its checkout: facts and catalog data."""

    environment: EnvironmentFacts | None
    skill_catalog: SkillCatalog
    version: int = MANIFEST_VERSION

    def __post_init__(self) -> None:
        plain_fields(self)  # a Host's subclasses, and a forged facts record, as plain values
        object.__setattr__(self, "skill_catalog", plain_catalog(self.skill_catalog))
        _check_version(self.version)
        if not is_kind(self.skill_catalog, SkillCatalog):
            raise _invalid("type", "skill_catalog must be a SkillCatalog")
        if self.environment is not None and not is_kind(self.environment, EnvironmentFacts):
            raise _invalid("type", "environment must be EnvironmentFacts or None")


def _dumps(value: object) -> bytes:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        raise _invalid("surrogate", "a string holds a lone surrogate") from None


def _entry_json(entry: CatalogEntry) -> dict[str, str]:
    return {"description": entry.description, "file": entry.file, "name": entry.name}


def environment_json(facts: EnvironmentFacts | None) -> dict[str, Any] | None:
    """The manifest's ``environment`` value for ``facts`` (JSON-ready, not yet encoded)."""
    if facts is None:
        return None
    facts = plain_facts(facts)  # type: ignore[assignment]
    problem = facts_problem(facts)
    if problem is not None:
        raise _invalid("type", problem)
    git = facts.git
    return {
        "cwd": facts.cwd,
        "shell": facts.shell,
        "os": facts.os,
        "current_date": facts.current_date,
        "timezone": facts.timezone,
        "git": None
        if git is None
        else {
            "branch": git.branch,
            "upstream": git.upstream,
            **{count: getattr(git, count) for count in _GIT_COUNTS},
        },
    }


def _manifest_json(
    manifest: ContextManifest, environment: EnvironmentFacts | None
) -> dict[str, Any]:
    catalog = manifest.skill_catalog
    return {
        # The environment read once by encode_manifest: a manifest forged with
        # object.__new__ may have no environment attribute at all (no environment).
        "environment": environment_json(environment),
        "skill_catalog": {
            "roots": list(catalog.roots),
            "skills": [_entry_json(entry) for entry in catalog.entries],
            "unlisted": catalog.unlisted,
        },
        "version": manifest.version,
    }


def encode_manifest(m: ContextManifest) -> bytes:
    """The canonical JSON bytes of ``m``."""
    if not isinstance(m, ContextManifest):
        raise _invalid("type", f"expected ContextManifest, got {type(m).__name__}")
    # The same checks as construction, for a manifest forged past them.
    version = getattr(m, "version", None)
    _check_version(version)
    catalog = getattr(m, "skill_catalog", None)
    try:
        check_catalog(catalog)
    except DefinitionError as error:
        if error.code != "catalog_invalid":
            raise
        # A string without a UTF-8 form is the manifest's own "surrogate" refusal.
        reason = "surrogate" if _holds_lone_surrogate(catalog) else "catalog"
        raise DefinitionError("manifest_invalid", error.message, reason=reason) from error
    environment = getattr(m, "environment", None)
    if environment is not None:
        _check_environment_facts(environment)
    return _dumps(_manifest_json(m, environment))


def _holds_lone_surrogate(catalog: object) -> bool:
    """Whether a string of this (tampered) catalog's roots or entries has no UTF-8 form."""
    roots = getattr(catalog, "roots", ())
    entries = getattr(catalog, "entries", ())
    texts = [*(roots if isinstance(roots, tuple) else ())]
    for entry in entries if isinstance(entries, tuple) else ():
        texts += [getattr(entry, name, None) for name in ("name", "description", "file")]
    return any(isinstance(text, str) and has_lone_surrogate(text) for text in texts)


def _check_environment_facts(facts: EnvironmentFacts) -> None:
    """Refuse facts that decode_manifest would refuse, so encoding never emits them."""
    _decode_environment(environment_json(facts))


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _invalid("duplicate_key", f"duplicate key {key!r}")
        result[key] = value
    return result


def _no_constants(name: str) -> Any:
    raise _invalid("non_finite", f"{name} is not a JSON number")


def decode_manifest(data: bytes, max_bytes: int = MAX_MANIFEST_BYTES) -> ContextManifest:
    """Decode and validate untrusted manifest bytes.

    Raises ``DefinitionError(code="manifest_invalid")`` with a ``reason``
    (``oversize``, ``encoding``, ``json``, ``too_deep``, ``duplicate_key``,
    ``non_finite``, ``unknown_key``, ``missing_key``, ``type``, ``surrogate``,
    ``version``, ``catalog``, ``not_canonical``) or ``catalog_total_unrepresentable``.
    It accepts exactly the bytes :func:`encode_manifest` writes: ``data`` is accepted if
    and only if ``data == encode_manifest(decode_manifest(data))``.
    """
    if not is_bytes_like(data):
        raise _invalid("type", f"expected bytes, got {type(data).__name__}")
    if not is_count(max_bytes):
        raise _invalid("type", "max_bytes must be a non-negative int")
    # A Host's subclass as its plain bytes first: its __len__ and __bytes__ never run.
    raw: bytes = plain_bytes(data)  # type: ignore[assignment]
    if len(raw) > max_bytes:
        raise _invalid("oversize", f"manifest exceeds {max_bytes} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise _invalid("encoding", f"not UTF-8 at byte {error.start}") from None
    try:
        value = json.loads(
            text,
            object_pairs_hook=_no_duplicates,
            parse_constant=_no_constants,
            parse_int=_canonical_int,
        )
    except RecursionError:
        raise _invalid("too_deep", "JSON nesting too deep") from None
    except DefinitionError:
        raise
    except ValueError as error:  # JSONDecodeError, and integers past the digit limit
        raise _invalid("json", f"invalid JSON: {error}") from None
    top = _object(value, _TOP_KEYS, "manifest")
    version = top["version"]
    _check_version(version)
    environment = _decode_environment(top["environment"])
    manifest = ContextManifest(environment, _decode_catalog(top["skill_catalog"]), version)
    _check_canonical(raw, manifest)
    return manifest


def _check_canonical(data: bytes, manifest: ContextManifest) -> None:
    """Refuse ``data`` unless it is exactly what :func:`encode_manifest` writes for the value
    it decoded to (reason ``not_canonical``): JSON spells one value many ways (whitespace, a
    BOM, ``\\u0061`` for ``a``, ``\\/``, ``1.0``), and two byte strings that mean one
    manifest would defeat comparing, hashing or signing them. One encoding and one
    comparison, linear in the size; the message gives the first byte that differs."""
    canonical = encode_manifest(manifest)
    if canonical == data:
        return
    low, high = 0, min(len(data), len(canonical))  # the longest common prefix, by halves
    while low < high:
        middle = (low + high + 1) // 2
        if data[:middle] == canonical[:middle]:
            low = middle
        else:
            high = middle - 1
    raise _invalid(
        "not_canonical",
        f"not canonical at byte {low}: the manifest must be written as encode_manifest "
        "writes it (sorted keys, no whitespace, no escape a character does not need)",
    )


def _canonical_int(digits: str) -> int:
    """A JSON integer as ``encode_manifest`` writes one: ``-0`` is not canonical.

    Python reads ``-0`` as ``0``, which re-encodes to other bytes; the manifest is
    canonical (``encode_manifest(decode_manifest(b)) == b``), so it is refused. Any
    other negative number is refused as a count later (reason ``type``), and one
    past Python's 4,300-digit conversion limit as ``json``.
    """
    if digits == "-0":
        raise _invalid("type", "the integer -0 is not canonical (0 is written 0)")
    return int(digits)


def _object(value: object, keys: frozenset[str], where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _invalid("type", f"{where} must be an object")
    unknown = value.keys() - keys
    if unknown:
        raise _invalid("unknown_key", f"{where}: unknown key {sorted(unknown)[0]!r}")
    missing = keys - value.keys()
    if missing:
        raise _invalid("missing_key", f"{where}: missing key {sorted(missing)[0]!r}")
    return value


def _string(value: object, where: str) -> str:
    if not isinstance(value, str):
        raise _invalid("type", f"{where} must be a string")
    if has_lone_surrogate(value):
        raise _invalid("surrogate", f"{where} holds a lone surrogate")
    return value


def _count(value: object, where: str) -> int:
    # bool is an int subclass; a JSON true is not a count.
    if not is_u64(value):
        raise _invalid("type", f"{where} must be an integer from 0 to 2**64 - 1")
    return value


def _unlisted(value: object) -> int:
    # Unbounded here on purpose: a total past 2**64 - 1 is refused by the
    # catalog's checked total with its own code, catalog_total_unrepresentable.
    if not is_count(value):
        raise _invalid("type", "skill_catalog.unlisted must be a non-negative integer")
    return value


def _decode_environment(value: object) -> EnvironmentFacts | None:
    if value is None:
        return None
    env = _object(value, _ENV_KEYS, "environment")
    git_value = env["git"]
    git = None
    if git_value is not None:
        raw = _object(git_value, _GIT_KEYS, "environment.git")
        branch, upstream = raw["branch"], raw["upstream"]
        git = GitStatus(
            None if branch is None else _string(branch, "git.branch"),
            None if upstream is None else _string(upstream, "git.upstream"),
            *(_count(raw[count], f"git.{count}") for count in _GIT_COUNTS),
        )
    return EnvironmentFacts(
        _string(env["cwd"], "environment.cwd"),
        _string(env["shell"], "environment.shell"),
        _string(env["os"], "environment.os"),
        _string(env["current_date"], "environment.current_date"),
        _string(env["timezone"], "environment.timezone"),
        git,
    )


def _decode_catalog(value: object) -> SkillCatalog:
    raw = _object(value, _CATALOG_KEYS, "skill_catalog")
    roots, skills, unlisted = raw["roots"], raw["skills"], raw["unlisted"]
    if not isinstance(roots, list) or not isinstance(skills, list):
        raise _invalid("type", "skill_catalog.roots and .skills must be arrays")
    entries = []
    for index, skill in enumerate(skills):
        fields = _object(skill, _ENTRY_KEYS, f"skill_catalog.skills[{index}]")
        entries.append(
            _catalog_call(
                CatalogEntry,
                _string(fields["name"], "name"),
                _string(fields["description"], "description"),
                _string(fields["file"], "file"),
            )
        )
    return _catalog_call(
        SkillCatalog,
        tuple(entries),
        _unlisted(unlisted),
        tuple(_string(root, "skill_catalog.roots[]") for root in roots),
    )


def _catalog_call(build: Callable[..., _T], *args: Any) -> _T:
    """Build a catalog value, reporting its refusal as a manifest refusal."""
    try:
        return build(*args)
    except DefinitionError as error:
        if error.code == "catalog_invalid":
            raise DefinitionError("manifest_invalid", error.message, reason="catalog") from error
        raise


def publish_catalog(
    items: Iterable[CatalogEntry],
    roots: Iterable[str],
    max_manifest_bytes: int,
    *,
    environment: EnvironmentFacts | None = None,
) -> SkillCatalog:
    """The catalog listing the longest name-sorted prefix of ``items`` that fits.

    "Fits" means the whole encoded manifest (with ``environment``) is at most
    ``max_manifest_bytes`` bytes; the other items are counted in ``unlisted``.
    Sizes are exact JSON arithmetic: each entry is encoded once, never the
    whole manifest per prefix. Refused with ``manifest_invalid`` (reason
    ``oversize``) when even the manifest listing nothing does not fit.
    """
    if not is_count(max_manifest_bytes):
        raise _invalid("type", "max_manifest_bytes must be a non-negative int")
    given_items: object = items
    given_roots: object = roots
    if any(is_kind(given, str) or is_kind(given, bytes) for given in (given_items, given_roots)):
        # Iterable, but a string of roots is one root, not one per character.
        raise DefinitionError(
            "catalog_invalid", "items and roots must be collections, not strings", reason="roots"
        )
    try:
        # A list or tuple (or a Host's subclass, read by the base type: its own __iter__
        # and __len__ never run); any other iterable is iterated.
        given, root_tuple = _items(items), _items(roots)
    except TypeError:
        raise DefinitionError(
            "catalog_invalid", "items and roots must be iterables", reason="entries"
        ) from None
    # Checked before sorting, which would read .name of anything.
    if not all(is_kind(entry, CatalogEntry) for entry in given):
        raise DefinitionError("catalog_invalid", "items must be CatalogEntry", reason="entries")
    ordered = sorted(given, key=lambda entry: entry.name)
    # Validates names, order, roots and the total before any arithmetic.
    SkillCatalog(tuple(ordered), 0, root_tuple)
    total = len(ordered)
    empty = ContextManifest(environment, SkillCatalog((), total, root_tuple))
    # Size with no entry listed, minus the digits of its unlisted count.
    base = len(encode_manifest(empty)) - len(str(total))
    sizes = [len(_dumps(_entry_json(entry))) for entry in ordered]
    running = 0
    best = -1
    for listed in range(total + 1):
        if listed:
            # Entries after the first are preceded by a comma.
            running += sizes[listed - 1] + (1 if listed > 1 else 0)
        if base + running + len(str(total - listed)) <= max_manifest_bytes:
            best = listed
    if best < 0:
        raise _invalid("oversize", f"no manifest fits in {max_manifest_bytes} bytes")
    return SkillCatalog(tuple(ordered[:best]), total - best, root_tuple)


def _items(values: Iterable[_T]) -> tuple[_T, ...]:
    """``values`` as a plain tuple: a list or tuple (a subclass read by the base type), else
    what iterating it gives."""
    items = plain_sequence(values)
    return tuple(values) if items is None else tuple(items)  # type: ignore[arg-type]
