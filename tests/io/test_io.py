"""Valid but odd inputs: every one must read, and read the same as its plain twin.

Expected tables come from a tiny reference parser written here (split lines,
split fields on whitespace, skip blank and ``#`` lines) and expected scores
from hand computation:

* basic: topic 301 ranks D3 (rel 2), D9 (unjudged), D1 (rel 1) with 2 relevant
  -> AP = (1/1 + 2/3) / 2 = 0.8333; topic 302 ranks D5 (rel), D6 with 2
  relevant -> AP = 1/2.
* latin1: café ranks Dü2 (0), Dé1 (1), D3 (1) -> AP = (1/2 + 2/3) / 2 = 0.5833.
* ranked.txt: 301 ranks D9, D3, D1 -> AP = (1/2 + 2/3) / 2 = 0.5833; 302 as basic.
"""
from __future__ import annotations

import copy
import functools
import gzip
import io
import pathlib
import sys

import numpy as np
import pytest

from rankmeter.errors import InputError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankmeter
import rankmeter.io.trec as trec
from oracles import trec_lines as oracle
from rankmeter.io import as_qrels, as_run, read_qrels, read_run
from cli_runner import run_cli_in_process  # noqa: E402  (tests/ is on sys.path: tests/conftest.py)

DATA = pathlib.Path(__file__).parents[1] / "data"
GOLDEN = pathlib.Path(__file__).parents[1] / "golden"
AP_BASIC = {"301": (1 + 2 / 3) / 2, "302": 0.5}


# ---------------------------------------------------------------- helpers

def ref_rows(data: bytes, kind: str) -> list[tuple]:
    """Independent reference parse: (query, doc, value) of each data line."""
    out = []
    for line in data.splitlines():
        f = line.split()
        if not f or f[0].startswith(b"#"):
            continue
        if kind == "qrels":
            out.append((f[0], f[2], int(f[3])))
        elif len(f) == 2:
            out.append((f[0], f[1], 0.0))
        else:
            out.append((f[0], f[2], float(f[4])))
    return out


def rows(table) -> list[tuple]:
    t = table.table
    value = "rel" if "rel" in t.column_names else "score"
    return list(zip(t.column("query").to_pylist(), t.column("doc").to_pylist(), t.column(value).to_pylist()))


def slow(monkeypatch):
    """Read TREC text with the line-by-line oracle (tests/oracles/trec_lines.py) instead of the compiled reader."""
    monkeypatch.setattr(trec, "qrels_from_bytes", oracle.qrels_from_bytes)
    monkeypatch.setattr(trec, "run_from_bytes", oracle.run_from_bytes)


def ap(qrels, run) -> dict[str, float]:
    res = rankmeter.evaluate(qrels, run, ["AP"])
    return dict(zip(res.queries, res.values("AP")))


cli = functools.partial(run_cli_in_process, text=False)  # stdout and stderr as bytes


# ---------------------------------------------------------------- plain and odd files

def test_basic_values():
    assert ap(DATA / "basic.qrels", DATA / "basic.run") == pytest.approx(AP_BASIC)


def test_regular_files_take_the_fast_path(monkeypatch):
    q = read_qrels(DATA / "basic.qrels")
    r = read_run(DATA / "basic.run")
    assert rows(q) == ref_rows((DATA / "basic.qrels").read_bytes(), "qrels")
    assert rows(r) == ref_rows((DATA / "basic.run").read_bytes(), "run")
    assert r.tag == b"r1" and r.name == "r1"


def test_odd_files_read_like_their_plain_twins():
    q, r = read_qrels(DATA / "odd.qrels"), read_run(DATA / "odd.run")
    assert rows(q) == rows(read_qrels(DATA / "basic.qrels"))
    assert rows(r) == rows(read_run(DATA / "basic.run"))
    assert r.tag == b"r1"
    assert ap(DATA / "odd.qrels", DATA / "odd.run") == pytest.approx(AP_BASIC)
    # line numbers point into the odd file: D9 is on line 3 of odd.run, D5 of odd.qrels on line 8
    assert r.line_of(1) == 3 and q.line_of(4) == 8


@pytest.mark.parametrize("name", ["basic.run.gz", "gzipped.run"])
def test_gzip_is_found_by_magic_bytes(name):
    assert rows(read_run(DATA / name)) == rows(read_run(DATA / "basic.run"))


