"""Benchmark suites as data: the peer verifiers' suites (``bench-peers``) and the soundness benchmark
(``bench-verifier``: variants whose privacy is known).

Submodules are imported on use.
"""
