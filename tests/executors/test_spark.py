"""Spark DataFrames: the same numbers as the local engine, on a local[2] session.

The reference for every value is the local engine on the same rows (itself
checked against trec_eval's golden files), plus a few values worked by hand.
One Spark session serves the whole test run; the tests that need it are
skipped, saying why, when pyspark or Java is missing.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import warnings

import numpy as np
import pyarrow as pa
import pytest

import rankmeter
from rankmeter import InputError, ParameterError

from optional_packages import optional  # noqa: E402  (tests/ is on sys.path: tests/conftest.py)

pyspark = optional("pyspark", reason="pyspark is not installed (pip install pyspark)")
JAVA = bool(shutil.which("java") or os.environ.get("JAVA_HOME"))

import rankmeter.executors.spark.scoring as rspark  # noqa: E402
from rankmeter.core.needs import needs_of  # noqa: E402
from rankmeter.recsys import feedback as recsys  # noqa: E402
from rankmeter.measures.trec_eval import NICKNAMES, expand  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:.*pandas.*:FutureWarning",
                                        "ignore:Deprecated in 3.0.0:FutureWarning")


@pytest.fixture(scope="session")
def spark():
    if not pyspark:  # every Spark test takes this fixture: they skip, saying why; the others run
        pytest.skip(pyspark.reason)
    if not JAVA:
        pytest.skip("Spark needs Java (java on PATH or JAVA_HOME); none found")
    from pyspark.sql import SparkSession
    session = (SparkSession.builder.master("local[2]").appName("rankmeter-tests")
               .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "4")
               .config("spark.sql.execution.arrow.maxRecordsPerBatch", "7")  # several batches per task
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def synthetic(seed: int = 3) -> tuple[pa.Table, pa.Table]:
    """Graded qrels (-1..3, one grade 4 on a query the run lacks) and a run with tied scores.

    q00-q26 are in both; q27-q29 only in the qrels (q28 holds the only grade 4,
    so ERR's whole-qrels g_max differs from the scored queries' one); q90 and
    q91 only in the run.
    """
    rng = np.random.default_rng(seed)
    docs = np.array([f"d{i:03d}" for i in range(200)])
    rq, rd, rs, qq, qd, qr = [], [], [], [], [], []
    for i in list(range(27)) + [90, 91]:
        n = int(rng.integers(5, 60))
        picked = rng.choice(200, size=n, replace=False)
        rq += [f"q{i:02d}"] * n
        rd += docs[picked].tolist()
        rs += np.round(rng.normal(5, 2, size=n), 1).tolist()  # rounding makes ties
    for i in range(30):
        n = int(rng.integers(3, 25))
        picked = rng.choice(200, size=n, replace=False)
        qq += [f"q{i:02d}"] * n
        qd += docs[picked].tolist()
        qr += rng.choice([-1, 0, 0, 1, 1, 2, 3], size=n).tolist()
    qr[qq.index("q28")] = 4
    qrels = pa.table({"query": qq, "doc": qd, "rel": pa.array(qr, pa.int64())})
    run = pa.table({"query": rq, "doc": rd, "score": rs})
    return qrels, run


QRELS, RUN = synthetic()
ALL_TREC = [m for _, _, m in expand(NICKNAMES["all_trec"]) if m is not None]
EXTRA = ["nDCG(gain=exp)@5", "ERR@10", "nERR@10", "AP(denom=min)@10", "RBP(p=0.5)", "Success@3"]


def frames(spark, qrels=QRELS, run=RUN):
    return spark.createDataFrame(qrels), spark.createDataFrame(run)


def same(spark_results, local, names):
    """Per-query values identical; means equal up to the order of summation."""
    collected = spark_results.collect()
    assert collected.queries == local.queries
    for name in names:
        a, b = collected.values(name), local.values(name)
        assert a.dtype.kind == b.dtype.kind or {a.dtype.kind, b.dtype.kind} <= {"i", "u"}
        assert a.tolist() == b.tolist(), name
        expected = local[name]
        if expected is None or isinstance(expected, int):
            assert spark_results[name] == expected, name
        else:
            assert spark_results[name] == pytest.approx(expected, rel=1e-12, abs=1e-15), name


@pytest.mark.parametrize("queries", ["both", "qrels"])
def test_every_trec_eval_measure_matches_the_local_engine(spark, queries):
    q, r = frames(spark)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        local = rankmeter.evaluate(QRELS, RUN, ALL_TREC + EXTRA, queries=queries)
        remote = rankmeter.evaluate(q, r, ALL_TREC + EXTRA, queries=queries)
    assert isinstance(remote, rspark.SparkResults)
    same(remote, local, list(dict.fromkeys(str(m) for m in ALL_TREC)) + EXTRA)
    expected = {"both": 27, "qrels": 30}[queries]
    assert remote.counts == {"scored": expected, "missing_from_run": 3 if queries == "both" else 0,
                             "only_in_run": 2}


def test_options_pass_through(spark, monkeypatch):
    monkeypatch.setattr(rspark, "CHUNK_ROWS", 50)  # tasks score many small chunks
    q, r = frames(spark)
    names = ["AP", "P@5", "nDCG@10", "Bpref", "NumRet", "RelString@8", "ERR@5"]
    for opts in ({"rel": 2}, {"judged_only": True}, {"max_docs": 3}, {"rel": 2, "max_docs": 7, "queries": "qrels"}):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            same(rankmeter.evaluate(q, r, names, partitions=3, **opts),
                 rankmeter.evaluate(QRELS, RUN, names, **opts), names)


def test_partitions_set_the_number_of_scoring_tasks(spark):
    """partitions= repartitions the grouped rows (one per query), not the input rows."""
    from rankmeter.executors.spark.frames import grouped_frame
    q, r = frames(spark)
    grouped = grouped_frame(q, r, partitions=5)
    assert grouped.rdd.getNumPartitions() == 5
    rows = grouped.collect()
    assert len(rows) == len({row["query"] for row in rows}) == 32  # q00-q29 and the run's q90, q91


def test_hand_computed_values_and_the_results_object(spark):
    # q1: ranking a(0.9) e(0.8) b(0.8) c(0.5): ties by docno descending put e before b.
    # relevant a, c, d -> AP = (1/1 + 2/4) / 3 = 0.5; q2: y, x with x relevant -> AP = 0.5.
    qrels = spark.createDataFrame([("q1", "a", 2), ("q1", "b", 0), ("q1", "c", 1), ("q1", "d", 1),
                                   ("q2", "x", 1), ("q2", "y", 0), ("q3", "m", 1)], "query string, doc string, rel int")
    run = spark.createDataFrame([("q1", "a", 0.9), ("q1", "b", 0.8), ("q1", "e", 0.8), ("q1", "c", 0.5),
                                 ("q2", "y", 2.0), ("q2", "x", 1.0), ("q9", "a", 1.0)],
                                "query string, doc string, score double")
    with pytest.warns(UserWarning, match=r"1 judged queries have no results in the run .*: q3"):
        r = rankmeter.evaluate(qrels, run, ["AP", "map", "P@2", "NumRel", "RelString@4"])
    assert r["AP"] == r["map"] == pytest.approx(0.5)
    assert r["P@2"] == pytest.approx(0.5) and r["NumRel"] == 4 and isinstance(r["NumRel"], int)
    assert r.mean["RelString@4"] is None
    assert r.queries == ["q1", "q2"]
    assert r.values("AP").tolist() == [0.5, 0.5]
    assert r.values("RelString@4").tolist() == ["2-01", "01"]
    per = r.per_query_spark
    assert per.columns == ["query", "AP", "map", "P@2", "NumRel", "RelString@4"]
    assert sorted(tuple(row)[:2] for row in per.collect()) == [("q1", 0.5), ("q2", 0.5)]
    assert r.to_dict(per_query=True)["per_query"][0] == {"query": "q1", "AP": 0.5, "map": 0.5, "P@2": 0.5,
                                                         "NumRel": 3, "RelString@4": "2-01"}
    assert "SparkResults(2 queries" in repr(r)
    assert r.to_arrow().column_names == ["query", "AP", "map", "P@2", "NumRel", "RelString@4"]
    assert r.ids == [b"q1", b"q2"] and r.query_ids(order="bytes") == [b"q1", b"q2"]
    assert r.values("AP", order="bytes").tolist() == [0.5, 0.5]
    both = r
    r = rankmeter.evaluate(qrels, run, ["AP", "NumRel"], queries="qrels")
    assert r.queries == ["q1", "q2", "q3"] and r["AP"] == pytest.approx(1 / 3) and r["NumRel"] == 5
    # a text table of runs over different query sets counts each one's queries (Spark's as the local ones)
    import io

    from rankmeter.report.text import print_results
    out = io.StringIO()
    print_results([both, r], ["both", "qrels"], format="csv", out=out)
    rows = [line.split(",") for line in out.getvalue().splitlines()]
    assert rows[0][-1] == "queries" and [row[-1] for row in rows[1:]] == ["2", "3"]


def test_err_uses_the_highest_grade_of_the_whole_qrels(spark):
    # q28, left out (the run lacks it), holds the only grade 4: g_max stays 4 for the others.
    q, r = frames(spark)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        remote = rankmeter.evaluate(q, r, ["ERR@10"])
        local = rankmeter.evaluate(QRELS, RUN, ["ERR@10"])
        capped = rankmeter.evaluate(QRELS, RUN, ["ERR(max_grade=3)@10"])
    assert remote.values("ERR@10").tolist() == local.values("ERR@10").tolist()
    assert remote["ERR@10"] != pytest.approx(capped["ERR(max_grade=3)@10"])
    assert needs_of([rankmeter.parse_measure("ERR@10")]) == ["qrels_max_grade"]
    assert needs_of([rankmeter.parse_measure(m) for m in ("AP", "nDCG@10", "P@5")]) == []


def test_real_grades_on_spark_equal_the_local_engine(spark):
    """grades='real': Spark reads the qrels frame's fractional grades; ERR's g_max is the real top grade."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(8)
    rows = [(f"q{q}", f"d{d}", float(np.round(rng.uniform(0, 3), 2))) for q in range(12) for d in range(8)]
    qrels = pd.DataFrame(rows, columns=["query", "doc", "rel"])
    run = pd.DataFrame([(q, d, float(rng.random())) for q, d, _ in rows if rng.random() < 0.7],
                       columns=["query", "doc", "score"])
    names = ["nDCG@5", "ERR@5", "P(rel=1.5)@3", "AP", "SDCG@5"]
    remote = rankmeter.evaluate(spark.createDataFrame(qrels), spark.createDataFrame(run), names,
                                grades="real").collect()
    local = rankmeter.evaluate(qrels, run, names, grades="real")
    assert remote.queries == local.queries
    for m in names:
        np.testing.assert_allclose(remote.values(m), local.values(m), rtol=1e-12, err_msg=m)
    with pytest.raises(rankmeter.InputError, match="not an integer grade"):
        rankmeter.evaluate(spark.createDataFrame(qrels), spark.createDataFrame(run), names).collect()


