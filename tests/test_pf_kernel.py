"""The compiled PF quadrature (numba, quadrature_kernel.py) against the numpy route and the ball oracle:
same classes, lengths and nodes, values within the two stated bounds, every entry within its own
bound of 128-bit balls; its pairwise sums within the stated summation error; numba imported only
when the kernel runs (CLI start-up: tests/test_cli_startup.py)."""

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import dpexact
from dpexact.mechanisms.permute_and_flip import quadrature_float
from dpexact.mechanisms.permute_and_flip.quadrature_float import KERNEL_MIN_N, pf_pmf_quadrature_float

REPO = Path(__file__).resolve().parents[1]
U = 2.0**-53


def _inputs():
    rng = np.random.default_rng(37)
    yield "uniform", rng.uniform(0, 100, 1000)  # no large weight at n >= 10^4; 38 large at 10^3
    yield "uniform", rng.uniform(0, 100, 20_000)  # T < 1: every weight through the series
    yield "spread", rng.uniform(0, 5000, 5000)  # few weights near the top: large ones, node sums
    yield "ties", np.round(rng.uniform(0, 30, 4000))  # ties among the large weights: grouped
    yield "all-equal", np.zeros(700)  # every weight large and equal: one group
    yield "few-top", np.concatenate([np.full(50, 10.0), rng.uniform(-50, 0, 3000)])
    yield "small-eps", rng.uniform(0, 1e-3, 900)
    yield "odd-n", rng.uniform(0, 40, 65 + 128 * 3 + 7)  # a short last block and a short last group


def _bound(rep):
    return rep.tail_rel + rep.quadrature_rel + rep.series_rel + rep.rounding_rel


@pytest.mark.parametrize("eps", ["0.1", "1", "7"])
def test_kernel_equals_numpy_route_within_both_bounds(eps):
    m = dpexact.mechanism("pf", epsilon=eps)
    for name, q in _inputs():
        x = m._float_exponents(q)
        a_pmf, a_log, a = pf_pmf_quadrature_float(x.copy(), kernel=False)
        k_pmf, k_log, k = pf_pmf_quadrature_float(x.copy(), kernel=True)
        # the same algorithm: the same classes, series lengths and node rule
        for field in ("nodes", "n_large", "n_large_distinct", "log_terms", "series_terms"):
            assert getattr(a, field) == getattr(k, field), (name, field)
        ok = a_pmf > 1e-300
        both = _bound(a) + _bound(k)
        assert np.all(np.abs(k_pmf[ok] - a_pmf[ok]) <= both * a_pmf[ok]), name
        assert np.all(np.abs(k_log - a_log) <= 2 * both + 1e-15 * np.abs(a_log)), name
        assert math.isclose(k.max_pmf, a.max_pmf, rel_tol=both)
        assert k.rounding_rel > 0 and k.series_rel >= 0


@pytest.mark.parametrize("eps", ["0.01", "1", "7"])
def test_kernel_within_its_bound_of_balls(eps):
    """Every entry of the kernel's pmf within its stated relative bound of the 128-bit ball pmf."""
    m = dpexact.mechanism("pf", epsilon=eps)
    rng = np.random.default_rng(3)
    q = np.concatenate([[0.0, 0.0, -0.3], -rng.uniform(0, 3, 40), -rng.uniform(0, 90, 2000), -rng.uniform(500, 900, 50)])
    pmf, logpmf, rep = pf_pmf_quadrature_float(m._float_exponents(q), kernel=True)
    rel = _bound(rep) + 2.5 * U * 710
    b = m.pmf(q, backend="ball")
    mids = b.to_float()
    ok = mids >= 1e-300
    assert np.max(np.abs(pmf[ok] - mids[ok]) / mids[ok]) <= rel <= 1e-12
    logs = np.array([float(v.log().mid()) for v in b.values])
    assert np.max(np.abs(logpmf - logs) / np.maximum(1, np.abs(logs))) <= 1e-12


