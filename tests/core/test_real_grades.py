"""Real-valued grades (``grades="real"``): reading them, scoring them, refusing what needs integers.

Oracles: scikit-learn's ``dcg_score`` / ``ndcg_score`` (they take real-valued
relevance), binary measures against the same qrels thresholded by hand, and
ERR worked by hand. The registry-wide sweep (tests/measures/test_registry_sweep.py)
checks every family that declares real grades against its reference.
"""
from __future__ import annotations

import gzip
import io
import math
import warnings

import numpy as np
import pytest

import rankmeter
from rankmeter import InputError, MeasureError, ParameterError
from cli_runner import run_cli_in_process  # noqa: E402  (tests/ is on sys.path: tests/conftest.py)


def _random(seed: int, *, every_judged_doc_ranked: bool = False):
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for qi in range(30):
        q = f"q{qi}"
        docs = [f"d{j}" for j in range(int(rng.integers(2, 25)))]
        qrels[q] = {d: float(np.round(rng.choice([0.0, 0.0, rng.uniform(0, 3)]), 3)) for d in docs}
        extra = [f"x{j}" for j in range(int(rng.integers(0, 6)))]
        pool = docs + extra if every_judged_doc_ranked else list(rng.permutation(docs + extra))[: int(rng.integers(1, len(docs) + 1))]
        scores = rng.permutation(len(pool)).astype(float)  # distinct scores: no ties for sklearn to average
        run[q] = {d: float(s) for d, s in zip(pool, scores)}
    return qrels, run


