"""Mechanism-specific privacy curves — δ(ε'), Rényi D_α, tight zCDP ρ — certified as upper envelopes over
every pair of neighbouring inputs, with witnesses below them, and their export to dp_accounting and OpenDP.

Modules: :mod:`.families` (the dominating families and their theorems), :mod:`.dual` (mean-value forms),
:mod:`.supremum` (branch-and-bound over inputs and orders), :mod:`.curve` (the public
:func:`~.curve.privacy_curve`), :mod:`.compose` (certified composition through Rényi DP),
:mod:`.export` (dp_accounting / OpenDP), :mod:`.point` (a certified value), :mod:`.plot`. Submodules are imported on use.
"""
