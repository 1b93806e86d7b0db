"""The unit of installation (docs/rules.md, "File references"): a skill inside a Claude Code
plugin (a folder with ``.claude-plugin/plugin.json`` or ``marketplace.json``) is installed with
its plugin and may reference the plugin's files; a project skill under the repository's own
agent folder (``.claude/skills``, ``.agents/skills``, ...) is used in place and may reference
the repository. Anything else outside the skill folder is still reported."""

from __future__ import annotations

from pathlib import Path

import pytest

from a13n_harness.cli._lint import lint
from a13n_harness.cli._output import Progress
from a13n_harness.context.lint import installation_unit


def rules(workspace: Path, skill: str, body: str) -> list[str]:
    folder = workspace / skill
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {folder.name}\ndescription: d\n---\n{body}\n", encoding="utf-8"
    )
    result = lint([str(workspace)], (), Progress())
    return [f.rule for f in result.findings if f.rule.startswith("skill_reference")]


@pytest.mark.parametrize("manifest", ["plugin.json", "marketplace.json"])
def test_a_plugin_skill_may_reference_its_plugins_files(tmp_path: Path, manifest: str) -> None:
    plugin = tmp_path / "plugins" / "p"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / manifest).write_text("{}", encoding="utf-8")
    (plugin / "shared.md").write_text("x", encoding="utf-8")
    (tmp_path / "README.md").write_text("x", encoding="utf-8")
    skill = "plugins/p/skills/a"
    assert rules(tmp_path, skill, "See [shared](../../shared.md).") == []
    # Beyond the plugin, in the repository: outside the unit that is installed.
    assert rules(tmp_path, skill, "See [readme](../../../../README.md).") == [
        "skill_reference_outside_skill"
    ]
    # Inside the plugin but missing: missing, as inside a skill.
    assert rules(tmp_path, skill, "See [gone](../../gone.md).") == ["skill_reference_missing"]


def test_without_a_plugin_manifest_the_skill_folder_is_the_unit(tmp_path: Path) -> None:
    plugin = tmp_path / "plugins" / "p"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "settings.json").write_text("{}", encoding="utf-8")
    (plugin / "shared.md").write_text("x", encoding="utf-8")
    assert rules(tmp_path, "plugins/p/skills/a", "See [shared](../../shared.md).") == [
        "skill_reference_outside_skill"
    ]


@pytest.mark.parametrize("agent", [".claude", ".agents", ".github", ".gemini"])
def test_a_project_skill_may_reference_its_repository(tmp_path: Path, agent: str) -> None:
    (tmp_path / "CLAUDE.md").write_text("x", encoding="utf-8")
    assert rules(tmp_path, f"{agent}/skills/a", "Read [rules](../../../CLAUDE.md).") == []


def test_a_skill_outside_an_agent_folder_is_installed_alone(tmp_path: Path) -> None:
    (tmp_path / "CLAUDE.md").write_text("x", encoding="utf-8")
    assert rules(tmp_path, "skills/a", "Read [rules](../../CLAUDE.md).") == [
        "skill_reference_outside_skill"
    ]
    # An agent folder's name deeper down is no project's own agent folder.
    deeper = tmp_path / "deeper"
    (deeper / "CLAUDE.md").parent.mkdir()
    (deeper / "CLAUDE.md").write_text("x", encoding="utf-8")
    assert rules(deeper, "vendor/.claude/skills/b", "Read [r](../../../../CLAUDE.md).") == [
        "skill_reference_outside_skill"
    ]


@pytest.mark.parametrize(
    ("skill", "plugins", "marketplaces", "unit"),
    [
        (("skills", "a"), (), (), 2),
        ((".claude", "skills", "a"), (), (), 0),
        ((".agents", "skills", "a"), (), (), 0),
        (("x", ".claude", "skills", "a"), (), (), 4),
        (("plugins", "p", "skills", "a"), (2,), (), 2),
        # A plugin listed by a marketplace: the plugin is what is installed.
        (("plugins", "p", "skills", "a"), (0, 2), (0,), 2),
        (("plugins", "p", "skills", "a"), (2,), (0,), 2),
        # A marketplace's plugin without a manifest of its own: the marketplace's folder.
        (("plugins", "p", "skills", "a"), (), (0,), 0),
        (("plugins", "p", "skills", "a"), (4,), (), 4),
    ],
)
def test_the_unit_is_the_plugin_holding_the_skill_or_the_repository_for_a_project_skill(
    skill: tuple[str, ...], plugins: tuple[int, ...], marketplaces: tuple[int, ...], unit: int
) -> None:
    assert installation_unit(skill, frozenset(plugins), frozenset(marketplaces)) == unit


def test_a_marketplaces_plugin_is_its_own_unit(tmp_path: Path) -> None:
    (tmp_path / ".claude-plugin").mkdir()
    (tmp_path / ".claude-plugin" / "marketplace.json").write_text("{}", encoding="utf-8")
    plugin = tmp_path / "plugins" / "p"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text("{}", encoding="utf-8")
    (plugin / "README.md").write_text("x", encoding="utf-8")
    (tmp_path / "README.md").write_text("x", encoding="utf-8")
    skill = "plugins/p/skills/a"
    assert rules(tmp_path, skill, "See [plugin](../../README.md).") == []
    assert rules(tmp_path, skill, "See [top](../../../../README.md).") == [
        "skill_reference_outside_skill"
    ]
