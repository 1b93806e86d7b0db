"""Exact examples that kill injected defects the family properties let survive.

Sections cited as ``§N`` are those of ``docs/contract.md``.

Each test here exists because a mutant in ``mutants/0NN_*.toml`` survived (or
was caught only after minutes of shrinking) under the family modules; the
mutant names the test that now kills it. They are deterministic and fast so the
injected-defect verifier stays within its time budget.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from a13n_harness.context.catalog import CatalogEntry, SkillCatalog
from a13n_harness.context.encoder import decode_value, encode_value
from a13n_harness.context.errors import DefinitionError, FrontmatterError
from a13n_harness.context.frontmatter import parse_skill_document
from a13n_harness.context.manifest import ContextManifest, encode_manifest, publish_catalog
from a13n_harness.context.render import render_catalog, verify_rendering


@pytest.mark.parametrize("name", ["PDF", "Pdf-tools", "pdf-Tools", "PDF-TOOLS"])
def test_uppercase_names_are_refused(name: str) -> None:
    """§2: the name matches ``^[a-z0-9]+(-[a-z0-9]+)*$``; ASCII lowercase only (mutant 003)."""
    with pytest.raises(FrontmatterError) as caught:
        parse_skill_document(f"---\nname: {name}\ndescription: d\n---\n".encode())
    assert caught.value.reason == "name_invalid"


@pytest.mark.parametrize(
    "body",
    [
        "name: a\ndescription: d\nx: *undefined\n",
        "name: a\ndescription: d\nx: [*undefined]\n",
        "name: *undefined\ndescription: d\n",
    ],
)
def test_alias_without_anchor_is_refused_as_alias(body: str) -> None:
    """contract §2: anchors *or aliases* anywhere are refused with ``alias`` (mutant 005)."""
    with pytest.raises(FrontmatterError) as caught:
        parse_skill_document(f"---\n{body}---\n".encode())
    assert caught.value.reason == "alias"


def test_bom_is_skipped_once() -> None:
    """contract §2: one leading UTF-8 BOM is skipped (mutant 023); a second one is not."""
    document = b"---\r\nname: a\r\ndescription: d\r\n---\r\n"
    assert parse_skill_document(b"\xef\xbb\xbf" + document).name == "a"
    with pytest.raises(FrontmatterError) as caught:
        parse_skill_document(b"\xef\xbb\xbf\xef\xbb\xbf" + document)
    assert caught.value.reason == "missing_fence"


def test_multibyte_listing_is_budgeted_in_bytes() -> None:
    """contract §4: candidates are measured in UTF-8 bytes, not code points (mutant 009)."""
    entries = tuple(CatalogEntry(name, "€" * 40 + "😀" * 10, f"/s/{name}") for name in "abc")
    catalog = SkillCatalog(entries, roots=("/s",))
    full = render_catalog(catalog, 1 << 40)
    size = len(full.text.encode("utf-8"))
    assert size > len(full.text)
    for budget in (size, size - 1, len(full.text), len(full.text) - 1):
        rendered = render_catalog(catalog, budget)
        assert len(rendered.text.encode("utf-8")) <= budget
        verify_rendering(catalog, budget, rendered)
    assert render_catalog(catalog, size).listed == 3
    assert render_catalog(catalog, size - 1).listed < 3


def test_publish_catalog_is_exact_at_every_manifest_size() -> None:
    """§5: the longest prefix whose whole manifest fits, by exact JSON sizes (mutant 025)."""
    items = [CatalogEntry(f"skill-{i}", f"does thing {i} ✓", f"/s/skill-{i}") for i in range(6)]
    roots = ("/s",)

    def size(listed: int) -> int:
        catalog = SkillCatalog(tuple(items[:listed]), len(items) - listed, roots)
        return len(encode_manifest(ContextManifest(None, catalog)))

    sizes = [size(listed) for listed in range(len(items) + 1)]
    for budget in range(sizes[0], sizes[-1] + 2):
        published = publish_catalog(items, roots, budget)
        fitting = max(k for k in range(len(items) + 1) if sizes[k] <= budget)
        assert len(published.entries) == fitting, budget
        assert len(encode_manifest(ContextManifest(None, published))) <= budget


@pytest.mark.parametrize("bad", [None, b"bytes", 3])
@pytest.mark.parametrize("function", [encode_value, decode_value])
def test_non_str_values_are_refused_with_a_message_naming_the_type(
    function: Callable[[str], str], bad: object
) -> None:
    """§1 errors: a stable code and a message a human can act on (mutmut encoder survivors)."""
    with pytest.raises(DefinitionError) as caught:
        function(bad)  # type: ignore[arg-type]
    assert caught.value.code == "context_value_invalid"
    assert type(bad).__name__ in caught.value.message


def test_refusals_of_non_canonical_text_say_where() -> None:
    """``decode_value`` names the raw code point or the bad entity and its offset."""
    with pytest.raises(DefinitionError) as raw:
        decode_value("ab\u2028")
    assert (raw.value.reason, raw.value.message) == ("raw_character", "raw U+2028 at offset 2")
    with pytest.raises(DefinitionError) as entity:
        decode_value("a&#xa;")
    assert entity.value.reason == "entity"
    assert "offset 1" in entity.value.message
