"""Laws stated in the terms a whole-space proof reads: threshold-shift coupling factors
(:class:`CouplingUnits`, :class:`ThresholdCouplingLaw`), Laplace density pieces
(:class:`LaplacePieces`, :class:`LaplaceDensity`) and report-noisy-max on integer scores
(:class:`IntegerNoise`, :class:`IntegerNoisyArgmax`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

__all__ = ["CouplingUnits", "ThresholdCouplingLaw", "LaplacePieces", "LaplaceDensity", "IntegerNoise",
           "IntegerNoisyArgmax", "INTEGER_NOISE_FAMILIES"]




@dataclass(frozen=True)
class CouplingUnits:
    """A threshold-noise law stated per query, for the threshold-shift coupling proofs.

    Given the threshold noise ``ρ ~ Lap(threshold_scale)``, the answers are independent and query
    i of answer kind ``k`` contributes the Laplace factors ``kinds[k]`` (each ``(kind, scale)``,
    ``x_i = T + ρ - q_i``): ``("below", b)`` = ``Pr[η < x_i + const]``, ``("above", b)`` =
    ``Pr[η >= x_i + const]``, ``("window", b)`` = ``Pr[η ∈ x_i + I]`` (a released gap),
    ``("fixed", b)`` = a fresh Laplace density of a released ``q_i + η``, ``("released", b)`` = the
    Laplace density of a released ``q_i + η`` whose ⊤ test ``q_i + η >= T + ρ (+ const)`` bounds ρ by the
    released value (only the zero shift aligns it; then it costs ``|Δ_i|/b``), ``("opaque",)`` = a
    factor that moves with ρ other than through ``x_i`` (nothing can be proved).

    Count rule of one output, for every number of queries: ``Σ_k weights[k]·#k <= budget``
    (weight 0: any count; ``budget`` None: no bound — every kind any count). ``redraw_after``:
    the kinds after which the threshold is redrawn from ``Lap(redraw_scale)`` (each segment then has
    a threshold noise, and a shift, of its own; every segment holds at most one such kind, so there
    are at most ``budget`` segments). ``theorem`` cites the result the coupling re-proves.
    Scales are :class:`~dpexact.numbers.Real` (symbolic when the mechanism's parameters are).
    """

    kinds: dict[str, list[tuple]]
    weights: dict[str, int]
    budget: Any
    threshold_scale: Any
    theorem: str
    redraw_scale: Any = None
    redraw_after: tuple[str, ...] = ()


@runtime_checkable
class ThresholdCouplingLaw(Protocol):
    """A mechanism whose law is stated in threshold-shift coupling factors (sparse-vector family).

    ``coupling_units()`` is the per-query statement (:class:`CouplingUnits`, None when the law is
    not of that form, e.g. no query noise); ``coupling_terms(output, n)`` lists, per branch
    sequence reaching ``output``, each query's factors — the same factors, per output.
    """

    def coupling_units(self) -> CouplingUnits | None: ...

    def coupling_terms(self, pattern: str, n: int) -> Any: ...


@dataclass(frozen=True)
class LaplacePieces:
    """A real-valued law that is a product of Laplace laws in its box coordinates.

    With ``x = box_coordinates(y)`` (the identity when the mechanism has none; a map with Jacobian 1),
    the coordinates of ``x`` are independent and ``x_j ~ Σ_i centres[j][i]·q_i + Lap(scales[j])``:

        log p(y | q) = Σ_j -|x_j - c_j(q)| / b_j + const,      c_j(q) = Σ_i centres[j][i] q_i,

    with a constant that does not depend on q. ``centres`` are exact rationals, ``scales`` exact reals
    (symbolic when the mechanism's parameters are). ``column_bound`` (optional): a bound, valid for
    **every** number of queries, on each query's column ``Σ_j |centres[j][i]| / scales[j]`` (how much
    one query moves the law); it lets a one-query-moves proof cover every n.
    """

    centres: tuple[tuple[Any, ...], ...]
    scales: tuple[Any, ...]
    column_bound: Any = None


@runtime_checkable
class LaplaceDensity(Protocol):
    """A continuous mechanism stating its density as Laplace pieces (for density-ratio proofs).

    ``density_pieces(n)`` describes the law on n queries (:class:`LaplacePieces`; None when the law has
    no density, e.g. a noiseless coordinate); ``logpdf(q, y)`` is the same density in floats and
    ``box_probability(q, box, backend)`` the same law on boxes of the box coordinates.
    """

    def density_pieces(self, n: int) -> LaplacePieces | None: ...

    def logpdf(self, queries: Any, y: Any) -> float: ...

    def box_probability(self, queries: Any, box: Any, backend: str = "ball", prec: int = 128) -> Any: ...


#: the integer noise families a proof can read (:class:`IntegerNoise`)
INTEGER_NOISE_FAMILIES = ("two-sided-geometric",)


@dataclass(frozen=True)
class IntegerNoise:
    """One integer noise variable of a noisy-argmax law, stated for the lattice proofs.

    ``"two-sided-geometric"``: ``Pr[Z = z] = (1 - α)/(1 + α) · α^|z|`` for every integer z, with
    ``α = e^{-rate}`` (the difference of two i.i.d. geometric variables on {0, 1, ...} of ratio α).
    ``rate`` is an exact :class:`~dpexact.numbers.Real` > 0.
    """

    rate: Any
    family: str = "two-sided-geometric"


@runtime_checkable
class IntegerNoisyArgmax(Protocol):
    """A selection law on integer score vectors stated as report-noisy-max: the output is an index of
    ``max_r (q_r + Z_r)`` with ``Z_0, Z_1, ...`` i.i.d. as ``integer_noise()`` (:class:`IntegerNoise`),
    ties among the noisy maxima broken uniformly at random. The mechanism also declares
    ``integer_scores``; its ``pmf`` is this law (the lattice proof screens the two against each other)."""

    def integer_noise(self) -> IntegerNoise: ...
