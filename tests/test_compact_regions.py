"""Path regions in the compact branch-and-bound: narrowing a box to a pair of paths' region
(compact_regions), enclosures that use the region's constraints (compact_polytope), monotone-sharpened
enclosures (compact_enclosure.enclose_tight), and what they prove on hand-written PF / RNM-exponential.

Independent values: every sampled point of a region lies in the narrowed box and under the bounds
(direct evaluation in exact rationals / floats); PF with weights exp(c·ε(q − max q)/Δ) has level
exactly 2c·ε on the ℓ∞ box (pf Theorem 1; at n = 2 the pair q = (0, 0), q' = (−Δ, Δ) gives
P_0(q)/P_0(q') = e^{2cε}), RNM with exponential noise is the same law (Ding et al. 2021)."""

from __future__ import annotations

import math
import random
from fractions import Fraction as F

import pytest
from example_laws import hand as _hand

import dpexact
from dpexact.numbers.real import Real
from dpexact.verification.neighbourhoods import parse_neighbourhood
from dpexact.verification.proofs import compact_bnb, compact_polytope
from dpexact.verification.proofs.compact_bnb import CompactBnB
from dpexact.verification.proofs.compact_enclosure import (
    Iv,
    enclose,
    enclose_tight,
    exp_interval,
)
from dpexact.verification.proofs.compact_polytope import Region
from dpexact.verification.proofs.compact_regions import narrow
from dpexact.verification.proofs.outcome import proves


# -- narrowing ----------------------------------------------------------------------------------
def test_narrowed_box_keeps_every_sampled_point_of_the_region():
    """Z boxes (σ = Z) with random rational constraints c0 + c·v >= 0: every sampled point of the
    box that satisfies them lies in the narrowed box; an infeasible set is reported empty."""
    rng = random.Random(7)
    kinds = ["Z", "Z", "Z"]
    for _ in range(60):
        box = tuple(tuple(sorted((F(rng.randint(-8, 8), 4), F(rng.randint(-8, 8), 4)))) for _ in range(3))
        rows = [(F(rng.randint(-4, 4), 2), tuple(F(rng.randint(-2, 2)) for _ in range(3)), 1) for _ in range(2)]
        out = narrow(box, kinds, [0, 1, 2], rows, F(1))
        for _ in range(200):
            v = [F(rng.randint(0, 64), 64) * (hi - lo) + lo for lo, hi in box]
            if all(c0 + sum(c * x for c, x in zip(cs, v)) >= 0 for c0, cs, _ in rows):
                assert out is not None
                assert all(lo <= x <= hi for x, (lo, hi) in zip(v, out))
    # Z0 - Z1 >= 1 on Z0, Z1 in [0, 1/2]: no point
    assert narrow(((F(0), F(1, 2)), (F(0), F(1, 2))), ["Z", "Z"], [0, 1], [(F(-1), (F(1), F(-1)), 1)], F(1)) is None


def test_narrowing_maps_gaps_back_to_sigma():
    """G = K(1 - 1/σ): the constraint G + 2 >= 0 (a gap of at most 2) on σ ∈ [0, 1] leaves σ >= 1/3."""
    out = narrow(((F(0), F(1)),), ["G"], [0], [(F(2), (F(1),), 1)], F(1))
    assert out == ((F(1, 3), F(1)),)


# -- enclosures on a region -------------------------------------------------------------------
def _pf_denominator():
    """3Y0² − (3/2)W1Y0Y1 − (3/2)W2Y0Y2 + W1W2Y1Y2 (PF's P_0 on the neighbour's path where q'_0 is the
    largest, times 3Y0²), positive there since W_bY_b/Y0 = e^{(q'_b − q'_0)/2} <= 1."""
    import flint

    ctx = flint.fmpq_mpoly_ctx.get(("W1", "W2", "Y0", "Y1", "Y2", "T"), "lex")
    W1, W2, Y0, Y1, Y2, _ = ctx.gens()
    h = flint.fmpq(3, 2)
    return 3 * Y0**2 - h * W1 * Y0 * Y1 - h * W2 * Y0 * Y2 + W1 * W2 * Y1 * Y2