def test_gzip_multi_member_and_gzipped_qrels(tmp_path):
    raw = (DATA / "basic.run").read_bytes()
    half = raw.index(b"302")
    p = tmp_path / "multi.gz"
    p.write_bytes(gzip.compress(raw[:half]) + gzip.compress(raw[half:]))
    assert rows(read_run(p)) == rows(read_run(DATA / "basic.run"))
    qp = tmp_path / "q.gz"
    qp.write_bytes(gzip.compress((DATA / "odd.qrels").read_bytes()))
    assert rows(read_qrels(qp)) == rows(read_qrels(DATA / "basic.qrels"))


@pytest.mark.parametrize("variant", ["tabs", "crlf", "lone_cr", "extra_columns", "no_final_newline",
                                     "trailing_blank_lines", "header_comments", "bom"])
def test_regular_variants_stay_on_the_fast_path(monkeypatch, tmp_path, variant):
    raw = (DATA / "basic.run").read_bytes()
    data = {
        "tabs": raw.replace(b" ", b"\t"),
        "crlf": raw.replace(b"\n", b"\r\n"),
        "lone_cr": raw.replace(b"\n", b"\r"),
        "extra_columns": raw.replace(b"\n", b" x y\n"),
        "no_final_newline": raw.rstrip(b"\n"),
        "trailing_blank_lines": raw + b"\n\n  \n",
        "header_comments": b"# made by test\n\n# second\n" + raw,
        "bom": b"\xef\xbb\xbf" + raw,
    }[variant]
    p = tmp_path / "run.txt"
    p.write_bytes(data)
    r = read_run(p)
    assert rows(r) == rows(read_run(DATA / "basic.run"))
    assert r.tag == b"r1"
    if variant == "header_comments":
        assert [r.line_of(i) for i in range(len(r))] == [4, 5, 6, 7, 8]


@pytest.mark.parametrize("variant", ["mid_comment", "runs_of_spaces", "mixed_tabs_spaces", "blank_line",
                                     "leading_space", "trailing_space", "ragged_extra_columns"])
def test_irregular_files_are_normalised_and_agree(monkeypatch, tmp_path, variant):
    raw = (DATA / "basic.run").read_bytes()
    lines = raw.splitlines(keepends=True)
    data = {
        "mid_comment": b"".join(lines[:2] + [b"# comment\n"] + lines[2:]),
        "runs_of_spaces": raw.replace(b" Q0 ", b"   Q0  "),
        "mixed_tabs_spaces": raw.replace(b" Q0 ", b"\tQ0 "),
        "blank_line": b"".join(lines[:3] + [b"\n"] + lines[3:]),
        "leading_space": b" " + raw,
        "trailing_space": raw.replace(b"\n", b" \n"),
        "ragged_extra_columns": b"".join(lines[:2] + [lines[2].replace(b"\n", b" more\n")] + lines[3:]),
    }[variant]
    p = tmp_path / "run.txt"
    p.write_bytes(data)
    expected = ref_rows(data, "run")
    assert rows(read_run(p)) == expected
    slow(monkeypatch)
    assert rows(read_run(p)) == expected


@pytest.mark.parametrize("kind", ["qrels", "run"])
def test_comment_lines_shaped_like_data_are_skipped(monkeypatch, tmp_path, kind):
    raw = (DATA / f"basic.{kind}").read_bytes()
    lines = raw.splitlines(keepends=True)
    data = b"".join(lines[:3] + [b"#" + lines[3]] + lines[3:])  # same field count as its neighbours
    p = tmp_path / "f.txt"
    p.write_bytes(data)
    reader = read_qrels if kind == "qrels" else read_run
    assert rows(reader(p)) == rows(reader(DATA / f"basic.{kind}"))
    assert reader(p).line_of(3) == 5


def test_ids_that_start_like_other_formats(tmp_path):
    p = tmp_path / "q.txt"
    p.write_bytes(b"PAR1 0 BZh9 1\nPK 0 %PDF-1 0\n")
    assert rows(read_qrels(p)) == [(b"PAR1", b"BZh9", 1), (b"PK", b"%PDF-1", 0)]


def test_ranked_list_file(monkeypatch):
    r = read_run(DATA / "ranked.txt")
    assert r.ranked and r.table.column("doc").to_pylist()[:3] == [b"D9", b"D3", b"D1"]
    assert ap(DATA / "basic.qrels", r) == pytest.approx({"301": (1 / 2 + 2 / 3) / 2, "302": 0.5})


def test_ranked_list_file_slow_path_agrees(monkeypatch, tmp_path):
    p = tmp_path / "ranked.txt"
    p.write_bytes(b"# ranked\n" + (DATA / "ranked.txt").read_bytes().replace(b" ", b"  "))
    r = read_run(p)
    assert r.ranked and rows(r) == rows(read_run(DATA / "ranked.txt"))
    slow(monkeypatch)
    assert rows(read_run(DATA / "ranked.txt")) == rows(r)


