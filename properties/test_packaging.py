"""What a user installs: the version in one place, ``python -m a13n_harness``, a fast start.

The start-up ratios themselves are measured by ``scripts/bench.py`` (section ``cli``);
here the cause is pinned: ``--version`` imports none of the modules that made it slow.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import importlib.metadata
import io
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

import a13n_harness
import cli_run
from a13n_harness._version import __version__
from bounded import run_bounded

REPO = Path(__file__).resolve().parent.parent
CORE = cli_run.CORE  # the package under test: the tree's core/ or the installed wheel

_SLOW_MODULES = ("argparse", "asyncio", "yaml", "json", "importlib.metadata")
"""What ``a13n-skills --version`` once imported: each costs a large part of a bare start.
(``typing`` is in: ``TYPE_CHECKING`` comes from it, within the bound of docs/decisions.md.)"""


def _python(*args: str) -> subprocess.CompletedProcess[str]:
    return run_bounded(
        [sys.executable, *args],
        env={**os.environ, "PYTHONPATH": str(CORE)},
        capture_output=True,
        text=True,
        cpu_seconds=60,
    )


def test_version_is_written_once_and_matches_the_metadata() -> None:
    assert a13n_harness.__version__ == __version__
    try:
        installed = importlib.metadata.version("a13n-harness-skills")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("the distribution is not installed (tests run from the source tree)")
    assert installed == __version__
    assert (
        "version ="
        not in (REPO / "pyproject.toml").read_text().split("[project]")[1].split("[project.")[0]
    )


@pytest.mark.parametrize("module", ["a13n_harness", "a13n_harness.cli"])
def test_python_dash_m_runs_the_command(module: str) -> None:
    result = _python("-m", module, "--version")
    assert (result.returncode, result.stdout, result.stderr) == (
        0,
        f"a13n-skills {__version__}\n",
        "",
    )


def test_version_imports_nothing_slow() -> None:
    probe = (
        "import sys\n"
        "from a13n_harness.cli import main\n"
        "assert main(['--version']) == 0\n"
        f"print(sorted(name for name in {_SLOW_MODULES!r} if name in sys.modules))\n"
    )
    result = _python("-c", probe)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [f"a13n-skills {__version__}", "[]"]


_NOT_FOR_CATALOG = (
    "a13n_harness.cli._lint",
    "a13n_harness.environment.facts",
    "a13n_harness.context.manifest",
    "a13n_harness.context.facts",
    "a13n_harness.context.tokens",
    "a13n_harness.capabilities.bindings",
    "a13n_harness.capabilities.skills",
    "a13n_harness.environment.memory",
)
"""What ``catalog`` has no use for: lint, git and facts, manifests, tokenizers, run bindings."""


def test_catalog_does_not_import_lint_manifest_or_git() -> None:
    probe = (
        "import sys, contextlib, io\n"
        "from a13n_harness.cli import main\n"
        "with contextlib.redirect_stderr(io.StringIO()):\n"
        f"    main(['catalog', {str(REPO / 'examples' / 'demo-workspace')!r}])\n"
        f"names = {_NOT_FOR_CATALOG!r}\n"
        "print(sorted(name for name in names if name in sys.modules))\n"
    )
    result = _python("-c", probe)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "[]"


def test_the_shared_defaults_are_written_once() -> None:
    """The command line, the run bindings, the facts collector and the manifest codec take
    their defaults from ``context.defaults`` (the same objects), and the command line's help
    and parser show those values rather than restating them."""
    from a13n_harness.capabilities import bindings  # noqa: PLC0415
    from a13n_harness.cli import build_parser  # noqa: PLC0415
    from a13n_harness.context import defaults, manifest  # noqa: PLC0415
    from a13n_harness.context.render import catalog_allowance  # noqa: PLC0415
    from a13n_harness.environment import facts  # noqa: PLC0415

    assert bindings.DEFAULT_CONTEXT_TOKENS is defaults.DEFAULT_CONTEXT_TOKENS
    assert bindings.DEFAULT_RESPONSE_RESERVE_TOKENS is defaults.DEFAULT_RESPONSE_RESERVE_TOKENS
    assert facts.GIT_TIMEOUT_SECONDS is defaults.GIT_TIMEOUT_SECONDS
    assert manifest.MAX_MANIFEST_BYTES is defaults.MAX_MANIFEST_BYTES
    parser = build_parser()
    assert parser.parse_args(["env"]).git_timeout is defaults.GIT_TIMEOUT_SECONDS
    assert parser.parse_args(["manifest"]).git_timeout is defaults.GIT_TIMEOUT_SECONDS
    shown = io.StringIO()
    with contextlib.redirect_stdout(shown), pytest.raises(SystemExit):
        parser.parse_args(["catalog", "--help"])
    help_text = shown.getvalue()
    budget = catalog_allowance(
        defaults.DEFAULT_CONTEXT_TOKENS, defaults.DEFAULT_RESPONSE_RESERVE_TOKENS
    )
    assert f"= {budget}" in " ".join(help_text.split())
    source = (CORE / "a13n_harness" / "cli" / "__init__.py").read_text(encoding="utf-8")
    code = source.split('"""', 2)[2]  # after the module docstring
    for restated in ("5.0", "200_000", "16_000", "9200", "1048576", "1_048_576"):
        assert restated not in code, restated


