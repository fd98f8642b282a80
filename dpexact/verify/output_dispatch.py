"""One entry point that picks the verifier for a mechanism's output space.

==================  =========================================  ===============================
``output_kind``     verifier                                   what a private verdict covers
==================  =========================================  ===============================
``selection``       :func:`.search.verify` (score families)    every (q, q', r) of the scope
                    (with ``relation``: the peers' query pairs
                    via :class:`SelectionOutputs`)
``finite``          :func:`.pattern_search.verify_patterns`    every output of every pair
``mixed``           :mod:`.threshold_coupling` (a checked      every pair and every output set
                    threshold-shift coupling, when the law
                    states its factors), else
                    :func:`.box_search.verify_boxes`           refutation only (boxes)
``interval``        :func:`.box_search.verify_intervals`       refutation only (intervals)
``continuous``      :mod:`.closed_forms` (by family)           every pair and every output set
                    else :func:`.box_search.verify_continuous  refutation only (boxes of the
                    _boxes` (any ``box_probability``)          box coordinates)
==================  =========================================  ===============================
"""

from __future__ import annotations

from typing import Any

from ..numbers.real import Real

from .verdict import Verdict

__all__ = ["verify_mechanism", "verify_any", "SelectionOutputs", "extend_by_couplings"]


class SelectionOutputs:
    """A selection mechanism seen as a finite-output one (outputs ``0..n-1``), so that
    :func:`.pattern_search.verify_patterns` runs it on the peers' query-pair families.

    ``pattern_probability(q, r, "ball:p")`` is entry r of the mechanism's own ball pmf
    (memoised per vector); ``scales()`` gives the noise scale 2Δ/ε (Δ/ε if monotone) that sets
    the family's levels.
    """

    def __init__(self, mechanism: Any) -> None:
        self.mechanism = mechanism
        self.short_name = mechanism.short_name
        self.epsilon = mechanism.epsilon
        self.sensitivity = mechanism.sensitivity
        self.threshold = 0
        self._balls: dict = {}

    def scales(self) -> tuple:
        return (self.mechanism.sensitivity * (1 if getattr(self.mechanism, "monotone", False) else 2) / self.mechanism.epsilon,)

    def outputs(self, n: int) -> list[int]:
        return list(range(n))

    def params(self) -> dict:
        return self.mechanism.params()

    def logpmf(self, q: Any) -> Any:
        return self.mechanism.logpmf(q)

    def pmf(self, q: Any, backend: Any = "float") -> Any:
        key = (tuple(str(x) for x in q), str(backend))
        if key not in self._balls:
            self._balls[key] = self.mechanism.pmf(list(q), backend)
        return self._balls[key]

    def pattern_probability(self, q: Any, r: int, backend: Any = "ball") -> Any:
        return self.pmf(q, backend).values[r]

    def exact_difference_sign(self, q: Any, q2: Any, r: int, eps: Any) -> int | None:
        """Exact sign of ``Pr[M(q) = r] - e^ε Pr[M(q') = r]`` from the mechanism's exact backend
        (decides the ties a ball straddles); ``None`` when it has no exact backend here."""
        import sympy

        from ..numbers.backends import ExactBackend, exact_sympy

        try:
            a = self.pmf(q, "exact").values[r]
            b = self.pmf(q2, "exact").values[r]
        except (ValueError, TypeError):
            return None
        diff = exact_sympy(a) - sympy.exp(Real.of(eps).to_sympy()) * exact_sympy(b)
        return ExactBackend().try_sign(diff)


def _extend_by_coupling(v: Verdict, mechanism: Any, n: int, relation: str) -> None:
    """Add to a pattern verdict what the checked threshold-shift coupling proves beyond its pair family."""
    from .threshold_coupling import coupling_bound

    cb = coupling_bound(mechanism, n, relation)
    eps = Real.of(mechanism.epsilon)
    if cb.finite and not cb.bound > eps:
        v.scope.notes.append(f"beyond the pair family: a threshold-shift coupling checked on the law's factors proves "
                             f"log-ratio <= {cb.bound} <= ε for EVERY pair of neighbours and every output with n = {n} "
                             f"(worst at output {cb.output!r}, shift {cb.shift})")
        v.scope.families["coupling_every_pair"] = cb.outputs


