"""The ClusterFuzzLite build without Docker: run ``.clusterfuzzlite/build.sh``, then every target.

ClusterFuzzLite and OSS-Fuzz build our fuzz targets by running
``.clusterfuzzlite/build.sh`` inside the ``base-builder-python`` image, where
``compile_python_fuzzer`` packages a target with PyInstaller. Docker is not
available on our machines, so this script proves the same build logic here:

1. ``$SRC/a13n-harness`` is this tree, ``$OUT`` is ``build/cflite/out``; the
   same ``build.sh`` runs under bash with two stand-ins on ``PATH``:
   ``pip3`` (the package is already installed in this environment; the
   stand-in checks that it imports) and ``compile_python_fuzzer``, which
   records the request. The recorded targets are then packaged with the
   command line of OSS-Fuzz's ``compile_python_fuzzer``:
   ``pyinstaller --distpath $OUT --workpath=<work>/<target> --onefile
   --name <target>.pkg <args> <fuzzer>``, the package's executable bit
   removed and the same ``$OUT/<target>`` wrapper script written (its
   ``LD_PRELOAD`` of the sanitizer runtime only where that file exists).
   The same arguments go to PyInstaller in-process, the targets one after
   another in ``--jobs`` processes (PyInstaller keeps the standard library's
   module graph between builds in one process: half of each build), and with
   ``PYINSTALLER_ZLIB_COMPRESSION_LEVEL=0`` (the image uses PyInstaller's
   default 9): the archive holds the same files, stored instead of deflated
   (about 110 MB a target instead of 40), so neither packaging nor each run's
   unpacking spends time on compression (80 CPU s for the step at level 1, 67 at 0).
2. Every packaged target runs as ClusterFuzzLite runs it: its seed archive
   unpacked, its ``.options`` turned into flags (the dictionary from ``$OUT``),
   plus ``-runs=N`` mutations after the seeds. A crash, timeout or
   out-of-memory input fails the script; each is kept in
   ``build/fuzz-artifacts/<target>/`` and printed with its replay commands.

``--package TARGET`` (the quick gate's form) packages and runs only that target:
build.sh still runs whole, and every target's compile request, seed archive,
options and dictionary are checked in ``$OUT``. A build whose inputs (targets,
package source, build script, PyInstaller and Python versions) are unchanged and
which packaged the targets asked for is reused from ``build/cflite``
(``--rebuild`` forces one); PyInstaller's work folders are removed after each
build. Ends with ``N packaged targets ran``.
"""

from __future__ import annotations

import argparse
import configparser
import hashlib
import importlib
import json
import os
import shlex
import shutil
import sys
import tempfile
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor
from importlib import metadata
from pathlib import Path

# The gate's package (_gate) beside this file: already on the path when this runs as a
# script; appended when a test loads this file by path.
if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.append(str(Path(__file__).resolve().parent))

from _gate import process
from _gate.steps import confirmed

REPO = Path(__file__).resolve().parent.parent
ARTIFACT_KINDS = ("crash-", "timeout-", "oom-", "leak-", "slow-unit-")

# Records each compile request; the packaging itself runs afterwards (see package).
COMPILE_STAND_IN = """#!/bin/sh
# Local stand-in for OSS-Fuzz's compile_python_fuzzer: record the request (scripts/cflite_local.py).
printf '%s\\0' "$@" > "$A13N_CFLITE_QUEUE/$(basename "$1" .py).args"
"""
PIP_STAND_IN = """#!/bin/sh
# Local stand-in for pip3 in build.sh: the package is installed in this environment already.
echo "pip3 $*: using the installed package (local build)"
exec "$A13N_CFLITE_PYTHON" -c "import a13n_harness, yaml, atheris"
"""
WRAPPER = """#!/bin/sh
# LLVMFuzzerTestOneInput for fuzzer detection.
this_dir=$(dirname "$0")
chmod +x "$this_dir/{package}"
if [ -f "$this_dir/sanitizer_with_fuzzer.so" ]; then
  export LD_PRELOAD="$this_dir/sanitizer_with_fuzzer.so"
fi
ASAN_OPTIONS=$ASAN_OPTIONS:symbolize=1:detect_leaks=0 "$this_dir/{package}" "$@"
"""


def inputs_key(root: Path) -> str:
    """What the packaged targets depend on: change any of it and they are rebuilt."""
    digest = hashlib.sha256()
    files = sorted(
        [*(root / "fuzz").glob("*"), *(root / "core").rglob("*.py")],
        key=str,
    )
    files.append(root / ".clusterfuzzlite" / "build.sh")
    for path in files:
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(str(path.relative_to(root)).encode())
            digest.update(path.read_bytes())
    digest.update(f"{metadata.version('pyinstaller')} {sys.version}".encode())
    return digest.hexdigest()[:16]


