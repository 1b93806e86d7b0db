"""The frontmatter as YAML nodes with their positions, typed as a YAML 1.2 core-schema
reader types them: what the field checks and the content rules read."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

import yaml


@dataclass(frozen=True, slots=True)
class _Scalar:
    value: str
    plain: bool
    index: int


@dataclass(frozen=True, slots=True)
class _Mapping:
    pairs: tuple[tuple[_Scalar, _Node], ...]
    index: int


@dataclass(frozen=True, slots=True)
class _Sequence:
    items: tuple[_Node, ...]
    index: int


_Node = _Scalar | _Mapping | _Sequence

_NULL = re.compile(r"~|null|Null|NULL|")
_BOOL = re.compile(r"true|True|TRUE|false|False|FALSE")
_INT = re.compile(r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+")
_FLOAT = re.compile(
    r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN"
)


def _core_type(node: _Node) -> str | None:
    """What a YAML 1.2 core-schema reader makes of ``node`` when it is not a string."""
    if isinstance(node, _Mapping):
        return "a map"
    if isinstance(node, _Sequence):
        return "a list"
    if not node.plain:
        return None
    if _NULL.fullmatch(node.value):
        return "null (empty)" if not node.value else f"null ({node.value})"
    if _BOOL.fullmatch(node.value):
        return f"the boolean {node.value}"
    if _INT.fullmatch(node.value) or _FLOAT.fullmatch(node.value):
        return f"the number {node.value}"
    return None


def _frontmatter_nodes(events: Iterable[yaml.Event]) -> _Mapping:
    """The frontmatter's root mapping, from the YAML events the parser streamed for it
    (:class:`~a13n_harness.context.frontmatter.ParseRecord`: the one parse of the document);
    only called once the parser's guards have passed.

    Built with an explicit stack (never recursion); indexes are code points of the
    frontmatter.
    """
    stack: list[tuple[list[_Node], int, bool]] = []  # (children, index, is_mapping)
    root: _Node | None = None
    for event in events:
        index = event.start_mark.index if event.start_mark is not None else 0
        node: _Node
        if isinstance(event, yaml.ScalarEvent):
            node = _Scalar(event.value, bool(event.implicit[0]), index)
        elif isinstance(event, yaml.MappingStartEvent | yaml.SequenceStartEvent):
            stack.append(([], index, isinstance(event, yaml.MappingStartEvent)))
            continue
        elif isinstance(event, yaml.MappingEndEvent | yaml.SequenceEndEvent):
            children, start, is_mapping = stack.pop()
            if is_mapping:
                keys = children[0::2]
                values = children[1::2]
                node = _Mapping(
                    tuple(
                        (key, value)
                        for key, value in zip(keys, values, strict=True)
                        if isinstance(key, _Scalar)
                    ),
                    start,
                )
            else:
                node = _Sequence(tuple(children), start)
        else:
            continue
        if stack:
            stack[-1][0].append(node)
        else:
            root = node
    # Called only once the parser passed the root: a mapping (not_mapping refuses the rest).
    assert isinstance(root, _Mapping)
    return root


def _scalars(root: _Mapping) -> list[_Scalar]:
    """Every scalar of the frontmatter, keys and values, in document order (no recursion)."""
    found: list[_Scalar] = []
    stack: list[_Node] = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, _Scalar):
            found.append(node)
        elif isinstance(node, _Mapping):
            stack.extend(item for pair in reversed(node.pairs) for item in reversed(pair))
        else:
            stack.extend(reversed(node.items))
    return found
