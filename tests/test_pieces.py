"""Scoring a run file in query-aligned pieces gives exactly the whole-file values."""
from __future__ import annotations

import numpy as np
import pytest

import rankmeter
from rankmeter.engine import pieces
from rankmeter.engine.pieces import query_aligned_cuts, score_run_file
from rankmeter.io import read_qrels
from rankmeter.measures import parse_measure

MEASURES = ["AP", "nDCG@10", "RR", "P@5", "R@100", "Bpref", "ERR@10", "NumRet", "RelString@5"]


def _write_case(tmp_path, grouped=True, n_queries=60, depth=50, seed=1):
    rng = np.random.default_rng(seed)
    qrels_lines, run_lines = [], []
    for q in range(n_queries):
        docs = rng.choice(500, size=depth, replace=False)
        for d in rng.choice(500, size=15, replace=False):
            qrels_lines.append(f"q{q} 0 D{d} {int(rng.integers(-1, 4))}\n")
        scores = np.round(np.sort(rng.normal(size=depth))[::-1], 1)  # ties on purpose
        run_lines += [f"q{q} Q0 D{d} {i + 1} {s:.1f} tag{seed}\n" for i, (d, s) in enumerate(zip(docs, scores))]
    qrels_lines.append("qonly 0 D1 1\n")  # a judged query the run lacks
    if not grouped:
        rng.shuffle(run_lines)
    (tmp_path / "qrels.txt").write_text("".join(qrels_lines))
    (tmp_path / "run.txt").write_text("".join(run_lines))
    return tmp_path / "qrels.txt", tmp_path / "run.txt"


@pytest.fixture
def small_pieces(monkeypatch):
    monkeypatch.setattr(pieces, "MIN_BYTES", 0)


def test_cuts_fall_between_queries(tmp_path):
    _, run = _write_case(tmp_path)
    data = run.read_bytes()
    cuts = query_aligned_cuts(data, 3000)
    assert len(cuts) > 5 and cuts[0] == 0 and cuts[-1] == len(data)
    for c in cuts[1:-1]:
        before = data[:c].rstrip(b"\n").rsplit(b"\n", 1)[-1].split()[0]
        after = data[c:].split(b"\n", 1)[0].split()[0]
        assert before != after


@pytest.mark.parametrize("queries", ["both", "qrels"])
def test_piecewise_equals_whole(tmp_path, small_pieces, queries):
    qrels_path, run_path = _write_case(tmp_path)
    qrels = read_qrels(qrels_path)
    measures = [parse_measure(m).with_params(rel=1) for m in MEASURES]
    got = score_run_file(qrels, run_path, measures, queries=queries, piece_bytes=2000)
    assert got is not None
    assert got.tag == b"tag1"
    assert got.info.missing_from_run == (b"qonly",)
    with pytest.warns(UserWarning) if queries == "both" else _no_warning():
        whole = rankmeter.evaluate(qrels, rankmeter.read_run(run_path), MEASURES, queries=queries)
    assert [q.decode() for q in got.queries] == whole.queries
    for name, m in zip(MEASURES, measures):
        assert got.values[m].tolist() == whole.values(name).tolist(), name


def test_evaluate_takes_the_piecewise_path_for_files(tmp_path, small_pieces, monkeypatch):
    qrels_path, run_path = _write_case(tmp_path, seed=4)
    calls = []
    real = pieces.score_run_file

    def spy(*args, **kwargs):
        out = real(*args, piece_bytes=2000, **{k: v for k, v in kwargs.items() if k != "piece_bytes"})
        calls.append(out is not None)
        return out

    monkeypatch.setattr(rankmeter.api, "score_run_file", spy)
    with pytest.warns(UserWarning):
        r = rankmeter.evaluate(str(qrels_path), str(run_path), ["AP", "nDCG@10"])
    assert calls == [True]
    with pytest.warns(UserWarning):
        whole = rankmeter.evaluate(str(qrels_path), rankmeter.read_run(run_path), ["AP", "nDCG@10"])
    assert r["AP"] == whole["AP"] and r["nDCG@10"] == whole["nDCG@10"]


def test_ungrouped_file_falls_back(tmp_path, small_pieces):
    qrels_path, run_path = _write_case(tmp_path, grouped=False)
    measures = [parse_measure("AP").with_params(rel=1)]
    assert score_run_file(read_qrels(qrels_path), run_path, measures, piece_bytes=2000) is None


def test_bad_input_falls_back_to_the_exact_error(tmp_path, small_pieces):
    qrels_path, run_path = _write_case(tmp_path)
    lines = run_path.read_text().splitlines(keepends=True)
    lines[1500] = lines[1500].replace(" tag1", " tag1").replace(lines[1500].split()[4], "nan")
    run_path.write_text("".join(lines))
    measures = [parse_measure("AP").with_params(rel=1)]
    assert score_run_file(read_qrels(qrels_path), run_path, measures, piece_bytes=2000) is None
    with pytest.raises(rankmeter.InputError, match=r"run.txt:1501: score 'nan'"):
        rankmeter.evaluate(str(qrels_path), str(run_path), "AP")


class _no_warning:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
