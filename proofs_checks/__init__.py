"""Claim catalogue of the source papers (issue 6): one module per paper (``pf``, ``adp``, ``err``,
``brr``, ``hetsel``), the :mod:`.catalogue` framework and :mod:`.report` writers.

Run with ``dpexact check`` or :func:`proofs_checks.catalogue.run_checks`.
"""
