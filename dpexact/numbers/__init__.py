"""Number backends: exact parameters, the four backends and the `Pmf` result type."""

from .backends import BACKEND_NAMES, BallBackend, Backend, ExactBackend, FloatBackend, MpBackend, get_backend
from .pmf import Pmf
from .real import Real, as_real

__all__ = [
    "BACKEND_NAMES",
    "Backend",
    "BallBackend",
    "ExactBackend",
    "FloatBackend",
    "MpBackend",
    "Pmf",
    "Real",
    "as_real",
    "get_backend",
]
