"""The symmetry-reduced LP for the optimal regular mechanism on Q(n, k) (pf Appendix D).

pf App. D, with ``x_r(q) = Pr[M(q) = r]`` for ``q ∈ Q(n, k)`` (:mod:`.lattice`):

    minimise   Σ_{q∈Q} Σ_r x_r(q) (q* − q_r)          (= −(paper's objective Σ x_r(q) q_r))
    subject to x_r(q) >= e^{−ε} x_r(q′)   ∀ q, r      (privacy, pf Prop. 2)
               x_r(q) = x_{π(r)}(Πq)      ∀ q, r, π   (symmetry)
               Σ_r x_r(q) = 1             ∀ q          (sum-to-one)
               x_r(q) >= 0                             (the paper writes "> 0"; an LP needs >=)

with the worst-case neighbour (pf App. D)

    q′ = q + 2Δ e_r            if q_r < 0,
    q′ = q + 2Δ (e_r − 1)      if q_r = 0   (the shift of q + 2Δ e_r that has maximum 0).

**Symmetry reduction** (pf App. D, "grouped into equivalence classes"): one variable
``z(c, ℓ)`` per class ``c`` (counts per level) and level ``ℓ`` present in ``c``; the symmetry
constraints disappear. In level units (``ℓ = −q_r/2Δ``):

* ``ℓ >= 1``: ``z(c, ℓ) >= e^{−ε} z(c − e_ℓ + e_{ℓ−1}, ℓ − 1)``;
* ``ℓ = 0``: ``z(c, 0) >= e^{−ε} z(c″, 0)`` where ``c″`` has ``r`` alone at level 0 and every
  other score one level lower: ``c″_0 = 1, c″_1 = c_0 − 1, c″_{j+1} = c_j`` (j >= 1);
* sum-to-one ``Σ_ℓ c_ℓ z(c, ℓ) = 1``; objective ``Σ_c mult(c) Σ_ℓ c_ℓ · 2Δℓ · z(c, ℓ)``.

**Leaving the bounded lattice** (not specified in pf). When ``q_r = 0`` and another score is
already at level k, q′ has a score at level k + 1, outside Q(n, k). Two choices, selected by
``boundary``:

* ``"clip"`` (default): compare with ``q″ = max(q′, −2Δk)`` (the out-of-range scores are
  raised back to level k). For every *regular* mechanism ``Pr[M(q″)=r] <= Pr[M(q′)=r]`` by
  monotonicity (pf Def. 3, eq. 3: only scores s ≠ r went up), so ``x_r(q) >= e^{−ε} x_r(q″)``
  is implied by the true privacy constraint: every regular ε-DP mechanism on the whole
  lattice, restricted to Q, stays feasible, and the LP keeps as many constraints as the
  bounded lattice can express. This is the tightest valid choice.
* ``"drop"``: omit those constraints (a weaker relaxation; the optimum can only decrease).

Either way the LP is a *relaxation* of "regular ε-DP mechanisms restricted to Q": it keeps
Prop. 2's sufficient constraints but not monotonicity itself (as in pf), so its optimum is a
lower bound on ``Σ_q E[err(M, q)]`` for every regular ε-DP mechanism M, and PF is feasible.

**Scaled variables** for the solver: ``w(c, ℓ) = e^{εℓ} z(c, ℓ)``. The ℓ >= 1 privacy rows
become ``w(c, ℓ) − w(c′, ℓ−1) >= 0`` (coefficients ±1), the ℓ = 0 rows
``w(c, 0) − e^{−ε} w(c″, 0) >= 0``, the sum-to-one rows ``Σ c_ℓ e^{−εℓ} w = 1``. This keeps
PF-like solutions (``z ∝ e^{−εℓ}``) of order one for large ε. Column scaling changes neither
the optimal value nor which bases are optimal, so certificates (:mod:`.exact_certificate`)
work in the unscaled ``z`` directly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from ..cost_limits import check_cost
from ..mechanisms.validation import positive_real
from ..numbers.real import Real
from .cost_model import estimate_build_cost
from .lattice import MAX_CLASSES, LatticeClass, check_float_sums, check_nk, count_classes, count_vectors, lattice_classes

__all__ = ["Boundary", "RegularLP", "build_regular_lp", "check_exact_weights", "exp_minus_epsilon", "max_objective_weight"]

Boundary = Literal["clip", "drop"]


def exp_minus_epsilon(epsilon: Real) -> Real:
    """``e^{−ε}`` as an exact Real: rational when ε = log(rational) (e.g. ``"log(3/2)"``)."""
    if epsilon.is_rational:
        if epsilon.value == 0:
            return Real.of(1)
        import sympy

        return Real.of(sympy.exp(-epsilon.to_sympy()), "exp(-epsilon)")
    import sympy

    return Real.of(sympy.simplify(sympy.exp(-epsilon.to_sympy())), "exp(-epsilon)")


@dataclass(frozen=True, eq=False)
class RegularLP:
    """Structure of the reduced LP (number-type free: coefficients are built on demand).

    Attributes:
        n, k, epsilon, sensitivity, boundary: the instance.
        classes: the symmetry classes, in variable order.
        var_class, var_level: class index and level of every variable ``z(c, ℓ)``.
        var_count: ``c_ℓ`` (candidates sharing the variable) for every variable.
        var_mult: multiplicity ``mult(c)`` of the variable's class (Python ints in an object array).
        row_var, row_other: privacy row ``i`` reads ``z[row_var[i]] >= e^{−ε} z[row_other[i]]``.
        class_start: variables of class ``j`` are ``class_start[j]:class_start[j+1]``.
        dropped: privacy constraints omitted (``boundary="drop"``) or trivial (``q′ = q``).
    """

    n: int
    k: int
    epsilon: Real
    sensitivity: Real
    boundary: Boundary
    classes: list[LatticeClass]
    var_class: np.ndarray
    var_level: np.ndarray
    var_count: np.ndarray
    var_mult: np.ndarray
    row_var: np.ndarray
    row_other: np.ndarray
    class_start: np.ndarray
    dropped: int
    _cache: dict = field(default_factory=dict, repr=False)

    # -- sizes ---------------------------------------------------------------------------------
    @property
    def num_vars(self) -> int:
        return int(self.var_class.size)

    @property
    def num_privacy_rows(self) -> int:
        return int(self.row_var.size)

    @property
    def num_constraints(self) -> int:
        """Privacy rows plus one sum-to-one row per class (non-negativity not counted)."""
        return self.num_privacy_rows + len(self.classes)

    @property
    def num_vectors(self) -> int:
        return count_vectors(self.n, self.k)

    @property
    def rho(self) -> Real:
        """``e^{−ε}`` (exact)."""
        if "rho" not in self._cache:
            self._cache["rho"] = exp_minus_epsilon(self.epsilon)
        return self._cache["rho"]

    def rho_float(self) -> float:
        return float(np.exp(-self.epsilon.to_float()))

    def variable_index(self, cls: LatticeClass, level: int) -> int:
        j = self._class_index()[cls.counts]
        start, stop = int(self.class_start[j]), int(self.class_start[j + 1])
        for i in range(start, stop):
            if self.var_level[i] == level:
                return i
        raise KeyError(f"level {level} is not present in class {cls.counts}")

    def _class_index(self) -> dict[tuple[int, ...], int]:
        if "index" not in self._cache:
            self._cache["index"] = {c.counts: j for j, c in enumerate(self.classes)}
        return self._cache["index"]

    # -- float matrices (unscaled z or scaled w) -------------------------------------------------
    def float_arrays(self, scaled: bool = True) -> dict[str, Any]:
        """Float64 data of ``min cost·v  s.t.  A_eq v = 1, A_ub v >= 0, v >= 0`` (scipy CSR).

        ``v = w`` (scaled, see the module docstring) or ``v = z``. The cost is the objective
        in level units divided by ``|Q|`` (the mean error per vector, in units of 2Δ).
        """
        import scipy.sparse as sp

        rho = self.rho_float()
        nv, nr, nc = self.num_vars, self.num_privacy_rows, len(self.classes)
        lev = self.var_level.astype(np.float64)
        colscale = rho**lev if scaled else np.ones(nv)  # z = colscale * w
        mult = np.array([float(m) for m in self.var_mult]) / float(self.num_vectors)
        cost = mult * self.var_count * lev * colscale
        a_eq = sp.csr_matrix((self.var_count * colscale, (self.var_class, np.arange(nv))), shape=(nc, nv))
        other_level0 = self.var_level[self.row_var] == 0
        if scaled:
            coef_other = np.where(other_level0, -rho, -1.0)
            coef_self = np.ones(nr)
        else:
            coef_self = np.ones(nr)
            coef_other = np.full(nr, -rho)
        rows = np.concatenate([np.arange(nr), np.arange(nr)])
        cols = np.concatenate([self.row_var, self.row_other])
        a_ub = sp.csr_matrix((np.concatenate([coef_self, coef_other]), (rows, cols)), shape=(nr, nv))
        return {"cost": cost, "A_eq": a_eq, "A_ub": a_ub, "colscale": colscale}

    def objective_scale(self) -> Real:
        """Factor turning the solver's objective into ``Σ_q E[err]`` in score units: ``2Δ|Q|``."""
        return self.sensitivity * 2 * self.num_vectors

    def to_cvxpy(self, scaled: bool = True) -> tuple[Any, Any]:
        """The same LP as a ``cvxpy.Problem`` (matrix form); returns ``(problem, variable)``."""
        import cvxpy as cp

        d = self.float_arrays(scaled)
        v = cp.Variable(self.num_vars, nonneg=True)
        cons = [d["A_eq"] @ v == 1]
        if self.num_privacy_rows:
            cons.append(d["A_ub"] @ v >= 0)
        return cp.Problem(cp.Minimize(d["cost"] @ v), cons), v


