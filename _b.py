import numpy as np, sys
import dpexact
from dpexact.benchmarks import _scores, interleaved, _ratio, _floor
from dpexact.mechanisms.permute_and_flip import quadrature_float as qf
pf = dpexact.mechanism("pf", epsilon=1); em = dpexact.mechanism("em", epsilon=1)
n = int(sys.argv[1]); fam = sys.argv[2]
q = _scores(fam, n); x = pf._float_exponents(q)
m = interleaved({"floor": _floor(q), "em": lambda: em.pmf(q), "pf": lambda: pf.pmf(q),
                 "core": lambda: qf.pf_pmf_quadrature_float(x.copy()), "numpy": lambda: qf.pf_pmf_quadrature_float(x.copy(), kernel=False)}, 9, max(1, 20000//n))
print({k: round(v*1e6) for k, v in m["seconds"].items()}, "PF/EM %.2f" % _ratio(m, "pf", "em"), m["load"])
