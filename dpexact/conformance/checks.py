"""Conformance of a mechanism to :class:`dpexact.protocols.Mechanism`: is it what it says?

:func:`conform` runs, on a small corpus of score vectors (integer ones when the mechanism
declares ``integer_scores``; of its ``size`` when it has one):

=======================  ===========================================================================
check                    passes when
=======================  ===========================================================================
``protocol``             the object satisfies the protocol (attributes, size, properties, outputs)
``sums-to-one``          exact: Σ_r p_r = 1 proved; ball: the sum's ball contains 1; mp / float:
                         |Σ p − 1| within n × the pmf's own bound (+ rounding)
``ball-encloses-exact``  every ball contains the exact value (exact-capable mechanisms)
``float-within-bound``   |p_float − p_exact| <= the float pmf's stated ``abs_error`` (rel bound too),
                         with the exact value enclosed by the ball
``sampler-agrees``       seeded draws from ``rvs`` fit the float pmf: chi-square p-value > 1e-6
                         (cells with expected count < 5 pooled; a draw on a zero-probability output fails)
``symmetric`` / ``shift-invariant`` / ``monotone``
                         the declared property (pf Definition 3) is not refuted by ball arithmetic
                         (:func:`~dpexact.verification.decide.regularity.check_regularity`) on the corpus and on
                         its copies scaled by 10 and 1000, with shifts from 1 to 10⁴ of both signs; a
                         refutation names the vectors and outputs (a certified witness pair)
``stated-law``           (a law stated as noisy argmax of integer noise,
                         :class:`~dpexact.protocols.IntegerNoisyArgmax`, only) the pmf's balls overlap
                         the stated law's, computed independently on integer vectors of each corpus
                         length (:mod:`~dpexact.verification.decide.noisy_argmax_law`; the lattice proof
                         reads the statement, so a false one is caught here and there)
``bad-input``            empty / non-finite / string scores and an unknown backend raise a one-line
                         ``ValueError`` / ``TypeError``
=======================  ===========================================================================

Outputs are keyed by their labels (``outputs(n)``: ints, ⊤/⊥ patterns, bit strings; a
sampled bit array counts as its bit string). ``mixed`` mechanisms get these checks on the law
of their finite part (the pattern) plus ``box-marginal``; ``interval`` and ``continuous`` ones
get the checks of :mod:`.real_outputs` (partitions of every box coordinate and joint
orthants), where
``float-within-bound`` and the declared regularity properties are not applicable; a
``composed`` mechanism is conformed component by component (a check fails if it fails on a
component, and is not applicable only if it is on every component).

A backend the mechanism does not offer (``pmf`` raises ``ValueError`` naming the backend, or
``NotImplementedError``) is reported as not applicable, not as a failure; any other exception
(a ``TypeError`` from ``True * sympy.E``, a ``ZeroDivisionError``, a define_mechanism function
that raised) fails the check that met it, with the exception named. A sampler-only mechanism
(``properties.certified`` False) gets only ``protocol``, ``sampler-agrees`` (against its own
empirical pmf, so this is a smoke test) and ``bad-input``.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from ..cost_limits import CostLimitError, check_cost, check_count, estimate_from_pilot
from ..mechanisms.base import MechanismCrash
from ..numbers.backends import Backend, get_backend
from ..numbers.real import Real
from .report import ConformanceCheck, ConformanceReport, cx as _cx
from ..protocols import (AnyMechanism, BoxLaw, IntegerNoisyArgmax, Named, check_mechanism, mechanism_properties,
                         mechanism_size)
from ..verification.kinds import kind_of
from ..numbers.backends import exact_sympy
from ..numbers.exp_lattice import exact_sign

__all__ = ["ConformanceCheck", "ConformanceReport", "conform", "default_corpus", "CHECKS"]

CHECKS = ("protocol", "sums-to-one", "ball-encloses-exact", "float-within-bound", "sampler-agrees",
          "symmetric", "shift-invariant", "monotone", "box-marginal", "stated-law", "bad-input")
U = 2.0**-53


def default_corpus(mechanism: AnyMechanism) -> list[tuple[Fraction, ...]]:
    """Small vectors where selection mechanisms differ: ties, gaps of Δ/2 .. 3Δ, a staircase."""
    d = Real.of(mechanism.sensitivity)
    d = d.to_fraction() if d.is_rational else Fraction(1)
    ints = mechanism_properties(mechanism).integer_scores
    n = mechanism_size(mechanism)
    if ints:
        d = Fraction(max(1, round(d)))
    half = d if ints else d / 2
    base = {
        2: [(0, 0), (1, 0), (0, 3)],
        3: [(0, 0, 0), (2, 1, 0), (0, -1, -1), (1, 0, 3)],
    }
    out = []
    for m in ([n] if n is not None else [2, 3]):
        shapes = base.get(m) or [tuple(-(k % 3) for k in range(m)), tuple([0] * m), tuple(range(m))]
        for s in shapes:
            out.append(tuple(Fraction(x) * (half if i % 2 else d) for i, x in enumerate(s)))
    return out


class _Crash(Exception):
    """The mechanism raised something other than a refusal: the check that met it fails."""


def _safe(fn: Any) -> tuple[Any, str | None]:
    """``(fn(), None)``, or ``(None, why)`` when it declines (``ValueError``, ``NotImplementedError``:
    a backend or input it does not offer); any other exception is a crash (:class:`_Crash`)."""
    try:
        return fn(), None
    except MechanismCrash as exc:
        raise _Crash(f"failed: {exc}") from exc
    except (ValueError, NotImplementedError) as exc:
        return None, f"{type(exc).__name__}: {exc}"
    except Exception as exc:  # noqa: BLE001 - a crash fails the check; it is never "not offered"
        raise _Crash(f"raised {type(exc).__name__}: {str(exc)[:300]}") from exc


def _offered(m: AnyMechanism, q: Sequence[Any], backend: str) -> tuple[Any, str | None]:
    try:
        return _safe(lambda: m.pmf([str(x) for x in q], backend=backend))
    except _Crash as exc:
        raise _Crash(f"the {backend} pmf {exc} on scores {[str(x) for x in q]}") from exc


def _checked(name: str, fn: Any, *args: Any) -> Any:
    """Run one check; a crash of the mechanism inside it is that check's failure, named."""
    try:
        return fn(*args)
    except _Crash as exc:
        return ConformanceCheck(name, False, str(exc))