def _region(rows):
    # log-variables G1, G2 in [-2, 0]; Z0 in [-1, -1/2]; Z1, Z2 in [0, 1]; W = e^{G/2}, Y = e^{Z/2}
    ivs = [(F(-2), F(0)), (F(-2), F(0)), (F(-1), F(-1, 2)), (F(0), F(1)), (F(0), F(1))]
    gen_var = {0: (0, F(1, 2)), 1: (1, F(1, 2)), 2: (2, F(1, 2)), 3: (3, F(1, 2)), 4: (4, F(1, 2))}
    return Region(ivs, rows, gen_var, 5, 1)


# q'_1 <= q'_0 and q'_2 <= q'_0:  G1 + Z1 - Z0 <= 0,  G2 + Z2 - Z0 <= 0  (as -(...) >= 0)
ROWS = [(F(0), (F(-1), F(0), F(1), F(-1), F(0))), (F(0), (F(0), F(-1), F(1), F(0), F(-1)))]


def test_region_decides_the_pf_denominator_sign_the_box_cannot():
    p = _pf_denominator()
    env = [Iv(exp_interval(F(-1)).a, exp_interval(F(0)).b)] * 2 + [Iv(exp_interval(F(-1, 2)).a, exp_interval(F(-1, 4)).b)] + \
          [Iv(exp_interval(F(0)).a, exp_interval(F(1, 2)).b)] * 2 + [exp_interval(F(1))]
    e = enclose_tight(p, env)
    assert e.a < 0 < e.b  # the box alone: undecided
    assert _region(ROWS).sign(p, strict=True) == 1
    # mutation: the region without its constraints is the box again, and the sign is open
    assert _region([]).sign(p, strict=True) == 0


def test_region_bounds_hold_at_sampled_points():
    """Region.upper against direct evaluation at random feasible points; and the PF denominator's
    homogenised enclosure contains its sampled values."""
    rng = random.Random(3)
    reg = _region(ROWS)
    forms = [(F(0), (F(1, 2), F(0), F(-1, 2), F(1, 2), F(0))), (F(1), (F(1, 2), F(1, 2), F(-1), F(1, 2), F(1, 2))),
             (F(-1, 3), (F(0), F(-1), F(2), F(0), F(1)))]
    p = _pf_denominator()
    lo_hi = [reg.enclose_over(p, ref) for ref in reg.references(p)]
    for _ in range(400):
        v = [F(rng.randint(0, 32), 32) * (hi - lo) + lo for lo, hi in
             [(F(-2), F(0)), (F(-2), F(0)), (F(-1), F(-1, 2)), (F(0), F(1)), (F(0), F(1))]]
        if not all(c0 + sum(c * x for c, x in zip(cs, v)) >= 0 for c0, cs in ROWS):
            continue
        for a0, a in forms:
            up = reg.upper(a0, a)
            assert up is None or a0 + sum(c * x for c, x in zip(a, v)) <= F(int(up.p), int(up.q))
        x = [math.exp(float(t) / 2) for t in v]
        val = 3 * x[2] ** 2 - 1.5 * x[0] * x[2] * x[3] - 1.5 * x[1] * x[2] * x[4] + x[0] * x[1] * x[3] * x[4]
        for ref, e in zip(reg.references(p), lo_hi):
            r = 1.0
            for g, k in enumerate(ref[:5]):
                r *= x[g] ** int(k)
            assert float(e.a) - 1e-12 <= val / r <= float(e.b) + 1e-12


def test_monotone_enclosure_is_tighter_and_contains_the_range():
    import flint

    ctx = flint.fmpq_mpoly_ctx.get(("W", "T"), "lex")
    W, T = ctx.gens()
    p = 2 * W - W**2  # increasing on [0, 1]: range [2a - a², 2b - b²]
    env = [Iv(flint.arb(0.5), flint.arb(1)), exp_interval(F(1))]
    plain, tight = enclose(p, env), enclose_tight(p, env)
    assert plain.b >= 1.75 and tight.b <= 1 and tight.a <= 0.75 <= tight.b  # 2·1 − 0.25 against the true 1


