"""Data sets used by the papers' experiments (never committed; loaded from a user directory)."""

from .dpbench import (DPBENCH_DATASETS, DPBENCH_ENV, DPBENCH_OTHER_DATASETS, DatasetIntegrityError, DatasetMissingError,
                      dpbench_path, load_dpbench, verify_dpbench_file)

__all__ = ["DPBENCH_DATASETS", "DPBENCH_ENV", "DPBENCH_OTHER_DATASETS", "DatasetIntegrityError", "DatasetMissingError",
           "dpbench_path", "load_dpbench", "verify_dpbench_file"]
