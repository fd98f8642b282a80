import numpy as np, numba
from dpexact.benchmarks import interleaved, _scores
from dpexact.mechanisms.permute_and_flip import quadrature_kernel as qk
import dpexact
pf = dpexact.mechanism("pf", epsilon=1)
@numba.njit(error_model="numpy")
def compact_only(p, p_tiny, p_top, pm, med):
    k = 0
    for i in range(p.size):
        v = p[i]
        pm[k] = v
        med[k] = i
        k += (v > p_tiny) & (v <= p_top)
    return k
@numba.njit(error_model="numpy")
def compact_i32(p, p_tiny, p_top, pm, med):
    k = 0
    for i in range(p.size):
        v = p[i]
        pm[k] = v
        med[k] = i
        k += np.int64((v > p_tiny) and (v <= p_top))
    return k
@numba.njit(error_model="numpy")
def compact_single(p, p_tiny, med):
    k = 0
    for i in range(p.size):
        med[k] = i
        k += p[i] > p_tiny
    return k
@numba.njit(error_model="numpy")
def count_only(p, p_tiny, p_top):
    c = 0
    for i in range(p.size):
        v = p[i]
        c += (v > p_tiny) & (v <= p_top)
    return c
n = 100000
x = pf._float_exponents(_scores("uniform", n)); p = np.exp(x)
pt = 2.27e-7
pm = np.empty(n); med = np.empty(n, np.int64)
print(compact_only(p, pt, np.inf, pm, med), compact_i32(p, pt, np.inf, pm, med))
m = interleaved({"classify": lambda: qk._classify(p, pt, np.inf), "compact_only": lambda: compact_only(p, pt, np.inf, pm, med),
   "compact_i32": lambda: compact_i32(p, pt, np.inf, pm, med), "single": lambda: compact_single(p, pt, med), "count": lambda: count_only(p, pt, np.inf),
   "np.flatnonzero": lambda: np.flatnonzero(p > pt), "s12": lambda: qk._sum_and_squares(p), "npsum": lambda: np.add.reduce(p)}, 9, 3)
print({k: round(v*1e6) for k, v in m["seconds"].items()}, m["load"])
