"""DataFrames with the column names other tools use, read without ``columns=``.

Each convention (ir_measures, PyTerrier, Microsoft Recommenders, user/item,
BEIR) in pandas, polars and Arrow gives the values of the same data as
dicts; an ambiguous or empty frame is an error that says what it found.
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

import rankmeter
from rankmeter import InputError
from rankmeter.io import as_qrels, as_run

MEASURES = ["AP", "nDCG@10", "RR", "P@5"]
RNG = np.random.default_rng(3)
Q = [f"q{i % 7}" for i in range(140)]
D = [f"d{i}" for i in RNG.permutation(140)]
REL = RNG.integers(0, 3, 140).tolist()
SCORE = np.round(RNG.normal(0, 1, 140), 1).tolist()

# (convention, qrels column names, run column names, extra run columns)
CONVENTIONS = [
    ("rankmeter", ("query", "doc", "rel"), ("query", "doc", "score"), {}),
    ("ir_measures", ("query_id", "doc_id", "relevance"), ("query_id", "doc_id", "score"), {}),
    ("PyTerrier", ("qid", "docno", "label"), ("qid", "docno", "score"),
     {"query": ["text of the query"] * 140, "docid": list(range(140)), "rank": list(range(140))}),
    ("Recommenders", ("userID", "itemID", "rating"), ("userID", "itemID", "prediction"), {"rating": REL}),
    ("user/item", ("user", "item", "rating"), ("user", "item", "score"), {}),
    ("BEIR", ("query-id", "corpus-id", "score"), ("query-id", "corpus-id", "score"), {}),
]


def _reference():
    qrels, run = {}, {}
    for q, d, r, s in zip(Q, D, REL, SCORE):
        qrels.setdefault(q, {})[d] = r
        run.setdefault(q, {})[d] = s
    return rankmeter.evaluate(qrels, run, MEASURES)


REFERENCE = _reference()


def _frames(lib, qnames, rnames, extra):
    qcols = dict(zip(qnames, (Q, D, REL)))
    rcols = {**dict(zip(rnames, (Q, D, SCORE))), **extra}
    if lib == "arrow":
        return pa.table(qcols), pa.table(rcols)
    mod = pytest.importorskip(lib)
    return mod.DataFrame(qcols), mod.DataFrame(rcols)


@pytest.mark.parametrize("lib", ["pandas", "polars", "arrow"])
@pytest.mark.parametrize("convention,qnames,rnames,extra", CONVENTIONS, ids=[c[0] for c in CONVENTIONS])
def test_conventions_are_recognised(lib, convention, qnames, rnames, extra):
    qrels, run = _frames(lib, qnames, rnames, extra)
    got = rankmeter.evaluate(qrels, run, MEASURES)
    assert got.queries == REFERENCE.queries
    for m in MEASURES:
        np.testing.assert_array_equal(got.values(m), REFERENCE.values(m), err_msg=m)


def test_rank_column_orders_a_run_without_scores():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"qid": ["q", "q", "q"], "docno": ["c", "a", "b"], "rank": [3, 1, 2]})
    got = rankmeter.evaluate({"q": {"a": 1}}, frame, ["RR"])
    assert got["RR"] == 1.0  # a is ranked first by its rank, though its row is second
    ranked = pd.DataFrame({"qid": ["q", "q"], "docno": ["b", "a"]})
    assert rankmeter.evaluate({"q": {"a": 1}}, ranked, ["RR"])["RR"] == 0.5  # row order


# (frame columns, kind, phrase of the message)
AMBIGUOUS = [
    ({"query": Q, "doc": D, "qid": Q, "docno": D, "score": SCORE}, "run",
     "ambiguous columns: this table has several query/doc pairs (query/doc, qid/docno)"),
    ({"query_id": Q, "doc_id": D, "label": REL, "rating": REL}, "qrels",
     "ambiguous columns: several could hold the grade (label, rating)"),
    ({"a": Q, "b": D, "c": SCORE}, "run", "cannot tell which columns hold the query and the doc (columns: a, b, c)"),
    ({"qid": Q, "docno": D, "score": SCORE}, "qrels", "no grade column (columns: qid, docno, score)"),
    ({"qid": Q, "docno": D, "label": REL}, "run", "looks like qrels; check the argument order"),
]


@pytest.mark.parametrize("columns,kind,phrase", AMBIGUOUS, ids=range(len(AMBIGUOUS)))
def test_ambiguous_frames_list_what_they_found(columns, kind, phrase):
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(columns)
    before = frame.copy(deep=True)
    with pytest.raises(InputError) as err:
        (as_qrels if kind == "qrels" else as_run)(frame)
    assert str(err.value).startswith("<pandas DataFrame>: ") and phrase in str(err.value)
    assert frame.equals(before)


def test_columns_settles_an_ambiguous_frame():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"query": Q, "doc": D, "qid": Q, "docno": D, "score": SCORE})
    assert len(as_run(frame, columns={"query": "qid", "doc": "docno"})) == 140
    with pytest.raises(InputError, match=r"columns=\{'query': 'topic'\}: no column 'topic'"):
        as_run(frame, columns={"query": "topic"})


@pytest.mark.parametrize("lib", ["pandas", "polars", "arrow"])
def test_an_empty_frame_is_an_error_like_an_empty_dict(lib):
    qrels, run = _frames(lib, ("query", "doc", "rel"), ("query", "doc", "score"), {})
    empty_q, empty_r = qrels.slice(0, 0) if lib == "arrow" else qrels.head(0), \
        run.slice(0, 0) if lib == "arrow" else run.head(0)
    with pytest.raises(InputError, match="no judgments: the table has no rows"):
        rankmeter.evaluate(empty_q, run, ["AP"])
    with pytest.raises(InputError, match="no results: the table has no rows"):
        rankmeter.evaluate(qrels, empty_r, ["AP"])
    with pytest.raises(InputError, match="no judgments"):
        rankmeter.evaluate({}, run, ["AP"])
