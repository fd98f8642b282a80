"""A soundness corpus of selection mechanisms written by hand with ``define_mechanism`` (n = 3, Δ = 1,
the ℓ∞ box neighbourhood, claimed ε = 1), correct and broken, with levels derived by hand.

Every entry carries

* ``pmf`` — the law as a user writes it (backend operations ``ops``);
* ``reference`` — the same law written again independently, on mpmath numbers (a probability
  vector), from its mathematical definition;
* ``level`` — the privacy level sup_{q ~ q', r} log(P(q)_r / P(q')_r) derived by hand (the
  derivation in ``why``), as an interval ``[level_lo, level_hi]`` (``inf``: unbounded or not derived
  above, for broken laws whose witness already exceeds ε);
* ``witness`` — neighbours ``(q, q', r)`` whose reference log-ratio lies in the level interval
  (for a broken law it exceeds ε = 1: the law is not 1-DP whatever any verifier says);
* ``truth`` — "private" when ``level_hi <= 1``, else "not-private";
* ``unusual`` — the law branches, or breaks, only at large or unusual scores (|q| >= 10^3, a spread
  >= 10^3, one constant such as 3333.5, ...).

Level derivations used below (Δ = 1, n = 3, ℓ∞ box):

* EM over transformed scores ``u_a = f(q_a)`` (or of the whole vector), P_r ∝ exp(u_r):
  log-ratio = (u_r − u'_r) + log Z(u') − log Z(u) <= (u_r − u'_r) + max_a (u'_a − u_a), so the level
  is at most Δ_u(r) + max_a Δ_u(a) where Δ_u(a) = sup |u_a − u'_a| over neighbours (McSherry & Talwar
  2007, Thm 6, on u); for u = c·q it is 2c, approached as the others' gap grows (the witness at gap
  G has log-ratio 2c − O(e^{−cG})).
* GRR on the argmax with weight e^a, ties shared: every probability lies in
  [1, e^a]/(e^a + n − 1), so the level is at most a; the top overtaken attains it.
* A law whose exponent jumps across a constant: the witness straddles the constant; its reference
  log-ratio is the certified lower end (the level is at least that, often unbounded).

The corpus is shared: ``tests/test_own_corpus.py`` checks each derivation against the law and runs
the verifier on each entry (the verifier's verdicts must be sound: no ``private`` above ε, no
``violated`` at or below ε).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable

import mpmath

import dpexact

__all__ = ["Entry", "CORPUS", "reference_log_ratio"]

EPS = 1


@dataclass(frozen=True)
class Entry:
    name: str
    mechanism: Any
    reference: Callable[[list], list]
    level_lo: float
    level_hi: float
    witness: tuple[tuple[str, ...], tuple[str, ...], int]
    why: str
    unusual: bool

    @property
    def truth(self) -> str:
        return "private" if self.level_hi <= EPS else "not-private"


def _mp(x: Any) -> Any:
    f = Fraction(str(x))
    return mpmath.mpf(f.numerator) / f.denominator


def reference_log_ratio(e: Entry, q: Any = None, q2: Any = None, r: int | None = None) -> Any:
    """log P(q)_r − log P(q')_r from the entry's independent reference, at 60 digits."""
    q, q2, r = (e.witness if q is None else (q, q2, r))
    with mpmath.workdps(60):
        a = e.reference([_mp(x) for x in q])[r]
        b = e.reference([_mp(x) for x in q2])[r]
        return mpmath.log(a) - mpmath.log(b)


# -- references (mpmath) --------------------------------------------------------------------------------
def _softmax_ref(u: list) -> list:
    m = max(u)
    w = [mpmath.exp(x - m) for x in u]
    s = mpmath.fsum(w)
    return [x / s for x in w]


def _em_ref(c: Fraction) -> Callable[[list], list]:
    return lambda q: _softmax_ref([_mp(c) * x for x in q])


def _grr_ref(a: Fraction) -> Callable[[list], list]:
    def ref(q: list) -> list:
        top = max(q)
        k = sum(1 for x in q if x == top)
        e, n = mpmath.exp(_mp(a)), len(q)
        return [(e + k - 1) / (k * (e + n - 1)) if x == top else 1 / (e + n - 1) for x in q]
    return ref


# -- laws (backend operations) ----------------------------------------------------------------------------
def _softmax(u: list, ops: Any) -> list:
    top = ops.max(u)
    w = [ops.exp(x - top) for x in u]
    s = ops.sum(w)
    return [v / s for v in w]


def _em(c: Fraction) -> Callable:
    def pmf(q, p, ops):
        k = ops.num(str(c))
        return _softmax([k * x for x in q], ops)
    return pmf


def _em_raw(c: Fraction) -> Callable:
    def pmf(q, p, ops):  # exp(c q_a) / Σ exp(c q_b), no max subtracted
        k = ops.num(str(c))
        w = [ops.exp(k * x) for x in q]
        s = ops.sum(w)
        return [v / s for v in w]
    return pmf


def _grr(a: Fraction) -> Callable:
    def pmf(q, p, ops):
        top = ops.argmax(q)
        e, n, k = ops.exp(ops.num(str(a))), len(q), len(top)
        return [(e + k - 1) / (k * (e + n - 1)) if r in top else 1 / (e + n - 1) for r in range(n)]
    return pmf


def _define(name: str, pmf: Callable, **props: bool) -> Any:
    return dpexact.define_mechanism(name, pmf, epsilon=EPS, properties=props or None)


SYM = dict(symmetric=True)
SYM_SHIFT = dict(symmetric=True, shift_invariant=True)
F = Fraction


def _em_witness(g: int = 40) -> tuple:
    """The EM level's approach: q_0 lowered by 1, the others (g above) raised by 1."""
    return (("0", str(g), str(g)), ("-1", str(g + 1), str(g + 1)), 0)


def _entries() -> list[Entry]:
    out: list[Entry] = []

    # -- ordinary laws -------------------------------------------------------------------------------------
    for c in (F(1, 2), F(1, 4), F(1, 3), F(3, 4), F(1), F(3, 2)):
        out.append(Entry(f"em-c{c}", _define(f"own-em-{c}", _em(c), **SYM_SHIFT), _em_ref(c),
                         float(2 * c) - 1e-12, float(2 * c), _em_witness(),
                         f"EM with exponent c = {c}: level 2c = {2 * c} (approached as the gap grows)", False))
    for c in (F(1, 2), F(3, 4)):
        out.append(Entry(f"em-raw-c{c}", _define(f"own-em-raw-{c}", _em_raw(c), **SYM), _em_ref(c),
                         float(2 * c) - 1e-12, float(2 * c), _em_witness(),
                         f"EM written without subtracting the max (same law): level 2c = {2 * c}", False))
    for a in (F(1), F(1, 2), F(1, 3), F(2), F(3, 2)):
        out.append(Entry(f"grr-a{a}", _define(f"own-grr-{a}", _grr(a), **SYM_SHIFT), _grr_ref(a),
                         float(a), float(a), (("0", "-1/2", "-1/2"), ("-1", "1/2", "-1/2"), 0),
                         f"GRR on the argmax with weight e^{a}: level {a}, attained when the top is overtaken", False))

    def uniform(q, p, ops):
        return [ops.from_int(1) / len(q) for _ in q]

    out.append(Entry("uniform", _define("own-uniform", uniform, **SYM_SHIFT), lambda q: [mpmath.mpf(1) / len(q)] * len(q),
                     0.0, 0.0, (("0", "0", "0"), ("1", "-1", "0"), 0), "the uniform law: level 0", False))

    def always0(q, p, ops):
        return [ops.from_int(1) if r == 0 else ops.from_int(0) for r in range(len(q))]

    out.append(Entry("always-0", _define("own-always0", always0, shift_invariant=True),
                     lambda q: [mpmath.mpf(1)] + [mpmath.mpf(0)] * (len(q) - 1),
                     0.0, 0.0, (("0", "0", "0"), ("1", "-1", "0"), 0), "a constant output: level 0", False))

    for half, hi in ((F(1, 2), True), (F(1), False)):
        def top1(q, p, ops, half=half):
            top = ops.argmax(q)
            b = ops.exp(ops.num(str(half)))
            w = [b if r in top else ops.from_int(1) for r in range(len(q))]
            s = ops.sum(w)
            return [x / s for x in w]

        def top1_ref(q, half=half):
            t = max(q)
            b = mpmath.exp(_mp(half))
            w = [b if x == t else mpmath.mpf(1) for x in q]
            s = mpmath.fsum(w)
            return [x / s for x in w]

        b = mpmath.exp(_mp(half))
        lv = float(mpmath.log(b * (2 * b + 1) / (b + 2)))
        out.append(Entry(f"top1-ties-{half}", _define(f"own-top1-{half}", top1, **SYM_SHIFT), top1_ref, lv, lv,
                         (("0", "0", "1"), ("1", "1", "0"), 2),
                         f"weight b = e^{half} to each maximiser: level log(b(2b+1)/(b+2)) = {lv:.6f} (a unique top "
                         f"against the same output outside a tie of the other two)", False))

    # -- unusual: jumps at absolute score constants (broken) -----------------------------------------------------
    def jump_pmf(c: F, c2: F, t: F, below: bool) -> Callable:
        def pmf(q, p, ops):
            k, k2, tt = ops.num(str(c)), ops.num(str(c2)), ops.num(str(t))
            u = [(k2 if (ops.compare(x, tt) < 0 if below else ops.compare(x, tt) > 0) else k) * x for x in q]
            return _softmax(u, ops)
        return pmf

    def jump_ref(c: F, c2: F, t: F, below: bool) -> Callable:
        def ref(q):
            return _softmax_ref([(_mp(c2) if ((x < _mp(t)) if below else (x > _mp(t))) else _mp(c)) * x for x in q])
        return ref

    for c, c2, t, below in ((F(1, 4), F(3, 8), F(-1000), True), (F(1, 4), F(1, 2), F(-5000), True),
                            (F(1, 4), F(3, 8), F(2000), False), (F(1, 4), F(3, 8), F(6667, 2), False),
                            (F(1, 4), F(1, 8), F(-1000), True), (F(1, 4), F(3, 8), F(-10000), True)):
        # witness: q_0 at the constant (exponent c), q'_0 one step across it (exponent c2); the others
        # far from the constant on the far side, moving the other way
        step = -1 if below else 1
        far = t + 2000  # far above in the transformed scores, so the others dominate both laws
        w = ((str(t), str(far), str(far)), (str(t + step), str(far - step), str(far - step)), 0)
        e = Entry(f"em-jump-{c}-{c2}-at-{t}", _define(f"own-jump-{c}-{c2}-{t}", jump_pmf(c, c2, t, below), **SYM),
                  jump_ref(c, c2, t, below), 0.0, float("inf"), w,
                  f"EM whose exponent is {c2} instead of {c} for scores {'below' if below else 'above'} {t}: the transform "
                  f"x ↦ k(x)·x jumps by |{c}·{t} − {c2}·{t + step}| across the constant; the witness straddles it", True)
        lo = float(reference_log_ratio(e))
        out.append(Entry(e.name, e.mechanism, e.reference, lo, e.level_hi, e.witness, e.why, True))

    # -- unusual: the exponent changes once the spread passes a constant (shift-invariant, broken) --------------
    def spread_pmf(c: F, c2: F | None, s: F) -> Callable:
        def pmf(q, p, ops):
            spread = ops.max(q) + ops.max([-x for x in q])
            if ops.compare(spread, ops.num(str(s))) >= 0:
                if c2 is None:
                    return [ops.from_int(1) / len(q) for _ in q]
                return _softmax([ops.num(str(c2)) * x for x in q], ops)
            return _softmax([ops.num(str(c)) * x for x in q], ops)
        return pmf

    def spread_ref(c: F, c2: F | None, s: F) -> Callable:
        def ref(q):
            if max(q) - min(q) >= _mp(s):
                return [mpmath.mpf(1) / len(q)] * len(q) if c2 is None else _softmax_ref([_mp(c2) * x for x in q])
            return _softmax_ref([_mp(c) * x for x in q])
        return ref

    for c, c2, s in ((F(1, 4), F(1, 2), F(1000)), (F(1, 4), F(3, 8), F(2500)), (F(1, 8), None, F(1000)),
                     (F(1, 4), F(1, 2), F(10000)), (F(1, 2), F(1), F(18))):
        # witness: q at the spread s (exponent c2 or uniform), q' at s - 1 (exponent c), output the minimum:
        # for c2 > c the ratio at the minimum is about e^{(c2 - c)s}; for the uniform law e^{c(s-1)}/1.5
        if c2 is None:
            w = (("0", "0", str(-s)), ("-1", "-1", str(-s)), 2)
        else:
            w = (("0", "0", str(-(s - 1))), ("1", "1", str(-(s - 1))), 2)
        e = Entry(f"em-spread-{c}-{c2}-at-{s}", _define(f"own-spread-{c}-{c2}-{s}", spread_pmf(c, c2, s), **SYM_SHIFT),
                  spread_ref(c, c2, s), 0.0, float("inf"), w,
                  f"EM with exponent {c} that becomes {'uniform' if c2 is None else f'EM with exponent {c2}'} once "
                  f"max − min >= {s}: the witness straddles the spread", True)
        lo = float(reference_log_ratio(e))
        hi = float("inf")
        if c2 is None:  # the uniform side: c·s' + log((2 + e^{-c s'})/3), s' < s the neighbour's spread
            hi = float(_mp(c) * _mp(s) + mpmath.log((2 + mpmath.exp(-_mp(c) * _mp(s))) / 3)) + 1e-9
        out.append(Entry(e.name, e.mechanism, e.reference, lo, hi, e.witness, e.why, True))

    # -- unusual: branches at large constants that change nothing (correct) ----------------------------------
    def noop_abs(c: F, t: F) -> Callable:
        def pmf(q, p, ops):
            k = ops.num(str(c))
            top = ops.max(q)
            w = []
            for x in q:  # both branches compute the same weight
                if ops.compare(x, ops.num(str(t))) < 0:
                    w.append(ops.exp(k * (x - top)))
                else:
                    w.append(ops.exp(k * x - k * top))
            s = ops.sum(w)
            return [v / s for v in w]
        return pmf

    for c, t in ((F(1, 2), F(-1000)), (F(1, 2), F(6667, 2)), (F(1, 4), F(10000))):
        out.append(Entry(f"em-noop-branch-{c}-at-{t}", _define(f"own-noop-{c}-{t}", noop_abs(c, t), **SYM),
                         _em_ref(c), float(2 * c) - 1e-12, float(2 * c), _em_witness(),
                         f"EM with c = {c} and a branch at {t} whose two sides compute the same weight: level 2c", True))

    def noop_spread(q, p, ops):
        spread = ops.max(q) + ops.max([-x for x in q])
        k = ops.num("1/2")
        if ops.compare(spread, ops.num("1000")) >= 0:
            top = ops.max(q) + 1  # a constant shift of the top cancels in the softmax
            w = [ops.exp(k * (x - top)) for x in q]
            s = ops.sum(w)
            return [v / s for v in w]
        return _softmax([k * x for x in q], ops)

    out.append(Entry("em-noop-spread-1000", _define("own-noop-spread", noop_spread, **SYM_SHIFT), _em_ref(F(1, 2)),
                     1.0 - 1e-12, 1.0, _em_witness(),
                     "EM with c = 1/2; past a spread of 1000 the top is shifted by 1 (cancels): level 1", True))

    def noop_grr(q, p, ops):
        if ops.compare(ops.max(q), ops.num("10000")) >= 0:
            return _grr(F(1))(q, p, ops)
        return _grr(F(1))(q, p, ops)

    out.append(Entry("grr-noop-10000", _define("own-grr-noop", noop_grr, **SYM_SHIFT), _grr_ref(F(1)), 1.0, 1.0,
                     (("0", "-1/2", "-1/2"), ("-1", "1/2", "-1/2"), 0),
                     "GRR (a = 1) with a no-op branch at a top of 10^4: level 1", True))

    # -- unusual: clamped spreads (correct: the clamp is 1-Lipschitz per coordinate) ---------------------------
    def clamp_pmf(c: F, s: F) -> Callable:
        def pmf(q, p, ops):
            top = ops.max(q)
            k = ops.num(str(c))
            if ops.compare(ops.max(q) + ops.max([-x for x in q]), ops.num(str(s))) >= 0:
                low = top - ops.num(str(s))
                q = [ops.max([x, low]) for x in q]
            return _softmax([k * x for x in q], ops)
        return pmf

    def clamp_ref(c: F, s: F) -> Callable:
        def ref(q):
            low = max(q) - _mp(s)
            return _softmax_ref([_mp(c) * max(x, low) for x in q])
        return ref

    for c, s in ((F(1, 4), F(1000)), (F(1, 2), F(1000)), (F(1, 2), F(20))):
        # u_a = c·max(q_a, max q − s): each u_a moves by at most c under |q_a − q'_a| <= 1, so the level is <= 2c
        w = _em_witness(int(s) - 2)
        e = Entry(f"em-clamped-{c}-at-{s}", _define(f"own-clamp-{c}-{s}", clamp_pmf(c, s), **SYM_SHIFT),
                  clamp_ref(c, s), 0.0, float(2 * c), w,
                  f"EM with c = {c} on scores clamped to max q − {s} once the spread reaches {s}: "
                  f"q ↦ max(q_a, max q − {s}) is 1-Lipschitz per coordinate (ℓ∞), so the level is <= 2c", True)
        out.append(Entry(e.name, e.mechanism, e.reference, float(reference_log_ratio(e)), e.level_hi, w, e.why, True))

    # -- unusual: one exact constant (broken) ----------------------------------------------------------------------
    def at_point(c: F, t: F) -> Callable:
        def pmf(q, p, ops):
            k = ops.num(str(c))
            if any(ops.eq(x, ops.num(str(t))) for x in q):
                k = 2 * k
            return _softmax([k * x for x in q], ops)
        return pmf

    def at_point_ref(c: F, t: F) -> Callable:
        def ref(q):
            k = _mp(c) * (2 if any(x == _mp(t) for x in q) else 1)
            return _softmax_ref([k * x for x in q])
        return ref

    for c, t in ((F(1, 2), F(6667, 2)), (F(1, 2), F(-1000))):
        w = ((str(t - 1), str(t + 8), str(t + 8)), (str(t), str(t + 9), str(t + 9)), 0)
        e = Entry(f"em-doubles-at-{t}", _define(f"own-point-{c}-{t}", at_point(c, t), **SYM),
                  at_point_ref(c, t), 0.0, float("inf"), w,
                  f"EM with c = {c} whose exponent doubles when a score equals {t} exactly", True)
        out.append(Entry(e.name, e.mechanism, e.reference, float(reference_log_ratio(e)), e.level_hi, w, e.why, True))

    def gap_point(q, p, ops):
        k = ops.num("1/2")
        if ops.eq(q[0] - q[1], ops.num("1000")):
            k = 2 * k
        return _softmax([k * x for x in q], ops)

    def gap_point_ref(q):
        k = mpmath.mpf(1) if q[0] - q[1] == 1000 else mpmath.mpf(1) / 2
        return _softmax_ref([k * x for x in q])

    w = (("1000", "0", "999"), ("999", "1", "1000"), 1)
    e = Entry("em-doubles-at-gap-1000", _define("own-gap-point", gap_point), gap_point_ref, 0.0, float("inf"), w,
              "EM with c = 1/2 whose exponent doubles when q_0 − q_1 equals 1000 exactly", True)
    out.append(Entry(e.name, e.mechanism, e.reference, float(reference_log_ratio(e)), e.level_hi, w, e.why, True))

    # -- unusual: a bonus on candidate 0 past a score of 5000 ------------------------------------------------------
    def bonus_pmf(beta: F) -> Callable:
        def pmf(q, p, ops):
            k = ops.num("1/4")
            u = [k * x for x in q]
            if ops.compare(q[0], ops.num("5000")) > 0:
                u[0] = u[0] + ops.num(str(beta))
            return _softmax(u, ops)
        return pmf

    def bonus_ref(beta: F) -> Callable:
        def ref(q):
            u = [x / 4 for x in q]
            if q[0] > 5000:
                u[0] = u[0] + _mp(beta)
            return _softmax_ref(u)
        return ref

    for beta in (F(1, 2), F(1)):
        # u_0 = q_0/4 + β[q_0 > 5000] moves by <= 1/4 + β, the others by <= 1/4: level <= 1/2 + β (EM on u),
        # approached with q_0 crossing 5000 downwards and the others far above
        w = (("10001/2", "5100", "5100"), ("9999/2", "5101", "5101"), 0)
        lv = float(F(1, 2) + beta)
        out.append(Entry(f"em-bonus-{beta}-past-5000", _define(f"own-bonus-{beta}", bonus_pmf(beta)), bonus_ref(beta),
                         lv - 1e-9, lv, w,
                         f"EM (c = 1/4) with a bonus {beta} on candidate 0 once q_0 > 5000: level 1/2 + β = {lv}", True))
    return out


def _finish(e: Entry) -> Entry:
    """The witness in the direction of the larger log-ratio (neighbours are symmetric), and
    ``level_lo`` its reference log-ratio less 1e-12 (a lower bound of the level by definition)."""
    q, q2, r = e.witness
    a, b = reference_log_ratio(e, q, q2, r), reference_log_ratio(e, q2, q, r)
    w, lr = ((q, q2, r), a) if a >= b else ((q2, q, r), b)
    lo = float(lr) - 1e-12
    if lo > e.level_hi:  # a derivation that the law contradicts: never ship it
        raise AssertionError(f"{e.name}: witness log-ratio {lr} above the derived level {e.level_hi}")
    return Entry(e.name, e.mechanism, e.reference, lo, e.level_hi, w, e.why, e.unusual)


CORPUS: list[Entry] = [_finish(e) for e in _entries()]
