"""Damaged leaderboard manifests read by the one JSON reader (rankmeter.io.structured.parse_json): a key twice,
NaN, deep nesting, a wrong type or Latin-1 bytes is one InputError naming the file and the field; ``rankmeter
leaderboard`` prints one line and exits 2. A JSON Lines table is still told apart from a manifest."""
from __future__ import annotations

import pytest

from rankmeter.errors import InputError
from rankmeter.leaderboard.inputs import read_scores

ENTRY = b'{"a": {"qrels": "q.txt", "runs": {"s": "r.txt"}}}'
#: case -> (the manifest's bytes, what the error says after "FILE: ")
DAMAGED = {
    "key twice": (b'{"collections": ' + ENTRY + b', "collections": {}}',
                  "an object names the key 'collections' twice: JSON readers disagree on which one counts; keep one"),
    "a collection twice": (b'{"collections": {"a": {"qrels": "q", "runs": {"s": "r"}}, "a": {"qrels": "q2", '
                           b'"runs": {"s": "r"}}}}',
                           "an object names the key 'a' twice: JSON readers disagree on which one counts; keep one"),
    "NaN": (b'{"collections": ' + ENTRY + b', "weight": NaN}', "field weight: expected a finite number, got NaN"),
    "deep nesting": (b'{"collections": ' + ENTRY + b', "x": ' + b"[" * 40 + b"]" * 40 + b"}",
                     "field x" + "[0]" * 31 + ": expected at most 32 levels of nested lists and objects"),
    "very deep nesting": (b'{"collections": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
                          "not a file rankmeter reads: nested deeper than 32 levels of lists and objects"),
    "run path a number": (b'{"collections": {"a": {"qrels": "q", "runs": {"s": 5}}}}',
                          "collections.a.runs.s: expected a path"),
    "huge integer": (b'{"collections": ' + ENTRY + b', "n": 1' + b"0" * 60 + b"}",
                     "field n: expected a number of at most 40 digits, got an integer of 61 digits"),
    "Latin-1": ('{"collections": {"caf\xe9": {"qrels": "q", "runs": {"s": "r"}}}}'.encode("latin-1"),
                "not UTF-8 text (byte 0xe9 at offset 21, line 1): save the file as UTF-8"),
}


@pytest.mark.parametrize("case", DAMAGED)
def test_a_damaged_manifest_is_named_with_its_field(tmp_path, case):
    data, said = DAMAGED[case]
    path = tmp_path / "manifest.json"
    path.write_bytes(data)
    with pytest.raises(InputError) as refused:
        read_scores(path, ["nDCG@10"])
    assert str(refused.value) == f"{path}: {said}"


def test_a_json_lines_table_is_still_read_as_a_table(tmp_path):
    path = tmp_path / "scores.jsonl"
    path.write_bytes(b'{"system": "A", "collection": "x", "measure": "AP", "value": 0.5}\n'
                     b'{"system": "B", "collection": "x", "measure": "AP", "value": 0.25}\n')
    scores = read_scores(path)
    assert scores.systems == ["A", "B"]


@pytest.mark.parametrize("case", ["key twice", "NaN", "Latin-1"])
def test_the_command_prints_one_line_and_exits_2(tmp_path, case):
    from cli_runner import run_cli_in_process
    data, said = DAMAGED[case]
    path = tmp_path / "manifest.json"
    path.write_bytes(data)
    result = run_cli_in_process("leaderboard", str(path), "-m", "nDCG@10")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == f"rankmeter: error: {path}: {said}\n"
