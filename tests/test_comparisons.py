"""Certified decisions for branching pmfs (dpexact.numbers.comparisons) and crashes that must not
become verdicts: a pmf that raises is a failed conformance check and a named reason."""

from __future__ import annotations

from fractions import Fraction

import pytest
from flint import arb, fmpq
from typer.testing import CliRunner

import dpexact
from dpexact.cli.main import app
from dpexact.numbers.backends import get_backend
from dpexact.numbers.bounded_float import BoundedFloat
from dpexact.numbers.comparisons import ExactBall, Undecidable, exact_input
from dpexact.numbers.real import Real
from dpexact.numbers.exp_lattice import exact_sign
from dpexact.numbers.sympy_conversion import exact_sympy as to_sympy
from dpexact.verification.search.selection import verify

PROPS = dict(symmetric=True, shift_invariant=True, monotone=True)


def test_ties_of_equal_inputs_are_decided_exactly_on_balls() -> None:
    be = get_backend("ball:64")
    with be.context():
        q = [exact_input(be, Real.of(x)) for x in ("1/3", "1/3", "0", "1/3")]
        assert isinstance(q[0], ExactBall) and not q[0].is_exact()  # a real ball: 1/3 has no dyadic value
        assert not (arb(q[0]) == arb(q[1]))  # plain balls cannot tell 1/3 from 1/3
        assert be.argmax(q) == (0, 1, 3) and be.eq(q[0], q[1]) and be.compare(q[2], q[0]) == -1
        assert q[1] == max(q) and not (q[2] == max(q))  # Python's own operators follow the same rule
        third_twin = exact_input(be, Real(Fraction(float(Fraction(1, 3)))))  # fl(1/3): a different number
        assert be.compare(q[0], third_twin) == 1 and be.argmax([third_twin, q[0]]) == (1,)
        one = be.indicator(be.eq(q[0], q[3]))
        assert one.is_exact() and one == 1 and be.indicator(False) == 0


def test_undecidable_on_wide_balls_is_a_signal_with_the_operands() -> None:
    """A box of scores (wide balls, no exact value): the contract is to raise, never to guess."""
    be = get_backend("ball")
    with be.context():
        box = arb(0.5, 0.25)  # [1/4, 3/4]
        assert box.contains(arb(0.25)) and box.contains(arb(0.75))
        with pytest.raises(Undecidable) as err:
            be.argmax([box, arb(fmpq(1, 2))])
        assert any(x is box for x in err.value.operands) and isinstance(err.value, ArithmeticError)
        assert be.try_compare(box, arb(fmpq(1, 2))) is None
        assert be.argmax([box, arb(1)]) == (1,)  # disjoint: decided by the balls alone


def test_exact_float_and_mp_backends() -> None:
    ex = get_backend("exact")
    q = [ex.num("1/3"), ex.num("1/3"), ex.num("0")]
    assert ex.argmax(q) == (0, 1) and ex.indicator(ex.eq(q[0], q[1])) * ex.exp(ex.num(1)) == ex.exp(ex.num(1))
    fl = get_backend("float")
    a, b = BoundedFloat(0.5, 1e-3), BoundedFloat(0.5, 1e-3)
    with pytest.raises(Undecidable):
        fl.compare(a, b)
    assert fl.compare(BoundedFloat(0.5), BoundedFloat(0.5)) == 0 and fl.argmax([0.25, 0.5, 0.5]) == (1, 2)
    mp = get_backend("mp")
    with mp.context():
        assert mp.argmax([mp.num("1/3"), mp.num("1/3"), mp.num(0)]) == (0, 1)


def grr_ops(q, p, ops):
    """GRR on the argmax, ties shared (brr eq. 6) with the backend's decisions."""
    top = ops.argmax(q)
    e, n, k = ops.exp(p.epsilon), len(q), len(top)
    return [(e + k - 1) / (k * (e + n - 1)) if r in top else 1 / (e + n - 1) for r in range(n)]


def grr_literal(q, p, ops):
    """The same in plain Python: ``x == max(q)``."""
    top = max(q)
    k = sum(1 for x in q if x == top)
    e, n = ops.exp(p.epsilon), len(q)
    return [(e + k - 1) / (k * (e + n - 1)) if x == top else 1 / (e + n - 1) for x in q]


@pytest.mark.parametrize("fn", [grr_ops, grr_literal])
def test_branching_pmf_matches_builtin_grr_on_every_backend(fn) -> None:
    mine = dpexact.define_mechanism("my-grr", fn, epsilon=1, properties=PROPS)
    ref = dpexact.mechanism("grr", epsilon=1)
    for q in (["1/3", "1/3", "0"], ["1/3", str(Fraction(float(Fraction(1, 3)))), "-2"], [0, 0, 0, 0]):
        e1, e2 = mine.pmf(q, "exact"), ref.pmf(q, "exact")
        assert all(exact_sign(to_sympy(a) - to_sympy(b)) == 0 for a, b in zip(e1.values, e2.values))
        assert mine.pmf(q, "ball").contains(e2.values)  # before: the ball of a tie was the non-tie value
        f = mine.pmf(q)
        assert max(abs(float(a) - float(b)) for a, b in zip(f.values, ref.pmf(q, "ball:256").values)) <= f.abs_error
    v = verify(mine, searches=("grid", "structured"), n=3)
    assert v.verdict == "private-within-scope" and v.certified and v.worst_log_ratio == pytest.approx(1.0)


