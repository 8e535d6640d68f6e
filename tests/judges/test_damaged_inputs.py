"""Damaged JSON Lines inputs of the judges commands -- sampled labels (``judges aggregate``, ``judges reliability``)
and query or passage texts (``judges label``) -- read by the one JSON reader: each refused with the file, the line
and the field, never a traceback, never a value coerced; the commands print one line and exit 2 (``label`` before
any request)."""
from __future__ import annotations

import pytest

from rankmeter.errors import InputError
from rankmeter.judges import aggregate, read_samples, read_texts
from tests.judges.hostile import Hostile

SAMPLE_HINT = ('a sample is {"query": ID, "doc": ID, "grade": N} or {"query": ID, "doc": ID, '
               '"probabilities": {GRADE: P}}')
TEXT_HINT = ('each line is {"id": ID, "text": TEXT} (the id in id, _id, qid, docid...; the text in text, contents, '
             'query...)')
DEEP = "[" * 40 + "]" * 40
NESTED = "[0]" * 31 + ": expected at most 32 levels of nested lists and objects"

GOOD_SAMPLE = b'{"query": "q", "doc": "a", "grade": 1}\n'
#: case -> (the second line, what the error says after "FILE:2: ")
DAMAGED_SAMPLES = {
    "key twice": (b'{"query": "q", "doc": "b", "grade": 1, "grade": 2}',
                  "an object names the key 'grade' twice: JSON readers disagree on which one counts; keep one"),
    "NaN": (b'{"query": "q", "doc": "b", "grade": NaN}', "field grade: expected a number, got NaN"),
    "NaN probability": (b'{"query": "q", "doc": "b", "probabilities": {"0": 0.5, "1": NaN}}',
                        'field probabilities["1"]: expected a number in [0, inf], got NaN'),
    "deep nesting": (f'{{"query": "q", "doc": "b", "grade": 1, "why": {DEEP}}}'.encode(), "field why" + NESTED),
    "grade as text": (b'{"query": "q", "doc": "b", "grade": "2"}',
                      "field grade: expected a number, got the string '2'"),
    "boolean doc": (b'{"query": "q", "doc": false, "grade": 1}',
                    "field doc: expected an id (a non-empty string, or an integer), got false"),
    "negative probability": (b'{"query": "q", "doc": "b", "probabilities": {"0": -0.5, "1": 1.5}}',
                             'field probabilities["0"]: expected a number in [0, inf], got -0.5'),
    "huge integer": (b'{"query": "q", "doc": "b", "grade": 1' + b"0" * 50 + b"}",
                     "field grade: expected a number, got an integer of 51 digits"),
}


@pytest.mark.parametrize("case", DAMAGED_SAMPLES)
def test_a_damaged_samples_line_is_named_with_its_field(tmp_path, case):
    line, said = DAMAGED_SAMPLES[case]
    path = tmp_path / "samples.jsonl"
    path.write_bytes(GOOD_SAMPLE + line + b"\n")
    with pytest.raises(InputError) as refused:
        read_samples(path)
    assert str(refused.value) == f"{path}:2: {said}; {SAMPLE_HINT}"


def test_latin1_samples_are_refused_by_offset_and_line(tmp_path):
    path = tmp_path / "samples.jsonl"
    path.write_bytes(GOOD_SAMPLE + '{"query": "q\xe9", "doc": "a", "grade": 1}\n'.encode("latin-1"))
    with pytest.raises(InputError) as refused:
        aggregate(path)
    offset = len(GOOD_SAMPLE) + len('{"query": "q')
    assert str(refused.value) == (f"{path}: not UTF-8 text (byte 0xe9 at offset {offset}, line 2): save the file "
                                  "as UTF-8")


def test_integer_ids_are_read_as_their_digits(tmp_path):
    path = tmp_path / "samples.jsonl"
    path.write_bytes(b'{"qid": 12, "docid": 7, "grade": 2}\n{"qid": 12, "docid": 7, "grade": 0}\n')
    qrels = aggregate(path, method="mean")
    assert qrels.table.column("query").to_pylist() == [b"12"] and qrels.table.column("rel").to_pylist() == [1.0]


