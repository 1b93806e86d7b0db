"""Skills: sources, discovery, the bound catalog and the run capability (SPEC section 7)."""

from __future__ import annotations

from a13n_harness.capabilities.bindings import RunBindings
from a13n_harness.capabilities.discovery import FENCE_SLACK, SKILL_FILE, read_limit
from a13n_harness.capabilities.items import (
    DIAGNOSTIC_CODES,
    BoundSkillCatalog,
    BoundSkillCatalogItem,
    SkillCatalogItem,
    SkillDiagnostic,
    SkillScan,
)
from a13n_harness.capabilities.manager import DEFAULT_WORKSPACE_ROOT, SkillManager
from a13n_harness.capabilities.pool import MAX_READ_WORKERS
from a13n_harness.capabilities.skills import PreparedSkills, SkillPath, SkillsCapability
from a13n_harness.capabilities.sources import (
    MAX_ENTRIES_PER_ROOT,
    MAX_SKILLS,
    FileSkillSource,
    SkillMaterializer,
    SkillSource,
    SkillsPolicy,
)

__all__ = [
    "DEFAULT_WORKSPACE_ROOT",
    "DIAGNOSTIC_CODES",
    "FENCE_SLACK",
    "MAX_ENTRIES_PER_ROOT",
    "MAX_READ_WORKERS",
    "MAX_SKILLS",
    "SKILL_FILE",
    "BoundSkillCatalog",
    "BoundSkillCatalogItem",
    "FileSkillSource",
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
