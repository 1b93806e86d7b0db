"""The one setup the harness's own tests share: a scratch tree (``harness/scratch.py``) in
which a test plants one broken piece, runs a script of the harness and reads its report."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.scratch import Scratch, bare_tree, healthy_tree


@pytest.fixture
def bare(tmp_path: Path) -> Scratch:
    """A scratch tree holding only the real core and pyproject (tests add what they run)."""
    return bare_tree(tmp_path)


@pytest.fixture
def tree(tmp_path: Path) -> Scratch:
    """A minimal healthy tree: the real core, the corpus replay and one fuzz target."""
    return healthy_tree(tmp_path)
