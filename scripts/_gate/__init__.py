"""The gate's shared pieces: used by ``verify.py``, ``verify_mutants.py`` and ``mutmut.py``.

- ``process``: one subprocess runner with a CPU budget for its process tree and a backstop
  for a tree that makes no progress (the process group and the tree are killed at either).
- ``pytest_results``: pytest's exit codes and its JUnit XML, read without parsing its output.
- ``warm``: a fork pool whose parent has pytest and Hypothesis imported, for short pytest runs.
- ``defects``: the injected-defect verifier (``verify_mutants.py`` is its command line).
- ``report``: the table, JSON and JUnit writers.
- ``steps``: the merge gate's steps, registered in one place.
- ``mutmut_*``: the mutation gate (``mutmut.py``): ``mutmut_run`` (the run and its reports),
  ``mutmut_mutants`` (keys, listing, judgement), ``mutmut_rules`` (equivalence rules),
  ``mutmut_select`` (changed functions), ``mutmut_killsets`` (two runs' kill sets compared).

An internal package of the harness scripts (not part of ``a13n_harness``); the scripts put
their own folder first on ``sys.path`` when run, so ``import _gate`` finds it.
"""
