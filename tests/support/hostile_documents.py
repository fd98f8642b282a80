"""Hostile documents for ``dpexact replay FILE`` and ``dpexact schema COMMAND --validate FILE`` (a seeded generator).

A case is one file and one command line. The file starts from a real ``verify -o`` document (a bracket
witness or a counterexample), a bare replay record, or a document of another command, and is changed by
one family of hostility:

* ``names``    — the record names code: ``PATH.py:OBJECT`` (relative, absolute, a canary file that writes
  a file when imported), ``module:OBJECT`` (``this``, ``antigravity``, ``venv.__main__``, ``os:system``,
  ``subprocess:run``), names with escapes or 10^4 characters; sometimes with a ``-m`` that does not match;
* ``labels``   — ε, δ, mechanism, output, kind or evidence relabelled, or the counterexample / bracket
  block a reader sees made to disagree with the replay record;
* ``nesting``  — arrays / objects nested 50 to 200 000 deep, at the top or inside a field;
* ``sizes``    — long vectors, long strings, many keys, numbers of thousands of digits;
* ``escapes``  — terminal escape sequences, bidirectional overrides, NUL and other controls in values,
  keys and the file name;
* ``constants`` — ``NaN``, ``Infinity``, ``-Infinity`` in numeric fields.

Outcome (:func:`run_case`), as in :mod:`tests.support.hostile_cli`: ``code-run`` (the canary file exists, a
module the file names was imported, or the working folder gained anything), ``hang`` (more than
:data:`HANG_SECONDS` of CPU), ``traceback`` (an exception other than ``SystemExit``, or ``Traceback`` in the
output), ``escape`` (a raw ESC / BEL / CSI character on stdout or stderr), ``bad-json`` (``--json`` output
that does not follow the replay schema), ``exit`` (an exit code other than 0, 1, 2, or a case that must be
refused not exiting 2, or a usage error not on one ``error:`` line), ``ok``.
Cases run in-process (:class:`typer.testing.CliRunner`), in a folder of their own.
"""

from __future__ import annotations

import copy
import json
import os
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["DocCase", "DocWorkspace", "random_doc_case", "run_doc_case", "HANG_SECONDS", "FAMILIES"]

HANG_SECONDS = 20.0
FAMILIES = ("names", "labels", "nesting", "sizes", "escapes", "constants")
CANARY = "CANARY_hostile_documents"
CANARY_CODE = f"import pathlib\npathlib.Path(__file__).with_name({CANARY!r}).write_text('ran')\nX = 1\nEM = 1\n"
MODULES = ("this", "antigravity", "venv.__main__", "os", "subprocess", "shutil", "http.server", "webbrowser",
           "idlelib.idle", "pydoc")
ESCAPES = ("\x1b[2J\x1b[H", "\x1b]0;pwned\x07", "\u202e", "\x00", "\x07", "\x9b31m", "\r\x1b[K", "\x1b[6n")
COMMANDS = ("verify", "pmf", "replay", "sweep", "check", "optimal", "conform")


@dataclass
class DocCase:
    family: str
    args: list[str]
    content: bytes
    filename: str
    refuse: bool  # must exit 2
    names: tuple[str, ...] = ()  # modules the file names (must not be imported)
    note: str = ""


@dataclass
class DocResult:
    case: DocCase
    outcome: str
    exit_code: int | None
    cpu: float
    detail: str = ""


@dataclass
class DocWorkspace:
    """Saved documents every case starts from (made once, by the real ``verify -o``)."""

    witness: dict = field(default_factory=dict)
    counterexample: dict = field(default_factory=dict)

    @classmethod
    def make(cls, root: Path) -> "DocWorkspace":
        from typer.testing import CliRunner

        from dpexact.cli.main import app

        runner = CliRunner()
        root.mkdir(parents=True, exist_ok=True)
        w, c = root / "witness.json", root / "cx.json"
        assert runner.invoke(app, ["verify", "-m", "em", "-e", "1", "--n", "3", "-o", str(w)]).exit_code == 0
        assert runner.invoke(app, ["verify", "-m", "em", "-e", "1", "--monotone", "--neighbourhood", "box",
                                   "-o", str(c)]).exit_code == 1
        return cls(json.loads(w.read_text()), json.loads(c.read_text()))


