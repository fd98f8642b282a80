"""Local differential privacy: channels ``Pr[y | x]``, GRR, BRR, the exponential mechanism as a
channel, and the optimal ε-LDP channel LP (brr = Zhang, Zhu, Chen, Hu, *Bipartite Randomized
Response Mechanism for Local Differential Privacy*).

* :mod:`.losses` — loss/utility matrices: ``|x − y|`` (brr §3), Jaccard similarity (brr eq. 13)
* :mod:`.channel` — :class:`Channel`: Q^(k) (eq. 10), Q_g (eq. 11), QLoss (eq. 12), LDP ratio
* :mod:`.generalized_rr` — GRR / k-RR (eq. 6)
* :mod:`.bipartite_rr` — BRR (eq. 7), local search (Alg. 1), global search (Alg. 2)
* :mod:`.brr_closed_form` — the explicit m of Alg. 3 / Theorem 1
* :mod:`.brr_equidistant` — Algs. 1-2 vectorised over the equidistant domain's rows (exact signs)
* :mod:`.exponential_channel` — EM as a channel (eq. 5)
* :mod:`.discretize` — continuous range -> N equidistant points (brr §4.1)
* :mod:`.optimal_channel` — the optimal ε-LDP channel LP with an exact certificate
"""

from .bipartite_rr import BipartiteRR, GlobalSearch, LocalSearch, brr_channel, global_search, local_search
from .brr_closed_form import ClosedFormM, closed_form_m
from .channel import Channel, ColumnRatio
from .discretize import equidistant_grid, grid_loss, nearest_index, points_for_spacing
from .exponential_channel import ExponentialChannel
from .generalized_rr import GeneralizedRR
from .losses import LossMatrix, absolute_loss, distance_loss, jaccard_similarity, loss_by_name, loss_sensitivity
from .optimal_channel import OptimalLDP, optimal_ldp_channel

__all__ = [
    "BipartiteRR",
    "Channel",
    "ClosedFormM",
    "ColumnRatio",
    "ExponentialChannel",
    "GeneralizedRR",
    "GlobalSearch",
    "LocalSearch",
    "LossMatrix",
    "OptimalLDP",
    "absolute_loss",
    "brr_channel",
    "closed_form_m",
    "distance_loss",
    "equidistant_grid",
    "global_search",
    "grid_loss",
    "jaccard_similarity",
    "local_search",
    "loss_by_name",
    "loss_sensitivity",
    "nearest_index",
    "optimal_ldp_channel",
    "points_for_spacing",
]
