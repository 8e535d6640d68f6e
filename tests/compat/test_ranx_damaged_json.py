"""The ranx drop-in's JSON run and qrels files read by rankmeter's one JSON reader (rankmeter.io.structured):
a damaged file is one InputError (a ValueError, as ranx's own json error is) naming the file and the field.

ranx itself reads these files with orjson: a key given twice keeps its last value in silence, which the drop-in
refuses (shown against ranx below); NaN both refuse with a ValueError."""
from __future__ import annotations

import warnings

import pytest
from optional_packages import optional

ranx = optional("ranx")

import rankmeter.compat.ranx as ours  # noqa: E402
from rankmeter.errors import InputError  # noqa: E402

warnings.filterwarnings("ignore", category=Warning, module="numba")

SHAPE = {"run": 'a ranx run JSON file is {"q_id": {"doc_id": score, ...}, ...}',
         "qrels": 'a ranx qrels JSON file is {"q_id": {"doc_id": grade, ...}, ...}'}
DEEP = b"[" * 100_000 + b"]" * 100_000

#: case -> (the file's bytes, what the error says after "FILE: ")
DAMAGED = {
    "key twice": (b'{"q1": {"d1": 1, "d1": 2}}',
                  "an object names the key 'd1' twice: JSON readers disagree on which one counts; keep one"),
    "NaN": (b'{"q1": {"d1": NaN}}', "field q1.d1: expected a number, got NaN"),
    "Infinity": (b'{"q1": {"d1": 1e999}}', "field q1.d1: expected a number, got Infinity"),
    "deep nesting": (DEEP, "not a file rankmeter reads: nested deeper than 32 levels of lists and objects"),
    "nested a little": (b'{"q1": {"d1": 1}, "q2": ' + b"[" * 40 + b"]" * 40 + b"}",
                        "field q2: expected an object, each value a number, got a list of 1"),
    "string score": (b'{"q1": {"d1": "0.5"}}', "field q1.d1: expected a number, got the string '0.5'"),
    "boolean score": (b'{"q1": {"d1": true}}', "field q1.d1: expected a number, got true"),
    "huge integer": (b'{"q1": {"d1": 1' + b"0" * 60 + b"}}",
                     "field q1.d1: expected a number, got an integer of 61 digits"),
    "a list": (b"[1, 2]", "field (the whole file): expected an object, each value an object, each value a number, "
                          "got a list of 2"),
    "Latin-1": ('{"q\xe9": {"d1": 1}}'.encode("latin-1"),
                "not UTF-8 text (byte 0xe9 at offset 3, line 1): save the file as UTF-8"),
}
HINTED = set(DAMAGED) - {"Latin-1"}


@pytest.mark.parametrize("kind", ["run", "qrels"])
@pytest.mark.parametrize("case", DAMAGED)
def test_a_damaged_ranx_json_file_is_named_with_its_field(tmp_path, case, kind):
    data, said = DAMAGED[case]
    path = tmp_path / f"{kind}.json"
    path.write_bytes(data)
    read = ours.Run.from_file if kind == "run" else ours.Qrels.from_file
    with pytest.raises(InputError) as refused:
        read(str(path))
    assert isinstance(refused.value, ValueError)
    assert str(refused.value) == f"{path}: {said}" + (f"; {SHAPE[kind]}" if case in HINTED else "")


def test_ranx_itself_keeps_the_last_of_a_key_twice_and_refuses_nan_as_a_value_error(tmp_path):
    """ranx (orjson) silently keeps the last of a key given twice, which the drop-in refuses; NaN both refuse,
    each with a ValueError (orjson.JSONDecodeError for ranx, InputError for the drop-in)."""
    path = tmp_path / "run.json"
    path.write_bytes(DAMAGED["key twice"][0])
    assert dict(ranx.Run.from_file(str(path)).to_dict()["q1"]) == {"d1": 2.0}
    path.write_bytes(b'{"q1": {"d1": NaN, "d2": 1.0}}')
    with pytest.raises(ValueError):
        ranx.Run.from_file(str(path))
    with pytest.raises(InputError, match=r"run\.json: field q1\.d1: expected a number, got NaN"):
        ours.Run.from_file(str(path))


def test_a_good_file_reads_as_ranx_reads_it(tmp_path):
    path = tmp_path / "qrels.json"
    path.write_bytes(b'{"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 2}}')
    want = {q: dict(d) for q, d in ranx.Qrels.from_file(str(path)).to_dict().items()}
    assert {q: dict(d) for q, d in ours.Qrels.from_file(str(path)).to_dict().items()} == want
    path = tmp_path / "run.json"
    path.write_bytes(b'{"q1": {"d1": 0.5, "d2": 0.25}, "q2": {"d3": 3}}')
    want = {q: dict(d) for q, d in ranx.Run.from_file(str(path)).to_dict().items()}
    assert {q: dict(d) for q, d in ours.Run.from_file(str(path)).to_dict().items()} == want
