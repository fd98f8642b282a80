"""Enclosures on a pair of paths' region that use its comparison outcomes, not only its box.

On the region of a pair of branch paths (:mod:`.compact_regions`) the law's natural variables are
ratios of the compact generators: for PF on the neighbour's path where candidate ``a`` has the largest
score, ``u_b = W_b Y_b / (W_a Y_a) = e^{c(q'_b - q'_a)} <= 1``. A term-by-term enclosure over the box
ranges ``W_b``, ``Y_b`` and ``Y_a`` independently and loses that bound (the PF denominator
``3Y_0² - (3/2)W_1Y_0Y_1 - (3/2)W_2Y_0Y_2 + W_1W_2Y_1Y_2 = Y_0²(3 - 3u/2 - 3v/2 + uv)`` then encloses 0).

Here every generator is ``x = e^{f·v}`` for a log-variable ``v`` (``T = e^{1/lcd}`` a constant), so a
Laurent monomial is ``e^{ℓ(v)}`` with ``ℓ`` linear. A polynomial ``p`` is enclosed as ``m · Σ c_k e^{ℓ_k - ℓ_m}``
for a reference term ``m`` (homogenised: ``p/m`` has the sign of ``p``), and each exponent's range is
bounded over the box *and* the region's linear constraints ``c_0 + c·v >= 0`` by weak LP duality: for
any ``λ >= 0``,

    max ℓ <= max_box (ℓ + Σ λ_r c_r)·v + Σ λ_r c_{0,r},

with ``λ`` chosen greedily (each step cancels one variable with one constraint). Any ``λ >= 0`` gives a
bound, so the choice affects only the width, never soundness; the arithmetic is exact (fractions)
until the final ``exp``, taken in arb and rounded outward.
"""

from __future__ import annotations

import copy
from fractions import Fraction
from typing import Any, Optional

from .compact_enclosure import Iv

__all__ = ["Region", "region_of"]

Ext = Optional[Fraction]
GREEDY_STEPS = 3
#: reference terms tried per polynomial (the largest coefficients first)
REFERENCES = 3


