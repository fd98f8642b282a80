"""HiGHS instances for every LP in dpexact (the optimal-mechanism LP, the optimal LDP channel).

One place that builds a ``highspy.Highs`` so that solver output never reaches stdout, where
commands print their JSON.
"""

from __future__ import annotations

import os
import sys
from typing import Any

__all__ = ["silent_highs"]


def silent_highs() -> Any:
    """A ``highspy.Highs`` with its output off.

    highspy >= 1.16 prints a version banner to the C-level stdout when the first instance of a
    process is built, before any option can be set; it is sent to stderr so that stdout carries
    only the command's own output (``--json``).
    """
    import highspy

    sys.stdout.flush()
    saved = os.dup(1)
    try:
        os.dup2(2, 1)
        h = highspy.Highs()
    finally:
        os.dup2(saved, 1)
        os.close(saved)
    h.setOptionValue("output_flag", False)
    return h
