"""An option a command cannot honour for the mechanism (or the other options) is a one-line error
naming it — never silently ignored (verify --neighbourhood box:2 on the Laplace mechanism was
answered for Δ = 1; --neighbourhood garbage:xyz exited 0)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

import dpexact
from dpexact.cli.main import app
from dpexact.mechanisms.registry import available
from dpexact.verification.options import OPTION_FLAGS
from dpexact.verification.claim import read_claim
from dpexact.verification.kinds import kind_of
from dpexact.verification.routes import plan

runner = CliRunner()


def _refused(args: list[str], flag: str) -> None:
    res = runner.invoke(app, args)
    assert res.exit_code == 2, res.output
    assert res.output.startswith(f"error: {flag}") and res.output.count("\n") == 1, res.output


@pytest.mark.parametrize("args,flag", [
    (["verify", "-m", "noisy-hist", "-e", "1", "--neighbourhood", "box:2", "--n", "1"], "--neighbourhood"),
    (["verify", "-m", "laplace", "-e", "1", "--neighbourhood", "box:1,2"], "--neighbourhood"),
    (["verify", "-m", "laplace", "-e", "1", "--neighbourhood", "monotone:1"], "--neighbourhood"),
    (["verify", "-m", "svt1", "-e", "1", "-p", "threshold=1", "--neighbourhood", "box:2"], "--neighbourhood"),
    (["verify", "-m", "laplace", "-e", "1", "--search", "grid"], "--search"),
    (["verify", "-m", "laplace", "-e", "1", "--values", "0,1"], "--values"),
    (["verify", "-m", "pf", "-e", "1", "--relation", "one-differ", "--neighbourhood", "box:2"], "--neighbourhood"),
    (["verify", "-m", "pf", "-e", "1", "--relation", "one-differ", "--steps", "2"], "--steps"),
    (["verify", "-m", "rappor", "--n", "3"], "--n"),
    (["verify", "-m", "svt4", "-e", "1/10", "--n", "3", "-p", "threshold=1", "--steps", "2"], "--steps"),
    (["verify", "-m", "noisy-max-value", "-e", "1", "--search", "random"], "--search"),
    (["verify", "-m", "pf", "-e", "1", "--delta", "1/100", "--search", "local"], "--search local"),
    (["verify", "-m", "laplace", "-e", "1", "--delta", "1/100", "--steps", "2"], "--steps"),
    (["prob", "-m", "laplace", "-e", "1", "-q", "0", "--box", "0:1", "--pattern", "TT"], "--pattern"),
    (["ldp", "-m", "grr", "-N", "4", "-e", "1", "--brr-m", "2"], "--brr-m"),
    (["ldp", "-m", "em", "-N", "4", "-e", "1", "--m-rule", "closed-form"], "--m-rule"),
    (["delta", "--p-pmf", "1/2,1/2", "--q-pmf", "1/4,3/4", "-e", "1", "--sensitivity", "3"], "--sensitivity"),
    (["bench", "--data", "/nonexistent"], "--data"),
    (["optimal", "--n", "3", "--k", "3", "-e", "1", "--no-crossover", "--method", "simplex"], "--no-crossover"),
    (["check", "--quick", "--claim", "pf.lemma.1", "--workers", "2", "--scheduler", "tcp://127.0.0.1:1"], "--workers"),
])
def test_unhonoured_option_is_refused(args: list[str], flag: str) -> None:
    _refused(args, flag)


@pytest.mark.parametrize("radius,n,verdict,level", [("2", "1", "violated", 2.0), ("1/2", "1", "private", 0.5),
                                                    ("2", "3", "violated", 6.0), ("1/3", "3", "private", 1.0)])
def test_laplace_box_neighbourhood_is_honoured(radius: str, n: str, verdict: str, level: float) -> None:
    """Laplace noise of scale b = Δ/ε = 1 on n queries, all moving by up to Δ': the level is n·Δ'/b
    (the sum of the shifts over the scale), so box:2 at n = 1 is refused at ε = 1; box:1/2 and box:1/3 at
    n = 3 are proved by the density-ratio theorem on the box asked for (level 1/2 and exactly 1 = ε)."""
    import json

    res = runner.invoke(app, ["verify", "-m", "laplace", "-e", "1", "--neighbourhood", f"box:{radius}", "--n", n, "--json"])
    assert res.exit_code in (0, 1, 3), res.output
    d = json.loads(res.stdout)
    assert d["verdict"] == verdict and d["worst_log_ratio"] == pytest.approx(level, rel=1e-12)
    assert d["neighbourhood"].endswith(f"<= {radius}")
    res = runner.invoke(app, ["verify", "-m", "laplace", "-e", "1", "--neighbourhood", "garbage:xyz"])
    assert res.exit_code == 2 and res.output.startswith("error: neighbourhood 'garbage:xyz'"), res.output


def test_honoured_options_still_work() -> None:
    res = runner.invoke(app, ["verify", "-m", "pf", "-e", "1", "--n", "2", "--neighbourhood", "box:2", "--search", "grid",
                              "--values", "0,1", "--json"])
    assert res.exit_code == 1 and '"verdict": "violated"' in res.output, res.output  # ε = 1 is not enough for Δ = 2 (exit 1: violated)
    res = runner.invoke(app, ["ldp", "-m", "brr", "-N", "4", "-e", "1", "--brr-m", "2", "--json"])
    assert res.exit_code == 0 and '"m": 2' in res.output, res.output
    res = runner.invoke(app, ["delta", "--gaussian", "1", "--sensitivity", "2", "-e", "1", "--json"])
    assert res.exit_code == 0, res.output


def test_api_refuses_too() -> None:
    with pytest.raises(ValueError, match="--neighbourhood: not supported"):
        dpexact.verify(dpexact.mechanism("rappor"), neighbourhood="box:2")


@pytest.mark.parametrize("name", available())
def test_every_route_declares_its_options(name: str) -> None:
    """Every registered mechanism reaches a verifier that declares what it honours (and n, the most
    common option, is honoured wherever the verifier takes a size)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from registered_mechanisms import build

    m = build(name)
    for relation in (None, "all-differ"):
        for delta in (None, "1/100"):
            claim, request = read_claim(m, selection=kind_of(m).selection, relation=relation, delta=delta)
            honoured, what = plan(claim, request).honours(claim, request)
            assert honoured <= set(OPTION_FLAGS) and what
            if delta is not None:
                assert "delta" in honoured
