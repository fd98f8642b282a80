"""Where statement S (docs/curves.md) is certified: the ε, the strip of x, and the certificate file behind it.

Each entry was produced by ``benchmarks/curves_pf_s_certify.py`` (every initial box proved; its ``--summary``
says ``certified: true``) and is re-checked by tests/test_curves_pf_separation.py (the file's hash, its
coverage of the strip, and sample leaves re-proved and re-evaluated independently). ``privacy_curve("pf", ε, n)``
uses an entry only for the ε written here, exactly (other ε keep the bracket [n = 2 curve, ε-RR]).

Fields: ``u``: the strip x ∈ [κ + (1 − κ)u₀, κ + (1 − κ)u₁] on which S holds for every ρ ∈ (0, ∞]; ``parts``: the
certificates whose strips (their own ``u``, adjacent, in order) make up that strip — each a separate run of the
runner: ``file`` (relative to the repository root; the runner's jsonl, compressed with ``gzip -n -9``), ``sha256``,
``leaves`` (proved boxes) and ``cpu`` (CPU-s, the run's sum) as measured.
"""

from __future__ import annotations

__all__ = ["CERTIFIED"]

#: exact ε text (as ``str(Real.of(ε))``) -> entry
CERTIFIED: dict[str, dict] = {
    "1/10": {"eps_text": "0.1", "u": (0.2, 0.95), "parts": [
        {"u": (0.2, 0.95), "file": "benchmarks/pf_s_certificate/eps_0.1.jsonl.gz",
         "sha256": "e4ebf37932976ae6d91fbabe59d30b8e844b836fb02f4835d4971ba635726ddf", "leaves": 185268, "cpu": 127.3}]},
    "1/2": {"eps_text": "0.5", "u": (0.2, 0.95), "parts": [
        {"u": (0.2, 0.95), "file": "benchmarks/pf_s_certificate/eps_0.5.jsonl.gz",
         "sha256": "b28d490755deb0bea114161985237e75d1c2e69ec1da1ea2d4a55e87d21d3ee4", "leaves": 48096, "cpu": 27.2}]},
    "1": {"eps_text": "1", "u": (0.05, 0.95), "parts": [
        {"u": (0.05, 0.95), "file": "benchmarks/pf_s_certificate/eps_1.jsonl.gz",
         "sha256": "031e4db34d30b303b211c11cf2adbb77e4ab6c4ebb3dec2cf6dc236d74ca2286", "leaves": 18486, "cpu": 32.2}]},
    "2": {"eps_text": "2", "u": (0.05, 0.95), "parts": [
        {"u": (0.05, 0.95), "file": "benchmarks/pf_s_certificate/eps_2.jsonl.gz",
         "sha256": "e35c66565c0f986e162e33ec580063ba4a2601ecdc3b00b1233216703e1df844", "leaves": 19479, "cpu": 36.1}]},
    # ε = 4 needs two parts: on [0.05, 0.95] alone the end family for u < 0.05 leaves ρ open (width 0.62);
    # the corner strip [0.0125, 0.05] (u0 <= 0.015 is what closes ρ, measured) brings the end family below it
    "4": {"eps_text": "4", "u": (0.0125, 0.95), "parts": [
        {"u": (0.0125, 0.05), "file": "benchmarks/pf_s_certificate/eps_4_corner.jsonl.gz",
         "sha256": "ee21f8a0484a03a60f7a4e66b5fbd82ad547b564c4074985c3ccf1aaf6dc774c", "leaves": 87138, "cpu": 110.4},
        {"u": (0.05, 0.95), "file": "benchmarks/pf_s_certificate/eps_4.jsonl.gz",
         "sha256": "5a34af30d4c9b71b2382f621ad5bd49d3f348078e3d1885c6ab128932edf37dc", "leaves": 147648, "cpu": 121.1}]},
}
