"""The optimal regular mechanism on the bounded 2Δ-lattice (pf §5, Theorem 3, Appendix D).

* :mod:`.lattice` — Q(n, k), its symmetry classes and multiplicities (generators);
* :mod:`.regular_lp` — the symmetry-reduced LP (privacy, sum-to-one), boundary option;
* :mod:`.solver` — the routes (``method=``): auto, HiGHS simplex / IPX / HiPO (on the dual LP) / PDLP;
* :mod:`.generation` — the chain form and its row/column generation (large ε);
* :mod:`.highs_model` — a HiGHS instance, models passed from scipy.sparse, run status;
* :mod:`.unreduced_lp` — the unreduced LP in cvxpy, to cross-check the reduction;
* :mod:`.optimal_mechanism` — the LP optimum as a mechanism object; optimality ratios;
* :mod:`.dual_certificate` — pf's dual recurrence, its feasibility, Lemma 7;
* :mod:`.exact_certificate` — exact rational certification (e^{−ε} ∈ Q) or a ball enclosure;
* :mod:`.privacy_forest` — the privacy rows as a forest (parent = worst-case neighbour);
* :mod:`.tree_bounds` — proven float64 bounds on the optimum from any approximate solution;
* :mod:`.tree_crossover` — interior point to vertex using the forest structure.
"""

from .dual_certificate import LEMMA7_THRESHOLD, DualCertificate, dual_certificate, dual_feasibility_threshold, lemma7_sum
from .exact_certificate import ExactCertificate, OptimumEnclosure, certify_exact, enclose_optimum
from .lattice import LatticeClass, class_members, count_classes, count_vectors, lattice_classes, lattice_vectors
from .optimal_mechanism import OptimalRegularMechanism, optimal_mechanism, optimality_ratio, total_expected_error
from .regular_lp import RegularLP, build_regular_lp
from .solver import LPSolution, hipo_available, solve_regular_lp
from .tree_bounds import OptimumBounds, optimum_bounds
from .unreduced_lp import solve_unreduced_lp

__all__ = [
    "LEMMA7_THRESHOLD", "DualCertificate", "dual_certificate", "dual_feasibility_threshold", "lemma7_sum",
    "ExactCertificate", "OptimumEnclosure", "certify_exact", "enclose_optimum",
    "LatticeClass", "class_members", "count_classes", "count_vectors", "lattice_classes", "lattice_vectors",
    "OptimalRegularMechanism", "optimal_mechanism", "optimality_ratio", "total_expected_error",
    "RegularLP", "build_regular_lp", "LPSolution", "hipo_available", "solve_regular_lp", "solve_unreduced_lp",
    "OptimumBounds", "optimum_bounds",
]
