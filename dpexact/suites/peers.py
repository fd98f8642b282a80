"""The benchmark suites of the peer verifiers, as data, and the runner behind ``dpexact bench-peers``.

Suites and their sources:

* **StatDP** — Ding et al., "Detecting Violations of Differential Privacy", CCS 2018;
  ``cmla-psu/statdp`` ``statdp/algorithms.py``.
* **DP-Sniper** — Bichsel et al., "DP-Sniper: Black-Box Discovery of Differential Privacy
  Violations using Classifiers", S&P 2021; ``eth-sri/dp-sniper``
  ``dpsniper/experiments/exp_default.py`` (mechanisms and settings).
* **CheckDP** — Wang et al., "CheckDP: An Automated and Integrated Approach for Proving
  Differential Privacy or Finding Precise Counterexamples", CCS 2020; ``cmla-psu/checkdp``
  ``examples/*.c``.
* **DP-Auditorium** — Google, ``google/differential-privacy`` ``python/dp_auditorium``
  ``mechanisms/sparse_vector_technique.py``, ``mechanisms/noisy_max.py``.

Peer times (``peer_seconds``): DP-Sniper's own reference log
(``eval_sp2021/reference-results/dd_search_reg_data.log``: ``time_dd_search +
time_final_estimate_eps``, logistic-regression classifier); StatDP as measured by the DP-Sniper
authors on DP-Sniper's implementation of the same algorithm
(``eval_sp2021/reference-results/statdp_1_data.log``, ``statdp_time``); CheckDP: only the bound
"within 70 seconds" of its abstract; DP-Auditorium: none published.

Ground truth (``truth``, relative to the *claimed* ε): Lyu, Su & Li (VLDB 2017, §4) for the
sparse-vector algorithms; Ding et al. 2018 for noisy max and histograms; the exact level of the
closed forms in :mod:`dpexact.mechanisms.additive_noise` and
:mod:`dpexact.mechanisms.truncated_geometric` where stated. Entries dpexact cannot express yet
are listed with ``verdict = "not-implemented"``.
"""

from __future__ import annotations

from ..protocols import AnyMechanism

import time
from dataclasses import dataclass, field
from typing import Any

__all__ = ["PeerEntry", "PEER_SUITES", "CLOSED_WIDTH", "run_entry", "run_suites", "summary"]

#: a bracket is closed when its relative width is at most this, or its witness is unbounded
CLOSED_WIDTH = 1e-6

_SNIPER_LOG = "eth-sri/dp-sniper eval_sp2021/reference-results/dd_search_reg_data.log (time_dd_search + time_final_estimate_eps)"
_STATDP_LOG = "eth-sri/dp-sniper eval_sp2021/reference-results/statdp_1_data.log (statdp_time, StatDP on DP-Sniper's {})"
_CHECKDP = "CheckDP (Wang et al. CCS 2020) abstract: every benchmark within 70 s (upper bound, no per-entry time)"
_LYU = "Lyu, Su & Li, VLDB 2017, §4"
_DING = "Ding et al., CCS 2018"


@dataclass(frozen=True)
class PeerEntry:
    """One entry of a peer suite and its dpexact counterpart."""

    suite: str
    name: str
    mechanism: str | None
    params: dict
    n: int | None
    relation: str | None
    claimed_epsilon: str
    truth: str  # "private" | "not-private"
    truth_source: str
    peer_seconds: float | None = None
    peer_source: str = ""
    level: str | None = None  # closed-form privacy level, when known
    note: str = ""


def _svt(suite: str, name: str, mech: str, truth: str, peer: float | None, src: str, threshold: str = "1",
         level: str | None = None, note: str = "") -> PeerEntry:
    params = {"epsilon": "1/10", "threshold": threshold}
    if mech in ("svt1", "svt2", "svt3", "svt4", "bad-gap-svt") or suite == "DP-Auditorium":
        params["cutoff"] = 1
    return PeerEntry(suite, name, mech, params, 10, "all-differ", "1/10", truth, _LYU, peer, src, level, note)


