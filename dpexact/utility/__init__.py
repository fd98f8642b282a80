"""Utility metrics of selection mechanisms (error distribution, dominance, ε for a target)."""

from .expected_error import ExpectedError, expected_error

__all__ = ["ExpectedError", "expected_error"]