class Region:
    """The log-variables' intervals (``None``: infinite end) and the linear constraints of a pair of
    paths on one box, with each generator's log-variable and factor."""

    def __init__(self, ivs: list[list[Ext]], rows: list[tuple[Fraction, tuple[Fraction, ...]]],
                 gen_var: dict[int, tuple[int, Fraction]], t: int, lcd: int) -> None:
        import flint

        self.zero = flint.fmpq(0)
        q = lambda x: None if x is None else flint.fmpq(x.numerator, x.denominator)  # noqa: E731 - C rationals: fast
        self.ivs = [[q(lo), q(hi)] for lo, hi in ivs]
        self.rows = [(q(c0), tuple(q(c) for c in cs)) for c0, cs in rows]
        self.gen_var = {g: (v, q(f)) for g, (v, f) in gen_var.items()}  # generator -> (log-variable, f): x = e^{f·v}
        self.t, self.lcd = t, lcd
        self._ranges: dict = {}  # exponent difference -> range: the same ones recur across polynomials and references

    def without(self, v: int) -> "Region":
        """The cylinder over the region along ``v``: every constraint involving ``v`` dropped, ``v``
        ranging over its whole interval (a superset of the region's projection, so a sign decided on
        it holds on every segment of the box in direction ``v`` through the region)."""
        out = copy.copy(self)
        out._ranges = {}
        out.ivs = [list(x) for x in self.ivs]
        out.rows = [(c0, cs) for c0, cs in self.rows if cs[v] == 0]
        return out

    def move_to_face(self, v: int, value: Fraction | None) -> None:
        """The search moved ``v`` to a face of the box (a monotone direction): the region becomes
        (a superset of) its projection along ``v`` — the constraints involving ``v`` dropped — with
        ``v`` at ``value`` (None: an infinite end, left as an interval). Keeping the constraints would
        bound the face's part of the region only, which need not hold the supremum."""
        import flint

        self._ranges = {}
        self.rows = [(c0, cs) for c0, cs in self.rows if cs[v] == 0]
        if value is not None:
            x = flint.fmpq(value.numerator, value.denominator)
            self.ivs[v] = [x, x]

    # -- linear forms --------------------------------------------------------------------------
    def _form(self, exps: tuple) -> tuple[Any, tuple[Any, ...]]:
        import flint

        a = [flint.fmpq(0)] * len(self.ivs)
        for g, e in enumerate(exps):
            if e and g != self.t:
                v, f = self.gen_var[g]
                a[v] += int(e) * f
        return flint.fmpq(int(exps[self.t]), self.lcd), tuple(a)

    def _box_max(self, a: tuple) -> Ext:
        """max of ``a·v`` over the box (None: +∞)."""
        total = self.zero
        for c, (lo, hi) in zip(a, self.ivs):
            if c == 0:
                continue
            end = hi if c > 0 else lo
            if end is None:
                return None
            total += c * end
        return total

    def upper(self, a0: Fraction, a: tuple) -> Ext:
        """An upper bound of ``a0 + a·v`` on the region (None: +∞), an exact flint rational."""
        a0, a = _fmpq(a0), tuple(_fmpq(x) for x in a)
        best = self._box_max(a)
        best = None if best is None else a0 + best
        res, const = a, a0
        for _ in range(GREEDY_STEPS):
            step = None
            for c0, cs in self.rows:
                for i, (ri, ci) in enumerate(zip(res, cs)):
                    if ri == 0 or ci == 0 or -ri / ci <= 0:
                        continue
                    lam = -ri / ci
                    nres = tuple(x + lam * y for x, y in zip(res, cs))
                    m = self._box_max(nres)
                    if m is None:
                        continue
                    val = const + lam * c0 + m
                    if best is None or val < best:
                        best, step = val, (nres, const + lam * c0)
            if step is None:
                break
            res, const = step
        return best

    def _range(self, exps: tuple, ref: tuple) -> Iv:
        """``e^{ℓ(exps) - ℓ(ref)}`` on the region."""
        import flint

        key = tuple(int(x) - int(y) for x, y in zip(exps, ref))
        hit = self._ranges.get(key)
        if hit is not None:
            return hit
        (c1, a1), (c2, a2) = self._form(exps), self._form(ref)
        a = tuple(x - y for x, y in zip(a1, a2))
        hi = self.upper(c1 - c2, a)
        lo = self.upper(c2 - c1, tuple(-x for x in a))
        top = flint.arb("inf") if hi is None else flint.arb(hi).exp().upper()
        bottom = flint.arb(0) if lo is None else flint.arb(-lo).exp().lower()
        self._ranges[key] = out = Iv(bottom, top)
        return out

    def enclose_over(self, p: Any, ref: tuple) -> Iv:
        """``p / ref`` (``ref`` a monomial's exponents) on the region."""
        import flint

        lo, hi = flint.arb(0), flint.arb(0)
        for exps, c in p.to_dict().items():
            r = self._range(tuple(exps), ref)
            cb = flint.arb(c)
            if c >= 0:
                lo, hi = lo + cb * r.a, hi + cb * r.b
            else:
                lo, hi = lo + cb * r.b, hi + cb * r.a
        return Iv(lo.lower(), hi.upper())

    def references(self, p: Any) -> list[tuple]:
        terms = sorted(p.to_dict().items(), key=lambda kv: -abs(float(kv[1])))
        return [tuple(e) for e, _ in terms[:REFERENCES]]

    def monomial_range(self, alpha: tuple) -> Iv:
        """``x^alpha`` (non-``T`` exponents) on the region: ``[e^{-max(-ℓ)}, e^{max ℓ}]`` (upper +∞ when unbounded)."""
        return self._range(tuple(alpha) + (0,), (0,) * (len(alpha) + 1))

    def enclose_atoms(self, p: Any) -> Iv | None:
        """``p / x^{e_m}`` on the region through its atoms (:mod:`.compact_atoms`: Bernstein bounds on
        the atoms' box); None when ``p`` has no atom decomposition or an atom is unbounded."""
        import flint

        from .compact_atoms import atoms_of, bernstein_range

        tb = (flint.arb(1) / self.lcd).exp()
        groups: dict[tuple, Any] = {}
        for exps, c in p.to_dict().items():
            key = tuple(int(x) for x in exps[:self.t])
            term = flint.arb(c) * tb ** int(exps[self.t]) if exps[self.t] else flint.arb(c)
            groups[key] = groups[key] + term if key in groups else term
        keys = sorted(groups)
        for _, atoms, multi in atoms_of(keys):
            box = []
            for alpha in atoms:
                r = self.monomial_range(alpha)
                if not r.b.is_finite():
                    break
                box.append((r.a, r.b))
            else:
                coeffs: dict[tuple, Any] = {}
                for key, n in zip(keys, multi):
                    coeffs[n] = coeffs[n] + groups[key] if n in coeffs else groups[key]
                out = bernstein_range(coeffs, box)
                if out is not None:
                    return Iv(*out)
        return None

    def sign(self, p: Any, strict: bool = False) -> int:
        """+1 / -1 when ``p >= 0`` / ``<= 0`` on the region (its atoms' Bernstein range; when ``p`` has
        no bounded atoms, homogenised by each reference term; ``strict``: and not identically 0), else 0."""
        if p.is_zero():
            return 0 if strict else 1
        e = self.enclose_atoms(p)
        if e is not None and e.a.is_finite() and e.b.is_finite():
            if e.a >= 0 and (not strict or e.b > 0):
                return 1
            if e.b <= 0 and (not strict or e.a < 0):
                return -1
            return 0  # the atoms' range is the tighter one: the term-by-term duals below rarely decide after it (measured)
        for ref in self.references(p):
            e = self.enclose_over(p, ref)
            if not (e.a.is_finite() and e.b.is_finite()):
                continue
            if e.a >= 0 and (not strict or e.b > 0):
                return 1
            if e.b <= 0 and (not strict or e.a < 0):
                return -1
        return 0

    def ratio_upper(self, num: Any, den: Any) -> Any:
        """An upper bound (arb, possibly +∞) of ``num/den`` on the region, or None when every
        reference leaves the denominator's sign open."""
        import flint

        best = None
        for ref in self.references(den):
            d = self.enclose_over(den, ref)
            if not (d.a.is_finite() and d.b.is_finite()) or not (d.a > 0 or d.b < 0):
                continue
            n = self.enclose_over(num, ref)
            if not (n.a.is_finite() and n.b.is_finite()):
                continue
            qs = [n.a / d.a, n.a / d.b, n.b / d.a, n.b / d.b]
            up = max(q.upper() for q in qs)
            best = up if best is None or up < best else best
        return None if best is None else flint.arb(best)


def region_of(root: Any, box: tuple, rows: list, order: list[int], scale: Fraction) -> Region:
    """The region of a pair of paths on ``box`` (σ per coordinate): log-intervals per coordinate,
    the constraints (:func:`.compact_regions.linear_constraints`, log-variable ``v`` is coordinate
    ``order[v]``) and each generator's coordinate and factor (``M = e^{-g·L}`` on the high half)."""
    from .compact_regions import to_log

    kinds = [kind for _, kind in root.coords]
    ivs = [list(to_log(kind, lo, hi, scale)) for kind, (lo, hi) in zip(kinds, box)]
    k = len(kinds)
    out_rows = []
    for c0, cs, _ in rows:
        v = [Fraction(0)] * k
        for i, c in enumerate(cs):
            v[order[i]] = c
        out_rows.append((c0, tuple(v)))
    gen_var = {root.gen(c): (c, root.scale(c) * (-1 if kind == "L-high" else 1)) for c, kind in enumerate(kinds)}
    return Region(ivs, out_rows, gen_var, root.space.t, root.space.lcd)


def _fmpq(x: Any) -> Any:
    import flint

    return flint.fmpq(x.numerator, x.denominator) if isinstance(x, Fraction) else x
