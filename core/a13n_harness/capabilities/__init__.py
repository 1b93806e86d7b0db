"""Skills: sources, discovery, the bound catalog and the run capability (docs/contract.md §7)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from a13n_harness._lazy import lazy_attributes
from a13n_harness.capabilities.discovery import FENCE_SLACK, SKILL_FILE, read_limit
from a13n_harness.capabilities.items import (
    DIAGNOSTIC_CODES,
    SKIP_REASONS,
    SkillCatalogItem,
    SkillDiagnostic,
    SkillScan,
)
from a13n_harness.capabilities.manager import DEFAULT_WORKSPACE_ROOT, SkillManager
from a13n_harness.capabilities.pool import MAX_READ_WORKERS
from a13n_harness.capabilities.sources import (
    CHECKOUT_MAX_ENTRIES,
    MAX_ENTRIES_PER_ROOT,
    MAX_SKILLS,
    FileSkillSource,
    SkillMaterializer,
    SkillSource,
    SkillsPolicy,
)

if TYPE_CHECKING:  # loaded on first use, see below
    from a13n_harness.capabilities.activation import (
        ACTIVATED_BY,
        MAX_ACTIVATION_READ,
        MAX_RESOURCE_DEPTH,
        MAX_RESOURCE_ENTRIES,
        SkillActivation,
        verify_activation,
    )
    from a13n_harness.capabilities.bindings import RunBindings
    from a13n_harness.capabilities.bound import BoundSkillCatalog, BoundSkillCatalogItem
    from a13n_harness.capabilities.skills import (
        BOUNDARY_KINDS,
        ObservedFiles,
        PreparedSkills,
        SkillPath,
        SkillsCapability,
    )

__all__ = [
    "ACTIVATED_BY",
    "BOUNDARY_KINDS",
    "CHECKOUT_MAX_ENTRIES",
    "DEFAULT_WORKSPACE_ROOT",
    "DIAGNOSTIC_CODES",
    "FENCE_SLACK",
    "MAX_ACTIVATION_READ",
    "MAX_ENTRIES_PER_ROOT",
    "MAX_READ_WORKERS",
    "MAX_RESOURCE_DEPTH",
    "MAX_RESOURCE_ENTRIES",
    "MAX_SKILLS",
    "SKILL_FILE",
    "SKIP_REASONS",
    "BoundSkillCatalog",
    "BoundSkillCatalogItem",
    "FileSkillSource",
    "ObservedFiles",
    "PreparedSkills",
    "RunBindings",
    "SkillActivation",
    "SkillCatalogItem",
    "SkillDiagnostic",
    "SkillManager",
    "SkillMaterializer",
    "SkillPath",
    "SkillScan",
    "SkillSource",
    "SkillsCapability",
    "SkillsPolicy",
    "read_limit",
    "verify_activation",
]

# A scan (the command line's) needs the modules imported above, not the bound catalog, the
# run bindings or the run capability (docs/decisions.md, "What start-up still defers").
__getattr__, __dir__ = lazy_attributes(
    __name__,
    __all__,
    (
        "a13n_harness.capabilities.bound",
        "a13n_harness.capabilities.bindings",
        "a13n_harness.capabilities.skills",
        "a13n_harness.capabilities.activation",
    ),
)
