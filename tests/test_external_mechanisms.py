"""Mechanisms from outside the package: examples/geometric_noisy_max.py copied to tmp_path and
named as PATH.py:OBJECT from every command; the loader's one-line errors."""

import json
import math
import shutil
from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import chisquare
from typer.testing import CliRunner

import dpexact
from dpexact.cli.main import app
from dpexact.mechanisms.loader import load_mechanism, load_object

from conftest import REPO

runner = CliRunner()
EXAMPLE = REPO / "examples" / "geometric_noisy_max.py"


@pytest.fixture(scope="module")
def example_path(tmp_path_factory):
    d = tmp_path_factory.mktemp("outside")
    shutil.copy(EXAMPLE, d / "geometric_noisy_max.py")
    return d / "geometric_noisy_max.py"


@pytest.fixture(scope="module")
def gnm(example_path):
    return lambda eps=1, **kw: dpexact.mechanism(f"{example_path}:GeometricNoisyMax", epsilon=eps, **kw)


def _window_law(q, eps, width=60):
    """Independent oracle: enumerate the noise on [-W, W]^n in numpy, uniform ties by fractions."""
    a = math.exp(-eps / 2)
    z = np.arange(-width, width + 1)
    f = (1 - a) / (1 + a) * a ** np.abs(z)
    n = len(q)
    grids = np.meshgrid(*[q[i] + z for i in range(n)], indexing="ij")
    y = np.stack([g.ravel() for g in grids], axis=1)
    w = np.ones(y.shape[0])
    for i, g in enumerate(np.meshgrid(*[f] * n, indexing="ij")):
        w = w * g.ravel()
    top = y == y.max(axis=1, keepdims=True)
    share = top / top.sum(axis=1, keepdims=True)
    tail = n * 2 * a ** (width + 1) / (1 + a)  # Pr[some |Z_r| > W]
    return share.T @ w, tail


@pytest.mark.parametrize("q", [[2, 1, 0], [0, 0, -1], [3, -1, 0, 0]])
def test_exact_law_matches_an_independent_enumeration(gnm, q):
    m = gnm()
    ref, tail = _window_law(q, 1.0, width=60 if len(q) < 4 else 30)
    p = m.pmf(q, "ball")
    assert np.all(np.abs(np.array([float(v.mid()) for v in p.values]) - ref) <= tail + 1e-12)
    assert p.contains(m.pmf(q, "exact").values)


@pytest.mark.parametrize("q", [[2, 1, 0], [1, 1, 0, 1]])
def test_exact_law_matches_the_algorithms_own_randomness(gnm, q):
    m = gnm()
    draws = 200_000
    counts = np.bincount(m.rvs(q, size=draws, random_state=11), minlength=len(q))
    assert chisquare(counts, draws * m.pmf(q).values).pvalue > 1e-4


def test_numerators_sum_to_the_denominator_and_rational_alpha(example_path, gnm):
    exact_law = load_object(f"{example_path}:exact_law")
    for q in ([2, 1, 0], [0, 0, 0, 5], [4, -3]):
        nums, den = exact_law(q)
        total: dict = {}
        for nr in nums:
            for k, v in nr.items():
                total[k] = total.get(k, 0) + v
        assert {k: v for k, v in total.items() if v} == den  # Σ_r Pr[r] = 1 as a polynomial identity in α
    p = gnm("2*log(2)").pmf([2, 1, 0], "exact")  # α = 1/2: rational probabilities
    assert [str(v) for v in p.values] == ["127/216", "61/216", "7/54"] and sum(Fraction(str(v)) for v in p.values) == 1


def test_float_within_its_bound_and_integer_scores_only(gnm):
    m = gnm()
    q = [3, 0, 1, 1]
    f, b = m.pmf(q), m.pmf(q, "ball")
    for x, y in zip(f.values, b.values):
        assert abs(x - float(y.mid())) <= f.abs_error
    with pytest.raises(ValueError, match=r"scores\[1\] must be an integer"):
        m.pmf([1, 0.5])
    with pytest.raises(ValueError, match=r"scores\[0\] must be an integer"):
        m.rvs(["1/3", 0])


def test_cli_pmf_on_three_backends(example_path):
    spec = f"{example_path}:GeometricNoisyMax"
    outs = {}
    for b in ("exact", "ball", "float"):
        res = runner.invoke(app, ["pmf", "-m", spec, "-e", "1", "-q", "2,1,0", "-b", b, "--json"])
        assert res.exit_code == 0, res.output
        outs[b] = json.loads(res.output)
    ref, tail = _window_law([2, 1, 0], 1.0)
    for b, o in outs.items():
        assert np.allclose(o["probabilities"], ref, rtol=0, atol=tail + 1e-12), b
    assert outs["exact"]["error_kind"] == "exact" and outs["ball"]["error_kind"] == "rigorous"


