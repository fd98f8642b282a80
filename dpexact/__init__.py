"""dpexact: exact, certified analysis of differentially private mechanisms (selection, LDP, sparse vector, your own).

Import is light; heavy libraries (sympy, flint, cvxpy) load when first used.
"""

from .mechanisms.registry import available, mechanism

__version__ = "0.1.0"
__all__ = ["__version__", "available", "mechanism", "define_mechanism", "mechanism_factory", "conform"]


def __getattr__(name: str):  # light import: these pull in numpy/flint when first used
    if name == "define_mechanism":
        from .mechanisms.defined import define_mechanism

        return define_mechanism
    if name == "mechanism_factory":
        from .mechanisms.loader import mechanism_factory

        return mechanism_factory
    if name == "conform":
        from .conformance.checks import conform

        return conform
    raise AttributeError(f"module 'dpexact' has no attribute {name!r}")
