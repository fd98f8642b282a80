"""Non-finite floats inside free-form objects (a ``detail``, a check's ``evidence``, a curve's ``witness``,
a proof's ``details``): null, with the text of what it was in the sibling ``NAME_exact`` — the convention of
the listed fields (dpexact/schemas/numbers.py: :func:`free_form`). Planted ±inf / nan are followed through
each writer; :func:`bare_nulls` fails on a null whose sibling is missing or says something else.
"""

from __future__ import annotations

import json
import math
from types import SimpleNamespace
from typing import Any

import pytest

from dpexact.schemas import SCHEMA_VERSION, document, schema, validate
from dpexact.schemas.numbers import finite_or_null, free_form

INF, NINF, NAN = math.inf, -math.inf, math.nan

#: a free-form object with non-finite floats at every depth: in a dict, a nested dict, a list, a list in a
#: list, a dict in a list; plus finite values and a null that was null before (no sibling expected)
PLANTED = {"up": INF, "down": NINF, "undefined": NAN, "ok": 1.5, "was_null": None,
           "inner": {"level": INF, "pair": [0.25, NINF]},
           "rows": [{"ratio": NAN}, {"ratio": 2.0}],
           "grid": [[1.0, INF], [NAN, 0.0]],
           "kept": INF, "kept_exact": "log(3)/0"}

#: (path to the planted value, the text its sibling must carry); a list index's text is at the same index
EXPECTED = [(("up",), "inf"), (("down",), "-inf"), (("undefined",), "nan"), (("inner", "level"), "inf"),
            (("inner", "pair", 1), "-inf"), (("rows", 0, "ratio"), "nan"), (("grid", 0, 1), "inf"),
            (("grid", 1, 0), "nan"), (("kept",), "log(3)/0")]


def _get(obj: Any, path: tuple) -> Any:
    for k in path:
        obj = obj[k]
    return obj


def bare_nulls(doc: Any, expected: list[tuple[tuple, str]]) -> list[str]:
    """The planted positions whose value is not a null with its sibling text: the sibling of ``d[k]`` is
    ``d[k + "_exact"]``; of ``d[k][i]`` (a list, any depth) the same index in ``d[k + "_exact"]``."""
    bad = []
    for path, text in expected:
        keys = [i for i, k in enumerate(path) if isinstance(k, str)]
        j = keys[-1]  # the last dict key on the path: its sibling holds the text (at the same list indices)
        parent, key, rest = _get(doc, path[:j]), path[j], path[j + 1:]
        try:
            value = _get(parent[key], rest)
            sibling = _get(parent[f"{key}_exact"], rest)
        except (KeyError, IndexError, TypeError):
            bad.append(f"{'/'.join(map(str, path))}: no sibling")
            continue
        if value is not None or sibling != text:
            bad.append(f"{'/'.join(map(str, path))}: {value!r} beside {sibling!r}")
    return bad


def test_free_form_keeps_every_text():
    out = json.loads(json.dumps(free_form(PLANTED), allow_nan=False))
    assert bare_nulls(out, EXPECTED) == []
    assert out["ok"] == 1.5 and out["was_null"] is None and "was_null_exact" not in out and "ok_exact" not in out
    assert out["rows"][1] == {"ratio": 2.0} and out["inner"]["pair_exact"] == [None, "-inf"]


def test_checker_fails_on_the_old_writer():
    """The bare-null writer (finite_or_null, what free-form objects used before) loses every text."""
    old = json.loads(json.dumps(finite_or_null(PLANTED), allow_nan=False))
    assert len(bare_nulls(old, EXPECTED)) == len(EXPECTED) - 1  # only the writer's own "kept_exact" survives


def test_account_detail():
    from dpexact.accounting.delta_epsilon import Enclosure

    d = json.loads(json.dumps(Enclosure(0.0, INF, None, "test", detail=dict(PLANTED)).as_dict(), allow_nan=False))
    assert d["upper"] is None and d["upper_exact"] == "inf"
    assert bare_nulls(d["detail"], EXPECTED) == []


def test_curve_witness_row():
    from dpexact.cli.curve import _row

    p = SimpleNamespace(at=1.0, at_text="1", lower=0.5, upper=INF, witness=dict(PLANTED))
    r = json.loads(json.dumps(_row("epsilon", p), allow_nan=False))
    assert r["upper"] is None and r["upper_exact"] == "inf" and bare_nulls(r["witness"], EXPECTED) == []


def test_check_evidence():
    from proofs_checks.catalogue import Claim, ClaimVerdict, Outcome, to_json

    c = Claim("pf.theorem.99", "pf", "a planted claim", "nowhere", lambda quick: None)
    outs = [Outcome(c, ClaimVerdict("inconclusive", False, "planted", dict(PLANTED)), 0.1),
            Outcome(c, ClaimVerdict("inconclusive", False, "planted", NINF), 0.1)]
    d = json.loads(json.dumps(document("check", to_json(outs, "0")), allow_nan=False))
    validate("check", d)
    assert bare_nulls(d["claims"][0]["evidence"], EXPECTED) == []
    assert d["claims"][1]["evidence"] == {"value": None, "value_exact": "-inf"}  # a bare number is {"value": x}


def test_proof_details_in_verify_bracket():
    from dpexact.verification.bracket import EpsilonBracket, Proof

    p = Proof(upper_float=1.0, method="test", domain={"n": 2, "scores": "R^n"}, upper="1", details=dict(PLANTED))
    d = json.loads(json.dumps(EpsilonBracket(None, p).as_dict(), allow_nan=False))
    assert bare_nulls(d["upper"]["details"], EXPECTED) == []


def test_audit_map_witness():
    from dpexact.audit.maps import PointResult

    m = PointResult(params={}, claim="planted", claimed=1.0, level_lower=0.0, level_upper=INF, status="ok", slack=INF,
                    route="test", witness=dict(PLANTED))
    d = json.loads(json.dumps(m.as_dict(), allow_nan=False, default=str))
    assert d["level_upper"] is None and d["level_upper_exact"] == "inf"
    assert bare_nulls(d["witness"], EXPECTED) == []


def test_schema_version_is_the_minor_bump():
    """Keys were added (NAME_exact siblings, unbounded_family, level_every_n): the schemas' rule is a minor bump;
    every schema accepts 1.1 and still 1.0 (1.1 only added keys) and nothing else."""
    from dpexact.schemas import COMMANDS

    assert SCHEMA_VERSION == "1.1"
    for c in COMMANDS:
        s = schema(c)
        assert set(s["properties"]["schema_version"]["enum"]) == {"1.0", "1.1"} and "/1.1/" in s["$id"]
    with pytest.raises(ValueError):
        validate("bench-peers", {"schema_version": "2.0", "command": "bench-peers", "rows": []})