def test_the_default_route_is_the_kernel_from_its_threshold():
    """n >= KERNEL_MIN_N runs the kernel when numba is installed, n below it the numpy route (a spy
    on the kernel's entry)."""
    called = []
    real = quadrature_float.kernel_route()
    assert real, "numba is in the test extra: the kernel must be available"

    def spy(x, L, target):
        called.append(x.size)
        return real(x, L, target)

    saved = quadrature_float._KERNEL
    quadrature_float._KERNEL = spy
    try:
        m = dpexact.mechanism("pf", epsilon=1)
        m.pmf(np.linspace(0, 50, KERNEL_MIN_N - 1))
        m.pmf(np.linspace(0, 50, KERNEL_MIN_N))
    finally:
        quadrature_float._KERNEL = saved
    assert called == [KERNEL_MIN_N]


def test_pairwise_sums_within_the_stated_summation_error():
    """The kernel's power sums meet at most log2(n) + 15 roundings per entry (module docstring):
    against math.fsum (correctly rounded), within (bit_length(n) + 16) u of the sum, the term the
    stated bound uses."""
    from dpexact.mechanisms.permute_and_flip.quadrature_sums import power_sums as _power_sums, sum_and_squares as _sum_and_squares

    rng = np.random.default_rng(5)
    for n in (1, 7, 8, 129, 1000, 100_003):
        v = rng.uniform(0, 1, n) * np.exp(-rng.uniform(0, 30, n))
        exact = [math.fsum(v**k) for k in (1, 2, 3)]
        got = _power_sums(v, n, 3)
        s, s2 = _sum_and_squares(v)
        tol = (n.bit_length() + 16) * U
        for k in range(3):
            assert abs(got[k] - exact[k]) <= tol * exact[k] * 1.0000001, (n, k)
        assert abs(s - exact[0]) <= tol * exact[0] and abs(s2 - exact[1]) <= tol * exact[1]
    assert _power_sums(np.array([2.0, 3.0]), 2, 3).tolist() == [5.0, 13.0, 35.0]


