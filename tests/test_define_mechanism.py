"""The function route: a pmf written once in backend operations runs on every backend and
agrees with the built-in mechanism it re-implements."""

import numpy as np
import pytest

import dpexact
from dpexact.mechanisms.neighbourhoods import MonotoneBox
from dpexact.numbers.backends import exact_sympy
from dpexact.numbers.exp_lattice import exact_sign
from dpexact.verification.search.selection import verify


def em_pmf(q, p, ops):
    """EM (pf Definition 4) in backend operations."""
    top = q[0]
    for x in q[1:]:
        top = x if x > top else top
    w = [ops.exp(p.epsilon * (x - top) / (2 * p.sensitivity)) for x in q]
    s = ops.sum(w)
    return [v / s for v in w]


def test_function_em_equals_builtin_em_on_every_backend():
    mine = dpexact.define_mechanism("my-em", em_pmf, epsilon="1/2", sensitivity=2,
                                    properties=dict(symmetric=True, shift_invariant=True, monotone=True))
    ref = dpexact.mechanism("em", epsilon="1/2", sensitivity=2)
    q = [3, 1, "1/2", 0]
    e1, e2 = mine.pmf(q, "exact"), ref.pmf(q, "exact")
    assert all(exact_sign(exact_sympy(a) - exact_sympy(b)) == 0 for a, b in zip(e1.values, e2.values))
    assert mine.pmf(q, "ball").contains(e2.values)
    f = mine.pmf(q)
    assert f.error_kind == "rigorous"
    assert np.all(np.abs(f.values - ref.pmf(q).values) <= f.abs_error + ref.pmf(q).abs_error)
    assert np.allclose([float(v) for v in mine.pmf(q, "mp").values], f.values, rtol=1e-14)
    v = verify(mine, searches=("grid", "structured"))
    assert v.verdict == "private-within-scope" and v.certified
    assert dpexact.conform(mine).passed


def test_declared_neighbourhood_size_params_and_errors():
    m = dpexact.define_mechanism("w", lambda q, p, ops: [ops.num(1) / len(q)] * len(q), epsilon=1,
                                 neighbourhood=MonotoneBox(1), size=3, params={"gamma": "1/3"})
    assert m.size == 3 and isinstance(m.neighbourhood(), MonotoneBox) and m.params()["gamma"] == "1/3"
    with pytest.raises(ValueError, match="defined for 3 scores"):
        m.pmf([0, 1])
    with pytest.raises(ValueError, match="give pmf= .* or sampler="):
        dpexact.define_mechanism("none", epsilon=1)
    with pytest.raises(TypeError, match="properties"):
        dpexact.define_mechanism("p", em_pmf, epsilon=1, properties={"symmetrical": True})
    floaty = dpexact.define_mechanism("f", lambda q, p, ops: [0.5, 0.5], epsilon=1)
    with pytest.raises(ValueError, match="exact backend"):
        floaty.pmf([0, 1], "exact")
    with pytest.raises(ValueError, match="ball backend"):
        floaty.pmf([0, 1], "ball")
    with pytest.raises(ValueError, match="returned 1 probabilities for 2 scores"):
        dpexact.define_mechanism("short", lambda q, p, ops: [ops.num(1)], epsilon=1).pmf([0, 1], "exact")
