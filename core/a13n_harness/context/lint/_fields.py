"""The field checks: each frontmatter field against the specification and the profile's
platform, in the specification's own words."""

from __future__ import annotations

import re
from collections.abc import Set

from a13n_harness.context._checks import has_lone_surrogate
from a13n_harness.context.frontmatter import NAME_MAX_CHARS
from a13n_harness.context.lint._nodes import _BOOL, _core_type, _Mapping, _Node, _Scalar, _Sequence
from a13n_harness.context.lint._rules import (
    COMPATIBILITY_MAX_CHARS,
    DESCRIPTION_MAX_CHARS,
    PLATFORM_FIELDS,
    PLATFORM_NAMES,
    SPEC_FIELDS,
    FieldKind,
    Issue,
)
from a13n_harness.context.lint._text import _Text

_NAME_CHARS = re.compile(r"[a-z0-9-]*", re.ASCII)


class _Checker:
    def __init__(self, text: _Text, offset: int) -> None:
        self.text = text
        self.offset = offset  # code point index of the frontmatter in the file
        self.issues: list[Issue] = []

    def add(self, rule: str, node_index: int, message: str) -> None:
        line, column = self.text.where(self.offset + node_index)
        self.issues.append(Issue(rule, line, column, message))

    def string(self, rule: str, field: str, node: _Node) -> str | None:
        """The field's string value, or ``None`` after reporting why it is not one."""
        kind = _core_type(node)
        if kind is not None:
            hint = "; quote it" if isinstance(node, _Scalar) and node.value else ""
            self.add(rule, node.index, f"{field} must be a string, not {kind}{hint}")
            return None
        assert isinstance(node, _Scalar)
        if has_lone_surrogate(node.value):
            self.add(
                "skill_encoding_invalid",
                node.index,
                f"{field} holds a lone surrogate (a YAML escape such as \\ud800), "
                "which UTF-8 cannot carry",
            )
            return None
        return node.value

    def name(self, node: _Node, folder: str | None) -> None:
        value = self.string("skill_name_invalid", "name", node)
        if value is None:
            return
        problems = []
        if not 1 <= len(value) <= NAME_MAX_CHARS:
            problems.append(f"must be 1-{NAME_MAX_CHARS} characters (it has {len(value)})")
        if not _NAME_CHARS.fullmatch(value):
            problems.append("may only hold lowercase a-z, digits 0-9 and hyphens")
        if value.startswith("-") or value.endswith("-"):
            problems.append("must not start or end with a hyphen")
        if "--" in value:
            problems.append("must not contain consecutive hyphens")
        differs = folder is not None and value != folder
        if problems:
            # One defect, one finding: an invalid name cannot equal a valid folder name, so
            # the mismatch is part of this finding's message, not a second error.
            if differs:
                problems.append(f"differs from its folder {folder!r}")
            self.add("skill_name_invalid", node.index, f"name {value!r} " + "; ".join(problems))
        elif differs:
            self.add(
                "skill_name_mismatch",
                node.index,
                f"name {value!r} differs from its folder {folder!r}",
            )

    def description(self, node: _Node) -> None:
        value = self.string("skill_description_invalid", "description", node)
        if value is None:
            return
        if not value.strip():
            self.add("skill_description_invalid", node.index, "description is empty")
        elif len(value) > DESCRIPTION_MAX_CHARS:
            self.add(
                "skill_description_too_long",
                node.index,
                f"description has {len(value)} characters; the limit is {DESCRIPTION_MAX_CHARS}",
            )

    def compatibility(self, node: _Node) -> None:
        value = self.string("skill_compatibility_invalid", "compatibility", node)
        if value is None:
            return
        if not value:
            self.add("skill_compatibility_invalid", node.index, "compatibility is empty")
        elif len(value) > COMPATIBILITY_MAX_CHARS:
            self.add(
                "skill_compatibility_invalid",
                node.index,
                f"compatibility has {len(value)} characters; the limit is "
                f"{COMPATIBILITY_MAX_CHARS}",
            )

    def metadata(self, node: _Node) -> None:
        if not isinstance(node, _Mapping):
            kind = _core_type(node) or "a string"
            self.add("skill_metadata_invalid", node.index, f"metadata must be a map, not {kind}")
            return
        for key, value in node.pairs:
            key_kind = _core_type(key)
            if key_kind is not None:
                self.add(
                    "skill_metadata_invalid",
                    key.index,
                    f"metadata key must be a string, not {key_kind}; quote it",
                )
            self.string("skill_metadata_invalid", f"metadata value {key.value!r}", value)

    def allowed_tools(self, node: _Node) -> None:
        if isinstance(node, _Sequence):
            for item in node.items:
                self.string("skill_allowed_tools_invalid", "each allowed-tools item", item)
            return
        kind = _core_type(node)
        if kind is not None:
            self.add(
                "skill_allowed_tools_invalid",
                node.index,
                f"allowed-tools must be a space-delimited string or a list of strings, not {kind}",
            )
            return
        self.string("skill_allowed_tools_invalid", "allowed-tools", node)

    def platform_field(self, field: str, kind: FieldKind, node: _Node) -> None:
        """A field a platform documents, checked against the type its documentation gives."""
        rule = "skill_field_invalid"
        if kind == "boolean":
            if not (isinstance(node, _Scalar) and node.plain and _BOOL.fullmatch(node.value)):
                found = _core_type(node) or "a string"
                self.add(rule, node.index, f"{field} must be true or false, not {found}")
        elif kind == "map":
            if not isinstance(node, _Mapping):
                found = _core_type(node) or "a string"
                self.add(rule, node.index, f"{field} must be a map, not {found}")
        elif kind == "string-or-list" and isinstance(node, _Sequence):
            for item in node.items:
                self.string(rule, f"each {field} item", item)
        else:
            self.string(rule, field, node)

    def field(
        self, key: _Scalar, value: _Node, profile: str, present: Set[str] = frozenset()
    ) -> None:
        """A top-level field outside the specification, judged by ``profile``; ``present``
        holds every top-level key of the frontmatter."""
        own = PLATFORM_FIELDS.get(profile, {})
        if key.value in own:
            self.platform_field(key.value, own[key.value], value)
            return
        owners = [name for name, fields in PLATFORM_FIELDS.items() if key.value in fields]
        if owners:
            platforms = _listed([PLATFORM_NAMES[name] for name in owners])
            profiles = " or ".join(f"--profile {name}" for name in owners)
            self.add(
                "skill_field_not_portable",
                key.index,
                f"field {key.value!r} is defined by {platforms}, not by the Agent Skills "
                f"specification; other clients ignore it (lint with {profiles} "
                "when the skill is written for it)",
            )
            self.platform_field(key.value, PLATFORM_FIELDS[owners[0]][key.value], value)
            return
        allowed = ", ".join((*SPEC_FIELDS, *own))
        meant = near_miss(key.value)
        if meant is None:
            advice = "put it under metadata"
        elif meant in present:
            # Renaming it would make a duplicate key: --fix leaves such a field alone.
            advice = f"did you mean `{meant}`? (`{meant}` is set as well: keep one of the two)"
        else:
            advice = f"did you mean `{meant}`?"
        self.add(
            "skill_field_unknown",
            key.index,
            f"field {key.value!r} is defined neither by the specification nor by a known "
            f"platform (allowed: {allowed}); {advice}",
        )


