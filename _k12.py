import numpy as np, math
import dpexact
from dpexact.benchmarks import _scores, interleaved
from dpexact.mechanisms.validation import float_scores_rounded
from dpexact.numbers.pmf import Pmf
from dpexact.mechanisms.permute_and_flip import quadrature_kernel as qk
from dpexact.mechanisms.permute_and_flip.quadrature_float import pf_pmf_quadrature_float
pf = dpexact.mechanism("pf", epsilon=1); em = dpexact.mechanism("em", epsilon=1)
n=1000
q=_scores("uniform", n); x = pf._float_exponents(q); p = np.exp(x)
_,_,rep = pf_pmf_quadrature_float(x.copy())
r = interleaved({"validate": lambda: float_scores_rounded(q), "exponents": lambda: pf._float_exponents(q), "exp": lambda: np.exp(x),
  "xmin": lambda: float(np.minimum.reduce(x)), "quadfloat": lambda: pf_pmf_quadrature_float(x.copy()),
  "kernel": lambda: qk.pf_kernel(x.copy(), p.copy(), 40.0, n.bit_length(), qk._XI, qk._OM, qk._HAVE),
  "report": lambda: rep.as_dict(), "Pmf": lambda: Pmf(p, "float", "quadrature", rel_error=1e-13, abs_error=1e-14, error_kind="a-priori", logvalues=x, details=rep.as_dict()),
  "pmf_float": lambda: pf.pmf_float(q, None), "pf.pmf": lambda: pf.pmf(q), "em.pmf": lambda: em.pmf(q), "em.pmf_float": lambda: em.pmf_float(q, None)}, 15, 20)
print({k: round(v*1e6,1) for k, v in r["seconds"].items()}, r["load"])
