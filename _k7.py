import numpy as np, time
from dpexact.mechanisms.permute_and_flip import quadrature_kernel as qk
from dpexact.benchmarks import _scores
import dpexact
pf = dpexact.mechanism('pf', epsilon=1)
def t(f,k):
    f(); t0=time.process_time()
    for _ in range(k): f()
    return (time.process_time()-t0)/k*1e6
noh = np.zeros_like(qk._HAVE)
for n in (1000, 10000, 100000, 1000000):
    x = pf._float_exponents(_scores("uniform",n)); p=np.exp(x)
    qk.pf_pmf_quadrature_kernel(x.copy())
    k = max(5, 200000//n)
    cp = t(lambda: (x.copy(), p.copy()), k)
    full = t(lambda: qk.pf_kernel(x.copy(), p.copy(), 40.0, n.bit_length(), qk._XI, qk._OM, qk._HAVE), k) - cp
    st1 = t(lambda: qk.pf_kernel(x.copy(), p.copy(), 40.0, n.bit_length(), qk._XI, qk._OM, noh), k) - cp
    ps2 = t(lambda: qk._power_sums(p, n, 2), k)
    rep = qk.pf_kernel(x.copy(), p.copy(), 40.0, n.bit_length(), qk._XI, qk._OM, qk._HAVE)
    pt = None
    print(n, "full %.1f stage1 %.1f ps2 %.1f copy %.1f" % (full, st1, ps2, cp), "medium frac", np.mean(p > 2**-40))
