"""Files: operators, mounts, routes and pinned scopes (docs/contract.md §7).

Everything here does I/O through an async :class:`FileOperator`. The pure
core (:mod:`a13n_harness.context`) never imports this package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from a13n_harness._lazy import lazy_attributes

if TYPE_CHECKING:
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
    from a13n_harness.environment.facts import collect_environment_facts
    from a13n_harness.environment.local import (
        MAX_LINK_HOPS,
        LocalFileOperator,
    )
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
    from a13n_harness.environment.paths import (
        is_canonical_path,
        join_path,
        path_segments,
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

# Each name is imported from its module on first use (PEP 562), so a caller that needs
# one part (the CLI's catalog needs discovery, not the run bindings or the in-memory
# operator) does not pay for the rest at start-up.
_LAZY: dict[str, str] = {
    "DEFAULT_MOUNT": "a13n_harness.environment.environment",
    "Environment": "a13n_harness.environment.environment",
    "EnvironmentPath": "a13n_harness.environment.environment",
    "FileProvider": "a13n_harness.environment.environment",
    "LocalDirectoryProvider": "a13n_harness.environment.environment",
    "PinnedFiles": "a13n_harness.environment.environment",
    "FileNotFound": "a13n_harness.environment.errors",
    "FileOperatorError": "a13n_harness.environment.errors",
    "FilePermissionDenied": "a13n_harness.environment.errors",
    "FileProviderError": "a13n_harness.environment.errors",
    "FileUnsupported": "a13n_harness.environment.errors",
    "NotADirectory": "a13n_harness.environment.errors",
    "MAX_LINK_HOPS": "a13n_harness.environment.local",
    "LocalFileOperator": "a13n_harness.environment.local",
    "MemoryBroken": "a13n_harness.environment.memory",
    "MemoryDenied": "a13n_harness.environment.memory",
    "MemoryFileOperator": "a13n_harness.environment.memory",
    "MemoryNode": "a13n_harness.environment.memory",
    "MemorySpecial": "a13n_harness.environment.memory",
    "MemorySymlink": "a13n_harness.environment.memory",
    "ENTRY_KINDS": "a13n_harness.environment.operator",
    "BatchReader": "a13n_harness.environment.operator",
    "DirectoryEntry": "a13n_harness.environment.operator",
    "EntryKind": "a13n_harness.environment.operator",
    "FileOperator": "a13n_harness.environment.operator",
    "FileStat": "a13n_harness.environment.operator",
    "is_canonical_path": "a13n_harness.environment.paths",
    "join_path": "a13n_harness.environment.paths",
    "path_segments": "a13n_harness.environment.paths",
    "collect_environment_facts": "a13n_harness.environment.facts",
}


__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, __all__)
