"""Test support shipped with the package: Hypothesis strategies (needs ``hypothesis``)."""