@pytest.mark.parametrize("text", [b"1e5", b"1E-3", b".5", b"5.", b"+1", b"-0.5", b"007", b"-.25e+2", b"0"])
def test_score_spellings_agree_on_both_paths(monkeypatch, tmp_path, text):
    p = tmp_path / "run.txt"
    p.write_bytes(b"1 Q0 a 1 " + text + b" t\n1 Q0 b 2 0 t\n")
    fast_rows = rows(read_run(p))
    slow(monkeypatch)
    assert rows(read_run(p)) == fast_rows == [(b"1", b"a", float(text)), (b"1", b"b", 0.0)]


@pytest.mark.parametrize("text,value", [(b"007", 7), (b"-1", -1), (b"+2", 2), (b"0", 0)])
def test_integer_grade_spellings(tmp_path, text, value):
    p = tmp_path / "q.txt"
    p.write_bytes(b"1 0 a " + text + b"\n1 0 b 1\n")
    assert rows(read_qrels(p))[0] == (b"1", b"a", value)


@pytest.mark.parametrize("text,value", [(b"1.7", 1), (b"-1.7", -1), (b"0.5", 0), (b".5", 0),
                                        (b"2.0", 2), (b"1e3", 1), (b"3", 3)])
def test_truncate_grades_truncates_like_atol(tmp_path, text, value):
    p = tmp_path / "q.txt"
    p.write_bytes(b"1 0 a " + text + b"\n")
    assert rows(read_qrels(p, truncate_grades=True)) == [(b"1", b"a", value)]
    assert rows(as_qrels(p, truncate_grades=True)) == [(b"1", b"a", value)]


def test_truncate_grades_in_dicts_and_frames():
    pd = pytest.importorskip("pandas")
    assert rows(as_qrels({"1": {"a": 1.7, "b": -0.5}}, truncate_grades=True)) == [(b"1", b"a", 1), (b"1", b"b", 0)]
    df = pd.DataFrame({"query": ["1"], "doc": ["a"], "rel": [2.9]})
    assert rows(as_qrels(df, truncate_grades=True)) == [(b"1", b"a", 2)]


# ---------------------------------------------------------------- sources: stdin, streams, paths

def test_file_objects_and_path_kinds():
    expected = rows(read_run(DATA / "basic.run"))
    raw = (DATA / "basic.run").read_bytes()
    assert rows(read_run(io.BytesIO(raw))) == expected
    assert rows(read_run(io.BytesIO(gzip.compress(raw)))) == expected
    with open(DATA / "basic.run", "rb") as fh:
        assert rows(read_run(fh)) == expected
    assert rows(read_run(str(DATA / "basic.run"))) == expected
    assert rows(read_run(bytes(DATA / "basic.run"))) == expected


def test_stdin_in_process(monkeypatch):
    raw = (DATA / "basic.qrels").read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(gzip.compress(raw))))
    q = read_qrels("-")
    assert q.source == "<stdin>" and rows(q) == ref_rows(raw, "qrels")


@pytest.mark.parametrize("which", ["qrels", "run"])
def test_stdin_through_the_cli(which):
    q, r = DATA / "basic.qrels", DATA / "basic.run"
    expected = cli("trec_eval", "-m", "map", q, r)
    assert expected.returncode == 0, expected.stderr
    src = q if which == "qrels" else r
    args = ("-", r) if which == "qrels" else (q, "-")
    got = cli("trec_eval", "-m", "map", *args, stdin=src.read_bytes())
    assert got.returncode == 0, got.stderr
    assert got.stdout == expected.stdout
    assert b"0.6667" in got.stdout
    got = cli("eval", *args, "-m", "AP", "--format", "json", stdin=gzip.compress(src.read_bytes()))
    assert got.returncode == 0, got.stderr
    assert b"0.6666" in got.stdout


# ---------------------------------------------------------------- Latin-1 ids, end to end

def test_latin1_ids_are_bytes(monkeypatch):
    q = read_qrels(DATA / "latin1.qrels")
    assert q.table.column("query").to_pylist()[0] == b"caf\xe9"
    assert q.queries == ["caf\xe9"]  # shown decoded as Latin-1, never lossy
    assert ap(DATA / "latin1.qrels", DATA / "latin1.run") == pytest.approx({"caf\xe9": (1 / 2 + 2 / 3) / 2})


