"""``python -m a13n_harness``: the ``a13n-skills`` command."""

from __future__ import annotations

from a13n_harness.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
