"""The leaderboard's readers: one shape from every format; missing cells refused or dropped; hostile input named."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from rankmeter.errors import InputError, ParameterError
from rankmeter.leaderboard.inputs import read_scores

ROWS = [  # system, collection, query, measure, value
    ("A", "x", "q1", "AP", 0.5), ("B", "x", "q1", "AP", 0.25), ("A", "x", "q2", "AP", 1.0), ("B", "x", "q2", "AP", 0.0),
    ("A", "y", "q1", "AP", 0.75), ("B", "y", "q1", "AP", 0.5),
]
COLUMNS = ["system", "collection", "query", "measure", "value"]


def _frame(rows=ROWS):
    return pd.DataFrame(rows, columns=COLUMNS)


def _check(scores):
    assert scores.systems == ["A", "B"] and scores.collections == ["x", "y"] and scores.measures == ["AP"]
    assert scores.queries == [["q1", "q2"], ["q1"]]
    assert scores.blocks[0][:, 0, :].tolist() == [[0.5, 0.25], [1.0, 0.0]]
    assert scores.collection_means()[:, 0, :].tolist() == [[0.75, 0.125], [0.75, 0.5]]
    assert scores.per_query and scores.notes == []


@pytest.mark.parametrize("fmt", ["csv", "tsv", "parquet", "jsonl", "frame", "arrow"])
def test_every_format_reads_to_the_same_blocks(fmt, tmp_path):
    frame = _frame()
    if fmt == "frame":
        source = frame
    elif fmt == "arrow":
        source = pa.Table.from_pandas(frame)
    else:
        source = tmp_path / f"values.{fmt}"
        if fmt == "csv":
            frame.to_csv(source, index=False)
        elif fmt == "tsv":
            frame.to_csv(source, index=False, sep="\t")
        elif fmt == "parquet":
            pq.write_table(pa.Table.from_pandas(frame), source)
        else:
            source.write_text("".join(json.dumps(dict(zip(COLUMNS, r))) + "\n" for r in ROWS))
    _check(read_scores(source))


def test_aliases_and_case_of_column_names(tmp_path):
    path = tmp_path / "mteb.csv"
    path.write_text("Model,Task,Metric,Score\nA,x,ndcg,0.5\nB,x,ndcg,0.4\nA,y,ndcg,0.3\nB,y,ndcg,0.2\n")
    scores = read_scores(path)
    assert not scores.per_query and scores.systems == ["A", "B"] and scores.collections == ["x", "y"]
    assert [b.tolist() for b in scores.blocks] == [[[[0.5, 0.4]]], [[[0.3, 0.2]]]]


def test_missing_cells_are_refused_with_the_cells_named():
    rows = [r for r in ROWS if not (r[0] == "B" and r[1] == "y")] + [("B", "x", "q3", "AP", 0.1), ("A", "x", "q3", "AP", 0.2)]
    rows = [r for r in rows if not (r[0] == "B" and r[2] == "q2")]
    with pytest.raises(InputError) as err:
        read_scores(_frame(rows))
    text = str(err.value)
    assert "'B' has no AP for collection 'y'" in text
    assert "'B' lacks 1 of 3 queries of 'x' (AP: 'q2')" in text
    assert "missing='drop'" in text


def test_drop_keeps_the_collections_and_queries_every_system_has_and_says_so():
    rows = [r for r in ROWS if not (r[0] == "B" and r[1] == "y")]
    rows = [r for r in rows if not (r[0] == "B" and r[2] == "q2")]
    scores = read_scores(_frame(rows), missing="drop")
    assert scores.collections == ["x"] and scores.queries == [["q1"]]
    assert scores.notes == ["collection 'x': 1 of 2 queries left out (not every system has them)",
                            "collection 'y' left out: 'B' has no AP there"]


def test_a_cell_given_twice_is_refused_with_its_lines(tmp_path):
    path = tmp_path / "twice.csv"
    path.write_text("system,collection,query,measure,value\nA,x,q1,AP,0.5\nB,x,q1,AP,0.4\nA,x,q1,AP,0.6\n")
    with pytest.raises(InputError, match=r"twice.csv:2 and 4: system 'A', collection 'x', query 'q1', "
                                         r"measure 'AP' is given twice"):
        read_scores(path)


@pytest.mark.parametrize("value, message", [("nan", r"twice.csv:3: 'value' is nan, not a finite number"),
                                            ("inf", r"twice.csv:3: 'value' is inf, not a finite number"),
                                            ("high", r"twice.csv:3: 'value' is 'high', not a number")])
def test_values_must_be_finite_numbers(value, message, tmp_path):
    path = tmp_path / "twice.csv"
    path.write_text(f"system,collection,query,measure,value\nA,x,q1,AP,0.5\nB,x,q1,AP,{value}\n")
    with pytest.raises(InputError, match=message):
        read_scores(path)


def test_structure_errors_name_the_field(tmp_path):
    with pytest.raises(InputError, match="no collection, measure column"):
        read_scores(pd.DataFrame({"system": ["A"], "value": [1.0]}))
    with pytest.raises(InputError, match="columns 'system', 'model' all read as 'system'"):
        read_scores(pd.DataFrame({"system": ["A"], "model": ["A"], "collection": ["x"], "measure": ["m"],
                                  "value": [1.0]}))
    with pytest.raises(ParameterError, match=r"measures 'nDCG' are not in <DataFrame> \(it has: 'AP'\)"):
        read_scores(_frame(), ["nDCG"])
    bad = tmp_path / "m.json"
    for manifest, message in [({"collections": {}}, "expected"),
                              ({"collections": {"x": {"qrels": 3, "runs": {}}}}, r"collections.x.qrels"),
                              ({"collections": {"x": {"qrels": "q", "runs": {"A": 1}}}}, r"collections.x.runs.A"),
                              ({"collections": {"x": {"qrels": "q", "runs": {"A": "a"}, "qrel": 1}}},
                               r"unknown field 'qrel'")]:
        bad.write_text(json.dumps(manifest))
        with pytest.raises(InputError, match=message):
            read_scores(bad, "AP")


def test_a_manifest_is_scored_by_the_core_with_paths_relative_to_it(tmp_path):
    folder = tmp_path / "bench"
    folder.mkdir()
    (folder / "x.qrels").write_text("q1 0 a 1\nq2 0 b 1\n")
    (folder / "good.run").write_text("q1 Q0 a 1 2 good\nq2 Q0 b 1 2 good\n")
    (folder / "bad.run").write_text("q1 Q0 z 1 2 bad\nq1 Q0 a 2 1 bad\nq2 Q0 b 1 1 bad\n")
    manifest = {"collections": {"x": {"qrels": "x.qrels", "runs": {"good": "good.run", "bad": "bad.run"}}}}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    scores = read_scores(folder / "manifest.json", ["RR"])
    assert scores.systems == ["good", "bad"] and scores.queries == [["q1", "q2"]]
    assert scores.blocks[0][:, 0, :].tolist() == [[1.0, 0.5], [1.0, 1.0]]  # RR by hand
    with pytest.raises(ParameterError, match="give the measures"):
        read_scores(folder / "manifest.json")


def test_a_sparse_table_is_refused_before_its_cells_are_allocated():
    n = 3000  # every row its own system and collection: 9 million cells for 3,000 rows
    table = pd.DataFrame({"system": [f"s{i}" for i in range(n)], "collection": [f"c{i}" for i in range(n)],
                          "measure": "AP", "value": 0.5})
    with pytest.raises(InputError, match=r"3000 systems x 3000 collections x 1 measures make 9,000,000 cells "
                                         r"for 3,000 rows"):
        read_scores(table)
