"""What the entries of one listed root are: the root's own package, package candidates, skips.

Pure work on a listing (no I/O), split out of the discovery engine: the engine lists a
root, :func:`checked_listing` checks the listing is one a file system can produce and
orders it, :func:`classify` turns each entry into a :class:`Candidate` (a ``SKILL.md`` to
read) or a ``skill_entry_skipped`` diagnostic carrying a reason code from
:data:`~a13n_harness.capabilities.items.SKIP_REASONS`:

* ``SKILL.md`` (a file or link) makes the root itself a package; as a directory or
  any other kind it is skipped (``root_document_not_a_file``);
* every other entry that is a directory or a link, not hidden, is a package candidate
  (``{entry}/SKILL.md``);
* a hidden entry (``hidden``), a name that is not valid Unicode (``name_not_unicode``),
  a file or another kind (``not_a_package_folder``) is skipped.

Entries come in code-point order of their names, never the OS order.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import attrgetter

from a13n_harness.capabilities.items import SkillDiagnostic
from a13n_harness.context._checks import describe, has_lone_surrogate, is_kind, plain_str
from a13n_harness.context.errors import DefinitionError
from a13n_harness.environment import ENTRY_KINDS, DirectoryEntry, join_path
from a13n_harness.environment.errors import contained_error
from a13n_harness.environment.operator import plain_sequence

__all__ = ["SKILL_FILE", "Candidate", "checked_listing", "classify"]

SKILL_FILE = "SKILL.md"


class Candidate:
    """A SKILL.md to read and the root entry it belongs to.

    A plain class, not a dataclass: generating one costs the command's start-up
    about a millisecond, and nothing compares, hashes or prints a candidate.
    """

    __slots__ = ("document", "entry")

    def __init__(self, document: str, entry: str | None) -> None:
        self.document = document
        self.entry = entry  # None: the root's own package


def provider_failed(message: str, path: str, cause: BaseException | None = None) -> DefinitionError:
    """``skill_provider_failed`` at ``path``; ``cause`` (a Host's exception) is described
    by :func:`~a13n_harness.environment.errors.contained_error`, never by its own text."""
    detail = f"{message}: {contained_error(cause).message}" if cause is not None else message
    return DefinitionError("skill_provider_failed", detail, path=path)


_by_name = attrgetter("name")  # what a listing is sorted by, in C (once per entry of a root)
_ENTRY_NAME = DirectoryEntry.__dict__["name"]  # the slots, read by the base type
_ENTRY_KIND = DirectoryEntry.__dict__["kind"]


def _plain_entry(entry: object, root: str) -> DirectoryEntry:
    """A Host's entry as a plain :class:`DirectoryEntry`: a subclass's fields are read from
    the slots (never through its properties), ``str``-subclass fields become plain ``str``."""
    if is_kind(entry, DirectoryEntry):
        name = plain_str(_ENTRY_NAME.__get__(entry))
        kind = plain_str(_ENTRY_KIND.__get__(entry))
        if type(name) is str and type(kind) is str:
            return DirectoryEntry(name, kind)  # type: ignore[arg-type]  # checked by the caller
    raise provider_failed(f"not a directory entry: {describe(entry)}", root)


def checked_listing(listing: object, root: str, limit: int) -> list[DirectoryEntry]:
    """``listing`` sorted by name, if it is a list or tuple of at most ``limit`` distinct
    :class:`DirectoryEntry` values with names a file system produces.

    What a Host's operator returned is taken as its exact built-in value: a ``list`` or
    ``tuple`` subclass is read by the base type (its ``__iter__`` and ``__len__`` never
    run), each entry becomes a plain :class:`DirectoryEntry` of plain ``str`` fields
    (:func:`_plain_entry`). More than ``limit`` entries is ``skill_root_overflow``
    (never a silent cut); anything impossible is ``skill_provider_failed`` (the
    operator fails as a whole).
    """
    entries: list[DirectoryEntry] | None = plain_sequence(listing)  # type: ignore[assignment]
    if entries is None:
        raise provider_failed("the listing is not a list or tuple of entries", root)
    if len(entries) > limit:
        raise DefinitionError(
            "skill_root_overflow",
            f"{len(entries)} entries listed, more than max_entries_per_root={limit}",
            path=root,
        )
    seen: set[str] = set()
    for index, entry in enumerate(entries):
        if not (
            type(entry) is DirectoryEntry and type(entry.name) is str and type(entry.kind) is str
        ):
            entry = entries[index] = _plain_entry(entry, root)
        if entry.kind not in ENTRY_KINDS:
            raise provider_failed(f"not a directory entry: {describe(entry)}", root)
        name = entry.name
        if name in ("", ".", "..") or "/" in name or "\x00" in name or name in seen:
            raise provider_failed(f"impossible or repeated entry name {describe(name)}", root)
        seen.add(name)
    return sorted(entries, key=_by_name)


def classify(
    root: str, entries: Sequence[DirectoryEntry], source_id: str
) -> list[SkillDiagnostic | Candidate]:
    """One slot per entry, in entry order: a candidate to read or a skip diagnostic."""
    slots: list[SkillDiagnostic | Candidate] = []
    for entry in entries:
        path = join_path(root, entry.name)
        skip: tuple[str, str] | None = None
        if entry.name == SKILL_FILE:
            if entry.kind in ("file", "symlink"):
                slots.append(Candidate(path, None))
                continue
            skip = (
                "root_document_not_a_file",
                f"{SKILL_FILE} at the root is a {entry.kind}, not a file",
            )
        elif entry.name.startswith("."):
            skip = ("hidden", "hidden entry")
        elif not entry.name.isascii() and has_lone_surrogate(entry.name):
            skip = ("name_not_unicode", "entry name is not valid Unicode")
        elif entry.kind in ("file", "other"):
            skip = ("not_a_package_folder", f"a {entry.kind}, not a package directory")
        if skip is not None:
            reason, message = skip
            slots.append(SkillDiagnostic("skill_entry_skipped", message, path, source_id, reason))
        else:
            slots.append(Candidate(f"{path}/{SKILL_FILE}", entry.name))  # path: a plain str
    return slots
