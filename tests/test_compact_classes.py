"""One region problem per class of pairs of paths (dpexact.verification.proofs.compact_classes).

Independent values: the members' regions are sampled directly (points drawn in the box, kept when
every member row holds), and a kept row must hold at every sampled point of every member — the
union of the regions lies in the class's polyhedron. PF's level 2c·ε (pf Theorem 1) is the reference
for the mutation run."""

from __future__ import annotations

import random
from fractions import Fraction as F
from types import SimpleNamespace

import pytest
from example_laws import hand as _hand

import dpexact
from dpexact.verification.neighbourhoods import parse_neighbourhood
from dpexact.verification.proofs import compact_bnb
from dpexact.verification.proofs.compact_bnb import CompactBnB
from dpexact.verification.proofs.compact_classes import class_rows
from dpexact.verification.proofs.outcome import proves

K = 3  # three offset coordinates x0, x1, x2 (kind "Z": the log-variable is the coordinate itself)
ROOT = SimpleNamespace(coords=[(f"Z{c}", "Z") for c in range(K)], gen=lambda c: c, scale=lambda c: F(1),
                       space=SimpleNamespace(t=K, lcd=1))
BOX = tuple((F(-1), F(1)) for _ in range(K))
ORDER = list(range(K))


def _ge(a: int, b: int, c0: F = F(0)) -> tuple:
    """The row ``x_a - x_b + c0 >= 0``."""
    cs = [F(0)] * K
    cs[a], cs[b] = F(1), F(-1)
    return (c0, tuple(cs), 1)


# two orders of comparisons with x0 the largest (one class), and one with x1 the largest
A = [_ge(0, 1), _ge(1, 2)]  # x0 >= x1 >= x2
B = [_ge(0, 2), _ge(2, 1)]  # x0 >= x2 >= x1
C = [_ge(1, 0), _ge(1, 2)]  # x1 the largest


def _holds(row: tuple, x: list) -> bool:
    return row[0] + sum(c * v for c, v in zip(row[1], x)) >= 0


def _points(rows: list, count: int = 400) -> list:
    rng = random.Random(7)
    out = []
    while len(out) < count:
        x = [F(rng.randint(-100, 100), 100) for _ in range(K)]
        if all(_holds(r, x) for r in rows):
            out.append(x)
    return out


def test_rows_kept_hold_on_every_member_and_chain_comparisons():
    kept = class_rows(ROOT, BOX, [A, B], ORDER, F(1))
    keys = {(r[0], r[1]) for r in kept}
    # x0 >= x1 and x0 >= x2 are implied by both orders (one of them only through the chain)
    assert (F(0), _ge(0, 1)[1]) in keys and (F(0), _ge(0, 2)[1]) in keys
    assert (F(0), _ge(1, 2)[1]) not in keys and (F(0), _ge(2, 1)[1]) not in keys
    for member in (A, B):
        for x in _points(member):
            assert all(_holds(r, x) for r in kept)


def test_mutation_a_member_left_out_is_excluded_by_the_rows():
    """The rows of a class without B exclude points of B (x1 >= x2 is kept): the union would not be
    covered — so every member must enter, and with B in, no kept row excludes B."""
    without_b = class_rows(ROOT, BOX, [A], ORDER, F(1))
    assert any(not all(_holds(r, x) for r in without_b) for x in _points(B))
    with_c = class_rows(ROOT, BOX, [A, B, C], ORDER, F(1))
    for member in (A, B, C):
        for x in _points(member):
            assert all(_holds(r, x) for r in with_c)
    assert (F(0), _ge(0, 1)[1]) not in {(r[0], r[1]) for r in with_c}  # C has x1 >= x0


def test_pf_classes_are_proved_through_one_problem_each(monkeypatch):
    calls: list = []
    orig = CompactBnB._class_region

    def spy(self, *args):
        out = orig(self, *args)
        calls.append(out)
        return out

    monkeypatch.setattr(CompactBnB, "_class_region", spy)
    m = _hand("pf")
    proof, _ = CompactBnB(seconds=60).bracket(m, 4, parse_neighbourhood("box", m))
    assert proves(proof, m) and True in calls


def test_class_route_on_and_off_give_the_same_exact_level_at_n3():
    """With the class route off the same law is still proved pair by pair (the route adds, it does
    not replace): the same exact upper end either way."""
    m = _hand("pf")
    on, _ = CompactBnB(seconds=60).bracket(m, 3, parse_neighbourhood("box", m))
    off, _ = CompactBnB(seconds=60, class_regions=False).bracket(m, 3, parse_neighbourhood("box", m))
    assert on.upper == off.upper == "1"


@pytest.mark.slow
@pytest.mark.parametrize("n", [3, 4])
def test_mutation_pf_exponent_one_percent_too_large_is_not_proved_through_classes(n):
    mod = _hand("module")
    m = dpexact.define_mechanism("pf-1.01", mod._pf("101/200"), epsilon=1, properties=mod._PROPS)
    proof, _ = CompactBnB(seconds=40).bracket(m, n, parse_neighbourhood("box", m))
    assert not proves(proof, m)
    assert proof.upper_float >= 1.01 - 1e-9


def test_class_route_uses_the_class_rows(monkeypatch):
    """Mutation: class rows replaced by nothing (the whole box, a superset) — PF's class problems at
    n = 4 are then above e^ε on the box's faces and the route proves none of them."""
    calls: list = []
    orig = CompactBnB._class_region

    def spy(self, *args):
        out = orig(self, *args)
        calls.append(out)
        return out

    monkeypatch.setattr(CompactBnB, "_class_region", spy)
    monkeypatch.setattr(compact_bnb, "class_rows", lambda *a: [])
    m = _hand("pf")
    CompactBnB(seconds=20).bracket(m, 4, parse_neighbourhood("box", m))
    assert calls and True not in calls


def _space_root():
    from dpexact.verification.proofs.compact_fractions import Space

    sp = Space(("Y0", "Y1", "Y2"), 1)
    root = SimpleNamespace(coords=[(f"Z{c}", "Z") for c in range(K)], gen=lambda c: c, scale=lambda c: F(1),
                           space=sp, r=0, m=0)
    return sp, root


def test_stabiliser_map_covers_only_an_exact_image():
    """Proved: y1/(1 + y2) on {x1 >= x2}. Its image under Z1 <-> Z2 is y2/(1 + y1) on {x2 >= x1}:
    covered. Mutations: a ratio off by a coefficient, the rows not the image, a box not inside."""
    from dpexact.verification.proofs.compact_classes import covered, record, stabiliser
    from dpexact.verification.proofs.compact_fractions import Frac

    sp, root = _space_root()
    _y0, y1, y2, _t = sp.ctx.gens()
    one = sp.ctx.constant(1)
    store: list = []
    record(store, Frac(y1, one + y2), [_ge(1, 2)], BOX, ORDER)
    maps = stabiliser(root)
    assert len(maps) == 1  # the one permutation of {1, 2} fixing r = m = 0
    assert covered(store, root, maps, Frac(y2, one + y1), [_ge(2, 1)], BOX, ORDER)
    assert not covered(store, root, maps, Frac(y2, one + 2 * y1), [_ge(2, 1)], BOX, ORDER)
    assert not covered(store, root, maps, Frac(y2, one + y1), [_ge(1, 2)], BOX, ORDER)
    wide = (BOX[0], (F(-2), F(1)), BOX[2])
    assert not covered(store, root, maps, Frac(y2, one + y1), [_ge(2, 1)], wide, ORDER)
