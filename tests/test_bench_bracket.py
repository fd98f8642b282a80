"""The bracket rows of ``dpexact bench``: the own mechanisms are the laws they claim to be, and a row
(scope search and bracket timed live) is a valid part of the bench document."""

import numpy as np
import pytest

import dpexact
from dpexact.benchmarks_bracket import _finite, bracket_row, own_em, own_pf
from dpexact.schemas import document, validate

SCORES = ["0", "1/3", "2", "-7/5"]


@pytest.mark.parametrize("own, name", [(own_em, "em"), (own_pf, "pf")])
def test_own_mechanism_is_the_builtin_law(own, name):
    """The user's law on balls against the built-in pmf on the exact backend (closed form / exact
    polynomial integration): every ball contains the exact value."""
    ball = own(epsilon="3/2").pmf(SCORES, "ball:128")
    exact = dpexact.mechanism(name, epsilon="3/2").pmf(SCORES, "exact")
    assert ball.contains(list(exact.values))
    assert float(np.max(ball.radii())) < 1e-25


def test_own_pf_differs_from_own_em():
    """The two own laws are not the same function (the PF expansion is not a softmax in disguise)."""
    a = own_em().pmf(SCORES, "ball:128").to_float()
    b = own_pf().pmf(SCORES, "ball:128").to_float()
    assert np.max(np.abs(a - b)) > 1e-3


def test_bracket_row_is_measured_and_fits_the_schema():
    """A row on the built-in EM (theorem route: about a second): both timings are positive CPU
    seconds of this run, the ratio is their quotient, and the document validates."""
    row = bracket_row("built-in EM", dpexact.mechanism("em", epsilon=1), 3)
    assert row["scope_search_s"] > 0 and row["bracket_s"] > 0
    assert row["ratio"] == pytest.approx(row["bracket_s"] / row["scope_search_s"])
    assert row["verdict"] == "private" and row["upper"] == 1.0 and 0.999 < row["lower"] <= 1.0
    validate("bench", document("bench", {"rows": [row]}))
    broken = {k: v for k, v in row.items() if k != "bracket_s"}
    with pytest.raises(ValueError, match="bracket_s"):
        validate("bench", document("bench", {"rows": [broken]}))


def test_infinite_or_missing_ends_are_null():
    """The bracket writes an infinite end as "inf" (no finite proof): the row says null, never a string."""
    assert [_finite(v) for v in ("inf", "-inf", None, float("inf"), 1.5, 2)] == [None, None, None, None, 1.5, 2.0]
