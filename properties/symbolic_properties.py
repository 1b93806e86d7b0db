"""The pure core's Hypothesis properties run symbolically, each with its CPU budget.

The ``--full`` gate's ``symbolic properties`` step runs the node ids below under the
``crosshair`` Hypothesis profile (``properties/conftest.py``): the hypothesis-crosshair
backend, where each example is a path CrossHair's solver chooses rather than a sample. The
work is counted (``PATHS`` paths a property, CrossHair's own 2.5 CPU seconds a path); the
CPU budget is a property's limit, enforced by ``properties/conftest.py`` with a CPU-time
timer (``ITIMER_PROF``): a property that spends it fails, however busy the machine is.
A counterexample found here becomes a plain regression test beside the property, as any
Hypothesis failure does.

Not here: properties over strategies of the harness itself, and the negative controls
(they run a property on a broken implementation and expect it to fail).
"""

from __future__ import annotations

# Paths explored per property: the crosshair profile's max_examples (the bound
# docs/verification.md states for "symbolic").
PATHS = 60
# CPU seconds a property may spend, by file and test: about three times what it took on the
# measuring run of 2026-12-06 (at least 20); 300 for the three facts properties that run
# stopped at 60, and 200 for the properties that run did not reach (tokens, lint, activation,
# checks): the search's own bound, 60 paths at 2.5 CPU s, and a third on top.
PROPERTIES: dict[str, dict[str, float]] = {
    "properties/test_encoder.py": {
        "test_decode_inverts_encode_for_every_str": 20,
        "test_encoded_values_are_inert": 20,
        "test_encoded_values_cannot_author_entities": 20,
        "test_decode_accepts_only_canonical_output": 20,
    },
    "properties/test_frontmatter.py": {
        "test_generated_document_parses_back_to_its_values": 80,
        "test_description_whitespace_runs_collapse": 35,
        "test_ignored_fields_nesting_up_to_the_limit_are_accepted": 55,
        "test_arbitrary_bytes_give_a_value_or_frontmatter_error": 80,
        "test_agrees_with_safe_load_on_documents_both_accept": 30,
        "test_a_decisive_prefix_gives_the_whole_files_verdict": 80,
        "test_undecided_is_exactly_whether_the_next_bytes_can_matter": 175,
    },
    "properties/test_catalog.py": {
        "test_checked_total_is_exact_or_refused": 20,
        "test_total_counts_listed_and_unlisted": 30,
        "test_entries_must_be_strictly_sorted": 110,
    },
    "properties/test_render.py": {
        "test_rendered_catalog_fits_any_budget": 25,
        "test_rendering_is_exact_around_every_candidate_size": 25,
        "test_rendering_is_exact_where_size_is_not_monotone": 110,
        "test_every_value_is_encoded_so_lines_are_fixed": 25,
        "test_tampered_renderings_are_refused": 30,
        "test_allowance_is_five_percent_of_usable_input": 20,
        "test_compact_fit_is_the_first_fitting_candidate": 20,
        "test_compact_fit_is_exact_around_every_candidate_size": 20,
        "test_compact_fit_on_hostile_catalogs": 25,
        "test_compact_lines_keep_the_frame_and_cut_at_the_cap": 20,
        "test_tampered_compact_renderings_are_refused": 20,
        "test_a_compact_rendering_is_not_a_prefix_rendering": 110,
    },
    "properties/test_manifest.py": {
        "test_decode_inverts_encode": 155,
        "test_encoding_is_canonical_json": 190,
        "test_counts_are_admitted_up_to_the_u64_boundary": 30,
        "test_arbitrary_counts_round_trip": 30,
        "test_arbitrary_bytes_give_a_manifest_or_a_definition_error": 20,
        "test_publish_catalog_equals_brute_force": 90,
    },
    "properties/test_facts.py": {
        "test_civil_date_equals_datetime_for_every_instant": 55,
        "test_civil_date_equals_datetime_around_every_year_boundary": 20,
        "test_civil_date_is_total_on_ints": 40,
        "test_well_formed_porcelain_parses_to_its_counts": 300,
        "test_every_cut_inside_a_record_is_truncated": 300,
        "test_arbitrary_bytes_give_a_status_or_git_status_invalid": 20,
        "test_bytes_spliced_into_valid_output_never_escape": 300,
        "test_environment_block_has_exactly_its_lines": 35,
    },
    "properties/test_tokens.py": {
        "test_byte_counter_renders_exactly_like_the_byte_renderer": 200,
        "test_counted_rendering_is_certified_for_any_counter": 200,
        "test_monotone_search_is_exact_where_size_is_not_monotone": 200,
        "test_line_sums_give_the_plain_rule": 200,
        "test_compact_counted_is_the_plain_compact_rule": 200,
        "test_compact_counted_with_bytes_is_the_byte_compact_fit": 200,
        "test_compact_counted_with_a_counter_declaring_nothing": 200,
        "test_tampered_compact_counted_renderings_are_refused": 200,
    },
    "properties/test_lint_core.py": {
        "test_profiles_differ_only_in_field_rules": 200,
        "test_range_subtraction_is_the_set_difference_in_merged_ranges": 200,
        "test_a_character_class_matches_exactly_its_ranges": 200,
    },
    "properties/test_activation.py": {
        "test_the_body_round_trips_and_holds_no_tag": 200,
        "test_no_body_line_closes_the_block_or_opens_a_tag": 200,
        "test_the_renderer_is_the_reference_and_is_certified": 200,
        "test_any_change_to_an_activation_is_not_certified": 200,
    },
    "properties/test_checks.py": {
        "test_a_listed_reason_constructs_and_any_other_raises_at_the_raise_site": 200,
        "test_one_location_format": 200,
    },
}
DEFAULT_CPU = 60.0  # a property run symbolically that is not in the table
# CPU seconds the whole step took on the measuring run (the gate's estimate, for its order).
ESTIMATE = 1800.0


def node_ids() -> list[str]:
    """The pytest node ids of the properties, in the table's order."""
    return [f"{path}::{name}" for path, names in PROPERTIES.items() for name in names]


def budget(nodeid: str) -> float:
    """The CPU budget of the test ``nodeid`` (its parameters ignored)."""
    path, _, name = nodeid.partition("[")[0].partition("::")
    return PROPERTIES.get(path, {}).get(name, DEFAULT_CPU)
