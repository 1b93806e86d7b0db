"""Optional integrations with agent frameworks (each behind its own extra).

Nothing below this package imports a framework: ``a13n_harness.context``,
``environment``, ``capabilities`` and ``cli`` stay free of it (an import-linter contract).
"""
