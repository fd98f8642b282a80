"""Replayable evidence: a verdict's counterexample (or bracket witness) as a self-contained record,
and its re-check from that record alone — no search, exact or ball arithmetic.

:func:`evidence_record` turns the evidence of a :class:`~.verdict.Verdict` into a JSON record that
names everything the re-check needs: the mechanism (registry name, or ``PATH.py:OBJECT`` as the user
named it with the file's SHA-256 in ``mechanism_sha256``, or ``module:OBJECT``) and the parameters it
was built with, the claimed ε (and δ),
the neighbouring relation, ``q``, ``q'`` and the output set. :func:`replay` rebuilds the mechanism
and the relation from the record and calls the re-check of the evidence's own class, which proves

* a counterexample: ``q ~ q'`` and ``Pr[M(q) ∈ S] > e^ε Pr[M(q') ∈ S]`` (plus δ for (ε, δ));
  the classes are those the searches produce (selection index, pattern, (ε, δ) event, box of
  released values, interval, box of a continuous output), each re-checked by its ``recheck``;
* a bracket witness (finite outputs): ``q ~ q'`` and ``log(Pr[M(q)=r] / Pr[M(q')=r]) >= lower``
  in ball arithmetic.

A record whose mechanism or relation cannot be rebuilt is refused with ValueError (never guessed).
A record is data: it never names code that is run (:mod:`.replay_record` — registry names only, or
the mechanism the user names), and the ε it reports is the ε the re-check used.
"""

from __future__ import annotations
from ..protocols import AnyMechanism, Neighbourhood

import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

__all__ = ["evidence_record", "replay", "ReplayResult", "REPLAY_PREC"]

#: ball precision (bits) of a replay
REPLAY_PREC = 256


def _saved_forms() -> dict[type, str]:
    """The counterexample classes that have a saved form, and its name (the class itself, not a subclass:
    a subclass may carry more than the form saves)."""
    from .decide.counterexample import Counterexample
    from .search.approx_dp import ApproxCounterexample
    from .search.boxes import BoxCounterexample, ContinuousBoxCounterexample, IntervalCounterexample
    from .search.patterns import PatternCounterexample

    return {Counterexample: "selection", PatternCounterexample: "pattern", ApproxCounterexample: "event",
            BoxCounterexample: "box", IntervalCounterexample: "interval", ContinuousBoxCounterexample: "continuous-box"}


