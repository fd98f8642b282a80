import numpy as np, numba, time
from dpexact.benchmarks import interleaved
LEVELS=64; BLOCK=128
@numba.njit(error_model="numpy", inline="always")
def _counter_total(stack, occ, R):
    out = np.zeros(R)
    first = True
    for lv in range(LEVELS):
        if occ[lv]:
            for r in range(R):
                out[r] = stack[lv, r] if first else out[r] + stack[lv, r]
            first = False
    return out
@numba.njit(error_model="numpy")
def ps_a(v, m, R):
    stack = np.zeros((LEVELS, R)); occ = np.zeros(LEVELS, dtype=np.bool_)
    acc = np.empty((R, 8)); pw = np.empty(8); vv = np.empty(8); blk = np.empty(R)
    for lo in range(0, m, BLOCK):
        hi = min(m, lo + BLOCK)
        for r in range(R):
            for k in range(8):
                acc[r, k] = 0.0
        hi8 = lo + (hi - lo) // 8 * 8
        for j in range(lo, hi + 7, 8):
            if j < hi8:
                for k in range(8):
                    vv[k] = v[j + k]
            elif j < hi:
                for k in range(8):
                    vv[k] = v[j + k] if j + k < hi else 0.0
            else:
                break
            for k in range(8):
                pw[k] = vv[k]
            for r in range(R):
                for k in range(8):
                    acc[r, k] += pw[k]
                    pw[k] *= vv[k]
        for r in range(R):
            blk[r] = ((acc[r, 0] + acc[r, 1]) + (acc[r, 2] + acc[r, 3])) + ((acc[r, 4] + acc[r, 5]) + (acc[r, 6] + acc[r, 7]))
        lv = 0
        while occ[lv]:
            for r in range(R):
                blk[r] = stack[lv, r] + blk[r]
            occ[lv] = False
            lv += 1
        for r in range(R):
            stack[lv, r] = blk[r]
        occ[lv] = True
    return _counter_total(stack, occ, R)
@numba.njit(error_model="numpy")
def ps_nocounter(v, m, R):
    acc = np.zeros((R, 8)); pw = np.empty(8); vv = np.empty(8)
    for j in range(0, m//8*8, 8):
        for k in range(8):
            vv[k] = v[j + k]
            pw[k] = vv[k]
        for r in range(R):
            for k in range(8):
                acc[r, k] += pw[k]
                pw[k] *= vv[k]
    return acc.sum()
from dpexact.mechanisms.permute_and_flip import quadrature_kernel as qk
pm = np.random.default_rng(0).uniform(0,1,3562)
for R in (1, 14):
    r = interleaved({"qk": lambda: qk._power_sums(pm, pm.size, R), "a": lambda: ps_a(pm, pm.size, R), "nocounter": lambda: ps_nocounter(pm, pm.size, R), "npsum": lambda: np.add.reduce(pm)}, 15, 20)
    print(R, {k: round(v*1e6,2) for k, v in r["seconds"].items()}, r["load"])
print(np.abs(qk._power_sums(pm, pm.size, 14)-ps_a(pm, pm.size, 14)).max())
