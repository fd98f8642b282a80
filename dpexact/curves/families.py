"""Worst-case pairs of output laws: the families over which a mechanism's curves are suprema.

A *family* is a set of pairs (P, Q) of output laws, indexed by a parameter θ in [0, 1] (or a
single pair), such that **every** pair of neighbouring inputs of the mechanism gives a pair that
is a post-processing of some member (so every f-divergence — hockey-stick δ(ε'), Rényi D_α,
KL — of the mechanism is at most the family's supremum) and every member is a pair of
neighbouring inputs or a limit of such pairs (so the supremum is attained or approached).
Members are stored as *groups* ``(Q_i, L_i)``: Q-mass and privacy loss ``L_i = log(P_i/Q_i)``;
the reverse direction is ``(P_i, −L_i)`` with ``P_i = Q_i e^{L_i}``.

Families and the theorems behind them (proofs in docs/curves.md):

* ``em`` (exponential mechanism, any n >= 2; rnm-gumbel, equal in law): η-bounded range with
  η = ε (Durfee & Rogers 2019; Dong, Durfee & Rogers 2020, "Optimal differential privacy
  composition for exponential mechanisms", ICML, Lemma 3.2): every loss lies in an interval
  [a, a + η], a ∈ [−η, 0]. For a convex f the value E_Q[f(r)] with r = P/Q ∈ [e^a, e^{a+η}]
  and E_Q[r] = 1 is largest when r takes only the two end values (Edmundson–Madansky), so the
  binary pair with losses {a + η, a} and Q-mass q = (e^{tη} − 1)/(e^η − 1) on the upper one
  (t = −a/η) dominates. Every t ∈ (0, 1) is attained at every n >= 2 by scores
  (x, 0, …, 0) → (x + Δ, −Δ, …, −Δ).
* ``pf`` at n = 2 (rnm-exp, equal in law; Ding et al. 2021): the law depends on the gap g only,
  ``Pr[2] = e^{−s}/2`` (s = cg >= 0), ``1 − e^{s}/2`` (s < 0), c = ε/(2Δ); by joint convexity
  the worst neighbour moves s by exactly ε, and by the label swap s < −ε is the reverse of
  s >= 0: two pieces, x = e^{−s} ∈ [0, 1] and s = −εu, u ∈ [0, 1], both directions.
* ``rr-eps`` (binary ε-randomised response): dominates every ε-DP pair (Kairouz, Oh &
  Viswanath 2015, Theorem 2.4) — the upper end wherever only pure ε-DP is proved.
* ``grr`` (k-ary randomised response), ``rappor`` (symmetric unary encoding, two bits with
  ε/2 each differ) and ``laplace`` (Lap(1/ε), shift 1; Mironov 2017, Proposition 6): one pair;
  the selection form of GRR mixes rows on ties, and a mixture is dominated by its rows (joint
  convexity).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional

from . import dual as D

__all__ = ["Family", "em_family", "pf2_pieces", "pf_end_pieces", "rr_family", "grr_family", "rappor_family",
           "LaplaceFamily"]


@dataclass(frozen=True)
class Family:
    """A parametrised family of pairs.

    Attributes:
        name: short description.
        groups: θ ↦ list of ``(Q_i, L_i)`` (arb or :class:`~.dual.Dual`; θ is ``None`` for one pair).
        parametrised: whether θ ∈ [0, 1] is used.
        symmetric: the reverse of every member is a member (one direction suffices).
        loss_max: upper bound on |L| (D_∞ of both directions), a float.
        loss_range: upper bound on max L − min L of one member, a float.
        theorem: why the family dominates, and what attains it.
        witness: θ ↦ a description of the neighbouring inputs (or limit) giving the member.
    """

    name: str
    groups: Callable[[Any], list]
    parametrised: bool
    symmetric: bool
    loss_max: float
    loss_range: float
    theorem: str
    witness: Callable[[Optional[float]], dict]

    def directed(self, theta: Any, reverse: bool) -> list:
        # masses are >= 0: max(0, ·) removes the negative part of a ball (arb widens a mass that is 0 at
        # an end of the box below 0, which e^{αL} with large α would turn into a useless bound)
        g = [(D.pos(q), l) for q, l in self.groups(theta)]
        if not reverse:
            return g
        return [(q * D.exp(l), -l) for q, l in g]


def _arb(x: Any) -> Any:
    from flint import arb

    return arb(x)


def em_family(eps: Any, eps_float: float) -> Family:
    """Bounded-range binary family of the exponential mechanism (η = ε)."""

    def groups(t: Any) -> list:
        et = D.exp(t * eps)
        q = (et - 1) / (eps.exp() - 1)
        a = -(t * eps)
        return [(q, a + eps), (1 - q, a)]

    def witness(t: Optional[float]) -> dict:
        import math

        # scores (x, 0, …, 0) -> (x + Δ, −Δ, …): Q = EM(q), P = EM(q'), upper loss on output 0
        return {"family_parameter_t": t, "inputs": "scores (x, 0, ..., 0) and (x + Δ, −Δ, ..., −Δ), n >= 2",
                "note": "any n >= 2 gives the same member for a suitable x",
                "t_to_x": "x solves q_0 = (e^{tε} − 1)/(e^ε − 1) for the output-0 probability of EM(q) with n − 1 zeros",
                "x_for_n2": None if t is None else _em_x(t, eps_float, math)}

    return Family(f"exponential mechanism, bounded range η = ε", groups, True, True, eps_float, eps_float,
                  "Dong–Durfee–Rogers 2020 Lemma 3.2 (bounded range) + Edmundson–Madansky (convexity); "
                  "attained at every n >= 2", witness)


def _em_x(t: float, eps: float, math: Any) -> Optional[float]:
    """Score x (in units of 2Δ/ε) at n = 2 with Pr[EM(x, 0) = 0] = (e^{tε} − 1)/(e^ε − 1)."""
    q = math.expm1(t * eps) / math.expm1(eps)
    if not 0 < q < 1:
        return None
    return math.log(q / (1 - q)) * 2 / eps  # in units of Δ


def pf2_pieces(eps: Any, eps_float: float) -> list[Family]:
    """The two pieces of permute-and-flip's n = 2 family (both directions; see module docstring)."""
    e_m = (-eps).exp()

    def groups_a(x: Any) -> list:
        p1, p2 = 1 - x / 2, x / 2
        q1, q2 = 1 - x * e_m / 2, x * e_m / 2
        return [(q1, D.log(p1 / q1)), (q2, eps + 0 * x)]

    def groups_b(u: Any) -> list:
        s = -(u * eps)
        es = D.exp(s)
        p1, p2 = es / 2, 1 - es / 2
        q2 = D.exp(-s - eps) / 2
        q1 = 1 - q2
        return [(q1, D.log(p1 / q1)), (q2, D.log(p2 / q2))]

    def wit_a(x: Optional[float]) -> dict:
        import math

        g = None if not x else -math.log(x) * 2 / eps_float
        return {"family_parameter_x": x, "inputs": "scores (g, 0) and (g + Δ, −Δ) (gap g >= 0, in units of Δ)",
                "g": g, "note": "x = 0 is the limit g → ∞"}

    def wit_b(u: Optional[float]) -> dict:
        g = None if u is None else -u * 2
        return {"family_parameter_u": u, "inputs": "scores (g, 0) and (g + Δ, −Δ), −2Δ <= g <= 0 (in units of Δ)",
                "g": g}

    th = "PF at n = 2: law depends on the gap only; joint convexity puts the neighbour at a gap change of 2Δ"
    return [Family("permute-and-flip n = 2, gap >= 0", groups_a, True, False, eps_float, 2 * eps_float, th, wit_a),
            Family("permute-and-flip n = 2, gap in [−2Δ, 0]", groups_b, True, False, eps_float, 2 * eps_float, th, wit_b)]


