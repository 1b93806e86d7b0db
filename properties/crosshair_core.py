"""PEP 316 contracts over the rest of the pure core's public functions, checked by CrossHair
in the ``--full`` gate (not collected by pytest).

Run: ``crosshair check --analysis_kind=PEP316 --report_all <this file>``: each condition has
the budget its CrossHair directive gives it (below: 4 CPU s; a few contracts set their own).

``properties/crosshair_contracts.py`` holds the contracts the quick gate checks (the
renderer, the compact fit, the encoder, the checked total, lint's references); this module
puts every other public function of ``a13n_harness.context`` under a contract on small
inputs, as ``properties/harness/test_crosshair_coverage.py`` requires: that test reads which
core function each ``*_contract`` function runs (from its body, or through a helper of
these modules it calls), and ``NOT_CONTRACTED`` names any public function left out, with
its reason. The same conventions hold as there (``chr(10)`` in conditions; a counterexample
becomes a plain test in ``properties/test_crosshair_replays.py``).
"""

# The budget of each condition, in CPU seconds (scripts/_gate/steps.py reads it too).
# crosshair: per_condition_timeout=4

from __future__ import annotations

import datetime
import re

from crosshair.core import deep_realize

from a13n_harness.context.activation import (
    ActivationSource,
    SkillActivation,
    activation_allowance,
    activation_body,
    check_activation,
    check_repeat,
    decode_body,
    encode_body,
    reference_activation,
    render_activation,
    repeat_activation,
    repeat_note,
)
from a13n_harness.context.catalog import (
    MAX_TOTAL,
    CatalogEntry,
    SkillCatalog,
    catalog_total,
    check_catalog,
)
from a13n_harness.context.encoder import encode_value, is_escaped, joins_emoji
from a13n_harness.context.errors import DefinitionError
from a13n_harness.context.facts import (
    EnvironmentFacts,
    GitStatus,
    civil_date,
    facts_problem,
    parse_git_status,
    plain_facts,
    render_environment,
)
from a13n_harness.context.frontmatter import (
    decisive_prefix,
    find_frontmatter,
    is_valid_name,
    normalize_description,
    parse_skill_document,
    undecided,
)
from a13n_harness.context.lint import (
    RULES,
    DocumentCheck,
    check_document,
    rule_for_error,
    rules_document,
)
from a13n_harness.context.manifest import (
    ContextManifest,
    decode_manifest,
    encode_manifest,
    environment_json,
    publish_catalog,
)
from a13n_harness.context.render import (
    COMPACT_FORMS,
    CUT_MARK,
    RenderedCatalog,
    catalog_allowance,
    compact_candidate,
    cut_description,
    framed_candidate,
    minimal_candidate,
    reference_render,
    render_catalog,
    verify_rendering,
)
from a13n_harness.context.tokens import (
    CountedRendering,
    Utf8ByteCounter,
    declares,
    render_catalog_counted,
    verify_rendering_counted,
)
from contract_tables import CONTRACT_ESCAPED
from crosshair_contracts import _LARGE, no_surrogate, two_entry_catalog

pair = two_entry_catalog
# Names only the conditions read: CrossHair evaluates them in this module's namespace.
CONDITION_NAMES = (RULES, MAX_TOTAL, CONTRACT_ESCAPED, encode_value, no_surrogate)


# The public functions left out, each with its reason (none: every one has a contract).
NOT_CONTRACTED: dict[str, str] = {}

_MAX_BYTES = 32_768  # FrontmatterLimits().max_bytes, the verdict the scan reads at most
_NAME = re.compile("[a-z0-9]+(-[a-z0-9]+)*")
_HEAD = b"---\nname: alpha\ndescription: d\n---\n"


def cut_to(description: str, cap: int) -> str:
    """The first ``cap - 1`` code points and the mark."""
    return description[: cap - 1] + CUT_MARK


def usable(context_tokens: int, reserve_tokens: int) -> int:
    """The usable input window: the context less the response reserve, never negative."""
    return max(0, context_tokens - reserve_tokens)


