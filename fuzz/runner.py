"""The atheris plumbing every ``fuzz/fuzz_*.py`` target shares when it runs as a program.

``python fuzz/<target>.py [CORPUS_DIR ...] [libFuzzer flags]`` behaves as a
plain atheris target with three defaults added, each only when the caller did
not give its own (ClusterFuzzLite and OSS-Fuzz always give theirs):

- ``-artifact_prefix=build/fuzz-artifacts/<target>/``: crash, timeout and
  out-of-memory inputs are kept there, to replay with
  ``python fuzz/<target>.py FILE``;
- ``-dict=fuzz/<target>.dict`` when that dictionary exists;
- a first corpus directory inside ``corpus/`` is refused: libFuzzer writes new
  inputs into its first directory, and the checked-in corpus holds named,
  reviewed seeds only. Fuzz into ``build/fuzz-corpus/<target>/`` and list
  ``corpus/<target>`` (or ``build/fuzz-seeds/<target>``) after it as read-only
  seeds; ``-merge=1`` into a candidates folder picks new seeds (fuzz/README.md).

A packaged target (PyInstaller, as ``compile_python_fuzzer`` builds it) gets no
defaults: the engine that runs it passes every flag itself.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def arguments(argv: list[str], target: str, root: Path = ROOT) -> list[str]:
    """``argv`` with the defaults added; ``SystemExit`` when it would fuzz into ``corpus/``."""
    flags = [part for part in argv[1:] if part.startswith("-")]
    paths = [part for part in argv[1:] if not part.startswith("-")]
    corpus = (root / "corpus").resolve()
    if paths:
        first = Path(paths[0]).resolve()
        if (first == corpus or corpus in first.parents) and not first.is_file():
            raise SystemExit(
                f"refusing to fuzz into {paths[0]}: libFuzzer writes new inputs into its first "
                f"directory. Use: python fuzz/{target}.py build/fuzz-corpus/{target} "
                f"corpus/{target} ..."
            )
    added = []
    if not any(flag.startswith("-artifact_prefix=") for flag in flags):
        artifacts = root / "build" / "fuzz-artifacts" / target
        artifacts.mkdir(parents=True, exist_ok=True)
        added.append(f"-artifact_prefix={artifacts}/")
    dictionary = root / "fuzz" / f"{target}.dict"
    if dictionary.is_file() and not any(flag.startswith("-dict=") for flag in flags):
        added.append(f"-dict={dictionary}")
    return [argv[0], *added, *argv[1:]]


def fuzz(target_file: str, test_one_input: Callable[[bytes], None]) -> None:
    """Run atheris over ``test_one_input`` (never returns)."""
    import atheris  # noqa: PLC0415 - only a fuzzing run needs it; tests import this module plainly

    argv = list(sys.argv)
    if not getattr(sys, "frozen", False):
        argv = arguments(argv, Path(target_file).stem)
    atheris.Setup(argv, test_one_input)
    atheris.Fuzz()
