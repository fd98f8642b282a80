"""Dot products of float64 vectors that never reach OpenBLAS's threaded ``ddot``.

``Σ_i a_i b_i`` is formed as one BLAS ``ddot`` per piece of at most :data:`DOT_CHUNK` entries and
the pieces' values are added in order (a blocked summation: the error of a ``ddot`` on each piece
plus ``⌈n/C⌉`` roundings of the total; Higham, *Accuracy and Stability of Numerical Algorithms*,
§4.2). Why: above 10^4 entries OpenBLAS splits one ``ddot`` (``np.dot``, ``@`` on vectors) over
threads, and on a machine whose cores are busy their wake-up and wait cost 8–10 ms of CPU time per
call — measured at n = 10^5 and 10^6, about 100× the single-thread product — which made the float
pmfs and metrics that call it several times slower than their arithmetic.
"""

from __future__ import annotations

import numpy as np

__all__ = ["DOT_CHUNK", "dot_unthreaded"]

#: largest piece handed to one ``ddot`` (below OpenBLAS's threading threshold of 10 000)
DOT_CHUNK = 8_192


def dot_unthreaded(a: np.ndarray, b: np.ndarray) -> float:
    """``Σ_i a_i b_i`` of two 1-D float64 arrays of equal length (module docstring)."""
    n = a.size
    if n <= DOT_CHUNK:
        return float(np.dot(a, b))
    return sum(float(np.dot(a[i:i + DOT_CHUNK], b[i:i + DOT_CHUNK])) for i in range(0, n, DOT_CHUNK))