def _entries() -> list[PeerEntry]:
    E: list[PeerEntry] = []
    st = "StatDP"
    E += [
        PeerEntry(st, "noisy_max_v1a", "rnm-laplace", {"epsilon": "1/10"}, 5, "all-differ", "1/10", "private", _DING, 59.82,
                  _STATDP_LOG.format("ReportNoisyMax1")),
        PeerEntry(st, "noisy_max_v1b", "noisy-max-value", {"epsilon": "1/10", "noise": "laplace"}, 5, "all-differ", "1/10",
                  "not-private", _DING, 131.85, _STATDP_LOG.format("ReportNoisyMax3")),
        PeerEntry(st, "noisy_max_v2a", "rnm-exp", {"epsilon": "1/10"}, 5, "all-differ", "1/10", "private", _DING, 58.63,
                  _STATDP_LOG.format("ReportNoisyMax2")),
        PeerEntry(st, "noisy_max_v2b", "noisy-max-value", {"epsilon": "1/10", "noise": "exponential"}, 5, "all-differ",
                  "1/10", "not-private", _DING, 132.01, _STATDP_LOG.format("ReportNoisyMax4")),
        PeerEntry(st, "histogram", "noisy-hist", {"epsilon": "1/10", "coordinates": "0"}, 5, None, "1/10", "private",
                  _DING, None, "", "1/10", "releases noisy[0] only, ONE_DIFFER"),
        PeerEntry(st, "histogram_eps", "noisy-hist-bad", {"epsilon": "1/10", "coordinates": "0"}, 5, None, "1/10",
                  "not-private", _DING, None, "", "10", "Lap(ε) instead of Lap(1/ε)"),
        _svt(st, "SVT", "svt1", "private", 343.65, _STATDP_LOG.format("SparseVectorTechnique1")),
        _svt(st, "iSVT1", "svt5", "not-private", 351.26, _STATDP_LOG.format("SparseVectorTechnique5"), level="inf"),
        _svt(st, "iSVT2", "svt6", "not-private", 755.04, _STATDP_LOG.format("SparseVectorTechnique6")),
        _svt(st, "iSVT3", "svt4", "not-private", 555.61, _STATDP_LOG.format("SparseVectorTechnique4"), level="7/40",
             note="Lyu et al.: ((1+6c)/4)·ε"),
        _svt(st, "iSVT4", "svt3", "not-private", 5821.14, _STATDP_LOG.format("SparseVectorTechnique3")),
    ]
    sn = "DP-Sniper"
    E += [
        PeerEntry(sn, "LaplaceMechanism", "laplace", {"epsilon": "1/10"}, 1, None, "1/10", "private",
                  "Dwork et al. 2006", 21.41, _SNIPER_LOG, "1/10"),
        PeerEntry(sn, "TruncatedGeometricMechanism", "truncated-geometric", {"epsilon": "1/10", "n": 5}, None, None,
                  "1/10", "not-private", "Balcer & Vadhan 2018 Thm 4.7 with DP-Sniper's k = ceil(ln(2/ε)) = 3",
                  19.47, _SNIPER_LOG, "log(9/8)", "k from the natural log, as coded; log_base=2 is private"),
        PeerEntry(sn, "NoisyHist1", "noisy-hist", {"epsilon": "1/10"}, 5, None, "1/10", "private", _DING, 37.66,
                  _SNIPER_LOG, "1/10"),
        PeerEntry(sn, "NoisyHist2", "noisy-hist-bad", {"epsilon": "1/10"}, 5, None, "1/10", "not-private", _DING, 40.62,
                  _SNIPER_LOG, "10"),
        PeerEntry(sn, "ReportNoisyMax1", "rnm-laplace", {"epsilon": "1/10"}, 5, "all-differ", "1/10", "private", _DING,
                  61.82, _SNIPER_LOG),
        PeerEntry(sn, "ReportNoisyMax2", "rnm-exp", {"epsilon": "1/10"}, 5, "all-differ", "1/10", "private", _DING, 58.41,
                  _SNIPER_LOG),
        PeerEntry(sn, "ReportNoisyMax3", "noisy-max-value", {"epsilon": "1/10", "noise": "laplace"}, 5, "all-differ",
                  "1/10", "not-private", _DING, 62.39, _SNIPER_LOG),
        PeerEntry(sn, "ReportNoisyMax4", "noisy-max-value", {"epsilon": "1/10", "noise": "exponential"}, 5, "all-differ",
                  "1/10", "not-private", _DING, 62.89, _SNIPER_LOG),
        _svt(sn, "SparseVectorTechnique1", "svt1", "private", 125.98, _SNIPER_LOG, threshold="1/2"),
        _svt(sn, "SparseVectorTechnique2", "svt2", "private", 159.92, _SNIPER_LOG),
        _svt(sn, "SparseVectorTechnique3", "svt3", "not-private", 160.34, _SNIPER_LOG),
        _svt(sn, "SparseVectorTechnique4", "svt4", "not-private", 130.49, _SNIPER_LOG, level="7/40"),
        _svt(sn, "SparseVectorTechnique5", "svt5", "not-private", 58.89, _SNIPER_LOG, level="inf"),
        _svt(sn, "SparseVectorTechnique6", "svt6", "not-private", 95.52, _SNIPER_LOG),
        PeerEntry(sn, "LaplaceParallel", "laplace", {"epsilon": "1/10", "copies": 20}, 1, None, "1/10", "private",
                  "sequential composition (20 × ε/20)", 104.44, _SNIPER_LOG, "1/10"),
        PeerEntry(sn, "PrefixSum", "prefix-sum", {"epsilon": "1/10", "relation": "all-differ"}, 10, None, "1/10",
                  "not-private", "Laplace density ratio: level nΔ/b = 1 under ALL_DIFFER", 96.98, _SNIPER_LOG, "1",
                  "DP-Sniper's all-queries-differ inputs; ShadowDP's one-differ claim is private"),
        PeerEntry(sn, "Rappor", "rappor", {}, None, None, "4*log(1681/1521)", "private",
                  "Erlingsson et al. CCS 2014 (ε1 = h·log(q*(1-p*)/(p*(1-q*))))", 144.85, _SNIPER_LOG,
                  "4*log(1681/1521)", "LDP over the values -10..10, DP-Sniper's mmh3 Bloom filter"),
        PeerEntry(sn, "OneTimeRappor", "one-time-rappor", {}, None, None, "4*log(441/361)", "private",
                  "Erlingsson et al. CCS 2014 (ε∞ = 2h·ln((1-f/2)/(f/2)))", 89.11, _SNIPER_LOG, "4*log(441/361)",
                  "LDP over the values -10..10, DP-Sniper's mmh3 Bloom filter"),
        PeerEntry(sn, "SVT34Parallel", "svt34-parallel", {"epsilon": "1/10", "threshold": "1", "cutoff": 2}, 10,
                  "all-differ", "1/10", "not-private", _LYU, 363.92, _SNIPER_LOG,
                  note="svt3 and svt4 side by side (c = 2, DP-Sniper's default)"),
        PeerEntry(sn, "NumericalSVT", "numerical-svt", {"epsilon": "1/10", "threshold": "1", "cutoff": 2}, 10,
                  "all-differ", "1/10", "private", "Wang et al. PLDI 2019", 151.69, _SNIPER_LOG,
                  note="DP-Sniper's default c = 2"),
    ]
    ck = "CheckDP"
    E += [
        PeerEntry(ck, "noisymax", "rnm-laplace", {"epsilon": "1/10"}, 5, "all-differ", "1/10", "private", _DING, 70.0,
                  _CHECKDP),
        PeerEntry(ck, "badnoisymax", "noisy-max-value", {"epsilon": "1/10", "noise": "laplace"}, 5, "all-differ", "1/10",
                  "not-private", _DING, 70.0, _CHECKDP),
        _svt(ck, "sparsevector", "svt1", "private", 70.0, _CHECKDP,
             note="CheckDP's C code rounds the noisy threshold to int; dpexact uses the real threshold"),
        _svt(ck, "badsparsevector1", "svt5", "not-private", 70.0, _CHECKDP, level="inf"),
        _svt(ck, "badsparsevector2", "svt6", "not-private", 70.0, _CHECKDP),
        _svt(ck, "badsparsevector3", "svt4", "not-private", 70.0, _CHECKDP, level="7/40"),
        PeerEntry(ck, "partialsum", "partial-sum", {"epsilon": "1/10"}, 5, None, "1/10", "private",
                  "Laplace mechanism on a sensitivity-Δ sum", 70.0, _CHECKDP, "1/10", "ONE_DIFFER"),
        PeerEntry(ck, "smartsum", "smart-sum", {"epsilon": "1/10", "block": 2}, 10, None, "1/5", "private",
                  "Chan, Shi & Song 2011; CheckDP CHECK: 2·ε", 70.0, _CHECKDP, "1/5", "ONE_DIFFER, M = 2"),
        PeerEntry(ck, "badsmartsum", "smart-sum", {"epsilon": "1/10", "block": 2, "bad": True}, 10, None, "1/5",
                  "not-private", "block-end output without noise", 70.0, _CHECKDP, "inf", "ONE_DIFFER, M = 2"),
        PeerEntry(ck, "badpartialsum", "partial-sum", {"epsilon": "1/10", "noise_factor": "1/2"}, 5, None, "1/10",
                  "not-private", "Lap(1/(2ε)): 2ε", 70.0, _CHECKDP, "1/5", "ONE_DIFFER"),
    ]
    E.append(PeerEntry(ck, "numsparsevector", "numerical-svt", {"epsilon": "1/10", "threshold": "1", "cutoff": 1}, 10,
                       "all-differ", "1/10", "private", "Wang et al. PLDI 2019", 70.0, _CHECKDP))
    E.append(_svt(ck, "badgapsparsevector", "bad-gap-svt", "not-private", 70.0, _CHECKDP))
    _ding20 = "Ding et al., VLDB 2020 (free gap; adaptive SVT)"
    E += [
        PeerEntry(ck, "gapsparsevector", "gap-svt", {"epsilon": "1/10", "threshold": "1", "cutoff": 1}, 10, "all-differ",
                  "1/10", "private", _ding20, 70.0, _CHECKDP, note="releases the gap q_i + ν_i - T - ρ of each ⊤"),
        PeerEntry(ck, "adaptivesparsevector", "adaptive-svt", {"epsilon": "1/10", "threshold": "1", "cutoff": 1}, 10,
                  "all-differ", "1/10", "private", _ding20, 70.0, _CHECKDP, note="σ = 16 as coded; NN = cutoff = 1"),
        PeerEntry(ck, "badadaptivesparsevector", "bad-adaptive-svt", {"epsilon": "1/10", "threshold": "1", "cutoff": 1}, 10,
                  "all-differ", "1/10", "not-private", "Wang et al. CCS 2020 (CheckDP's counterexample)", 70.0, _CHECKDP,
                  note="first branch releases q_i + η3 instead of its gap"),
    ]
    for nm, direction in (("svt_increasing", "INCREASING"), ("svt_decreasing", "DECREASING")):
        E.append(PeerEntry(ck, nm, "svt1", {"epsilon": "1/10", "threshold": "1", "cutoff": 1, "monotone": True}, 10,
                           "monotone", "1/10", "private", _LYU + " (Algorithm 1, monotonic queries: ν ~ Lap(cΔ/ε2)); "
                           "CheckDP examples/" + nm + ".c", 70.0, _CHECKDP,
                           note=f"CheckDP PRECONDITION {direction}; pure DP is symmetric in (q, q'), so INCREASING and "
                                "DECREASING are one verification problem (the monotone relation, both orders of each pair); "
                                "CheckDP's C code rounds the noisy threshold to int, dpexact uses the real threshold"))
    da = "DP-Auditorium"
    src = "no published per-mechanism time"
    E += [
        _svt(da, "SVT1", "svt1", "private", None, src),
        _svt(da, "SVT2", "svt1", "private", None, src,
             note="threshold noise 2cΔ/ε without redraw: the svt1 law at c = 1"),
        _svt(da, "SVT3", "svt3", "not-private", None, src),
        _svt(da, "SVT4", "svt4", "not-private", None, src, level="7/40"),
        _svt(da, "SVT5", "svt5", "not-private", None, src, note="aborts after c ⊤ (DP-Auditorium's base class)"),
        _svt(da, "SVT6", "svt6", "not-private", None, src, note="aborts after c ⊤ (DP-Auditorium's base class)"),
        PeerEntry(da, "NoisyMaxMechanism", "rnm-gumbel", {"epsilon": "1/10"}, 5, "all-differ", "1/10", "private",
                  "Gumbel-max trick = exponential mechanism", None, src),
    ]
    return E