def _extend_by_noisy_max(v: Verdict, mechanism: Any, relation: str) -> None:
    """Add what the noisy-max coupling (:mod:`.noisy_max_coupling`) proves beyond the searched scope."""
    from .noisy_max_coupling import noisy_max_bound

    bound = noisy_max_bound(mechanism, relation)
    if bound is not None and not bound > Real.of(mechanism.epsilon):
        v.scope.notes.append(f"beyond the searched scope: conditioning on the other candidates' noises proves "
                             f"log-ratio <= {bound} <= ε for EVERY pair of neighbours ({relation}), every output and every n")


def extend_by_couplings(v: Verdict, mechanism: Any, neighbourhood: Any) -> None:
    """For a private verdict of a selection mechanism searched on ``neighbourhood``: add what the
    noisy-max coupling proves for every pair, when the neighbourhood is the mechanism's ℓ∞ box
    (every Δ_a equal to its sensitivity) or its monotone box."""
    from ..mechanisms.neighbourhoods import LInfBox, MonotoneBox

    if v.verdict != "private-within-scope":
        return
    delta = Real.of(mechanism.sensitivity)
    if not delta.is_rational:
        return
    d = delta.value
    if isinstance(neighbourhood, MonotoneBox) and neighbourhood.sensitivity == d:
        _extend_by_noisy_max(v, mechanism, "monotone")
    elif isinstance(neighbourhood, LInfBox) and neighbourhood.sensitivities is None and neighbourhood.sensitivity == d:
        _extend_by_noisy_max(v, mechanism, "all-differ")


def _own_relation(mechanism: Any) -> str | None:
    """``"monotone"`` when the mechanism's claim is about monotone neighbours, else None (the default)."""
    from ..mechanisms.neighbourhoods import MonotoneBox

    try:
        nb = mechanism.neighbourhood()
    except (AttributeError, TypeError, ValueError):
        return None
    return "monotone" if isinstance(nb, MonotoneBox) else None


def _query_relation(mechanism: Any) -> str:
    """The query relation of the mechanism's own claim: ``"one-differ"`` / ``"monotone"`` when its
    neighbourhood says so, else ``"all-differ"``."""
    from ..mechanisms.query_neighbourhoods import OneDiffer

    try:
        nb = mechanism.neighbourhood()
    except (AttributeError, TypeError, ValueError):
        return "all-differ"
    return "one-differ" if isinstance(nb, OneDiffer) else (_own_relation(mechanism) or "all-differ")


def verify_mechanism(mechanism: Any, n: int | None = None, relation: str | None = None, name: str | None = None,
                     **kwargs: Any) -> Verdict:
    """Verify the claimed ε of ``mechanism``: the whole-space proofs first (:mod:`.proofs`; ``private``
    when one proves ε for every input of its domain), else the verifier of its output kind (table
    above), whose verdict carries the ε bracket (its certified witness below, a proof's larger bound
    above).

    ``relation``: ``"all-differ"`` / ``"one-differ"`` / ``"monotone"`` (default: the relation of the
    mechanism's own claim — ``"monotone"`` when its neighbourhood is a monotone box — else all-differ).
    """
    import time

    from .proofs import first_proof
    from .proofs.outcome import attach_bracket, proved_verdict, proves

    t0 = time.perf_counter()
    kind = getattr(mechanism, "output_kind", "selection")
    unit = proof = None
    rel = relation if relation is not None else _own_relation(mechanism)
    if kind != "selection" or relation is not None:
        unit, proof = first_proof(mechanism, n, rel)
        if proof is not None and proves(proof, mechanism):
            return proved_verdict(mechanism, proof, name, time.perf_counter() - t0)
    v = _search_mechanism(mechanism, n, relation, name, **kwargs)
    witness = None if unit is None else unit.witness(mechanism, n, rel)
    v = attach_bracket(v, proof, witness)
    v.seconds = time.perf_counter() - t0
    return v


