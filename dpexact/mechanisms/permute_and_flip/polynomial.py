"""Exact PF pmf by polynomial integration (exact backend).

    Pr[r] = p_r ∫_0^1 F(t) / (1 - p_r t) dt,   F(t) = ∏_v (1 - p_v t)^{m_v}

(pf Lemma 2 summed in closed form; v runs over distinct weights with multiplicities m_v).
Over the rationals (``flint.fmpq_poly``) this is exact and fast; over sympy expressions
(irrational weights such as ``exp(-1/3)`` or a symbolic ε) the same algebra is done on
coefficient lists.
"""

from __future__ import annotations

from typing import Any

__all__ = ["pf_pmf_polynomial_fmpq", "pf_pmf_polynomial_sympy"]


def _groups(p: list[Any]) -> tuple[list[Any], list[int], list[int]]:
    vals: list[Any] = []
    counts: list[int] = []
    index: list[int] = []
    for v in p:
        for j, u in enumerate(vals):
            if u == v:
                counts[j] += 1
                index.append(j)
                break
        else:
            vals.append(v)
            counts.append(1)
            index.append(len(vals) - 1)
    return vals, counts, index


def pf_pmf_polynomial_fmpq(p: list[Any]) -> list[Any]:
    from flint import fmpq, fmpq_poly

    vals, counts, index = _groups(p)
    F = fmpq_poly([1])
    for v, m in zip(vals, counts):
        F *= fmpq_poly([1, -v]) ** m
    per_value = []
    for v in vals:
        g, rem = divmod(F, fmpq_poly([1, -v]))
        assert rem == 0
        per_value.append(v * g.integral()(fmpq(1)))
    return [per_value[j] for j in index]


def pf_pmf_polynomial_sympy(p: list[Any]) -> list[Any]:
    import sympy

    vals, counts, index = _groups([sympy.nsimplify(v) if v.is_Float else v for v in p])
    coeffs = [sympy.Integer(1)]
    for v, m in zip(vals, counts):
        for _ in range(m):
            new = coeffs + [sympy.Integer(0)]
            for k in range(len(coeffs), 0, -1):
                new[k] = sympy.expand(new[k] - v * coeffs[k - 1])
            coeffs = new
    per_value = []
    for v in vals:
        # synthetic division of F by (1 - v t): g_0 = F_0, g_k = F_k + v g_{k-1}
        g = [coeffs[0]]
        for k in range(1, len(coeffs) - 1):
            g.append(sympy.expand(coeffs[k] + v * g[-1]))
        integral = sum((gk / (k + 1) for k, gk in enumerate(g)), sympy.Integer(0))
        per_value.append(sympy.expand(v * integral))  # exact; simplify() is cosmetic and slow
    return [per_value[j] for j in index]
