"""Errors a first-time user meets say what to do: the sampler route's signature, the valid
parameters of a mechanism, the closest mechanism names, the offline route of ``data fetch``;
and ``sample`` takes a list like ``pmf`` and ``rvs``."""

import numpy as np
import pytest
from typer.testing import CliRunner

import dpexact
from dpexact.cli.main import app

runner = CliRunner()


def test_sampler_with_the_wrong_arity_is_refused_at_definition_naming_the_signature():
    with pytest.raises(TypeError, match=r"sampler must be callable as sampler\(q, p, rng, size\)"):
        dpexact.define_mechanism("bb", sampler=lambda q, rng, size: rng.integers(0, len(q), size), epsilon=1)
    with pytest.raises(TypeError, match=r"pmf must be callable as pmf\(q, p, ops\)"):
        dpexact.define_mechanism("bb", lambda q, ops: q, epsilon=1)


def test_sampler_error_from_the_cli_is_one_error_line(tmp_path):
    f = tmp_path / "bb.py"
    f.write_text("import dpexact\nbb = dpexact.define_mechanism('bb', sampler=lambda q, rng, size: 0, epsilon=1)\n")
    r = runner.invoke(app, ["conform", f"{f}:bb"])
    assert r.exit_code == 2 and r.stderr.startswith("error:") and "sampler(q, p, rng, size)" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_sample_takes_a_list_like_pmf_and_rvs():
    m = dpexact.define_mechanism("bb", sampler=lambda q, p, rng, size: rng.integers(0, len(q), size), epsilon=1)
    a = m.sample([1, 0, 0], np.random.default_rng(3), 50)
    b = m.sample(np.array([1.0, 0, 0]), np.random.default_rng(3), 50)
    assert np.array_equal(a, b) and a.shape == (50,)
    pf = dpexact.mechanism("pf", epsilon=1)
    assert np.array_equal(pf.sample([3, 2, 0], np.random.default_rng(5), 20),
                          pf.sample(np.array([3.0, 2.0, 0.0]), np.random.default_rng(5), 20))
    with pytest.raises(ValueError):
        pf.sample([1, float("nan")], np.random.default_rng(0), 2)  # the list is validated as pmf validates it


def test_unknown_parameter_lists_the_valid_ones():
    r = runner.invoke(app, ["verify", "-m", "pf", "-e", "1", "-p", "foo=3"])
    assert r.exit_code == 2
    assert r.stderr.strip() == "error: mechanism 'pf' has no parameter 'foo'; its parameters: epsilon, sensitivity=1, monotone=False"
    assert "__init__" not in r.stderr


def test_unknown_mechanism_suggests_the_closest_names_on_one_short_line():
    r = runner.invoke(app, ["verify", "-m", "smartsum", "-e", "1"])
    line = r.stderr.strip()
    assert r.exit_code == 2 and "\n" not in line and len(line) < 120
    assert "did you mean smart-sum" in line and f"lists all {len(dpexact.available())}" in line
    r = runner.invoke(app, ["pmf", "-m", "zzzzzz", "-e", "1", "-q", "1,0"])
    assert r.exit_code == 2 and "did you mean" not in r.stderr and "unknown mechanism 'zzzzzz'" in r.stderr


def test_offline_fetch_names_the_offline_route(tmp_path):
    # port 9 (discard) on the loopback: refused at once, as an offline machine refuses
    r = runner.invoke(app, ["data", "fetch", "dpbench", "--dir", str(tmp_path / "d"), "--base-url", "http://127.0.0.1:9/x",
                            "--name", "HEPTH"])
    assert r.exit_code == 1 and r.stderr.startswith("error: cannot download")
    assert "offline" in r.stderr and "DPEXACT_DPBENCH=DIR" in r.stderr
