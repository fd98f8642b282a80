"""An infinite end is emitted as null with its exact text beside it (#36: one number type per JSON field).

Each command is run to a real infinite value where one exists (svt5's unbounded witness, ε(δ) of a pair
whose second law has a zero, a replayed unbounded counterexample); curve and audit have no quick input
with an infinite end, so their writers get one through a stub. Every document is parsed with
NaN / Infinity tokens refused and validated against its schema."""

from __future__ import annotations

import json
import math
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from dpexact.cli.main import app
from dpexact.schemas import validate

runner = CliRunner()


def _strict(text: str) -> dict:
    def refuse(token: str) -> None:
        raise AssertionError(f"non-JSON token {token} in a document")

    return json.loads(text, parse_constant=refuse)


def _json(args: list[str], command: str, code: int = 0) -> dict:
    r = runner.invoke(app, [*args, "--json"])
    assert r.exit_code == code, r.output
    d = _strict(r.stdout)
    validate(command, d)
    return d


@pytest.fixture(scope="module")
def svt5(tmp_path_factory):
    """svt5 at n = 3 (not private: an output with probability 0 under q'), its document and its saved file."""
    path = tmp_path_factory.mktemp("svt5") / "svt5.json"
    r = runner.invoke(app, ["verify", "-m", "svt5", "-e", "1", "--n", "3", "--json", "-o", str(path)])
    assert r.exit_code == 1, r.output
    d = _strict(r.stdout)
    validate("verify", d)
    return d, path


def test_verify_unbounded_witness_is_null_with_inf_beside_it(svt5):
    d, _ = svt5
    assert d["verdict"] == "violated"
    assert d["worst_log_ratio"] is None and d["worst_log_ratio_exact"] == "inf"
    b = d["epsilon_bracket"]
    assert b["lower_float"] is None and b["lower_exact"] == "inf" and b["lower"]["lower"] == "inf"
    assert b["lower"]["lower_float"] is None and b["lower"]["unbounded"] is True
    # no proof above: the upper end is unknown, i.e. ∞, and says so as text
    assert b["upper"] is None and b["upper_float"] is None and b["upper_exact"] == "inf"
    cx = d["counterexample"]
    assert cx["log_ratio"] == [None, None] and cx["log_ratio_exact"] == ["inf", "inf"]


def test_verify_text_prints_the_exact_text_of_a_null_end():
    r = runner.invoke(app, ["verify", "-m", "svt5", "-e", "1", "--n", "3"], env={"COLUMNS": "120"})
    assert r.exit_code == 1
    assert "ε* ∈ [inf, inf]" in r.stdout and "log-ratio in [inf, inf]" in r.stdout
    assert "worst log-ratio inf" in r.stdout and " - " not in r.stdout.split("diagnostics:")[1].splitlines()[0]


def test_verify_finite_ends_stay_numbers():
    d = _json(["verify", "-m", "em", "-e", "1", "--n", "3"], "verify")
    b = d["epsilon_bracket"]
    assert isinstance(b["upper_float"], float) and isinstance(b["lower_float"], float)
    assert "worst_log_ratio_exact" not in d and isinstance(d["worst_log_ratio"], float)
    # EM at ε with sensitivity 1 on the box relation has level exactly ε (McSherry–Talwar): both ends at 1
    assert b["lower_float"] <= 1 <= b["upper_float"] and b["upper_exact"] not in ("inf", None)


def test_replay_of_an_unbounded_counterexample_gives_null_ends_with_their_text(svt5):
    _, path = svt5
    d = _json(["replay", str(path)], "replay")
    assert d["holds"] is True
    assert d["log_ratio"] == [None, None] and d["log_ratio_exact"] == ["inf", "inf"]


def test_delta_infinite_epsilon_is_null_with_inf_beside_it():
    # Q has a zero where P has mass 1/2: ε(δ) = ∞ for every δ < 1/2
    d = _json(["delta", "--p-pmf", "1/2,1/2", "--q-pmf", "1,0", "--delta", "1/10"], "delta")
    e = d["results"][0]["epsilon"]
    assert (e["lower"], e["upper"], e["lower_exact"], e["upper_exact"], e["exact"]) == (None, None, "inf", "inf", "inf")
    r = runner.invoke(app, ["delta", "--p-pmf", "1/2,1/2", "--q-pmf", "1,0", "--delta", "1/10"])
    assert r.exit_code == 0 and r.stdout.count("inf") >= 3


