import numpy as np, sys, statistics
import dpexact
from dpexact.benchmarks import _scores, interleaved, _ratio
from dpexact.mechanisms.permute_and_flip import quadrature_kernel as qk
pf = dpexact.mechanism("pf", epsilon=1); em = dpexact.mechanism("em", epsilon=1)
fams = sys.argv[1].split(",") if len(sys.argv) > 1 else ["uniform","spread"]
for fam in fams:
    for n in (1000, 10_000, 100_000, 1_000_000):
        q = _scores(fam, n); x = pf._float_exponents(q); p = np.exp(x)
        inner = max(1, 20000 // n)
        noh = np.zeros_like(qk._HAVE)
        fns = {"em": lambda: em.pmf(q), "pf": lambda: pf.pmf(q),
               "kern": lambda: qk.pf_kernel(x.copy(), p.copy(), 40.0, 1e-19, n.bit_length(), qk._XI, qk._OM, qk._HAVE),
               "st1": lambda: qk.pf_kernel(x.copy(), p.copy(), 40.0, 1e-19, n.bit_length(), qk._XI, qk._OM, noh),
               "cp": lambda: (x.copy(), p.copy())}
        m = interleaved(fns, 9, inner)
        s = m["seconds"]
        print(f"{fam:8s} {n:8d} PF/EM {_ratio(m,'pf','em'):.2f}  em {s['em']*1e6:.0f} pf {s['pf']*1e6:.0f} kernel {(s['kern']-s['cp'])*1e6:.0f} stage1 {(s['st1']-s['cp'])*1e6:.0f} us load {m['load']}")