# -- proofs -----------------------------------------------------------------------------------
@pytest.mark.parametrize("attr, level", [("pf", "1"), ("rnm_exponential", "1"), ("pf_half", "1/2")])
def test_hand_written_pf_family_proved_at_its_exact_level_at_n2(attr, level):
    m = _hand(attr)
    proof, witness = CompactBnB().bracket(m, 2, parse_neighbourhood("box", m))
    assert proof.details["status"] == "proved" and proof.whole_domain
    assert Real.of(proof.upper) == Real.of(level) and proves(proof, m)
    assert float(Real.of(level).to_float()) - 1e-6 <= witness.lower_float


def test_violated_pf_closed_at_its_level():
    mod = _hand("module")
    m = dpexact.define_mechanism("pf-3/4", mod._pf("3/4"), epsilon=1, properties=mod._PROPS)
    proof, witness = CompactBnB().bracket(m, 2, parse_neighbourhood("box", m))
    assert Real.of(proof.upper) == Real.of("3/2") and not proves(proof, m)
    assert 1.5 - 1e-6 <= witness.lower_float <= 1.5


def test_mutation_without_narrowing_pf_is_not_proved():
    m = _hand("pf")
    proof, _ = CompactBnB(seconds=4, narrow_paths=False).bracket(m, 2, parse_neighbourhood("box", m))
    assert proof.details["status"] != "proved"


def test_mutation_faces_outside_the_region_taken_as_levels_loosen_pf_half(monkeypatch):
    """The region check on exact faces removed (every face taken as in its pair's region): a face of
    the narrowed box outside the region is taken as the level, and PF at ε/2 ends above 1/2."""
    monkeypatch.setattr(compact_bnb, "face_in_region", lambda *args: True)
    m = _hand("pf_half")
    proof, _ = CompactBnB(seconds=5).bracket(m, 2, parse_neighbourhood("box", m))
    assert not (proof.details["status"] == "proved" and Real.of(proof.upper) == Real.of("1/2"))


def test_region_is_built_with_the_pairs_constraints(monkeypatch):
    """compact_bnb passes the pair's constraints to its region (mutation: none passed)."""
    seen = []
    real = compact_polytope.region_of

    def spy(root, box, rows, order, scale):
        seen.append(len(rows))
        return real(root, box, rows, order, scale)
    monkeypatch.setattr(compact_bnb, "region_of", spy)
    m = _hand("pf")
    CompactBnB(seconds=5).bracket(m, 2, parse_neighbourhood("box", m))
    assert seen and max(seen) > 0


def test_moving_to_a_face_keeps_the_regions_projection():
    """R = x − 2y on the region x <= y (x, y in [0, 1]) has supremum 0 at x = y = 0. R increases in x,
    so the search moves x to the box face x = 1; the region must become its projection along x (every
    y in [0, 1]), where R's bound 1 − 0 = 1 >= 0 holds. Keeping the constraint on the face (y >= 1)
    would bound R by 1 − 2 = −1 < 0: below its true supremum."""
    reg = Region([(F(0), F(1)), (F(0), F(1))], [(F(0), (F(-1), F(1)))], {0: (0, F(1)), 1: (1, F(1))}, 2, 1)
    assert reg.upper(F(0), (F(0), F(-1))) == 0  # -y <= 0 on the region (y >= x >= 0)
    reg.move_to_face(0, F(1))
    up = reg.upper(F(0), (F(1), F(-2)))  # x - 2y on the projection at x = 1
    assert up is not None and F(int(up.p), int(up.q)) >= 0  # the true supremum 0 is not cut off
    assert reg.without(1).rows == reg.rows  # no constraint left that involves x