def _evaluate(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rankmeter.evaluate(*args, **kwargs)


@pytest.mark.parametrize("k", [3, 10, None])
def test_dcg_and_ndcg_equal_scikit_learn_on_real_grades(k):
    metrics = pytest.importorskip("sklearn.metrics")
    qrels, run = _random(1, every_judged_doc_ranked=True)
    at = "" if k is None else f"@{k}"
    result = _evaluate(qrels, run, [f"nDCG{at}", f"DCG{at}"], grades="real")
    for i, q in enumerate(result.queries):
        docs = list(run[q])
        truth = [[qrels[q].get(d, 0.0) for d in docs]]
        scores = [[run[q][d] for d in docs]]
        want_dcg = metrics.dcg_score(truth, scores, k=k, ignore_ties=True)
        assert result.values(f"DCG{at}")[i] == pytest.approx(want_dcg, rel=1e-12, abs=1e-12)
        if max(truth[0]) > 0:  # scikit-learn's nDCG of an all-zero query is 0 too, with a warning
            want = metrics.ndcg_score(truth, scores, k=k, ignore_ties=True)
            assert result.values(f"nDCG{at}")[i] == pytest.approx(want, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("threshold", [0.5, 1, 2.25])
def test_binary_measures_threshold_real_grades_at_rel(threshold):
    """P, R, AP, RR, bpref ... on real grades at rel=t equal the same qrels made binary (g >= t) by hand."""
    qrels, run = _random(2)
    measures = ["P@5", "R@10", "AP", "RR", "Bpref", "Success@3", "Rprec", "infAP", "Hits@5", "F1@10"]
    real = _evaluate(qrels, run, measures, grades="real", rel=threshold)
    binary = {q: {d: int(g >= threshold) for d, g in judged.items()} for q, judged in qrels.items()}
    plain = _evaluate(binary, run, measures)
    for m in measures:
        np.testing.assert_allclose(real.values(m), plain.values(m), rtol=0, atol=1e-15, err_msg=m)


def test_err_worked_by_hand_on_real_grades():
    # R(g) = (2^g - 1) / 2^g_max with g_max = 2.5, the highest grade of the qrels; p = 1:
    # ERR@2 = R(2.5) / 1 + (1 - R(2.5)) R(0.7) / 2 at rel=0.5; at the default rel=1 grade 0.7 counts 0
    qrels = {"q": {"a": 2.5, "b": 0.7, "c": 0.0}}
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    r1, r2 = (2 ** 2.5 - 1) / 2 ** 2.5, (2 ** 0.7 - 1) / 2 ** 2.5
    got = _evaluate(qrels, run, ["ERR@2"], grades="real", rel=0.5).values("ERR@2")[0]
    assert got == pytest.approx(r1 + (1 - r1) * r2 / 2, rel=1e-12)
    assert _evaluate(qrels, run, ["ERR@2"], grades="real").values("ERR@2")[0] == pytest.approx(r1, rel=1e-12)
    # the default relevance threshold (rel=1) makes b (0.7) non-relevant for the binary measures
    assert _evaluate(qrels, run, ["P@2"], grades="real").values("P@2")[0] == 0.5


def test_graded_rbp_and_cwl_scale_by_the_real_top_grade():
    # RBP(p=0.5, gain=graded): (1 - p) * (g1 / top + p * g2 / top), top = the query's highest grade 2.5
    qrels = {"q": {"a": 2.5, "b": 0.7}}
    run = {"q": {"b": 2.0, "a": 1.0}}
    name = "RBP(p=0.5,gain=graded,rel=0.5)"
    got = _evaluate(qrels, run, [name], grades="real").values(name)[0]
    assert got == pytest.approx(0.5 * (0.7 / 2.5 + 0.5 * 1.0), rel=1e-12)
    # SDCG@2 (C/W/L): gains scaled by the qrels' top grade, discount 1/log2(i+1) normalised over k
    got = _evaluate(qrels, run, ["SDCG@2"], grades="real").values("SDCG@2")[0]
    norm = 1 + 1 / math.log2(3)
    assert got == pytest.approx((0.7 / 2.5 + 1.0 / math.log2(3)) / norm, rel=1e-12)


def test_readers_keep_real_grades(tmp_path):
    text = "q1 0 a 2.5\nq1 0 b 0.75\nq1 0 c 0\nq2 0 x 1e-1\n"
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"query_id": ["q1", "q1", "q1", "q2"], "doc_id": ["a", "b", "c", "x"],
                          "relevance": [2.5, 0.75, 0.0, 0.1]})
    (tmp_path / "q.txt").write_text(text)
    (tmp_path / "q.gz").write_bytes(gzip.compress(text.encode()))
    (tmp_path / "q.tsv").write_text("query-id\tcorpus-id\tscore\n" + "".join(
        f"{r.query_id}\t{r.doc_id}\t{r.relevance}\n" for r in frame.itertuples()))
    frame.to_parquet(tmp_path / "q.parquet")
    frame.to_json(tmp_path / "q.jsonl", orient="records", lines=True)
    sources = [tmp_path / f"q.{ext}" for ext in ("txt", "gz", "tsv", "parquet", "jsonl")]
    sources += [io.BytesIO(text.encode()), frame,
                {"q1": {"a": 2.5, "b": 0.75, "c": 0}, "q2": {"x": 0.1}}]
    for source in sources:
        qrels = rankmeter.io.as_qrels(source, grades="real")
        assert qrels.real_grades, source
        got = dict(zip(zip(qrels.table.column("query").to_pylist(), qrels.table.column("doc").to_pylist()),
                       qrels.table.column("rel").to_pylist()))
        assert got == {(b"q1", b"a"): 2.5, (b"q1", b"b"): 0.75, (b"q1", b"c"): 0.0, (b"q2", b"x"): 0.1}, source
    # integer reading still refuses them, naming the line and both ways out
    with pytest.raises(InputError, match=r"q.txt:1: grade '2.5' is not an integer.*grades='real'"):
        rankmeter.read_qrels(tmp_path / "q.txt")
    with pytest.raises(InputError, match=r"<stream>:2: grade 'high' is not a number"):
        rankmeter.read_qrels(io.BytesIO(b"q1 0 a 1\nq1 0 b high\n"), grades="real")
    with pytest.raises(InputError, match="is not a finite grade"):
        rankmeter.read_qrels(io.BytesIO(b"q1,a,nan\n"), grades="real", input_format="csv",
                             columns={"query": 0, "doc": 1, "rel": 2})
    with pytest.raises(ParameterError, match="pass one of the two"):
        rankmeter.read_qrels(tmp_path / "q.txt", grades="real", truncate_grades=True)


