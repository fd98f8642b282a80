"""The dominating pair composed by the certified accountant (dpexact/curves/compose.py, route "pld").

Independent checks: the pair's hockey-stick curve against the curve's certified δ ends; its k-fold (k <= 3)
by direct summation over output tuples (exact rationals, mpmath at 50 digits) against the accountant's
interval; the composed mechanism by brute force over output tuples below the pair's k-fold; the composed upper
end above the exact k-fold of the witness pair. Mutations: a profile shrunk by half (a pair that does not
dominate) gives an upper end below the witness lower end; rounding the masses up breaks the pmf-pair event.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
from fractions import Fraction

import mpmath
import pytest

from dpexact.curves import compose as C
from dpexact.curves.compose import (
    certified_epsilon,
    dominating_pair,
    pld_epsilon,
    witness_epsilon_lower,
)
from dpexact.curves.curve import privacy_curve

@pytest.fixture(autouse=True)
def _fifty_digits():
    """50 digits for this module's sums, without changing mpmath's global precision for other tests."""
    with mpmath.workdps(50):
        yield


def _hockey(p, q, eps):
    """Σ (P − e^ε Q)₊ of a pair of rational lists (mpmath)."""
    x = mpmath.e ** mpmath.mpf(eps)
    return mpmath.fsum(max(mpmath.mpf(0), mpmath.mpf(a.numerator) / a.denominator - x * mpmath.mpf(b.numerator) / b.denominator)
                       for a, b in zip(p, q))


def _k_fold_atoms(p, q, k):
    """The atoms (P, Q) of the k-fold product, by direct enumeration of the k-tuples (exact products)."""
    out = []
    for combo in itertools.product(list(zip(p, q)), repeat=k):
        P, Q = Fraction(1), Fraction(1)
        for a, b in combo:
            P *= a
            Q *= b
        if P:
            out.append((mpmath.mpf(P.numerator) / P.denominator, mpmath.mpf(Q.numerator) / Q.denominator))
    return out


def _delta_of(atoms, eps):
    x = mpmath.e ** mpmath.mpf(eps)
    return mpmath.fsum(v for v in (a - x * b for a, b in atoms) if v > 0)


def _k_fold_delta(p, q, k, eps):
    """δ(ε) of the k-fold product by direct summation over the k-tuples of atoms."""
    return _delta_of(_k_fold_atoms(p, q, k), eps)


@pytest.mark.parametrize("name,eps,n", [("em", "1", 2), ("pf", "1", 2), ("pf", "0.5", 4)])
def test_dominating_pair_is_a_pair_of_distributions_above_the_certified_curve(name, eps, n):
    c = privacy_curve(name, eps, n)
    d = c.dominating_pld(0.05)
    p, q = dominating_pair(d)
    assert sum(p) == 1 and sum(q) == 1 and min(p) >= 0 and min(q) >= 0
    assert q[-2] == 0 and p[-1] == 0  # the P-only atom (loss +∞) and the Q-only atom (loss −∞)
    assert p[-2] < Fraction(1, 10**30) and q[-1] < Fraction(1, 10**30)  # rounding deficits only
    for e in ["0", "0.03", "0.1", "0.37", "0.6", "0.9"]:
        pt = c.delta([e])[0]
        h = _hockey(p, q, e)
        assert h >= pt.lower - 1e-40  # above the worst case (its certified lower end) ...
        assert h <= pt.upper + d.rounding_bound(float(e)) + 1e-15  # ... and within the grid's rounding bound
        # the reversed direction (ε' < 0): δ*(−ε) = 1 − e^{−ε} + e^{−ε} δ*(ε)
        xm = mpmath.e ** -mpmath.mpf(e)
        assert _hockey(p, q, "-" + e) >= 1 - xm + xm * pt.lower - 1e-40


@pytest.mark.parametrize("k", [1, 2, 3])
def test_accountant_interval_contains_the_pairs_k_fold_by_direct_summation(k):
    c = privacy_curve("em", "1", 2)
    d = c.dominating_pld(0.1)  # 23 atoms: 12,167 tuples at k = 3
    p, q = dominating_pair(d)
    delta = 1e-3
    r = pld_epsilon(c, k, delta, pld=d)
    lo, up = r.witness["pair_lower"], r.upper
    atoms = _k_fold_atoms(p, q, k)
    assert _delta_of(atoms, up) <= delta  # the upper end is certified: δ(ε_up) <= δ
    assert _delta_of(atoms, lo) > delta  # and the lower end below ε(δ)
    a, b = mpmath.mpf(lo), mpmath.mpf(up)  # the exact ε(δ) by bisection on the direct sum
    for _ in range(60):
        mid = (a + b) / 2
        a, b = (mid, b) if _delta_of(atoms, mid) > delta else (a, mid)
    assert lo <= b <= up and up - float(b) <= 3e-3 * up  # k = 2 stops at 2.1e-3 (the tilt saturates at θ = 100)


@pytest.mark.parametrize("name,n,k", [("em", 3, 2), ("pf", 2, 3)])
def test_mechanism_compositions_by_brute_force_stay_below_the_pair(name, n, k):
    import dpexact

    eps = "1"
    c = privacy_curve(name, eps, n)
    p, q = dominating_pair(c.dominating_pld(0.1))
    rng = random.Random(7 * n + k)
    m = dpexact.mechanism(name, epsilon=eps)  # the real mechanism's law, ball backend
    laws = []
    for _ in range(k):
        a = [Fraction(rng.randint(-8, 8), 4) for _ in range(n)]
        b = [x + Fraction(rng.choice([-4, -1, 0, 3, 4]), 4) for x in a]  # neighbours: each score moves by <= 1
        laws.append(tuple([mpmath.mpf(float(v.mid())) for v in m.pmf([str(x) for x in s], backend="ball").values]
                          for s in (a, b)))
    for e1 in ("0.2", "0.7", "1.3"):
        x = mpmath.e ** mpmath.mpf(e1)
        brute = mpmath.fsum(max(0, mpmath.fprod(laws[i][0][y] for i, y in enumerate(ys))
                                - x * mpmath.fprod(laws[i][1][y] for i, y in enumerate(ys)))
                            for ys in itertools.product(range(n), repeat=k))
        assert brute <= _k_fold_delta(p, q, k, e1) + 1e-12


def test_composed_upper_end_is_above_the_witness_and_the_best_route_is_the_minimum():
    c = privacy_curve("pf", "0.1", 2)
    lo = witness_epsilon_lower(c, 100, 1e-6).lower
    pl = pld_epsilon(c, 100, 1e-6)
    assert lo <= pl.upper
    best = certified_epsilon(c, 100, 1e-6, alphas=["1.5", "2", "4", "8", "16", "32"])
    ups = best.witness["routes"]
    assert best.upper == min(ups.values()) and best.witness["route"] == "pld"  # PF at ε₀ = 0.1: the pair wins
    assert abs(ups["pld"] - pl.upper) < 1e-12
    assert lo <= best.upper < ups["pure"]
    # the exported pair composed by dp_accounting's FFT (float) agrees with the certified pair within its width
    fft = float(c.to_dp_accounting(0.01).self_compose(100).get_epsilon_for_delta(1e-6))
    assert pl.witness["pair_lower"] - 1e-9 <= fft <= pl.upper + 1e-6


def test_mutation_a_shrunk_profile_is_caught_by_the_witness():
    c = privacy_curve("em", "1", 2)
    d = c.dominating_pld(0.05)
    lo = witness_epsilon_lower(c, 10, 1e-6).lower
    assert pld_epsilon(c, 10, 1e-6, pld=d).upper >= lo
    shrunk = dataclasses.replace(d, grid_upper=tuple(0.5 * y for y in d.grid_upper))  # does not dominate
    assert pld_epsilon(c, 10, 1e-6, pld=shrunk).upper < lo


def test_mutation_masses_rounded_up_are_refused_by_the_pmf_pair_event(monkeypatch):
    c = privacy_curve("em", "1", 2)
    d = c.dominating_pld(0.1)

    def ceil_fraction(b, scale):
        f = (b * scale).upper().ceil().unique_fmpz()
        return Fraction(int(f), scale)

    p, q = dominating_pair(d)
    monkeypatch.setattr(C, "_floor_fraction", ceil_fraction)
    with pytest.raises(ArithmeticError, match="sum above 1"):
        dominating_pair(d)
    # and the accountant's pmf-pair event itself refuses masses that do not sum to 1
    from dpexact.accounting.events import event_from_dict

    up = [a + Fraction(1, 2**100) for a in p[:-2]] + p[-2:]
    with pytest.raises(ValueError, match="must sum to 1"):
        event_from_dict({"kind": "pmf-pair", "p": [str(a) for a in up], "q": [str(b) for b in q]})
    event_from_dict({"kind": "pmf-pair", "p": [str(a) for a in p], "q": [str(b) for b in q]})  # the real pair passes


def test_cost_guard_and_bad_arguments():
    c = privacy_curve("em", "2", 2)
    with pytest.raises(ValueError, match="compositions: up to 403 atoms"):
        pld_epsilon(c, 100_000, 1e-6)  # refused before the pair is built
    with pytest.raises(ValueError, match="compositions must be"):
        pld_epsilon(c, 0, 1e-6)
    with pytest.raises(ValueError, match="delta must be"):
        certified_epsilon(c, 10, 1.5)
    with pytest.raises(ValueError, match="routes must be"):
        certified_epsilon(c, 10, 1e-6, routes=("fft",))
    with pytest.raises(ValueError, match="route must be"):
        c.compose_epsilon(10, 1e-6, route="fft")
    # every route refused but pld: the others are kept, the refusal recorded
    r = certified_epsilon(c, 100_000, 1e-6, routes=("renyi", "pld"), alphas=["2", "8"])
    assert r.witness["route"] == "renyi" and r.witness["routes"]["pld"] is None and "pld" in r.witness["refused"]


def test_refined_witness_is_a_member_whose_k_fold_exceeds_delta_by_direct_summation():
    from flint import arb

    from dpexact.curves import families as F

    c = privacy_curve("em", "1", 2)
    k, delta = 3, 1e-3
    w0 = witness_epsilon_lower(c, k, delta, grid=8)
    w = witness_epsilon_lower(c, k, delta, grid=8, refine=14)
    up = pld_epsilon(c, k, delta, interval=0.1).upper
    assert w0.lower < w.lower <= up  # the search moved, and stays below a certified upper end
    (q1, l1), (q0, l0) = F.em_family(arb("1"), 1.0).groups(arb(w.witness["theta"]))
    P = [mpmath.mpf(float((q1 * l1.exp()).mid())), mpmath.mpf(float((q0 * l0.exp()).mid()))]
    Q = [mpmath.mpf(float(q1.mid())), mpmath.mpf(float(q0.mid()))]
    x = mpmath.e ** mpmath.mpf(w.lower)
    brute = mpmath.fsum(max(0, mpmath.fprod(P[y] for y in ys) - x * mpmath.fprod(Q[y] for y in ys))
                        for ys in itertools.product(range(2), repeat=k))
    assert brute > delta  # the member, used k times, is not (ε_lower, δ)-DP: ε_lower is below the mechanism's ε(δ)
