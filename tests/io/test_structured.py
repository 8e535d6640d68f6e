"""rankmeter.io.structured: the one reader of JSON files and SQLite cache metadata, on damaged input.

Each case names its damage and the exact outcome: an InputError whose message names the file, the field (a
JSON path) and what the field must hold; never a coercion, never another exception."""
from __future__ import annotations

import io
import json
import math
import re

import numpy as np
import pytest

from rankmeter.errors import InputError
from rankmeter.io.structured import (
    MAX_DEPTH, Anything, Bool, Int, ListOf, MapOf, Nullable, Num, Numbers, Record, Str, Tuple, check,
    parse_json, read_json,
)

SCHEMA = Record({"margin": Num(low=0, high=1), "strict": Bool(), "count": Int(0, 100), "name": Str(("a", "b")),
                 "tags": ListOf(Str()), "pair": Tuple(Str(), Int(0, 9))},
                {"note": Nullable(Str()), "weights": MapOf(Num(low=0)), "free": Anything()})
NaN = float("nan")  # json.dumps writes the literal NaN
GOOD = {"margin": 0.5, "strict": True, "count": 3, "name": "a", "tags": ["x"], "pair": ["q", 1]}


def _with(**changes):
    return json.dumps({**GOOD, **changes})


def test_a_good_file_reads_as_written(tmp_path):
    path = tmp_path / "good.json"
    path.write_text(json.dumps(GOOD))
    assert read_json(path, SCHEMA) == GOOD
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(GOOD).encode())     # a UTF-8 byte-order mark is fine
    assert read_json(path, SCHEMA) == GOOD


# (the damage, the field named, what it must hold, what it held)
DAMAGED = [
    ("a number as a string", _with(margin="0.5"), "margin", "a number in [0, 1]", "the string '0.5'"),
    ("a boolean as a string", _with(strict="yes"), "strict", "true or false", "the string 'yes'"),
    ("a boolean as a number", _with(strict=1), "strict", "true or false", "1"),
    ("an integer as a boolean", _with(count=True), "count", "an integer in [0, 100]", "true"),
    ("an integer as a real", _with(count=3.0), "count", "an integer in [0, 100]", "3.0"),
    ("a huge integer", _with(count=10 ** 30), "count", "an integer in [0, 100]", "an integer of 31 digits"),
    ("an integer of 5000 digits", _with(count=0).replace('"count": 0', '"count": ' + "9" * 5000), "count",
     "an integer in [0, 100]", "an integer of 5000 digits"),
    ("NaN", _with(margin=0).replace('"margin": 0', '"margin": NaN'), "margin", "a number in [0, 1]", "NaN"),
    ("Infinity", _with(margin=0).replace('"margin": 0', '"margin": -Infinity'), "margin", "a number in [0, 1]",
     "-Infinity"),
    ("a number too large for a double", _with(margin=0).replace('"margin": 0', '"margin": 1e999'), "margin",
     "a number in [0, 1]", "Infinity"),
    ("out of range", _with(margin=1.5), "margin", "a number in [0, 1]", "1.5"),
    ("a word not allowed", _with(name="c"), "name", 'one of "a", "b"', "the string 'c'"),
    ("null for a list", _with(tags=None), "tags", "a list, each entry a string", "null"),
    ("a number in a list of strings", _with(tags=["x", 5]), "tags[1]", "a string", "5"),
    ("a short tuple", _with(pair=["q"]), "pair", "[a string, an integer in [0, 9]]", "a list of 1"),
    ("a missing field", json.dumps({k: v for k, v in GOOD.items() if k != "count"}), "count",
     "an integer in [0, 100] (the field is missing)", None),
    ("a negative weight deep down", _with(weights={"odd key": -1}), 'weights["odd key"]', "a number in [0, inf]",
     "-1"),
    ("NaN in a free field", _with(free={"a": [1, NaN]}), "free.a[1]", "a finite number",
     "NaN"),
]


@pytest.mark.parametrize("damage, text, field, expected, got", DAMAGED, ids=[d[0] for d in DAMAGED])
def test_a_damaged_field_is_named_with_what_it_must_hold(tmp_path, damage, text, field, expected, got):
    path = tmp_path / "damaged.json"
    path.write_text(text)
    with pytest.raises(InputError) as refused:
        read_json(path, SCHEMA, hint="make it again")
    message = str(refused.value)
    want = f"{path}: field {field}: expected {expected}" + (f", got {got}" if got else "") + "; make it again"
    assert message == want


