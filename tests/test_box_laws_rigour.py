"""The output-set laws of the real-valued kinds (box / interval probabilities of the mixed,
interval and continuous mechanisms) at low ball precision always enclose their exact closed form
in Q[exp(Q)], on random rational queries, thresholds and boxes (hypothesis)."""

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dpexact
from dpexact.mechanisms.registry import _factory
from dpexact.protocols import value_count

def _kind(name: str, **kw) -> str:
    kind = getattr(_factory(name), "output_kind", "selection")
    return kind if isinstance(kind, str) else dpexact.mechanism(name, epsilon=1, **kw).output_kind  # a property


VARIANTS = {n: {} for n in dpexact.available()}
VARIANTS["noisy-max-value index-value"] = {"release": "index-value"}
VARIANTS["noisy-max-value exponential"] = {"noise": "exponential"}
KINDS = {v: _kind(v.split()[0], **kw) for v, kw in VARIANTS.items()}
REAL = sorted(n for n, k in KINDS.items() if k in ("mixed", "interval", "continuous"))

rationals = st.fractions(min_value=-6, max_value=6, max_denominator=8)
widths = st.fractions(min_value=Fraction(1, 16), max_value=8, max_denominator=16)
epsilons = st.sampled_from([Fraction(1, 10), Fraction(1, 2), 1, 2])


def _encloses(ball, exact) -> bool:
    return ball.contains(exact.to_arb(512))


@pytest.mark.parametrize("name", REAL)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), eps=epsilons)
def test_ball_box_law_encloses_the_exact_one(name, data, eps):
    kw = {"epsilon": eps, **VARIANTS[name]}
    base = name.split()[0]
    if "threshold" in _params(base):
        kw["threshold"] = data.draw(rationals, "threshold")
    if "cutoff" in _params(base):
        kw["cutoff"] = data.draw(st.integers(1, 2), "cutoff")
    m = dpexact.mechanism(base, **kw)
    kind = KINDS[name]
    n = data.draw(st.integers(1, 3), "n")
    q = [data.draw(rationals, "q") for _ in range(n)]

    def interval():
        lo = data.draw(rationals, "lo")
        return lo, lo + data.draw(widths, "width")

    if kind == "interval":
        lo, hi = interval()
        exact = m.interval_probability(q, lo, hi, backend="exact")
        ball = m.interval_probability(q, lo, hi, backend="ball", prec=64)
        assert _encloses(ball, exact), (q, lo, hi)
    elif kind == "continuous":
        k = len(m.rvs([float(x) for x in q], random_state=0))
        box = [interval() for _ in range(k)]
        assert _encloses(m.box_probability(q, box, backend="ball", prec=64), m.box_probability(q, box, backend="exact"))
    elif kind == "mixed":
        outs = [a for a in m.outputs(n) if value_count(m, a) > 0]
        if not outs:
            return
        a = data.draw(st.sampled_from(outs), "output")
        box = [interval() for _ in range(value_count(m, a))]
        lo_b, hi_b = m.part_box_probability(q, a, box, "ball", 64)
        lo_e, hi_e = m.part_box_probability(q, a, box, "exact")
        e_lo, e_hi = lo_e.to_arb(512), hi_e.to_arb(512)
        assert (lo_b.lower() <= e_lo.upper()) and (hi_b.upper() >= e_hi.lower()), (q, a, box)
        assert lo_b.contains(e_lo) or lo_b.lower() <= e_lo.lower()  # the lower bound is below the truth


def _params(name: str) -> set[str]:
    from dpexact.mechanisms.registry import info

    return {p["name"] for p in info(name)["parameters"]}
