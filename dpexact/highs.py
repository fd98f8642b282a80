"""HiGHS instances for every LP in dpexact (the optimal-mechanism LP, the optimal LDP channel).

One place that builds a ``highspy.Highs`` so that solver output never reaches the console:
stdout carries the commands' own output (``--json``, piped text), stderr their progress and
one-line errors.
"""

from __future__ import annotations

import os
import sys
from typing import Any

__all__ = ["silent_highs"]


def silent_highs() -> Any:
    """A ``highspy.Highs`` with its output off (``output_flag`` and ``log_to_console`` False).

    HiGHS writes its log header once per instance, before any other output, unless
    ``output_flag`` is False before the first call that logs (HiGHS issue #1702). highspy >=
    1.16 writes it from the constructor itself, to the C-level stdout, before any option can be
    set: the constructor therefore runs with file descriptor 1 sent to the null device. Only the
    constructor runs there; everything after it is silenced by the options.
    """
    import highspy

    sys.stdout.flush()
    saved = os.dup(1)
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 1)
        h = highspy.Highs()
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(null)
    h.setOptionValue("output_flag", False)
    h.setOptionValue("log_to_console", False)
    return h