# ------------------------------------------------ exported names loaded on first use


def _loaded_on_first_use() -> list[str]:
    """Every module that hands names to ``a13n_harness._lazy``, found by its import."""
    package = CORE / "a13n_harness"
    found = []
    for path in sorted(package.rglob("*.py")):
        if "from a13n_harness._lazy import" in path.read_text(encoding="utf-8"):
            parts = path.relative_to(CORE).with_suffix("").parts
            found.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return found


def _imports(body: list[ast.stmt]) -> dict[str, str]:
    """Name -> module of each ``from a13n_harness.<module> import name`` in ``body``."""
    found: dict[str, str] = {}
    for statement in body:
        if not isinstance(statement, ast.ImportFrom) or statement.module is None:
            continue
        if (
            statement.module.startswith("a13n_harness.")
            and statement.module != "a13n_harness._lazy"
        ):
            found |= {alias.asname or alias.name: statement.module for alias in statement.names}
    return found


def check_exports_match_their_imports(module: ModuleType, source: str) -> None:
    """Each name of ``__all__`` is written twice: there, and in the import that binds it (at
    the top, or under ``if TYPE_CHECKING:`` when it is loaded on first use), and the two
    agree both ways; the name gives the imported module's object; the modules named for
    loading on first use are exactly those of the ``TYPE_CHECKING`` imports. (ruff finds an
    import missing from ``__all__``, but not a name of ``__all__`` that nothing imports.)"""
    tree = ast.parse(source)
    deferred: dict[str, str] = {}
    for statement in tree.body:
        if isinstance(statement, ast.If) and ast.unparse(statement.test) == "TYPE_CHECKING":
            deferred |= _imports(statement.body)
    eager = _imports(tree.body)
    defined = {
        target.id
        for statement in tree.body
        if isinstance(statement, ast.Assign | ast.AnnAssign)
        for target in (
            statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        )
        if isinstance(target, ast.Name)
    } | {
        statement.name
        for statement in tree.body
        if isinstance(statement, ast.ClassDef | ast.FunctionDef)
    }
    (listed,) = (
        ast.literal_eval(statement.value)
        for statement in tree.body
        if isinstance(statement, ast.Assign)
        and [ast.unparse(target) for target in statement.targets] == ["__all__"]
    )
    exported = set(listed)
    assert len(exported) == len(listed), "a name listed twice in __all__"
    assert set(deferred) <= exported, sorted(set(deferred) - exported)
    assert exported - set(deferred) <= set(eager) | defined, sorted(
        exported - set(deferred) - set(eager) - defined
    )
    calls = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in {"lazy_attributes", "lazy_getattr"}
    ]
    assert len(calls) == 1
    named = ast.literal_eval(calls[0].args[2])
    assert sorted(named) == sorted(set(deferred.values())), named
    for name in listed:
        source_module = deferred.get(name) or eager.get(name)
        if source_module is not None:
            assert getattr(module, name) is getattr(importlib.import_module(source_module), name)
    if module.__name__ == module.__package__:  # a package imports only what it exports
        assert set(eager) <= exported, sorted(set(eager) - exported)
        assert dir(module) == sorted(module.__all__)


@pytest.mark.parametrize("name", _loaded_on_first_use())
def test_each_exported_name_is_in_all_and_in_one_import(name: str) -> None:
    module = importlib.import_module(name)
    assert module.__file__ is not None
    check_exports_match_their_imports(module, Path(module.__file__).read_text(encoding="utf-8"))


def test_the_packages_with_deferred_names_are_found() -> None:
    assert _loaded_on_first_use() == [
        "a13n_harness",
        "a13n_harness.capabilities",
        "a13n_harness.capabilities.items",
        "a13n_harness.environment",
    ]


@pytest.mark.parametrize(
    ("broken", "why"),
    [
        ("        MemoryNode,\n", "a name in __all__ no import binds"),
        ('    "MemoryNode",\n', "a name imported for mypy missing from __all__"),
        ('    "join_path",\n', "a name imported at the top missing from __all__"),
        ('        "a13n_harness.environment.facts",\n', "a deferred module not loaded"),
    ],
)
def test_negative_control_a_name_written_out_of_step_fails_the_check(broken: str, why: str) -> None:
    from a13n_harness import environment  # noqa: PLC0415

    assert environment.__file__ is not None
    source = Path(environment.__file__).read_text(encoding="utf-8")
    assert source.count(broken) == 1, why
    check_exports_match_their_imports(environment, source)
    with pytest.raises(AssertionError):
        check_exports_match_their_imports(environment, source.replace(broken, ""))


@pytest.mark.parametrize("name", _loaded_on_first_use())
def test_importing_a_module_loads_none_of_its_deferred_modules(name: str) -> None:
    """What the names loaded on first use are for: the module alone does not import them."""
    module = importlib.import_module(name)
    assert module.__file__ is not None
    tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
    deferred = sorted(
        {
            statement.module
            for node in tree.body
            if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
            for statement in node.body
            if isinstance(statement, ast.ImportFrom) and statement.module
        }
    )
    assert deferred
    result = _python(
        "-c",
        f"import sys, {name}\nprint(sorted(n for n in {deferred!r} if n in sys.modules))",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["[]"]
