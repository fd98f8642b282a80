"""hetsel: claims that need data we do not have, or an unspecified process."""

from __future__ import annotations

from ..catalogue import Verdict, claim, inconclusive


_NO_DATA = "needs data we do not have"


def _register_inconclusive(cid: str, statement: str, location: str, reason: str) -> None:
    def check(quick: bool, _r: str = reason) -> Verdict:
        return inconclusive(_r)

    claim(cid, statement, location, expected="inconclusive", scope_quick="not run", scope_full="not run")(check)


_register_inconclusive(
    "hetsel.figure.6",
    "Two exceptional positive-correlation scenarios (Pearson 0.22 / Spearman 0.12 and 0.44 / 0.27; Scenario 1 has 18 "
    "candidates with score 1 and sensitivity 0.1): in Scenario 1 mGEM and GEM both beat RNM, in Scenario 2 GEM performs "
    "poorly and RNM beats mGEM at higher ε.", "hetsel §V-B, Figure 6",
    "the score/sensitivity data of Figure 6 (and Figure 24) is not specified beyond its correlations: cannot be recomputed")
_register_inconclusive(
    "hetsel.figure.24",
    "On the data of Figure 6 the weighted correlation of eq. (17) (B = 5 buckets) is 0.83 (Scenario 1) and 0.16 "
    "(Scenario 2) and reflects mGEM's performance relative to RNM better than Pearson or Spearman correlation.",
    "hetsel Appendix I, eq. (17), Figure 24", "the score/sensitivity data of Figures 6 and 24 is not given: cannot be recomputed")
_register_inconclusive(
    "hetsel.figure.10",
    "Scenarios with increasing correlation (t ∈ {−5, −0.8, −0.3, 0, 0.3, 0.8, 5}, x_a, z_a ~ N(0,1), "
    "P_a = (t x + z)/5 − min_a (t x + z)/5): mGEM and RS_γ benefit most from strong positive correlation, GEM from "
    "negative, and the best heterogeneous mechanism's benefit over RNM grows with the correlation strength.",
    "hetsel §VI 'Scenarios with increasing correlation', Figure 10",
    "the generating process defines P_a as a number, not a distribution, and does not say how Δ_a relates to x_a "
    "(the quantile rule of §VI would give Δ_a = 0): cannot be recomputed without guessing")
_register_inconclusive(
    "hetsel.figure.13",
    "On Amazon Books, MovieLens 20M and Netflix (SANSA scores, top-500 items per user, Δ from the 1st-99th percentiles) "
    "scores and sensitivities are mostly positively correlated, the mGEM − GEM gap grows with the correlation, mGEM is "
    "the best DP mechanism for small ε and GEM performs worse than RNM on all three.", "hetsel §VIII, Figure 13",
    _NO_DATA + " (Netflix, MovieLens 20M, Amazon Books, and a trained SANSA model)")
_register_inconclusive(
    "hetsel.figure.21",
    "On Amazon Books it is not productive to spend privacy budget on choosing the selection mechanism automatically.",
    "hetsel Appendix G, Figure 21", _NO_DATA + " (Amazon Books with SANSA scores)")
_register_inconclusive(
    "hetsel.figure.14",
    "In a two-armed bandit with a distribution shift (t_shift = 30,000, T = 50,000), all DP selection variants outperform "
    "non-private UCB after the shift, and mGEM outperforms GEM, RS_γ, kRR and RNM.", "hetsel §IX, Figure 14, Appendix H",
    "simulation not reproducible from the text: UCB's α, the Thompson-sampling prior, the reward clipping range, the hybrid "
    "tree mechanism's parameters and the exponential-mechanism quantile estimator are not specified (and the mechanisms "
    "would run on privately estimated, time-varying inputs)")