GOOD_TEXT = b'{"id": "d0", "text": "a passage"}\n'
DAMAGED_TEXTS = {
    "key twice": (b'{"id": "d1", "text": "a", "text": "b"}',
                  "an object names the key 'text' twice: JSON readers disagree on which one counts; keep one"),
    "NaN": (b'{"id": "d1", "text": "a", "score": NaN}', "field score: expected a finite number, got NaN"),
    "deep nesting": (f'{{"id": "d1", "text": "a", "meta": {DEEP}}}'.encode(), "field meta" + NESTED),
    "text as a list": (b'{"id": "d1", "text": ["a"]}', "field text: expected a string, got a list of 1"),
    "real id": (b'{"id": 1.5, "text": "a"}', "field id: expected an id (a non-empty string, or an integer), got 1.5"),
    "title a number": (b'{"id": "d1", "text": "a", "title": 3}', "field title: expected a string or null, got 3"),
}


@pytest.mark.parametrize("case", DAMAGED_TEXTS)
def test_a_damaged_texts_line_is_named_with_its_field(tmp_path, case):
    line, said = DAMAGED_TEXTS[case]
    path = tmp_path / "docs.jsonl"
    path.write_bytes(GOOD_TEXT + line + b"\n")
    with pytest.raises(InputError) as refused:
        read_texts(path)
    assert str(refused.value) == f"{path}:2: {said}; {TEXT_HINT}"


def test_latin1_texts_are_refused_by_offset_and_line_in_both_formats(tmp_path):
    path = tmp_path / "docs.jsonl"
    path.write_bytes(GOOD_TEXT + '{"id": "d1", "text": "caf\xe9"}\n'.encode("latin-1"))
    with pytest.raises(InputError) as refused:
        read_texts(path)
    offset = len(GOOD_TEXT) + len('{"id": "d1", "text": "caf')
    assert str(refused.value) == (f"{path}: not UTF-8 text (byte 0xe9 at offset {offset}, line 2): save the file "
                                  "as UTF-8")
    tsv = tmp_path / "docs.tsv"
    tsv.write_bytes(b"d0\tok\nd1\tcaf\xe9\n")
    with pytest.raises(InputError) as refused:
        read_texts(tsv)
    assert str(refused.value) == f"{tsv}: is not UTF-8 text (byte 0xe9 at offset 12)"


def test_texts_are_read_with_their_title_and_integer_ids(tmp_path):
    path = tmp_path / "docs.jsonl"
    path.write_bytes(b'{"_id": 5, "title": "T", "text": "body"}\n{"docid": "d2", "contents": "c", "title": null}\n')
    assert read_texts(path) == {"5": "T\nbody", "d2": "c"}
    path.write_bytes(b'{"id": "d1", "other": "x"}\n')
    with pytest.raises(InputError, match=r"docs.jsonl:1: expected a JSON object with an id \(id, _id, qid"):
        read_texts(path)


def _cli(*argv):
    from cli_runner import run_cli_in_process
    return run_cli_in_process(*map(str, argv))


@pytest.mark.parametrize("case", ["key twice", "NaN", "grade as text"])
def test_aggregate_and_reliability_print_one_line_and_exit_2(tmp_path, case):
    line, said = DAMAGED_SAMPLES[case]
    path = tmp_path / "samples.jsonl"
    path.write_bytes(GOOD_SAMPLE + line + b"\n")
    for argv in (("judges", "aggregate", path, "-o", tmp_path / "out.qrels"), ("judges", "reliability", path)):
        result = _cli(*argv)
        assert result.returncode == 2 and result.stdout == "", argv
        assert result.stderr == f"rankmeter: error: {path}:2: {said}; {SAMPLE_HINT}\n", argv
    assert not (tmp_path / "out.qrels").exists()


@pytest.mark.parametrize("case", ["key twice", "NaN", "text as a list"])
def test_label_prints_one_line_and_exits_2_before_any_request(tmp_path, case):
    line, said = DAMAGED_TEXTS[case]
    (tmp_path / "queries.tsv").write_text("q1\twhat is a cat\n")
    (tmp_path / "pool.txt").write_text("q1 0 d0 -1\n")
    docs = tmp_path / "docs.jsonl"
    docs.write_bytes(GOOD_TEXT + line + b"\n")
    with Hostile("ok") as server:
        result = _cli("judges", "label", "--pool", tmp_path / "pool.txt", "--queries", tmp_path / "queries.tsv",
                      "--docs", docs, "--base-url", server.url, "--model", "m", "--cache", tmp_path / "c.db",
                      "-o", tmp_path / "out.qrels")
        assert server.count() == 0
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == f"rankmeter: error: {docs}:2: {said}; {TEXT_HINT}\n"
