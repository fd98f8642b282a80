"""Where statement S (docs/curves.md) is certified: the ε, the strip of x, and the certificate file behind it.

Each entry was produced by ``benchmarks/curves_pf_s_certify.py`` (every initial box proved; its ``--summary``
says ``certified: true``) and is re-checked by tests/test_curves_pf_separation.py (the file's hash, its
coverage of the strip, and sample leaves re-proved and re-evaluated independently). ``privacy_curve("pf", ε, n)``
uses an entry only for the ε written here, exactly (other ε keep the bracket [n = 2 curve, ε-RR]).

Fields: ``u``: the strip x ∈ [κ + (1 − κ)u₀, κ + (1 − κ)u₁] on which S holds for every ρ ∈ (0, ∞]; ``file``: the
certificate (relative to the repository root); ``sha256``; ``leaves`` (proved boxes) and ``cpu`` (CPU-s, the
run's sum) as measured.
"""

from __future__ import annotations

__all__ = ["CERTIFIED"]

#: exact ε text (as ``str(Real.of(ε))``) -> entry
CERTIFIED: dict[str, dict] = {
    "1/2": {"eps_text": "0.5", "u": (0.2, 0.95), "file": "benchmarks/pf_s_certificate/eps_0.5.jsonl",
            "sha256": "85fbf937b78651358d86c4a260b091546aa1f86f6793c9e12f39f96c6b9c3900", "leaves": 48096, "cpu": 27.2},
    "1": {"eps_text": "1", "u": (0.05, 0.95), "file": "benchmarks/pf_s_certificate/eps_1.jsonl",
          "sha256": "e54b86b49b6587304b7f176d79c77f39a392fe3c5c7dc2aaf2ac24dceb807692", "leaves": 18486, "cpu": 32.2},
    "2": {"eps_text": "2", "u": (0.05, 0.95), "file": "benchmarks/pf_s_certificate/eps_2.jsonl",
          "sha256": "c726ae6b54ceeee3b91a55bfa9468aff0551752ffe86026ca76869a74a1be9c9", "leaves": 19479, "cpu": 36.1},
}
