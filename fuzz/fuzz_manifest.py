"""Any bytes given to ``decode_manifest`` give a valid manifest or ``manifest_invalid``.

When the manifest is accepted, every invariant of docs/contract.md §3-5 holds:
the input is exactly what re-encoding writes (any other spelling of the same JSON,
whitespace, a BOM, escapes a character does not need, is ``not_canonical``); the
encoding decodes to the same manifest and encodes again byte for byte; the catalog total
is checked; and rendering the catalog at a budget drawn from the input fits
that budget, is certified by ``verify_rendering`` and (for small catalogs)
equals ``reference_render``. When it is refused the error is
``DefinitionError`` with code ``manifest_invalid`` and a documented ``reason``,
or ``catalog_total_unrepresentable``. Nothing else ever escapes.

Bug class: a JSON admission path that trusts its input. ``NaN``/``Infinity``,
duplicate keys, lone surrogates from ``\\ud800`` escapes, ``true`` as a count,
counts past ``2**64 - 1``, integers past the digit limit, nesting 1,000,000
deep (``RecursionError``), oversize files, unknown keys and wrong types must
end in the documented error, never in a ``KeyError``, ``TypeError``,
``UnicodeEncodeError`` or a manifest that cannot be re-encoded.
"""

from __future__ import annotations

import zlib

from _target import attempt, contract, instrumented, judge, main

with instrumented(__name__):  # coverage feedback when atheris drives this file
    from a13n_harness.context.catalog import MAX_TOTAL
    from a13n_harness.context.errors import ERROR_REASONS, DefinitionError
    from a13n_harness.context.manifest import ContextManifest, decode_manifest, encode_manifest
    from a13n_harness.context.render import reference_render, render_catalog, verify_rendering

# The plain oracle is quadratic; compare with it only on catalogs this small.
_REFERENCE_MAX_ENTRIES = 64


def _drawn_budget(data: bytes, full_size: int) -> int:
    """A budget derived from the input: 0 up to a little past the full listing."""
    return zlib.crc32(data) % (full_size + 3)


def _check_accepted(data: bytes, manifest: ContextManifest) -> None:
    assert type(manifest) is ContextManifest, type(manifest)
    encoded = encode_manifest(manifest)
    assert decode_manifest(encoded) == manifest, "encode/decode round trip broke"
    assert encode_manifest(decode_manifest(encoded)) == encoded, "re-encoding is not stable"
    # Canonical means canonical: accepted bytes are exactly what encoding writes.
    assert encoded == data, "non-canonical input was accepted"
    catalog = manifest.skill_catalog
    assert catalog.total == len(catalog.entries) + catalog.unlisted <= MAX_TOTAL
    full = render_catalog(catalog, 1 << 62)
    budget = _drawn_budget(data, len(full.text.encode("utf-8")))
    rendered = render_catalog(catalog, budget)
    assert len(rendered.text.encode("utf-8")) <= budget, "rendering overruns its budget"
    assert rendered.total == catalog.total
    assert rendered.budget_bytes == budget
    assert rendered.listed + rendered.omitted == rendered.total
    verify_rendering(catalog, budget, rendered)
    if len(catalog.entries) <= _REFERENCE_MAX_ENTRIES:
        assert rendered == reference_render(catalog, budget), "fast renderer disagrees"


def _check_refused(_data: bytes, error: DefinitionError) -> None:
    if error.code == "catalog_total_unrepresentable":
        return
    assert error.code == "manifest_invalid", error.code
    assert error.reason in ERROR_REASONS["manifest_invalid"], error.reason
    str(error)


check, outcome = contract(
    lambda data: judge(data, attempt(decode_manifest, data), _check_accepted, _check_refused)
)

if __name__ == "__main__":
    main(__file__, check, outcome)