def test_latin1_ids_through_slow_path(monkeypatch):
    slow(monkeypatch)
    assert rows(read_run(DATA / "latin1.run")) == ref_rows((DATA / "latin1.run").read_bytes(), "run")


def test_latin1_trec_eval_prints_original_bytes():
    got = cli("trec_eval", "-q", "-m", "map", "-m", "num_ret", DATA / "latin1.qrels", DATA / "latin1.run")
    assert got.returncode == 0, got.stderr
    lines = got.stdout.splitlines()
    assert b"map                   \tcaf\xe9\t0.5833" in lines
    assert b"num_ret               \tcaf\xe9\t3" in lines
    assert b"map                   \tall\t0.5833" in lines


def test_latin1_through_eval_cli():
    got = cli("eval", DATA / "latin1.qrels", DATA / "latin1.run", "-m", "AP", "--format", "json", "-q")
    assert got.returncode == 0, got.stderr
    assert b"0.583" in got.stdout


# ---------------------------------------------------------------- dicts

QRELS_DICT = {"301": {"D1": 1, "D2": 0, "D3": 2}, "302": {"D4": 1, "D5": 1}}
RUN_DICT = {"301": {"D3": 0.9, "D9": 0.8, "D1": 0.7}, "302": {"D5": 0.5, "D6": 0.4}}


def test_dicts_pytrec_eval_shapes_and_unchanged():
    q, r = copy.deepcopy(QRELS_DICT), copy.deepcopy(RUN_DICT)
    assert ap(q, r) == pytest.approx(AP_BASIC)
    assert q == QRELS_DICT and r == RUN_DICT
    assert rows(as_qrels(q)) == rows(read_qrels(DATA / "basic.qrels"))


def test_dict_ranked_lists():
    run = {"301": ["D9", "D3", "D1"], "302": ("D5", "D6")}
    before = copy.deepcopy(run)
    assert ap(QRELS_DICT, run) == pytest.approx({"301": (1 / 2 + 2 / 3) / 2, "302": 0.5})
    assert run == before
    assert as_run({"1": np.array(["a", "b"])}).ranked


def test_dict_key_and_value_kinds():
    q = {301: {b"D1": np.int64(1), "D3": 2.0}, "302": {"D5": 1}}
    r = {np.int32(301): {"D3": np.float32(0.9), b"D1": 1}, "302": {"D5": 3}}
    before_q, before_r = copy.deepcopy(q), copy.deepcopy(r)
    res = ap(q, r)
    assert res == pytest.approx({"301": 1.0, "302": 1.0})
    assert q == before_q and r == before_r


def test_dict_str_ids_match_utf8_file(tmp_path):
    p = tmp_path / "run.txt"
    p.write_bytes("café Q0 dé 1 1 t\n".encode())
    assert ap({"café": {"dé": 1}}, p) == pytest.approx({"café": 1.0})


# ---------------------------------------------------------------- frames

def _frames(module):
    lib = pytest.importorskip(module)
    qrels = lib.DataFrame({"query": ["301", "301", "301", "302", "302"], "doc": ["D1", "D2", "D3", "D4", "D5"],
                           "rel": [1, 0, 2, 1, 1]})
    run = lib.DataFrame({"query": ["301", "301", "301", "302", "302"], "doc": ["D3", "D9", "D1", "D5", "D6"],
                         "score": [0.9, 0.8, 0.7, 0.5, 0.4]})
    return lib, qrels, run


@pytest.mark.parametrize("module", ["pandas", "polars"])
def test_frames(module):
    lib, qrels, run = _frames(module)
    q_before, r_before = qrels.clone() if module == "polars" else qrels.copy(deep=True), \
        run.clone() if module == "polars" else run.copy(deep=True)
    assert ap(qrels, run) == pytest.approx(AP_BASIC)
    assert qrels.equals(q_before) and run.equals(r_before)
    assert rows(as_qrels(qrels)) == rows(read_qrels(DATA / "basic.qrels"))


@pytest.mark.parametrize("module", ["pandas", "polars"])
def test_frame_columns_override_and_extra_columns(module):
    lib, qrels, run = _frames(module)
    qrels = qrels.rename({"query": "qid", "doc": "docno", "rel": "grade"}) if module == "polars" else \
        qrels.rename(columns={"query": "qid", "doc": "docno", "rel": "grade"})
    run = run.rename({"score": "sim"}) if module == "polars" else run.rename(columns={"score": "sim"})
    q = as_qrels(qrels, columns={"query": "qid", "doc": "docno", "rel": "grade"})
    r = as_run(run, columns={"score": "sim"})
    assert ap(q, r) == pytest.approx(AP_BASIC)