def conform(mechanism: AnyMechanism, corpus: Sequence[Sequence[Any]] | None = None, *, draws: int = 20_000, seed: int = 0,
            backends: Sequence[str] = ("float", "mp", "ball", "exact"), exact_max_n: int = 4,
            max_seconds: float | None = None) -> ConformanceReport:
    """Run every conformance check on ``mechanism`` (see the module docstring).

    ``draws`` is bounded before any check runs: its memory always, its time when ``max_seconds``
    is given (:func:`_check_draws`; ``CostLimitError`` with the estimate).

    Args:
        mechanism: the mechanism to check.
        corpus: score vectors for the property checks (default: a built-in corpus).
        draws: the sampler's draws for its chi-square test.
        seed: the seed of those draws.
        backends: the backends whose pmfs are compared.
        exact_max_n: the largest n checked on the exact backend.
        max_seconds: a CPU-time budget (the draws are refused beyond its estimate).

    Returns:
        A :class:`ConformanceReport`: one pass / fail / n/a row per check.
    """
    check_count(draws, "draws", highest=MAX_DRAWS)
    try:
        check_mechanism(mechanism, continuous=True)
        mechanism_size(mechanism)
        props = mechanism_properties(mechanism)
        kind = kind_of(mechanism)
        if kind.finite:
            list(mechanism.outputs(mechanism_size(mechanism) or 2))
        params = mechanism.params()
        name = mechanism.short_name
    except CostLimitError as exc:  # a cost refusal is not a protocol violation: the checks cannot run here
        raise CostLimitError(f"conformance enumerates every output: {exc}; give smaller parameters", exc.estimate) from None
    except (TypeError, ValueError) as exc:
        rep = ConformanceReport(mechanism.short_name if isinstance(mechanism, Named) else type(mechanism).__name__, {})
        rep.checks.append(ConformanceCheck("protocol", False, str(exc)))
        return rep
    rep = ConformanceReport(name, params)
    rep.checks.append(ConformanceCheck("protocol", True, f"satisfies the dpexact protocol of output_kind {kind.name!r}"))
    if kind.composed:
        return _composed(mechanism, rep, corpus, draws, seed, backends, exact_max_n)
    vecs = [tuple(Fraction(Real.of(x).to_fraction()) for x in v) for v in (corpus or default_corpus(mechanism))]
    _check_draws(mechanism, vecs, draws, seed, max_seconds)
    if not props.certified:
        for c in ("sums-to-one", "ball-encloses-exact", "float-within-bound"):
            rep.checks.append(ConformanceCheck(c, None, "sampler-only mechanism: no certified pmf"))
        rep.checks.append(_checked("sampler-agrees", _sampler, mechanism, vecs, draws, seed))
        rep.checks.extend(_declared(mechanism, props, vecs, certified=False))
        rep.checks.append(_bad_input(mechanism))
        return rep
    if kind.finite:
        rep.checks.append(_checked("sums-to-one", _sums, mechanism, vecs, backends, exact_max_n))
        rep.checks.append(_checked("ball-encloses-exact", _ball_exact, mechanism, vecs, exact_max_n))
        rep.checks.append(_checked("float-within-bound", _float_bound, mechanism, vecs, exact_max_n))
        rep.checks.append(_checked("sampler-agrees", _sampler, mechanism, vecs, draws, seed))
        rep.checks.extend(_declared(mechanism, props, vecs, certified=True))
        if isinstance(mechanism, IntegerNoisyArgmax):
            rep.checks.append(_checked("stated-law", _stated_law, mechanism, vecs))
    else:
        from .real_outputs import real_checks

        try:
            rep.checks.extend(real_checks(mechanism, vecs, draws, seed))
        except _Crash as exc:
            rep.checks.append(ConformanceCheck("sums-to-one", False, f"the law of output sets {exc}"))
        rep.checks.extend(_declared(mechanism, props, vecs, certified=True))
    if kind.parts:
        from .real_outputs import box_marginal

        rep.checks.append(_checked("box-marginal", box_marginal, mechanism, vecs))
    rep.checks.append(_bad_input(mechanism))
    return rep