def test_a_big_real_graded_file_reads_in_blocks(tmp_path):
    """A qrels file past the big-file size keeps its real grades (read in blocks as it streams in)."""
    from rankmeter.io.compiled import FILE_MIN_BYTES as DIRECT_MIN_BYTES

    rng = np.random.default_rng(4)
    line = "q{} 0 doc{} {}\n"
    n = DIRECT_MIN_BYTES // 20 + 1000
    grades = np.round(rng.uniform(0, 3, n), 3)
    path = tmp_path / "big.qrels"
    path.write_text("".join(line.format(i // 500, i, g) for i, g in enumerate(grades)))
    assert path.stat().st_size >= DIRECT_MIN_BYTES
    qrels = rankmeter.read_qrels(path, grades="real")
    np.testing.assert_array_equal(qrels.table.column("rel").to_numpy(), grades)


def test_measures_defined_on_integer_grades_are_refused():
    qrels = {"q": {"a": 2.5, "b": 0.5}}
    run = {"q": {"a": 1.0}}
    with pytest.raises(MeasureError, match=r"G is defined on integer grades only; .*nDCG"):
        rankmeter.evaluate(qrels, run, ["G"], grades="real")
    with pytest.raises(MeasureError, match="a gain map is keyed by integer grades"):
        rankmeter.evaluate(qrels, run, ["nDCG(gain={1: 2, 2: 5})"], grades="real")
    with pytest.raises(InputError, match="not an integer"):
        rankmeter.evaluate(qrels, run, ["nDCG"])  # real grades are an explicit opt-in


def test_integer_grades_read_as_real_score_the_same():
    qrels, run = _random(5)
    integer = {q: {d: int(round(g)) for d, g in judged.items()} for q, judged in qrels.items()}
    names = ["nDCG@10", "ERR@10", "AP", "P@5", "RBP", "SDCG@5", "alpha_nDCG@5", "Compat", "AUC"]
    plain = _evaluate(integer, run, names)
    real = _evaluate(integer, run, names, grades="real")
    for m in names:
        np.testing.assert_allclose(real.values(m), plain.values(m), rtol=1e-14, atol=1e-15, err_msg=m)


_cli = run_cli_in_process


def test_cli_reads_real_grades_only_when_asked(tmp_path):
    (tmp_path / "q").write_text("q1 0 a 2.5\nq1 0 b 0.7\nq1 0 c 0\n")
    (tmp_path / "r").write_text("q1 Q0 b 1 3 t\nq1 Q0 a 2 2 t\nq1 Q0 c 3 1 t\n")
    done = _cli("eval", str(tmp_path / "q"), str(tmp_path / "r"), "-m", "DCG@3", "-m", "P(rel=0.5)@2",
                "--grades", "real", "--format", "json")
    assert done.returncode == 0, done.stderr
    import json
    means = json.loads(done.stdout)
    text = json.dumps(means)
    assert str(round(0.7 + 2.5 / math.log2(3), 4)) in text  # DCG@3 = 0.7/log2(2) + 2.5/log2(3)
    refused = _cli("eval", str(tmp_path / "q"), str(tmp_path / "r"), "-m", "DCG@3")
    assert refused.returncode == 2 and "--grades real" in refused.stderr and "Traceback" not in refused.stderr
    trec = _cli("trec_eval", str(tmp_path / "q"), str(tmp_path / "r"))
    assert trec.returncode == 2 and "is not an integer" in trec.stderr


def test_explain_shows_real_grades_and_its_value_is_the_evaluated_one():
    qrels, run = _random(6)
    names = ["nDCG@5", "ERR@5", "AP", "RBP", "P(rel=0.5)@3", "DCG(gain=exp)@4"]
    result = _evaluate(qrels, run, names, grades="real", rel=0.5)
    for m in names:
        for i, q in enumerate(result.queries[:5]):
            explained = rankmeter.explain(qrels, run, m, q, grades="real", rel=0.5)
            assert explained.value == pytest.approx(result.values(m)[i], rel=1e-12, abs=1e-15), (m, q)
    q = result.queries[0]
    shown = str(rankmeter.explain(qrels, run, "nDCG@5", q, grades="real"))
    fractional = [g for d, g in qrels[q].items() if d in run[q] and not float(g).is_integer()]
    assert any(f"{g:g}" in shown for g in fractional)
