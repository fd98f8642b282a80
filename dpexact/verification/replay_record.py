"""A replay record read as data, never as code: which mechanism may be built, and whether the labels a
reader sees are the ones that are checked.

Evidence files are exchanged between people, so nothing a file says is run. The rules:

* **Trust.** A record naming a registry mechanism (``pf``, ``em``, ...) is rebuilt from the registry.
  A record naming anything else (``PATH.py:OBJECT``, ``module:OBJECT``) is refused unless the user
  names the mechanism themself (``dpexact replay FILE -m PATH.py:OBJECT``, the trust rule of
  :mod:`dpexact.mechanisms.loader`: naming a file or module imports it); the record must then name
  the same object (same ``OBJECT``, same module, or a file of the same name — and, when the record
  carries the file's SHA-256, the same content). :func:`trusted_spec` decides this before anything
  is imported.
* **One evidence block.** A ``verify`` document carries the evidence twice: the block a reader sees
  (``counterexample``, or the ε bracket's ``lower`` witness) and the ``replay`` record that is
  re-checked. :func:`record_of` accepts the document only if the two agree on every field they
  share (vectors, output, box, interval, lower end, δ) and on the mechanism and ε labels; a bare
  record may hold no key that is not part of the record (:data:`RECORD_KEYS`).
* **Bounded.** Vectors of at most :data:`MAX_SCORES` entries and number texts of at most
  :data:`MAX_NUMBER_CHARS` characters, so a replay costs what a verifier's evidence costs.
* **Printable.** :func:`printable` escapes control and bidirectional-override characters, so
  text a record brings never drives a terminal.
"""

from __future__ import annotations

import hashlib
import os
import unicodedata
from typing import Any

__all__ = ["RECORD_KEYS", "MAX_SCORES", "MAX_NUMBER_CHARS", "record_of", "trusted_spec", "file_digest", "printable",
           "check_bounds"]

#: the keys of a replay record (:func:`dpexact.verification.replay.evidence_record`)
RECORD_KEYS = frozenset({"mechanism", "mechanism_sha256", "params", "epsilon", "delta", "kind", "evidence",
                         "neighbourhood", "scores", "neighbour_scores", "output", "box", "interval", "lower"})
#: most scores per vector in a record (a verifier's evidence has a few dozen)
MAX_SCORES = 4096
#: longest text of one number, parameter value or label in a record
MAX_NUMBER_CHARS = 1000
#: most entries in the params object
MAX_PARAMS = 64


def printable(text: Any, limit: int = 300) -> str:
    """``text`` with every control, format (bidirectional overrides) and separator character other
    than a space written as ``\\xNN`` / ``\\uNNNN``, cut to ``limit`` characters."""
    s = str(text)
    if len(s) > limit:
        s = s[: limit - 3] + "..."
    out = []
    for ch in s:
        cat = unicodedata.category(ch)
        if ch == " " or not (cat.startswith("C") or cat in ("Zl", "Zp")):
            out.append(ch)
        else:
            o = ord(ch)
            out.append(f"\\x{o:02x}" if o < 0x100 else f"\\u{o:04x}" if o < 0x10000 else f"\\U{o:08x}")
    return "".join(out)


def file_digest(spec: str) -> str | None:
    """SHA-256 of the file a ``PATH.py:OBJECT`` spec names (read, not imported); None for any other spec
    or an unreadable file."""
    path, sep, _ = spec.rpartition(":")
    if not sep or not path.endswith(".py"):
        return None
    try:
        with open(path, "rb") as fh:
            return hashlib.sha256(fh.read(1 << 24)).hexdigest()
    except OSError:
        return None


def trusted_spec(recorded: str, user: str | None, recorded_digest: Any = None) -> str:
    """The mechanism spec a replay builds: ``recorded`` if it is a registry name and the user named
    none (or the same one); the user's ``-m`` spec if it names the recorded object (module docstring).

    Raises:
        ValueError: one line, naming what differs; nothing is imported.
    """
    from ..mechanisms.registry import available

    registry = set(available())
    shown = printable(recorded, 120)
    if user is None:
        if recorded in registry:
            return recorded
        raise ValueError(f"the record names mechanism {shown!r}, which is not a registry mechanism; a mechanism "
                         "outside the registry is imported only when you name it: dpexact replay FILE -m PATH.py:OBJECT")
    if user in registry or recorded in registry:
        if user != recorded:
            raise ValueError(f"-m {printable(user, 120)!r} is not the mechanism the record names ({shown!r})")
        return user
    if ":" not in user:
        raise ValueError(f"-m: expected a registry name, PATH.py:OBJECT or module:OBJECT, got {printable(user, 120)!r}")
    upath, _, uobj = user.rpartition(":")
    rpath, _, robj = recorded.rpartition(":")
    if uobj != robj:
        raise ValueError(f"-m names object {printable(uobj, 80)!r}; the record names {printable(robj, 80)!r}")
    if upath.endswith(".py") != rpath.endswith(".py"):
        raise ValueError(f"-m {printable(user, 120)!r} and the record's {shown!r} are not both files or both modules")
    if upath.endswith(".py"):
        if os.path.basename(upath) != os.path.basename(rpath.replace("\\", "/")):
            raise ValueError(f"-m names file {printable(os.path.basename(upath), 80)!r}; the record names "
                             f"{printable(os.path.basename(rpath), 80)!r}")
        if recorded_digest is not None:
            if file_digest(user) != recorded_digest:
                raise ValueError(f"-m {printable(user, 120)!r}: the file's SHA-256 differs from the one the record "
                                 "carries (the evidence was saved for other code)")
    elif upath != rpath:
        raise ValueError(f"-m names module {printable(upath, 80)!r}; the record names {printable(rpath, 80)!r}")
    return user


