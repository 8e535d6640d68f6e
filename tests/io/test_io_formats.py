"""Every input kind people have, read to the same numbers as the plain TREC file.

One seeded random qrels/run pair is written in each format (TREC with 3 or 6
columns, headers, CSV, TSV, Parquet, JSON Lines, a JSON dict, bz2/xz/zstd/gzip,
standard input) and scored through the API and the CLI; each must give the
per-query values of the plain TREC files exactly.
"""
from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import sys

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import rankmeter
from rankmeter.io import read_qrels, read_run
from cli_runner import run_cli_in_process  # noqa: E402  (tests/ is on sys.path: tests/conftest.py)

MEASURES = ["AP", "nDCG@10", "P@5", "RR", "R@20"]


def _data(seed: int = 11):
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(12):
        qid = f"q{q + 1}"
        docs = [f"D{d:04d}" for d in rng.choice(300, 40, replace=False)]
        for d in docs[:25]:
            qrels.append((qid, d, int(rng.choice(4, p=[0.5, 0.25, 0.15, 0.1]))))
        scores = np.round(np.sort(rng.normal(5, 2, 30))[::-1], 1)  # rounding makes ties
        for rank, (d, s) in enumerate(zip(docs[10:], scores), 1):
            run.append((qid, d, rank, float(s)))
    return qrels, run


QRELS, RUN = _data()


def _zstd(data: bytes) -> bytes:
    sink = pa.BufferOutputStream()
    with pa.CompressedOutputStream(sink, "zstd") as out:
        out.write(data)
    return sink.getvalue().to_pybytes()


def _text(rows, fmt, sep=" ") -> bytes:
    return "".join(sep.join(fmt(*r)) + "\n" for r in rows).encode()


TREC_QRELS = _text(QRELS, lambda q, d, r: (q, "0", d, str(r)))
TREC_RUN = _text(RUN, lambda q, d, k, s: (q, "Q0", d, str(k), f"{s}", "bm25"))


def _parquet(columns: dict) -> bytes:
    sink = pa.BufferOutputStream()
    pq.write_table(pa.table(columns), sink)
    return sink.getvalue().to_pybytes()


def _qcols(names):
    q, d, r = zip(*QRELS)
    return dict(zip(names, (list(q), list(d), list(r))))


def _rcols(names):
    q, d, _, s = zip(*RUN)
    return dict(zip(names, (list(q), list(d), list(s))))


