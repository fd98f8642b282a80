# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Getting started with dpexact
#
# A ten-minute walk through the library: build a selection mechanism, compute its pmf on the
# four number backends, see why the permute-and-flip (PF) recurrence of the paper is not used,
# verify a private and a non-private mechanism, compare mechanisms with the optimal one from the
# linear program, and run one of the papers' claim checks from Python.
#
# Conventions: candidates are indexed `0..n-1`, the error of a selection is `q* - q_M`
# (pf eq. 4), and every parameter is exact (`"2*log(3)"` is 2·log 3, `"0.1"` is 1/10).

# %%
import os
from fractions import Fraction
from pathlib import Path

QUICK = os.environ.get("DPEXACT_QUICK", "0") == "1"
FIGURES = Path(os.environ.get("DPEXACT_FIGURES", "figures"))
FIGURES.mkdir(parents=True, exist_ok=True)

import matplotlib.pyplot as plt
import numpy as np

import dpexact

print("quick mode" if QUICK else "full mode", "| figures ->", FIGURES)

# %% [markdown]
# ## 1. Building a mechanism
#
# `dpexact.available()` lists the registered short names; `dpexact.mechanism(name, **params)`
# builds an immutable mechanism object. Parameters are parsed exactly: a string like
# `"2*log(3)"` stays the number 2·log 3 (a Python float would mean its exact binary value).

# %%
print(dpexact.available())
pf = dpexact.mechanism("pf", epsilon="2*log(3)")  # permute-and-flip, Δ = 1 by default
em = dpexact.mechanism("em", epsilon="2*log(3)")  # exponential mechanism
print(pf)
print(pf.params())

# %% [markdown]
# ## 2. The pmf on the four backends
#
# `mechanism.pmf(scores, backend)` returns a `Pmf`: the probabilities in the backend's own
# number type, the method used, and what is known about the error.
#
# | backend | numbers | error statement |
# |---|---|---|
# | `float` | float64 (numpy) | `rel_error`: an a-priori bound proved for the algorithm |
# | `mp` | mpmath at a chosen number of digits | an estimate |
# | `ball` | arb balls (python-flint) | rigorous: the exact value lies in every ball |
# | `exact` | rationals (`fmpq`) or sympy expressions | none: exact |
#
# At ε = 2·log 3 the PF coin probabilities `exp(ε(q_r - q*)/2)` are powers of 1/3, so the exact
# pmf is rational. The README states it: `(217/324, 139/972, 139/972, 43/972)` for `q = (1, 0, 0, -1)`.

# %%
q = [1, 0, 0, -1]
pmfs = {b: pf.pmf(q, backend=b) for b in ("float", "mp", "ball", "exact")}
for b, p in pmfs.items():
    print(f"{b:6s} method={p.method:10s} kind={p.error_kind:8s} rel_error={p.rel_error}")
    print("       ", p.values)
exact = pmfs["exact"].exact_strings()
print("exact:", exact, " README: ['217/324', '139/972', '139/972', '43/972']")
assert exact == ["217/324", "139/972", "139/972", "43/972"]

# %% [markdown]
# Each backend's statement can be checked against the exact values: the float values are
# within their stated bound, and every arb ball contains the exact rational.

# %%
from flint import arb, fmpq

exact_fr = [Fraction(s) for s in exact]
float_err = max(abs(Fraction(float(v)) - e) / e for v, e in zip(pmfs["float"].values, exact_fr))
print(f"float: max relative error {float(float_err):.2e} <= stated bound {pmfs['float'].rel_error:.2e}:",
      float_err <= pmfs["float"].rel_error)
from flint import ctx

ctx.prec = 400  # convert the rationals to arb at 400 bits: their own balls are then far narrower
print("ball:  every ball contains the exact value:",
      all(b.contains(arb(fmpq(e.numerator, e.denominator))) for b, e in zip(pmfs["ball"].values, exact_fr)))
ctx.prec = 53

# %% [markdown]
# Utility metrics take a mechanism and a score vector and only call `pmf`: the expected error
# and the error tail `Pr[E >= t]` are exact on the exact backend. PF is never worse than EM
# (pf Theorem 2):

# %%
from dpexact.utility import error_tail, expected_error

for name, m in (("PF", pf), ("EM", em)):
    e = expected_error(m, q, backend="exact")
    t = error_tail(m, q, backend="exact")
    print(f"{name}: E[error] = {e.value} ≈ {e.as_float:.6f};  Pr[E >= t] at t = {t.levels.tolist()}: {t.values}")

