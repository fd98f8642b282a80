"""Monotone coordinates moved to the faces of a pair's region (dpexact.verification.proofs.compact_polyfaces),
and what it proves on hand-written PF / RNM-exponential / PF at ε/2 at n = 3.

Independent values: the suprema of the small problems below are worked out by hand (stated beside
each); PF with weights exp(c·ε(q − max q)/Δ) has level exactly 2c·ε on the ℓ∞ box (pf Theorem 1;
tight as gaps grow), and RNM with exponential noise is the same law (Ding et al. 2021). Sampled
points of a region are evaluated directly in floats."""

from __future__ import annotations

import math
import random
from fractions import Fraction as F

import pytest
from example_laws import hand as _hand

import dpexact
from dpexact.numbers.real import Real
from dpexact.verification.neighbourhoods import parse_neighbourhood
from dpexact.verification.proofs import compact_polyfaces
from dpexact.verification.proofs.compact_bnb import CompactBnB
from dpexact.verification.proofs.compact_enclosure import Iv
from dpexact.verification.proofs.compact_fractions import Frac, Space
from dpexact.verification.proofs.compact_polyfaces import (
    RegionProblem,
    prove_on_region,
    subs_monomial,
)
from dpexact.verification.proofs.outcome import proves

SP = Space(("x", "y"), 2)  # generators x, y, then T = e^{1/2}


def _frac(num: str, den: str = "1") -> Frac:
    import flint

    x, y, t = SP.ctx.gens()
    env = {"x": x, "y": y, "T": t, "flint": flint}
    poly = lambda v: v if isinstance(v, flint.fmpq_mpoly) else SP.ctx.constant(v)  # noqa: E731
    return Frac(poly(eval(num, env)), poly(eval(den, env)))  # noqa: S307 - test literals


def _target(value) -> tuple[Frac, Iv]:
    import flint

    from dpexact.verification.proofs.compact_fractions import const_ball

    v = F(value)
    f = Frac(SP.ctx.constant(flint.fmpq(v.numerator, v.denominator)), SP.ctx.constant(1))
    b = const_ball(f, SP, 128)
    return f, Iv(b.lower(), b.upper())


def _prove(R: Frac, ivs, rows, target) -> bool:
    t, et = _target(target)
    p = RegionProblem(R, [list(v) for v in ivs], rows, [0, 1])
    return prove_on_region(p, SP, t, et, None, {})


# x = e^{u_x}, y = e^{u_y}, u in [-∞, 0]; the region x <= y is the row u_y - u_x >= 0
FULL = [(None, F(0)), (None, F(0))]
X_LE_Y = [(F(0), (F(-1), F(1)))]


def test_supremum_on_the_region_face_not_the_box_face():
    """R = x − 2y on x <= y (x, y in [0, 1]): sup 0 at x = y = 0 (R = −y on the face x = y). On the box
    the supremum is 1 (x = 1, y = 0): a box-face bound cannot show R <= 0."""
    R = _frac("x - 2*y")
    assert _prove(R, FULL, X_LE_Y, 0)
    assert not _prove(R, FULL, X_LE_Y, F(-1, 1000))  # the supremum 0 is approached: nothing below it
    assert not _prove(R, FULL, [], 0)  # without the region: sup 1


def test_tight_ratio_on_a_whole_face_is_decided_exactly():
    """R = x/y on x <= y, y in [e^{-1}, 1]: R <= 1 with equality on the whole face x = y (the shape of
    PF's e^ε where a neighbour's score ties the largest); R <= 1 is proved exactly, 1 − 10^-30 is not."""
    R = _frac("x", "y")
    ivs = [(None, F(0)), (F(-1), F(0))]
    assert _prove(R, ivs, X_LE_Y, 1)
    assert not _prove(R, ivs, X_LE_Y, 1 - F(1, 10**30))


def test_mutation_row_faces_dropped_gives_a_false_bound(monkeypatch):
    """The region's faces are what carries the bound: R = x − 2y on x <= y has supremum 0 (on the
    face x = y). The search does not claim R <= −1/2; with the row faces removed (mutation: only the
    box's ends visited) it would, from the box face x = 1 (where y = 1, R = −1) — a false bound."""
    R = _frac("x - 2*y")
    assert not _prove(R, FULL, X_LE_Y, F(-1, 2))
    monkeypatch.setattr(compact_polyfaces, "_at_row", lambda p, space, c, k: "empty")
    assert _prove(R, FULL, X_LE_Y, F(-1, 2))  # the mutant's claim, false at x = y = 0 (R = 0)


