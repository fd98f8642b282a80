"""Claims of hetsel (Antonova, Laro, McMillan & Wolf, *Private Selection with Heterogeneous Sensitivities*) — listed, not yet checked.

The extraction has no numbered theorems; the claims below are the paper's privacy statements.
"""

from ._pending import register_pending

register_pending((
    ("hetsel.text.rnm-heterogeneous-not-dp", "A naive extension of report noisy max to heterogeneous sensitivities (noise scaled per candidate) fails to be differentially private in general.", "hetsel §III–IV"),
    ("hetsel.algorithm.1", "RNM with random stopping and heterogeneous sensitivities (RS_γ, Algorithm 1) is ε-DP when each candidate's noising mechanism is DP.", "hetsel §IV, Algorithm 1 and text"),
    ("hetsel.algorithm.2", "Combined GEM (Algorithm 2) is differentially private with the stated budget.", "hetsel §IV, Algorithm 2"),
))
