"""Bad inputs: each gets an InputError naming the file and line (or dict key /
frame row) and saying what to do, from the Python API and from both CLI
commands (one line on stderr, non-zero exit, no traceback).

Every bad line is planted in an otherwise regular file, so the fast (Arrow)
path sees it first: it must hand the file to the line-by-line path rather
than accept it, and both paths must report the same error.
"""
from __future__ import annotations

import bz2
import copy
import gzip
import io
import lzma
import os
import pathlib
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankmeter
import rankmeter.io.trec as trec
from oracles import trec_lines as oracle
from rankmeter import InputError, RankmeterError
from rankmeter.io import as_qrels, as_run, read_qrels, read_run
from cli_runner import run_cli_in_process  # noqa: E402  (tests/ is on sys.path: tests/conftest.py)

DATA = pathlib.Path(__file__).parent / "data"
QRELS = (DATA / "basic.qrels").read_bytes()
RUN = (DATA / "basic.run").read_bytes()


def _big(kind: str, n: int = 60) -> list[bytes]:
    """Regular lines (enough that one bad line is a needle in a haystack)."""
    if kind == "qrels":
        return [b"%d 0 D%d %d" % (400 + i // 10, i, i % 3) for i in range(n)]
    return [b"%d Q0 D%d %d %.2f tag" % (400 + i // 10, i, i % 10 + 1, 10 - (i % 10) / 10) for i in range(n)]


def _with(kind: str, line_no: int, bad: bytes, n: int = 60) -> bytes:
    lines = _big(kind, n)
    lines[line_no - 1] = bad
    return b"\n".join(lines) + b"\n"


# (id, kind, file content, line named in the message, phrase in the message)
LINE_CASES = [
    ("qrels-3-fields", "qrels", _with("qrels", 7, b"401 0 D7"), 7, "3 fields where a qrels line has exactly 4"),
    ("qrels-5-fields", "qrels", _with("qrels", 9, b"401 0 D9 1 extra"), 9, "5 fields where a qrels line has exactly 4"),
    ("qrels-empty-field", "qrels", _with("qrels", 4, b"400  D4 1"), 4, "3 fields"),
    ("qrels-is-a-run", "qrels", RUN, 1, "looks like a run line"),
    ("qrels-csv-no-commas", "qrels", b"q1;a;1\n", 1, "comma-separated"),
    ("grade-float", "qrels", _with("qrels", 30, b"402 0 D30 1.7"), 30, "to truncate as trec_eval does"),
    ("grade-hex", "qrels", _with("qrels", 11, b"401 0 D11 0x10"), 11, "grade '0x10' is not an integer"),
    ("grade-word", "qrels", _with("qrels", 12, b"401 0 D12 high"), 12, "grade 'high' is not an integer"),
    ("grade-huge", "qrels", _with("qrels", 13, b"401 0 D13 99999999999999999999"), 13, "out of range"),
    ("qrels-vertical-tab", "qrels", _with("qrels", 5, b"400 0 D\x0b5 1"), 5, "5 fields"),
    ("qrels-latin1-bad-grade", "qrels", _with("qrels", 3, "400 0 D\xe93 \xe9".encode("latin-1")), 3,
     "grade 'é' is not an integer"),
    ("run-5-fields", "run", _with("run", 40, b"403 Q0 D39 10 1.0"), 40, "5 fields where a run line has at least 6"),
    ("run-empty-rank", "run", _with("run", 8, b"400 Q0 D7  9.3 tag"), 8, "5 fields"),
    ("run-is-qrels", "run", QRELS, 1, "looks like a qrels line"),
    ("score-nan", "run", _with("run", 21, b"402 Q0 D20 1 nan tag"), 21, "score 'nan' is not a finite number"),
    ("score-inf", "run", _with("run", 22, b"402 Q0 D21 2 inf tag"), 22, "score 'inf' is not a finite number"),
    ("score-minus-inf", "run", _with("run", 23, b"402 Q0 D22 3 -Infinity tag"), 23, "is not a finite number"),
    ("score-overflow", "run", _with("run", 24, b"402 Q0 D23 4 1e400 tag"), 24, "score '1e400'"),
    ("score-word", "run", _with("run", 25, b"402 Q0 D24 5 abc tag"), 25, "score 'abc' is not a finite number"),
    ("score-comma", "run", _with("run", 26, b"402 Q0 D25 6 0,5 tag"), 26, "score '0,5'"),
    ("ranked-3-fields", "run", b"1 a\n1 b\n1 c x\n", 3, "3 fields where a ranked-list line has exactly 2"),
    ("run-random-high-bytes", "run", _with("run", 2, bytes(range(0x80, 0xff))), 2, "field"),
    ("run-nul", "run", _with("run", 17, b"401 Q0 D16 7 1.0 t\x00g"), 17, "binary data (a NUL byte)"),
]

_RNG = random.Random(7)
# (id, kind, file content or None for a special path, phrase)
FILE_CASES = [
    ("empty", "run", b"", "the file is empty"),
    ("blank", "qrels", b"  \n\t\n\n", "the file is empty"),
    ("only-comments", "run", b"# a\n# b\n\n", "no results: only comments"),
    ("only-comments-qrels", "qrels", b"# a\n", "no judgments: only comments"),
    ("junk", "run", (DATA / "junk.bin").read_bytes(), "binary data"),
    ("random-bytes", "qrels", bytes(_RNG.randrange(1, 256) for _ in range(3000)), "binary data"),
    ("truncated-gzip", "run", (DATA / "truncated.run.gz").read_bytes(), "gzip data is truncated"),
    ("corrupt-gzip", "run", gzip.compress(RUN * 5)[:30] + b"\xff" * 8 + gzip.compress(RUN * 5)[38:],
     "broken gzip data"),
    ("gzip-of-junk", "run", gzip.compress((DATA / "junk.bin").read_bytes()), "binary data"),
    ("gzip-of-nothing", "qrels", gzip.compress(b""), "the file is empty"),
    ("utf16-bom", "qrels", (DATA / "utf16.qrels").read_bytes(), "UTF-16"),
    ("utf16-no-bom", "qrels", QRELS.decode().encode("utf-16-le"), "UTF-16"),
    ("zip", "run", b"PK\x03\x04" + b"\x14" * 40, "zip archive"),
    ("corrupt-bzip2", "run", bz2.compress(RUN * 5)[:40] + b"\xff" * 8 + bz2.compress(RUN * 5)[48:],
     "broken bz2 data"),
    ("truncated-xz", "qrels", lzma.compress(QRELS)[:-20], "xz data is truncated"),
    ("missing", "run", None, "no such file"),
    ("directory", "qrels", None, "is a directory"),
]


def _file(tmp_path, case_id, kind, content):
    if case_id == "missing":
        return tmp_path / "does-not-exist.txt"
    if case_id == "directory":
        return tmp_path
    p = tmp_path / f"bad.{kind}"
    p.write_bytes(content)
    return p


def _oracle(monkeypatch):
    """Read TREC text with the line-by-line oracle (tests/oracles/trec_lines.py) instead of the compiled reader."""
    monkeypatch.setattr(trec, "qrels_from_bytes", oracle.qrels_from_bytes)
    monkeypatch.setattr(trec, "run_from_bytes", oracle.run_from_bytes)


def _read(kind, path):
    return (read_qrels if kind == "qrels" else read_run)(path)


def _check_cli(kind, path, where, phrase, tmp_path):
    """``eval`` and ``trec_eval`` on the bad input, in process (tests/cli/test_cli.py and the stdin test below
    run the console entry point as a child process)."""
    q, r = (path, DATA / "basic.run") if kind == "qrels" else (DATA / "basic.qrels", path)
    for argv in (["eval", q, r, "-m", "AP"], ["trec_eval", q, r]):
        got = run_cli_in_process(*argv, cwd=tmp_path)
        err = got.err
        assert got.code != 0, (argv, err)
        assert "Traceback" not in err, err
        assert err.endswith("\n") and err.count("\n") == 1, err  # exactly one line
        assert err.startswith("rankmeter: error: "), err
        assert where in err and phrase in err, (where, phrase, err)
        assert got.stdout_bytes == b""


@pytest.mark.parametrize("case_id,kind,content,line,phrase", LINE_CASES, ids=[c[0] for c in LINE_CASES])
def test_bad_line(tmp_path, monkeypatch, case_id, kind, content, line, phrase):
    path = _file(tmp_path, case_id, kind, content)
    with pytest.raises(InputError) as fast_err:
        _read(kind, path)
    msg = str(fast_err.value)
    assert msg.startswith(f"{path}:{line}: "), msg
    assert phrase in msg, msg
    assert "\n" not in msg
    assert fast_err.value.source == str(path) and fast_err.value.line == line
    with monkeypatch.context() as m:  # the line-by-line oracle says exactly the same
        _oracle(m)
        with pytest.raises(InputError) as slow_err:
            _read(kind, path)
    assert str(slow_err.value) == msg
    _check_cli(kind, path, f"{path}:{line}: ", phrase, tmp_path)


@pytest.mark.parametrize("case_id,kind,content,phrase", FILE_CASES, ids=[c[0] for c in FILE_CASES])
def test_bad_file(tmp_path, case_id, kind, content, phrase):
    path = _file(tmp_path, case_id, kind, content)
    with pytest.raises(InputError) as err:
        _read(kind, path)
    msg = str(err.value)
    assert msg.startswith(f"{path}"), msg
    assert phrase in msg, msg
    _check_cli(kind, path, str(path), phrase, tmp_path)


def test_directory_named_like_a_file(tmp_path):
    d = tmp_path / "run.txt"
    d.mkdir()
    with pytest.raises(InputError, match="is a directory"):
        read_run(d)


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root reads any file")
def test_unreadable_file(tmp_path):
    p = tmp_path / "run.txt"
    p.write_bytes(RUN)
    p.chmod(0)
    with pytest.raises(InputError, match="permission denied"):
        read_run(p)


def test_text_passed_instead_of_a_path():
    with pytest.raises(InputError, match="got text, not a file name"):
        read_run(RUN.decode())


def test_empty_stdin_through_the_cli(tmp_path, cli_subprocess):
    got = cli_subprocess("trec_eval", "-", DATA / "basic.run", stdin=b"", timeout=120)
    assert got.returncode != 0 and got.stderr == "rankmeter: error: <stdin>: the file is empty; expected qrels or run lines\n"


# ---------------------------------------------------------------- duplicates

def _dup_run() -> bytes:
    lines = [b"301 Q0 X%d %d %d.5 t" % (i, i, 100 - i) for i in range(1, 46)]
    lines[11] = b"301 Q0 D1 12 88.5 t"
    lines[39] = b"301 Q0 D1 40 60.5 t"
    return b"\n".join(lines) + b"\n"


@pytest.mark.parametrize("oracle_reader", [False, True])
def test_duplicate_doc_in_run_names_both_lines(tmp_path, monkeypatch, oracle_reader):
    p = tmp_path / "run.txt"
    p.write_bytes(_dup_run())
    if oracle_reader:
        _oracle(monkeypatch)
    with pytest.raises(InputError) as err:
        rankmeter.evaluate(DATA / "basic.qrels", p, ["AP"])
    assert str(err.value).startswith(f"{p}:12 and 40: doc D1 appears twice for query 301"), str(err.value)
    assert err.value.line == (12, 40)


def test_duplicate_doc_in_run_after_header_comments(tmp_path):
    p = tmp_path / "run.txt"
    p.write_bytes(b"# header\n# header\n" + _dup_run())
    with pytest.raises(InputError, match=r"run.txt:14 and 42: doc D1 appears twice for query 301"):
        rankmeter.evaluate(DATA / "basic.qrels", p, ["AP"])


def test_duplicate_judgment_in_qrels(tmp_path):
    p = tmp_path / "qrels.txt"
    p.write_bytes(QRELS + b"# again\n301 0 D2 1\n")
    with pytest.raises(InputError, match=r"qrels.txt:2 and 7: doc D2 is judged twice for query 301"):
        rankmeter.evaluate(p, DATA / "basic.run", ["AP"])


def test_duplicates_through_the_cli(tmp_path):
    run = tmp_path / "run.txt"
    run.write_bytes(_dup_run())
    _check_cli("run", run, f"{run}:12 and 40: ", "doc D1 appears twice for query 301", tmp_path)
    qrels = tmp_path / "qrels.txt"
    qrels.write_bytes(QRELS + QRELS.splitlines(keepends=True)[0])
    _check_cli("qrels", qrels, f"{qrels}:1 and 6: ", "doc D1 is judged twice for query 301", tmp_path)


def test_messages_stay_on_one_printable_line(tmp_path):
    p = tmp_path / "run.txt"
    p.write_bytes(b"1 Q0 D\x85 1 2 t\n1 Q0 D\x85 2 1 t\n")  # \x85 is NEL once decoded as Latin-1
    with pytest.raises(InputError) as err:
        rankmeter.evaluate({"1": {"a": 1}}, p, ["AP"])
    assert str(err.value).isprintable() and "doc D\\x85 appears twice" in str(err.value)
    assert str(InputError("a\nb\u2028c", source="f\rg", line=3)) == "f\\rg:3: a\\nb\\u2028c"


def test_duplicate_rows_in_a_frame():
    pd = pytest.importorskip("pandas")
    run = pd.DataFrame({"query": ["1", "1", "1"], "doc": ["a", "b", "a"], "score": [3.0, 2.0, 1.0]})
    with pytest.raises(InputError, match=r"rows 0 and 2 \(counting from 0\): doc a appears twice for query 1"):
        rankmeter.evaluate({"1": {"a": 1}}, run, ["AP"])


# ---------------------------------------------------------------- dicts

@pytest.mark.parametrize("qrels,run,pattern", [
    ({"1": {"a": 1.7}}, {"1": {"a": 1.0}}, r"qrels\['1'\]\['a'\] = 1.7 is not an integer grade; pass grades='real'"),
    ({"1": {"a": "1"}}, {"1": {"a": 1.0}}, r"qrels\['1'\]\['a'\] = '1' is not an integer grade"),
    ({"1": [("a", 1)]}, {"1": {"a": 1.0}}, r"qrels\['1'\] is a list; expected a dict doc -> grade"),
    ({"1": {"a": 1}}, {"1": {"a": float("nan")}}, r"run\['1'\]\['a'\] = nan is not a finite number"),
    ({"1": {"a": 1}}, {"1": {"a": float("inf")}}, r"run\['1'\]\['a'\] = inf is not a finite number"),
    ({"1": {"a": 1}}, {"1": {"a": "0.5"}}, r"run\['1'\]\['a'\] = '0.5' is not a finite number"),
    ({"1": {"a": 1}}, {"1": {"a": 10 ** 400}}, r"is not a finite number"),
    ({"1": {"a": 1}}, {"1": {"a": 1.0}, "2": ["a"]}, r"mixes scored dicts and ranked lists"),
    ({"1": {"a": 1}}, {"1": ["a", "b", "a"]}, r"run\['1'\] lists doc 'a' twice \(positions 0 and 2\)"),
    ({"1": {"a": 1}}, {1: {"a": 1.0}, "1": {"b": 1.0}}, r"run\[1\] and run\['1'\] are the same query id"),
    ({"1": {"a": 1, b"a": 0}}, {"1": {"a": 1.0}}, r"qrels\['1'\] judges doc b'a' twice"),
    ({"1": {"": 1}}, {"1": {"a": 1.0}}, r"the id '' is empty"),
    ({"1": {1.5: 1}}, {"1": {"a": 1.0}}, r"the id 1.5 is a float"),
    ({}, {"1": {"a": 1.0}}, r"the qrels dict holds no judgments"),
    ({"1": {"a": 1}}, {"1": "abc"}, r"run\['1'\] is a str"),
])
def test_bad_dicts_name_the_key(qrels, run, pattern):
    q, r = copy.deepcopy(qrels), copy.deepcopy(run)
    with pytest.raises(InputError, match=pattern) as err:
        rankmeter.evaluate(q, r, ["AP"])
    assert str(err.value).startswith("<dict>: ")
    assert repr(q) == repr(qrels) and repr(r) == repr(run)  # untouched


# ---------------------------------------------------------------- frames

def test_bad_frames_name_the_row():
    pd = pytest.importorskip("pandas")
    good_q = pd.DataFrame({"query": ["1", "1"], "doc": ["a", "b"], "rel": [1, 0]})
    good_r = pd.DataFrame({"query": ["1", "1"], "doc": ["a", "b"], "score": [2.0, 1.0]})
    cases = [
        (good_q.assign(rel=[1, 0.5]), good_r, r"row 1 \(counting from 0\): column 'rel': 0.5 is not an integer grade"),
        (good_q.assign(rel=[None, 1]), good_r, r"row 0 \(counting from 0\): column 'rel' has 1 missing value"),
        (good_q.assign(rel=["1", "0"]), good_r, r"column 'rel' holds strings; it must hold an integer grade as numbers"),
        (good_q, good_r.assign(score=[1.0, float("inf")]), r"row 1 \(counting from 0\): column 'score': inf is not a finite"),
        (good_q, good_r.assign(score=[1.0, float("nan")]), r"row 1 \(counting from 0\): column 'score' has 1 missing"),
        (good_q, good_r.assign(doc=["a", None]), r"row 1 \(counting from 0\): column 'doc' has 1 missing"),
        (good_q, good_r.assign(doc=["a", ""]), r"row 1 \(counting from 0\): column 'doc' has an empty id"),
        (good_q, good_r.assign(query=[1.0, 1.0]), r"column 'query' has type double"),
        (good_q.rename(columns={"rel": "points"}), good_r, r"no grade column \(columns: query, doc, points\)"),
        (good_q, good_q, r"looks like qrels; check the argument order"),
        (good_q.set_index("query"), good_r, r"cannot tell which columns hold the query.*reset_index"),
        (good_q, good_r.assign(query=["1", 2]), r"the columns cannot be read"),
    ]
    for qrels, run, pattern in cases:
        q_before, r_before = qrels.copy(deep=True), run.copy(deep=True)
        with pytest.raises(InputError, match=pattern):
            rankmeter.evaluate(qrels, run, ["AP"])
        assert qrels.equals(q_before) and run.equals(r_before)
    with pytest.raises(InputError, match=r"unknown role 'qid'"):
        as_qrels(good_q, columns={"qid": "query"})
    with pytest.raises(InputError, match=r"<pandas Series>: a Series is not a table"):
        as_run(good_r["doc"])


def test_polars_bad_grade_names_the_row():
    pl = pytest.importorskip("polars")
    q = pl.DataFrame({"query": ["1", "1", "1"], "doc": ["a", "b", "c"], "rel": [1.0, 0.0, 2.5]})
    with pytest.raises(InputError, match=r"<polars DataFrame> row 2 \(counting from 0\): column 'rel': 2.5"):
        as_qrels(q)


# ---------------------------------------------------------------- fuzz

def _outcome(kind, data, force_slow):
    """('ok', rows) or ('error', message); anything else escapes and fails the test. ``force_slow``: TREC
    text read by the line-by-line oracle."""
    originals = trec.qrels_from_bytes, trec.run_from_bytes
    if force_slow:
        trec.qrels_from_bytes, trec.run_from_bytes = oracle.qrels_from_bytes, oracle.run_from_bytes
    try:
        table = (read_qrels if kind == "qrels" else read_run)(io.BytesIO(data))
    except RankmeterError as exc:
        return "error", str(exc)
    finally:
        trec.qrels_from_bytes, trec.run_from_bytes = originals
    t = table.table
    value = t.column("rel" if kind == "qrels" else "score").to_pylist()
    lines = [table.line_of(i) for i in range(len(table))]
    return "ok", (t.column("query").to_pylist(), t.column("doc").to_pylist(), value, lines)


def _same_on_both_paths(kind, data):
    fast = _outcome(kind, data, False)
    slow_ = _outcome(kind, data, True)
    assert fast == slow_, (data, fast, slow_)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.binary(max_size=400), kind=st.sampled_from(["qrels", "run"]))
def test_fuzz_random_bytes(data, kind):
    _same_on_both_paths(kind, data)


_ALPHABET = b" \t\r\n#.-+0123456789eExQ\x00\x0b\x0c\xe9\xff"


@st.composite
def _mutated(draw, base: bytes):
    data = bytearray(base)
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["insert", "delete", "replace", "line_start"]))
        pos = draw(st.integers(0, len(data)))
        byte = draw(st.sampled_from(list(_ALPHABET)))
        if op == "line_start":  # put the byte at the start of a line: '#', a separator, a blank line...
            starts = [0] + [i + 1 for i, c in enumerate(data) if c == ord("\n")]
            pos = starts[pos % len(starts)]
            data[pos:pos] = bytes([byte])
        elif op == "insert":
            data[pos:pos] = bytes([byte])
        elif op == "delete" and pos < len(data):
            del data[pos]
        elif pos < len(data):
            data[pos] = byte
    return bytes(data)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=_mutated(RUN))
def test_fuzz_mutated_run(data):
    _same_on_both_paths("run", data)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=_mutated(QRELS))
def test_fuzz_mutated_qrels(data):
    _same_on_both_paths("qrels", data)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=_mutated(RUN), qdata=_mutated(QRELS))
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_fuzz_mutated_inputs_evaluate_or_raise(data, qdata):
    try:
        res = rankmeter.evaluate(io.BytesIO(qdata), io.BytesIO(data), ["AP", "P@2", "nDCG@3"])
    except RankmeterError:
        return
    for name in ("AP", "P@2", "nDCG@3"):
        values = res.values(name)
        assert ((values >= 0) & (values <= 1)).all()
