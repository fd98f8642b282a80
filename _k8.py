import numpy as np, time, math
from dpexact.mechanisms.permute_and_flip import quadrature_kernel as qk
from dpexact.mechanisms.permute_and_flip.quadrature_rules import *
from dpexact.mechanisms.permute_and_flip.quadrature import _truncation
from dpexact.benchmarks import _scores
import dpexact
pf = dpexact.mechanism('pf', epsilon=1)
def t(f,k):
    f(); t0=time.process_time()
    for _ in range(k): f()
    return (time.process_time()-t0)/k*1e6
for n in (10000, 1000000):
    x = pf._float_exponents(_scores("uniform",n)); p=np.exp(x)
    S=p.sum(); P=S*(1+1e-14); T,_=_truncation(P,S-1,40.0); lT,l2P,lS=math.log(T),math.log(2*P),math.log(S)
    p_L = threshold(KMAX, TARGET, T, lT, l2P, lS)
    p_tiny = min(threshold(1, TARGET, T, lT, l2P, lS), math.sqrt(3 * TARGET / (2 * S * math.exp(log_ratio(3, lT, l2P, lS)))), p_L)
    pm = p[p>p_tiny]; m=pm.size
    KF,Kp = series_lengths(pm.max(), pm.sum(), T, lT, l2P, lS)
    rows=max(KF+1,Kp)
    print(n, "p_tiny %.3g m %d rows %d" % (p_tiny, m, rows), "ps rows %.1f" % t(lambda: qk._power_sums(pm, m, rows), 20), "ps1 %.1f" % t(lambda: qk._power_sums(pm, m, 1), 20), "log np %.1f"%t(lambda: np.log(pm),20))
