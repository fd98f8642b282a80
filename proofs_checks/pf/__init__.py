"""Claims of pf (McKenna & Sheldon, *Permute-and-Flip*, NeurIPS 2020) and their checks.

Conventions: PF and EM as in pf Algorithm 1 / Definition 4 (exponent ε/(2Δ)); error
``E = q* - q_M`` (pf eq. 4). Exact checks use ε = 2 log 2 (coins ``p_r = 2^(q_r - q*)`` are
rational on integer scores, so the exact backend works in fmpq); ball checks use arb.
"""

from . import (
    sec2_3_mechanism,
    sec4_error,
    fig1,
    sec5_optimality,
    fig2,
    appendix_a_c,
    sec6_dpbench,
    appendix_f,
)

#: the section modules in paper order (the order of the claims)
SECTIONS = (
    "sec2_3_mechanism",
    "sec4_error",
    "fig1",
    "sec5_optimality",
    "fig2",
    "appendix_a_c",
    "sec6_dpbench",
    "appendix_f",
)
