import numpy as np, sys
import dpexact
from dpexact.benchmarks import _scores, interleaved
from dpexact.mechanisms.permute_and_flip import quadrature_kernel as qk
pf = dpexact.mechanism("pf", epsilon=1)
n = int(sys.argv[1]); fam = sys.argv[2]
q = _scores(fam, n); x = pf._float_exponents(q); p = np.exp(x)
pb, mb = qk._SCRATCH.get(n)
noh = np.zeros_like(qk._HAVE)
xs = [x.copy() for _ in range(40)]; ps = [p.copy() for _ in range(40)]
it = iter(range(10**9))
def kern(h):
    i = next(it) % 40
    xs[i][:] = x; ps[i][:] = p
    return qk.pf_kernel(xs[i], ps[i], 40.0, 1e-19, n.bit_length(), qk._XI, qk._OM, h, pb, mb)
def cp():
    i = next(it) % 40
    xs[i][:] = x; ps[i][:] = p
m = interleaved({"exp": lambda: np.exp(x), "cp": cp, "kern": lambda: kern(qk._HAVE), "st1": lambda: kern(noh),
   "s12": lambda: qk._sum_and_squares(p), "classify": lambda: qk._classify(p, 2.27e-7, np.inf, pb, mb), "ps8": lambda: qk._power_sums(p, 30000, 8), "wrapper": lambda: qk.pf_pmf_quadrature_kernel(x.copy(), 40.0, 1e-19)}, 9, max(1, 20000//n))
s = m["seconds"]
print({k: round(v*1e6) for k, v in s.items()}, "kernel-cp", round((s["kern"]-s["cp"])*1e6), "st1-cp", round((s["st1"]-s["cp"])*1e6), m["load"])
