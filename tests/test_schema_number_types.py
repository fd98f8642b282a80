"""One number type per JSON field (#36): no property of a shipped schema admits both a number and a
string. A float is a number or null (null = not finite); the exact value ("inf", "-inf", "nan", a
closed form) is the string in the sibling ``NAME_exact`` field.

The check is semantic: each property's subschema (with the document's ``$defs``) is asked, through
jsonschema itself, whether it accepts a sample number and a sample string, so an untyped ``{}``,
a ``oneOf`` of a number and an ``enum`` of strings, or a ``$ref`` to either are all caught."""

from __future__ import annotations

import json
from typing import Any, Iterator

import jsonschema
import pytest

from dpexact.schemas import COMMANDS, schema
from dpexact.schemas.numbers import finite_or_null, json_float, nonfinite_text, with_exact

#: sample values: a property that accepts one of NUMBERS and one of STRINGS (or a string the schema
#: itself names in a const / enum) mixes the two types
NUMBERS = (0, 1.5, -2.5, 1e300)
STRINGS = ("", "x", "inf", "-inf", "nan", "oo", "1/2")

#: fields that hold a *mechanism output* (an index, or text naming an output set), never a measured
#: number: an output of a selection is an integer index, an event of a box or a pattern is text
OUTPUT_LABELS = {
    ("verify", "/properties/counterexample/oneOf/1/properties/output"),
    ("verify", "/$defs/witness/properties/output"),
    ("verify", "/$defs/replay/properties/output"),
    ("mechanisms", "/properties/mechanisms/items/properties/parameters/items/properties/default"),
}


def _strings_named(s: Any, acc: set[str]) -> set[str]:
    if isinstance(s, dict):
        for k, v in s.items():
            if k == "const" and isinstance(v, str):
                acc.add(v)
            elif k == "enum":
                acc.update(x for x in v if isinstance(x, str))
            else:
                _strings_named(v, acc)
    elif isinstance(s, list):
        for v in s:
            _strings_named(v, acc)
    return acc


def _admits(sub: Any, root: dict, value: Any) -> bool:
    if isinstance(sub, dict) and "$defs" in root:
        sub = {**sub, "$defs": root["$defs"]}
    return jsonschema.Draft202012Validator(sub).is_valid(value)


def mixed_fields(root: dict) -> Iterator[tuple[str, list[str]]]:
    """``(JSON pointer, strings admitted)`` of every property or array item of ``root`` that admits a number and a string."""
    strings = STRINGS + tuple(sorted(_strings_named(root, set())))

    def check(sub: Any, where: str) -> Iterator[tuple[str, list[str]]]:
        if isinstance(sub, dict) and any(_admits(sub, root, x) for x in NUMBERS):
            admitted = [x for x in strings if _admits(sub, root, x)]
            if admitted:
                yield where, admitted[:4]

    def walk(s: Any, where: str) -> Iterator[tuple[str, list[str]]]:
        if not isinstance(s, dict):
            return
        for k, v in s.items():
            if k in ("properties", "patternProperties", "$defs") and isinstance(v, dict):
                for name, sub in v.items():
                    here = f"{where}/{k}/{name}"
                    if k != "$defs":  # a definition is checked where it is a property (and walked here)
                        yield from check(sub, here)
                    yield from walk(sub, here)
            elif k in ("items", "additionalProperties") and isinstance(v, dict):
                yield from check(v, f"{where}/{k}")
                yield from walk(v, f"{where}/{k}")
            elif k in ("not", "if", "then", "else", "contains") and isinstance(v, dict):
                yield from walk(v, f"{where}/{k}")
            elif k in ("anyOf", "oneOf", "allOf", "prefixItems") and isinstance(v, list):
                for i, sub in enumerate(v):
                    yield from walk(sub, f"{where}/{k}/{i}")

    yield from walk(root, "")


def test_no_shipped_schema_mixes_numbers_and_strings():
    found = {(c, where): admitted for c in COMMANDS for where, admitted in mixed_fields(schema(c))}
    mixed = {k: v for k, v in found.items() if k not in OUTPUT_LABELS}
    assert not mixed, "fields admitting a number and a string:\n" + "\n".join(f"{c} {w}: {v}" for (c, w), v in sorted(mixed.items()))
    # the exemptions still name real fields (a stale one would hide nothing, but says the list is unread)
    assert OUTPUT_LABELS <= set(found), sorted(OUTPUT_LABELS - set(found))


@pytest.mark.parametrize("bad", [
    {"type": ["number", "string"]},
    {"oneOf": [{"type": "number"}, {"enum": ["inf", "-inf", "nan"]}]},
    {"oneOf": [{"type": "number"}, {"const": "inf"}]},
    {},
    {"$ref": "#/$defs/end"},
    {"type": "array", "items": {"anyOf": [{"type": "integer"}, {"type": "string"}]}},
])
def test_a_planted_mixed_field_is_found(bad):
    planted = {"type": "object", "properties": {"ok": {"type": ["number", "null"]},
                                                "inner": {"type": "object", "properties": {"upper_float": bad}}},
               "$defs": {"end": {"oneOf": [{"type": "number"}, {"enum": ["inf"]}]}}}
    found = dict(mixed_fields(planted))
    assert list(found) == ["/properties/inner/properties/upper_float"] or (
        bad.get("type") == "array" and list(found) == ["/properties/inner/properties/upper_float/items"]), found
    # and the same field with one number type passes
    planted["properties"]["inner"]["properties"]["upper_float"] = {"type": ["number", "null"]}
    assert not dict(mixed_fields(planted))


def test_a_planted_mixed_field_in_a_shipped_schema_fails_the_check():
    s = schema("verify")
    s["$defs"]["bracket"]["properties"]["upper_float"] = {"oneOf": [{"type": "number"}, {"enum": ["inf"]}]}
    assert ("/$defs/bracket/properties/upper_float" in dict(mixed_fields(s)))


def test_number_helpers():
    assert json_float(1.5) == 1.5 and json_float(float("inf")) is None and json_float(float("nan")) is None
    assert json_float(None) is None and json_float(3) == 3.0
    assert [nonfinite_text(x) for x in (float("inf"), float("-inf"), float("nan"), 2.0)] == ["inf", "-inf", "nan", None]
    assert with_exact("upper", float("inf")) == {"upper": None, "upper_exact": "inf"}
    assert with_exact("upper", 0.5) == {"upper": 0.5}
    assert with_exact("upper", 0.5, "1/2") == {"upper": 0.5, "upper_exact": "1/2"}
    assert finite_or_null({"a": [1.0, float("-inf")], "b": (float("nan"),), "c": "inf"}) == {"a": [1.0, None], "b": [None], "c": "inf"}
    json.dumps(finite_or_null({"x": float("inf")}), allow_nan=False)
