"""Claims of brr (Zhang, Zhu, Chen & Hu, *Bipartite Randomized Response*) — listed, not yet checked."""

from ._pending import register_pending

register_pending((
    ("brr.theorem.1", "For the number m of high-probability items of BRR defined by (7): m ≥ 1 whatever m₁, m₂, and m/N → 1/(e^{ε/2} + 1) as N → ∞.", "brr §4, Theorem 1"),
    ("brr.theorem.2", "For any prior point k the local expected error of BRR is no more than GRR's, with stated asymptotic upper and lower bounds on the BRR/GRR local expected-error ratio.", "brr §4, Theorem 2"),
    ("brr.theorem.3", "For sufficiently large N in the equidistant point domain, the BRR/GRR ratio of global expected errors has the stated asymptotically exact value.", "brr §4, Theorem 3"),
    ("brr.theorem.4", "For a general discrete domain and utility function BRR at least equals GRR on local utility at every prior point, and outperforms GRR on global utility if m > 1.", "brr §5, Theorem 4"),
))
