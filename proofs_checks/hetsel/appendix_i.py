"""hetsel: Appendix I: the maximum of Laplace variables (eq. 16)."""

from __future__ import annotations

from ..catalogue import Verdict, claim


@claim("hetsel.equation.16",
       "For independent z_a ~ Laplace(b_a), the CDF of M = max_a z_a is ∏_a Pr(z_a ≤ x), which for x > 0 equals "
       "∏_a (1 − e^{−x/b_a}/2); Pr(M ≤ 0) = 2^{−A} for A candidates.", "hetsel Appendix I, eq. (16)",
       expected="holds",
       scope_quick="sympy: Laplace(b) cdf for x > 0 and at 0; product by independence",
       scope_full="sympy: Laplace(b) cdf for x > 0 and at 0; product by independence")
def equation_16(quick: bool) -> Verdict:
    import sympy

    x, b, z = sympy.symbols("x b z", positive=True)
    cdf_pos = sympy.simplify(1 - sympy.integrate(sympy.exp(-z / b) / (2 * b), (z, x, sympy.oo)))
    ok1 = sympy.simplify(cdf_pos - (1 - sympy.exp(-x / b) / 2)) == 0
    cdf0 = sympy.integrate(sympy.exp(z / b) / (2 * b), (z, -sympy.oo, 0))
    ok2 = sympy.simplify(cdf0 - sympy.Rational(1, 2)) == 0
    # Monte Carlo is not needed: independence gives the product; Pr(M ≤ 0) = (1/2)^A
    A = sympy.symbols("A", positive=True, integer=True)
    return Verdict("holds" if ok1 and ok2 else "refuted", True, "sympy: Laplace(b) cdf for x > 0 and at 0; product by independence",
                   {"Pr(z ≤ x), x > 0": str(cdf_pos), "Pr(z ≤ 0)": str(cdf0), "Pr(M ≤ 0)": str(sympy.Rational(1, 2) ** A)})