def run_build_script(root: Path, out: Path, work: Path) -> list[list[str]]:
    """Run build.sh with the stand-ins; the recorded compile requests (argument lists)."""
    src = work / "src"
    queue = work / "queue"
    stand_ins = work / "bin"
    for folder in (src, queue, stand_ins):
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
    (src / "a13n-harness").symlink_to(root, target_is_directory=True)
    for name, text in (("compile_python_fuzzer", COMPILE_STAND_IN), ("pip3", PIP_STAND_IN)):
        (stand_ins / name).write_text(text, encoding="utf-8")
        (stand_ins / name).chmod(0o755)
    # python3 in build.sh is this interpreter (seeds.py needs only the standard library).
    (stand_ins / "python3").symlink_to(sys.executable)
    env = dict(os.environ)
    env.update(
        SRC=str(src),
        OUT=str(out),
        WORK=str(work),
        SANITIZER="address",
        FUZZING_LANGUAGE="python",
        A13N_CFLITE_QUEUE=str(queue),
        A13N_CFLITE_PYTHON=sys.executable,
        PATH=os.pathsep.join([str(stand_ins), env.get("PATH", "")]),
    )
    print(f"$ bash .clusterfuzzlite/build.sh  (SRC={src} OUT={out})", flush=True)
    ran = process.run(
        ["bash", "-eu", str(root / ".clusterfuzzlite" / "build.sh")],
        limits=process.Limits(600),  # zips and copies: CPU seconds; ten minutes is a hung build
        cwd=src,
        env=env,
    )
    print(ran.output, end="", flush=True)
    if not ran.passed:
        raise RuntimeError(f"build.sh failed (exit {ran.exit_code})")
    requests = []
    for path in sorted(queue.glob("*.args")):
        requests.append(path.read_bytes().decode().rstrip("\0").split("\0"))
    return requests


def pyinstaller_arguments(request: list[str], src: Path, out: Path, work: Path) -> list[str]:
    """compile_python_fuzzer's PyInstaller arguments for one recorded request."""
    fuzzer_path, *extra = request
    name = Path(fuzzer_path).stem
    workpath = work / "pyfuzzworkdir" / name
    shutil.rmtree(workpath, ignore_errors=True)
    workpath.mkdir(parents=True)
    return [
        "--distpath",
        str(out),
        f"--workpath={workpath}",
        "--specpath",
        str(workpath),
        "--onefile",
        "--name",
        f"{name}.pkg",
        *extra,
        str(src / "a13n-harness" / fuzzer_path),
    ]


def package_in_process(plan: Path) -> None:
    """PyInstaller over each argument list in ``plan`` (JSON), one after another in this
    process: PyInstaller keeps the standard library's module graph (half of each build) in
    memory between builds, so the second and later targets skip it."""
    # Imported here: only the packaging process needs PyInstaller (it ships no type stubs).
    pyinstaller = importlib.import_module("PyInstaller.__main__")
    configure = importlib.import_module("PyInstaller.configure")
    config = configure.get_config(upx_dir=None)  # checked once, for every build
    for arguments in json.loads(plan.read_text(encoding="utf-8")):
        started = time.monotonic()
        pyinstaller.run(arguments, config)
        print(f"# packaged {arguments[-1]} in {time.monotonic() - started:.1f}s", flush=True)


def package(requests: list[list[str]], src: Path, out: Path, work: Path, jobs: int) -> list[str]:
    """compile_python_fuzzer's packaging of every target (PyInstaller --onefile and a wrapper),
    in ``jobs`` processes; the targets packaged."""
    groups = [requests[index::jobs] for index in range(max(1, jobs)) if requests[index::jobs]]
    env = dict(os.environ, PYINSTALLER_ZLIB_COMPRESSION_LEVEL="0")

    def build(number: int) -> process.Finished:
        plan = work / f"pyinstaller-{number}.json"
        arguments = [pyinstaller_arguments(request, src, out, work) for request in groups[number]]
        plan.write_text(json.dumps(arguments), encoding="utf-8")
        with (work / f"pyinstaller-{number}.log").open("w", encoding="utf-8") as log:
            # A build takes CPU seconds (about 52 for seven); ten CPU minutes is a hung one.
            command = [sys.executable, __file__, "--package-in-process", str(plan)]
            return process.run(command, limits=process.Limits(600), cwd=work, env=env, log=log)

    with ThreadPoolExecutor(max_workers=len(groups)) as pool:
        finished = list(pool.map(build, range(len(groups))))
    for number, done in enumerate(finished):
        log = work / f"pyinstaller-{number}.log"
        if not done.passed:
            tail = log.read_text(encoding="utf-8", errors="replace").splitlines()[-15:]
            raise RuntimeError(f"PyInstaller failed (log {log}):\n" + "\n".join(tail))
        print(
            f"packaged {len(groups[number])} targets in {done.seconds:.1f}s "
            f"({done.cpu_seconds:.1f} CPU s)",
            flush=True,
        )
    names = []
    for request in requests:
        name = Path(request[0]).stem
        (out / f"{name}.pkg").chmod(0o644)  # OSS-Fuzz finds targets by their executable bit
        wrapper = out / name
        wrapper.write_text(WRAPPER.format(package=f"{name}.pkg"), encoding="utf-8")
        wrapper.chmod(0o755)
        names.append(name)
    return names