def max_objective_weight(n: int, k: int) -> int:
    """``max mult(c)·c_ℓ·ℓ`` over the variables of Q(n, k): the largest integer objective weight.

    ``mult(c)·c_ℓ = n·(n − 1)!/∏ c′!`` with ``c′ = c − e_ℓ`` a composition of ``n − 1``, so the maximum
    is ``k·n`` times the largest multinomial of ``n − 1`` into ``k + 1`` parts (the most balanced one,
    ordered so that ``c_0 >= 1``); 0 when every error is 0 (``n = 1`` or ``k = 0``).
    """
    if n < 2 or k < 1:
        return 0
    q, r = divmod(n - 1, k + 1)  # r parts of q + 1 and k + 1 − r parts of q (k may be 10^9: no list of parts)
    multinomial = math.factorial(n - 1) // (math.factorial(q + 1) ** r * math.factorial(q) ** (k + 1 - r))
    return k * n * multinomial


def check_exact_weights(n: int, k: int) -> None:
    """Refuse Q(n, k) whose objective weights ``mult(c)·c_ℓ·ℓ`` reach ``2^53``: the proven bounds of every
    solution (:mod:`.tree_bounds`) need them exact in float64 (Q(50, 1): 3.2e15, Q(70, 1): 7.9e21)."""
    check_float_sums(n, k)
    w = max_objective_weight(n, k)
    if w >= 2**53:
        raise ValueError(f"n, k: Q({n}, {k}) has objective weights mult(c)·c_ℓ·ℓ up to about 10^{w.bit_length() * math.log10(2):.0f}, beyond 2^53: "
                         f"the LP's proven bounds need them exact in float64; use smaller n or k")