# (case id, file name, bytes)
QRELS_CASES = [
    ("trec", "qrels.txt", TREC_QRELS),
    ("trec-gzip", "qrels.txt.gz", gzip.compress(TREC_QRELS)),
    ("trec-bz2", "qrels.bz2", bz2.compress(TREC_QRELS)),
    ("trec-xz", "qrels", lzma.compress(TREC_QRELS)),
    ("trec-zstd", "qrels.zst", _zstd(TREC_QRELS)),
    ("beir-tsv-header", "qrels.tsv", b"query-id\tcorpus-id\tscore\n" + _text(QRELS, lambda q, d, r: (q, d, str(r)), "\t")),
    ("beir-header-no-suffix", "test.txt", b"query-id\tcorpus-id\tscore\n" + _text(QRELS, lambda q, d, r: (q, d, str(r)), "\t")),
    ("msmarco-tsv-no-header", "qrels.dev.tsv", _text(QRELS, lambda q, d, r: (q, "0", d, str(r)), "\t")),
    ("csv-header", "qrels.csv", b"query,doc,rel\n" + _text(QRELS, lambda q, d, r: (q, d, str(r)), ",")),
    ("csv-quoted-sniffed", "judgments", b'"qid","docno","label"\n' + _text(QRELS, lambda q, d, r: (f'"{q}"', d, str(r)), ",")),
    ("csv-no-header", "qrels.csv", _text(QRELS, lambda q, d, r: (q, "0", d, str(r)), ",")),
    ("whitespace-header", "qrels.txt", b"qid  docno\tlabel\n\n" + _text(QRELS, lambda q, d, r: (q, d, str(r)), "  ")),
    ("parquet-ir_measures", "qrels.parquet", _parquet(_qcols(["query_id", "doc_id", "relevance"]))),
    ("parquet-no-suffix", "qrels.bin", _parquet(_qcols(["userID", "itemID", "rating"]))),
    ("jsonl", "qrels.jsonl", _text(QRELS, lambda q, d, r: (json.dumps({"query_id": q, "doc_id": d, "relevance": r}),))),
    ("jsonl-gz-sniffed", "qrels.gz", gzip.compress(b"\n" + _text(QRELS, lambda q, d, r: (json.dumps({"qid": q, "docno": d, "label": r}),)))),
    ("json-dict", "qrels.json", json.dumps({q: {d: r for q2, d, r in QRELS if q2 == q} for q, _, _ in QRELS}).encode()),
]
RUN_CASES = [
    ("trec", "run.txt", TREC_RUN),
    ("trec-zstd", "run.txt.zst", _zstd(TREC_RUN)),
    ("trec-xz", "run.xz", lzma.compress(TREC_RUN)),
    ("3-columns-space", "run.txt", _text(RUN, lambda q, d, k, s: (q, d, f"{s}"))),
    ("3-columns-tab-bz2", "run.tsv.bz2", bz2.compress(_text(RUN, lambda q, d, k, s: (q, d, f"{s}"), "\t"))),
    ("trec-header", "run.txt", b"qid Q0 docno rank score tag\n" + TREC_RUN),
    ("tsv-header", "run.tsv", b"qid\tdocno\tscore\tquery\n" + _text(RUN, lambda q, d, k, s: (q, d, f"{s}", "some text"), "\t")),
    ("csv-header", "run.csv", b"query_id,doc_id,score\n" + _text(RUN, lambda q, d, k, s: (q, d, f"{s}"), ",")),
    ("csv-sniffed", "run", b"user,item,prediction\r\n" + _text(RUN, lambda q, d, k, s: (q, d, f"{s}"), ",").replace(b"\n", b"\r\n")),
    ("csv-no-header", "run.csv", _text(RUN, lambda q, d, k, s: (q, "Q0", d, str(k), f"{s}", "bm25"), ",")),
    ("parquet-pyterrier", "run.parquet", _parquet({**_rcols(["qid", "docno", "score"]),
                                                    "docid": list(range(len(RUN))), "query": ["text"] * len(RUN),
                                                    "rank": [r[2] - 1 for r in RUN]})),
    ("jsonl", "run.jsonl", _text(RUN, lambda q, d, k, s: (json.dumps({"query_id": q, "doc_id": d, "score": s}),))),
    ("jsonl-zstd", "run.jsonl.zst", _zstd(_text(RUN, lambda q, d, k, s: (json.dumps({"query": q, "doc": d, "score": s}),)))),
    ("json-records", "run.json", json.dumps([{"qid": q, "docno": d, "score": s} for q, d, _, s in RUN]).encode()),
    ("jsonl-ids-mixed", "run.ndjson", _text(RUN, lambda q, d, k, s: (json.dumps({"qid": q, "docno": d, "score": s}),))
     .replace(b'"score": 5.0}', b'"score": 5}')),
]


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    base = tmp_path_factory.mktemp("ref")
    (base / "qrels.txt").write_bytes(TREC_QRELS)
    (base / "run.txt").write_bytes(TREC_RUN)
    r = rankmeter.evaluate(base / "qrels.txt", base / "run.txt", MEASURES)
    return base, {m: r.values(m) for m in MEASURES}, r.queries


def _same(results, reference):
    _, values, queries = reference
    assert results.queries == queries
    for m in MEASURES:
        np.testing.assert_array_equal(results.values(m), values[m], err_msg=m)


def _cli(args, cwd=None, stdin=None):
    return run_cli_in_process("eval", *args, *sum((["-m", m] for m in MEASURES), []), "--format", "json", "-q",
                              stdin=stdin, cwd=cwd, text=False)


def _cli_values(got) -> dict:
    assert got.returncode == 0, got.stderr.decode()
    assert got.stderr == b"", got.stderr.decode()
    rows = json.loads(got.stdout)["runs"][0]["per_query"]
    return {m: [row[m] for row in rows] for m in MEASURES} | {"query": [row["query"] for row in rows]}


@pytest.fixture(scope="module")
def cli_reference(reference):
    base = reference[0]
    return _cli_values(_cli([base / "qrels.txt", base / "run.txt"], base))


@pytest.mark.parametrize("case_id,name,content", QRELS_CASES, ids=[c[0] for c in QRELS_CASES])
def test_qrels_formats_give_the_trec_values(tmp_path, reference, case_id, name, content):
    path = tmp_path / name
    path.write_bytes(content)
    qrels = read_qrels(path)
    assert len(qrels) == len(QRELS)
    _same(rankmeter.evaluate(qrels, reference[0] / "run.txt", MEASURES), reference)
    _same(rankmeter.evaluate(str(path), reference[0] / "run.txt", MEASURES), reference)