def option_flags(options: Path, out: Path) -> list[str]:
    """A ``.options`` file's ``[libfuzzer]`` section as flags, the dictionary found in ``$OUT``."""
    if not options.is_file():
        return []
    parser = configparser.ConfigParser()
    parser.read(options, encoding="utf-8")
    if not parser.has_section("libfuzzer"):
        return []
    flags = []
    for key, value in parser.items("libfuzzer"):
        if key == "dict":
            value = str(out / value)
        flags.append(f"-{key}={value}")
    return flags


def artifacts_in(folder: Path) -> set[Path]:
    if not folder.is_dir():
        return set()
    return {path for path in folder.iterdir() if path.name.startswith(ARTIFACT_KINDS)}


def run_target(
    target: str, out: Path, artifacts_root: Path, runs: int, root: Path = REPO
) -> list[str]:
    """Run one packaged target over its unpacked seed archive; the problems found."""
    wrapper = out / target
    archive = out / f"{target}_seed_corpus.zip"
    artifacts = artifacts_root / target
    artifacts.mkdir(parents=True, exist_ok=True)
    started = time.time() - 1  # libFuzzer rewrites a crash found again: go by time
    with tempfile.TemporaryDirectory(prefix=f"a13n-cflite-{target}-") as scratch_name:
        scratch = Path(scratch_name)
        seeds = scratch / "seeds"
        corpus = scratch / "corpus"  # libFuzzer writes new inputs into its first folder
        seeds.mkdir()
        corpus.mkdir()
        if archive.is_file():
            with zipfile.ZipFile(archive) as unpacked:
                unpacked.extractall(seeds)
        command = [
            str(wrapper),
            *option_flags(out / f"{target}.options", out),
            f"-runs={runs}",
            f"-artifact_prefix={artifacts}/",
            "-print_final_stats=1",
            str(corpus),
            str(seeds),
        ]
        print(f"$ {shlex.join(command)}", flush=True)
        # -runs bounds the work; the CPU budget is for a target that loops outside libFuzzer.
        done = process.run(command, limits=process.Limits(600), cwd=scratch)
    output = done.output
    problems = []
    # A timeout input counts only when its replay alone overruns in CPU (steps.confirmed); one
    # that does not still explains libFuzzer's exit code.
    recent = sorted(p for p in artifacts_in(artifacts) if p.stat().st_mtime >= started)
    for path in [p for p in recent if confirmed(root, target, p)]:
        shown = path.relative_to(root) if path.is_relative_to(root) else path
        problems.append(
            f"{target}: {path.name} ({path.stat().st_size} bytes); replay: "
            f"python fuzz/{target}.py {shown}  (packaged: {wrapper} {shown})"
        )
    if done.exit_code != 0 and not recent:
        problems.append(f"{target}: exit {done.exit_code} without an artifact")
    if "Done" not in output and not recent:
        problems.append(f"{target}: libFuzzer did not finish its runs")
    tail = [
        line
        for line in output.splitlines()
        if line.startswith(("Done", "INFO: seed", "stat::number_of_executed_units"))
        or line.split(" ")[0].lstrip("#").isdigit()
    ]
    print("\n".join(tail[-3:]) if not problems else output[-3000:], flush=True)
    return problems


