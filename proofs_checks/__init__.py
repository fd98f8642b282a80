"""Claim catalogue of the source papers: one subpackage per paper (``pf``, ``adp``, ``err``,
``brr``, ``hetsel``) with one module per paper section, the :mod:`.catalogue` records and runner
and the :mod:`.report` writers.

Run with ``dpexact check`` or :func:`proofs_checks.run`::

    import proofs_checks
    outcomes = proofs_checks.run(proofs_checks.select(["pf"]), quick=True)
"""

from .catalogue import SEVERITIES, Claim, ClaimVerdict, Figure, Outcome, Verdict, claim, inconclusive, load_catalogue, run, select

__all__ = ["SEVERITIES", "Claim", "ClaimVerdict", "Figure", "Outcome", "Verdict", "claim", "inconclusive", "load_catalogue", "run", "select"]