#: most sampler draws per vector conform accepts (memory: one label per draw, held at once)
MAX_DRAWS = 10**9
#: bytes held per draw (the label array, its Python objects while counted), a conservative figure
_BYTES_PER_DRAW = 64.0
_PILOT_DRAWS = 2_000


def _check_draws(m: AnyMechanism, vecs: list, draws: int, seed: int, max_seconds: float | None) -> None:
    """Estimate the sampler checks' cost from a pilot of 2 000 draws and refuse what exceeds the budget."""
    if not vecs or draws <= _PILOT_DRAWS:
        return
    q = [float(x) for x in vecs[0]]
    pilot = min(draws, _PILOT_DRAWS)

    def run() -> None:
        out = m.rvs(q, size=pilot, random_state=seed)
        for x in np.asarray(out):  # the checks map every draw to its output, as here
            _label(x)

    try:
        estimate = estimate_from_pilot(f"conform: {draws} draws on each of {len(vecs)} vectors", run, pilot,
                                       float(draws) * len(vecs), _BYTES_PER_DRAW / len(vecs),
                                       f"pilot of {pilot} draws, linear in the draws")
    except Exception:  # a sampler that fails is reported by the sampler check itself
        return
    try:
        check_cost(estimate, max_seconds)
    except CostLimitError as exc:
        raise CostLimitError(f"--draws: {exc}; give fewer draws", exc.estimate) from None


def _composed(m: AnyMechanism, rep: ConformanceReport, corpus: Any, draws: int, seed: int, backends: Sequence[str],
              exact_max_n: int) -> ConformanceReport:
    """Conform each of ``m.components()``; merge the checks by name (module docstring)."""
    parts = [(c.short_name, conform(c, corpus, draws=draws, seed=seed, backends=backends, exact_max_n=exact_max_n))
             for c in m.components()]
    names = [c.name for _, r in parts for c in r.checks if c.name != "protocol"]
    for name in dict.fromkeys(names):
        got = [(who, r.check(name)) for who, r in parts if any(c.name == name for c in r.checks)]
        bad = [(who, c) for who, c in got if c.passed is False]
        msg = "; ".join(f"{who}: {c.message}" for who, c in got)
        if bad:
            rep.checks.append(ConformanceCheck(name, False, msg, bad[0][1].counterexample))
        else:
            rep.checks.append(ConformanceCheck(name, None if all(c.passed is None for _, c in got) else True, msg))
    return rep


def _kind(name: str) -> Backend | None:
    """The backend ``name`` denotes (None for a name the numbers layer rejects: the mechanism reports it)."""
    try:
        return get_backend(name)
    except (TypeError, ValueError):
        return None