def _listed(names: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


# Every field a profile knows: the specification's and each platform's, in a fixed order.
_KNOWN_FIELDS = tuple(
    dict.fromkeys((*SPEC_FIELDS, *(f for fields in PLATFORM_FIELDS.values() for f in fields)))
)
# How far a spelling may be from the field meant: one edit for a short name (`mode` is a
# word of its own, not `model` mistyped, as often as not), two from five characters on.
_SHORT = 5


def _distance(a: str, b: str, bound: int) -> int:
    """The edit distance (insert, delete, change one character, swap two neighbours: the
    optimal string alignment distance) of ``a`` and ``b``, or ``bound + 1`` once it is
    certainly more than ``bound``: a field name is short, and the rows are cut off past the
    band, so the work stays small."""
    if abs(len(a) - len(b)) > bound:
        return bound + 1
    before: list[int] = []  # the row two rows up, for a swap
    previous = list(range(len(b) + 1))
    for i, char in enumerate(a, 1):
        current = [i]
        for j, other in enumerate(b, 1):
            cost = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (char != other))
            if i > 1 and j > 1 and char == b[j - 2] and a[i - 2] == other:
                cost = min(cost, before[j - 2] + 1)  # `nmae` is `name` with two letters swapped
            current.append(cost)
        if min(current) > bound:
            return bound + 1
        before, previous = previous, current
    return previous[-1]


# A key longer than this is no spelling of a field (the longest is 24 characters).
_NEAR_MAX = 40


def _folded(name: str) -> str:
    """``name`` with case and separators set aside: ``User_Invocable`` is ``user-invocable``."""
    return name.lower().replace("_", "-").replace(" ", "-")


def _joined(name: str) -> str:
    """``name`` folded with its separators dropped: camelCase ``userInvocable`` and
    ``user-invocable`` are one spelling, whatever else is mistyped."""
    return _folded(name).replace("-", "")


def near_miss(name: str) -> str | None:
    """The known field ``name`` most likely spells (another separator or case, or one or two
    characters off), or ``None``. Ties go to the first field in :data:`_KNOWN_FIELDS`."""
    if len(name) > _NEAR_MAX:
        return None
    spelled, joined = _folded(name), _joined(name)
    best: tuple[int, str] | None = None
    for field in _KNOWN_FIELDS:
        bound = 1 if len(field) < _SHORT else 2
        distance = min(
            _distance(spelled, _folded(field), bound), _distance(joined, _joined(field), bound)
        )
        if distance <= bound and (best is None or distance < best[0]):
            best = (distance, field)
    return None if best is None else best[1]