@pytest.mark.parametrize("den, want", [("x - 2", -1), ("x + 2", -1), ("2 - x", 1)])
def test_exact_derivative_sign_with_a_denominator_of_either_sign(den, want):
    """d/dx 1/(x − 2) = −1/(x − 2)² < 0 although the denominator is negative; d/dx 1/(x + 2) < 0;
    d/dx 1/(2 − x) > 0 (x in [0, 1]): the sign proved by the search itself (``_exact_sign``)."""
    from dpexact.verification.proofs.compact_polytope import Region

    p = RegionProblem(_frac("1", den), [[None, F(0)], [None, F(0)]], [], [0, 1])
    env = compact_polyfaces._env(p, SP)
    region = Region(p.ivs, p.rows, {0: (0, F(1)), 1: (1, F(1))}, SP.t, SP.lcd)
    assert compact_polyfaces._exact_sign(p, SP, 0, env, region, None, {}, [1000], 0) == want


def test_subs_monomial_matches_direct_evaluation():
    rng = random.Random(5)
    R = _frac("3*x**2*y - x*T + 1", "x*y + 2")
    S = subs_monomial(R, SP, 0, {1: 2, 2: -1})  # x = y²/T
    for _ in range(20):
        y = rng.uniform(0.1, 2)
        t = math.exp(0.5)
        x = y * y / t
        want = (3 * x * x * y - x * t + 1) / (x * y + 2)
        got = _eval(S, {1: y})
        assert math.isclose(got, want, rel_tol=1e-9)


def _eval(f: Frac, x: dict[int, float]) -> float:
    """Direct float evaluation of num / den (generators 0, 1 from ``x``, T = e^{1/2})."""
    def poly(p) -> float:
        total = 0.0
        for e, c in p.to_dict().items():
            term = float(c) * math.exp(int(e[2]) / 2)
            for g in (0, 1):
                if e[g]:
                    term *= x.get(g, 0.0) ** int(e[g])
            total += term
        return total
    return poly(f.num) / poly(f.den)


@pytest.mark.parametrize("seed", range(30))
def test_random_problems_proved_only_below_the_sampled_supremum(seed):
    """Random small rational functions on random regions: whenever the search proves R <= t, no
    sampled point of the region exceeds t (the search's claim is checked against direct evaluation)."""
    rng = random.Random(seed)
    coef = lambda: rng.randint(-3, 3)  # noqa: E731
    num = f"{coef()}*x*y + {coef()}*x + {coef()}*y + {rng.randint(1, 3)}"
    den = f"{rng.randint(0, 2)}*x + {rng.randint(0, 2)}*y + 3"
    R = _frac(num, den)
    ivs = [(F(-2), F(0)), (F(-2), F(0))]
    rows = [(F(rng.randint(-1, 1), 2), (F(rng.choice([-1, 1])), F(rng.choice([-1, 1]))))]
    b0, (bx, by) = (float(rows[0][0]), tuple(float(b) for b in rows[0][1]))
    grid = [-2 + 2 * k / 120 for k in range(121)]
    pts = []
    for ux in grid:
        edge = -(b0 + bx * ux) / by  # the region's boundary line (a supremum may lie on it)
        for uy in grid + ([edge] if -2 <= edge <= 0 else []):
            if b0 + bx * ux + by * uy >= -1e-12:
                pts.append(_eval(R, {0: math.exp(ux), 1: math.exp(uy)}))
    if not pts:
        return
    top = max(pts)
    for t in (top - 0.05, top - 0.01):
        assert not _prove(R, ivs, rows, F(t).limit_denominator(10**6))
    assert _prove(R, ivs, rows, F(top + 0.05).limit_denominator(10**6))


# -- proofs -----------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("attr, level", [("pf", "1"), ("rnm_exponential", "1"), ("pf_half", "1/2")])
def test_hand_written_pf_family_proved_at_its_exact_level_at_n3(attr, level):
    m = _hand(attr)
    proof, _ = CompactBnB(seconds=120).bracket(m, 3, parse_neighbourhood("box", m))
    assert proof.details["status"] == "proved" and proof.whole_domain
    assert Real.of(proof.upper) == Real.of(level) and proves(proof, m)


@pytest.mark.slow
def test_mutation_pf_exponent_one_percent_too_large_is_not_proved_at_n3():
    """PF with exponent 1.01·ε/(2Δ): level 1.01 (pf Theorem 1) — the claim ε = 1 must not be proved."""
    mod = _hand("module")
    m = dpexact.define_mechanism("pf-1.01", mod._pf("101/200"), epsilon=1, properties=mod._PROPS)
    proof, _ = CompactBnB(seconds=40).bracket(m, 3, parse_neighbourhood("box", m))
    assert not proves(proof, m)
    assert proof.upper_float >= 1.01 - 1e-9  # never below the true level


@pytest.mark.slow
def test_mutation_without_region_faces_pf_is_not_proved_at_n3():
    m = _hand("pf")
    proof, _ = CompactBnB(seconds=8, region_faces=False).bracket(m, 3, parse_neighbourhood("box", m))
    assert proof.details["status"] != "proved"
