import numpy as np, math
import dpexact
from dpexact.benchmarks import _scores, interleaved
from dpexact.mechanisms.permute_and_flip import quadrature_kernel as qk
pf = dpexact.mechanism("pf", epsilon=1)
for n in (1000, 10000, 1000000):
    x = pf._float_exponents(_scores("uniform", n)); p = np.exp(x)
    p_tiny = 2.27e-8 if n == 10000 else (2.25e-6 if n == 10**6 else 1e-9)
    pm, med, large, _ = qk._classify(p, p_tiny, np.inf)
    m = pm.size
    inner = max(1, 20000//n)
    r = interleaved({"s12": lambda: qk._sum_and_squares(p), "classify": lambda: qk._classify(p, p_tiny, np.inf),
                     "ps14": lambda: qk._power_sums(pm, m, 14), "ps13": lambda: qk._power_sums(pm, m, 13),
                     "np.log(pm)": lambda: np.log(pm), "np.sum": lambda: np.add.reduce(p)}, 9, inner)
    print(n, m, {k: round(v*1e6,1) for k, v in r["seconds"].items()}, r["load"])