PEER_SUITES: list[PeerEntry] = _entries()


@dataclass
class PeerRow:
    """One row of ``dpexact bench-peers``."""

    suite: str
    name: str
    mechanism: str | None
    params: dict
    claimed_epsilon: str
    truth: str
    verdict: str
    certified: bool
    worst_log_ratio: float | None
    seconds: float
    peer_seconds: float | None
    truth_source: str = ""
    peer_source: str = ""
    level: str | None = None
    counterexample: dict | None = None
    scope: dict = field(default_factory=dict)
    note: str = ""
    #: a proven upper bound on the privacy level (a coupling checked on the law's factors), when one applies
    coupling_bound: str | None = None
    #: the verdict's ε bracket (:meth:`~dpexact.verification.bracket.EpsilonBracket.as_dict`): certified witness
    #: below, proof above with its method, domain and theorem; None when the verifier computed none
    epsilon_bracket: dict | None = None

    def bracket_columns(self) -> dict[str, Any]:
        """``lower`` / ``upper`` (exact strings where known, ``"inf"`` for an unbounded witness),
        ``proof`` (method; theorem; the domain's n), ``relative_width`` ((upper - lower)/upper: 0 for an
        unbounded witness, None without one end (``relative_width_exact`` ``"inf"``) or without a
        bracket) and ``closed`` (relative
        width <= :data:`CLOSED_WIDTH` under a proof over the whole domain, or an unbounded witness) of
        the bracket, for the table and the short JSON."""
        b = self.epsilon_bracket or {}
        lo, up = b.get("lower"), b.get("upper")
        proof = None
        if up:
            n = (up.get("domain") or {}).get("n")
            proof = f"{up['method']} (n {'every' if n == 'every' else '= ' + str(n)})" + (f"; {up['theorem']}" if up.get("theorem") else "")
        width = {"relative_width": b.get("relative_width")}
        if b.get("relative_width_exact") is not None:
            width["relative_width_exact"] = b["relative_width_exact"]
        return {"lower": None if lo is None else lo["lower"], "upper": None if up is None else up["upper"], "proof": proof,
                **width, "closed": bool(b.get("closed", False)),
                # the level over every n, where a witness family proves it infinite (the ends are the stated n's)
                **({"level_every_n": "inf"} if b.get("unbounded_family") else {})}

    def as_dict(self) -> dict[str, Any]:
        from ..schemas.numbers import with_exact

        d = dict(self.__dict__)
        d.update(with_exact("worst_log_ratio", d["worst_log_ratio"]))  # null + "_exact" where not finite
        return d


