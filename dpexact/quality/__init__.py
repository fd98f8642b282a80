"""Quality (score) vectors computed from a histogram: mode and median (pf §6, err §VI)."""

from .median import median_distance, median_quality
from .mode import MODE_CONVENTIONS, mode_quality

__all__ = ["MODE_CONVENTIONS", "median_distance", "median_quality", "mode_quality"]