def pf_end_pieces(eps: Any, eps_float: float, x1: Any, x2: Any) -> list[Family]:
    """PF at every n, the two ends of the frontier where statement S is not certified (docs/curves.md, "S").

    With S certified for x ∈ [x1, x2] (``curves/pf_s_certified.py``), a pair whose smallest ratio r_j = a(x) has
    x < x1 also has r_j <= a(x1), hence r_i <= B(x1); one with x > x2 has r_i <= e^ε (pure DP). By
    Edmundson–Madansky the binary pair with losses {log a(x), h} (h = log B(x1), resp. ε; Q-mass (1 − a)/(e^h − a)
    on h) dominates it. a(x) = x²/(2x − κ), B(x) = (2x − x²)/κ, κ = e^{−ε}; θ ∈ [0, 1] runs over x ∈ [κ, x1] and
    [x2, 1]. These members are upper ends only (not attained): the curve's lower end stays the n = 2 family.
    """
    kap = (-eps).exp()

    def piece(x_lo: Any, x_hi: Any, h: Any) -> Any:
        eh = h.exp()

        def groups(t: Any) -> list:
            x = x_lo + (x_hi - x_lo) * t
            a = x * x / (2 * x - kap)
            q = (1 - a) / (eh - a)
            return [(q, h + 0 * t), (1 - q, D.log(a))]

        return groups

    def wit(_t: Any) -> dict:
        return {"inputs": "none: an upper member (S certified on [x1, x2]; pure DP beyond x2), not a pair of inputs"}

    th = "statement S certified on x in [x1, x2] + Edmundson–Madansky; pure ε-DP for x > x2 (docs/curves.md)"
    b1 = (2 * x1 - x1 * x1) / kap
    return [Family("PF every n: frontier end x in [κ, x1] (upper only)", piece(kap, x1, b1.log()), True, False,
                   eps_float, 2 * eps_float, th, wit),
            Family("PF every n: frontier end x in [x2, 1] (upper only)", piece(x2, 1 + 0 * kap, eps), True, False,
                   eps_float, 2 * eps_float, th, wit)]


