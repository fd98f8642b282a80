"""dpexact: exact, certified analysis of differentially private mechanisms (selection, LDP, sparse vector, your own).

The public API (:mod:`dpexact.api`): ``dpexact.verify``, ``optimal``, ``delta``, ``epsilon``, ``pmf`` — the
CLI's commands as functions, taking a registry name, ``PATH.py:OBJECT`` or a mechanism object and the CLI's
option names as keywords — plus ``mechanism`` / ``available`` (the registry), ``define_mechanism`` and
``conform``. Import is light; heavy libraries (sympy, flint, cvxpy) load when first used.
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # what the lazy attributes below are, for type checkers and IDEs
    from .accounting.accountant import Accountant
    from .api import delta, epsilon, optimal, pmf, verify
    from .conformance.checks import conform
    from .curves.curve import privacy_curve
    from .mechanisms.defined import define_mechanism
    from .mechanisms.loader import mechanism_factory
    from .mechanisms.registry import available, mechanism

__version__ = "0.1.0"
__all__ = ["__version__", "available", "mechanism", "define_mechanism", "mechanism_factory", "conform",
           "verify", "optimal", "delta", "epsilon", "pmf", "privacy_curve", "Accountant"]


def __getattr__(name: str):  # light import: these pull in numpy/flint when first used
    if name in ("available", "mechanism"):  # the registry (numpy): not needed by `dpexact --version`
        from .mechanisms import registry

        return getattr(registry, name)
    if name == "define_mechanism":
        from .mechanisms.defined import define_mechanism

        return define_mechanism
    if name == "mechanism_factory":
        from .mechanisms.loader import mechanism_factory

        return mechanism_factory
    if name == "privacy_curve":
        from .curves.curve import privacy_curve

        return privacy_curve
    if name == "Accountant":
        from .accounting.accountant import Accountant

        return Accountant
    if name == "conform":
        from .conformance.checks import conform

        return conform
    if name == "verify":  # straight from the router: dpexact.api imports more than a verdict needs
        from .verification.router import verify

        return verify
    if name in ("optimal", "delta", "epsilon", "pmf"):
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module 'dpexact' has no attribute {name!r}")
