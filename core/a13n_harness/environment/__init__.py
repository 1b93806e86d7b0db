"""Files: operators, mounts, routes and pinned scopes (docs/contract.md §7).

Everything here does I/O through an async :class:`FileOperator`. The pure
core (:mod:`a13n_harness.context`) never imports this package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from a13n_harness._lazy import lazy_attributes
from a13n_harness.environment.errors import (
    FileNotFound,
    FileOperatorError,
    FilePermissionDenied,
    FileProviderError,
    FileUnsupported,
    NotADirectory,
)
from a13n_harness.environment.local import MAX_LINK_HOPS, LocalFileOperator
from a13n_harness.environment.operator import (
    ENTRY_KINDS,
    BatchReader,
    DirectoryEntry,
    EntryKind,
    FileOperator,
    FileStat,
)
from a13n_harness.environment.paths import is_canonical_path, join_path, path_segments

if TYPE_CHECKING:  # loaded on first use, see below
    from a13n_harness.environment.environment import (
        DEFAULT_MOUNT,
        Environment,
        EnvironmentPath,
        FileProvider,
        LocalDirectoryProvider,
        PinnedFiles,
    )
    from a13n_harness.environment.facts import collect_environment_facts
    from a13n_harness.environment.memory import (
        MemoryBroken,
        MemoryDenied,
        MemoryFileOperator,
        MemoryNode,
        MemorySpecial,
        MemorySymlink,
    )

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

# A scan (the command line's) needs the modules imported above, not the Environment, the
# in-memory operator or git (docs/decisions.md, "What start-up still defers").
__getattr__, __dir__ = lazy_attributes(
    __name__,
    __all__,
    (
        "a13n_harness.environment.environment",
        "a13n_harness.environment.memory",
        "a13n_harness.environment.facts",
    ),
)
