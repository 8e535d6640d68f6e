"""The direct path for big plain files (rankmeter.io.direct): read by Arrow from disk, never differently.

Every variant is read twice, with the direct path forced on (its size floor set to 0) and forced off;
the tables, tags, line numbers and errors must be the same. The regular ones must really go the direct
way (the bytes loader is made to fail), the others must fall back to it.
"""
from __future__ import annotations

import pathlib

import pyarrow as pa
import pytest

import rankmeter.io as rio
import rankmeter.io.direct as direct
from rankmeter.errors import InputError
from rankmeter.io import read_qrels, read_run
from rankmeter.io.arrow_path import FileSpan, _csv_options, _schema

DATA = pathlib.Path(__file__).parent / "data"
RAW = (DATA / "basic.run").read_bytes()
LINES = RAW.splitlines(keepends=True)

REGULAR = {
    "plain": RAW,
    "tabs": RAW.replace(b" ", b"\t"),
    "crlf": RAW.replace(b"\n", b"\r\n"),
    "lone_cr": RAW.replace(b"\n", b"\r"),
    "extra_columns": RAW.replace(b"\n", b" x y\n"),
    "no_final_newline": RAW.rstrip(b"\n"),
    "header_comments": b"# made by test\n\n# second\n" + RAW,
    "bom": b"\xef\xbb\xbf" + RAW,
    "three_fields": b"301 D3 0.9\n301 D9 0.8\n302 D1 0.5\n",
    "two_fields": b"301 D3\n301 D9\n302 D1\n",
}
FALLBACK = {
    "mid_comment": b"".join(LINES[:2] + [b"# comment\n"] + LINES[2:]),
    "blank_line": b"".join(LINES[:3] + [b"\n"] + LINES[3:]),
    "trailing_blank_lines": RAW + b"\n\n  \n",
    "runs_of_spaces": RAW.replace(b" Q0 ", b"   Q0  "),
    "mixed_tabs_spaces": RAW.replace(b" Q0 ", b"\tQ0 "),
    "leading_space": b" " + RAW,
    "trailing_space": RAW.replace(b"\n", b" \n"),
    "empty_q0": b"".join(LINES[:1] + [LINES[1].replace(b" Q0 ", b"  ")] + LINES[2:]),
    "empty_rank": b"".join(LINES[:1] + [LINES[1].replace(b" Q0 D9 2 ", b" Q0 D9  ")] + LINES[2:]),
    "ragged": b"".join(LINES[:2] + [LINES[2].replace(b"\n", b" more\n")] + LINES[3:]),
    "bad_score": b"".join(LINES[:1] + [LINES[1].replace(b" 0.8 ", b" nan ")] + LINES[2:]),
    "nul": RAW[:20] + b"\x00" + RAW[20:],
    "gzip": __import__("gzip").compress(RAW),
    "csv_header": b"qid,docno,score\n301,D3,0.9\n301,D9,0.8\n",
}


def _read(path, *, on: bool, monkeypatch, kind: str = "run"):
    with monkeypatch.context() as m:
        m.setattr(direct, "DIRECT_MIN_BYTES", 0 if on else 1 << 60)
        try:
            got = (read_run if kind == "run" else read_qrels)(path)
        except InputError as exc:
            return ("error", str(exc))
    lines = None if got.lines is None else got.lines.tolist()
    return got.table.combine_chunks().to_pydict(), getattr(got, "tag", None), lines


@pytest.mark.parametrize("variant", sorted(REGULAR))
def test_regular_files_go_direct_and_read_the_same(monkeypatch, tmp_path, variant):
    p = tmp_path / "run.txt"
    p.write_bytes(REGULAR[variant])
    expected = _read(p, on=False, monkeypatch=monkeypatch)
    assert expected[0] != "error"

    def no_bytes(*a, **k):
        raise AssertionError("the bytes path was used")
    monkeypatch.setattr(rio, "load_bytes", no_bytes)
    assert _read(p, on=True, monkeypatch=monkeypatch) == expected


@pytest.mark.parametrize("variant", sorted(FALLBACK))
def test_other_files_fall_back_and_read_the_same(monkeypatch, tmp_path, variant):
    p = tmp_path / "run.txt"
    p.write_bytes(FALLBACK[variant])
    assert _read(p, on=True, monkeypatch=monkeypatch) == _read(p, on=False, monkeypatch=monkeypatch)


def test_qrels_go_direct_too(monkeypatch, tmp_path):
    p = tmp_path / "q.txt"
    p.write_bytes((DATA / "basic.qrels").read_bytes())
    expected = _read(p, on=False, monkeypatch=monkeypatch, kind="qrels")
    assert _read(p, on=True, monkeypatch=monkeypatch, kind="qrels") == expected
    assert expected[0]["rel"] == read_qrels(DATA / "basic.qrels").table.column("rel").to_pylist()


@pytest.mark.parametrize("parts", [1, 2, 3, 7])
def test_byte_ranges_cut_at_line_starts(tmp_path, parts):
    """However the file is cut into ranges, the rows are those of one whole read, in order."""
    body = b"".join(b"q%d Q0 d%d %d %d.5 tag%d\n" % (i // 10, i, i % 10, 100 - i, i) for i in range(100))
    p = tmp_path / "run.txt"
    p.write_bytes(body)
    names, types = _schema(6, "run")
    table, tag = direct.read_span(FileSpan(str(p), 0, len(body)),
                                  _csv_options(names, types, b" ", threads=False, block_bytes=64),
                                  ["c0", "c2", "c4"], parts=parts)
    assert table.column("c2").to_pylist() == [b"d%d" % i for i in range(100)]
    assert table.column("c4").to_pylist() == [100 - i + 0.5 for i in range(100)]
    assert tag == b"tag99"


def test_a_big_file_is_chunked_not_joined(monkeypatch, tmp_path):
    """The run's columns keep Arrow's blocks (joining them would copy a big file's columns)."""
    body = b"".join(b"q%d Q0 d%d 1 %d tag\n" % (i // 100, i, i) for i in range(20000))
    p = tmp_path / "run.txt"
    p.write_bytes(body)
    monkeypatch.setattr(direct, "DIRECT_MIN_BYTES", 0)
    monkeypatch.setattr(direct, "STREAM_BLOCK_BYTES", 4096)
    run = read_run(p)
    assert run.table.column("doc").num_chunks > 1
    assert run.table.column("doc").to_pylist() == [b"d%d" % i for i in range(20000)]
    assert isinstance(run.table.column("doc"), pa.ChunkedArray)
