import numpy as np, time, numba
def t(f,k=30):
    f(); ts=[]
    for _ in range(k):
        t0=time.process_time(); f(); ts.append(time.process_time()-t0)
    return np.median(ts)*1e6
@numba.njit(error_model="numpy")
def compact(p, lo_, hi_, pm, med):
    m = 0
    for i in range(p.size):
        v = p[i]
        pm[m] = v; med[m] = i
        m += (v > lo_) & (v <= hi_)
    return m
@numba.njit(error_model="numpy")
def compact_branch(p, lo_, hi_, pm, med):
    m = 0
    for i in range(p.size):
        v = p[i]
        if (v > lo_) & (v <= hi_):
            pm[m] = v; med[m] = i; m += 1
    return m
@numba.njit(error_model="numpy")
def count(p, lo_, hi_):
    m = 0
    for i in range(p.size):
        v = p[i]
        m += (v > lo_) & (v <= hi_)
    return m
@numba.njit(error_model="numpy")
def s12(p):
    a0=a1=a2=a3=a4=a5=a6=a7=0.0; b0=b1=b2=b3=b4=b5=b6=b7=0.0
    n8=p.size//8*8
    for j in range(0,n8,8):
        v0=p[j];v1=p[j+1];v2=p[j+2];v3=p[j+3];v4=p[j+4];v5=p[j+5];v6=p[j+6];v7=p[j+7]
        a0+=v0;a1+=v1;a2+=v2;a3+=v3;a4+=v4;a5+=v5;a6+=v6;a7+=v7
        b0+=v0*v0;b1+=v1*v1;b2+=v2*v2;b3+=v3*v3;b4+=v4*v4;b5+=v5*v5;b6+=v6*v6;b7+=v7*v7
    return a0+a1+a2+a3+a4+a5+a6+a7, b0+b1+b2+b3+b4+b5+b6+b7
rng=np.random.default_rng(0)
p = np.exp(-rng.uniform(0,50,10**6))
pm=np.empty(p.size); med=np.empty(p.size, np.int64)
print("compact", t(lambda: compact(p, 2e-6, 1.0, pm, med)), "branch", t(lambda: compact_branch(p, 2e-6, 1.0, pm, med)), "count", t(lambda: count(p, 2e-6, 1.0)))
print("s12", t(lambda: s12(p)), "np sum", t(lambda: np.add.reduce(p)), "einsum", t(lambda: np.einsum("i,i->", p, p)), "np flatnonzero", t(lambda: np.flatnonzero(p > 2e-6)))
