"""Number backends: exact parameters, the four backends with their operations, `Pmf` and `Certified`."""

from .backends import BACKEND_NAMES, BallBackend, Backend, ExactBackend, FloatBackend, MpBackend, ball_context, get_backend
from .bounded_float import BoundedFloat
from .certified import Certified, ErrorKind
from .pmf import Pmf, pmf_from_numbers
from .real import Real, as_real

__all__ = [
    "BACKEND_NAMES",
    "Backend",
    "BallBackend",
    "BoundedFloat",
    "Certified",
    "ErrorKind",
    "ExactBackend",
    "FloatBackend",
    "MpBackend",
    "Pmf",
    "Real",
    "as_real",
    "ball_context",
    "get_backend",
    "pmf_from_numbers",
]
