"""Claims of brr (Zhang, Zhu, Chen & Hu, *Bipartite Randomized Response Mechanism for Local
Differential Privacy*) and their checks.

Conventions (those of :mod:`dpexact.ldp`): X = Y = {1, ..., N}, loss λ(x, y) = |x − y| (brr §3)
unless a claim names another loss; a = e^ε, u = e^{ε/2}, c0 = 1/(u + 1). "BRR" is eq. (7) with
the m of the search, Algorithms 1–2, in the pseudocode reading (m = the last index whose
derivative ∂Q/∂s_i is negative; the authors' code does the same); Algorithm 3 / Theorem 1's
closed form is checked *against* that search. Points are 1-indexed in the text, 0-indexed in
the code.

Arithmetic: ε = log(a) with rational a makes e^ε rational (Fraction / fmpq); ε = 2 log(u) with
rational u also makes the paper's asymptotic formulas rational. For other ε the sign of the
derivative numerator a·A + B (A, B integers) is decided by a float with a rigorous error
bound, escalating to arb / sympy (:class:`_Budget`); values are arb balls; limits are sympy.
"""

from . import search, explicit_m, asymptotics, optimality, figures_4_5, discretisation, external_data

#: the section modules in paper order (the order of the claims)
SECTIONS = (
    "search",
    "explicit_m",
    "asymptotics",
    "optimality",
    "figures_4_5",
    "discretisation",
    "external_data",
)
