"""``dpexact prob``: probabilities of output sets of the real-valued mechanisms from the CLI,
against independent closed forms and the library, and its one-line errors."""

import json

import mpmath
import pytest
import sympy
from typer.testing import CliRunner

import dpexact
from dpexact.cli.main import app

runner = CliRunner()


def run(args):
    return runner.invoke(app, ["prob", *args])


def test_laplace_box_exact_equals_the_product_of_laplace_cdf_differences():
    r = run(["-m", "laplace", "-e", "1/2", "-q", "0,1", "--box", "-1:1,1/2:3", "-b", "exact", "--json"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    with mpmath.workdps(40):
        b = mpmath.mpf(2)  # Lap(Δ/ε) with ε = 1/2

        def cdf(x):
            return mpmath.exp(x / b) / 2 if x < 0 else 1 - mpmath.exp(-x / b) / 2

        ref = (cdf(mpmath.mpf(1)) - cdf(mpmath.mpf(-1))) * (cdf(mpmath.mpf(2)) - cdf(mpmath.mpf(-1) / 2))
        got = sympy.N(sympy.sympify(d["probability"]), 35)
        assert abs(mpmath.mpf(str(got)) - ref) < mpmath.mpf(10) ** -30
    assert d["coordinates"] == "values" and d["lower"] == d["upper"]


def test_mixed_output_needs_its_pattern_and_matches_the_library():
    args = ["-m", "gap-svt", "-e", "1", "-q", "1,2", "-p", "threshold=1", "-p", "cutoff=2", "--box", "0:3,0:1"]
    r = run(args)
    assert r.exit_code == 2 and "--pattern" in r.output
    r = run(args + ["--pattern", "TX"])
    assert r.exit_code == 2 and "not an output" in r.output
    r = run(args + ["--pattern", "TT", "--json"])
    d = json.loads(r.stdout)
    lo, _ = dpexact.mechanism("gap-svt", epsilon=1, threshold=1, cutoff=2).part_box_probability(["1", "2"], "TT", [("0", "3"), ("0", "1")], "ball")
    assert abs(d["float"] - float(lo.mid())) < 1e-15 and d["output_part"] == "TT"


def test_box_coordinates_are_named_and_output_file_is_the_same_document(tmp_path):
    out = tmp_path / "p.json"
    r = run(["-m", "prefix-sum", "-e", "1", "-q", "1,2", "--box", "0:2,1:3", "--json", "-o", str(out)])
    assert r.exit_code == 0 and json.loads(out.read_text()) == json.loads(r.stdout)
    assert json.loads(r.stdout)["coordinates"] == "box_coordinates"


@pytest.mark.parametrize("args, words", [
    (["-m", "svt1", "-e", "1", "-q", "1,2", "--box", "0:1"], "use `dpexact pmf`"),
    (["-m", "laplace", "-e", "1", "-q", "0,1", "--box", "0-1,0:1"], "--box must be lo:hi"),
    (["-m", "laplace", "-e", "1", "-q", "0,1", "--box", "0:1"], "2 intervals expected"),
    (["-m", "laplace", "-e", "1", "-q", "0,1", "--box", "0:1,__import__('os'):1"], "box[1].lo"),
    (["-m", "laplace", "-e", "1", "-q", "0,1", "--box", "1:0,0:1"], "lo < hi"),
    (["-m", "laplace", "-e", "1", "-q", "0,1", "--box", "0:1,0:1", "-b", "float"], "backend"),
    (["-m", "noisy-max-value", "-e", "1", "-q", "1,0", "--box", "0:1,1:2"], "one real value"),
])
def test_bad_input_is_one_line_naming_it(args, words):
    r = run(args)
    assert r.exit_code == 2 and words in r.output and "Traceback" not in r.output
    assert len([line for line in r.stderr.splitlines() if line]) == 1