def _text_ok(x: Any) -> bool:
    return isinstance(x, (str, int, float, bool)) or x is None


def check_bounds(rec: dict) -> None:
    """Sizes and types of a record before anything is built (module docstring); ValueError naming the key."""
    unknown = sorted(k for k in rec if k not in RECORD_KEYS)
    if unknown:
        raise ValueError(f"the record has keys that are not part of a replay record: "
                         f"{', '.join(printable(k, 40) for k in unknown[:5])}")
    if not isinstance(rec.get("mechanism"), str) or not 0 < len(rec["mechanism"]) <= MAX_NUMBER_CHARS:
        raise ValueError("mechanism: expected a name")
    params = rec.get("params")
    if not isinstance(params, dict) or len(params) > MAX_PARAMS:
        raise ValueError(f"params: expected an object of at most {MAX_PARAMS} entries")
    for k, v in params.items():
        if len(k) > 100 or not _text_ok(v) or len(str(v)) > MAX_NUMBER_CHARS:
            raise ValueError(f"params: {printable(k, 40)!r} must be a number, text or true/false of at most "
                             f"{MAX_NUMBER_CHARS} characters")
    for key in ("epsilon", "delta", "lower", "mechanism_sha256"):
        v = rec.get(key)
        if v is not None and (not isinstance(v, (str, int)) or isinstance(v, bool) or len(str(v)) > MAX_NUMBER_CHARS):
            raise ValueError(f"{key}: expected an exact number as a string")
    for key in ("scores", "neighbour_scores"):
        v = rec.get(key)
        if isinstance(v, list) and len(v) > MAX_SCORES:
            raise ValueError(f"{key}: {len(v)} scores; a replay record holds at most {MAX_SCORES}")
        if isinstance(v, list) and any(isinstance(x, str) and len(x) > MAX_NUMBER_CHARS for x in v):
            raise ValueError(f"{key}: a number longer than {MAX_NUMBER_CHARS} characters")
    for key in ("box", "interval"):
        v = rec.get(key)
        if isinstance(v, list) and (len(v) > MAX_SCORES or any(len(str(x)) > 2 * MAX_NUMBER_CHARS + 10 for x in v)):
            raise ValueError(f"{key}: larger than a replay record holds")
    out = rec.get("output")
    if out is not None and not _text_ok(out) or len(str(out)) > MAX_NUMBER_CHARS:
        raise ValueError("output: expected an index or an output label")


def _same(a: Any, b: Any) -> bool:
    """Equal as saved labels: numbers compared by their text (the writer writes both from one value)."""
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None:
        return a is b
    return str(a) == str(b)


def _agree(where: str, block: Any, rec: dict, keys: tuple[str, ...]) -> None:
    if not isinstance(block, dict):
        raise ValueError(f"the document's {where} is not an object; refused (the evidence a reader sees must be "
                         "the evidence replayed)")
    for key in keys:
        if key in block and key in rec and not _same(block[key], rec[key]):
            raise ValueError(f"the document's {where} and its replay record disagree on {key!r}; refused (the "
                             "evidence a reader sees must be the evidence replayed)")
        if (key in block) != (key in rec) and key in ("scores", "neighbour_scores", "lower"):
            raise ValueError(f"the document's {where} and its replay record disagree on {key!r}; refused")


def record_of(doc: Any) -> dict:
    """The replay record of ``doc`` — a ``verify`` document whose blocks agree (module docstring), or
    a bare record — with its bounds checked.

    Raises:
        ValueError: one line naming the disagreement, the unknown key or the bound.
    """
    if not isinstance(doc, dict):
        raise ValueError("the record must be a JSON object")
    if "command" in doc or "schema_version" in doc:
        if doc.get("command") != "verify":
            raise ValueError(f"a {printable(doc.get('command'), 40)!r} document holds no replay record (expected a "
                             "verify document or a replay record)")
        if "replay" not in doc:
            raise ValueError(f"it holds a {printable(doc.get('verdict'), 40)} verdict with no replayable evidence "
                             "(no counterexample, no bracket witness)")
        rec = doc["replay"]
        if not isinstance(rec, dict):
            raise ValueError("replay: expected an object")
        check_bounds(rec)
        for key in ("mechanism", "epsilon", "delta"):
            if key in doc and key in rec and not _same(doc[key], rec[key]):
                raise ValueError(f"the document's {key} ({printable(doc[key], 60)!r}) and its replay record's "
                                 f"({printable(rec[key], 60)!r}) disagree; refused")
        cx = doc.get("counterexample")
        if rec.get("kind") == "counterexample":
            if cx is None:
                raise ValueError("the replay record holds a counterexample the document's counterexample block does "
                                 "not show; refused (the evidence a reader sees must be the evidence replayed)")
            _agree("counterexample", cx, rec, ("scores", "neighbour_scores", "output", "box", "interval", "delta",
                                               "epsilon"))
        elif rec.get("kind") == "witness":
            if cx is not None:
                raise ValueError("the document shows a counterexample but its replay record holds a bracket "
                                 "witness; refused (the evidence a reader sees must be the evidence replayed)")
            br = doc.get("epsilon_bracket")
            lower = br.get("lower") if isinstance(br, dict) else None
            _agree("epsilon_bracket.lower", lower, rec, ("scores", "neighbour_scores", "output", "lower"))
        return rec
    check_bounds(doc)
    return doc
