"""Skills: sources, discovery, the bound catalog and the run capability (docs/contract.md §7)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from a13n_harness._lazy import lazy_attributes

if TYPE_CHECKING:
    from a13n_harness.capabilities.bindings import (
        RunBindings,
    )
    from a13n_harness.capabilities.bound import (
        BoundSkillCatalog,
        BoundSkillCatalogItem,
    )
    from a13n_harness.capabilities.discovery import (
        FENCE_SLACK,
        SKILL_FILE,
        read_limit,
    )
    from a13n_harness.capabilities.items import (
        DIAGNOSTIC_CODES,
        SKIP_REASONS,
        SkillCatalogItem,
        SkillDiagnostic,
        SkillScan,
    )
    from a13n_harness.capabilities.manager import (
        DEFAULT_WORKSPACE_ROOT,
        SkillManager,
    )
    from a13n_harness.capabilities.pool import (
        MAX_READ_WORKERS,
    )
    from a13n_harness.capabilities.skills import (
        BOUNDARY_KINDS,
        ObservedFiles,
        PreparedSkills,
        SkillPath,
        SkillsCapability,
    )
    from a13n_harness.capabilities.sources import (
        CHECKOUT_MAX_ENTRIES,
        MAX_ENTRIES_PER_ROOT,
        MAX_SKILLS,
        FileSkillSource,
        SkillMaterializer,
        SkillSource,
        SkillsPolicy,
    )

__all__ = [
    "BOUNDARY_KINDS",
    "CHECKOUT_MAX_ENTRIES",
    "DEFAULT_WORKSPACE_ROOT",
    "DIAGNOSTIC_CODES",
    "FENCE_SLACK",
    "MAX_ENTRIES_PER_ROOT",
    "MAX_READ_WORKERS",
    "MAX_SKILLS",
    "SKILL_FILE",
    "SKIP_REASONS",
    "BoundSkillCatalog",
    "BoundSkillCatalogItem",
    "FileSkillSource",
    "ObservedFiles",
    "PreparedSkills",
    "RunBindings",
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
]

# Each name is imported from its module on first use (PEP 562), so a caller that needs
# one part (the CLI's catalog needs discovery, not the run bindings or the in-memory
# operator) does not pay for the rest at start-up.
_LAZY: dict[str, str] = {
    "RunBindings": "a13n_harness.capabilities.bindings",
    "FENCE_SLACK": "a13n_harness.capabilities.discovery",
    "SKILL_FILE": "a13n_harness.capabilities.discovery",
    "read_limit": "a13n_harness.capabilities.discovery",
    "DIAGNOSTIC_CODES": "a13n_harness.capabilities.items",
    "SKIP_REASONS": "a13n_harness.capabilities.items",
    "BoundSkillCatalog": "a13n_harness.capabilities.bound",
    "BoundSkillCatalogItem": "a13n_harness.capabilities.bound",
    "SkillCatalogItem": "a13n_harness.capabilities.items",
    "SkillDiagnostic": "a13n_harness.capabilities.items",
    "SkillScan": "a13n_harness.capabilities.items",
    "DEFAULT_WORKSPACE_ROOT": "a13n_harness.capabilities.manager",
    "SkillManager": "a13n_harness.capabilities.manager",
    "MAX_READ_WORKERS": "a13n_harness.capabilities.pool",
    "BOUNDARY_KINDS": "a13n_harness.capabilities.skills",
    "ObservedFiles": "a13n_harness.capabilities.skills",
    "PreparedSkills": "a13n_harness.capabilities.skills",
    "SkillPath": "a13n_harness.capabilities.skills",
    "SkillsCapability": "a13n_harness.capabilities.skills",
    "CHECKOUT_MAX_ENTRIES": "a13n_harness.capabilities.sources",
    "MAX_ENTRIES_PER_ROOT": "a13n_harness.capabilities.sources",
    "MAX_SKILLS": "a13n_harness.capabilities.sources",
    "FileSkillSource": "a13n_harness.capabilities.sources",
    "SkillMaterializer": "a13n_harness.capabilities.sources",
    "SkillSource": "a13n_harness.capabilities.sources",
    "SkillsPolicy": "a13n_harness.capabilities.sources",
}


__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, __all__)
