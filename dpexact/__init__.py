"""dpexact: exact analysis of differentially private selection mechanisms.

Import is light; heavy libraries (sympy, flint, cvxpy) load when first used.
"""

from .mechanisms.registry import available, mechanism

__version__ = "0.1.0"
__all__ = ["__version__", "available", "mechanism"]
