"""Shared helpers of the paper modules: mechanisms, ball numbers, random score vectors, data."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

#: ε with e^{ε/2} = 2: on integer scores every PF/EM coin p_r = 2^(q_r - q*) is rational,
#: so the exact backend works in fmpq.
EPS_RATIONAL_COINS = "2*log(2)"


def mech(name: str, epsilon: Any, sensitivity: Any = 1, monotone: bool = False) -> Any:
    import dpexact

    return dpexact.mechanism(name, epsilon=epsilon, sensitivity=sensitivity, monotone=monotone)


def arb_of(x: Any, prec: int = 128) -> Any:
    """A rigorous ball for an exact number (str / int / Fraction / sympy) at ``prec`` bits."""
    from dpexact.numbers import Real

    return Real.of(x).to_arb(prec)


def random_scores(rng: np.random.Generator, n: int, spread: float = 6.0, denominator: int = 8) -> list[str]:
    """``n`` exact rational scores ``-k/denominator`` (strings) with maximum 0 at a random place."""
    ks = rng.integers(0, int(spread * denominator) + 1, size=n)
    ks[rng.integers(0, n)] = 0
    return [f"-{int(k)}/{denominator}" if k else "0" for k in ks]


def dpbench_candidates() -> list[Path]:
    """Where the DPBench folder may be: ``$DPEXACT_DPBENCH`` alone if set; else
    ``../shared/data/dpbench`` next to the repository, then the same place next to the repository
    this checkout was cloned from (a fresh CI clone)."""
    import subprocess

    env = os.environ.get("DPEXACT_DPBENCH")
    if env:
        return [Path(env)]
    repo = Path(__file__).resolve().parents[1]
    relative = Path("shared") / "data" / "dpbench"
    out = [repo.parent / relative]
    try:
        origin = subprocess.run(["git", "-C", str(repo), "config", "--get", "remote.origin.url"],
                                capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        origin = ""
    if origin and "://" not in origin:
        out.append(Path(origin).resolve().parent / relative)
    return out


def dpbench_directory() -> Path | None:
    """The first of :func:`dpbench_candidates` holding the DPBench files, else ``None``."""
    for c in dpbench_candidates():
        if (c / "HEPTH.n4096.npy").exists():
            return c
    return None


def rounds_to(value: float, stated: float, decimals: int) -> bool:
    """Whether ``value`` agrees with a number the paper states to ``decimals`` decimals."""
    return abs(value - stated) <= 0.5 * 10.0 ** (-decimals) + 1e-12


def sorted_zero_sum_partial_sums(quick: bool) -> tuple[int, list[list[str]], str]:
    """pf Lemma 5 (= err Lemma 4): every partial sum of a sorted zero-sum vector is ≤ 0, checked
    exactly on random rational vectors. Returns (partial sums checked, counterexamples, scope)."""
    from fractions import Fraction

    rng = np.random.default_rng(7)
    checked, bad = 0, []
    for _ in range(200 if quick else 2000):
        n = int(rng.integers(1, 12))
        f = sorted(Fraction(int(v), 7) for v in rng.integers(-50, 51, size=n))
        mean = sum(f, Fraction(0)) / n
        f = [x - mean for x in f]  # still sorted, sums to 0
        s = Fraction(0)
        for x in f:
            s += x
            checked += 1
            if s > 0:
                bad.append([str(v) for v in f])
                break
    return checked, bad, f"exact rationals: {checked} partial sums of random sorted zero-sum vectors, n ≤ 11"
