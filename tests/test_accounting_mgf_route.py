"""The MGF route (accounting/mgf_route) against the grid route: two independent certified methods (exact composition
with a bounded inversion, and proved discretisations composed by FFT) must give intersecting intervals, and the MGF
route's own parts must each matter (mutations)."""

from __future__ import annotations

import math

import pytest

from dpexact import Accountant
from dpexact.accounting import accountant as accountant_mod
from dpexact.accounting import mgf_route
from dpexact.accounting.events import event_from_dict


def _acc(sigma: str, q: str, T: int) -> Accountant:
    return Accountant([{"kind": "gaussian", "sigma": sigma, "poisson": q, "count": T}], max_seconds=60)


def _grid(monkeypatch, fn, *args):
    monkeypatch.setattr(accountant_mod, "MGF_FIRST", False)
    try:
        return fn(*args)
    finally:
        monkeypatch.setattr(accountant_mod, "MGF_FIRST", True)


@pytest.mark.parametrize("sigma,q,T,delta", [("2", "1/1000", 100, "1e-5"), ("1", "1/100", 1000, "1e-10"),
                                             ("2", "1/10", 100, "1e-18"), ("0.8", "1/100", 10000, "1e-5"),
                                             ("3", "1/7", 50, "1e-12"), ("1.5", "3/10", 20, "1e-6"),
                                             ("5", "9/10", 1000, "1e-9")])
def test_epsilon_meets_tolerance_and_agrees_with_the_grid(monkeypatch, sigma, q, T, delta):
    tol = 1e-6 if T <= 1000 else 1e-4
    acc = _acc(sigma, q, T)
    mgf = acc.epsilon_for_delta(delta, tol)
    assert mgf.detail["route"] == "mgf", mgf.detail.get("mgf_refused")
    assert (mgf.upper - mgf.lower) <= tol * mgf.upper
    grid = _grid(monkeypatch, acc.epsilon_for_delta, delta, 1e-4)
    assert "route" not in grid.detail or grid.detail["route"] != "mgf"
    assert mgf.lower <= grid.upper and grid.lower <= mgf.upper, (mgf, grid)


@pytest.mark.parametrize("sigma,q,T,eps", [("2", "1/1000", 1000, "0.09"), ("1", "1/10", 100, "5")])
def test_delta_agrees_with_the_grid(monkeypatch, sigma, q, T, eps):
    acc = _acc(sigma, q, T)
    mgf = acc.delta_for_epsilon(eps, 1e-6)
    assert mgf.detail["route"] == "mgf", mgf.detail.get("mgf_refused")
    grid = _grid(monkeypatch, acc.delta_for_epsilon, eps, 1e-3)
    assert mgf.lower <= grid.upper and grid.lower <= mgf.upper, (mgf, grid)
    assert (mgf.upper - mgf.lower) <= 1e-6 * mgf.upper


def test_refused_laws_go_to_the_grid_with_the_reason():
    """σ = 0.5, q = 1/1000: one step's loss is nearly a point mass, |m(c + it)| hardly decays — refused, grid answers."""
    enc = _acc("0.5", "1/1000", 100).epsilon_for_delta("1e-5", 1e-3)
    assert enc.detail.get("route") != "mgf"
    assert "mgf_refused" in enc.detail and "nodes" in enc.detail["mgf_refused"]


def test_few_steps_are_not_routed():
    ev = event_from_dict({"kind": "gaussian", "sigma": "1", "poisson": "1/100", "count": mgf_route.MIN_COUNT - 1})
    assert mgf_route.mgf_laws([ev], ("remove", "add")) is None


def _side_and_grid(monkeypatch, eps: float):
    ev = event_from_dict({"kind": "gaussian", "sigma": "2", "poisson": "1/100", "count": 100})
    law, T = mgf_route.mgf_laws([ev], ("remove",))["remove"]
    (mu, r), _ = mgf_route._ends(law)
    acc = Accountant([{"kind": "gaussian", "sigma": "2", "poisson": "1/100", "count": 100}], direction="remove")
    grid = _grid(monkeypatch, acc.delta_for_epsilon, eps, 1e-4)
    return mu, r, T, grid


def test_window_mass_is_counted(monkeypatch):
    """A window cut at 50 δ of outside mass: the bulk alone is far below δ, and only the T·|ν_O| term keeps the upper
    end above the grid's lower end; without it (mutation) the upper end falls below."""
    eps = 0.19
    mu, r, T, grid = _side_and_grid(monkeypatch, eps)
    monkeypatch.setattr(mgf_route, "WINDOW_ETA", 50.0)
    side = mgf_route._side(mu, r, True, T, grid.lower, eps)
    assert not isinstance(side, str), side
    lo, hi, _ = side.delta(eps)
    assert lo <= grid.upper and grid.lower <= hi
    side.out = 0.0
    _, hi0, _ = side.delta(eps)
    assert hi0 < grid.lower


def test_cli_reports_the_route(tmp_path):
    from typer.testing import CliRunner

    from dpexact.cli.main import app

    spec = tmp_path / "s.toml"
    spec.write_text('[[event]]\nkind = "gaussian"\nsigma = "2"\nsensitivity = "1"\ncount = 100\npoisson = "1/1000"\n')
    res = CliRunner().invoke(app, ["account", str(spec), "-d", "1e-5", "--tolerance", "1e-6", "--json"])
    assert res.exit_code == 0, res.output
    import json

    doc = json.loads(res.output)
    assert doc["route"] == "mgf" and doc["tolerance_met"] is True
    lo, hi = doc["epsilon"]["lower"], doc["epsilon"]["upper"]
    assert lo <= 0.0146294068552 and 0.0146294006838 <= hi  # the v12 table's certified grid interval
    assert math.isfinite(hi)


@pytest.mark.parametrize("event,direction", [
    ({"kind": "gaussian", "sigma": "2", "without_replacement": "1/100", "count": 1000}, "both"),
    ({"kind": "gaussian", "sigma": "4", "sensitivity": "2", "poisson": "1/100", "count": 1000}, "add"),
    ({"kind": "gaussian", "sigma": "2", "poisson": "1/100", "count": 1000}, "remove")])
def test_one_direction_and_other_event_forms_agree_with_the_grid(monkeypatch, event, direction):
    acc = Accountant([event], direction=direction, max_seconds=60)
    mgf = acc.epsilon_for_delta("1e-10", 1e-6)
    assert mgf.detail["route"] == "mgf", mgf.detail.get("mgf_refused")
    assert set(mgf.detail["directions"]) == ({"remove", "add"} if direction == "both" else {direction})
    grid = _grid(monkeypatch, acc.epsilon_for_delta, "1e-10", 1e-5)
    assert mgf.lower <= grid.upper and grid.lower <= mgf.upper, (mgf, grid)