def test_delta_of_a_pure_dp_pair_below_its_level_stays_a_number():
    # P = (1/2, 1/2), Q = (1/3, 2/3) has level log(3/2); at ε = 1/10 < log(3/2): δ = 1/2 - e^{1/10}/3
    d = _json(["delta", "--p-pmf", "1/2,1/2", "--q-pmf", "1/3,2/3", "--epsilon", "1/10"], "delta")
    v = d["results"][0]["delta"]
    want = 0.5 - math.exp(0.1) / 3
    assert v["lower"] <= want <= v["upper"] and v["upper"] - v["lower"] < 1e-15
    assert "upper_exact" not in v and "lower_exact" not in v


class _Point(SimpleNamespace):
    pass


class _InfiniteCurve:
    """A curve whose D_α is ∞ above α = 2 (a stub: no registered law has an infinite Rényi divergence)."""

    epsilon, n, tight, scope, mechanism = "1", 2, True, "stub", "em"

    def renyi(self, alphas, tol=None):
        return [_Point(at=float(a), at_text=a, lower=0.5 if float(a) <= 2 else math.inf,
                       upper=0.5 if float(a) <= 2 else math.inf, witness={"ratio": math.inf}) for a in alphas]

    def zcdp(self):
        return _Point(lower=0.25, upper=math.inf, witness={})

    def today_rho(self):
        return 0.125


def test_curve_infinite_renyi_and_rho_are_null_with_inf_beside_them(monkeypatch):
    import dpexact.curves.curve as curve_mod

    monkeypatch.setattr(curve_mod, "privacy_curve", lambda *a, **k: _InfiniteCurve())
    d = _json(["curve", "-m", "em", "-e", "1", "--n", "2", "--renyi", "2,3"], "curve")
    finite, infinite = d["renyi"]
    assert finite["upper"] == 0.5 and "upper_exact" not in finite
    assert (infinite["lower"], infinite["upper"], infinite["lower_exact"], infinite["upper_exact"]) == (None, None, "inf", "inf")
    # the free-form witness: null with its text beside it, as the listed fields (was a bare null before 1.1)
    assert infinite["witness"] == {"ratio": None, "ratio_exact": "inf"}
    rho = _json(["curve", "-m", "em", "-e", "1", "--n", "2", "--zcdp"], "curve")["rho"]
    assert rho["lower"] == 0.25 and rho["upper"] is None and rho["upper_exact"] == "inf"
    r = runner.invoke(app, ["curve", "-m", "em", "-e", "1", "--n", "2", "--zcdp"])
    assert r.exit_code == 0 and "inf" in r.stdout


def test_audit_sampler_infinite_statistic_and_draw_are_null_with_their_text():
    from dpexact.audit.gof import TestPlan
    from dpexact.audit.sampler import SamplerAudit

    plan = TestPlan("Pearson X²", 0.01, 0.05, 1000, 10, 21.7, 10.0, 0.9)
    a = SamplerAudit("laplace", {"epsilon": 1.0}, "Laplace(1)", True, 0, True, plan, 0.9, "does not conform",
                     math.inf, 0.0, [], [0.5, math.inf, -math.inf, math.nan])
    d = {"schema_version": "1.0", "command": "audit", "mode": "sampler", **a.as_dict()}
    _strict(json.dumps(d, allow_nan=False))
    validate("audit", d)
    assert d["statistic"] is None and d["statistic_exact"] == "inf"
    assert d["impossible"] == [0.5, None, None, None] and d["impossible_exact"] == [None, "inf", "-inf", "nan"]


def test_audit_map_infinite_level_is_null_with_inf_beside_it():
    from dpexact.audit.maps import PointResult

    p = PointResult({"epsilon": 1}, "epsilon", 1.0, 2.0, math.inf, "anti-conservative", -math.inf, "stub")
    d = p.as_dict()
    assert (d["level_upper"], d["level_upper_exact"], d["slack"], d["slack_exact"]) == (None, "inf", None, "-inf")
    assert d["level_lower"] == 2.0 and "level_lower_exact" not in d
    doc = {"schema_version": "1.0", "command": "audit", "mode": "map", "target": "stub", "verdict": "anti-conservative",
           "counts": {}, "points": [d], "errors": [], "seconds": 0.0}
    validate("audit", doc)


