"""The unbounded-in-n witness families of the ∞-DP sparse-vector variants (verification/proofs/unbounded_family.py).

Each family's closed form is compared with an independent evaluation (mpmath quadrature of the law's
integral, not the package's closed-form integrator), and each proof route is mutated: a term of the
closed form or a premise of the placement broken must make the family disappear.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

import mpmath
import pytest

from dpexact.mechanisms.registry import mechanism as build
from dpexact.schemas import document, validate
from dpexact.verification.proofs import unbounded_family as uf

E = {"epsilon": "1/10", "threshold": "1"}


def _mp(x):
    return mpmath.mpf(x.numerator) / x.denominator if isinstance(x, Fraction) else mpmath.mpf(x)


def _lap_cdf(x, b):
    return mpmath.mpf(1) / 2 * mpmath.exp(x / b) if x <= 0 else 1 - mpmath.mpf(1) / 2 * mpmath.exp(-x / b)


def _rho_integral(qs_bot, T, b1, b2, upper):
    """∫_{ρ <= upper} Lap(b1)(ρ) Π F_{b2}(T + ρ - q_i) dρ by quadrature (independent of the package)."""
    f = lambda r: mpmath.exp(-abs(r) / b1) / (2 * b1) * mpmath.fprod(_lap_cdf(T + r - q, b2) for q in qs_bot)
    return mpmath.quad(f, [-mpmath.inf, min(upper, 0), upper] if upper > 0 else [-mpmath.inf, upper])


@pytest.mark.parametrize("name,cutoff", [("svt3", 1), ("bad-gap-svt", 1), ("svt3", 2)])
def test_released_family_matches_quadrature(name, cutoff):
    """The certified box ratio (lower end under q over upper end under q') of the member at n = 3, by quadrature,
    equals the closed form n(Δ - w)/b2 + w/b2 - w/b1; the family checks that identity exactly at n = 1..6."""
    m = build(name, **E, cutoff=cutoff)
    fam = uf.witness_family(m)
    assert fam is not None and [c["n"] for c in fam.checked] == list(uf.CHECKED_N)
    b1, b2 = (float(Fraction(str(b))) for b in m.noise_scales()[:2])
    mpmath.mp.dps = 40
    pattern, q, q2, box = uf.family_member(m, 3)
    (lo, hi), T = box[0], 1
    mass = lambda qq: _lap_cdf(_mp(hi) - qq, b2) - _lap_cdf(_mp(lo) - qq, b2)
    p1 = _rho_integral([_mp(x) for x in q[:-1]], T, b1, b2, _mp(lo) - T) * mass(_mp(q[-1]))
    p2 = _rho_integral([_mp(x) for x in q2[:-1]], T, b1, b2, _mp(hi) - T) * mass(_mp(q2[-1]))
    w = float(hi - lo)
    closed = 3 * (1 - w) / b2 + w / b2 - w / b1
    assert abs(float(mpmath.log(p1) - mpmath.log(p2)) - closed) < 1e-12
    c3 = next(c for c in fam.checked if c["n"] == 3)
    assert abs(c3["log_ratio"] - closed) < 1e-12 and Fraction(c3["log_ratio_exact"]) == Fraction(c3["bound"])
    # grows without bound: the slope of the closed form is positive
    assert fam.checked[-1]["log_ratio"] > fam.checked[0]["log_ratio"] * 5


def test_adaptive_family_matches_measured_levels():
    """bad-adaptive-svt: the family's log-ratio is (n-1)Δ(1/b3 + 1/b2) + Δ/b3 = (3n - 2)/80 at ε = 1/10, c = 1 —
    the stated-n level the coupling proves (measured 1/8, 1/5, 7/20 at n = 4, 6, 10)."""
    m = build("bad-adaptive-svt", **E, cutoff=1)
    fam = uf.witness_family(m)
    assert fam is not None
    for c in fam.checked:
        assert Fraction(c["log_ratio_exact"]) == Fraction(3 * c["n"] - 2, 80)
    from dpexact.verification.router import verify

    v = verify(m, n=4, relation="all-differ", name="bad-adaptive-svt")
    assert v.bracket.upper.upper == "1/8" and v.bracket.family is not None


def test_balanced_family_quadrature_and_bound():
    """svt6 (no cutoff): ⊥^k ⊤^k at ±L; by quadrature the log-ratio at k = 2 is >= n/20 + log(1 - e^-40)
    and within 1e-12 of it (the lemma's bound is tight up to the threshold noise's tail beyond L)."""
    m = build("svt6", **E)
    fam = uf.witness_family(m)
    assert fam is not None and [c["n"] for c in fam.checked] == [2, 4, 6, 8]
    pattern, q, q2, box = uf.family_member(m, 4)
    assert box is None and pattern == "FFTT"
    b1, b2, T = 20, 20, 1
    mpmath.mp.dps = 60

    def pr(qq):
        def f(r):
            v = mpmath.exp(-abs(r) / b1) / (2 * b1)
            for x, a in zip(qq, pattern):
                c = _lap_cdf(T + r - _mp(x), b2)
                v *= c if a == "F" else 1 - c
            return v
        L = 800
        return mpmath.quad(f, [-mpmath.inf, -L - 1, -L, 0, L, L + 1, mpmath.inf])

    lr = mpmath.log(pr(q)) - mpmath.log(pr(q2))
    bound = mpmath.mpf(4) / 20 + mpmath.log(1 - mpmath.exp(-40))
    assert lr >= bound - mpmath.mpf(10) ** -40 and lr - bound < 1e-12
    assert abs(next(c for c in fam.checked if c["n"] == 4)["log_ratio"] - float(lr)) < 1e-12


@pytest.mark.parametrize("name,params", [("svt1", {"cutoff": 1}), ("svt6", {"cutoff": 1}), ("svt4", {"cutoff": 1}),
                                         ("svt2", {"cutoff": 1}), ("gap-svt", {"cutoff": 1})])
def test_no_family_for_bounded_levels(name, params):
    """Private variants, and svt6 with a cutoff (its level stays 3/20 at n = 4..10), get no family."""
    assert uf.witness_family(build(name, **E, **params)) is None


def test_mutation_released_slope(monkeypatch):
    """A closed form one part in 10^9 too steep is refuted by the exact evaluation (no family)."""
    orig = uf._released

    def steeper(m):
        f = orig(m)
        b = f.bound
        f.bound = lambda n: b(n) * (1 + Fraction(1, 10**9))
        return f

    monkeypatch.setattr(uf, "_released", steeper)
    assert uf.witness_family(build("svt3", **E, cutoff=1)) is None


def test_mutation_released_premise(monkeypatch):
    """The identity needs the released value's box below T (ρ <= v - T <= 0, every ⊥ factor exponential):
    a box moved above T + L breaks it and the check refuses the family."""
    orig = uf._released

    def moved(m):
        f = orig(m)
        mem = f.member

        def member(n):
            p, q, q2, box = mem(n)
            (lo, hi), shift = box[0], 2 * (q[0] - q[-1])
            return p, q[:-1] + [q[-1] + shift], q2[:-1] + [q2[-1] + shift], [(lo + shift, hi + shift)]

        f.member = member
        return f

    monkeypatch.setattr(uf, "_released", moved)
    assert uf.witness_family(build("svt3", **E, cutoff=1)) is None


def test_mutation_adaptive_term(monkeypatch):
    """Dropping the released answer's own Δ/b3 from the adaptive closed form breaks the exact identity."""
    orig = uf._adaptive

    def dropped(m):
        f = orig(m)
        b = f.bound
        f.bound = lambda n: b(n) - Fraction(1, 80)
        return f

    monkeypatch.setattr(uf, "_adaptive", dropped)
    assert uf.witness_family(build("bad-adaptive-svt", **E, cutoff=1)) is None


def test_mutation_balanced_log_term(monkeypatch):
    """Without the lemma's log(1 - e^{-L/b1}) (here: the term made negligible) the bound is above the law's
    log-ratio and the ball check refuses it."""
    orig = uf._balanced

    def no_log(m):
        f = orig(m)
        f.log_term = 10**6
        return f

    monkeypatch.setattr(uf, "_balanced", no_log)
    assert uf.witness_family(build("svt6", **E)) is None


def test_verify_json_carries_family_and_validates():
    """verify's document: the stated n's bracket unchanged (closed at 1/2) plus unbounded_family, on schema."""
    from dpexact.verification.router import verify

    v = verify(build("svt3", **E, cutoff=1), n=10, relation="all-differ", name="svt3")
    d = v.bracket.as_dict()
    assert d["upper_exact"] == "1/2" and d["closed"] and d["unbounded_family"]["level_every_n"] == "inf"
    doc = json.loads(json.dumps(document("verify", v.as_dict()), allow_nan=False))
    validate("verify", doc)
    doc["epsilon_bracket"]["unbounded_family"]["checked"][0].pop("log_ratio")
    with pytest.raises(ValueError):
        validate("verify", doc)


def test_family_members_are_neighbours():
    """Every checked member is an ALL_DIFFER pair (each query moves by at most Δ = 1)."""
    for name, p in (("svt3", {"cutoff": 1}), ("svt6", {}), ("bad-adaptive-svt", {"cutoff": 1}),
                    ("svt34-parallel", {"cutoff": 2})):
        fam = uf.witness_family(build(name, **E, **p))
        for c in fam.checked:
            assert all(abs(Fraction(a) - Fraction(b)) <= 1 for a, b in zip(c["scores"], c["neighbour_scores"]))
            assert len(c["scores"]) == c["n"] and math.isfinite(c["log_ratio"])
