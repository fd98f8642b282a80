"""Atom decompositions and Bernstein ranges (dpexact.verification.proofs.compact_atoms), and the region
sign they give (Region.sign).

Independent values: a multi-affine polynomial's range on a box is the hull of its vertex values
(evaluated directly here in exact rationals); every polynomial's values at sampled points of the box
(evaluated directly) must lie in the Bernstein range; PF's probability on the neighbour's path where
candidate 0 has the largest score, Σ_S c_S Π (1 - p'_a) with p'_a ∈ [0, 1], is positive (a sum of
positive terms), which the term-by-term enclosure cannot show."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction as F

import pytest

from dpexact.verification.proofs.compact_atoms import atoms_of, bernstein_range
from dpexact.verification.proofs.compact_fractions import Space
from dpexact.verification.proofs.compact_polytope import Region


def _arb(x):
    import flint

    return flint.arb(flint.fmpq(x.numerator, x.denominator))


def _value(coeffs, point):
    total = F(0)
    for n, c in coeffs.items():
        term = F(c)
        for a, k in zip(point, n):
            term *= a ** k
        total += term
    return total


def test_atoms_of_pf_denominator_are_the_neighbour_weights():
    # Σ over subsets of {1, 2} of Π p'_a with p'_a = x_a·y_a / y_0 (exponents over x1 x2 y0 y1 y2), times y_0²
    p1, p2 = (1, 0, -1, 1, 0), (0, 1, -1, 0, 1)
    ref = (0, 0, 2, 0, 0)
    terms = [ref, tuple(r + a for r, a in zip(ref, p1)), tuple(r + a for r, a in zip(ref, p2)),
             tuple(r + a + b for r, a, b in zip(ref, p1, p2))]
    decs = atoms_of(sorted(terms))
    assert decs, "a decomposition exists"
    found = [d for d in decs if sorted(d[1]) == sorted([p1, p2])]
    assert found, decs
    _, atoms, multi = found[0]
    keys = sorted(terms)
    for key, n in zip(keys, multi):  # every term is the reference times its atoms
        back = tuple(keys[found[0][0]][j] + sum(n[i] * atoms[i][j] for i in range(len(atoms))) for j in range(5))
        assert back == key


def test_atoms_of_refuses_a_term_outside_the_atoms_span():
    # x, y and x·y^(1/2)-like (no integer decomposition): x^2·y^3 with atoms x, y is fine, but x^1y^0, x^0y^1, x^1 y^1, x^3 y^1 ...
    decs = atoms_of([(0, 0), (1, 0), (0, 1), (1, -1)])
    for k, atoms, multi in decs:  # whatever is returned is exact
        keys = [(0, 0), (1, 0), (0, 1), (1, -1)]
        for key, n in zip(keys, multi):
            assert all(x >= 0 for x in n)
            assert tuple(keys[k][j] + sum(n[i] * atoms[i][j] for i in range(len(atoms))) for j in range(2)) == key


@pytest.mark.parametrize("seed", range(6))
def test_bernstein_range_of_a_multi_affine_polynomial_is_its_vertex_hull(seed):
    rng = random.Random(seed)
    dims = 3
    coeffs = {n: F(rng.randint(-9, 9), rng.randint(1, 4)) for n in itertools.product((0, 1), repeat=dims)}
    box = [(F(rng.randint(0, 3), 4), F(rng.randint(4, 8), 4)) for _ in range(dims)]
    lo, hi = bernstein_range({n: _arb(c) for n, c in coeffs.items()}, [(_arb(a), _arb(b)) for a, b in box])
    vertex = [_value(coeffs, v) for v in itertools.product(*box)]
    assert abs(float(lo.mid()) - float(min(vertex))) < 1e-12 and abs(float(hi.mid()) - float(max(vertex))) < 1e-12


@pytest.mark.parametrize("seed", range(6))
def test_bernstein_range_contains_sampled_values(seed):
    rng = random.Random(100 + seed)
    coeffs = {(i, j): F(rng.randint(-9, 9), rng.randint(1, 3)) for i in range(4) for j in range(3) if rng.random() < 0.7}
    box = [(F(-1, 2), F(3, 2)), (F(1, 4), F(2))]
    lo, hi = bernstein_range({n: _arb(c) for n, c in coeffs.items()}, [(_arb(a), _arb(b)) for a, b in box])
    for _ in range(200):
        pt = [a + (b - a) * F(rng.randint(0, 1000), 1000) for a, b in box]
        v = _value(coeffs, pt)
        assert float(lo.lower()) <= float(v) <= float(hi.upper())


def _pf_region():
    """Generators W1 W2 W3 Y0 Y1 Y2 Y3 (then T), u = log: W ∈ (0, 1], Y ∈ [e^{-1/2}, e^{1/2}], rows
    u_{Wa} + u_{Ya} <= u_{Y0} (p'_a = W_a Y_a / Y_0 <= 1: candidate 0 has the neighbour's largest score)."""
    sp = Space(("W1", "W2", "W3", "Y0", "Y1", "Y2", "Y3"), 2)
    half = [F(-1, 2), F(1, 2)]
    ivs = [[None, F(0)]] * 3 + [half] * 4
    rows = [(F(0), tuple(F(x) for x in r)) for r in
            ((-1, 0, 0, 1, -1, 0, 0), (0, -1, 0, 1, 0, -1, 0), (0, 0, -1, 1, 0, 0, -1))]
    region = Region(ivs, rows, {g: (g, F(1)) for g in range(7)}, sp.t, sp.lcd)
    w1, w2, w3, y0, y1, y2, y3, _ = sp.ctx.gens()
    # PF (n = 4, r = 0): P = Σ_k k!(3-k)!/4! e_k(1 - p'), times y0³ (each factor 1 - p'_a is (y0 - w_a y_a)/y0)
    f = [y0 - w1 * y1, y0 - w2 * y2, y0 - w3 * y3]
    poly = (6 * y0 ** 3 + 2 * y0 ** 2 * (f[0] + f[1] + f[2]) + 2 * y0 * (f[0] * f[1] + f[0] * f[2] + f[1] * f[2])
            + 6 * f[0] * f[1] * f[2]) / 24
    return region, poly


def test_region_sign_of_pf_probability_through_atoms():
    region, poly = _pf_region()
    assert region.sign(poly, strict=True) == 1
    assert region.sign(-poly, strict=True) == -1


def test_mutation_term_by_term_duals_alone_leave_pf_probability_open():
    """Without the atoms (the previous enclosure: each monomial ranged on its own), the sign is open:
    the atoms are what decides it."""
    region, poly = _pf_region()
    for ref in region.references(poly):
        e = region.enclose_over(poly, ref)
        assert not (e.a >= 0)


def test_a_polynomial_negative_somewhere_on_the_region_gets_no_positive_sign():
    region, poly = _pf_region()
    w1, _, _, y0, y1, *_ = poly.context().gens()
    # y0 - 2·w1·y1 is negative where p'_1 > 1/2 (inside the region): no sign may be claimed
    assert region.sign(y0 - 2 * w1 * y1) == 0
    assert region.sign(poly - y0 ** 3 / 2) == 0  # P - 1/2 changes sign on the region (P = 1 at p' = 0, 1/4 at p' = 1)