def test_a_stray_infinity_is_refused_not_printed():
    """emit_json refuses a non-finite float (a writer that forgot the rule) instead of printing ``Infinity``."""
    from dpexact.cli.common import emit_json

    with pytest.raises(ValueError):
        emit_json({"x": math.inf}, True, None, command="verify")
    emit_json({"x": None}, False, None, command="verify")  # null is fine


def test_bracket_ends_exactly_beside_their_floats():
    from dpexact.verification.bracket import EpsilonBracket, Proof, Witness

    up = Proof(math.log(3), "theorem", {"n": "every", "scores": "R^n"}, upper="log(3)")
    d = EpsilonBracket(None, up).as_dict()
    assert (d["lower_float"], d["lower_exact"], d["upper_float"], d["upper_exact"]) == (0.0, "0", math.log(3), "log(3)")
    assert d["relative_width"] is None and d["relative_width_exact"] == "inf"  # no witness below
    w = Witness(math.log(2), ("0",), ("1",), 0, "exact", lower="log(2)")
    d = EpsilonBracket(w, None).as_dict()
    assert (d["lower_float"], d["lower_exact"], d["upper_float"], d["upper_exact"]) == (math.log(2), "log(2)", None, "inf")
    d = EpsilonBracket(w, up).as_dict()
    assert d["relative_width"] == pytest.approx((math.log(3) - math.log(2)) / math.log(3)) and "relative_width_exact" not in d


def test_bench_peers_row_with_an_unbounded_level_is_null_with_inf_beside_it():
    from dpexact.suites.peers import PeerRow
    from dpexact.verification.bracket import EpsilonBracket, Witness

    w = Witness(math.inf, ("0",), ("1",), "FFT", "ball:256", lower="inf", unbounded=True)
    half = EpsilonBracket(None, None).as_dict()  # neither end: the width is infinite
    for bracket, width, width_exact in ((EpsilonBracket(w, None).as_dict(), 0.0, None), (half, None, "inf")):
        row = PeerRow("s", "n", "svt5", {"epsilon": "1"}, "1", "not-private", "violated", True, math.inf, 0.1, None,
                      level="inf", epsilon_bracket=bracket)
        d = row.as_dict() | row.bracket_columns()
        assert d["worst_log_ratio"] is None and d["worst_log_ratio_exact"] == "inf"
        assert d["relative_width"] == width and d.get("relative_width_exact") == width_exact
        validate("bench-peers", {"schema_version": "1.0", "command": "bench-peers", "rows": [d]})
        _strict(json.dumps(d, allow_nan=False, default=str))


def test_sweep_table_cell_shows_the_exact_text_of_a_null_ratio():
    from dpexact.sweep.report import _cell

    assert _cell("verify", {"verdict": "violated", "worst_log_ratio": None, "worst_log_ratio_exact": "inf"}, None) == "violated inf"
    assert _cell("verify", {"verdict": "violated", "worst_log_ratio": 1.25}, None) == "violated 1.25"
    assert _cell("verify", {"verdict": "violated", "worst_log_ratio": "inf"}, None) == "violated inf"  # stored before #36
    assert _cell("verify", {"verdict": "private", "delta": "1/10", "worst_delta": None, "worst_delta_exact": "nan"},
                 None) == "private δ(ε)≈nan"


def test_pmf_relative_error_without_a_finite_bound_is_null_with_inf_beside_it():
    # EM at ε = 1e400 in ball arithmetic: the pmf is exact-ish, but its stated relative error is not finite
    d = _json(["pmf", "-m", "em", "-e", "1e400", "-q", "1,0", "-b", "ball"], "pmf")
    assert d["pmf_rel_error"] is None and d["pmf_rel_error_exact"] == "inf"
    f = _json(["pmf", "-m", "em", "-e", "1", "-q", "1,0", "-b", "float"], "pmf")
    assert isinstance(f["pmf_rel_error"], float) and "pmf_rel_error_exact" not in f