def _sums(m: AnyMechanism, vecs: list, backends: Sequence[str], exact_max_n: int) -> ConformanceCheck:
    done, na = [], []
    for be in backends:
        kind = _kind(be)
        for q in vecs:
            if kind is not None and kind.is_exact and len(q) > exact_max_n:
                continue
            p, err = _offered(m, q, be)
            if p is None:
                na.append(f"{be}: {err}")
                break
            n = len(p.values)
            if n != len(list(m.outputs(len(q)))):
                return ConformanceCheck("sums-to-one", False, f"{be}: pmf has {n} entries for {len(q)} scores", _cx(q))
            if kind is not None and kind.is_exact:
                s = exact_sign(exact_sympy(p.total()) - 1)
                ok = s == 0
                msg = f"exact: Σ p = {p.total()} ≠ 1" if s not in (0, None) else "exact: Σ p = 1 undecided"
                if s is None:
                    na.append(msg)
                    continue
            elif kind is not None and kind.is_ball:
                from flint import arb

                ok = p.total().contains(arb(1))
                msg = f"ball: Σ p = {p.total()} does not contain 1"
            else:
                tot = float(sum(float(v) for v in p.values))
                tol = n * p.abs_error + n * U * 4 + (n * (p.rel_error or 0.0))
                ok = abs(tot - 1) <= tol
                msg = f"{be}: |Σ p − 1| = {abs(tot - 1):.3g} exceeds n × the stated bound {tol:.3g}"
            if not ok:
                return ConformanceCheck("sums-to-one", False, msg + f" on scores {list(map(str, q))}", _cx(q))
            done.append(be)
    if not done:
        return ConformanceCheck("sums-to-one", None, "; ".join(na) or "no backend offered")
    note = f" (not offered: {'; '.join(na)})" if na else ""
    return ConformanceCheck("sums-to-one", True, f"on {', '.join(sorted(set(done)))}{note}")


def _ball_exact(m: AnyMechanism, vecs: list, exact_max_n: int) -> ConformanceCheck:
    count = 0
    for q in vecs:
        if len(q) > exact_max_n:
            continue
        e, err = _offered(m, q, "exact")
        if e is None:
            return ConformanceCheck("ball-encloses-exact", None, f"no exact backend ({err})")
        b, err = _offered(m, q, "ball")
        if b is None:
            return ConformanceCheck("ball-encloses-exact", None, f"no ball backend ({err})")
        if not b.contains(e.values):
            return ConformanceCheck("ball-encloses-exact", False, f"a ball misses the exact value on scores {list(map(str, q))}",
                                    _cx(q, ball=[str(v) for v in b.values], exact=[str(v) for v in e.values]))
        count += 1
    return ConformanceCheck("ball-encloses-exact", True, f"{count} vectors")


def _float_bound(m: AnyMechanism, vecs: list, exact_max_n: int) -> ConformanceCheck:
    worst = 0.0
    for q in vecs:
        f, err = _offered(m, q, "float")
        if f is None:
            return ConformanceCheck("float-within-bound", False, f"float pmf failed: {err}", _cx(q))
        b, err = _offered(m, q, "ball:256")
        if b is None:
            return ConformanceCheck("float-within-bound", None, f"no ball backend to compare with ({err})")
        for r, (x, y) in enumerate(zip(np.asarray(f.values, dtype=float), b.values)):
            lo, hi = float(y.lower()), float(y.upper())  # the truth is in [lo, hi] up to the float conversion
            raw = max(lo - x, x - hi, 0.0)
            dist = raw - 4 * U * abs(x)  # slack: the conversion of lo, hi to float (1 ulp each)
            bound = f.abs_error
            if f.rel_error is not None and math.isfinite(f.rel_error) and lo > 1e-290:
                bound = min(bound, f.rel_error * hi)
            if dist > bound:
                return ConformanceCheck("float-within-bound", False,
                                        f"float p[{r}] = {x!r} is {dist:.3g} from the ball [{lo!r}, {hi!r}], stated bound {bound:.3g} "
                                        f"(scores {list(map(str, q))})", _cx(q, output=r))
            worst = max(worst, raw / bound if bound > 0 else 0.0)
    return ConformanceCheck("float-within-bound", True, f"worst error / stated bound = {worst:.3g}")