def test_cli_verify_and_optimal(example_path):
    spec = f"{example_path}:GeometricNoisyMax"
    res = runner.invoke(app, ["verify", "-m", spec, "-e", "1", "--n", "3", "--json"])
    assert res.exit_code == 0, res.output  # private: its stated noisy-argmax law, proved on Z^n
    v = json.loads(res.stdout)  # progress goes to stderr
    assert v["verdict"] == "private" and v["certified"] and v["worst_log_ratio"] <= 1
    res = runner.invoke(app, ["optimal", "--n", "4", "--k", "4", "--epsilon", "1", "--mechanisms", f"pf,{spec}", "--json"])
    assert res.exit_code == 0, res.output
    o = json.loads(res.stdout)  # notes and progress go to stderr
    # PF is optimal on Q(n, k) (pf Theorem 3); the geometric mechanism is not
    assert abs(o["ratios"]["pf"] - 1) <= o["ratio_error_bounds"]["pf"]
    assert o["ratios"][spec] > 1 + 100 * o["ratio_error_bounds"][spec]


BAD = [
    ("{tmp}/missing.py:X", "does not exist"),
    ("{gnm}:Nope", "has no object 'Nope'"),
    ("{tmp}/bad.py:NotAMech", "does not satisfy the dpexact Mechanism protocol"),
    ("{tmp}/bad.py:Raising", "RuntimeError: boom"),
    ("{tmp}/bad.py:PmfRaises", "pmf raised ZeroDivisionError"),
    ("{tmp}/syntax.py:x", "SyntaxError"),
    ("no_such_module_xyz:A", "no module named"),
    ("{gnm}:GeometricNoisyMax.__init__.x", "has no object"),
    ("{tmp}/bad.py:Unmarked", "must be marked @dpexact.mechanism_factory; refused without calling it"),
]


@pytest.mark.parametrize("spec, message", BAD)
def test_bad_external_names_give_one_line_errors(spec, message, example_path, tmp_path):
    (tmp_path / "bad.py").write_text(
        "import dpexact\n"
        "class NotAMech:\n    def __init__(self, epsilon, sensitivity=1):\n        pass\n"
        "@dpexact.mechanism_factory\ndef Raising(epsilon, sensitivity=1):\n    raise RuntimeError('boom')\n"
        "def Unmarked(epsilon, sensitivity=1):\n    raise RuntimeError('called')\n"
        "@dpexact.mechanism_factory\ndef PmfRaises(epsilon, sensitivity=1):\n"
        "    return dpexact.define_mechanism('raises', lambda q, p, ops: [1 / 0 for _ in q], epsilon=epsilon)\n")
    (tmp_path / "syntax.py").write_text("x = (\n")
    spec = spec.format(tmp=tmp_path, gnm=example_path)
    res = runner.invoke(app, ["pmf", "-m", spec, "-e", "1", "-q", "2,1,0"])
    assert res.exit_code == 2, res.output
    assert res.output.startswith("error:") and res.output.count("\n") == 1, res.output
    assert message in res.output and "Traceback" not in res.output


def test_loaded_class_is_loaded_once_and_wrapped(example_path):
    a = load_mechanism(f"{example_path}:GeometricNoisyMax", epsilon=1)
    b = load_mechanism(f"{example_path}:GeometricNoisyMax", epsilon=1)
    assert type(a.inner) is type(b.inner) and a.short_name == "geometric-noisy-max"
    with pytest.raises(ValueError, match="expected PATH.py:OBJECT"):
        load_mechanism(":X")


def test_mechanisms_command_lists_parameters_and_citations():
    res = runner.invoke(app, ["mechanisms", "--json"])
    assert res.exit_code == 0, res.output
    rows = {r["name"]: r for r in json.loads(res.output)["mechanisms"]}
    assert set(rows) == set(dpexact.available())
    em = rows["em"]
    assert [p["name"] for p in em["parameters"]] == ["epsilon", "sensitivity", "monotone", "measure"]
    assert em["parameters"][0]["required"] and em["parameters"][1]["default"] == 1
    assert "pf Definition 4" in em["citations"]
    # works outside the five source papers are cited too (authors, venue, year from the docstrings)
    assert "Lyu, Su & Li VLDB 2017" in rows["svt1"]["citations"]
    assert "Wang et al. CCS 2020" in rows["adaptive-svt"]["citations"]
    assert all(r["citations"] for r in rows.values()), [n for n, r in rows.items() if not r["citations"]]
    assert rows["pf"]["properties"]["symmetric"] is True
    # the output kind says which command serves the law: pmf (finite kinds) or prob (real values)
    from dpexact.mechanisms.registry import _factory

    for name, r in rows.items():
        try:
            kind = dpexact.mechanism(name, epsilon=1).output_kind
        except (ValueError, TypeError):  # needs more parameters: its class states the kind
            kind = getattr(_factory(name), "output_kind", "selection")
        assert r["output_kind"] == kind, name
    assert rows["laplace"]["output_kind"] == "continuous" and rows["svt3"]["output_kind"] == "mixed"
    res = runner.invoke(app, ["mechanisms"])
    assert res.exit_code == 0 and "rnm-exp" in res.output


def test_module_object_names_a_class_in_an_importable_module():
    a = runner.invoke(app, ["pmf", "-m", "dpexact.mechanisms.exponential:ExponentialMechanism", "-e", "1", "-q", "1,0",
                            "-b", "exact", "--json"])
    b = runner.invoke(app, ["pmf", "-m", "em", "-e", "1", "-q", "1,0", "-b", "exact", "--json"])
    assert a.exit_code == 0 and b.exit_code == 0, a.output
    assert json.loads(a.output)["exact"] == json.loads(b.output)["exact"]