def test_diversity_qrels_on_spark_equal_the_local_engine(spark):
    """A subtopic column (ir_measures' ``iteration``) reaches each task: the diversity families and the
    ordinary ones (a doc judged under several subtopics read once, at its highest grade) as locally."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(12)
    rows = [(f"q{q}", str(s), f"d{d}", int(rng.integers(0, 3))) for q in range(15)
            for s in range(1, int(rng.integers(2, 5))) for d in rng.choice(12, size=6, replace=False)]
    qrels = pd.DataFrame(rows, columns=["query", "iteration", "doc", "rel"])
    run = pd.DataFrame([(f"q{q}", f"d{d}", float(rng.random())) for q in range(16) for d in range(10)],
                       columns=["query", "doc", "score"])
    intents = {"q1": {"1": 0.7, "2": 0.3}}
    names = ["alpha_nDCG@5", "ERR_IA@5", "nNRBP", "P_IA@5", "StRecall@10", "AP_IA", "nDCG@5", "AP"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        remote = rankmeter.evaluate(spark.createDataFrame(qrels), spark.createDataFrame(run), names,
                                    intents=intents).collect()
        local = rankmeter.evaluate(qrels, run, names, intents=intents)
    assert remote.queries == local.queries
    for m in names:
        np.testing.assert_allclose(remote.values(m), local.values(m), rtol=1e-12, err_msg=m)
    assert local["alpha_nDCG@5"] != local["nDCG@5"]


def test_column_names_integer_ids_and_mixed_inputs(spark):
    rng = np.random.default_rng(5)
    users = np.repeat(np.arange(20), 12)
    items = np.concatenate([rng.choice(100, 12, replace=False) for _ in range(20)])
    preds = pa.table({"user": users, "item": items, "prediction": np.round(rng.random(240), 2)})
    truth = pa.table({"user": users[::3], "item": items[::3], "rating": rng.integers(0, 3, 80)})
    cols = {"query": "user", "doc": "item", "rel": "rating", "score": "prediction"}
    local = rankmeter.evaluate(rankmeter.io.as_qrels(truth, columns=cols), rankmeter.io.as_run(preds, columns=cols),
                               ["AP", "nDCG@5", "RR"])
    remote = rankmeter.evaluate(spark.createDataFrame(truth), spark.createDataFrame(preds), ["AP", "nDCG@5", "RR"],
                             columns=cols)
    same(remote, local, ["AP", "nDCG@5", "RR"])
    # ids as text on one side and integers on the other compare as text, as everywhere
    as_text = truth.set_column(0, "user", truth.column("user").cast(pa.string()))
    mixed = rankmeter.evaluate(spark.createDataFrame(as_text), spark.createDataFrame(preds), ["AP", "nDCG@5", "RR"],
                            columns=cols)
    same(mixed, local, ["AP", "nDCG@5", "RR"])
    # ids as bytes on one side compare as the UTF-8 bytes of the other side's text
    as_bytes = truth.set_column(0, "user", truth.column("user").cast(pa.string()).cast(pa.binary()))
    same(rankmeter.evaluate(spark.createDataFrame(as_bytes), spark.createDataFrame(preds), ["AP", "RR"], columns=cols),
         local, ["AP", "RR"])
    # a local qrels dict with a Spark run
    qdict = {str(u): {} for u in range(20)}
    for u, i, g in zip(*(truth.column(c).to_pylist() for c in ("user", "item", "rating"))):
        qdict[str(u)][str(i)] = g
    run_df = spark.createDataFrame(preds).withColumnRenamed("user", "query").withColumnRenamed("item", "doc") \
        .withColumnRenamed("prediction", "score")
    same(rankmeter.evaluate(qdict, run_df, ["AP", "nDCG@5"]), local, ["AP", "nDCG@5"])


def test_errors_come_back_as_rankmeter_errors(spark):
    q, r = frames(spark)
    dup = spark.createDataFrame(pa.concat_tables([RUN, RUN.slice(0, 1)]))
    with pytest.raises(InputError, match=r"Spark run DataFrame.*appears twice for query q00"):
        rankmeter.evaluate(q, dup, "AP")
    nulls = spark.createDataFrame([("q00", "d001", None), ("q00", "d002", 1.0)], "query string, doc string, score double")
    with pytest.raises(InputError, match="missing .null. doc or score"):
        rankmeter.evaluate(q, nulls, "AP")
    with pytest.raises(InputError, match=r"no column 'score'.*topk_run"):
        rankmeter.evaluate(q, r.drop("score"), "AP")
    with pytest.raises(InputError, match="looks like qrels"):
        rankmeter.evaluate(q, q, "AP")
    with pytest.raises(InputError, match=r"no column 'qid'"):
        rankmeter.evaluate(q, r, "AP", columns={"query": "qid"})
    with pytest.raises(InputError, match="ids are strings, bytes or integers"):
        rankmeter.evaluate(q, r.withColumn("doc", r.score), "AP")
    half = spark.createDataFrame([("q00", "d001", 1.5)], "query string, doc string, rel double")
    with pytest.raises(InputError, match="not an integer grade"):
        rankmeter.evaluate(half, r, "AP")
    assert rankmeter.evaluate(half, r, "AP", truncate_grades=True).counts["scored"] == 1
    with pytest.raises(ParameterError, match="ties='input'"):
        rankmeter.evaluate(q, r, "AP", ties="input")
    with pytest.raises(ParameterError, match="queries="):
        rankmeter.evaluate(q, r, "AP", queries="run")


def test_task_errors_come_back_as_data_not_exception_text(spark):
    """A task reports a rankmeter error as a FAILED row; the driver raises the same class with the same parts."""
    q, r = frames(spark)
    dup = spark.createDataFrame(pa.concat_tables([RUN, RUN.slice(0, 1)]))
    with pytest.raises(InputError) as caught:
        rankmeter.evaluate(q, dup, "AP")
    assert caught.value.source == "<Spark run DataFrame>" and "appears twice for query q00" in caught.value.message
    assert caught.value.__cause__ is None and caught.value.__context__ is None  # not unwrapped from a Spark error
    # raised inside the tasks (each builds its own Evaluator), not on the driver: a MeasureError stays one
    real = spark.createDataFrame(QRELS.set_column(2, "rel", QRELS.column("rel").cast(pa.float64())))
    with pytest.raises(rankmeter.MeasureError, match="grades='real': G is defined on integer grades only"):
        rankmeter.evaluate(real, r, ["AP", "G"], grades="real")


@pytest.mark.parametrize("error", [
    InputError("doc 'd1' appears twice for query q1", source="<Spark run DataFrame>", hint="dedupe it"),
    InputError("bad grade", source="qrels.txt", line=(3, 9)),
    InputError("bad row", source="<DataFrame>", row=4),
    ParameterError("ties='input': Spark DataFrames keep no row order"),
    rankmeter.MeasureError("grades='real': G is defined on integer grades only"),
])
def test_error_rows_rebuild_the_same_error(error):
    rebuilt = rspark.error_from_row(rspark.error_row(error))
    assert type(rebuilt) is type(error) and str(rebuilt) == str(error)
    if isinstance(error, InputError):
        assert (rebuilt.message, rebuilt.source, rebuilt.line, rebuilt.row, rebuilt.hint) == \
            (error.message, error.source, error.line, error.row, error.hint)


def test_recsys_helpers_on_spark_match_local(spark):
    truth = {"u1": ["a", "b", "a"], "u2": ["c"], "u3": ["z"]}          # u3: truth only
    recs = {"u1": ["x", "a", "y", "b"], "u2": ["c", "a"], "u4": ["a"]}  # u4: predictions only
    rows = [(u, i) for u, items in truth.items() for i in items]
    inter = spark.createDataFrame(rows, "user string, item string")
    lists = spark.createDataFrame(list(recs.items()), "user string, recs array<string>")
    qrels_df = recsys.implicit_qrels(inter)
    run_df = recsys.topk_run(lists, items="recs", k=3)
    assert sorted(tuple(r) for r in recsys.truncate(run_df, 1).collect()) == \
        [("u1", "x", 0.0), ("u2", "c", 0.0), ("u4", "a", 0.0)]
    with pytest.warns(UserWarning) as caught:
        remote = recsys.evaluate(qrels_df, run_df, ["P@3", "R@3", "RR"], queries="qrels")
    assert any("1 users have predictions but no truth" in str(w.message) for w in caught)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        local = recsys.evaluate(truth, recs, ["P@3", "R@3", "RR"], k=3, queries="qrels")
    same(remote, local, ["P@3", "R@3", "RR"])
    # by hand: u1 top 3 = x, a, y (a relevant; R = 2) -> P@3 1/3, R@3 1/2, RR 1/2; u2: c first -> 1/3, 1, 1;
    # u3 has no predictions and scores 0 under queries="qrels"
    assert remote.values("RR").tolist() == [0.5, 1.0, 0.0]
    assert remote["R@3"] == pytest.approx((0.5 + 1.0 + 0.0) / 3)


def test_als_style_struct_lists(spark):
    df = spark.createDataFrame([(1, [(7, 0.9), (3, 0.8)]), (2, [(3, 0.5)])],
                               "user int, recommendations array<struct<item:int,rating:float>>")
    run_df = recsys.topk_run(df, items="recommendations")
    assert sorted(tuple(r) for r in run_df.collect()) == [(1, 3, -1.0), (1, 7, 0.0), (2, 3, 0.0)]


def test_rankmeter_import_does_not_load_pyspark():
    code = "import sys, rankmeter, rankmeter.api, rankmeter.recsys.feedback, rankmeter.executors.spark; print('pyspark' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
