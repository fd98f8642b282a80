"""Text output is text: no dict reprs (conform's parameters, a proof's domain), formulas never broken
across lines, the LP's size said once by ``optimal``."""

import re

from typer.testing import CliRunner

from dpexact.cli.main import app
from dpexact.cli.text import unbroken, wrap

runner = CliRunner()


def test_unbroken_formulas_wrap_around_not_inside():
    text = "a " * 30 + unbroken("Σ E[err(M)] / Σ E[err(M*)]") + " b" * 10
    lines = wrap(text, 40)
    assert all(len(x) <= 40 for x in lines)
    assert any("Σ E[err(M)] / Σ E[err(M*)]" in x for x in lines) and not any("\u00a0" in x for x in lines)
    plain = wrap(text.replace("\u00a0", " "), 40)  # the same text without protection does break inside
    assert not any("Σ E[err(M)] / Σ E[err(M*)]" in x for x in plain)


def test_optimal_says_the_lp_size_once_and_keeps_formulas_whole():
    for cols in ("80", "60"):
        r = runner.invoke(app, ["optimal", "--n", "4", "--k", "4", "--epsilon", "0.5"], env={"COLUMNS": cols})
        assert r.exit_code == 0, r.output
        both = r.stdout + r.stderr
        assert len(re.findall(r"\d+ variables", both)) == 1
        lines = r.stdout.splitlines()
        assert all(len(x) <= int(cols) for x in lines)
        assert any("Σ_q E[err(M*, q)] = 466.3552570" in x for x in lines)
        assert any("Σ E[err(M)] / Σ E[err(M*)]" in x for x in lines)


def test_conform_prints_parameters_as_text():
    r = runner.invoke(app, ["conform", "pf", "--draws", "500"], env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.output
    first = r.stdout.splitlines()[0]
    assert first == "pf epsilon = 1, sensitivity = 1, monotone = no"
    assert "{" not in r.stdout and all(len(x) <= 80 for x in r.stdout.splitlines())


def test_verify_prints_the_proof_domain_as_text():
    r = runner.invoke(app, ["verify", "-m", "svt1", "-e", "1"], env={"COLUMNS": "100"})
    assert r.exit_code == 0, r.output
    flat = " ".join(r.stdout.split())
    assert "{'" not in flat and "on scores R^n; every n;" in flat
