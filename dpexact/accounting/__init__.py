"""(ε, δ) accounting of given laws: the hockey-stick divergence, δ(ε) and ε(δ) certified for pmf pairs,
the Gaussian and Laplace mechanisms and k-fold composition, and closed-form privacy profiles.

Submodules are imported on use.
"""
