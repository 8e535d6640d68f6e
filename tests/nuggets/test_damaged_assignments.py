"""Damaged nuggetizer assignment files: each read by the one JSON reader and refused with the file, the line and
the field (never a traceback, never a value coerced); ``rankmeter nuggets`` prints one line and exits 2."""
from __future__ import annotations

import pytest

from rankmeter.errors import InputError
from rankmeter.nuggets.assignments import nugget_scores, read_assignments

HINT = ('nuggetizer\'s assignment output: one {"qid": ..., "nuggets": [{"text": ..., "importance": "vital", '
        '"assignment": "support"}, ...]} per line (run nuggetizer\'s assign step first)')
GOOD = b'{"qid": "q0", "nuggets": [{"text": "t", "importance": "vital", "assignment": "support"}]}\n'
DEEP = "[" * 40 + "]" * 40

#: case -> (the second line of the file, what the error says after "FILE:2: ", whether the hint follows)
DAMAGED = {
    "key twice": (b'{"qid": "q1", "nuggets": [], "qid": "q2"}',
                  "an object names the key 'qid' twice: JSON readers disagree on which one counts; keep one", True),
    "NaN": (b'{"qid": "q1", "nuggets": [{"importance": "vital", "assignment": "support", "weight": NaN}]}',
            "field nuggets[0].weight: expected a finite number, got NaN", True),
    "deep nesting": (f'{{"qid": "q1", "nuggets": [], "extra": {DEEP}}}'.encode(),
                     "field extra" + "[0]" * 31 + ": expected at most 32 levels of nested lists and objects", True),
    "wrong type": (b'{"qid": "q1", "nuggets": [{"importance": "vital", "assignment": 1}]}',
                   "field nuggets[0].assignment: expected text such as support, partial_support or not_support, got 1",
                   True),
    "boolean id": (b'{"qid": true, "nuggets": []}',
                   "field qid: expected an id (a non-empty string, or an integer), got true", True),
    "nuggets not a list": (b'{"qid": "q1", "nuggets": {"importance": "vital"}}',
                           "field nuggets: expected a list, each entry a nugget with importance, assignment, got an "
                           "object", True),
    "not an object": (b'["q1", []]', "a JSON list, not an object; every line must be an answer record", True),
}


@pytest.mark.parametrize("case", DAMAGED)
def test_a_damaged_line_is_named_with_its_field(tmp_path, case):
    line, said, hinted = DAMAGED[case]
    path = tmp_path / "a.jsonl"
    path.write_bytes(GOOD + line + b"\n")
    with pytest.raises(InputError) as refused:
        read_assignments(path)
    assert str(refused.value) == f"{path}:2: {said}" + (f"; {HINT}" if hinted else "")
    assert refused.value.line == 2 and refused.value.source == str(path)


def test_latin1_bytes_are_refused_by_offset_and_line(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_bytes(GOOD + '{"qid": "q\xe9", "nuggets": []}\n'.encode("latin-1"))
    with pytest.raises(InputError) as refused:
        read_assignments(path)
    offset = len(GOOD) + len('{"qid": "q')
    assert str(refused.value) == (f"{path}: not UTF-8 text (byte 0xe9 at offset {offset}, line 2): save the file "
                                  "as UTF-8")


def test_an_integer_qid_is_read_as_its_digits_and_records_given_in_python_are_checked_alike(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_bytes(b'{"qid": 7, "nuggets": [{"importance": "vital", "assignment": "support"}]}\n')
    assert read_assignments(path)[0]["qid"] == "7"
    assert nugget_scores(path).per_query[0]["query"] == "7"
    with pytest.raises(InputError) as refused:
        nugget_scores([{"qid": "q", "nuggets": [{"importance": "vital", "assignment": None}]}])
    assert str(refused.value) == ("<records>:1: field nuggets[0].assignment: expected text such as support, "
                                  f"partial_support or not_support, got null; {HINT}")


@pytest.mark.parametrize("case", ["key twice", "NaN", "wrong type"])
def test_the_command_prints_one_line_and_exits_2(tmp_path, case):
    from cli_runner import run_cli_in_process
    line, said, _ = DAMAGED[case]
    path = tmp_path / "a.jsonl"
    path.write_bytes(GOOD + line + b"\n")
    result = run_cli_in_process("nuggets", str(path))
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == f"rankmeter: error: {path}:2: {said}; {HINT}\n"