@dataclass(frozen=True)
class ReplayResult:
    """``holds``: the evidence was proved again (neighbours and the inequality)."""

    kind: str
    holds: bool
    neighbours: bool
    arithmetic: str
    claim: str
    log_ratio: tuple[float, float] | None
    note: str
    seconds: float
    #: what was checked, rebuilt from the record (never the record's own text): the mechanism spec
    #: built, the ε it states, the δ parsed, the relation re-serialised
    mechanism: str = ""
    epsilon: str = ""
    delta: str | None = None
    neighbourhood: dict[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        from ..schemas.numbers import list_with_exact

        return {"mechanism": self.mechanism, "epsilon": self.epsilon, "delta": self.delta,
                "neighbourhood": self.neighbourhood, "kind": self.kind, "holds": self.holds, "neighbours": self.neighbours, "arithmetic": self.arithmetic,
                "claim": self.claim, **({} if self.log_ratio is None else list_with_exact("log_ratio", self.log_ratio)),
                **({"note": self.note} if self.note else {}), "seconds": self.seconds}


def _mechanism_fields(spec: str) -> dict[str, Any]:
    """The record's mechanism as the user named it, plus the SHA-256 of a ``PATH.py`` file: the
    replay imports only a file the user names again (``-m``), and the digest tells whether it is
    the same code (:func:`.replay_record.trusted_spec`)."""
    from .replay_record import file_digest

    digest = file_digest(spec)
    return {"mechanism": spec, **({} if digest is None else {"mechanism_sha256": digest})}


def _relation_record(nb: Neighbourhood) -> dict[str, Any] | None:
    """The relation's own record (:class:`~dpexact.protocols.RecordedRelation`), or None when it has none."""
    from ..protocols import RecordedRelation

    return nb.to_record() if isinstance(nb, RecordedRelation) else None


def _relation(rec: Any) -> Any:
    from ..mechanisms.query_neighbourhoods import neighbourhood_from_record

    return neighbourhood_from_record(rec)


def evidence_record(verdict: Any, mechanism: str, params: dict[str, Any], neighbourhood: Neighbourhood | None = None) -> dict[str, Any] | None:
    """The replay record of ``verdict``'s counterexample, else of its bracket's witness (whose
    relation is ``neighbourhood``, default the score neighbourhood of the verdict's own claim,
    :attr:`~.claim.Claim.witness_neighbourhood`); None when there is no evidence or its relation has
    no saved form (then it cannot be replayed)."""
    if neighbourhood is None and verdict.claim is not None:
        neighbourhood = verdict.claim.witness_neighbourhood
    cx = verdict.counterexample
    base = {**_mechanism_fields(mechanism), "params": dict(params), "epsilon": str(verdict.epsilon),
            "delta": verdict.delta}
    if cx is not None:
        form = _saved_forms().get(type(cx))
        if form is None:  # a counterexample with no saved form (e.g. a closed form's witness box)
            return None
        nb = _relation_record(cx.neighbourhood)
        if nb is None:
            return None
        out = {**base, "kind": "counterexample", "evidence": form, "neighbourhood": nb,
               "scores": [str(x) for x in cx.scores], "neighbour_scores": [str(x) for x in cx.neighbour_scores]}
        if form in ("selection", "pattern", "box"):
            out["output"] = cx.output
        if form in ("box", "continuous-box"):
            out["box"] = [[str(a), str(b)] for a, b in cx.box]
        if form == "interval":
            out["interval"] = [str(cx.interval[0]), str(cx.interval[1])]
        if form == "continuous-box":
            out["delta"] = cx.delta
        return out
    w = None if verdict.bracket is None else verdict.bracket.lower
    nb = None if neighbourhood is None else _relation_record(neighbourhood)
    if w is None or w.unbounded or nb is None or not isinstance(w.output, (int, str)):
        return None
    return {
        **base, "kind": "witness", "evidence": "finite", "neighbourhood": nb,
        "scores": list(w.scores), "neighbour_scores": list(w.neighbour_scores), "output": w.output,
        "lower": w.lower if w.lower is not None else repr(w.lower_float)}


def _vector(rec: dict, key: str) -> tuple[Fraction, ...]:
    from ..mechanisms.neighbourhoods import as_vector

    v = rec.get(key)
    if not isinstance(v, list) or not v or not all(isinstance(x, (str, int)) for x in v):
        raise ValueError(f"{key}: expected a non-empty list of exact numbers")
    return as_vector(v, key)


def _index(mech: AnyMechanism, n: int, output: Any) -> int:
    """The position of ``output`` among ``mech.outputs(n)`` (an int is a position already)."""
    if isinstance(output, bool) or not isinstance(output, (int, str)):
        raise ValueError("output: expected an index or an output label")
    labels = [str(o) for o in mech.outputs(n)]
    if isinstance(output, int):
        if not 0 <= output < len(labels):
            raise ValueError(f"output: expected an index in [0, {len(labels)}), got {output}")
        return output
    if output not in labels:
        raise ValueError(f"output: {output[:40]!r} is not an output of the mechanism on {n} scores")
    return labels.index(output)


def replay(rec: Any, arithmetic: str = "exact", prec: int = REPLAY_PREC, mechanism: str | None = None) -> ReplayResult:
    """Re-check the evidence of a replay record (module docstring); ``arithmetic`` ``exact`` falls
    back to balls where the mechanism has no exact law.

    Args:
        rec: a replay record, or a ``verify`` document whose evidence blocks agree
            (:func:`.replay_record.record_of`).
        arithmetic: ``exact`` or ``ball``.
        prec: ball precision in bits.
        mechanism: the spec the user names (``-m``): required, and must match the record, when the
            record names a mechanism outside the registry (:func:`.replay_record.trusted_spec`);
            nothing the record names is imported otherwise.

    Raises:
        ValueError: a malformed record, a record naming code the user did not name, labels that
            disagree with what is checked (the ε), evidence of a kind the mechanism has no law for.
    """
    from dataclasses import replace

    from ..mechanisms.registry import mechanism_from_params
    from ..numbers.real import Real
    from ..protocols import claimed_epsilon
    from .replay_record import printable, record_of, trusted_spec

    if arithmetic not in ("exact", "ball"):
        raise ValueError(f"arithmetic must be exact or ball, got {arithmetic!r}")
    rec = record_of(rec)
    for key in ("mechanism", "params", "kind", "evidence"):
        if key not in rec:
            raise ValueError(f"the record has no {key!r}")
    spec = trusted_spec(rec["mechanism"], mechanism, rec.get("mechanism_sha256"))
    t0 = time.perf_counter()
    q, q2 = _vector(rec, "scores"), _vector(rec, "neighbour_scores")
    if len(q) != len(q2):
        raise ValueError("scores and neighbour_scores differ in length")
    if rec["kind"] not in ("counterexample", "witness"):
        raise ValueError(f"kind must be counterexample or witness, got {printable(rec['kind'], 40)!r}")
    nb = _relation(rec.get("neighbourhood"))
    mech = mechanism_from_params(spec, rec["params"])
    checked = Real.of(claimed_epsilon(mech))
    if "epsilon" in rec and rec["epsilon"] is not None and str(Real.of(str(rec["epsilon"]))) != str(checked):
        raise ValueError(f"the record's epsilon {printable(rec['epsilon'], 60)!r} is not the ε its mechanism and "
                         f"params state ({checked}), which is the ε the re-check would use; refused")
    _fits(mech, rec["kind"], rec["evidence"])
    res = _replay(mech, rec, q, q2, nb, arithmetic, prec, t0)
    return replace(res, mechanism=spec, epsilon=str(checked), neighbourhood=_relation_record(nb),
                   delta=None if rec.get("delta") is None else str(Real.of(str(rec["delta"]))))


def _fits(mech: AnyMechanism, kind: str, evidence: Any) -> None:
    """Refuse evidence of a kind the mechanism has no law for (a selection index on a continuous
    output, a box on a finite one) before the re-check calls a method the mechanism lacks."""
    from ..protocols import BoxLaw, ContinuousMechanism, IntervalProbability, Mechanism

    finite = isinstance(mech, Mechanism)
    need = {"selection": finite, "pattern": finite, "finite": finite, "box": finite and isinstance(mech, BoxLaw),
            "continuous-box": isinstance(mech, ContinuousMechanism) and isinstance(mech, BoxLaw),
            "interval": isinstance(mech, IntervalProbability), "event": True}
    if kind == "witness" and evidence != "finite":
        raise ValueError(f"a witness's evidence must be finite, got {str(evidence)[:40]!r}")
    if isinstance(evidence, str) and evidence in need and not need[evidence]:
        raise ValueError(f"{evidence} evidence does not fit this mechanism: it has no law for it")


def _replay(mech: AnyMechanism, rec: dict, q: tuple, q2: tuple, nb: Neighbourhood, arithmetic: str, prec: int, t0: float) -> ReplayResult:
    from .decide.counterexample import Counterexample

    kind, evidence = rec["kind"], rec["evidence"]
    if kind == "witness":
        return _replay_witness(mech, rec, q, q2, prec, t0)
    if evidence == "selection":
        cx: Any = Counterexample(mech, nb, q, q2, _index(mech, len(q), rec.get("output")), 0.0, 0.0)
        rc = cx.recheck(arithmetic, prec)
        if arithmetic == "exact" and not rc.proved and rc.neighbours and rc.note:  # no exact law: balls decide
            rc = cx.recheck("ball", prec)
        claim = f"Pr[M(q) = {rec['output']}] > e^ε Pr[M(q') = {rec['output']}]"
    elif evidence == "pattern":
        from .search.patterns import PatternCounterexample

        out = rec.get("output")
        _index(mech, len(q), out)
        cx = PatternCounterexample(mech, nb, q, q2, out, 0.0, 0.0)
        rc = cx.recheck(arithmetic if arithmetic == "ball" else "exact", prec)
        if arithmetic == "exact" and not rc.proved and rc.neighbours and rc.note:
            rc = cx.recheck("ball", prec)
        claim = f"Pr[M(q) = {out}] > e^ε Pr[M(q') = {out}]"
    elif evidence == "event":
        from .search.approx_dp import ApproxCounterexample

        if rec.get("delta") is None:
            raise ValueError("an (ε, δ) event needs delta")
        cx = ApproxCounterexample(mech, nb, q, q2, (), 0.0, 0.0, str(rec["delta"]))
        rc = cx.recheck(prec)
        claim = f"H_(e^ε)(M(q) || M(q')) > δ = {rec['delta']}"
    elif evidence in ("box", "continuous-box", "interval"):
        from .search import boxes as bs

        def pairs(key: str) -> tuple[tuple[Fraction, Fraction], ...]:
            from ..mechanisms.neighbourhoods import as_vector

            v = rec.get(key)
            if not isinstance(v, list) or not all(isinstance(p, list) and len(p) == 2 for p in v):
                raise ValueError(f"{key}: expected a list of [lower, upper] pairs")
            return tuple(tuple(as_vector(p, key)) for p in v)  # type: ignore[misc]

        if evidence == "box":
            cx = bs.BoxCounterexample(mech, nb, q, q2, str(rec.get("output")), pairs("box"), 0.0, 0.0)
        elif evidence == "continuous-box":
            cx = bs.ContinuousBoxCounterexample(mech, nb, q, q2, pairs("box"), 0.0, 0.0, rec.get("delta"))
        else:
            lo, hi = _vector(rec, "interval") if len(rec.get("interval") or ()) == 2 else (None, None)
            if lo is None:
                raise ValueError("interval: expected [lower, upper]")
            cx = bs.IntervalCounterexample(mech, nb, q, q2, (lo, hi), 0.0, 0.0)
        rc = cx.recheck(prec)
        claim = "Pr[M(q) ∈ S] > e^ε Pr[M(q') ∈ S]" + ("" if rec.get("delta") is None else f" + δ = {rec['delta']}")
    else:
        raise ValueError(f"evidence must be one of {', '.join(sorted(set(_saved_forms().values())))}, got {str(evidence)[:40]!r}")
    note = rc.note or ("" if rc.neighbours else "q and q' are not neighbours in the stated relation")
    return ReplayResult("counterexample", bool(rc.proved), bool(rc.neighbours), rc.arithmetic, claim,
                        (rc.log_ratio_lo, rc.log_ratio_hi) if rec.get("delta") is None else None, note,
                        time.perf_counter() - t0)


def _replay_witness(mech: AnyMechanism, rec: dict, q: tuple, q2: tuple, prec: int, t0: float) -> ReplayResult:
    """``log(Pr[M(q)=r] / Pr[M(q')=r]) >= lower`` in balls (finite outputs)."""
    from ..numbers.backends import ball_context
    from ..numbers.real import Real

    if not isinstance(rec.get("lower"), str):
        raise ValueError("a witness needs lower (an exact number as a string)")
    lower = Real.of(rec["lower"])
    r = _index(mech, len(q), rec.get("output"))
    neighbours = bool(_relation(rec.get("neighbourhood")).contains(q, q2))
    with ball_context(prec):
        p1 = mech.pmf(list(q), backend=f"ball:{prec}").values[r]
        p2 = mech.pmf(list(q2), backend=f"ball:{prec}").values[r]
        if not (p2 > 0):
            return ReplayResult("witness", False, neighbours, f"ball:{prec}", "log-ratio >= lower", None,
                                "Pr[M(q')=r] is not proved positive", time.perf_counter() - t0)
        lr = p1.log() - p2.log() if p1 > 0 else None
        proved = lr is not None and bool(lr.lower() >= lower.to_arb(prec).upper())
        span = None if lr is None else (float(lr.lower()), float(lr.upper()))
    return ReplayResult("witness", proved and neighbours, neighbours, f"ball:{prec}",
                        f"log(Pr[M(q) = {rec['output']}] / Pr[M(q') = {rec['output']}]) >= {rec['lower']}", span,
                        "" if proved else "the log-ratio is not proved >= lower", time.perf_counter() - t0)
