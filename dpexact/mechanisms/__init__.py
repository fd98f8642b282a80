"""Selection mechanisms as immutable objects with exact/ball/float pmfs (see base.py)."""

from .base import SelectionMechanism
from .registry import available, mechanism, register

__all__ = ["SelectionMechanism", "available", "mechanism", "register"]