def _search_mechanism(mechanism: Any, n: int | None = None, relation: str | None = None, name: str | None = None,
                      **kwargs: Any) -> Verdict:
    """The verifier of the mechanism's output kind (table above)."""
    kind = getattr(mechanism, "output_kind", "selection")
    if relation is None and kind != "selection":
        relation = _own_relation(mechanism)
    if kind == "finite" and hasattr(mechanism, "pattern_probability"):
        from .pattern_search import verify_patterns

        v = verify_patterns(mechanism, n if n is not None else 10, relation or "all-differ", name=name, **kwargs)
        if v.verdict == "private-within-scope" and hasattr(mechanism, "coupling_terms"):
            _extend_by_coupling(v, mechanism, n if n is not None else 10, relation or "all-differ")
        return v
    if kind == "mixed":
        from .box_search import verify_boxes

        if hasattr(mechanism, "coupling_terms"):  # a checked coupling proves privacy for every output set
            from .threshold_coupling import verify_coupling

            proved = verify_coupling(mechanism, n if n is not None else 10, relation or "all-differ", name=name)
            if proved is not None:
                return proved
        return verify_boxes(mechanism, n if n is not None else 10, relation or "all-differ", name=name, **kwargs)
    if kind == "interval":
        from .box_search import verify_intervals

        return verify_intervals(mechanism, n if n is not None else 5, relation or "all-differ", name=name, **kwargs)
    from .closed_forms import closed_form_for

    closed = closed_form_for(mechanism)
    if closed is not None:
        return closed(mechanism, n, relation, name=name, **kwargs)
    if kind in ("selection", "finite"):
        if relation is not None:  # the peers' query-pair families
            from .pattern_search import verify_patterns

            v = verify_patterns(SelectionOutputs(mechanism), n if n is not None else 5, relation, name=name, **kwargs)
        else:
            from .search import verify

            v = verify(mechanism, n=n, name=name, **kwargs)
        if v.verdict == "private-within-scope":
            _extend_by_noisy_max(v, mechanism, relation or _own_relation(mechanism) or "all-differ")
        return v
    if kind == "continuous":
        if not callable(getattr(mechanism, "box_probability", None)):
            raise TypeError("mechanism: a continuous mechanism needs box_probability(q, box, backend) to be verified "
                            "(a density at points cannot certify a violation on a set of outputs)")
        from .box_search import verify_continuous_boxes

        return verify_continuous_boxes(mechanism, n if n is not None else 3, relation or _query_relation(mechanism),
                                       name=name, **kwargs)
    raise TypeError(f"mechanism: no verifier for output kind {kind!r}")


def verify_any(mechanism: Any, *, neighbourhood: str = "default", searches: Any = None, n: int | None = None,
               values: Any = None, steps: int = 1, relation: str | None = None, delta: Any = None,
               name: str | None = None, progress: Any = None) -> Verdict:
    """What ``dpexact verify`` (and a sweep's ``verify`` task) runs, by claim and output kind:

    * ``delta`` given: (ε, δ)-DP, :func:`.approx_dp.verify_approx` (searches without ``local``);
    * a selection mechanism: :func:`.search.verify` on ``neighbourhood`` (a spec string for
      :func:`.neighbourhoods.parse_neighbourhood`), extended by the couplings that prove more
      (:func:`extend_by_couplings`); with ``relation``, the peers' query-pair families;
    * any other output kind: :func:`verify_mechanism`.
    """
    from .neighbourhoods import parse_neighbourhood

    if relation is not None and relation not in ("all-differ", "one-differ", "monotone"):
        raise ValueError(f"relation must be all-differ, one-differ or monotone, got {str(relation)[:40]!r}")
    kind = getattr(mechanism, "output_kind", "selection")
    report = progress or (lambda k, t: None)
    if delta is not None:
        from .approx_dp import verify_approx

        nb = parse_neighbourhood(neighbourhood, mechanism) if kind == "selection" and relation is None else None
        return verify_approx(mechanism, delta, n=n, relation=relation, values=values, steps=steps, neighbourhood=nb,
                             searches=tuple(s for s in (searches or ("grid", "structured")) if s != "local"), name=name,
                             progress=progress)
    if kind != "selection" or relation is not None:
        report("step", f"verifying {name or mechanism.short_name} ({kind} outputs)")
        return verify_mechanism(mechanism, n, relation, name=name)
    from .search import verify

    nb = parse_neighbourhood(neighbourhood, mechanism)
    v = verify(mechanism, nb, tuple(searches or ("grid", "structured", "local")), n=n, values=values, steps=steps,
               name=name, progress=progress)
    extend_by_couplings(v, mechanism, nb)
    return v
