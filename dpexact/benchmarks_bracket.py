"""The ε bracket's price on a researcher's own mechanism (`dpexact bench`, bracket rows).

Own mechanisms are written the way a user writes them, with :func:`dpexact.define_mechanism` in
backend operations (README, "your own mechanism"):

* own EM — ``Pr[r] = e^{c q_r} / Σ_s e^{c q_s}``, ``c = ε/(2Δ)`` (pf Definition 4; level ε);
* own PF — ``Pr[r] = p_r ∫_0^1 ∏_{s≠r} (1 - p_s t) dt`` with ``p_s = e^{c(q_s - q*)}`` (pf Lemma 2),
  the product expanded into its polynomial coefficients and integrated term by term (level ε).

For each and each n the row runs what ``dpexact verify --n N`` runs on a selection mechanism of
one's own, through the same door (:func:`dpexact.verify` with the searches grid, structured, local
named, so the finite-scope search runs), then the ε bracket
(:func:`dpexact.verify.proofs.selection_bracket.bracket_selection`: the witness maximisation
below, the branch-and-bound above; its time starts at the door's ``ε bracket`` progress step). Both are timed in CPU seconds of
this process (``time.process_time``), in the same run, one after the other, so the ratio
``bracket / scope search`` is computed live from the code as it is — never stored. One round
each (a round costs seconds to a minute); the load average is reported with every row.
"""

from __future__ import annotations

import math
import os
import time
from typing import Any, Callable

from .protocols import Mechanism

__all__ = ["own_em", "own_pf", "run_bracket_benchmark"]


def _em_pmf(q: list, p: Any, ops: Any) -> list:
    c = p.epsilon / (2 * p.sensitivity)
    top = ops.max(q)
    w = [ops.exp(c * (x - top)) for x in q]
    s = ops.sum(w)
    return [v / s for v in w]


def _pf_pmf(q: list, p: Any, ops: Any) -> list:
    c = p.epsilon / (2 * p.sensitivity)
    top = ops.max(q)
    w = [ops.exp(c * (x - top)) for x in q]
    out = []
    for r in range(len(q)):
        coef = [ops.from_int(1)]  # ∏_{s≠r} (1 - p_s t), lowest degree first
        for s, ps in enumerate(w):
            if s == r:
                continue
            nxt = coef + [ops.from_int(0)]
            for k in range(len(coef)):
                nxt[k + 1] = nxt[k + 1] - ps * coef[k]
            coef = nxt
        out.append(w[r] * ops.sum([a / (k + 1) for k, a in enumerate(coef)]))
    return out


def own_em(epsilon: Any = 1) -> Any:
    """The exponential mechanism as a user's ``define_mechanism`` law (module docstring)."""
    import dpexact

    return dpexact.define_mechanism("own-em", _em_pmf, epsilon=epsilon,
                                    properties=dict(symmetric=True, shift_invariant=True, monotone=True))


def own_pf(epsilon: Any = 1) -> Any:
    """Permute-and-flip as a user's ``define_mechanism`` law (module docstring)."""
    import dpexact

    return dpexact.define_mechanism("own-pf", _pf_pmf, epsilon=epsilon,
                                    properties=dict(symmetric=True, shift_invariant=True, monotone=True))


def _load() -> float:
    return round(os.getloadavg()[0], 2)


def bracket_row(label: str, mechanism: Mechanism, n: int) -> dict:
    """CPU seconds of the scope search and of the bracket on ``mechanism`` at ``n`` (module docstring)."""
    from .verify.router import verify

    load0 = _load()
    marks: list[float] = []

    def mark(kind: str, text: str) -> None:  # the bracket's time starts at the door's "ε bracket" step
        if text.startswith("ε bracket"):
            marks.append(time.process_time())

    t0 = time.process_time()
    v = verify(mechanism, search=("grid", "structured", "local"), n=n, progress=mark)
    t2 = time.process_time()
    t1 = marks[0] if marks else t2
    b = v.bracket.as_dict() if v.bracket is not None else {}
    scope, bracket = t1 - t0, t2 - t1
    return {"what": f"bracket / scope search, {label}", "n": n, "scope_search_s": scope, "bracket_s": bracket,
            "ratio": bracket / scope if scope > 0 else None, "verdict": v.verdict,
            "lower": _finite(b.get("lower_float")), "upper": _finite(b.get("upper_float")), "repeat": 1,
            "load": [load0, _load()]}


def _finite(x: Any) -> float | None:
    """A bracket end as a JSON number; ``None`` when there is none or it is infinite (the bracket
    writes an infinite end as the string ``"inf"``: no finite proof, or an unbounded witness)."""
    return float(x) if isinstance(x, (int, float)) and math.isfinite(x) else None


def run_bracket_benchmark(sizes: tuple[int, ...] = (3, 5), echo: Callable[[str], None] = print) -> list[dict]:
    """One row per own mechanism and n (:func:`bracket_row`)."""
    rows = []
    for label, make in (("own EM", own_em), ("own PF", own_pf)):
        m = make()
        for n in sizes:
            row = bracket_row(label, m, n)
            rows.append(row)
            echo(f"{label} n={n}: scope search {row['scope_search_s']:.2f} CPU s, bracket {row['bracket_s']:.2f} CPU s "
                 f"= {row['ratio'] or math.inf:.2f}x ({row['verdict']}, [{row['lower']}, {row['upper']}])  "
                 f"load {row['load'][0]:.1f}-{row['load'][1]:.1f}")
    return rows
