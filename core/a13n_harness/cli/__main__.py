"""``python -m a13n_harness.cli``: the ``a13n-skills`` command."""

from __future__ import annotations

from a13n_harness.cli import main

raise SystemExit(main())