def test_whole_file_damage(tmp_path):
    cases = {
        "latin1": ("{\"name\": \"caf\xe9\"}".encode("latin-1"), "not UTF-8 text (byte 0xe9 at offset 13, line 1): "
                   "save the file as UTF-8"),
        "utf16": (json.dumps(GOOD).encode("utf-16"), "not UTF-8 text (byte 0xff at offset 0, line 1)"),
        "truncated": (b'{"margin": 0.5, "tags": [', "not valid JSON (Expecting value, line 1 column 26)"),
        "twice": (b'{"margin": 0.5, "margin": 0.6}', "an object names the key 'margin' twice"),
        "deep": (b"[" * 100_000 + b"]" * 100_000, f"nested deeper than {MAX_DEPTH} levels"),
        "empty": (b"", "not valid JSON (Expecting value, line 1 column 1)"),
    }
    for name, (data, expected) in cases.items():
        path = tmp_path / f"{name}.json"
        path.write_bytes(data)
        with pytest.raises(InputError) as refused:
            read_json(path, SCHEMA)
        assert str(refused.value).startswith(f"{path}: ") and expected in str(refused.value), (name, refused.value)


def test_nesting_within_what_python_parses_is_bounded_too():
    nested = "[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5)
    with pytest.raises(InputError, match=rf"field free(\[0\])+: expected at most {MAX_DEPTH} levels of nested"):
        parse_json(_with(free=0).replace('"free": 0', '"free": ' + nested), SCHEMA, source="f.json")
    assert parse_json("[" * 10 + "]" * 10, None, source="f.json") == [[[[[[[[[[]]]]]]]]]]


def test_size_cap_before_reading(tmp_path):
    path = tmp_path / "big.json"
    path.write_text(json.dumps({"tags": ["x" * 1000] * 100}))
    with pytest.raises(InputError, match=r"big.json: the file is \d+ bytes, more than rankmeter reads \(5000\)"):
        read_json(path, None, max_bytes=5000)
    with pytest.raises(InputError, match="more than 5000 bytes"):
        read_json(io.BytesIO(path.read_bytes()), None, max_bytes=5000)


def test_missing_file_and_lone_surrogate(tmp_path):
    with pytest.raises(InputError, match=r"none.json: cannot read the design \(No such file or directory\)"):
        read_json(tmp_path / "none.json", None, what="the design")
    with pytest.raises(InputError, match=r"field tags\[0\]: expected a string of Unicode characters"):
        parse_json(_with(tags=["x"]).replace('["x"]', '["\\ud800"]'), SCHEMA, source="s.json")


def test_numbers_are_read_as_arrays_and_the_first_bad_one_is_named():
    schema = Numbers(rows=True, length=3, low=0, high=1)
    got = check([[0, 0.5, 1], [1, 1, 0.25]], schema, source="b.json", at=("judged",))
    assert isinstance(got, np.ndarray) and got.tolist() == [[0.0, 0.5, 1.0], [1.0, 1.0, 0.25]]
    for value, field, shown in (([[0, 0.5, 2]], "judged[0][2]", "2"), ([[0, "1", 1]], "judged[0][1]", "the string '1'"),
                                ([[0, True, 1]], "judged[0][1]", "true"), ([[0, math.inf, 1]], "judged[0][1]",
                                                                           "Infinity"),
                                ([[0, 10 ** 400, 1]], "judged[0][1]", "an integer of 401 digits")):
        with pytest.raises(InputError, match=rf"b.json: field {re.escape(field)}: "
                           rf"expected a (finite )?number in \[0, 1\], got {shown}"):
            check(value, schema, source="b.json", at=("judged",))
    with pytest.raises(InputError, match=r"field judged\[0\]: expected a list of 3 numbers, got a list of 2"):
        check([[0, 1]], schema, source="b.json", at=("judged",))


def test_a_field_may_allow_nan_explicitly():
    schema = Record({"p": Num(finite=False)})
    got = parse_json('{"p": NaN}', schema, source="s.json")
    assert math.isnan(got["p"])


def test_an_unknown_field_is_refused_where_the_record_is_closed():
    schema = Record({"a": Int()}, {"b": Int()}, closed=True)
    with pytest.raises(InputError, match=r"field c: expected no such field here \(the fields are a, b\)"):
        parse_json('{"a": 1, "c": 2}', schema, source="s.json")