def _neighbour_level0(counts: tuple[int, ...], k: int, boundary: Boundary) -> tuple[int, ...] | None:
    """Class of q′ = q + 2Δ(e_r − 1) for r at level 0 (``None``: outside Q and dropped)."""
    others = list(counts)
    others[0] -= 1  # r itself stays at level 0, alone
    if sum(others) == 0:
        return None  # n = 1: q′ = q, the constraint is trivial
    new = [1] + [0] * k
    for level, c in enumerate(others):
        if c == 0:
            continue
        target = level + 1
        if target > k:
            if boundary == "drop":
                return None
            target = k  # clip: max(q′, −2Δk)
        new[target] += c
    return tuple(new)


def build_regular_lp(
    n: int,
    k: int,
    epsilon: Any,
    *,
    sensitivity: Any = 1,
    boundary: Boundary = "clip",
    max_classes: int = MAX_CLASSES,
    max_memory: Any = "default",
) -> RegularLP:
    """Build the symmetry-reduced LP of pf App. D on Q(n, k) (see the module docstring).

    Args:
        n: number of candidates (>= 1).
        k: lattice depth (scores in ``{0, −2Δ, …, −2Δk}``), >= 0.
        epsilon: ε > 0, exact (``"log(2)"`` makes e^{−ε} rational).
        sensitivity: Δ > 0 (only scales errors; the LP itself is Δ-free in level units).
        boundary: ``"clip"`` or ``"drop"``: what to do when q′ leaves Q(n, k).
        max_classes: guard against instances that would exhaust memory.
        max_memory: memory budget in bytes for the build (:mod:`.cost_model`); ``"default"``
            is half the physical RAM, ``None`` disables the check.

    Raises:
        CostLimitError: (a ValueError) the estimated memory exceeds ``max_memory``; raised
            before anything is enumerated.
    """
    check_nk(n, k)
    eps = positive_real(epsilon, "epsilon")
    delta = positive_real(sensitivity, "sensitivity")
    if boundary not in ("clip", "drop"):
        raise ValueError(f"boundary must be 'clip' or 'drop', got {boundary!r}")
    nclasses = count_classes(n, k)
    if nclasses > max_classes:
        raise ValueError(f"n, k: Q({n}, {k}) has {nclasses} classes, above max_classes={max_classes}")
    check_exact_weights(n, k)
    check_cost(estimate_build_cost(n, k), max_memory=max_memory)
    classes = list(lattice_classes(n, k))
    index = {c.counts: j for j, c in enumerate(classes)}
    var_class, var_level, var_count, var_mult = [], [], [], []
    class_start = [0]
    for j, c in enumerate(classes):
        m = c.multiplicity
        for level, cnt in enumerate(c.counts):
            if cnt:
                var_class.append(j)
                var_level.append(level)
                var_count.append(cnt)
                var_mult.append(m)
        class_start.append(len(var_class))
    var_class_a = np.array(var_class, dtype=np.int64)
    var_level_a = np.array(var_level, dtype=np.int64)
    # position of level ℓ inside its class block
    pos: dict[tuple[int, int], int] = {(int(var_class_a[i]), int(var_level_a[i])): i for i in range(len(var_class))}
    row_var, row_other = [], []
    dropped = 0
    for j, c in enumerate(classes):
        for level, cnt in enumerate(c.counts):
            if not cnt:
                continue
            i = pos[(j, level)]
            if level > 0:
                nb = list(c.counts)
                nb[level] -= 1
                nb[level - 1] += 1
                row_var.append(i)
                row_other.append(pos[(index[tuple(nb)], level - 1)])
            else:
                nb2 = _neighbour_level0(c.counts, k, boundary)
                if nb2 is None:
                    dropped += 1
                    continue
                jj = index[nb2]
                if jj == j:
                    dropped += 1  # z >= e^{-ε} z: implied by z >= 0
                    continue
                row_var.append(i)
                row_other.append(pos[(jj, 0)])
    mult_a = np.empty(len(var_mult), dtype=object)
    mult_a[:] = var_mult
    return RegularLP(
        n=n,
        k=k,
        epsilon=eps,
        sensitivity=delta,
        boundary=boundary,
        classes=classes,
        var_class=var_class_a,
        var_level=var_level_a,
        var_count=np.array(var_count, dtype=np.int64),
        var_mult=mult_a,
        row_var=np.array(row_var, dtype=np.int64),
        row_other=np.array(row_other, dtype=np.int64),
        class_start=np.array(class_start, dtype=np.int64),
        dropped=dropped,
    )
