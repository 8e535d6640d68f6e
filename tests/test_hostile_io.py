"""Careless hands and hostile input at the readers and the writer (issue 22).

One guarded output (every file read is never written over), JSON that once
crashed the process, ids that are huge or hold terminal controls.
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys

import pytest

import rankmeter
from rankmeter.errors import InputError, ParameterError
from rankmeter.io.inputs import forget_inputs, recorded_inputs
from rankmeter.io.output import OutputError, check_output, output_file


def _digest(path) -> str:
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


@pytest.fixture
def qrels_file(tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_bytes(b"q1 0 d1 1\nq1 0 d2 0\n")
    return path


# ------------------------------------------------------------------ one guarded output
@pytest.mark.parametrize("how", ["same", "symlink", "hardlink", "relative"])
def test_a_file_read_is_never_written_over(qrels_file, tmp_path, monkeypatch, how):
    rankmeter.read_qrels(qrels_file)  # read only: nobody tells the writer about it
    before = _digest(qrels_file)
    target = {"same": qrels_file, "symlink": tmp_path / "link", "hardlink": tmp_path / "hard",
              "relative": "qrels.txt"}[how]
    if how == "symlink":
        os.symlink(qrels_file, target)
    elif how == "hardlink":
        os.link(qrels_file, target)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ParameterError) as caught:
        with output_file(target) as out:
            out.write("overwritten\n")
    message = str(caught.value)
    assert str(target) in message and str(qrels_file) in message  # names the output and the input
    assert isinstance(caught.value, OutputError)
    assert _digest(qrels_file) == before
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".part")] == []


def test_explicit_inputs_still_refused_and_other_files_written(tmp_path):
    never_read = tmp_path / "never-read.txt"
    never_read.write_text("keep\n")
    with pytest.raises(ParameterError, match="one of the inputs"):
        check_output(never_read, inputs=[str(never_read)])
    fresh = tmp_path / "fresh.txt"
    with output_file(fresh) as out:
        out.write("ok\n")
    assert fresh.read_text() == "ok\n"


def test_every_reader_records_its_file(tmp_path):
    """The bytes path, the Arrow-from-disk path (a big TREC file), stdin from a file and file objects."""
    small, big = tmp_path / "small.txt", tmp_path / "big.txt"
    small.write_bytes(b"q1 Q0 d1 1 2.5 t\n")
    from rankmeter.io.direct import DIRECT_MIN_BYTES
    line = b"q1 Q0 d%08d 1 2.5 t\n"
    big.write_bytes(b"".join(line % i for i in range(DIRECT_MIN_BYTES // len(line % 0) + 10)))
    by_object = tmp_path / "object.txt"
    by_object.write_bytes(b"q1 0 d1 1\n")
    rankmeter.read_run(small)
    rankmeter.read_run(str(big))
    with open(by_object, "rb") as fh:
        rankmeter.read_qrels(fh)
    read = recorded_inputs()
    for path in (small, big, by_object):
        assert os.path.realpath(path) in read
        with pytest.raises(ParameterError):
            check_output(path)


def test_stdin_redirected_from_a_file_is_guarded_in_the_cli(tmp_path):
    """``rankmeter run convert - -o qrels`` with stdin from that very file: refused, file intact."""
    run = tmp_path / "run.txt"
    run.write_bytes(b"q1 Q0 d1 1 2.5 t\nq1 Q0 d2 2 1.5 t\n")
    before = _digest(run)
    with open(run, "rb") as stdin:
        done = subprocess.run([sys.executable, "-m", "rankmeter", "run", "convert", "-", "--to", "trec",
                               "-o", str(run)], stdin=stdin, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "one of the inputs" in done.stderr
    assert _digest(run) == before


def test_forgetting_inputs_allows_writing_again(qrels_file):
    rankmeter.read_qrels(qrels_file)
    forget_inputs()
    with output_file(qrels_file) as out:
        out.write("q1 0 d1 0\n")
    assert qrels_file.read_text() == "q1 0 d1 0\n"


# ------------------------------------------------------------------ JSON that crashed the process
@pytest.mark.parametrize("content, line", [
    (b"null\n", 1),                                               # Arrow 26: segmentation fault
    (b'{"query": "q1", "doc": "d1", "score": 1}\nnull\n', 2),
    (b'{"query": "q1", "doc": "d1", "score": 1}\n[1, 2]\n', 2),
    (b"  true\n", 1),
])
def test_a_json_line_that_is_not_an_object_is_named(tmp_path, content, line):
    path = tmp_path / "run.jsonl"
    path.write_bytes(content)
    # in a child: a crash (exit 139) must show as a failure of this test, not kill pytest
    code = (f"import rankmeter\ntry:\n    rankmeter.read_run({str(path)!r})\n"
            "except rankmeter.InputError as e:\n    print(e)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert f"run.jsonl:{line}: JSON " in done.stdout and "not an object" in done.stdout


@pytest.mark.parametrize("depth", [100, 100_000])
@pytest.mark.parametrize("shape", ["document", "inside a record"])
def test_json_nested_deep_is_a_clean_input_error(tmp_path, depth, shape):
    nested = "[" * depth + "]" * depth
    text = nested if shape == "document" else '{"query": "q1", "doc": "d1", "score": 1, "x": %s}' % nested
    path = tmp_path / "deep.jsonl"
    path.write_text(text + "\n")
    code = (f"import rankmeter\ntry:\n    rankmeter.read_run({str(path)!r})\n"
            "except rankmeter.InputError as e:\n    print('InputError', e)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    if depth == 100 and shape == "inside a record":  # 100 deep parses in Python; the extra key is ignored
        assert "InputError" not in done.stdout
    else:
        assert done.stdout.startswith("InputError") and "deep.jsonl:1:" in done.stdout
