"""Permute-and-flip (pf): the mechanism and its three pmf algorithms."""

from .mechanism import PermuteAndFlip

__all__ = ["PermuteAndFlip"]
