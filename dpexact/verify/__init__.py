"""Verifiers: neighbourhoods, certified pure-DP / (ε,δ) / LDP / regularity checks, verdicts.

A verdict is ``violated`` only with a counterexample re-checked in exact or ball arithmetic,
and ``private-within-scope`` only when every checked (q, q', r) triple is proved
``Pr[M(q)=r] <= e^ε Pr[M(q')=r]`` in exact or ball arithmetic. Submodules are imported on use.
"""