def _sampler(m: AnyMechanism, vecs: list, draws: int, seed: int) -> ConformanceCheck:
    from scipy.stats import chisquare

    worst = 1.0
    for i, q in enumerate(vecs):
        qf = [float(x) for x in q]
        p, err = _safe(lambda: np.asarray(m.pmf(qf).values, dtype=float))
        if p is None:
            return ConformanceCheck("sampler-agrees", None, f"no float pmf ({err})")
        out, err = _safe(lambda: np.asarray(m.rvs(qf, size=draws, random_state=seed + i)))
        if out is None:
            return ConformanceCheck("sampler-agrees", None, f"no sampler ({err})")
        labels = list(m.outputs(len(q)))
        index = {o: j for j, o in enumerate(labels)}
        positions = not any(isinstance(o, (int, np.integer)) for o in labels)
        counts = np.zeros(p.size, dtype=np.int64)
        for x in out:
            j = index.get(_label(x))
            if j is None and positions and isinstance(_label(x), int) and 0 <= _label(x) < p.size:
                j = _label(x)  # a position into outputs(n) (the contract allows either; labels are not ints here)
            if j is None:
                return ConformanceCheck("sampler-agrees", False, f"sampler returned {_label(x)!r}, not an output of outputs({len(q)})",
                                        _cx(q))
            counts[j] += 1
        zero = (p <= 0) & (counts > 0)
        if zero.any():
            r = int(np.argmax(zero))
            return ConformanceCheck("sampler-agrees", False, f"sampler drew output {r}, whose pmf is 0 (scores {list(map(str, q))})",
                                    _cx(q, output=r))
        exp = draws * p / p.sum()
        keep = exp >= 5
        pool = ~keep & (p > 0)  # zero-probability outputs were drawn 0 times (checked above)
        obs = list(counts[keep]) + ([counts[pool].sum()] if pool.any() else [])
        ex = list(exp[keep]) + ([exp[pool].sum()] if pool.any() else [])
        if len(obs) < 2:
            continue
        pv = float(chisquare(obs, np.array(ex) * (sum(obs) / sum(ex))).pvalue)
        worst = min(worst, pv)
        if pv < 1e-6:
            return ConformanceCheck("sampler-agrees", False,
                                    f"sampler disagrees with the pmf: chi-square p-value {pv:.2g} on scores {list(map(str, q))} "
                                    f"(counts {counts.tolist()}, expected {np.round(exp, 1).tolist()})", _cx(q))
    return ConformanceCheck("sampler-agrees", True, f"{draws} seeded draws per vector; smallest p-value {worst:.3g}")


def _label(x: Any) -> Any:
    """A draw as an output label: numpy ints as int, a bit array as its bit string."""
    if isinstance(x, np.ndarray):
        return "".join(str(int(v)) for v in x)
    if isinstance(x, np.integer):
        return int(x)
    return x


