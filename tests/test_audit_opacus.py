"""The Opacus adapter against the real library (no mocks): the optimizer's Gaussian noise against
N(0, std²), and its accountants against the certified ε(δ) of T Poisson-subsampled Gaussians.

The independent reference is the closed form of one subsampled Gaussian step (T = 1): with
P0 = N(0, σ²), P1 = N(1, σ²), M = (1 − q)P0 + qP1, the likelihood ratio M/P0 is monotone in x,
so each direction's hockey stick is a difference of normal tails at the threshold x*.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import warnings

import mpmath
import opacus  # noqa: F401  (in the test extra: missing it fails, never a skip)
import pytest

from dpexact.audit.adapters.base import MapPoint, SamplerSpec
from dpexact.audit.maps import evaluate_point, recheck
from dpexact.schemas import validate


def _delta_one_step(sigma: float, q: float, eps: mpmath.mpf) -> mpmath.mpf:
    """δ(ε) of one Poisson-subsampled Gaussian step, max over the remove and add directions (closed form)."""
    s, q, e = mpmath.mpf(sigma), mpmath.mpf(q), mpmath.mpf(eps)
    phi = mpmath.ncdf
    x = s**2 * mpmath.log((mpmath.exp(e) - (1 - q)) / q) + mpmath.mpf(1) / 2  # remove: H(M || P0)
    rem = (1 - q) * phi(-x / s) + q * phi(-(x - 1) / s) - mpmath.exp(e) * phi(-x / s)
    add = mpmath.mpf(0)
    if mpmath.exp(-e) > 1 - q:  # add: H(P0 || M), the ratio P0/M exceeds e^ε below x*
        x = s**2 * mpmath.log((mpmath.exp(-e) - (1 - q)) / q) + mpmath.mpf(1) / 2
        add = phi(x / s) - mpmath.exp(e) * ((1 - q) * phi(x / s) + q * phi((x - 1) / s))
    return max(rem, add)


def _eps_one_step(sigma: float, q: float, delta: float) -> mpmath.mpf:
    with mpmath.workdps(50):
        lo, hi = mpmath.mpf(0), mpmath.mpf(50)
        for _ in range(150):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if _delta_one_step(sigma, q, mid) > delta else (lo, mid)
        return hi


def _accountant(name: str, sigma: float, q: float, steps: int) -> object:
    from opacus import accountants

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        acc = {"RDP": accountants.RDPAccountant, "PRV": accountants.PRVAccountant, "GDP": accountants.GaussianAccountant}[name]()
    for _ in range(steps):
        acc.step(noise_multiplier=sigma, sample_rate=q)
    return acc


def _point(claimed: float, sigma: float, q: float, steps: int, delta: float) -> MapPoint:
    return MapPoint({}, "epsilon-for-delta", claimed, "subsampled-gaussian", {"sigma": sigma, "sample_rate": q, "sensitivity": 1},
                    compositions=steps, delta=delta)


@pytest.mark.parametrize("sigma,q", [(1.0, 0.1), (2.0, 0.01)])
def test_certified_level_holds_the_closed_form_of_one_step(sigma, q):
    ref = _eps_one_step(sigma, q, 1e-5)
    r = evaluate_point(_point(0.0, sigma, q, 1, 1e-5), "t")
    assert r.level_lower <= ref <= r.level_upper and r.level_upper - r.level_lower < 1e-3 * r.level_upper


def test_gdp_accountant_is_anti_conservative_and_its_witness_replays():
    sigma, q, delta = 1.0, 0.1, 1e-5
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        claimed = _accountant("GDP", sigma, q, 1).get_epsilon(delta)
    # independently of dpexact: at Opacus's ε the true δ of one step is far above the δ asked
    assert _delta_one_step(sigma, q, mpmath.mpf(claimed)) > 100 * delta
    r = evaluate_point(_point(claimed, sigma, q, 1, delta), "opacus")
    assert r.status == "anti-conservative" and r.witness["delta"] == repr(delta) and recheck(r.witness)
    # mutations: a claim above the level, or a noisier mechanism, and the witness no longer holds
    assert not recheck({**r.witness, "claimed": repr(r.level_upper * (1 + 1e-6))})
    assert not recheck({**r.witness, "law_params": {**r.witness["law_params"], "sigma": 4.0}})
    # the RDP accountant, same point: conservative
    rdp = _accountant("RDP", sigma, q, 1).get_epsilon(delta)
    assert evaluate_point(_point(rdp, sigma, q, 1, delta), "opacus").status == "conservative"


def test_prv_bracket_meets_the_certified_enclosure_at_100_steps():
    """Opacus's own PRV (Gopi et al.) error bars, an independent FFT accountant, against dpexact's."""
    sigma, q, steps, delta = 1.0, 0.01, 100, 1e-5
    acc = _accountant("PRV", sigma, q, steps)
    lo, _, hi = acc._get_dprv(eps_error=0.01, delta_error=delta / 1000).compute_epsilon(delta, delta / 1000, 0.01)
    r = evaluate_point(_point(acc.get_epsilon(delta), sigma, q, steps, delta), "opacus")
    assert lo <= r.level_upper and r.level_lower <= hi and r.status == "conservative"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gdp = _accountant("GDP", sigma, q, steps).get_epsilon(delta)
    assert gdp < lo  # the GDP value is below PRV's lower error bar too


@pytest.mark.parametrize("name", ["RDP", "PRV"])
def test_negative_epsilon_at_large_delta(name):
    sigma, q, delta = 10.0, 0.01, 0.1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        claimed = _accountant(name, sigma, q, 1).get_epsilon(delta)
    assert claimed < 0
    with mpmath.workdps(40):  # ε(δ) = 0: the total variation δ(0) is below δ (closed form)
        assert _delta_one_step(sigma, q, mpmath.mpf(0)) < delta
    r = evaluate_point(_point(claimed, sigma, q, 1, delta), "opacus")
    assert r.status == "anti-conservative" and r.level_lower == 0 and "outside the definition's range (δ >= 1 − e^ε)" in r.route
    assert delta >= -math.expm1(claimed)  # as a hockey-stick bound at e^ε < 1 the whole space does not refute it


def test_samplers_conform_and_a_wrong_std_is_detected():
    from dpexact.audit.adapters import opacus as ad
    from dpexact.audit.sampler import audit_sampler

    for call in ad.SAMPLERS:
        r = audit_sampler(f"opacus:{call}", tv=0.05, alpha=0.001, seed=3)
        assert r.verdict == "conforms", (call, r.p_value)
        validate("audit", json.loads(json.dumps({"schema_version": "1.0", "command": "audit", "mode": "sampler", **r.as_dict()})))
    spec = ad.SAMPLERS["DPOptimizer"]
    wrong = SamplerSpec("DPOptimizer", spec.summary, spec.defaults, lambda p: ad.laws.gaussian(1.15 * ad._std(p)), spec.draw,
                        floating=True, seedable=True)
    r = audit_sampler("opacus:DPOptimizer", spec=wrong, library=ad.load(), tv=0.05, alpha=0.001, seed=3)
    assert r.verdict == "does not conform"


def test_map_audit_on_a_small_grid_with_the_real_library(tmp_path):
    from dpexact.audit.maps import audit_map

    grid = [{"noise_multiplier": 2.0, "sample_rate": 0.1, "steps": 10, "delta": 1e-5},
            {"noise_multiplier": 10.0, "sample_rate": 0.01, "steps": 1, "delta": 0.1}]
    m = audit_map("opacus:GaussianAccountant", grid)
    doc = {"schema_version": "1.0", "command": "audit", "mode": "map", **m.as_dict()}
    validate("audit", json.loads(json.dumps(doc)))
    # the GDP accountant's root bracket fails where ε(δ) = 0: listed under errors, not dropped
    assert [p.status for p in m.points] == ["anti-conservative"] and len(m.errors) == 1
    f = tmp_path / "map.json"
    f.write_text(json.dumps(doc))
    # replayed with torch and opacus made unimportable: the record alone suffices
    code = ("import sys; sys.modules['torch'] = None; sys.modules['opacus'] = None\n"
            f"from dpexact.cli.main import app; app(['replay', {str(f)!r}, '--json'])")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["witnesses"] == out["holding"] == 1


def test_missing_library_is_one_line_naming_the_extra():
    code = ("import sys; sys.modules['opacus'] = None\n"
            "from dpexact.cli.main import app; app(['audit', 'map', 'opacus:RDPAccountant'])")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "dpexact[audit]" in r.stderr and "Traceback" not in r.stderr


def test_bug_replay_recreations_match_the_library():
    """The suite's `opacus-gdp-clt` GDP formula equals Opacus's GaussianAccountant; its RDP bound at integer
    orders is above Opacus's RDP (fractional orders too, Balle et al.'s sharper conversion)."""
    from dpexact.suites.audit import _sgm_eval

    for sigma, steps in ((1.0, 1), (2.0, 10), (0.7, 100)):
        p = {"sigma": sigma, "q": 0.1, "steps": steps, "delta": 1e-5}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            gdp = _accountant("GDP", sigma, 0.1, steps).get_epsilon(1e-5)
        assert _sgm_eval(True)(None, p).claimed == pytest.approx(gdp, rel=1e-9)
        assert _sgm_eval(False)(None, p).claimed >= _accountant("RDP", sigma, 0.1, steps).get_epsilon(1e-5)