def _nest(rng: random.Random, depth: int, leaf: Any = 0) -> str:
    kind = rng.choice(["[", "{"])
    if kind == "[":
        return "[" * depth + json.dumps(leaf) + "]" * depth
    return '{"a":' * depth + json.dumps(leaf) + "}" * depth


def _number(rng: random.Random) -> Any:
    return rng.choice(["100", "-1", "0", "1/3", "2*log(3)", "1e1000", "9" * rng.randint(100, 5000), "nan", "inf",
                       "", "x", 1e308, -0.0, 10**40, True, None, [], {}, "1e-100"])


def _base(rng: random.Random, ws: DocWorkspace) -> tuple[Any, str]:
    which = rng.choice(["witness", "cx", "bare-witness", "bare-cx"])
    doc = copy.deepcopy(ws.witness if which in ("witness", "bare-witness") else ws.counterexample)
    return (doc["replay"] if which.startswith("bare") else doc), which


def _record(doc: Any) -> dict:
    return doc["replay"] if isinstance(doc, dict) and "replay" in doc else doc


def random_doc_case(rng: random.Random, ws: DocWorkspace, family: str | None = None) -> DocCase:
    family = family or rng.choice(FAMILIES)
    doc, which = _base(rng, ws)
    rec = _record(doc)
    schema_cmd = rng.random() < 0.3  # the same file checked by `schema COMMAND --validate`
    filename = "doc.json"
    names: tuple[str, ...] = ()
    extra_args: list[str] = []
    refuse = True
    raw: str | None = None
    note = ""
    if family == "names":
        kind = rng.choice(["file", "abs", "module", "weird"])
        if kind == "file":
            name = rng.choice(["canary.py:X", "./canary.py:EM", "sub/../canary.py:X", "canary.py:os.system"])
        elif kind == "abs":
            name = "{cwd}/canary.py:" + rng.choice(["X", "EM", "__class__"])
        elif kind == "module":
            mod = rng.choice(MODULES)
            names = (mod,)
            name = f"{mod}:" + rng.choice(["X", "s", "system", "run", "rmtree", "main", "open"])
        else:
            name = rng.choice(["em" + rng.choice(ESCAPES), "x" * 10_000 + ".py:X", ":", "em:", "pf\n:X", "../../etc/passwd:X",
                               "http://example.invalid/x.py:X", "\u202ecanary.py:X", "em\x00", ""])
        rec["mechanism"] = name
        if rng.random() < 0.3:  # the user names another mechanism with -m (never the canary)
            extra_args = ["-m", rng.choice(["em", "pf", "laplace", "other.py:X", "json:loads"])]
        note = name[:60]
    elif family == "labels":
        key = rng.choice(["epsilon", "delta", "mechanism", "output", "kind", "evidence", "lower", "params",
                          "block-scores", "block-output", "block-lower", "top-epsilon", "top-mechanism", "neighbourhood"])
        note = key
        if key.startswith("block-"):
            field_ = key.split("-", 1)[1]
            block = (doc.get("counterexample") or (doc.get("epsilon_bracket") or {}).get("lower")) if "replay" in doc else None
            # a block the reader sees, made to disagree on a field the replay record also holds
            refuse = isinstance(block, dict) and (field_ != "lower" or "lower" in block)
            if isinstance(block, dict):
                block[field_] = rng.choice([["9", "9", "9"], 5, "0.5", "-3", None])
        elif key.startswith("top-"):
            refuse = "replay" in doc
            if refuse:
                doc[key.split("-", 1)[1]] = rng.choice(["100", "pf", "laplace", "1/2", None])
        elif key == "params":
            rec["params"] = rng.choice([{"epsilon": "100"}, {"epsilon": "1", "foo": "1"}, {"epsilon": _number(rng)}, [], None,
                                        {"epsilon": "1", "sensitivity": "0"}])
            refuse = False  # some are valid parameters (a check at another ε): 0, 1 or 2 by the mechanism's rules
        elif key == "neighbourhood":
            rec["neighbourhood"] = rng.choice([{"relation": "box", "sensitivity": "-1"}, {"relation": "nosuch"}, None, [],
                                               {"relation": "box", "sensitivity": "1", "extra": 1}, {"relation": "replace"}])
            refuse = False
        else:
            rec[key] = _number(rng) if key not in ("kind", "evidence") else rng.choice(
                ["witness", "counterexample", "selection", "finite", "interval", "continuous-box", "event", "box", "x", 1, None])
            # a relabelled ε or mechanism is refused (no label: nothing disagrees); other fields may replay
            refuse = key == "mechanism" or (key == "epsilon" and rec[key] is not None and str(rec[key]) != "1")
    elif family == "nesting":
        depth = rng.choice([50, 99, 100, 101, 500, 999, 1000, 1001, 5000, 50_000, 200_000])
        where = rng.choice(["top", "field"])
        if where == "top":
            raw = _nest(rng, depth)
        else:
            key = rng.choice(["scores", "params", "neighbourhood", "output", "extra", "epsilon"])
            text = json.dumps(doc)
            raw = text[:-1] + f', "{key}_n": ' + _nest(rng, depth) + "}"
            if rng.random() < 0.5:
                rec[key] = None  # placeholder replaced below
                text = json.dumps(doc).replace("null", _nest(rng, depth), 1)
                raw = text
        # shallow nesting in a field the replay never reads (the first null may be "recheck") is a valid document
        refuse = where == "top" or depth >= 100  # a top-level field adds one level: 99 + 1 is within the 100 allowed
        note = f"{where} depth {depth}"
    elif family == "sizes":
        what = rng.choice(["vector", "string", "keys", "digits", "many-values"])
        n = rng.choice([5000, 50_000, 300_000])
        if what == "vector":
            rec["scores"] = ["0"] * n
            rec["neighbour_scores"] = ["1"] * n
        elif what == "string":
            rec[rng.choice(["mechanism", "epsilon", "output", "lower", "note"])] = "x" * (n * 10)
        elif what == "keys":
            rec["params"] = {f"k{i}": "1" for i in range(n)}
        elif what == "digits":
            rec["scores"] = ["9" * 5000] * len(rec["scores"])
            rec["neighbour_scores"] = ["8" * 5000] * len(rec["scores"])
        else:
            raw = "[" + ",".join(["0"] * (n * 10)) + "]"
        note = f"{what} {n}"
    elif family == "escapes":
        esc = rng.choice(ESCAPES)
        where = rng.choice(["mechanism", "output", "epsilon", "lower", "key", "filename", "relation"])
        if where == "key":
            rec[esc + "key"] = 1
        elif where == "filename":
            filename = f"doc{esc.replace(chr(0), '')}.json" if esc.replace("\x00", "") else "doc\x1b[2J.json"
            refuse = False  # the document itself is valid: it replays (0) — its name must be escaped when printed
        elif where == "relation":
            rec["neighbourhood"] = {"relation": esc + "box"}
        else:
            rec[where] = f"{esc}1{esc}"
        refuse = where in ("key", "relation", "mechanism")  # elsewhere the value may be unused: no escape printed is what counts
        note = f"{where} {esc!r}"
    else:  # constants
        token = rng.choice(["NaN", "Infinity", "-Infinity"])
        target = rng.choice(["lower", "epsilon", "delta", "output", "score", "param"])
        marker = "__CONST__"
        if target == "score":
            rec["scores"][0] = marker
        elif target == "param":
            rec["params"]["epsilon"] = marker
        else:
            rec[target] = marker
        raw = json.dumps(doc).replace(f'"{marker}"', token)
        note = f"{target} {token}"
    text = raw if raw is not None else json.dumps(doc)
    if schema_cmd:
        command = rng.choice(COMMANDS)
        args = ["schema", command, "--validate", "{file}"]
        # a schema check reports follows (0) or does not follow (1); refused (2) only when unreadable
        refuse = family in ("nesting", "constants") and raw is not None and ("depth" not in note or int(note.split()[-1]) > 100)
        if family == "constants":
            refuse = False  # NaN is what Python writes: read, then checked against the schema
        if family == "sizes" and note.startswith("many-values") and int(note.split()[-1]) * 10 > 3_750_000:
            refuse = True
        return DocCase(family, args, text.encode("utf-8", "surrogatepass"), filename, refuse, names, note)
    json_out = rng.random() < 0.5
    args = ["replay", "{file}", *extra_args, *(["--json"] if json_out else [])]
    return DocCase(family, args, text.encode("utf-8", "surrogatepass"), filename, refuse, names, note)


