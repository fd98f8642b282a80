"""Deciding one pair or triple: the certified ratio ``Pr[M(q)=r] <= e^ε Pr[M(q')=r]``, counterexamples
and their re-checks, a finite scope of selection pairs (``check_pairs``) and regularity (pf Def. 3).

Submodules are imported on use.
"""