@pytest.mark.parametrize("case_id,name,content", RUN_CASES, ids=[c[0] for c in RUN_CASES])
def test_run_formats_give_the_trec_values(tmp_path, reference, case_id, name, content):
    path = tmp_path / name
    path.write_bytes(content)
    run = read_run(path)
    assert len(run) == len(RUN) and not run.ranked
    _same(rankmeter.evaluate(reference[0] / "qrels.txt", run, MEASURES), reference)


def test_formats_through_the_cli(tmp_path, reference, cli_reference):
    """Every case through ``rankmeter eval`` (in process), and ``-`` for each kind."""
    base = reference[0]
    for kind, cases in (("qrels", QRELS_CASES), ("run", RUN_CASES)):
        for case_id, name, content in cases:
            d = tmp_path / f"{kind}-{case_id}"
            d.mkdir()
            (d / name).write_bytes(content)
            args = [d / name, base / "run.txt"] if kind == "qrels" else [base / "qrels.txt", d / name]
            assert _cli_values(_cli(args)) == cli_reference, case_id
    # standard input: compressed qrels, a CSV run
    assert _cli_values(_cli(["-", base / "run.txt"], tmp_path, stdin=bz2.compress(TREC_QRELS))) == cli_reference
    csv_run = b"qid,docno,score\n" + _text(RUN, lambda q, d, k, s: (q, d, f"{s}"), ",")
    assert _cli_values(_cli([base / "qrels.txt", "-"], tmp_path, stdin=gzip.compress(csv_run))) == cli_reference


def test_stdin_in_the_api(monkeypatch, reference):
    class Stdin:
        buffer = io.BytesIO(_zstd(TREC_RUN))
    monkeypatch.setattr(sys, "stdin", Stdin)
    _same(rankmeter.evaluate(reference[0] / "qrels.txt", "-", MEASURES), reference)


def test_format_override(tmp_path, reference):
    p = tmp_path / "run.data"
    p.write_bytes(b"query_id|doc_id\n")  # nothing sniffs this; format= is the user's word
    csv_like = tmp_path / "run.txt"
    csv_like.write_bytes(b"qid,docno,score\n" + _text(RUN, lambda q, d, k, s: (q, d, f"{s}"), ","))
    _same(rankmeter.evaluate(reference[0] / "qrels.txt", read_run(csv_like, input_format="csv"), MEASURES), reference)
    with pytest.raises(rankmeter.InputError, match=r"run.txt:1: 1 field where a run line has at least 6"):
        read_run(csv_like, input_format="trec")
    with pytest.raises(rankmeter.InputError, match="is not a Parquet file"):
        read_run(csv_like, input_format="parquet")
    with pytest.raises(rankmeter.ParameterError, match="input_format='xlsx': expected one of auto, trec"):
        read_run(csv_like, input_format="xlsx")
    # a TREC run whose ids are literally the header words stays a TREC run under input_format="trec"
    odd = tmp_path / "odd.txt"
    odd.write_bytes(b"qid docno score\nq1 d1 2\n")
    with pytest.raises(rankmeter.InputError, match=r"odd.txt:1: score 'score' is not a finite number"):
        read_run(odd, input_format="trec")
    assert len(read_run(odd)) == 1


def test_columns_everywhere(tmp_path, reference):
    custom = tmp_path / "run.csv"
    custom.write_bytes(b"topic,passage,similarity,extra\n" + _text(RUN, lambda q, d, k, s: (q, d, f"{s}", "x"), ","))
    roles = {"query": "topic", "doc": "passage", "score": "similarity"}
    _same(rankmeter.evaluate(reference[0] / "qrels.txt", read_run(custom, columns=roles), MEASURES), reference)
    _same(rankmeter.evaluate(reference[0] / "qrels.txt", custom, MEASURES, columns=roles), reference)
    with pytest.raises(rankmeter.InputError, match="cannot tell which columns hold the query and the doc"):
        read_run(custom)
    # positions for a file without a header (a 6-field TREC run read as query, doc, score by position)
    positional = tmp_path / "run.txt"
    positional.write_bytes(TREC_RUN)
    run = read_run(positional, columns={"query": 0, "doc": 2, "score": 4})
    _same(rankmeter.evaluate(reference[0] / "qrels.txt", run, MEASURES), reference)
    qrels = tmp_path / "q.tsv"
    qrels.write_bytes(b"t\tp\tg\n" + _text(QRELS, lambda q, d, r: (q, d, str(r)), "\t"))
    _same(rankmeter.evaluate(read_qrels(qrels, columns={"query": "t", "doc": "p", "rel": "g"}),
                             reference[0] / "run.txt", MEASURES), reference)
