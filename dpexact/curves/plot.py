"""Plot of a certified curve beside the curve an accountant uses today (matplotlib, Agg backend).

δ(ε'): ε-RR for EM, Laplace(1/ε) for PF (dp_accounting's events). Rényi / zCDP: D_α against
α·ε²/8 (EM's bounded-range zCDP; the ρ claimed for PF by an EM-named measurement) and, for PF,
α·ε²/2 (pure DP ⇒ ε²/2-zCDP, Bun & Steinke 2016).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["draw"]


def draw(c: Any, out: dict, path: Path) -> None:
    """Write the figure for the curve ``c`` (the request's kind is read from ``out``) to ``path`` atomically."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..io import atomic_write_bytes
    from ..numbers.real import Real

    e = Real.of(c.epsilon).to_float()
    fig, ax = plt.subplots(figsize=(6, 4))
    if "delta" in out:
        xs = [e * i / 24 for i in range(25)]
        pts = c.delta([f"{x!r}" for x in xs], tol=1e-10)
        ax.plot(xs, [p.upper for p in pts], "-", label="dpexact, certified upper (all inputs)")
        ax.plot(xs, [p.lower for p in pts], ":", label="dpexact, witness (lower)")
        today = c.today_delta(xs)
        if today is not None:
            ax.plot(xs, today, "--", label="today: " + ("ε-RR" if c.mechanism in ("em", "rnm-gumbel") else "Laplace(1/ε)"))
        ax.set_xlabel("ε'")
        ax.set_ylabel("δ(ε')")
    else:
        al = [1.25, 1.5, 2, 3, 4, 6, 8, 12, 16]
        pts = c.renyi([str(a) for a in al], tol=1e-8)
        ax.plot(al, [p.upper for p in pts], "-", label="dpexact D_α, certified upper")
        ax.plot(al, [p.lower for p in pts], ":", label="dpexact D_α, witness")
        if c.mechanism in ("em", "rnm-gumbel", "pf", "rnm-exp"):
            ax.plot(al, [a * e * e / 8 for a in al], "--", label="α·ε²/8")
        if c.mechanism in ("pf", "rnm-exp"):
            ax.plot(al, [a * e * e / 2 for a in al], "-.", label="α·ε²/2 (pure DP)")
        if "rho" in out and out["rho"]["upper"] is not None:  # null: ρ = ∞, no line to draw
            ax.plot(al, [a * out["rho"]["upper"] for a in al], "-", lw=0.8, label="α·ρ (certified ρ)")
        ax.set_xlabel("α")
        ax.set_ylabel("D_α")
    ax.set_title(f"{c.mechanism}, ε = {c.epsilon}" + (f", n = {c.n}" if c.n else ""))
    ax.legend(fontsize=8)
    import io

    buf = io.BytesIO()
    fig.savefig(buf, format=path.suffix.lstrip(".").lower())
    plt.close(fig)
    atomic_write_bytes(path, buf.getvalue(), name="--plot")
