import pickle, numpy as np, sys, time
from dpexact.mechanisms.permute_and_flip.quadrature_float import pf_pmf_quadrature_float
from dpexact.benchmarks import _scores
import dpexact
pf = dpexact.mechanism("pf", epsilon=1)
rng = np.random.default_rng(5)
cases=[]
for fam in ("uniform","spread"):
    for n in (65, 100, 1000, 10_000, 100_000, 300_000):
        cases.append((fam, n, _scores(fam, n)))
cases.append(("ties", 5000, np.round(rng.uniform(0, 30, 5000))))
cases.append(("allequal", 2000, np.zeros(2000)))
cases.append(("fewtop", 20000, np.concatenate([np.full(50, 10.0), rng.uniform(-50, 0, 19950)])))
cases.append(("small_eps", 3000, rng.uniform(0, 1, 3000)*0.001))
t0=time.time()
for name, n, q in cases:
    x = pf._float_exponents(q)
    a = pf_pmf_quadrature_float(x.copy(), kernel=False)
    b = pf_pmf_quadrature_float(x.copy(), kernel=True) if n > 64 else a
    ra, rb = a[2], b[2]
    bound = lambda r: r.tail_rel + r.quadrature_rel + r.series_rel + r.rounding_rel
    rel = np.max(np.abs(b[0]/a[0]-1)[a[0]>0]); lrel = np.max(np.abs(b[1]-a[1]))
    diff = {k: (getattr(ra,k), getattr(rb,k)) for k in ("nodes","n_large","n_large_distinct","log_terms","series_terms") if getattr(ra,k)!=getattr(rb,k)}
    print(f"{name:9s} {n:7d} rel {rel:.2e} logdiff {lrel:.2e} bounds {bound(ra):.2e} {bound(rb):.2e} ok={rel <= bound(ra)+bound(rb)} {diff}")
print("time", time.time()-t0)