def run_doc_case(case: DocCase, folder: Path) -> DocResult:
    """Run ``case`` in ``folder`` (created; left for inspection); the outcome (module docstring)."""
    from typer.testing import CliRunner

    from dpexact.cli.main import app
    from dpexact.schemas import validate

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "canary.py").write_text(CANARY_CODE)
    (folder / "sub").mkdir(exist_ok=True)
    content = case.content.replace(b"{cwd}", str(folder).encode())
    path = folder / case.filename
    path.write_bytes(content)
    before = set(os.listdir(folder))
    loaded = {m for m in case.names if m in sys.modules}
    args = [a.replace("{file}", str(path)) for a in case.args]
    old = os.getcwd()
    os.chdir(folder)
    t0 = time.process_time()
    try:
        r = CliRunner().invoke(app, args)
    finally:
        cpu = time.process_time() - t0
        os.chdir(old)
    out, err = r.stdout, r.stderr
    code = r.exit_code
    if (folder / CANARY).exists() or set(os.listdir(folder)) - before or any(
            m in sys.modules and m not in loaded for m in case.names):
        return DocResult(case, "code-run", code, cpu, "canary / new file / module imported")
    if cpu > HANG_SECONDS:
        return DocResult(case, "hang", code, cpu)
    if (r.exception is not None and not isinstance(r.exception, SystemExit)) or "Traceback" in out + err:
        return DocResult(case, "traceback", code, cpu, repr(r.exception)[:200])
    if any(c in out + err for c in ("\x1b", "\x07", "\x9b", "\u202e", "\x00")):
        return DocResult(case, "escape", code, cpu, (out + err)[:200])
    if code not in (0, 1, 2) or (case.refuse and code != 2):
        return DocResult(case, "exit", code, cpu, (err or out)[:200])
    if code == 2 and (not err.startswith("error: ") or err.count("\n") != 1 or out):
        return DocResult(case, "exit", code, cpu, "usage error not on one line: " + err[:200])
    if "--json" in args and code in (0, 1):
        try:
            d = json.loads(out, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
            validate("replay", d)
        except ValueError as exc:
            return DocResult(case, "bad-json", code, cpu, str(exc)[:200])
    return DocResult(case, "ok", code, cpu)


def summarise(results: list[DocResult]) -> dict[str, Any]:
    """Counts per outcome and family, exit codes, CPU (total, largest)."""
    outcomes: dict[str, int] = {}
    by_family: dict[str, dict[str, int]] = {}
    codes: dict[str, int] = {}
    for res in results:
        outcomes[res.outcome] = outcomes.get(res.outcome, 0) + 1
        fam = by_family.setdefault(res.case.family, {})
        fam[res.outcome] = fam.get(res.outcome, 0) + 1
        codes[str(res.exit_code)] = codes.get(str(res.exit_code), 0) + 1
    cpu = [r.cpu for r in results]
    return {"cases": len(results), "outcomes": outcomes, "by_family": by_family, "exit_codes": codes,
            "cpu_total": round(sum(cpu), 2), "cpu_max": round(max(cpu), 2) if cpu else 0.0,
            "schema_cases": sum(1 for r in results if r.case.args[0] == "schema")}

