"""Regularity of a selection mechanism (pf Definition 3), checked with certified counterexamples.

* Symmetry (pf eq. 1):        ``Pr[M(q) = r] = Pr[M(Πq) = π(r)]`` for every permutation π;
* Shift-invariance (pf eq. 2): ``Pr[M(q) = r] = Pr[M(q + c·1) = r]``;
* Monotonicity (pf eq. 3):    if ``q_r <= q'_r`` and ``q_s >= q'_s`` (s ≠ r) then
  ``Pr[M(q) = r] <= Pr[M(q') = r]``.

A violation is reported only when ball arithmetic separates the two sides (disjoint balls,
or the monotonicity difference's ball is > 0). An equality is *proved* only on the exact
backend; with ball arithmetic it is "not refuted" (the balls overlap).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Sequence

from ...numbers.backends import get_backend
from ...numbers.backends import exact_sympy
from ...numbers.exp_lattice import exact_sign
from ..neighbourhoods import as_vector
from ...protocols import Mechanism

__all__ = ["RegularityViolation", "RegularityReport", "check_regularity"]

Vector = tuple[Fraction, ...]


@dataclass(frozen=True)
class RegularityViolation:
    """``Pr[M(a) = r] ≠ Pr[M(b) = s]`` (``property`` says which condition), proved in ``arithmetic``."""

    property: str
    a: Vector
    r: int
    b: Vector
    s: int
    pa: str
    pb: str
    arithmetic: str


@dataclass
class RegularityReport:
    """Counts of checked instances per property, proved equalities (exact) and violations."""

    checked: dict = field(default_factory=lambda: {"symmetry": 0, "shift": 0, "monotonicity": 0})
    proved_exact: int = 0
    violations: list = field(default_factory=list)

    @property
    def regular_within_scope(self) -> bool:
        return not self.violations


def check_regularity(mechanism: Mechanism, vectors: Sequence[Sequence[Any]], shifts: Sequence[Any] = (1, "-5/2"),
                     backend: str = "ball", max_perms: int = 24) -> RegularityReport:
    """Check pf Definition 3 on ``vectors`` (ball: refutations only; exact: also proves equalities).

    Monotonicity pairs are ``q' = q + e_r`` and ``q' = q - Σ_{s≠r} e_s`` (moves allowed by eq. 3).
    """
    if backend not in ("ball", "exact"):
        raise ValueError(f"backend must be 'ball' or 'exact', got {backend!r}")
    be = get_backend(backend)  # ball: 128 bits
    rep = RegularityReport()
    cache: dict = {}

    def pmf(v: Vector) -> tuple:
        if v not in cache:
            cache[v] = tuple(mechanism.pmf(list(v), backend=be).values)
        return cache[v]

    def compare(prop: str, a: Vector, r: int, b: Vector, s: int, want: str) -> None:
        pa, pb = pmf(a)[r], pmf(b)[s]
        rep.checked[prop] += 1
        # certified sign of pb - pa (None: undecided); exact ties get the exp-lattice zero test
        if be.is_exact:
            sg = exact_sign(exact_sympy(pb) - exact_sympy(pa))
        else:
            with be.context():
                sg = be.try_compare(pb, pa)
        if sg is None:
            return
        bad = sg < 0 if want == "le" else sg != 0
        if bad:
            rep.violations.append(RegularityViolation(prop, a, r, b, s, str(pa), str(pb), str(be)))
        elif want == "eq" and be.is_exact:
            rep.proved_exact += 1

    for v in vectors:
        q = as_vector(v)
        n = len(q)
        perms = list(itertools.islice(itertools.permutations(range(n)), max_perms))
        for pi in perms[1:]:
            qp = tuple(q[pi.index(i)] for i in range(n))  # (Πq)_{π(i)} = q_i
            for r in range(n):
                compare("symmetry", q, r, qp, pi[r], "eq")
        for c in shifts:
            cf = as_vector([c], "shifts")[0]
            qs = tuple(x + cf for x in q)
            for r in range(n):
                compare("shift", q, r, qs, r, "eq")
        for r in range(n):
            up = q[:r] + (q[r] + 1,) + q[r + 1 :]
            down = tuple(x if i == r else x - 1 for i, x in enumerate(q))
            compare("monotonicity", q, r, up, r, "le")
            compare("monotonicity", q, r, down, r, "le")
    return rep