def check_outputs(out: Path, targets: list[str]) -> list[str]:
    """What build.sh must have left in ``$OUT`` for every target, packaged or not: a seed
    archive that opens and its ``.options`` with a ``[libfuzzer]`` section (the dictionary
    it names beside it). The problems found."""
    problems = []
    for target in targets:
        archive = out / f"{target}_seed_corpus.zip"
        try:
            with zipfile.ZipFile(archive) as seeds:
                if not seeds.namelist():
                    problems.append(f"{target}: {archive.name} holds no seed")
        except (OSError, zipfile.BadZipFile) as error:
            problems.append(f"{target}: {archive.name}: {error}")
        options = out / f"{target}.options"
        flags = option_flags(options, out) if options.is_file() else []
        if not flags:
            problems.append(f"{target}: {options.name} missing or without [libfuzzer] options")
        for flag in flags:
            if flag.startswith("-dict=") and not Path(flag.removeprefix("-dict=")).is_file():
                problems.append(f"{target}: {options.name} names {flag} but build.sh copied none")
    return problems


def main(argv: list[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else argv
    if arguments[:1] == ["--package-in-process"]:
        package_in_process(Path(arguments[1]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--root", type=Path, default=REPO, help="tree to build")
    parser.add_argument("--out", type=Path, help="build folder (default <root>/build/cflite)")
    parser.add_argument("--runs", type=int, default=300, help="mutations per target after seeds")
    parser.add_argument("--jobs", type=int, default=2, help="targets packaged at once")
    parser.add_argument("--rebuild", action="store_true", help="ignore a reusable build")
    parser.add_argument(
        "--package",
        action="append",
        default=[],
        metavar="TARGET",
        help="package and run only this target (repeatable; default every target): build.sh "
        "still runs whole and every target's request, seed archive and options are checked",
    )
    args = parser.parse_args(arguments)
    root: Path = args.root.resolve()
    build = (args.out or root / "build" / "cflite").resolve()
    out, work = build / "out", build / "work"
    stamp = build / "inputs.json"
    key = inputs_key(root)
    started = time.monotonic()
    expected = sorted(path.stem for path in (root / "fuzz").glob("fuzz_*.py"))
    unknown = sorted(set(args.package) - set(expected))
    if unknown:
        print(f"--package {unknown[0]}: no such target in fuzz/ ({', '.join(expected)})")
        return 1
    wanted = sorted(args.package) or expected
    previous = json.loads(stamp.read_text(encoding="utf-8")) if stamp.is_file() else {}
    reused = (
        not args.rebuild
        and previous.get("key") == key
        and set(wanted) <= set(previous.get("targets", []))
    )
    if reused:
        print(f"reusing the packaged targets in {out} (inputs unchanged, key {key})")
        recorded = previous.get("recorded", expected)
        # Packages of an earlier, wider build that this run does not ask for are not kept
        # (about 110 MB each): the folder holds what the last run used.
        for extra in sorted(set(previous.get("targets", [])) - set(wanted)):
            (out / f"{extra}.pkg").unlink(missing_ok=True)
            (out / extra).unlink(missing_ok=True)
        stamp.write_text(
            json.dumps({"key": key, "targets": wanted, "recorded": recorded}) + "\n",
            encoding="utf-8",
        )
    else:
        shutil.rmtree(out, ignore_errors=True)
        stamp.unlink(missing_ok=True)
        out.mkdir(parents=True)
        work.mkdir(parents=True, exist_ok=True)
        requests = run_build_script(root, out, work)
        if not requests:
            print("build.sh compiled no target")
            return 1
        recorded = sorted(Path(request[0]).stem for request in requests)
        chosen = [request for request in requests if Path(request[0]).stem in wanted]
        packaged = sorted(package(chosen, work / "src", out, work, args.jobs)) if chosen else []
        stamp.write_text(
            json.dumps({"key": key, "targets": packaged, "recorded": recorded}) + "\n",
            encoding="utf-8",
        )
        # PyInstaller's work folders (about a gigabyte for seven targets) are never read again:
        # only the packaged targets in out/ are kept, for the next run with the same inputs.
        shutil.rmtree(work, ignore_errors=True)
    built = time.monotonic() - started
    if recorded != expected:
        print(f"build.sh compiled {recorded}, but fuzz/ holds {expected}")
        return 1
    problems = check_outputs(out, expected)
    for target in wanted:
        problems += run_target(target, out, root / "build" / "fuzz-artifacts", args.runs, root)
    for problem in problems:
        print(problem)
    print(
        f"build {built:.1f}s{' (reused)' if reused else ''}, "
        f"runs {time.monotonic() - started - built:.1f}s"
    )
    if problems:
        print(f"{len(problems)} problem(s) in {len(wanted)} packaged targets")
        return 1
    print(f"build.sh requested {len(recorded)} targets, all with seeds and options")
    print(f"{len(wanted)} packaged targets ran")
    return 0


if __name__ == "__main__":
    sys.exit(main())
