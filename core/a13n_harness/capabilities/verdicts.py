"""The process-wide memo of frontmatter verdicts discovery consults before parsing.

A rescan of an unchanged tree (each operation rediscovers, the checkout seed says)
reads every ``SKILL.md`` again but need not parse it again:
:func:`~a13n_harness.context.frontmatter.parse_skill_document` is a pure function of
the document's bytes and its :class:`~a13n_harness.context.frontmatter.FrontmatterLimits`,
so the memo answers on exactly those, the bytes themselves (compared in full on a hit,
never a digest) and the whole limits value (every field: ``max_bytes``, ``max_depth``,
``max_nodes``, ``max_description_chars``), both kept with the verdict and compared on a
hit. A scan finds the entry by the document's path (hashing a fresh copy of every
document cost more than the rest of a lookup); other callers by the bytes.
Nothing else changes a verdict. Least recently used entries go first; one lock guards
it (scans of several threads share it).
"""

from __future__ import annotations

import _thread  # threading.Lock itself; the threading module is not needed (start-up)
from collections import OrderedDict

from a13n_harness.context._checks import plain_bytes
from a13n_harness.context.errors import DefinitionError, FrontmatterError
from a13n_harness.context.frontmatter import (
    FrontmatterLimits,
    SkillFrontmatter,
    _limits_problem,
    decisive_prefix,
    parse_skill_document,
)

__all__ = [
    "MEMO_BYTES",
    "MEMO_ENTRIES",
    "Refusal",
    "Verdict",
    "clear_verdict_memo",
    "document_verdict",
    "memo_size",
]

Refusal = tuple[str, str, int | None, int | None]
"""A frontmatter refusal as values: reason, message, line, column."""

Verdict = SkillFrontmatter | Refusal

# 4,096 verdicts and 16 MiB of documents: eight full catalogs of typical
# skills, so rescans of unchanged files skip the parser, while a hostile tree
# of near-limit files cannot make the memo hold more than 16 MiB.
MEMO_ENTRIES = 4_096
MEMO_BYTES = 16 << 20


def check_limits(limits: object) -> FrontmatterLimits:
    """``limits`` if it is a valid :class:`FrontmatterLimits` (also one forged past its
    constructor), else ``catalog_invalid`` (reason ``policy``)."""
    problem = _limits_problem(limits)
    if problem is not None:
        raise DefinitionError("catalog_invalid", problem, reason="policy")
    assert isinstance(limits, FrontmatterLimits)
    return limits


class _VerdictMemo:
    """Verdicts of :func:`parse_skill_document`, each kept with the bytes and the limits it
    was given; see the module.

    An entry is found by the document's path when the caller has one (a scan does), else
    by its bytes, and answers only for the very bytes (compared in full) and an equal
    limits value; anything else replaces it. Hashing a rescan's fresh copy of every
    document, and the limits value, cost more than the rest of a lookup."""

    def __init__(self) -> None:
        self._entries: OrderedDict[str | bytes, tuple[bytes, FrontmatterLimits, Verdict]] = (
            OrderedDict()
        )
        self._bytes = 0
        self._lock = _thread.allocate_lock()

    def verdict(self, data: bytes, limits: FrontmatterLimits, key: str | bytes) -> Verdict:
        with self._lock:
            found = self._entries.get(key)
            if (
                found is not None
                and (found[1] is limits or found[1] == limits)
                and found[0] == data
            ):
                self._entries.move_to_end(key)
                return found[2]
        result: Verdict
        try:
            result = parse_skill_document(data, limits)
        except FrontmatterError as error:
            result = _refusal(error)
        self.remember(data, limits, key, result)
        return result

    def remember(
        self, data: bytes, limits: FrontmatterLimits, key: str | bytes, result: Verdict
    ) -> None:
        """Keep ``result``, the verdict of ``data`` at ``limits``, under ``key``."""
        if len(data) <= MEMO_BYTES // 64:
            with self._lock:
                replaced = self._entries.pop(key, None)
                if replaced is not None:
                    self._bytes -= len(replaced[0])
                self._entries[key] = (data, limits, result)
                self._bytes += len(data)
                while len(self._entries) > MEMO_ENTRIES or self._bytes > MEMO_BYTES:
                    _, (old, _, _) = self._entries.popitem(last=False)
                    self._bytes -= len(old)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._bytes = 0

    def size(self) -> tuple[int, int]:
        with self._lock:
            return len(self._entries), self._bytes


def _refusal(error: FrontmatterError) -> Refusal:
    return (error.reason or "yaml_syntax", error.message, error.line, error.column)


_MEMO = _VerdictMemo()


def remember_verdict(
    path: str,
    data: bytes,
    limit: int,
    limits: FrontmatterLimits,
    verdict: SkillFrontmatter | FrontmatterError,
) -> None:
    """Hand the memo the verdict of a whole ``SKILL.md`` a caller has parsed already, so a
    scan reading it at ``path`` at ``limit`` (:func:`document_verdict`) does not parse it again
    (lint reads and parses each file once, docs/decisions.md "Lint reads once, parses once").

    ``data`` must be the whole file and ``verdict`` what ``parse_skill_document(data,
    limits)`` gave (the value, or the :class:`FrontmatterError` it raised). It is kept for the
    bytes a read of ``limit`` decides on (:func:`decisive_prefix`), whose verdict is the whole
    file's; when that read cannot decide, nothing is kept. A hit still compares those bytes in
    full, as every hit does. The command line's (lint), so not in ``__all__``."""
    decisive = decisive_prefix(data[:limit], limit, limits.max_bytes)
    if decisive is None:
        return
    result = verdict if isinstance(verdict, SkillFrontmatter) else _refusal(verdict)
    _MEMO.remember(decisive, limits, path, result)


def clear_verdict_memo() -> None:
    """Forget every remembered frontmatter verdict (benchmarks measure first scans with it)."""
    _MEMO.clear()


def memo_size() -> tuple[int, int]:
    """How many verdicts the memo holds and how many document bytes they key on."""
    return _MEMO.size()


def document_verdict(
    data: bytes, limit: int, limits: FrontmatterLimits, path: str | None = None
) -> Verdict | None:
    """The verdict for a read of at most ``limit`` bytes, ``None`` while undecided.

    ``path``, when given, is where the memo looks first (the verdict still answers only
    for these very bytes). Only the type of ``limits`` is checked here (once per
    document, on the scan's hot path): the parser refuses forged field values itself,
    and a scan checks them once."""
    if not isinstance(limits, FrontmatterLimits):
        raise DefinitionError(
            "catalog_invalid", "limits must be FrontmatterLimits", reason="policy"
        )
    data = plain_bytes(data)  # type: ignore[assignment]  # a Host's subclass: its bytes
    decisive = decisive_prefix(data, limit, limits.max_bytes)
    if decisive is None:
        return None
    return _MEMO.verdict(decisive, limits, decisive if type(path) is not str else path)
