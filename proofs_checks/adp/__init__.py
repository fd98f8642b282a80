"""Claims of adp (F. Tramèr, lecture notes *Approximate Differential Privacy*) and their checks.

Gaussian mechanism: the exact privacy profile of N(0,σ²) vs N(Δ,σ²) (Balle & Wang 2018, Thm. 8)

    δ_exact(ε) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ),

evaluated in arb (Φ(x) = erfc(−x/√2)/2). Composition: by the optimal composition theorem
(Kairouz, Oh & Viswanath 2015) the k-fold composition of (ε,δ)-DP mechanisms is dominated by
k-fold "(ε,δ)-randomized response" (reveal the bit w.p. δ, else ε-RR); its hockey-stick
divergence is computed exactly in arb.
"""

from . import gaussian, composition, exponential

#: the section modules in paper order (the order of the claims)
SECTIONS = (
    "gaussian",
    "composition",
    "exponential",
)
