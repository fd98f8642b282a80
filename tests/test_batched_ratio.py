"""The batched float route of total_expected_error (BatchFloatPmf) against the member-by-member
route and rigorous balls: same sums within both bounds, ball truth inside the stated bound."""

import numpy as np
import pytest

import dpexact
from dpexact.lp.optimal_mechanism import _class_error, _float_total, _members, total_expected_error
from dpexact.numbers.backends import get_backend
from dpexact.protocols import BatchFloatPmf


def _member_by_member(m, n, k):
    fs = b = 0.0
    c = 0
    kinds = []
    for lv, mult in _members(m, n, k)[0]:
        ee = _class_error(m, lv, get_backend("float"))
        fs += mult * ee.as_float
        b += mult * ee.error_bound
        c += 1
        kinds.append(ee.error_kind)
    return _float_total(fs, b, c, kinds)


@pytest.mark.parametrize("name", ["pf", "em"])
@pytest.mark.parametrize("eps", ["0.001", "1", "200"])
def test_batched_total_matches_members_and_ball(name, eps):
    m = dpexact.mechanism(name, epsilon=eps)
    assert isinstance(m, BatchFloatPmf)
    a = total_expected_error(m, 5, 5)
    b = _member_by_member(m, 5, 5)
    ball = total_expected_error(m, 5, 5, backend="ball")
    truth = float(ball.as_float)
    assert abs(a.as_float - truth) <= a.error_bound
    assert abs(a.as_float - b.as_float) <= a.error_bound + b.error_bound
    assert a.error_bound <= 2 * b.error_bound + 1e-300  # the same bound, not a looser one
    assert a.error_kind == "a-priori"


def test_rows_outside_the_batch_route_go_through_pmf():
    """n > 64 (PF's exact rule) and EM with a base measure: NaN bounds, then the member-by-member pmf."""
    pf = dpexact.mechanism("pf", epsilon=1)
    Q = -np.arange(70, dtype=float)[None, :].repeat(2, axis=0)
    _, rel = pf.pmf_float_batch(Q)
    assert np.isnan(rel).all()
    em = dpexact.mechanism("em", epsilon=1, measure=[1, 2, 3])
    _, rel = em.pmf_float_batch(np.array([[0.0, -2.0, -2.0]]))
    assert np.isnan(rel).all()
    a = total_expected_error(em, 3, 4)
    b = _member_by_member(em, 3, 4)
    assert abs(a.as_float - b.as_float) <= 1e-14 * b.as_float  # the same terms, summed in another order
    assert abs(a.error_bound - b.error_bound) <= 1e-12 * b.error_bound


def test_batched_pmf_rows_equal_single_pmf_within_bounds():
    rng = np.random.default_rng(5)
    Q = -2.0 * rng.integers(0, 8, size=(40, 9)).astype(float)
    for name in ("pf", "em"):
        m = dpexact.mechanism(name, epsilon="0.7")
        P, rel = m.pmf_float_batch(Q)
        for b in range(Q.shape[0]):
            one = m.pmf(Q[b])
            tol = (rel[b] + one.rel_error) * np.maximum(P[b], one.values)
            assert np.all(np.abs(P[b] - one.values) <= tol)


def test_a_subclass_with_its_own_pmf_is_not_batched():
    from dataclasses import dataclass

    from dpexact.mechanisms.permute_and_flip.mechanism import PermuteAndFlip

    @dataclass(frozen=True)
    class Shifted(PermuteAndFlip):
        def pmf(self, scores, backend="float", method=None):
            return super().pmf([s * 2 for s in scores], backend=backend, method=method)

    m = Shifted(epsilon=1)
    _, rel = m.pmf_float_batch(np.array([[0.0, -2.0, -4.0]]))
    assert np.isnan(rel).all()
    a = total_expected_error(m, 3, 3)
    b = _member_by_member(m, 3, 3)
    assert abs(a.as_float - b.as_float) <= 1e-14 * b.as_float
    assert abs(a.as_float - total_expected_error(PermuteAndFlip(epsilon=1), 3, 3).as_float) > 1e-3
