"""Chunked scoring of a run file: identical to the whole file, errors naming the right line.

The reference is :func:`rankmeter.evaluate` on the whole file (itself checked
against trec_eval's golden outputs); chunks are made tiny so that every file
is cut into many of them, at and between query boundaries.
"""
from __future__ import annotations

import gzip
import io
import warnings
from pathlib import Path

import numpy as np
import pytest

import rankmeter
from rankmeter import InputError, ParameterError
from rankmeter.measures.trec_eval import NICKNAMES, expand


def evaluate_file(qrels, run, measures, **options):
    """The streamed executor through the one public entry point."""
    return rankmeter.evaluate(qrels, run, measures, executor="streamed", **options)

GOLDEN = Path(__file__).resolve().parent.parent / "golden"
ALL_TREC = [m for _, _, m in expand(NICKNAMES["all_trec"]) if m is not None]
NAMES = list(dict.fromkeys(str(m) for m in ALL_TREC))


def identical(a, b, names=NAMES):
    assert a.queries == b.queries
    assert a.run == b.run
    for name in names:
        assert a.values(name).tolist() == b.values(name).tolist(), name
        assert a[name] == b[name], name  # same values summed in the same order: the same bits


def both(qrels, run, measures, chunk_bytes=1000, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return (rankmeter.evaluate(qrels, run, measures, **options),
                evaluate_file(qrels, run, measures, chunk_bytes=chunk_bytes, **options))


def make_files(tmp_path, seed=4, nq=60):
    """A grouped synthetic run in a shuffled query order, with ties, comments and extra queries."""
    rng = np.random.default_rng(seed)
    lines, qlines = ["# a comment line first\n"], []
    for i in rng.permutation(nq):
        q = f"Q{i:03d}"
        n = int(rng.integers(1, 40))
        docs = rng.choice(500, size=n, replace=False)
        for rank, (d, s) in enumerate(zip(docs, np.round(rng.normal(3, 1, n), 1))):
            lines.append(f"{q} Q0 D{d} {rank + 1} {s} tag{seed}\n")
        if i % 7 == 0:
            lines.append("\n")
    for i in range(nq + 5):  # five judged queries the run lacks
        for d in rng.choice(500, size=int(rng.integers(1, 30)), replace=False):
            qlines.append(f"Q{i:03d} 0 D{d} {rng.choice([-1, 0, 0, 1, 2, 3])}\n")
    run, qrels = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run.write_text("".join(lines))
    qrels.write_text("".join(qlines))
    return qrels, run


@pytest.mark.parametrize("chunk", [1, 700, 4096, 1 << 20])
@pytest.mark.parametrize("queries", ["both", "qrels"])
def test_golden_files_chunked_equal_whole(chunk, queries, tmp_path):
    whole, chunked = both(GOLDEN / "qrels.test", GOLDEN / "results.test", ALL_TREC, queries=queries,
                          chunk_bytes=chunk)
    identical(whole, chunked)
    # results.trunc interleaves its queries: grouped (stably, as sort -s -k1,1 does) it scores the same
    lines = (GOLDEN / "results.trunc").read_bytes().splitlines(keepends=True)
    grouped = tmp_path / "grouped.trunc"
    grouped.write_bytes(b"".join(sorted(lines, key=lambda line: line.split()[0])))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        whole = rankmeter.evaluate(GOLDEN / "qrels.test", GOLDEN / "results.trunc", ALL_TREC, queries=queries,
                                   max_docs=100)
        chunked = evaluate_file(GOLDEN / "qrels.test", grouped, ALL_TREC, queries=queries, max_docs=100,
                                chunk_bytes=chunk)
    identical(whole, chunked)


def test_many_queries_options_and_policies(tmp_path):
    qrels, run = make_files(tmp_path)
    names = ["AP", "nDCG@10", "P@5", "ERR@10", "RelString@6", "NumRet", "GMAP", "Bpref"]
    for opts in ({}, {"queries": "qrels"}, {"rel": 2}, {"judged_only": True}, {"max_docs": 4},
                 {"ties": "input"}, {"queries": "qrels", "rel": 3, "max_docs": 9}):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            whole = rankmeter.evaluate(qrels, run, names, **opts)
            for chunk in (300, 5000):
                identical(whole, evaluate_file(qrels, run, names, chunk_bytes=chunk, **opts), names)


def test_missing_queries_warn_like_the_whole_file(tmp_path):
    qrels, run = make_files(tmp_path)
    with pytest.warns(UserWarning, match=r"5 judged queries have no results in the run .*Q060, Q061"):
        evaluate_file(qrels, run, ["AP"], chunk_bytes=1000)


def test_gzip_ranked_lists_crlf_and_file_objects(tmp_path):
    text = (GOLDEN / "results.test").read_bytes()
    gz = tmp_path / "run.gz"
    gz.write_bytes(gzip.compress(text))
    whole, chunked = both(GOLDEN / "qrels.test", GOLDEN / "results.test", ["AP", "nDCG@10"])
    identical(whole, evaluate_file(GOLDEN / "qrels.test", gz, ["AP", "nDCG@10"], chunk_bytes=3000),
              ["AP", "nDCG@10"])
    identical(whole, evaluate_file(GOLDEN / "qrels.test", io.BytesIO(text), ["AP", "nDCG@10"], chunk_bytes=3000),
              ["AP", "nDCG@10"])
    crlf = tmp_path / "crlf.txt"
    crlf.write_bytes(text.replace(b"\n", b"\r\n"))
    identical(whole, evaluate_file(GOLDEN / "qrels.test", crlf, ["AP", "nDCG@10"], chunk_bytes=2000),
              ["AP", "nDCG@10"])
    ranked = tmp_path / "ranked.txt"
    ranked.write_text("".join(f"{q} {d}\n" for q in ("1", "2", "3") for d in ("c", "a", "b", "z")))
    qrels = {"1": {"a": 1}, "2": {"z": 1, "c": 1}, "3": {"q": 1}}
    whole, chunked = both(qrels, ranked, ["AP", "RR"], chunk_bytes=5)
    identical(whole, chunked, ["AP", "RR"])
    assert chunked.values("RR").tolist() == [0.5, 1.0, 0.0]


def test_a_run_not_grouped_by_query_is_refused_with_the_fix(tmp_path):
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n2 Q0 a 1 3 t\n1 Q0 c 3 1 t\n")
    for chunk in (1, 1 << 20):  # across chunks, and inside one
        with pytest.raises(InputError, match=r"run.txt:4: query 1 appears again after other queries.*sort -s -k1,1"):
            evaluate_file({"1": {"a": 1}}, run, ["AP"], chunk_bytes=chunk)
    with pytest.raises(InputError, match=r"results.trunc:3: query 301 appears again"):
        evaluate_file(GOLDEN / "qrels.test", GOLDEN / "results.trunc", ["AP"])


def test_errors_name_the_line_in_the_whole_file(tmp_path):
    lines = [f"{q} Q0 D{d} {d} {10 - d} t\n" for q in range(1, 40) for d in range(8)]
    lines[250] = "20 Q0 D9 9 nan t\n"
    run = tmp_path / "run.txt"
    run.write_text("".join(lines))
    with pytest.raises(InputError, match=r"run.txt:251: score 'nan'"):
        rankmeter.evaluate({"1": {"D1": 1}}, run, ["AP"])
    with pytest.raises(InputError, match=r"run.txt:251: score 'nan'"):
        evaluate_file({"1": {"D1": 1}}, run, ["AP"], chunk_bytes=500)
    with pytest.raises(InputError, match="no such file"):
        evaluate_file({"1": {"D1": 1}}, tmp_path / "nope.txt", ["AP"])
    with pytest.raises(ParameterError, match="chunk_bytes"):
        evaluate_file({"1": {"D1": 1}}, run, ["AP"], chunk_bytes=0)


@pytest.mark.parametrize("layout", ["plain", "comments", "blank_lines", "crlf", "no_final_newline",
                                    "long_line", "bom"])
@pytest.mark.parametrize("chunk", [90, 333, 1000, 4096])
def test_error_lines_whatever_the_blocks_and_layout(layout, chunk, tmp_path):
    """The line named after many blocks is the file's line, counted by the row count where a block is all
    rows and by its line ends where it is not (comments, blank lines, CR, a missing last line end)."""
    lines = [f"{q} Q0 D{d} {d} {10 - d} t\n" for q in range(1, 40) for d in range(8)]
    if layout == "comments":
        lines[40:40] = ["# a comment\n"]
        lines[130:130] = ["# another\n", "# and another\n"]
    elif layout == "blank_lines":
        lines[57:57] = ["\n"] * 5000  # longer than a block: some block ends in blank lines
        lines[5199:5199] = ["   \n"] * 2000
    elif layout == "long_line":
        lines[120] = lines[120].replace(" t\n", " " + "t" * 3000 + "\n")
    bad = [i for i, line in enumerate(lines) if line.strip() and not line.startswith("#")][250]
    good = lines[bad]
    lines[bad] = " ".join(good.split(" ")[:4] + ["nan"] + good.split(" ")[5:])
    text = "".join(lines)
    if layout == "crlf":
        text = text.replace("\n", "\r\n")
    elif layout == "no_final_newline":
        text = text.rstrip("\n")
    elif layout == "bom":
        text = "\ufeff" + text
    run = tmp_path / "run.txt"
    run.write_text(text, encoding="utf-8", newline="")
    with pytest.raises(InputError, match=rf"run.txt:{bad + 1}: score 'nan'"):
        rankmeter.evaluate({"1": {"D1": 1}}, run, ["AP"])
    with pytest.raises(InputError, match=rf"run.txt:{bad + 1}: score 'nan'"):
        evaluate_file({"1": {"D1": 1}}, run, ["AP"], chunk_bytes=chunk)
    lines[bad] = good
    lines.append("1 Q0 D0 99 0.5 t\n")  # query 1 again, far from its other lines
    run.write_text("".join(lines).replace("\n", "\r\n") if layout == "crlf" else "".join(lines), newline="")
    with pytest.raises(InputError, match=rf"run.txt:{len(lines)}: query 1 appears again"):
        evaluate_file({"1": {"D1": 1}}, run, ["AP"], chunk_bytes=chunk)


def test_a_file_read_in_blocks_gives_every_byte_once(tmp_path):
    from rankmeter.executors.blocks import Blocks
    rng = np.random.default_rng(3)
    lines = [b"x" * int(n) + b"\n" for n in rng.integers(0, 300, size=2000)]
    data = b"\xef\xbb\xbf" + b"".join(lines) + b"last line without its end"
    path = tmp_path / "f.txt"
    path.write_bytes(data)
    for size in (1, 7, 64, 1000, 1 << 20):
        blocks = Blocks(path, size)
        got = [block for block, _ in blocks]
        assert blocks.position() == len(data)
        blocks.close()
        assert b"".join(got) == data[3:]
        assert all(b.endswith(b"\n") for b in got[:-1]) and got[-1].endswith(b"end")


@pytest.mark.parametrize("compress", [False, True])
def test_blocks_end_where_a_query_begins(tmp_path, compress):
    """Blocks are cut where their last query's lines begin (that query's id comes with the block and its lines
    start the next one), so no query is joined across blocks; a block that is one query, and indented or
    commented lines, are not cut there. Every byte comes once, in order, plain or gzipped."""
    import gzip

    from rankmeter.executors.blocks import Blocks
    rng = np.random.default_rng(4)
    lines = []
    for q in range(60):
        lines += [f"q{q}{'  ' if q % 7 == 0 else ' '}Q0 d{d} {d + 1} {-d} t\n".encode() for d in range(int(rng.integers(1, 40)))]
    lines[100:100] = [b"# a comment\n"]
    lines[300] = b"   " + lines[300]
    data = b"".join(lines)
    path = tmp_path / ("run.txt.gz" if compress else "run.txt")
    path.write_bytes(gzip.compress(data) if compress else data)
    for size in (64, 500, 2000, 1 << 20):
        blocks = Blocks(path, size)
        got = list(blocks)
        blocks.close()
        assert b"".join(block for block, _ in got) == data
        cuts = 0
        for (block, carried), (following, _) in zip(got, got[1:]):
            if carried is not None:
                cuts += 1
                assert following.split(None, 1)[0] == carried  # the next block starts with the carried query
                assert block.splitlines()[-1].split(None, 1)[0] != carried
        if size in (500, 2000):  # blocks of several queries: most are cut where a query begins
            assert cuts >= (len(got) - 1) // 2 > 0
        elif size == 1 << 20:  # the whole file in one read: a stream learns that it ended on the next read
            assert len(got) == 1 + cuts and cuts == int(compress)


def test_progress_bar_goes_to_stderr(tmp_path, capsys):
    pytest.importorskip("rich")
    qrels, run = make_files(tmp_path)
    evaluate_file(qrels, run, ["AP"], chunk_bytes=2000, progress=True, queries="qrels")
    err = capsys.readouterr().err
    assert "run.txt" in err and "60 queries" in err


def test_seen_queries_finds_a_repeat_after_many_merged_blocks(monkeypatch):
    from rankmeter.engine.ids import Ids
    from rankmeter.executors import streamed

    def block(numbers):
        return Ids.from_list([f"q{n}".encode() for n in numbers])

    seen = streamed._SeenQueries()
    for b in range(40):  # sizes vary, so levels merge at different points
        assert seen.repeated(block(range(1000 * b, 1000 * b + 37 * (b % 5) + 1))) is None
    assert len(seen.levels) < 10
    assert seen.repeated(block([99999, 3005, 3001])) == 1      # q3005 came in block 3
    assert seen.repeated(block([])) is None
    # hashes that all collide: only the ids themselves decide
    monkeypatch.setattr(Ids, "hashes", lambda self: np.zeros(len(self), np.uint64))
    seen = streamed._SeenQueries()
    assert seen.repeated(block([1, 2])) is None
    assert seen.repeated(block([3, 4])) is None
    assert seen.repeated(block([5, 4])) == 1


def test_auto_streams_a_big_plain_file_and_reads_an_ungrouped_one_whole(tmp_path, monkeypatch):
    """executor="auto": a plain TREC file of STREAM_AUTO_BYTES or more is streamed (the same values); one
    whose queries are not grouped is read whole after all, with a warning; smaller files are read whole."""
    import warnings

    import rankmeter
    from rankmeter.executors import streamed

    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"q{i} 0 d{j} {j % 2}\n" for i in range(30) for j in range(8)))
    grouped, ungrouped = tmp_path / "grouped.run", tmp_path / "ungrouped.run"
    lines = [f"q{i} Q0 d{j} {j + 1} {10 - j} t\n" for i in range(30) for j in range(8)]
    grouped.write_text("".join(lines))
    ungrouped.write_text("".join(lines[1::2] + lines[0::2]))
    whole = rankmeter.evaluate(str(qrels), str(grouped), ["AP", "nDCG@5"], executor="memory")
    calls = []
    real = streamed.evaluate_streamed
    monkeypatch.setattr(streamed, "evaluate_streamed", lambda *a, **k: calls.append(a) or real(*a, **k))
    monkeypatch.setattr(streamed, "STREAM_AUTO_BYTES", 1000)
    got = rankmeter.evaluate(str(qrels), str(grouped), ["AP", "nDCG@5"])
    assert len(calls) == 1 and got.mean == whole.mean  # streamed by itself, the same numbers
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = rankmeter.evaluate(str(qrels), str(ungrouped), ["AP", "nDCG@5"])
    assert got.mean == whole.mean and any("read whole in memory" in str(w.message) for w in caught)
    monkeypatch.setattr(streamed, "STREAM_AUTO_BYTES", 10 ** 9)
    calls.clear()
    rankmeter.evaluate(str(qrels), str(grouped), ["AP"])
    assert calls == []  # small: read whole
    assert not streamed.streams_by_itself(str(grouped), rankmeter.core.validate_options(executor="memory"))
