"""The package's version, written once.

``pyproject.toml`` declares the version dynamic and setuptools reads it from
here (statically, without importing the package), so the distribution's
metadata, ``importlib.metadata.version("a13n-harness-skills")``,
``a13n_harness.__version__`` and ``a13n-skills --version`` all come from this
one line. ``--version`` reads it directly: importing ``importlib.metadata`` alone
costs several times a bare interpreter start (it pulls in ``email``, ``zipfile``
and ``pathlib``), which the start-up bound of ``scripts/bench.py`` does not allow.
"""

__version__ = "0.2.0"
