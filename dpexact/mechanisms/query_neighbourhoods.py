"""Neighbouring query vectors as the peer verifiers use them, and the pair families searched.

StatDP (Ding et al. CCS 2018) and CheckDP (Wang et al. CCS 2020) declare, per benchmark,

* ``ALL_DIFFER`` — every query answer may change by at most Δ between neighbours: the ℓ∞ box
  :class:`~dpexact.verify.neighbourhoods.LInfBox` (the sparse-vector and noisy-max claims);
* ``ONE_DIFFER`` — exactly one answer changes, by at most Δ (:class:`OneDiffer`; histograms,
  where one individual touches one bin);
* ``INCREASING`` / ``DECREASING`` (CheckDP) — every answer moves up (down) by at most Δ. Pure
  ε-DP is symmetric in (q, q'), so both give the relation "monotone": ``q' - q ∈ [0, Δ]^n`` or
  ``[-Δ, 0]^n`` (:class:`~.neighbourhoods.MonotoneBox`), and a verifier that checks both orders
  of every pair decides both claims at once.

:func:`query_pairs` builds the finite family of pairs a search tries: constant base vectors at
levels around the threshold (in units of the noise scale, where the laws change) and the
offset shapes of StatDP's input generator (one above / one below / half-half / all above /
all below / x-shape) together with every "first k down, rest up" split, which contains the
extremal pairs of the sparse-vector proofs (Lyu et al. §4). For "monotone" the shapes are those
whose entries are all >= 0 or all <= 0, plus every "first k moved, rest fixed" split.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence

from .neighbourhoods import HistogramAddRemove, HistogramReplace, LInfBox, MonotoneBox, as_vector

__all__ = ["RECORD_FORMS", "neighbourhood_from_record", "OneDiffer", "query_pairs", "offsets", "all_differ", "RELATIONS", "relation_neighbourhood"]

#: the relations a pair family can be built for
RELATIONS = ("all-differ", "one-differ", "monotone")

Vector = tuple[Fraction, ...]


def all_differ(delta: Any = 1) -> LInfBox:
    """StatDP's ALL_DIFFER: ``|q'_i - q_i| <= Δ`` for every i."""
    return LInfBox(delta)


def relation_neighbourhood(relation: str, delta: Any = 1) -> Any:
    """The neighbourhood of ``relation`` (:data:`RELATIONS`) with sensitivity Δ = ``delta``."""
    if relation == "all-differ":
        return all_differ(delta)
    if relation == "one-differ":
        return OneDiffer(delta)
    if relation == "monotone":
        return MonotoneBox(delta)
    raise ValueError(f"relation must be one of {', '.join(RELATIONS)}, got {str(relation)[:40]!r}")


@dataclass(frozen=True)
class OneDiffer:
    """StatDP's ONE_DIFFER: ``q'`` differs from ``q`` in one coordinate, by at most Δ."""

    sensitivity: Any = 1
    name: str = "one-differ"

    def __post_init__(self) -> None:
        d = as_vector([self.sensitivity], "sensitivity")[0]
        if d <= 0:
            raise ValueError(f"sensitivity must be > 0, got {d}")
        object.__setattr__(self, "sensitivity", d)

    def contains(self, q: Sequence[Any], q2: Sequence[Any]) -> bool:
        a, b = as_vector(q), as_vector(q2, "neighbour_scores")
        if len(a) != len(b):
            return False
        diff = [abs(x - y) for x, y in zip(a, b) if x != y]
        return len(diff) <= 1 and all(d <= self.sensitivity for d in diff)

    def candidates(self, q: Sequence[Any], steps: int = 1) -> list[Vector]:
        a = as_vector(q)
        out = []
        for i in range(len(a)):
            for k in range(-steps, steps + 1):
                if k:
                    out.append(a[:i] + (a[i] + Fraction(k, steps) * self.sensitivity,) + a[i + 1 :])
        return out

    def bounds(self, q: Sequence[Any]) -> None:
        return None

    def to_record(self) -> dict[str, Any]:
        return {"relation": "one-differ", "sensitivity": str(self.sensitivity)}

    @classmethod
    def from_record(cls, rec: dict[str, Any]) -> OneDiffer:
        return cls(rec.get("sensitivity", "1"))

    def describe(self) -> str:
        return f"one query differs by at most {self.sensitivity} (ONE_DIFFER)"


def offsets(n: int, delta: Fraction, relation: str = "all-differ") -> list[Vector]:
    """Offset vectors z (``q' = q + z``) of the searched shapes, each in the relation."""
    d = delta
    out: set[Vector] = set()
    if relation == "one-differ":
        for i in range(n):
            for s in (-d, d):
                out.add(tuple(s if j == i else Fraction(0) for j in range(n)))
        return sorted(out)
    if relation not in RELATIONS:
        raise ValueError(f"relation must be one of {', '.join(RELATIONS)}, got {str(relation)[:40]!r}")
    h = n // 2
    for s in (d, -d):
        out.add((s,) * n)  # all above / all below
        out.add((s,) + (-s,) * (n - 1))  # one above, rest below
        out.add((s,) + (Fraction(0),) * (n - 1))
        out.add((Fraction(0),) * (n - 1) + (s,))
        out.add((s,) * h + (-s,) * (n - h))  # half-half / x-shape
        for k in range(1, n):
            out.add((-s,) * k + (s,) * (n - k))  # first k down, rest up
            out.add((Fraction(0),) * k + (s,) * (n - k))
            if relation == "monotone":
                out.add((s,) * k + (Fraction(0),) * (n - k))  # first k moved, rest fixed
    if relation == "monotone":
        out = {z for z in out if all(x >= 0 for x in z) or all(x <= 0 for x in z)}
    return sorted(out)


def query_pairs(
    n: int,
    delta: Any,
    threshold: Any,
    scale: Any,
    relation: str = "all-differ",
    levels: Sequence[Any] = (-8, -4, -2, -1, Fraction(-1, 2), 0, Fraction(1, 2), 1, 2, 4, 8),
) -> list[tuple[Vector, Vector]]:
    """Pairs ``(q, q + z)``: ``q = (T + L·s)·1`` for L in ``levels`` (s = ``scale``), z in :func:`offsets`.

    Also StatDP's literal inputs ``q = (1, …, 1)`` around 0. Values are exact rationals.
    """
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 64:
        raise ValueError(f"n must be an integer in 1..64, got {n!r}")
    d, T, s = as_vector([delta, threshold, scale], "delta/threshold/scale")
    if d <= 0 or s <= 0:
        raise ValueError("delta and scale must be > 0")
    zs = offsets(n, d, relation)
    # extreme levels first: the sparse-vector worst cases sit in the noise tails
    bases = [tuple([T + Fraction(L) * s] * n) for L in sorted(set(Fraction(x) for x in levels), key=lambda x: (-abs(x), x))]
    bases.append(tuple([Fraction(1)] * n))
    out: list[tuple[Vector, Vector]] = []
    for q in dict.fromkeys(bases):
        for z in zs:
            out.append((q, tuple(a + b for a, b in zip(q, z))))
    return out


#: relation name of a record -> the class that reads it back (each writes its own ``to_record``)
RECORD_FORMS: dict[str, Any] = {"box": LInfBox, "monotone": MonotoneBox, "one-differ": OneDiffer,
                                "add-remove": HistogramAddRemove, "replace": HistogramReplace}


def neighbourhood_from_record(rec: Any) -> Any:
    """The relation a record names (``{"relation": NAME, ...}``, written by its class's ``to_record``)."""
    if not isinstance(rec, dict) or not isinstance(rec.get("relation"), str):
        raise ValueError("neighbourhood: expected an object with a relation name")
    cls = RECORD_FORMS.get(rec["relation"])
    if cls is None:
        raise ValueError(f"neighbourhood: unknown relation {rec['relation'][:40]!r}")
    return cls.from_record(rec)