def run_entry(e: PeerEntry) -> PeerRow:
    """Build the dpexact mechanism of ``e`` and run the verifier of its output kind on it."""
    if e.mechanism is None:
        return PeerRow(e.suite, e.name, None, e.params, e.claimed_epsilon, e.truth, "not-implemented", False, None, 0.0,
                       e.peer_seconds, e.truth_source, e.peer_source, e.level, None, {}, e.note)
    from ..verification.router import verify
    from ..mechanisms.registry import mechanism as build

    t0 = time.perf_counter()
    m = build(e.mechanism, **e.params)
    v = verify(m, n=e.n, relation=e.relation, name=e.mechanism)
    secs = time.perf_counter() - t0
    return PeerRow(e.suite, e.name, e.mechanism, e.params, e.claimed_epsilon, e.truth, v.verdict, v.certified,
                   v.worst_log_ratio, secs, e.peer_seconds, e.truth_source, e.peer_source, e.level,
                   None if v.counterexample is None else v.counterexample.as_dict(), v.scope.as_dict(), e.note,
                   _coupling(m, e), None if v.bracket is None else v.bracket.as_dict())


def _coupling(m: AnyMechanism, e: PeerEntry) -> str | None:
    """A coupling's proven level: the threshold shift for the sparse-vector laws, the other candidates'
    noises for report noisy max (``"inf"``: the coupling proves nothing; None: none applies)."""
    from ..verification.levels import coupling_level

    return coupling_level(m, e.n, e.relation)


