"""Sparse vector technique: Lyu, Su & Li (VLDB 2017) Algorithms 1–6 with exact pattern laws.

* :mod:`.patterns` — the ⊤/⊥ output patterns (enumeration, validation);
* :mod:`.threshold_integral` — the closed-form 1-D integral over the threshold noise;
* :mod:`.mechanism` — the algorithms (svt1, svt2, svt4, svt5, svt6);
* :mod:`.released` — Algorithm 3 (svt3), which also releases noisy answers (box probabilities);
* :mod:`.numerical` — NumericalSVT, which releases noisy answers above the threshold.
"""

from .mechanism import SVT1, SVT2, SVT4, SVT5, SVT6, SparseVector
from .numerical import NumericalSVT
from .patterns import check_pattern, count_patterns, enumerate_patterns
from .released import SVT3

__all__ = ["SparseVector", "SVT1", "SVT2", "SVT3", "SVT4", "SVT5", "SVT6", "NumericalSVT", "check_pattern", "count_patterns",
           "enumerate_patterns"]
