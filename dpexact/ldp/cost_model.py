"""Cost model of the LDP channel computations (``dpexact ldp``, ``dpexact optimal-ldp``).

``dpexact ldp`` builds an N×N channel (GRR, BRR or EM, brr eqs. 5–7) and evaluates Q_g
(eq. 11), QLoss (eq. 12) and the largest column ratio: every stage is O(N²) entries, each in
the backend's arithmetic; the exact EM channel is the exception, its entries are sympy sums of
N exponentials, so time and memory grow like N³.

Measured on the 2-core, 23 GiB development machine (2026-11-25, wall clock of the whole
computation (loss, channel, Q_g, QLoss, ratio) while other jobs shared the cores; ε = 1, absolute loss):

==========  =====================================  =====================================
backend     measured                               model
==========  =====================================  =====================================
float       EM 10.7 s, GRR 6.4 s, BRR 13.7 s       2.5e-5·N² s, 150 B per entry
            at N = 800
ball        EM 3.0 / 11.9 s at N = 400 / 800;      4e-5·N²·max(1, bits/128) s,
            GRR 25.8 s at N = 800; RSS 243 MB      270 B per entry
            (EM, N = 800)
exact       GRR 3.7 / 10.1 / 30.3 s, BRR 5.1 /     GRR, BRR: 2.5 + 3e-3·N² s, 1 kB per entry;
            11.5 / 28.2 s at N = 25 / 50 / 100;    EM: 6e-3·N^3.2 s, 64 kB·N³
            EM 2.2 / 5.8 s at N = 5 / 10, > 100 s
            and 1 GB at N = 25
==========  =====================================  =====================================

``optimal-ldp`` (an LP with N²·M rows, HiGHS, then an exact certificate): 0.8 / 1.0 / 2.4 s
CPU and 113 / 132 / 199 MB at N = 10 / 20 / 30 -> ``0.7 + 1.65·(N/30)^4.2`` s,
``80 MB + 4 kB·N³``; N is capped at :data:`.optimal_channel.MAX_LP_DOMAIN` anyway.
"""

from __future__ import annotations

from typing import Any

from ..cost_limits import CostEstimate
from .losses import check_domain

__all__ = ["estimate_channel_cost", "estimate_optimal_ldp_cost"]

_BASE_BYTES = 80e6
_FLOAT = (2.5e-5, 150.0)
_BALL = (4e-5, 270.0)
_EXACT_RR = (2.5, 3e-3, 1000.0)
_EXACT_EM = (6e-3, 3.2, 64e3)


def _backend_name(backend: Any) -> tuple[str, int]:
    from ..numbers.backends import get_backend

    be = get_backend(backend)
    bits = int(getattr(be, "prec", None) or getattr(be, "bits", None) or 128)
    return be.name, bits


def estimate_channel_cost(mechanism: str, domain: int, backend: Any = "ball") -> CostEstimate:
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
        secs, mem, model = _FLOAT[0] * entries, _FLOAT[1] * entries, "float: 2.5e-5 s per entry"
    elif name == "ball":
        secs = _BALL[0] * entries * max(1.0, bits / 128)
        mem, model = _BALL[1] * entries, "ball: 4e-5 s per entry at 128 bits"
    elif name == "exact" and mechanism == "em":
        c, p, b = _EXACT_EM
        secs, mem, model = c * n**p, b * float(n) ** 3, "exact EM: 6e-3·N^3.2 s, 64 kB·N³"
    elif name == "exact":
        secs = _EXACT_RR[0] + _EXACT_RR[1] * entries
        mem, model = _EXACT_RR[2] * entries, "exact: 2.5 + 3e-3·N² s"
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