def test_tiny_sums_and_classes_of_the_one_pass():
    """The one pass over the weights: the tiny power sums S_3..S_R over CUT < p <= p0 within
    (bit_length(n) + 16) u of math.fsum, and the other weights split exactly into medium
    (p0 < p <= p_top, in order) and large (p > p_top)."""
    from dpexact.mechanisms.permute_and_flip.quadrature_kernel import _tiny_sums_and_classify
    from dpexact.mechanisms.permute_and_flip.quadrature_rules import CUT, TINY_R

    rng = np.random.default_rng(11)
    for n in (1, 127, 128, 1000, 1025, 8 * 1024 + 5, 100_003):
        p = np.exp(-rng.uniform(0, 80, n))
        p[rng.integers(0, n, max(1, n // 50))] = 2.0**-110  # below CUT: no tiny powers
        p0, top = 0.01, 0.3
        pm, med = np.empty(n), np.empty(n, dtype=np.int64)
        St, pm_m, med_m, large = _tiny_sums_and_classify(p, CUT, p0, top, TINY_R, pm, med)
        v = np.where((p > CUT) & (p <= p0), p, 0.0)
        tol = (n.bit_length() + 16) * U
        for k in range(3, TINY_R + 1):
            exact = math.fsum(v**k)
            assert abs(St[k - 3] - exact) <= tol * exact * 1.0000001, (n, k)
        assert med_m.tolist() == np.flatnonzero((p > p0) & (p <= top)).tolist()
        assert pm_m.tolist() == p[med_m].tolist()
        assert large.tolist() == np.flatnonzero(p > top).tolist()


def test_kernel_cache_is_keyed_on_what_it_compiles_in():
    """numba's cache is keyed on the kernel's file only: the digest of the rules and constants it
    compiles in from other modules must be the one recorded there (else the cache is off), and the
    digest moves when a constant, a constant a rule reads, or a rule changes."""
    from dpexact.mechanisms.permute_and_flip import quadrature_kernel as qk, quadrature_kernel_key as key, quadrature_rules

    assert key.digest() == qk.COMPILED_INPUTS, "update COMPILED_INPUTS in quadrature_kernel.py to key.digest()"
    assert qk.CACHED
    consts = key.foreign_constants()
    assert key.digest(constants=consts | {"TINY_R": consts["TINY_R"] + 1}) != qk.COMPILED_INPUTS
    saved = quadrature_rules.KF_MAX  # read by series_lengths
    quadrature_rules.KF_MAX = saved + 1
    try:
        assert key.digest() != qk.COMPILED_INPUTS
    finally:
        quadrature_rules.KF_MAX = saved

    def threshold(k, target, T, lT, l2P, lS):  # a rule with another body
        return 0.0

    import numba

    from dpexact.mechanisms.permute_and_flip import quadrature_sums

    # every compiled function of quadrature_sums is compiled into the kernel: all of them are digested
    compiled = {v.py_func for v in vars(quadrature_sums).values() if isinstance(v, numba.core.registry.CPUDispatcher)}
    assert compiled and compiled <= set(key.FOREIGN_FUNCTIONS)
    funcs = tuple(threshold if f is quadrature_rules.threshold else f for f in key.FOREIGN_FUNCTIONS)
    assert key.digest(functions=funcs) != qk.COMPILED_INPUTS
    assert key.digest() == qk.COMPILED_INPUTS


def test_a_different_digest_turns_the_cache_off():
    """With the digest of other rules (monkeypatched before the kernel is imported), the kernel's
    functions are compiled without numba's on-disk cache; with the recorded one, with it."""
    code = ("import sys\n"
            "from dpexact.mechanisms.permute_and_flip import quadrature_kernel_key as key\n"
            "if sys.argv[1] == 'other':\n"
            "    key.digest = lambda *a, **k: 'other rules'\n"
            "from dpexact.mechanisms.permute_and_flip import quadrature_kernel as qk\n"
            "print(qk.CACHED, type(qk.pf_kernel._cache).__name__, type(qk._tiny_sums_and_classify._cache).__name__)\n")
    out = {}
    for which in ("other", "recorded"):
        r = subprocess.run([sys.executable, "-c", code, which], cwd=REPO, capture_output=True, text=True,
                           env={"PYTHONPATH": str(REPO), "PATH": ""}, check=True)
        out[which] = r.stdout.split()
    assert out["other"] == ["False", "NullCache", "NullCache"]
    assert out["recorded"][0] == "True" and out["recorded"][1] != "NullCache"


def test_kernel_off_gives_the_numpy_route_and_no_numba():
    """DPEXACT_NUMBA=0: the numpy route at n >= KERNEL_MIN_N, numba never imported, same values
    within the two bounds as the kernel's."""
    code = ("import sys, numpy as np, dpexact\n"
            "m = dpexact.mechanism('pf', epsilon=1)\n"
            "p = m.pmf(np.random.default_rng(1).uniform(0, 100, 3000))\n"
            "np.save(sys.argv[1], np.append(p.values, p.rel_error))\n"
            "print('numba' in sys.modules)\n")
    out = Path(__import__("tempfile").mkdtemp()) / "off.npy"
    r = subprocess.run([sys.executable, "-c", code, str(out)], cwd=REPO, capture_output=True, text=True,
                       env={"PYTHONPATH": str(REPO), "PATH": "", "DPEXACT_NUMBA": "0"}, check=True)
    assert r.stdout.split() == ["False"]
    off = np.load(out)
    on = dpexact.mechanism("pf", epsilon=1).pmf(np.random.default_rng(1).uniform(0, 100, 3000))
    assert np.all(np.abs(on.values - off[:-1]) <= (on.rel_error + off[-1]) * off[:-1])


def test_small_n_does_not_import_numba():
    code = ("import sys, numpy as np, dpexact\n"
            "dpexact.mechanism('pf', epsilon=1).pmf(np.linspace(0, 9, 300))\n"
            "print('numba' in sys.modules)\n")
    r = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                       env={"PYTHONPATH": str(REPO), "PATH": ""}, check=True)
    assert r.stdout.split() == ["False"]