# %% [markdown]
# `rvs` samples the mechanism literally (PF: random permutation and coin flips, pf Algorithm 1).
# Sampling is for simulations only; every number above came from the pmf.

# %%
print(pf.rvs(q, size=12, random_state=0))

# %% [markdown]
# ## 3. The paper's PF recurrence vs the stable default
#
# pf Appendix E gives an O(n²) recurrence for the PF pmf. Its terms alternate in sign, so in
# float64 it loses all accuracy once a few dozen scores are nearly tied. The default method
# integrates `Pr[r] = p_r ∫₀¹ ∏_{s≠r}(1 − p_s t) dt` (a positive integrand) with a proven error
# bound. Below, the ball backend gives a rigorous reference for near-tied scores
# `q = -linspace(0, 1/2, n)` at ε = 1.

# %%
pf1 = dpexact.mechanism("pf", epsilon=1)
sizes = [5, 10, 20, 30, 40, 50, 60, 80, 100, 150, 200] if not QUICK else [5, 10, 20, 40, 60, 100, 200]
rec_err, quad_err, quad_bound = [], [], []
for n in sizes:
    qn = -np.linspace(0.0, 0.5, n)
    ref = pf1.pmf(qn, backend="ball")          # rigorous enclosure
    assert ref.rel_error < 1e-25
    ref = ref.to_float()
    rec = pf1.pmf(qn, method="recurrence").values
    quad = pf1.pmf(qn)                          # default: quadrature with an a-priori bound
    rec_err.append(np.max(np.abs(rec / ref - 1)))
    quad_err.append(max(np.max(np.abs(quad.values / ref - 1)), 1e-17))
    quad_bound.append(quad.rel_error)
for n, a, b, c in zip(sizes, rec_err, quad_err, quad_bound):
    print(f"n = {n:4d}: recurrence rel. error {a:9.2e}   quadrature {b:9.2e} (stated bound {c:.1e})")

# %%
fig, ax = plt.subplots(figsize=(6, 4))
ax.semilogy(sizes, rec_err, "o-", label="pf App. E recurrence (float64)")
ax.semilogy(sizes, quad_err, "s-", label="default quadrature (float64)")
ax.semilogy(sizes, quad_bound, "k--", label="quadrature's stated bound")
ax.axhline(1.0, color="grey", lw=0.8)
ax.set_xlabel("number of near-tied candidates n")
ax.set_ylabel("max relative error vs arb reference")
ax.set_title("PF pmf, ε = 1, q = −linspace(0, 1/2, n)")
ax.legend()
fig.tight_layout()
fig.savefig(FIGURES / "getting_started_pf_recurrence.png", dpi=120)
plt.show()

# %% [markdown]
# ## 4. Verifying a mechanism
#
# `dpexact.verify` checks the claimed ε (here 2 log 3) of a mechanism: the CLI's `dpexact verify` as a
# function. For a selection mechanism it searches a finite scope of score vectors and their
# neighbours (ℓ∞ box `|q'_a − q_a| <= Δ` by default); a triple `(q, q', r)` counts only when
# `Pr[M(q)=r] <= e^ε Pr[M(q')=r]` is *proved* in ball or exact arithmetic. It then puts the ε bracket
# on the verdict: a certified witness below, a proof above — here pf Theorem 1, which covers every
# input, so the verdict is `private` (without `search=...` the theorem alone answers and the
# finite-scope search is skipped).

# %%
v = dpexact.verify(pf, search=("grid", "structured", "local"))
print(v.verdict, "| certified:", v.certified, f"| {v.seconds:.1f} s")
print(v.bracket.headline(v.epsilon))
print("scope:", {k: val for k, val in v.scope.as_dict().items() if k != "notes"})
print(f"largest certified log-ratio {v.worst_log_ratio:.6f} <= ε = 2 log 3 = {2 * np.log(3):.6f}")

# %% [markdown]
# A violated one: EM with the *monotone* exponent ε/Δ (pf Remark 1) is only ε-DP for monotone
# qualities. Checked on the general ℓ∞ box it is refuted, with a counterexample that is re-checked
# from scratch (here also in exact arithmetic).

# %%
bad = dpexact.mechanism("em", epsilon=1, monotone=True)
v2 = dpexact.verify(bad, neighbourhood="box:1")
ce = v2.counterexample
print(v2.verdict, "| certified:", v2.certified)
print(f"q = {[str(x) for x in ce.scores]},  q' = {[str(x) for x in ce.neighbour_scores]},  output r = {ce.output}")
print(f"log Pr[M(q)=r]/Pr[M(q')=r] ∈ [{ce.log_ratio_lo:.12f}, {ce.log_ratio_hi:.12f}] > ε = 1")
print("re-check:", ce.recheck("exact"))

