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
# CPU seconds a property may spend, by file and test, each beside the CPU seconds it took on
# the measuring run (2026-12-06, the step's 57 properties on CrossHair 0.0.113, two workers
# beside the other engineers' load; `docs/verification.md` lists the run): three times that,
# rounded up to 5 and at least 30 (a property's own start, the timer's one-second grain, and a
# slower machine's CPU seconds: a busy one's CPU time stays about the same).
PROPERTIES: dict[str, dict[str, float]] = {
    "properties/test_encoder.py": {
        "test_decode_inverts_encode_for_every_str": 200,  # 65.0 measured
        "test_encoded_values_are_inert": 185,  # 61.1 measured
        "test_encoded_values_cannot_author_entities": 175,  # 58.0 measured
        "test_decode_accepts_only_canonical_output": 60,  # 18.8 measured
    },
    "properties/test_frontmatter.py": {
        "test_generated_document_parses_back_to_its_values": 75,  # 24.6 measured
        "test_description_whitespace_runs_collapse": 45,  # 15.0 measured
        "test_ignored_fields_nesting_up_to_the_limit_are_accepted": 50,  # 16.6 measured
        "test_arbitrary_bytes_give_a_value_or_frontmatter_error": 100,  # 32.2 measured
        "test_agrees_with_safe_load_on_documents_both_accept": 30,  # 8.6 measured
        "test_a_decisive_prefix_gives_the_whole_files_verdict": 105,  # 33.4 measured
        "test_undecided_is_exactly_whether_the_next_bytes_can_matter": 235,  # 77.6 measured
    },
    "properties/test_catalog.py": {
        "test_checked_total_is_exact_or_refused": 30,  # 1.1 measured
        "test_total_counts_listed_and_unlisted": 30,  # 5.7 measured
        "test_entries_must_be_strictly_sorted": 100,  # 32.6 measured
    },
    "properties/test_render.py": {
        "test_rendered_catalog_fits_any_budget": 30,  # 6.0 measured
        "test_rendering_is_exact_around_every_candidate_size": 30,  # 5.6 measured
        "test_rendering_is_exact_where_size_is_not_monotone": 105,  # 34.7 measured
        "test_every_value_is_encoded_so_lines_are_fixed": 30,  # 7.1 measured
        "test_tampered_renderings_are_refused": 30,  # 8.2 measured
        "test_allowance_is_five_percent_of_usable_input": 30,  # 0.1 measured
        "test_compact_fit_is_the_first_fitting_candidate": 30,  # 4.7 measured
        "test_compact_fit_is_exact_around_every_candidate_size": 30,  # 5.5 measured
        "test_compact_fit_on_hostile_catalogs": 30,  # 8.7 measured
        "test_compact_lines_keep_the_frame_and_cut_at_the_cap": 30,  # 4.0 measured
        "test_tampered_compact_renderings_are_refused": 30,  # 3.5 measured
        "test_a_compact_rendering_is_not_a_prefix_rendering": 30,  # 3.6 measured
    },
    "properties/test_manifest.py": {
        "test_decode_inverts_encode": 145,  # 47.7 measured
        "test_encoding_is_canonical_json": 200,  # 65.9 measured
        "test_counts_are_admitted_up_to_the_u64_boundary": 40,  # 12.1 measured
        "test_arbitrary_counts_round_trip": 35,  # 10.9 measured
        "test_arbitrary_bytes_give_a_manifest_or_a_definition_error": 30,  # 1.9 measured
        "test_publish_catalog_equals_brute_force": 90,  # 28.7 measured
    },
    "properties/test_facts.py": {
        "test_civil_date_equals_datetime_for_every_instant": 40,  # 12.7 measured
        "test_civil_date_equals_datetime_around_every_year_boundary": 30,  # 1.0 measured
        "test_civil_date_is_total_on_ints": 30,  # 9.9 measured
        "test_well_formed_porcelain_parses_to_its_counts": 190,  # 63.2 measured
        "test_every_cut_inside_a_record_is_truncated": 315,  # 103.9 measured
        "test_arbitrary_bytes_give_a_status_or_git_status_invalid": 30,  # 1.8 measured
        "test_bytes_spliced_into_valid_output_never_escape": 375,  # 124.6 measured
        "test_environment_block_has_exactly_its_lines": 90,  # 28.5 measured
    },
    "properties/test_tokens.py": {
        "test_byte_counter_renders_exactly_like_the_byte_renderer": 30,  # 7.9 measured
        "test_counted_rendering_is_certified_for_any_counter": 30,  # 6.8 measured
        "test_monotone_search_is_exact_where_size_is_not_monotone": 100,  # 33.3 measured
        "test_line_sums_give_the_plain_rule": 30,  # 5.8 measured
        "test_compact_counted_is_the_plain_compact_rule": 45,  # 13.8 measured
        "test_compact_counted_with_bytes_is_the_byte_compact_fit": 110,  # 36.5 measured
        "test_compact_counted_with_a_counter_declaring_nothing": 130,  # 43.1 measured
        "test_tampered_compact_counted_renderings_are_refused": 230,  # 76.0 measured
    },
    "properties/test_lint_core.py": {
        "test_profiles_differ_only_in_field_rules": 95,  # 30.4 measured
        "test_range_subtraction_is_the_set_difference_in_merged_ranges": 50,  # 15.2 measured
        "test_a_character_class_matches_exactly_its_ranges": 30,  # 6.8 measured
    },
    "properties/test_activation.py": {
        "test_the_body_round_trips_and_holds_no_tag": 140,  # 45.9 measured
        "test_no_body_line_closes_the_block_or_opens_a_tag": 155,  # 51.1 measured
        "test_the_renderer_is_the_reference_and_is_certified": 145,  # 47.8 measured
        "test_any_change_to_an_activation_is_not_certified": 160,  # 53.1 measured
    },
    "properties/test_checks.py": {
        # 8.8 measured
        "test_a_listed_reason_constructs_and_any_other_raises_at_the_raise_site": 30,
        "test_one_location_format": 55,  # 16.7 measured
    },
}
DEFAULT_CPU = 60.0  # a property run symbolically that is not in the table
# CPU seconds the whole step took on the measuring run (the gate's estimate, for its order).
ESTIMATE = 1554.0  # the measuring run's sum


def node_ids() -> list[str]:
    """The pytest node ids of the properties, in the table's order."""
    return [f"{path}::{name}" for path, names in PROPERTIES.items() for name in names]


def budget(nodeid: str) -> float:
    """The CPU budget of the test ``nodeid`` (its parameters ignored)."""
    path, _, name = nodeid.partition("[")[0].partition("::")
    return PROPERTIES.get(path, {}).get(name, DEFAULT_CPU)