def stdlib_date(local_seconds: int) -> str:
    """The standard library's proleptic Gregorian date of a local instant."""
    days = datetime.timedelta(days=local_seconds // 86400)
    return (datetime.date(1970, 1, 1) + days).isoformat()


def whole(catalog: SkillCatalog) -> str:
    """The oracle's rendering of ``catalog`` at a budget every candidate fits."""
    return reference_render(catalog, _LARGE).text


def skills(total: int) -> str:
    """``N skills``, in the singular for one."""
    return f"{total} skill" if total == 1 else f"{total} skills"


def counts_in_range(status: GitStatus) -> bool:
    """Every count of ``status`` is a u64."""
    counts = (status.ahead, status.behind, status.staged, status.unstaged, status.untracked)
    return all(0 <= n <= MAX_TOTAL for n in (*counts, status.conflicted, status.renamed))


def listed(catalog: SkillCatalog) -> int:
    """How many entries ``catalog`` lists."""
    return len(catalog.entries)


def longest(items: SkillCatalog, published: SkillCatalog, max_bytes: int) -> bool:
    """Whether ``published`` lists all of ``items`` or the prefix one entry longer does not fit."""
    more = listed(published) + 1
    return more > listed(items) or manifest_size(prefix_of(items, more)) > max_bytes


def outcome(data: bytes) -> object:
    """The frontmatter verdict of ``data``: the parsed value, or the refusal's code and reason."""
    try:
        return parse_skill_document(data)
    except DefinitionError as error:
        return (error.code, error.reason)


def is_escaped_contract(code_point: int) -> bool:
    """A code point is escaped exactly when docs/contract.md §1 lists it.

    pre: 0 <= code_point <= 0x10FFFF
    post: __return__ == any(lo <= code_point <= hi for lo, hi in CONTRACT_ESCAPED)
    """
    return is_escaped(code_point)


def joins_emoji_contract(text: str, index: int) -> bool:
    """Only a ZERO WIDTH JOINER or a presentation selector joins an emoji, and the encoder
    keeps a joining one raw.

    pre: len(text) <= 4 and 0 <= index < len(text)
    post: not __return__ or text[index] in (chr(0x200D), chr(0xFE0E), chr(0xFE0F))
    post: not __return__ or text[index] in encode_value(text)
    """
    return joins_emoji(text, index)


def name_contract(name: str) -> bool:
    """A skill name is ASCII ``[a-z0-9]+(-[a-z0-9]+)*`` of at most 64 characters.

    pre: len(name) <= 66
    post: __return__ == (len(name) <= 64 and _NAME.fullmatch(name) is not None)
    """
    return is_valid_name(name)


def normalize_contract(text: str, max_chars: int) -> tuple[str, bool]:
    """Whitespace runs collapse to one space, the ends are stripped, a cut keeps
    ``max_chars - 1`` code points and the mark.

    pre: len(text) <= 10
    pre: 1 <= max_chars <= 8
    post: len(__return__[0]) <= max_chars
    post: __return__[1] == (len(" ".join(text.split())) > max_chars)
    post: __return__[1] or __return__[0] == " ".join(text.split())
    """
    return normalize_description(text, max_chars)


def cut_contract(description: str, cap: int) -> str:
    """A description of at most ``cap`` code points is kept whole, a longer one cut to ``cap``.

    pre: len(description) <= 10
    pre: 1 <= cap <= 8
    post: len(__return__) == min(len(description), cap)
    post: __return__ == (description if len(description) <= cap else cut_to(description, cap))
    """
    return cut_description(description, cap)


def allowance_contract(context: int, reserve: int) -> tuple[int, int]:
    """The catalog gets 5%, an activation 25%, of the usable input window.

    pre: context >= 0 and reserve >= 0
    post: __return__ == (usable(context, reserve) // 20, usable(context, reserve) // 4)
    """
    return (
        catalog_allowance(context, reserve),
        activation_allowance(context, reserve),
    )


def civil_date_contract(epoch_seconds: int, utc_offset_seconds: int) -> str:
    """The civil date by integer arithmetic is the standard library's proleptic Gregorian date.

    pre: -(6 * 10**10) <= epoch_seconds <= 10**11
    pre: -100_000 <= utc_offset_seconds <= 100_000
    post: __return__ == stdlib_date(epoch_seconds + utc_offset_seconds)
    """
    return civil_date(epoch_seconds, utc_offset_seconds)


def catalog_contract(first: int, second: int, unlisted: int) -> int:
    """A well-formed catalog is accepted as itself, and its total is entries plus unlisted.

    pre: 1 <= first <= 6 and 1 <= second <= 6
    pre: 0 <= unlisted <= MAX_TOTAL - 2
    post: __return__ == 2 + unlisted
    """
    catalog = two_entry_catalog(first, second, unlisted)
    assert check_catalog(catalog) is catalog
    return catalog_total(catalog)


def prefix_of(catalog: SkillCatalog, listed: int) -> SkillCatalog:
    """The catalog of ``catalog``'s first ``listed`` entries, the rest counted as unlisted."""
    return SkillCatalog(catalog.entries[:listed], catalog.total - listed, catalog.roots)


def framed_contract(first: int, second: int, unlisted: int, listed: int) -> str:
    """The framed candidate listing ``listed`` entries is the oracle's whole rendering of that
    prefix (at a budget every candidate fits).

    pre: 1 <= first <= 30 and 1 <= second <= 30
    pre: 0 <= unlisted <= 2 and 0 <= listed <= 2
    post: __return__ == whole(prefix_of(pair(first, second, unlisted), listed))
    """
    return framed_candidate(two_entry_catalog(first, second, unlisted), listed)


def minimal_contract(listed: int, unlisted: int) -> str:
    """The minimal candidate names the root and the total, in the singular for one skill.

    pre: 0 <= listed <= 2 and 0 <= unlisted <= 3
    post: __return__ == "/s/ has " + skills(listed + unlisted) + chr(10)
    """
    entries = two_entry_catalog(3, 3, 0).entries[:listed]
    return minimal_candidate(SkillCatalog(entries, unlisted, ("/s",)))


def cut_listings(catalog: SkillCatalog) -> tuple[str, ...]:
    """The full listing of ``catalog`` with descriptions cut to each cap of the ladder."""
    return tuple(
        framed_candidate(cut_entries(catalog, index), len(catalog.entries))
        for index in range(len(COMPACT_FORMS) - 1)
    )


def cut_entries(catalog: SkillCatalog, index: int) -> SkillCatalog:
    """``catalog`` with every description cut to the cap of ``COMPACT_FORMS[index]``."""
    cap = int(COMPACT_FORMS[index].removeprefix("cut-"))
    # Concrete values for the oracle's own entries (the contract's function had the symbolic
    # ones): the oracle checks the function, not itself.
    catalog = deep_realize(catalog)
    entries = tuple(
        CatalogEntry(e.name, cut_description(e.description, cap), e.file) for e in catalog.entries
    )
    return SkillCatalog(entries, catalog.unlisted, catalog.roots)


def compact_candidate_contract(first: int, second: int, unlisted: int) -> tuple[str, ...]:
    """Each ``cut-N`` candidate is the full listing of the catalog with descriptions cut to N
    (every cut form, in ``COMPACT_FORMS`` order: a form drawn symbolically met no path).

    pre: 60 <= first <= 104 and 60 <= second <= 104
    pre: 0 <= unlisted <= 2
    post: __return__ == cut_listings(pair(first, second, unlisted))
    """
    # A path renders six candidates of two 60-104 code point descriptions (about 2 CPU s).
    # crosshair: per_condition_timeout=30 per_path_timeout=6
    catalog = two_entry_catalog(first, second, unlisted)
    return tuple(compact_candidate(catalog, form) for form in COMPACT_FORMS[:-1])


def reference_contract(first: int, second: int, unlisted: int, budget: int) -> RenderedCatalog:
    """The plain oracle fits its budget and accounts for every skill.

    pre: 1 <= first <= 40 and 1 <= second <= 40
    pre: 0 <= unlisted <= 2
    pre: 0 <= budget <= 800
    post: len(__return__.text.encode("utf-8")) <= budget
    post: __return__.listed + __return__.omitted == 2 + unlisted
    """
    return reference_render(two_entry_catalog(first, second, unlisted), budget)


def certified(catalog: SkillCatalog, budget: int, rendered: RenderedCatalog) -> bool:
    """Whether ``verify_rendering`` certifies ``rendered`` (its refusal is ``False``)."""
    try:
        verify_rendering(catalog, budget, rendered)
    except DefinitionError:
        return False
    return True


def verify_contract(first: int, second: int, budget: int, forged: bool) -> bool:
    """The certifier accepts the renderer's output and refuses it with one byte added.

    pre: 1 <= first <= 30 and 1 <= second <= 30
    pre: 0 <= budget <= 600
    post: __return__ == (not forged)
    """
    catalog = two_entry_catalog(first, second, 1)
    rendered = render_catalog(catalog, budget)
    if forged:
        rendered = RenderedCatalog(
            rendered.text + " ",
            rendered.form,
            rendered.listed,
            rendered.omitted,
            rendered.total,
            rendered.budget_bytes,
        )
    return certified(catalog, budget, rendered)


def counted_contract(first: int, second: int, unlisted: int, budget: int) -> CountedRendering:
    """Counted in UTF-8 bytes, the counted rendering is the byte rendering, and certifies.

    pre: 1 <= first <= 30 and 1 <= second <= 30
    pre: 0 <= unlisted <= 2
    pre: 0 <= budget <= 600
    post: __return__.text == render_catalog(pair(first, second, unlisted), budget).text
    post: __return__.tokens == len(__return__.text.encode("utf-8")) <= budget
    """
    catalog = two_entry_catalog(first, second, unlisted)
    counter = Utf8ByteCounter()
    rendered = render_catalog_counted(catalog, budget, counter)
    verify_rendering_counted(catalog, budget, rendered, counter)
    return rendered


class _Declaring:
    """A counter whose ``line_additive`` attribute is ``value`` (absent for ``"absent"``)."""

    def __init__(self, value: object) -> None:
        if value != "absent":
            self.line_additive = value


def declares_contract(choice: int) -> bool:
    """Only an attribute that is exactly ``True`` declares (not ``1``, not a truthy value).

    pre: 0 <= choice <= 4
    post: __return__ == (choice == 1)
    """
    value = (False, True, 1, "yes", "absent")[choice]
    return declares(_Declaring(value), "line_additive")


def facts_of(cwd: str, ahead: int) -> EnvironmentFacts:
    """Environment facts with ``cwd`` and a git status ``ahead`` commits ahead."""
    status = GitStatus("main", None, ahead, 0, 0, 0, 0, 0, 0)
    return EnvironmentFacts(cwd, "sh", "linux", "2026-01-01", "UTC", status)


# Working directories the facts contracts choose from (a symbolic str met no path through the
# facts' checks): plain, empty, markup, separators and controls, bidi, a non-BMP code point.
CWDS = ("/w", "", "<&>", "a\u2028b\x85", "\u202e\x00", "\U0001f600/x")


# Counts the facts contracts choose from: one, two and twenty digits (the u64 maximum).
AHEADS = (0, 1, 10, 99, MAX_TOTAL)
# Description lengths the manifest contract chooses from (a path through CrossHair's JSON
# costs about 4 CPU s, so a few lengths rather than a range).
LENGTHS = (1, 2, 7, 12)


def facts_contract(choice: int, count: int) -> str:
    """Facts of plain strings and in-range counts are usable, copied as they are, and
    rendered with every value encoded.

    pre: 0 <= choice < len(CWDS)
    pre: 0 <= count < len(AHEADS)
    post: ("<cwd>" + encode_value(CWDS[choice]) + "</cwd>") in __return__
    post: __return__.startswith("<environment_context>" + chr(10))
    """
    # A path renders the facts and their JSON (about 1 CPU s).
    # crosshair: per_condition_timeout=20
    cwd, ahead = CWDS[choice], AHEADS[count]
    facts = facts_of(cwd, ahead)
    assert facts_problem(facts) is None
    assert plain_facts(facts) == facts
    shown = environment_json(facts)
    assert shown is not None
    assert (shown["cwd"], shown["shell"], shown["timezone"]) == (cwd, "sh", "UTC")
    assert shown["git"]["ahead"] == ahead
    return render_environment(facts)


def git_status_contract(data: bytes) -> GitStatus | None:
    """Any short ``git status`` output parses to in-range counts or is refused with the
    documented code (``None`` here).

    pre: len(data) <= 24
    post: __return__ is None or counts_in_range(__return__)
    """
    try:
        return parse_git_status(data)
    except DefinitionError as error:
        assert error.code == "git_status_invalid"
        return None


def parse_contract(data: bytes) -> str:
    """Any short document gives a valid name or the one documented error type.

    pre: len(data) <= 32
    post: __return__ == "" or is_valid_name(__return__)
    """
    try:
        return parse_skill_document(data).name
    except DefinitionError:
        return ""


def span_contract(data: bytes) -> tuple[int, int, int]:
    """The fences found lie in order inside the data: the frontmatter after the opening
    line, the body after the closing one.

    pre: len(data) <= 32
    post: __return__ == (0, 0, 0) or 4 <= __return__[0] <= __return__[1] < __return__[2]
    post: __return__[2] <= len(data)
    """
    try:
        span = find_frontmatter(data)
    except DefinitionError:
        return (0, 0, 0)
    return (span.start, span.end, span.body)


def decided_contract(data: bytes, read: int) -> bool:
    """A read the scan calls decided gives the verdict of the whole file.

    pre: len(data) <= 20
    pre: 1 <= read <= 20
    post: __return__
    """
    prefix = decisive_prefix(data[:read], read, _MAX_BYTES)
    if len(data) > read and not undecided(data[:read], _MAX_BYTES):
        assert outcome(data[:read]) == outcome(data)
    return prefix is None or outcome(prefix) == outcome(data)


def check_document_contract(data: bytes) -> DocumentCheck:
    """Lint on any short document reports known rules at real positions, never raises.

    pre: len(data) <= 20
    post: all(i.rule in RULES and min(i.line, i.column) >= 1 for i in __return__.issues)
    """
    return check_document(data, "alpha")


def rule_contract(code: str) -> str:
    """Every scan error code is reported under a rule lint has.

    pre: len(code) <= 30
    post: __return__ in RULES
    """
    return rule_for_error(code)


def rules_document_contract() -> str:
    """docs/rules.md names every rule.

    post: all(rule in __return__ for rule in RULES)
    """
    return rules_document()


def manifest_contract(first: int, second: int, unlisted: int, choice: int) -> bytes:
    """The manifest's encoding decodes back to the same manifest.

    pre: 0 <= first < len(LENGTHS) and 0 <= second < len(LENGTHS)
    pre: 0 <= unlisted <= 2
    pre: 0 <= choice < len(CWDS)
    post: __return__ == encode_manifest(decode_manifest(__return__))
    """
    # A path encodes the manifest and decodes it through CrossHair's JSON (about 4 CPU s).
    # crosshair: per_condition_timeout=40 per_path_timeout=10
    environment = facts_of(CWDS[choice], 1)
    catalog = two_entry_catalog(LENGTHS[first], LENGTHS[second], unlisted)
    manifest = ContextManifest(environment, catalog)
    data = encode_manifest(manifest)
    assert decode_manifest(data) == manifest
    return data


def manifest_size(catalog: SkillCatalog) -> int:
    """The encoded manifest's size with ``catalog`` and no environment."""
    return len(encode_manifest(ContextManifest(None, catalog)))


def publish_contract(first: int, second: int, max_bytes: int) -> SkillCatalog | None:
    """The published catalog is the longest name-sorted prefix whose manifest fits (refused,
    ``None`` here, only when the manifest listing nothing does not fit).

    pre: 1 <= first <= 20 and 1 <= second <= 20
    pre: 0 <= max_bytes <= 700
    post: (__return__ is None) == (manifest_size(SkillCatalog((), 2, ("/s",))) > max_bytes)
    post: __return__ is None or manifest_size(__return__) <= max_bytes
    post: __return__ is None or __return__ == prefix_of(pair(first, second, 0), listed(__return__))
    post: __return__ is None or longest(pair(first, second, 0), __return__, max_bytes)
    """
    entries = two_entry_catalog(first, second, 0).entries
    try:
        return publish_catalog(reversed(entries), ("/s",), max_bytes)
    except DefinitionError as error:
        assert error.code == "manifest_invalid"
        return None


def body_codec_contract(body: str) -> tuple[str, str]:
    """An activation body is shown without a tag and decodes back (CR LF as LF).

    pre: len(body) <= 10
    post: "<" not in __return__[0]
    post: __return__[1] == body.replace(chr(13) + chr(10), chr(10))
    """
    encoded = encode_body(body)
    return encoded, decode_body(encoded)


def source_of(body: str) -> ActivationSource:
    """A skill ``alpha`` whose SKILL.md has ``body`` after its frontmatter."""
    return ActivationSource("alpha", "/s/alpha", _HEAD + body.encode("utf-8"))


def activation_body_contract(body: str, complete: bool) -> str:
    """The body is what follows the closing fence line; an incomplete read drops its last
    partial line.

    pre: len(body) <= 10 and no_surrogate(body)
    post: __return__ == (body if complete else body[: body.rfind(chr(10)) + 1])
    """
    return activation_body(_HEAD + body.encode("utf-8"), complete)


def activation_contract(body: str, budget: int) -> SkillActivation:
    """The activation fits its budget, is the plain oracle's, and certifies.

    pre: len(body) <= 8 and no_surrogate(body)
    pre: 0 <= budget <= 400
    post: len(__return__.text.encode("utf-8")) <= budget
    post: __return__.name == "alpha" and __return__.directory == "/s/alpha"
    """
    source = source_of(body)
    activation = render_activation(source, budget)
    assert activation == reference_activation(source, budget)
    check_activation(source, budget, activation)
    return activation


# Skill names the repeat contract chooses from (a symbolic str met no path through the
# activation's checks): the shortest, digits, hyphens, the longest.
NAMES = ("a", "z9", "a-b-c", "pdf-tools", "a" * 64)


def repeat_contract(choice: int) -> SkillActivation:
    """A second activation of a skill is the note, and certifies as the repeat.

    pre: 0 <= choice < len(NAMES)
    post: __return__.name == NAMES[choice] and not __return__.resources
    post: ("name=" + chr(34) + NAMES[choice] + chr(34)) in __return__.text
    """
    name = NAMES[choice]
    activation = repeat_activation(name, "/s/" + name)
    assert activation.text == repeat_note(name, "/s/" + name)
    check_repeat(name, "/s/" + name, activation)
    return activation


def _warm() -> None:
    """Fill the core's lazy module-level caches (the encoder's compiled classes, the render
    plans' helpers) before CrossHair searches: a cache filled during the search changes the
    next path, which CrossHair takes for nondeterminism and drops the attempt."""
    for choice in range(len(CWDS)):
        manifest_contract(1, 3, 1, choice)
        facts_contract(choice, 1)
    compact_candidate_contract(60, 104, 1)
    cut_listings(pair(104, 60, 2))


_warm()