def _fixed(name: str, groups: list, loss_max: float, theorem: str, inputs: str) -> Family:
    return Family(name, lambda _t: groups, False, True, loss_max, 2 * loss_max, theorem,
                  lambda _t: {"inputs": inputs})


def rr_family(eps: Any, eps_float: float) -> Family:
    """Binary ε-randomised response: losses ±ε, Q-masses 1/(1+e^ε), e^ε/(1+e^ε)."""
    z = 1 + eps.exp()
    return _fixed("ε-randomised response (dominates every ε-DP pair)", [(1 / z, eps), (eps.exp() / z, -eps)], eps_float,
                  "Kairouz–Oh–Viswanath 2015 Theorem 2.4", "any ε-DP mechanism: not attained in general")


def grr_family(eps: Any, eps_float: float, k: int) -> Family:
    """k-ary randomised response rows x, x′: losses ε, −ε, 0 (k − 2 outputs)."""
    e = eps.exp()
    z = e + (k - 1)
    g = [(1 / z, eps), (e / z, -eps)]
    if k > 2:
        g.append((_arb(k - 2) / z, 0 * eps))
    return _fixed(f"{k}-ary randomised response", g, eps_float, "one pair of rows; ties mix rows (joint convexity)",
                  "true items x and x′ ≠ x (selection: scores with distinct argmax)")


def rappor_family(eps: Any, eps_float: float) -> Family:
    """Symmetric unary encoding: two bits, each kept with probability e^{ε/2}/(1 + e^{ε/2})."""
    s = 1 / (1 + (eps / 2).exp())
    g = [(s * s, eps), (2 * s * (1 - s), 0 * eps), ((1 - s) * (1 - s), -eps)]
    return _fixed("RAPPOR (symmetric unary encoding)", g, eps_float,
                  "inputs differ in two bits; the other bits have equal laws and cancel",
                  "one-hot encodings of two different values")


