"""Claims of hetsel (Antonova, Laro, McMillan & Wolf, *Private Selection with Heterogeneous
Sensitivities*) and their checks.

The paper has no numbered theorems: its claims are privacy statements (RNMH, RS_γ, GEM/mGEM,
combined GEM, Appendices A–C), closed forms (eqs. 5, 6–7, 16, §V-A), utility bounds (§IV-D,
Appendix J) and statements about its synthetic scenarios (Figures 2, 3, 8, 12, 15, 18).

Conventions (as in :mod:`dpexact.mechanisms.heterogeneous`): ``Exp(ε/2Δ)`` has *mean* 2Δ/ε
(hetsel §I); neighbours are the candidate-wise ℓ∞ box ``|q'_a − q_a| ≤ Δ_a`` (hetsel eq. 1);
RS_γ draws K ~ Geometric(γ) on {1, 2, …} and adds Lap(3Δ_a/ε) (Algorithm 1); GEM/mGEM use
``t = ±2 log(|A|/β)/ε`` then RNM with Exp(ε/2) noise (footnote 3); β = 0.05, γ = 0.05 and
|A| = 100 in the synthetic experiments (§VI).

Scenario computations use *grouped* pmfs: in the paper's bimodal scenarios many candidates share
(q_a, Δ_a), and the law of the selected *group* is a one-dimensional integral evaluated here in
ball arithmetic (``acb.integral`` with rigorous tail bounds): :func:`rnm_exp_groups_ball` (RNM,
RNMH, GEM, mGEM — all report-noisy-max with exponential noise) and :func:`rs_groups_ball`
(RS_γ and its truncated-negative-binomial variant, the mixture formula of
:mod:`dpexact.mechanisms.heterogeneous.rs_gamma`).
"""

from . import (
    rnmh,
    rnm,
    random_stopping,
    gem,
    two_candidates,
    bimodal,
    monte_carlo,
    combined_gem,
    appendix_i,
    appendix_j,
    no_data,
    bandit,
)

#: the section modules in paper order (the order of the claims)
SECTIONS = (
    "rnmh",
    "rnm",
    "random_stopping",
    "gem",
    "two_candidates",
    "bimodal",
    "monte_carlo",
    "combined_gem",
    "appendix_i",
    "appendix_j",
    "no_data",
    "bandit",
)
