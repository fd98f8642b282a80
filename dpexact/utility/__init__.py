"""Utility metrics of selection mechanisms (error distribution, dominance, ε for a target).

All metrics use only ``mechanism.pmf(scores, backend, method)``; the error is
``E = q* - q_M`` (pf eq. 4).

* :func:`expected_error` — ``E[E]``
* :func:`error_tail` — ``Pr[E >= t]`` at every error level
* :func:`error_variance` — ``Var[E]``
* :func:`stochastic_dominance` — whether A's tail is <= B's for all t (pf Theorem 2)
* :func:`epsilon_for_error` — the ε at which ``E[E]`` equals a target (pf §6)
"""

from .dominance import Dominance, stochastic_dominance
from .epsilon_for_error import EpsilonForError, epsilon_for_error
from .error_tail import ErrorTail, error_tail
from .expected_error import expected_error
from .variance import error_variance

__all__ = [
    "Dominance",
    "EpsilonForError",
    "ErrorTail",
    "epsilon_for_error",
    "error_tail",
    "error_variance",
    "expected_error",
    "stochastic_dominance",
]