class LaplaceFamily:
    """Lap(1/ε) at 0 and at 1 (sensitivity 1): closed forms (Mironov 2017, Proposition 6).

    φ(α) = log[α/(2α−1) e^{(α−1)ε} + (α−1)/(2α−1) e^{−αε}],  KL = ε + e^{−ε} − 1,
    δ(ε') = max(0, 1 − e^{(ε'−ε)/2}).
    """

    name = "Laplace mechanism, scale Δ/ε, shift Δ"
    parametrised = False
    symmetric = True
    theorem = "Mironov 2017 Proposition 6; the shift Δ is the worst (monotone in the shift)"

    def __init__(self, eps: Any, eps_float: float) -> None:
        self.eps = eps
        self.loss_max = eps_float
        self.loss_range = 2 * eps_float

    def witness(self, _t: Any) -> dict:
        return {"inputs": "true answers 0 and Δ"}

    def log_mgf(self, _theta: Any, alpha: Any, reverse: bool) -> Any:
        e = self.eps
        return (alpha / (2 * alpha - 1) * ((alpha - 1) * e).exp() + (alpha - 1) / (2 * alpha - 1) * (-alpha * e).exp()).log()

    def kl(self, _theta: Any, reverse: bool) -> Any:
        return self.eps + (-self.eps).exp() - 1

    def hockey(self, _theta: Any, eps_prime: Any, reverse: bool) -> Any:
        return D.pos(1 - ((eps_prime - self.eps) / 2).exp())


def log_mgf(fam: Any, theta: Any, alpha: Any, reverse: bool) -> Any:
    """φ(α) = log Σ Q_i e^{α L_i} = (α − 1) D_α(P‖Q), as log1p(Σ P_i expm1((α − 1) L_i)).

    The second form is O(α − 1) term by term (Σ P_i = 1 is used exactly), so an enclosure over a
    box of θ is O(α − 1) wide instead of O(1) — the dependency problem near α = 1.
    """
    if isinstance(fam, LaplaceFamily):
        return fam.log_mgf(theta, alpha, reverse)
    beta = alpha - 1
    groups = fam.directed(theta, reverse)
    s = 0
    for q, l in groups:
        s = q * D.exp(l) * D.expm1(l * beta) + s
    sv = s.v if isinstance(s, D.Dual) else s
    if sv > -0.5:
        return D.log1p(s)
    # far from α = 1 the sum is not small and the direct form has no cancellation to avoid
    t = 0
    for q, l in groups:
        t = q * D.exp(l * alpha) + t
    out = D.log(t)
    ov = out.v if isinstance(out, D.Dual) else out
    if ov.is_finite() or not isinstance(out, D.Dual):
        return out
    # On a box where a mass that vanishes at an end meets a huge e^{αL}, the midpoint-radius balls
    # straddle 0 and the log is undefined. Each term is >= 0, so φ ∈ [0, log Σ upper(term)]: a valid
    # enclosure of the value (the derivative is left undefined, so only this bound is used).
    from flint import arb

    u = arb(0)
    for q, l in groups:
        u += ((q.v if isinstance(q, D.Dual) else q) * (l.v * alpha if isinstance(l, D.Dual) else l * alpha).exp()).upper()
    return D.Dual(arb(0).union(u.log()), arb("nan"))


def kl(fam: Any, theta: Any, reverse: bool) -> Any:
    """KL(P‖Q) = Σ Q_i e^{L_i} L_i."""
    if isinstance(fam, LaplaceFamily):
        return fam.kl(theta, reverse)
    s = 0
    for q, l in fam.directed(theta, reverse):
        s = q * D.exp(l) * l + s
    return s


def hockey(fam: Any, theta: Any, eps_prime: Any, reverse: bool) -> Any:
    """δ(ε') = Σ Q_i (e^{L_i} − e^{ε'})₊."""
    if isinstance(fam, LaplaceFamily):
        return fam.hockey(theta, eps_prime, reverse)
    ee = eps_prime.exp()
    s = 0
    for q, l in fam.directed(theta, reverse):
        s = q * D.pos(D.exp(l) - ee) + s
    return s
