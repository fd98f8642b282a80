"""Claims of err (Munilla Garrido & Matthes, *Exponential Randomized Response*) — listed, not yet checked."""

from ._pending import register_pending

register_pending((
    ("err.lemma.1", "The pmf of M_ERR is given by the expression of Lemma 1 (mixture of a uniform part over the top set T and EM-like weights).", "err §IV, Lemma 1"),
    ("err.theorem.1", "M_ERR is ε-differentially private.", "err §IV, Theorem 1"),
    ("err.theorem.2", "The disclosure risk ϱ of M_ERR satisfies 1/|Ω| ≤ ϱ ≤ 1/(1 + (|Ω|−1) exp(−ε)).", "err §IV, Theorem 2, eq. (4)"),
    ("err.lemma.2", "M_ERR is regular (symmetric, shift-invariant, monotone).", "err appendix, Lemma 2"),
    ("err.lemma.3", "M_ERR is never worse than M_EM with respect to disclosure risk.", "err appendix, Lemma 3"),
    ("err.proposition.1", "For M_ERR the optimal expected error occurs when only one v_i is in T, the worst case when all v_i are in T.", "err appendix, Proposition 1"),
    ("err.lemma.4", "If f_1 ≤ … ≤ f_n and Σ f_r = 0 then every partial sum is ≤ 0.", "err appendix, Lemma 4"),
    ("err.theorem.3", "The expected error of M_ERR is never worse than M_EM for datasets where |T| = 1.", "err appendix, Theorem 3"),
    ("err.lemma.5", "There is always a range of p in [0, 1] where the expected error of M_ERR is never worse than M_PF when |T| = 1.", "err appendix, Lemma 5"),
    ("err.lemma.6", "The expected error of M_ERR can be worse than M_EM for datasets where |T| > 1.", "err appendix, Lemma 6"),
))
