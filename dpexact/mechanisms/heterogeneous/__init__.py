"""Private selection with heterogeneous (candidate-wise) sensitivities, hetsel.

Modules: ``sensitivities`` (Δ_a and the shared base class), ``rnmh`` (RNM at the global Δ,
eq. 3; RNMH with per-candidate exponential or Laplace noise, eq. 4), ``gem`` (GEM / mGEM,
eqs. 6-7), ``combined_gem`` (Algorithm 2), ``rs_gamma`` (RS_γ, Algorithm 1, and its
truncated-negative-binomial variant, Appendix C), ``metrics`` (HG of §V-A, squared error),
``grouped`` (ball pmfs of groups of equal candidates, for the §VI scenarios).
"""

from .combined_gem import CombinedGEM
from .gem import GEM, ModifiedGEM
from .grouped import rnm_exp_groups_ball, rs_groups_ball
from .metrics import hg, miss_probability, squared_error
from .rnmh import RNMH, RNMGlobal, RNMHLaplace
from .rs_gamma import RandomStoppingGeometric, RandomStoppingTNB
from .sensitivities import HeterogeneousSelection, parse_sensitivities

__all__ = [
    "HeterogeneousSelection",
    "parse_sensitivities",
    "RNMGlobal",
    "RNMH",
    "RNMHLaplace",
    "GEM",
    "ModifiedGEM",
    "CombinedGEM",
    "RandomStoppingGeometric",
    "RandomStoppingTNB",
    "hg",
    "miss_probability",
    "squared_error",
    "rnm_exp_groups_ball",
    "rs_groups_ball",
]