def run_suites(suites: list[str] | None = None, names: list[str] | None = None) -> list[PeerRow]:
    """Run every entry (optionally only some suites / peer names); one identical mechanism+params is verified once.

    Raises:
        ValueError: a suite or peer name that no entry has (nothing would run).
    """
    for given, known, what in ((suites, {e.suite for e in PEER_SUITES}, "suite"),
                               (names, {e.name for e in PEER_SUITES}, "name")):
        unknown = sorted(set(given or ()) - known)
        if unknown:
            raise ValueError(f"{what}: no peer entry {unknown[0][:40]!r}; known: {', '.join(sorted(known))}")
    rows: list[PeerRow] = []
    done: dict = {}
    for e in PEER_SUITES:
        if suites and e.suite not in suites:
            continue
        if names and e.name not in names:
            continue
        key = (e.mechanism, tuple(sorted((k, str(v)) for k, v in e.params.items())), e.n, e.relation)
        if e.mechanism is not None and key in done:
            r = done[key]
            rows.append(PeerRow(e.suite, e.name, e.mechanism, e.params, e.claimed_epsilon, e.truth, r.verdict,
                                r.certified, r.worst_log_ratio, r.seconds, e.peer_seconds, e.truth_source,
                                e.peer_source, e.level, r.counterexample, r.scope,
                                (e.note + "; " if e.note else "") + "same law as an earlier row: its verdict and time",
                                r.coupling_bound, r.epsilon_bracket))
            continue
        row = run_entry(e)
        if e.mechanism is not None:
            done[key] = row
        rows.append(row)
    return rows


def summary(rows: list[PeerRow], cpu_seconds: float, wall_seconds: float) -> dict[str, Any]:
    """The suite's counts: rows, closed brackets (:meth:`PeerRow.bracket_columns`), the widest open one, and
    the run's CPU and wall-clock seconds (the load moves the wall clock, hardly the CPU time)."""
    cols = [r.bracket_columns() for r in rows]
    open_rows = [r.name for r, c in zip(rows, cols) if not c["closed"] and r.mechanism is not None]
    return {"rows": len(rows), "closed": sum(c["closed"] for c in cols), "open": open_rows,
            "closed_width": CLOSED_WIDTH, "cpu_seconds": round(cpu_seconds, 3), "wall_seconds": round(wall_seconds, 3)}