def _declared(m: AnyMechanism, props: Any, vecs: list, certified: bool) -> list[ConformanceCheck]:
    from ..verification.decide.regularity import check_regularity

    names = {"symmetric": "symmetry", "shift-invariant": "shift", "monotone": "monotonicity"}
    declared = {"symmetric": props.symmetric, "shift-invariant": props.shift_invariant, "monotone": props.monotone}
    out = []
    if not any(declared.values()):
        return [ConformanceCheck(k, None, "not declared") for k in declared]
    if not certified:
        return [ConformanceCheck(k, None, "declared, but a sampler-only mechanism cannot be checked exactly" if v else "not declared")
                for k, v in declared.items()]
    if not kind_of(m).finite:
        return [ConformanceCheck(k, False if v else None, f"declared {k}, which pf Definition 3 defines for selection mechanisms "
                                 f"only (output_kind {m.output_kind!r})" if v else "not declared") for k, v in declared.items()]
    if not kind_of(m).selection:  # pf Definition 3 permutes outputs with candidates: selection only
        return [ConformanceCheck(k, False if v else None, f"declared {k}, which pf Definition 3 defines for selection mechanisms "
                                 f"only (output_kind {m.output_kind!r})" if v else "not declared") for k, v in declared.items()]
    # shifts and scales far beyond the corpus: a law can break a property only where max + min, a
    # spread or a score passes a constant it wrote (the screen a proof runs before using a premise:
    # dpexact.verification.decide.premises)
    shifts = (1, -2) if props.integer_scores else (1, "-5/2")
    try:
        rep, err = _safe(lambda: check_regularity(m, vecs, shifts=shifts, backend="ball", max_perms=6))
    except _Crash as exc:
        rep, err = None, str(exc)
    extra = 0
    if rep is not None:  # the corpus scaled by 10 and 1000, shifts up to 1e4 (a refused vector is skipped)
        from ..verification.decide.premises import extended_regularity

        big = [1, 9, 1000, -1001, 10_000] if props.integer_scores else [1, 9, "-37/2", 1000, -1001, 10_000]
        scaled = [tuple(x * k for x in v) for k in (1, 10, 1000) for v in vecs]
        try:
            more, extra, _ = _safe(lambda: extended_regularity(m, scaled, [Fraction(str(c)) for c in big]))[0] or ([], 0, 0)
            rep.violations.extend(more)
        except _Crash as exc:
            rep, err = None, str(exc)
    for k, v in declared.items():
        if not v:
            out.append(ConformanceCheck(k, None, "not declared"))
            continue
        if rep is None:
            out.append(ConformanceCheck(k, False, f"checking the declared property failed: {err}"))
            continue
        bad = [x for x in rep.violations if x.property == names[k]]
        if bad:
            x = bad[0]
            out.append(ConformanceCheck(k, False, f"declared {k} but refuted: Pr[M({list(map(str, x.a))}) = {x.r}] = {x.pa} vs "
                                        f"Pr[M({list(map(str, x.b))}) = {x.s}] = {x.pb} ({x.arithmetic})",
                                        {"a": [str(v) for v in x.a], "r": x.r, "b": [str(v) for v in x.b], "s": x.s}))
        else:
            out.append(ConformanceCheck(k, True, f"not refuted on {rep.checked[names[k]]} comparisons (ball), nor on "
                                        f"{extra} more at scales up to 1e4"))
    return out


def _stated_law(m: IntegerNoisyArgmax, vecs: list) -> ConformanceCheck:
    """The pmf against the law it states as integer noisy argmax, at every corpus length."""
    from ..verification.decide.noisy_argmax_law import screen_stated_law

    try:
        screens = [screen_stated_law(m, n) for n in sorted({len(v) for v in vecs})]
    except (ValueError, TypeError, ArithmeticError) as exc:
        return ConformanceCheck("stated-law", False, f"reading integer_noise() failed: {exc}")
    bad = [s for s in screens if not s.agrees]
    if bad:
        return ConformanceCheck("stated-law", False, f"the pmf is not the law stated by integer_noise(): {bad[0].refuted}")
    return ConformanceCheck("stated-law", True, f"the pmf agrees with the stated noisy-argmax law on "
                                                f"{sum(s.vectors for s in screens)} integer vectors (ball)")


def _bad_input(m: AnyMechanism) -> ConformanceCheck:
    n = mechanism_size(m) or 2
    cases = {"empty scores": ([], "float"), "NaN score": ([float("nan")] + [0.0] * (n - 1), "float"),
             "string scores": ("0,1", "float"), "unknown backend": ([0] * n, "no-such-backend")}
    kind = kind_of(m)
    if not kind.real:
        law = lambda q, be: m.pmf(q, backend=be)  # noqa: E731
    elif kind.density and not isinstance(m, BoxLaw):  # a density only: no backend to name
        cases.pop("unknown backend")
        law = lambda q, be: m.logpdf(q, [0.0] * (len(q) if not isinstance(q, str) else 1))  # noqa: E731
    else:  # the kind's event law on a unit box (one interval per value)
        law = lambda q, be: kind.event(m, q, [(0, 1)] * (1 if kind.interval else  # noqa: E731
                                                         max(1, len(q) if not isinstance(q, str) else 1)), None, be, m.short_name)
    for what, (q, be) in cases.items():
        try:
            law(q, be)
        except (ValueError, TypeError) as exc:
            if "\n" in str(exc) or not str(exc):
                return ConformanceCheck("bad-input", False, f"{what}: the error message is not one line: {str(exc)!r}")
            continue
        except Exception as exc:  # noqa: BLE001 - reporting what the mechanism raised is the point
            return ConformanceCheck("bad-input", False, f"{what}: raised {type(exc).__name__} instead of ValueError/TypeError")
        return ConformanceCheck("bad-input", False, f"{what}: accepted without an error")
    return ConformanceCheck("bad-input", True, ", ".join(cases) + " rejected with one-line errors")
