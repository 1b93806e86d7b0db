"""Activating a selected skill in a run: the I/O side (docs/contract.md §10).

:meth:`PreparedSkills.activate <a13n_harness.capabilities.PreparedSkills.activate>` comes
here. Inside the run's fence (a tool call: ``skill_catalog_stale`` before anything is read
once a selected route moved, and after, so a change during the activation withholds it):

1. the name must be a selected skill (``skill_selection_unknown`` otherwise); with
   ``by="model"`` it must also be offered to the model (not ``disable-model-invocation``);
2. a skill already activated in this run gets a short note
   (:func:`~a13n_harness.context.activation.repeat_activation`), and nothing is read;
3. through a scope pinned to the route the scan bound the skill's folder to (the
   discovery's own confinement: nothing outside the mount, links resolved inside it), the
   ``SKILL.md`` is read (at most :data:`MAX_ACTIVATION_READ` bytes), its frontmatter must
   still give the scanned name, description and invocation (else the document changed:
   ``skill_catalog_stale``), the folder's resources are listed (:func:`list_resources`,
   no file is read), and the ``SKILL.md`` is read again and compared byte for byte
   (``skill_catalog_stale`` on any difference), as discovery's final re-read does;
4. the pure renderer (:func:`~a13n_harness.context.activation.render_activation`) builds the
   text within the run's activation allowance, in the run's tokenizer when it has one, and
   the result is certified (:func:`~a13n_harness.context.activation.check_activation`)
   before it is handed out.

:func:`verify_activation` certifies an activation against what the run read for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from a13n_harness.context._checks import describe, plain_str, type_name
from a13n_harness.context.activation import (
    ActivationSource,
    SkillActivation,
    check_activation,
    check_repeat,
    render_activation,
    repeat_activation,
)
from a13n_harness.context.errors import DefinitionError
from a13n_harness.context.frontmatter import FrontmatterLimits, parse_skill_document
from a13n_harness.environment import (
    DirectoryEntry,
    FileOperatorError,
    FilePermissionDenied,
    is_canonical_path,
    join_path,
)

if TYPE_CHECKING:
    from a13n_harness.capabilities.bound import BoundSkillCatalogItem
    from a13n_harness.capabilities.skills import PreparedSkills
    from a13n_harness.environment import Environment, FileOperator

__all__ = [
    "ACTIVATED_BY",
    "MAX_ACTIVATION_READ",
    "MAX_RESOURCE_DEPTH",
    "MAX_RESOURCE_ENTRIES",
    "SkillActivation",
    "activate",
    "list_resources",
    "verify_activation",
]

ACTIVATED_BY = ("model", "user")
"""Who activates: the model (through a tool; user-only skills refused) or the user."""

# 4 MiB: the largest SKILL.md lint reads too (eighty times the largest published one); a
# longer file is read this far and its body is cut, with the marker, whatever the budget.
MAX_ACTIVATION_READ = 4 * 1024 * 1024

# 10,000 listed entries per activation: a skill's scripts, references and assets are tens
# of files; more is a vendored tree, and listing it whole would stall the tool call.
MAX_RESOURCE_ENTRIES = 10_000

# 16 folder levels below the skill's folder: real skills nest two or three; deeper is a
# generated tree (and the bound keeps the walk's stack small).
MAX_RESOURCE_DEPTH = 16


def _check_by(by: object) -> str:
    by = plain_str(by)  # a Host's str subclass: its characters decide, none of its methods
    for known in ACTIVATED_BY:
        if type(by) is str and by == known:
            return known
    raise DefinitionError(
        "catalog_invalid",
        f"by must be one of {', '.join(ACTIVATED_BY)}, got {describe(by)}",
        reason="activation",
    )


def _checked_name(name: object) -> str:
    plain = plain_str(name)
    if type(plain) is not str:
        raise DefinitionError(
            "skill_selection_unknown", f"a skill name is a str, got {describe(name)}"
        )
    return plain


def selected_item(prepared: PreparedSkills, name: object, by: object) -> BoundSkillCatalogItem:
    """The selected item ``name`` that ``by`` may activate, else ``skill_selection_unknown``."""
    who = _check_by(by)
    checked = _checked_name(name)
    item = prepared.catalog.item(checked)
    if item is None:
        raise DefinitionError(
            "skill_selection_unknown",
            f"no selected skill is named {describe(checked)}",
        )
    if who == "model" and item.disable_model_invocation:
        raise DefinitionError(
            "skill_selection_unknown",
            f"skill {checked!r} is activated by the user only (disable-model-invocation)",
        )
    return item


def _walk_error(error: FileOperatorError, path: str) -> DefinitionError:
    if isinstance(error, FilePermissionDenied):
        return DefinitionError("skill_permission_denied", error.message, path=path)
    return DefinitionError("skill_provider_failed", error.message, path=path)


async def list_resources(files: FileOperator, directory: str) -> tuple[str, ...]:
    """Every resource of the skill folder ``directory``: relative paths, sorted.

    A resource is a regular file below the folder other than its own ``SKILL.md``, found
    by listing folders only (no file is read, no link is followed: a link may lead out of
    the folder, so it is not listed). Hidden entries (a name starting with ``.``) are not
    resources. The walk is bounded: more than :data:`MAX_RESOURCE_ENTRIES` listed entries
    or a folder deeper than :data:`MAX_RESOURCE_DEPTH` is ``skill_root_overflow`` (never a
    silent cut, so the omitted count stays exact). A folder the operator refuses or fails
    to list is ``skill_permission_denied`` or ``skill_provider_failed``.
    """
    if not callable(getattr(files, "list_directory", None)) or not is_canonical_path(directory):
        raise DefinitionError(
            "skill_provider_failed",
            f"list_resources needs a file operator and a canonical folder path, got "
            f"{describe(files)} and {describe(directory)}",
        )
    found: list[str] = []
    seen = 0
    pending: list[tuple[str, str, int]] = [(directory, "", 0)]  # path, relative prefix, depth
    while pending:
        path, prefix, depth = pending.pop()
        try:
            listing: object = await files.list_directory(path)
        except FileOperatorError as error:
            raise _walk_error(error, path) from None
        except DefinitionError:
            raise  # a stale scope keeps its code
        except Exception as error:  # the Host's operator failed: still only DefinitionError
            raise DefinitionError(
                "skill_provider_failed",
                f"listing the skill folder raised {type_name(type(error))}",
                path=path,
            ) from None
        if not isinstance(listing, list | tuple) or not all(
            isinstance(entry, DirectoryEntry) for entry in listing
        ):
            raise DefinitionError(
                "skill_provider_failed", "the listing is not a sequence of entries", path=path
            )
        seen += len(listing)
        if seen > MAX_RESOURCE_ENTRIES:
            raise DefinitionError(
                "skill_root_overflow",
                f"more than {MAX_RESOURCE_ENTRIES} entries below the skill folder",
                path=directory,
                reason="resources",
            )
        for entry in listing:
            name = entry.name
            if type(name) is not str or name in ("", ".", "..") or "/" in name or "\x00" in name:
                raise DefinitionError(
                    "skill_provider_failed", f"impossible entry name {describe(name)}", path=path
                )
            if name.startswith(".") or (depth == 0 and name == "SKILL.md"):
                continue
            relative = f"{prefix}{name}"
            if entry.kind == "file":
                found.append(relative)
            elif entry.kind == "directory":
                if depth + 1 > MAX_RESOURCE_DEPTH:
                    raise DefinitionError(
                        "skill_root_overflow",
                        f"folders nest deeper than {MAX_RESOURCE_DEPTH} below the skill folder",
                        path=join_path(path, name),
                        reason="resources",
                    )
                pending.append((join_path(path, name), f"{relative}/", depth + 1))
    found.sort()
    return tuple(found)


def _changed(item: BoundSkillCatalogItem, why: str) -> DefinitionError:
    return DefinitionError(
        "skill_catalog_stale",
        f"the SKILL.md of skill {item.name!r} {why} since the scan",
        path=item.path,
    )


async def read_source(
    environment: Environment,
    item: BoundSkillCatalogItem,
    limits: FrontmatterLimits,
    shown: str | None = None,
) -> ActivationSource:
    """Read ``item``'s document and resources through a scope pinned to its scanned route;
    ``shown`` is the directory the text names (default: the Environment path)."""
    async with environment.open_scope(item.directory) as files:
        data = await files.read_bytes(item.path, MAX_ACTIVATION_READ)
        try:
            front = parse_skill_document(data, limits)
        except DefinitionError:
            raise _changed(item, "no longer parses") from None
        if (front.name, front.description, front.disable_model_invocation) != (
            item.name,
            item.description,
            item.disable_model_invocation,
        ):
            raise _changed(item, "names another skill, description or invocation")
        resources = await list_resources(files, item.directory.path)
        again = await files.read_bytes(item.path, MAX_ACTIVATION_READ)
        if again != data:
            raise _changed(item, "changed while it was being activated, or")
    environment.require_current(item.document)
    return ActivationSource(
        item.name,
        item.directory.path if shown is None else shown,
        bytes(data),
        resources,
        complete=len(data) < MAX_ACTIVATION_READ,
        limits=limits,
    )


def _shown_directory(directory: object) -> str | None:
    """``None``, or the directory a Host shows for the skill: an absolute path (a ``str``
    starting with ``/``, no NUL), else ``catalog_invalid`` (reason ``activation``)."""
    if directory is None:
        return None
    shown = plain_str(directory)
    if type(shown) is not str or not shown.startswith("/") or "\x00" in shown:
        raise DefinitionError(
            "catalog_invalid",
            f"directory must be None or an absolute path, got {describe(directory)}",
            reason="activation",
        )
    return shown


async def activate(
    prepared: PreparedSkills, name: object, by: object, directory: object = None
) -> SkillActivation:
    """:meth:`PreparedSkills.activate`; see the module docstring."""
    from a13n_harness.capabilities.skills import PreparedSkills  # noqa: PLC0415

    if not isinstance(prepared, PreparedSkills):
        raise DefinitionError(
            "catalog_invalid",
            f"activate needs the PreparedSkills of a run, got {describe(prepared)}",
            reason="prepared",
        )
    item = selected_item(prepared, name, by)
    shown = _shown_directory(directory)
    environment = prepared._bound_environment()
    with prepared.boundary("tool"):
        done = prepared._activations
        if item.name in done:
            earlier = done[item.name]  # the note names the folder the first activation named
            named = earlier.directory if earlier is not None else shown or item.directory.path
            return repeat_activation(item.name, named)
        done[item.name] = None  # in progress: a concurrent second activation gets the note
        try:
            source = await read_source(environment, item, prepared._limits, shown)
            budget, counter = prepared._activation_budget, prepared._counter
            activation = render_activation(source, budget, counter)
            check_activation(source, budget, activation, counter)
        except BaseException:
            del done[item.name]
            raise
        done[item.name] = source
    return activation


def verify_activation(prepared: PreparedSkills, name: str, activation: SkillActivation) -> None:
    """Raise ``activation_not_certified`` unless ``activation`` is exactly what the run's
    activation of ``name`` must give for what it read (the reference's rule, re-derived:
    contract §10), or the note of a repeated activation of a skill the run activated."""
    from a13n_harness.capabilities.skills import PreparedSkills  # noqa: PLC0415

    if not isinstance(prepared, PreparedSkills):
        raise DefinitionError(
            "activation_not_certified", f"not the PreparedSkills of a run: {describe(prepared)}"
        )
    checked = plain_str(name)
    source = prepared._activations.get(checked) if type(checked) is str else None
    if not isinstance(source, ActivationSource):
        raise DefinitionError(
            "activation_not_certified",
            f"this run has not activated a skill named {describe(name)}",
        )
    if type(activation) is SkillActivation and activation.form == "repeat":
        check_repeat(source.name, source.directory, activation)
        return
    check_activation(source, prepared._activation_budget, activation, prepared._counter)
