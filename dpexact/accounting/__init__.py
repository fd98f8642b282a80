"""(ε, δ) accounting of given laws: the hockey-stick divergence, δ(ε) and ε(δ) certified for pmf pairs,
the Gaussian and Laplace mechanisms and k-fold composition, closed-form privacy profiles, and the certified
accountant (:mod:`.accountant`: events of :mod:`.events` composed exactly, in closed form, or on a grid
with proved ends — :mod:`.loss_laws`, :mod:`.discretise`, :mod:`.grid_measure`, :mod:`.grid_accounting`).

Submodules are imported on use.
"""
