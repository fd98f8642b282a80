"""Cost model of the LDP channel computations (``dpexact ldp``, ``dpexact optimal-ldp``).

``dpexact ldp`` builds an N×N channel (GRR, BRR or EM, brr eqs. 5–7) and evaluates Q_g
(eq. 11), QLoss (eq. 12) and the largest column ratio: every stage is O(N²) entries, each in
the backend's arithmetic; the exact EM channel is the exception, its entries are sympy sums of
N exponentials, so time and memory grow like N³.

Measured on the 2-core, 23 GiB development machine (2026-11-25): CPU seconds
(``time.process_time``, single-threaded, i.e. wall time on an idle machine) of the whole
computation (loss matrix, channel, Q_g, QLoss, largest column ratio), ε = 1, absolute loss:

==========  ==========================================  =====================================
backend     measured (CPU s, peak RSS)                  model
==========  ==========================================  =====================================
float       N = 800: EM 2.6, GRR 1.5, BRR 2.6 + 0.75    6e-6·N² s, 150 B per entry
            (search); 106–152 MB
ball        EM 3.2 / 12.1 at N = 400 / 800 (242 MB);    EM 2e-5·N², GRR and BRR 1e-5·N² s
            GRR 3.7, BRR 4.9 + 0.76 at N = 800          (× bits/128 above 128 bits),
                                                        270 B per entry
exact       GRR 1.4 / 4.7 at N = 50 / 100; BRR 4.8 +    GRR, BRR: 0.5 + 5e-4·N² s, 1 kB/entry;
            0.35 at N = 100; EM 2.0 / 4.7 / 9.7 at      EM: 2·(N/10)^2.3 s up to N = 20, then
            N = 10 / 15 / 20 (84 MB), and at N = 25     ×(N/20)^12 (sympy sums of N
            > 203 s and ~950 MB (killed)                exponentials stop simplifying)
==========  ==========================================  =====================================

``optimal-ldp`` (an LP with N²·M rows, HiGHS, then an exact certificate): 0.8 / 1.0 / 2.4 s
CPU and 113 / 132 / 199 MB at N = 10 / 20 / 30 -> ``0.7 + 1.65·(N/30)^4.2`` s,
``80 MB + 4 kB·N³``; N is capped at :data:`.optimal_channel.MAX_LP_DOMAIN` anyway.
"""

from __future__ import annotations


from ..cost_limits import CostEstimate
from ..protocols import Backend
from .losses import check_domain

__all__ = ["estimate_channel_cost", "estimate_optimal_ldp_cost"]

_BASE_BYTES = 80e6
_FLOAT = (6e-6, 150.0)
_BALL = {"em": 2e-5, "grr": 1e-5, "brr": 1e-5}
_BALL_BYTES = 270.0
_EXACT_RR = (0.5, 5e-4, 1000.0)


def _backend_name(backend: str | Backend) -> tuple[str, int]:
    from ..numbers.backends import get_backend

    be = get_backend(backend)
    bits = be.prec if be.is_ball else 128
    return be.name, bits


def estimate_channel_cost(mechanism: str, domain: int, backend: str | Backend = "ball") -> CostEstimate:
    """Estimated time and memory of one ``dpexact ldp`` run (channel, Q_g, QLoss, LDP ratio).

    Args:
        mechanism: ``"grr"``, ``"brr"`` or ``"em"``.
        domain: N (the channel is N×N).
        backend: ``"float"``, ``"ball[:bits]"`` or ``"exact"``.
    """
    n = check_domain(domain)
    if mechanism not in ("grr", "brr", "em"):
        raise ValueError(f"mechanism must be grr, brr or em, got {mechanism!r}")
    name, bits = _backend_name(backend)
    entries = float(n) * n
    if name == "float":
        secs, mem, model = _FLOAT[0] * entries, _FLOAT[1] * entries, "float: 6e-6 s per entry"
    elif name == "ball":
        secs = _BALL[mechanism] * entries * max(1.0, bits / 128)
        mem, model = _BALL_BYTES * entries, f"ball: {_BALL[mechanism]:g} s per entry at 128 bits"
    elif name == "exact" and mechanism == "em":
        secs = 2.0 * (n / 10) ** 2.3 * (max(1.0, n / 20) ** 12)
        mem = 5e3 * entries + (0.0 if n <= 20 else 0.8e9 * (n / 25) ** 6)
        model = "exact EM: 2·(N/10)^2.3 s, ×(N/20)^12 beyond N = 20"
    elif name == "exact":
        secs = _EXACT_RR[0] + _EXACT_RR[1] * entries
        mem, model = _EXACT_RR[2] * entries, "exact: 0.5 + 5e-4·N² s"
    else:
        raise ValueError(f"backend must be float, ball[:bits] or exact for channels, got {backend!r}")
    return CostEstimate(f"ldp {mechanism} N = {n}, backend {name}", _BASE_BYTES + mem, secs, model)


def estimate_optimal_ldp_cost(domain: int, outputs: int | None = None) -> CostEstimate:
    """Estimated time and memory of :func:`.optimal_channel.optimal_ldp_channel` on N inputs."""
    n = check_domain(domain)
    m = n if outputs is None else int(outputs)
    size = n * n * m / n**3 if n else 1.0
    secs = (0.7 + 1.65 * (n / 30) ** 4.2) * size
    return CostEstimate(f"optimal-ldp N = {n}", _BASE_BYTES + 4e3 * n * n * m, secs,
                        "fit: 0.7 + 1.65·(N/30)^4.2 s")