def test_pandas_categorical_int_ids_and_arrow_table():
    pd = pytest.importorskip("pandas")
    import pyarrow as pa
    qrels = pd.DataFrame({"query": pd.Categorical([301, 301, 301, 302, 302]),
                          "doc": ["D1", "D2", "D3", "D4", "D5"], "rel": np.array([1, 0, 2, 1, 1], dtype=np.int8),
                          "note": [object(), None, 1, "x", 2.0]})  # unrelated columns are never read
    run = pa.table({"query": [301, 301, 301, 302, 302], "doc": ["D3", "D9", "D1", "D5", "D6"],
                    "score": [9, 8, 7, 5, 4]})
    assert ap(qrels, run) == pytest.approx(AP_BASIC)


def test_ranked_frame_without_score():
    pd = pytest.importorskip("pandas")
    run = pd.DataFrame({"query": ["301"] * 3 + ["302"] * 2, "doc": ["D9", "D3", "D1", "D5", "D6"]})
    r = as_run(run)
    assert r.ranked
    assert ap(DATA / "basic.qrels", r) == pytest.approx({"301": (1 / 2 + 2 / 3) / 2, "302": 0.5})


def test_tables_pass_through():
    q, r = read_qrels(DATA / "basic.qrels"), read_run(DATA / "basic.run")
    assert as_qrels(q) is q and as_run(r) is r


# ---------------------------------------------------------------- fast and slow paths agree

def _golden_files():
    if not GOLDEN.is_dir():
        return []
    return sorted(p for p in GOLDEN.iterdir() if p.name.startswith(("qrels", "results")))


@pytest.mark.parametrize("path", [p for p in _golden_files() + sorted(DATA.glob("*.qrels")) + sorted(DATA.glob("*.run"))
                                  if p.name != "utf16.qrels"],  # refused by design: tests/test_bad_input.py
                         ids=lambda p: p.name)
def test_fast_and_slow_paths_agree_on_real_files(monkeypatch, path):
    reader = read_qrels if "qrels" in path.name else read_run
    fast = reader(path)
    slow(monkeypatch)
    slow_table = reader(path)
    assert rows(fast) == rows(slow_table)
    assert [fast.line_of(i) for i in range(len(fast))] == [slow_table.line_of(i) for i in range(len(fast))]
    if reader is read_run:
        assert fast.tag == slow_table.tag and fast.ranked == slow_table.ranked


_id = st.binary(min_size=1, max_size=6).map(lambda b: bytes(c for c in b if c > 32 and c != 0x7f) or b"x")


@st.composite
def _run_files(draw):
    n = draw(st.integers(1, 30))
    entries = draw(st.lists(st.tuples(st.sampled_from([b"1", b"2", b"10"]), _id,
                                       st.floats(-1e6, 1e6, allow_nan=False).map(lambda x: round(x, 3))),
                            min_size=n, max_size=n, unique_by=lambda e: (e[0], e[1])))
    sep = draw(st.sampled_from([b" ", b"\t", b"  ", b" \t"]))
    eol = draw(st.sampled_from([b"\n", b"\r\n", b"\r"]))
    extra = draw(st.sampled_from([b"", sep + b"extra"]))
    lines = []
    for q, d, s in entries:
        lines.append(sep.join([q, b"Q0", d, b"1", repr(s).encode(), b"tag"]) + extra)
        if draw(st.integers(0, 9)) == 0:
            lines.append(draw(st.sampled_from([b"# comment", b"", b"   "])))
    return eol.join(lines) + draw(st.sampled_from([b"", eol]))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=_run_files())
def test_random_valid_runs_read_as_the_reference_says(monkeypatch, data):
    expected = [(q, d, s) for q, d, s in ref_rows(data, "run")]
    got = read_run(io.BytesIO(data))
    assert rows(got) == expected
    with monkeypatch.context() as m:
        slow(m)
        assert rows(read_run(io.BytesIO(data))) == expected


@pytest.mark.parametrize("line", [b"301  D9 2 0.8 r1", b"301 Q0 D9  0.8 r1", b"301 Q0 D9 2 0.8 "])
def test_an_empty_unused_field_is_judged_like_the_slow_path(tmp_path, line):
    """Q0, rank and tag are never built by the fast path; an empty one must still be refused by line."""
    lines = (DATA / "basic.run").read_bytes().split(b"\n")
    lines[1] = line
    p = tmp_path / "run.txt"
    p.write_bytes(b"\n".join(lines))
    with pytest.raises(InputError, match=r":2: 5 fields where a run line has at least 6"):
        read_run(p)
