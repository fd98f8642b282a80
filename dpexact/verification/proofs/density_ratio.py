"""Density-ratio proofs for real-valued outputs stated as Laplace pieces, with a witness at the level.

For a law that is a product of Laplace laws in its box coordinates
(:class:`~dpexact.protocols.LaplacePieces`: ``x_j ~ c_j(q) + Lap(b_j)``, ``c_j`` linear in q, Jacobian
1) the privacy level over every output set is the essential supremum of the density ratio:

    ε*(n) = sup_{q ~ q'} sup_x Σ_j g_j(x_j),      g_j(x) = (|x - c_j(q')| - |x - c_j(q)|) / b_j.

*Over the outputs.* The coordinates are free (independent), so the sup splits into one sup per
coordinate. Each ``g_j`` is piecewise linear with breakpoints ``c_j(q)``, ``c_j(q')``: its sup is the
largest of its values at the breakpoints and its limits in the two tails, where it is constant
(slopes ``±1 ∓ 1 = 0``, checked): ``|c_j(q) - c_j(q')| / b_j``, attained on the whole tail beyond
both breakpoints.

*Over the neighbours.* With ``d = q - q'``, ``F(d) = Σ_j |w_j·d| / b_j`` (``w_j`` the coefficients of
``c_j``) is convex, so its maximum over a neighbourhood box is at a vertex: one query moved by ±Δ
(ONE_DIFFER: the largest ``Σ_j |w_ji| Δ/b_j`` over i), or a corner of ``[-Δ, Δ]^n`` (ALL_DIFFER: the
bound ``Δ Σ_j ‖w_j‖₁/b_j``, which is the maximum when it is attained at ``d = Δ·1``, else the corners
are enumerated, n <= 12).

The level is computed on a copy of the mechanism whose ε and Δ are sympy symbols (ε, Δ > 0), so
``ε*/claimed ε`` is an expression checked for every ε and Δ; it is evaluated exactly at the
mechanism's own values otherwise. The proof covers the given n (the pieces are stated per n) — or
every n when one query moves and the law declares a bound on every query's column for every n
(``LaplacePieces.column_bound``, re-checked on the pieces of 1..6 queries and of n): the level is
then at most Δ times that bound, whatever n.

*Witness.* Neighbours ``q = 0``, ``q' = -d*`` and the box of the coordinates' tails beyond both
breakpoints have probability ratio exactly ``e^{ε*}`` (the density ratio is constant there): re-checked
from the mechanism's own ``box_probability`` in 256-bit balls, it is a certified lower end equal to the
level, so the bracket closes. The pieces are also re-checked against the law before any proof: the
box probability of one box (balls) and ``logpdf`` differences at sampled outputs (floats, relative
1e-9) must agree with the pieces.

Laplace density-ratio theorem: Dwork, McSherry, Nissim & Smith 2006; Dwork & Roth 2014 Theorem 3.6.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Any

import numpy as np

from ...numbers.backends import ball_context
from ...numbers.real import Real
from ...protocols import DENSITY_KINDS, AnyMechanism, Neighbourhood, LaplaceDensity, LaplacePieces, claimed_epsilon
from ..bracket import Proof, Witness
from .lazy_sympy import symbols, sympy
from .symbolic_coupling import round_up, symbolic_copy

__all__ = ["DensityRatioProof", "pl_sup", "density_level", "proof_on_neighbourhood"]

THEOREM = "Laplace density ratio (Dwork, McSherry, Nissim & Smith 2006; Dwork & Roth 2014, Thm 3.6)"
#: largest n whose ALL_DIFFER corners are enumerated when the ℓ1 bound is not attained at Δ·1
_MAX_CORNERS_N = 12


def pl_sup(breaks: list[Fraction], value: Any, left_slope: Fraction, right_slope: Fraction) -> tuple[Any, Any]:
    """Sup of a piecewise-linear function given by its breakpoints, its value there and its tail slopes.

    Returns ``(sup, where)``: ``math.inf`` if a tail rises (slope > 0 to the right, < 0 to the left),
    else the largest breakpoint value — a constant tail reaches that of its end breakpoint.
    """
    if right_slope > 0 or left_slope < 0:
        return math.inf, "tail"
    vals = [(value(x), x) for x in sorted(set(breaks))]
    return max(vals, key=lambda t: t[0])


def _term_sup(c: Fraction, c2: Fraction) -> Fraction:
    """``sup_x |x - c2| - |x - c|`` (in units of the scale) by its breakpoints and tails."""
    def g(x: Fraction) -> Fraction:
        return abs(x - c2) - abs(x - c)

    # slopes beyond both breakpoints: d/dx(|x - c2| - |x - c|) = (+1) - (+1) on the right, (-1) - (-1) on the left
    sup, _ = pl_sup([c, c2], g, Fraction(0), Fraction(0))
    return sup


def _neighbour_kind(mechanism: AnyMechanism, relation: str | None) -> tuple[str, Any] | None:
    from ...mechanisms.neighbourhoods import LInfBox
    from ...mechanisms.query_neighbourhoods import OneDiffer

    nb = mechanism.neighbourhood()
    if isinstance(nb, OneDiffer):
        kind = "one-differ"
    elif isinstance(nb, LInfBox) and nb.sensitivities is None:
        kind = "all-differ"
    else:
        return None
    if relation is not None and relation != kind:
        return None
    return kind, Real.of(mechanism.sensitivity)


def density_level(pieces: LaplacePieces, kind: str, delta: Any) -> tuple[Any, tuple[Fraction, ...], bool]:
    """``(ε*, d* in units of Δ, exact)`` (module docstring): the level, its maximising offset, and whether
    the level is attained (False: an upper bound only)."""
    n = len(pieces.centres[0]) if pieces.centres else 0
    d_scale = Real.of(delta)

    def F(d: tuple[Fraction, ...]) -> Any:
        tot: Any = Real.of(0)
        for w, b in zip(pieces.centres, pieces.scales):
            c = sum((Fraction(wi) * di for wi, di in zip(w, d)), Fraction(0))
            r = _term_sup(c, Fraction(0))
            if r:
                tot = tot + d_scale * r / Real.of(b)
        return tot

    if kind == "one-differ":
        cands = [tuple(Fraction(s) if i == k else Fraction(0) for i in range(n)) for k in range(n) for s in (1, -1)]
        vals = [(F(d), d) for d in cands]
        best = vals[0]
        for v in vals[1:]:
            if (v[0] - best[0]).sign() > 0:
                best = v
        return best[0], best[1], True
    ones = tuple(Fraction(1) for _ in range(n))
    bound: Any = Real.of(0)
    for w, b in zip(pieces.centres, pieces.scales):
        l1 = sum((abs(Fraction(x)) for x in w), Fraction(0))
        if l1:
            bound = bound + d_scale * l1 / Real.of(b)
    at_ones = F(ones)
    if (bound - at_ones).sign() == 0:
        return bound, ones, True
    if n <= _MAX_CORNERS_N:
        best = (at_ones, ones)
        for signs in itertools.product((1, -1), repeat=n - 1):
            d = (Fraction(1),) + tuple(Fraction(s) for s in signs)  # F(-d) = F(d): first sign fixed
            v = F(d)
            if (v - best[0]).sign() > 0:
                best = (v, d)
        return best[0], best[1], True
    return bound, ones, False


def _witness(m: AnyMechanism, pieces: LaplacePieces, d: tuple[Fraction, ...], delta: Fraction, level: str) -> Witness | None:
    """Neighbours ``0`` and ``-d·Δ`` with the tail box beyond both breakpoints (module docstring)."""
    n = len(d)
    q = [Fraction(0)] * n
    q2 = [-x * delta for x in d]
    box = []
    for w, b in zip(pieces.centres, pieces.scales):
        c = Fraction(0)
        c2 = sum((Fraction(wi) * x for wi, x in zip(w, q2)), Fraction(0))
        lo, hi = (max(c, c2), max(c, c2) + 1) if c >= c2 else (min(c, c2) - 1, min(c, c2))
        box.append((lo, hi))
    try:
        p1 = m.box_probability(q, box, "ball", 256)
        p2 = m.box_probability(q2, box, "ball", 256)
    except (ValueError, TypeError):
        return None
    if isinstance(p1, tuple):
        p1, p2 = p1[0], p2[0]
    with ball_context(256):
        if not (p1 > 0 and p2 > 0):
            return None
        lr = p1.log() - p2.log()
        lo_f = math.nextafter(float(lr.lower()), -math.inf)  # rounded down: still a certified lower bound
    return Witness(lower_float=lo_f, lower=level, scores=tuple(map(str, q)), neighbour_scores=tuple(map(str, q2)),
                   output={"box": [[str(a), str(b)] for a, b in box],
                           "coordinates": "box coordinates" if _has_box_coordinates(m) else "outputs"},
                   arithmetic="ball:256", note="the density ratio is constant on this box: its probability ratio is the level")


def _has_box_coordinates(m: AnyMechanism) -> bool:
    """Whether outputs are mapped to box coordinates (protocols: an optional callable, absent or None = identity)."""
    try:
        return m.box_coordinates is not None
    except AttributeError:
        return False


def _pieces_match_law(m: AnyMechanism, pieces: LaplacePieces, n: int) -> bool:
    """The pieces against the law: one box probability (balls, overlap) and logpdf differences (floats)."""
    from ...mechanisms.additive_noise import laplace_box_probability

    q = [Fraction(k % 3) for k in range(n)]
    q2 = [x + (1 if k % 2 == 0 else -1) * Fraction(1, 2) for k, x in enumerate(q)]
    box = [(Fraction(-1, 3), Fraction(5, 4))] * len(pieces.centres)
    centres = [sum((Fraction(wi) * x for wi, x in zip(w, q)), Fraction(0)) for w in pieces.centres]
    scales = set(str(b) for b in pieces.scales)
    if len(scales) != 1:
        return False  # one scale per law in every declared family; the check below needs it
    try:
        got = m.box_probability(q, box, "ball", 128)
        if isinstance(got, tuple):
            got = got[0]
        want = laplace_box_probability(centres, box, Real.of(pieces.scales[0]), "ball", 128)
        with ball_context(128):
            if not got.overlaps(want):
                return False
        ys = m.rvs([float(x) for x in q], size=8, random_state=0)
        ys = np.atleast_2d(np.asarray(ys, dtype=float))
        xs = ys if not _has_box_coordinates(m) else np.atleast_2d(m.box_coordinates(ys))
    except (ValueError, TypeError, AttributeError):
        return False
    b = float(Real.of(pieces.scales[0]).to_float())
    c1 = np.array([float(c) for c in centres])
    c2 = np.array([float(sum((Fraction(wi) * x for wi, x in zip(w, q2)), Fraction(0))) for w in pieces.centres])
    for y, x in zip(ys, xs):
        want_d = float(np.sum(np.abs(x - c2) - np.abs(x - c1)) / b)
        got_d = m.logpdf([float(v) for v in q], y) - m.logpdf([float(v) for v in q2], y)
        if not abs(got_d - want_d) <= 1e-9 * max(1.0, abs(want_d)):
            return False
    return True


class DensityRatioProof:
    """Proof unit: the density-ratio level of a law stated as Laplace pieces (module docstring)."""

    name = "density ratio (Laplace pieces)"

    def supports(self, mechanism: AnyMechanism, n: int | None, relation: str | None) -> bool:
        return (isinstance(mechanism, LaplaceDensity) and mechanism.output_kind in DENSITY_KINDS and n is not None
                and _neighbour_kind(mechanism, relation) is not None)

    def _level(self, mechanism: AnyMechanism, n: int, kind: str) -> tuple | None:
        """(level at the mechanism's values, level/claimed as a function of ε, Δ, d*, exact, for every ε, Δ)."""
        EPS, DELTA, _ = symbols()
        concrete = mechanism.density_pieces(n)
        if concrete is None or not concrete.centres:
            return None
        try:
            sym = symbolic_copy(mechanism, {"epsilon": Real.of(EPS), "sensitivity": Real.of(DELTA)})
            sp = sym.density_pieces(n)
            lvl, d, exact = density_level(sp, kind, Real.of(DELTA))
            ratio = sympy.simplify(lvl.to_sympy() / Real.of(claimed_epsilon(sym)).to_sympy())
            values = {EPS: Real.of(mechanism.epsilon).to_sympy(), DELTA: Real.of(mechanism.sensitivity).to_sympy()}
            level = Real.of(sympy.simplify(lvl.to_sympy().subs(values)))
            every = not ratio.free_symbols
            return level, ratio, d, exact, every, concrete
        except (TypeError, ValueError, AttributeError):
            lvl, d, exact = density_level(concrete, kind, Real.of(mechanism.sensitivity))
            return lvl, None, d, exact, False, concrete

    def _every_n(self, mechanism: AnyMechanism, kind: str, n: int) -> tuple[Any, Any, bool] | None:
        """``(Δ·column_bound, its ratio to the claim, for every ε, Δ)`` when the law declares a column bound for
        every n and ONE_DIFFER is the relation (one query moves: the level is the largest column times Δ),
        re-checked against the pieces of 1..6 queries and of n; None otherwise."""
        EPS, DELTA, _ = symbols()
        if kind != "one-differ":
            return None
        bound = mechanism.density_pieces(n).column_bound
        if bound is None:
            return None
        for k in sorted({*range(1, 7), n}):
            p = mechanism.density_pieces(k)
            for i in range(k):
                col: Any = Real.of(0)
                for w, b in zip(p.centres, p.scales):
                    if w[i]:
                        col = col + Real.of(abs(Fraction(w[i]))) / Real.of(b)
                if (col - Real.of(bound)).sign() > 0:
                    return None  # the declared bound fails on k queries
        value = Real.of(mechanism.sensitivity) * Real.of(bound)
        try:
            sym = symbolic_copy(mechanism, {"epsilon": Real.of(EPS), "sensitivity": Real.of(DELTA)})
            sb = Real.of(DELTA) * Real.of(sym.density_pieces(n).column_bound)
            ratio = sympy.simplify(sb.to_sympy() / Real.of(claimed_epsilon(sym)).to_sympy())
            return value, ratio, not ratio.free_symbols
        except (TypeError, ValueError, AttributeError):
            return value, None, False

    def prove(self, mechanism: AnyMechanism, n: int | None, relation: str | None) -> Proof | None:
        kind, _ = _neighbour_kind(mechanism, relation)
        got = self._level(mechanism, n, kind)
        if got is None:
            return None
        level, ratio, d, exact, every, pieces = got
        if not _pieces_match_law(mechanism, pieces, n):
            return None
        nb = mechanism.neighbourhood().describe()
        all_n = self._every_n(mechanism, kind, n)
        if all_n is not None and (all_n[0] - Real.of(claimed_epsilon(mechanism))).sign() <= 0:
            bound, bratio, b_every = all_n
            return Proof(upper_float=round_up(bound.to_sympy()), method="density-ratio", upper=str(bound), theorem=THEOREM,
                         domain={"n": "every", "epsilon": "(0, inf)" if b_every else str(mechanism.epsilon),
                                 "sensitivity": "(0, inf)" if b_every else str(mechanism.sensitivity),
                                 "neighbourhood": nb, "scores": "R^n", "outputs": "every output set"},
                         details={"statement": (f"one query moves: log-ratio <= Δ·(largest column Σ_j |w_ji|/b_j) <= "
                                                f"{bound} for every n (the law's declared column bound, re-checked on "
                                                f"1..6 and {n} queries)" + (f" = {bratio}·(claimed ε) for every ε, Δ > 0"
                                                                             if b_every else "")),
                                  "level_at_n": str(level), "n": n, "exact_at_n": exact and (level - bound).sign() == 0})
        return Proof(upper_float=round_up(level.to_sympy()), method="density-ratio", upper=str(level), theorem=THEOREM,
                     domain={"n": n, "epsilon": "(0, inf)" if every else str(mechanism.epsilon),
                             "sensitivity": "(0, inf)" if every else str(mechanism.sensitivity),
                             "neighbourhood": nb, "scores": "R^n", "outputs": "every output set"},
                     details={"statement": (f"sup over outputs and neighbours of the log density ratio = {level}"
                                            + (f" = {ratio}·(claimed ε) for every ε, Δ > 0" if every else "")
                                            + ("" if exact else " (an upper bound: the ℓ1 bound, corners not enumerated)")),
                              "level_over_claimed": None if ratio is None else str(ratio), "exact": exact,
                              "worst_offset_in_units_of_delta": [str(x) for x in d]})

    def witness(self, mechanism: AnyMechanism, n: int | None, relation: str | None) -> Witness | None:
        """A certified witness at the level (module docstring), for the lower end of the bracket."""
        kind, delta = _neighbour_kind(mechanism, relation)
        pieces = mechanism.density_pieces(n)
        if pieces is None or not delta.is_rational:
            return None
        lvl, d, exact = density_level(pieces, kind, delta)
        return _witness(mechanism, pieces, d, delta.value, str(lvl) if exact else None)


def proof_on_neighbourhood(mechanism: AnyMechanism, n: int, nb: Neighbourhood) -> tuple[Proof, Witness | None] | None:
    """The density-ratio level on a neighbourhood *asked for* (``--neighbourhood box:Δ'``: an ℓ∞ box with one
    Δ', or ONE_DIFFER with its Δ') instead of the mechanism's own: the same theorem with Δ' (the level is
    convex in the offset, so its maximum over the box is at a vertex; module docstring), and the witness
    at the level. None when the law is not stated as Laplace pieces or the neighbourhood is of another kind."""
    from ...mechanisms.neighbourhoods import LInfBox
    from ...mechanisms.query_neighbourhoods import OneDiffer

    if not (isinstance(mechanism, LaplaceDensity) and mechanism.output_kind in DENSITY_KINDS):
        return None
    if isinstance(nb, LInfBox) and nb.sensitivities is None:
        kind = "all-differ"
    elif isinstance(nb, OneDiffer):
        kind = "one-differ"
    else:
        return None
    delta = Real.of(nb.sensitivity)
    pieces = mechanism.density_pieces(n)
    if pieces is None or not pieces.centres or not delta.is_rational or not _pieces_match_law(mechanism, pieces, n):
        return None
    level, d, exact = density_level(pieces, kind, delta)
    proof = Proof(upper_float=round_up(level.to_sympy()), method="density-ratio", upper=str(level), theorem=THEOREM,
                  domain={"n": n, "epsilon": str(mechanism.epsilon), "sensitivity": str(delta),
                          "neighbourhood": nb.describe(), "scores": "R^n", "outputs": "every output set"},
                  details={"statement": f"sup over outputs and neighbours ({nb.describe()}) of the log density ratio "
                                        f"= {level}" + ("" if exact else " (an upper bound: the ℓ1 bound, corners not "
                                                                        "enumerated)"), "exact": exact,
                           "worst_offset_in_units_of_delta": [str(x) for x in d]})
    return proof, _witness(mechanism, pieces, d, delta.value, str(level) if exact else None)
