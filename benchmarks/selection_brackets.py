"""The ε bracket of the registered selection mechanisms at n = 3, 4, 5 (and "every n" where a theorem applies).

    python benchmarks/selection_brackets.py [--n 3 4 5] [--json out.json]

For each mechanism and n it runs what ``dpexact verify -m NAME ... --n N`` runs (``dpexact.verify``,
the one door) and prints a Markdown table: mechanism, claimed ε, verdict, bracket [lower, upper],
the proof's method and domain, seconds. The domain column says "every n" when a theorem covers
every n (the same proof then holds for every row of that mechanism). Timings depend on the load;
the script prints ``uptime`` first.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import dpexact

#: (label, registry name, parameters, n values it accepts: None = any)
MECHANISMS = [
    ("em", "em", {"epsilon": 1}, None),
    ("em monotone (monotone nbhd)", "em", {"epsilon": 1, "monotone": True}, None),
    ("pf", "pf", {"epsilon": "2*log(3)"}, None),
    ("pf monotone (monotone nbhd)", "pf", {"epsilon": 1, "monotone": True}, None),
    ("rnm-exp", "rnm-exp", {"epsilon": 1}, None),
    ("rnm-gumbel", "rnm-gumbel", {"epsilon": 1}, None),
    ("rnm-laplace", "rnm-laplace", {"epsilon": 1}, None),
    ("grr", "grr", {"epsilon": 1}, None),
    ("rnm-global", "rnm-global", {"epsilon": 1}, None),
    ("rs-gamma", "rs-gamma", {"epsilon": 1}, None),
    ("rs-gamma-tnb", "rs-gamma-tnb", {"epsilon": 1}, None),
    ("gem Δ=(1/2,1,2)", "gem", {"epsilon": 1, "sensitivities": ["1/2", 1, 2]}, (3,)),
    ("mgem Δ=(1/2,1,2)", "mgem", {"epsilon": 1, "sensitivities": ["1/2", 1, 2]}, (3,)),
    ("combined-gem Δ=(1/2,1,2)", "combined-gem", {"epsilon": 1, "sensitivities": ["1/2", 1, 2]}, (3,)),
    ("err p=1/2", "err", {"epsilon": 1, "p": "1/2"}, None),
    ("rnmh Δ=(1/10,1,1) (not private)", "rnmh", {"epsilon": 1, "sensitivities": ["1/10", 1, 1]}, (3,)),
    ("em ε=2 claimed 1 (as the exponent 2ε)", "em", {"epsilon": 2}, None),
    ("user EM with exponent ε/4Δ (define_mechanism)", "user-half-em", {"epsilon": 1}, None),
    ("biased-coin top-1 built with 2ε (examples/)", "biased-coin", {"epsilon": 1}, None),
    ("user EM, exponent doubled at a score = 37/100 (examples/)", "branching:em_at_037", {"epsilon": 1}, None),
    ("user EM, exponent doubled at spread >= 18Δ (examples/)", "branching:em_gap18", {"epsilon": 1}, None),
    ("user GRR as an argmax law, ties shared (examples/)", "branching:grr_argmax", {"epsilon": 1}, None),
    ("user top-1 with ties, weight e^{ε/2} (examples/)", "branching:top1_ties", {"epsilon": 1}, None),
    ("geometric noisy max, integer scores (examples/)", "geometric", {"epsilon": 1}, None),
]


def _user_half_em() -> object:
    """EM written as a user's pmf with the exponent ε/(4Δ) (level ε/2): the branch-and-bound's case."""
    def pmf(q, p, ops):
        w = [ops.exp(p.epsilon * x / (4 * p.sensitivity)) for x in q]
        s = ops.sum(w)
        return [v / s for v in w]

    return dpexact.define_mechanism("user-half-em", pmf, epsilon=1,
                                    properties=dict(symmetric=True, shift_invariant=True, monotone=True))


def _example(module: str, attr: str) -> object:
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "examples" / f"{module}.py"
    spec = importlib.util.spec_from_file_location(module, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[module] = mod  # a dataclass looks its module up while the class is built
    spec.loader.exec_module(mod)
    return getattr(mod, attr)


USER = {"user-half-em": _user_half_em, "biased-coin": lambda: _example("biased_coin_top1", "biased_coin"),
        "geometric": lambda: _example("geometric_noisy_max", "GeometricNoisyMax")(epsilon=1)}


def row(label: str, name: str, params: dict, n: int) -> dict:
    if name.startswith("branching:"):
        m = _example("branching_laws", name.split(":", 1)[1])
    else:
        m = USER[name]() if name in USER else dpexact.mechanism(name, **params)
    claimed = params["epsilon"] if "claimed 1" not in label else 1
    if "claimed 1" in label:
        from dpexact.suites.soundness import Misclaimed

        m = Misclaimed(m, 1)
    t0 = time.perf_counter()
    v = dpexact.verify(m, n=n)
    dt = time.perf_counter() - t0
    b = v.bracket.as_dict() if v.bracket is not None else {}
    up = b.get("upper") or {}
    dom = up.get("domain") or {}
    return {"mechanism": label, "epsilon": str(claimed), "n": n, "verdict": v.verdict,
            "lower": b.get("lower_float"), "upper": b.get("upper_float"), "method": up.get("method"),
            "theorem": up.get("theorem"), "domain_n": dom.get("n"), "scores": dom.get("scores"),
            "seconds": round(dt, 2)}


def fmt(x) -> str:
    if x is None:
        return "—"
    if isinstance(x, str):
        return x
    return f"{x:.12g}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, nargs="+", default=[3, 4, 5])
    ap.add_argument("--json", help="also write the rows as JSON")
    ap.add_argument("--only", help="only the mechanisms whose label contains this text")
    a = ap.parse_args()
    print("load:", os.getloadavg())
    rows = []
    print("| mechanism | claimed ε | n | verdict | bracket [lower, upper] | proof (method; domain) | s |")
    print("|---|---|---|---|---|---|---|")
    for label, name, params, ns in MECHANISMS:
        if a.only and a.only not in label:
            continue
        for n in a.n:
            if ns is not None and n not in ns:
                continue
            r = row(label, name, params, n)
            rows.append(r)
            dom = "—" if r["method"] is None else (
                f"{r['method']}; n {r['domain_n']}, scores {r['scores']}")
            print(f"| {r['mechanism']} | {r['epsilon']} | {n} | {r['verdict']} | [{fmt(r['lower'])}, {fmt(r['upper'])}] "
                  f"| {dom} | {r['seconds']} |", flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