# %% [markdown]
# By hand: `Pr[M(0,0)=0] = 1/2` and `Pr[M(−1,1)=0] = e^{−1}/(e^{−1}+e)`, a ratio of `(1+e²)/2`:

# %%
print("log((1 + e²)/2) =", np.log((1 + np.e**2) / 2))

# %% [markdown]
# ## 5. Optimality ratio from the linear program
#
# On the bounded lattice Q(n, k) (scores in `{0, −2Δ, …, −2kΔ}`, max 0) the best *regular*
# ε-DP mechanism solves a linear program (pf §5, Appendix D). `optimality_ratio` is
# `Σ_q E[err(M, q)] / Σ_q E[err(M*, q)]` (1 = optimal). With ε = log 2, `e^{−ε}` is rational,
# so the LP optimum is certified exactly and the ratios are exact rationals.

# %%
from dpexact.lp.optimal_mechanism import optimal_mechanism, optimality_ratio

n_lp, k_lp = (3, 3) if QUICK else (4, 4)
opt = optimal_mechanism(n_lp, k_lp, "log(2)", certify=True)
print(f"Q({n_lp}, {k_lp}), ε = log 2: LP optimum certified exactly:", opt.certificate.certified)
for name in ("pf", "em"):
    r = optimality_ratio(dpexact.mechanism(name, epsilon="log(2)"), opt.solution, backend="exact",
                         certificate=opt.certificate)
    print(f"{name}: ratio = {r.value} ≈ {r.as_float:.6f} (exact: {r.error_kind == 'exact'})")

# %% [markdown]
# The same ratio as a function of ε (float LP; the error bound accounts for the solver's
# tolerances). pf Theorem 3 proves PF optimal on Q(n, k) for ε ≥ log((3+√5)/2) ≈ 0.96.

# %%
m_grid = 8 if QUICK else 16
# exact grid points 1/10 .. 3 as strings: a Python float ε would be taken at its binary value (with a warning)
eps_exact = [str(Fraction(1, 10) + Fraction(29, 10) * i / (m_grid - 1)) for i in range(m_grid)]
eps_grid = np.array([float(Fraction(e)) for e in eps_exact])
ratios = {"pf": [], "em": []}
for e in eps_exact:
    sol = optimal_mechanism(n_lp, k_lp, e).solution
    for name in ratios:
        r = optimality_ratio(dpexact.mechanism(name, epsilon=e), sol)
        ratios[name].append(r.value)
print("max PF ratio on the grid:", max(ratios["pf"]), " max EM ratio:", max(ratios["em"]))
print("ε where PF is not optimal (ratio > 1 + 1e-7):", [round(float(e), 3) for e, r in zip(eps_grid, ratios["pf"]) if r > 1 + 1e-7])

fig, ax = plt.subplots(figsize=(6, 4))
ax.plot(eps_grid, ratios["pf"], "o-", label="permute-and-flip")
ax.plot(eps_grid, ratios["em"], "s-", label="exponential mechanism")
ax.axvline(np.log((3 + np.sqrt(5)) / 2), color="grey", ls=":", label="pf Thm 3 threshold")
ax.set_xlabel("ε")
ax.set_ylabel("optimality ratio (1 = optimal)")
ax.set_title(f"Optimality ratio on Q({n_lp}, {k_lp})")
ax.legend()
fig.tight_layout()
fig.savefig(FIGURES / "getting_started_optimality_ratio.png", dpi=120)
plt.show()

# %% [markdown]
# ## 6. Running a claim check from Python
#
# `dpexact check` runs the catalogue of the papers' claims (`proofs_checks/`). The same checks
# can be run from Python; each returns a verdict (`holds` / `refuted` / `inconclusive`), whether
# it is certified, its scope and its evidence.

# %%
import proofs_checks.catalogue as cat

claim = cat.select(["pf"], ["pf.theorem.1"])[0]
print(claim.statement, "—", claim.location)
outcome = cat.run_claim(claim, quick=True)
print("verdict:", outcome.verdict.verdict, "| certified:", outcome.verdict.certified, f"| {outcome.seconds:.1f} s")
print("scope:", outcome.verdict.scope)

# %% [markdown]
# Where next: `notebooks/pf.py`, `adp.py`, `hetsel.py`, ... reproduce the papers' figures with
# these tools; `ARCHITECTURE.md` shows where each piece lives.