def grr_crashing(q, p, ops):
    """GRR with ``bool * expression``: fine on balls, a TypeError on the exact backend (sympy)."""
    top = max(q)
    k = sum(1 for x in q if x == top)
    e, n = ops.exp(p.epsilon), len(q)
    return [(x == top) * (e - 1) / (k * (e + n - 1)) + 1 / (e + n - 1) for x in q]


CRASHING = dpexact.define_mechanism("crash-grr", grr_crashing, epsilon=1, properties=PROPS)


def test_a_crashing_exact_pmf_fails_conformance() -> None:
    rep = dpexact.conform(CRASHING)
    assert not rep.passed
    sums = rep.check("sums-to-one")
    assert sums.passed is False and "TypeError" in sums.message and "exact" in sums.message


def test_a_crashing_exact_pmf_is_the_named_reason_of_an_inconclusive_verdict() -> None:
    """GRR's ratio e^ε is tight: balls cannot decide those triples and the exact backend, which
    could, crashes. The verdict is inconclusive and says why."""
    v = verify(CRASHING, searches=("grid", "structured"), n=3)
    assert v.verdict == "inconclusive" and "TypeError" in v.reason and "exact" in v.reason
    assert any("TypeError" in str(n) for n in v.scope.notes)


def test_cli_conform_of_a_crashing_file_exits_1(tmp_path) -> None:
    path = tmp_path / "crash.py"
    path.write_text("import dpexact\n"
                    "def pmf(q, p, ops):\n"
                    "    top = max(q)\n"
                    "    return [(x == top) * ops.exp(p.epsilon) / (ops.exp(p.epsilon) + len(q) - 1)\n"
                    "            + (not (x == top)) * ops.num(1) / (ops.exp(p.epsilon) + len(q) - 1) for x in q]\n"
                    "M = dpexact.define_mechanism('bool-times-sympy', pmf, epsilon=1)\n")
    res = CliRunner().invoke(app, ["conform", f"{path}:M"])
    assert res.exit_code == 1, res.output
    assert "TypeError" in res.output and "not offered" not in res.output


def test_readme_branching_example() -> None:
    """The docs' define_mechanism example (docs/own-mechanism.md) (argmax with ties) gives GRR's law on exact and ball,
    and a correct verdict (GRR is ε-DP for every pair: private)."""
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "own-mechanism.md").read_text()
    block = next(b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "ops.argmax" in b)
    ns: dict = {}
    exec(compile(block, "docs/own-mechanism.md", "exec"), ns)  # noqa: S102 - the README's own code, which this test checks
    m, ref = ns["m"], dpexact.mechanism("grr", epsilon=1)
    q = ["1/3", "1/3", "0"]
    e = m.pmf(q, "exact").values
    assert [str(v) for v in e] == ["(1 + E)/(4 + 2*E)", "(1 + E)/(4 + 2*E)", "1/(2 + E)"]
    assert all(exact_sign(to_sympy(a) - to_sympy(b)) == 0 for a, b in zip(e, ref.pmf(q, "exact").values))
    assert m.pmf(q, "ball").contains(e)
    v = verify(m, searches=("grid", "structured"), n=3)
    assert v.verdict == "private-within-scope" and v.certified


def test_backends_satisfy_the_backend_ops_protocol() -> None:
    from dpexact.protocols import BackendOps

    for name in ("float", "mp", "ball", "exact"):
        assert isinstance(get_backend(name), BackendOps)


def test_a_crashing_exact_pmf_is_named_in_an_approx_dp_verdict() -> None:
    """(ε, δ) with δ = 0 on the same tight law: the pairs balls cannot decide go to the exact backend,
    whose crash is the verdict's named reason."""
    v = dpexact.verify(CRASHING, delta="0", n=3, search=("grid",))
    assert v.verdict == "inconclusive" and "TypeError" in v.reason


def test_a_crashing_exact_pmf_is_named_on_the_query_pair_route() -> None:
    """The query-pair route asks the exact backend through its adapter: a crash is recorded there
    (the router puts it in the notes and the reason), not taken for "no exact backend"."""
    from fractions import Fraction as F

    from dpexact.verification.search.selection_outputs import SelectionOutputs

    adapter = SelectionOutputs(CRASHING)
    assert adapter.exact_difference_sign((F(1), F(0), F(0)), (F(0), F(1), F(0)), 0, 1) is None
    assert "TypeError" in adapter.exact_failure


def test_exact_balls_hash_by_their_exact_value() -> None:
    be = get_backend("ball")
    with be.context():
        a, b, c = (exact_input(be, Real.of(x)) for x in ("1/3", "1/3", "1/2"))
        assert len({a, b, c}) == 2 and {a: 1}[b] == 1
