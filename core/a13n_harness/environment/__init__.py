"""Files: operators, mounts, routes and pinned scopes (SPEC section 7).

Everything here does I/O through an async :class:`FileOperator`. The pure
core (:mod:`a13n_harness.context`) never imports this package.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from a13n_harness.environment.environment import (
    DEFAULT_MOUNT,
    Environment,
    EnvironmentPath,
    FileProvider,
    LocalDirectoryProvider,
    PinnedFiles,
)
from a13n_harness.environment.errors import (
    FileNotFound,
    FileOperatorError,
    FilePermissionDenied,
    FileProviderError,
    FileUnsupported,
    NotADirectory,
)
from a13n_harness.environment.local import MAX_LINK_HOPS, LocalFileOperator
from a13n_harness.environment.memory import (
    MemoryBroken,
    MemoryDenied,
    MemoryFileOperator,
    MemoryNode,
    MemorySpecial,
    MemorySymlink,
)
from a13n_harness.environment.operator import (
    ENTRY_KINDS,
    BatchReader,
    DirectoryEntry,
    EntryKind,
    FileOperator,
    FileStat,
)
from a13n_harness.environment.paths import is_canonical_path, join_path, path_segments

if TYPE_CHECKING:
    from a13n_harness.environment.facts import collect_environment_facts

__all__ = [
    "DEFAULT_MOUNT",
    "ENTRY_KINDS",
    "MAX_LINK_HOPS",
    "BatchReader",
    "DirectoryEntry",
    "EntryKind",
    "Environment",
    "EnvironmentPath",
    "FileNotFound",
    "FileOperator",
    "FileOperatorError",
    "FilePermissionDenied",
    "FileProvider",
    "FileProviderError",
    "FileStat",
    "FileUnsupported",
    "LocalDirectoryProvider",
    "LocalFileOperator",
    "MemoryBroken",
    "MemoryDenied",
    "MemoryFileOperator",
    "MemoryNode",
    "MemorySpecial",
    "MemorySymlink",
    "NotADirectory",
    "PinnedFiles",
    "collect_environment_facts",
    "is_canonical_path",
    "join_path",
    "path_segments",
]


def __getattr__(name: str) -> object:
    # facts.py (another module's owner) runs subprocesses; import it only when asked for.
    if name == "collect_environment_facts":
        return importlib.import_module("a13n_harness.environment.facts").collect_environment_facts
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
