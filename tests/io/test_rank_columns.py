"""The MS MARCO rank trap: a ``qid pid rank`` file read by its rank column, the same way everywhere.

Hand-worked example (below): two queries, three passages each, rank 1 first.

* read as ranks: q1's relevant passage 7 is at rank 1 (RR 1), q2's passage 5 at rank 2 (RR 1/2):
  RR@10 = 0.75;
* read as scores (the trap): the ranks reversed, q1's passage 7 (score 1, the lowest) comes third
  (RR 1/3), q2's passage 5 (score 2) second (RR 1/2): RR@10 = (1/3 + 1/2) / 2 = 0.416667.
"""
from __future__ import annotations

import ast
import io
import re
import warnings
from pathlib import Path

import pytest

import rankmeter
from rankmeter import evaluate, read_run
from rankmeter.errors import InputError, ParameterError
from rankmeter.io.columns import scores_look_like_ranks

QRELS = b"1 0 7 1\n2 0 5 1\n"
MSMARCO = b"1\t7\t1\n1\t8\t2\n1\t9\t3\n2\t4\t1\n2\t5\t2\n2\t6\t3\n"
RIGHT, TRAPPED = 0.75, (1 / 3 + 1 / 2) / 2
POSITIONS = {"query": 0, "doc": 1, "rank": 2}
README = Path(__file__).resolve().parents[2] / "README.md"


@pytest.fixture
def files(tmp_path):
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.tsv"
    qrels.write_bytes(QRELS)
    run.write_bytes(MSMARCO)
    return qrels, run


def _no_rank_warning(record) -> None:
    assert not [w for w in record if "exactly 1, 2, 3" in str(w.message)], [str(w.message) for w in record]


def test_evaluate_reads_positional_ranks_ascending(files):
    qrels, run = files
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        r = evaluate(qrels, run, "RR@10", columns=POSITIONS)
    assert r.values("RR@10").tolist() == [1.0, 0.5]
    assert r["RR@10"] == RIGHT
    _no_rank_warning(record)


def test_read_run_gives_rank_one_first(files):
    qrels, run = files
    loaded = read_run(run, columns=POSITIONS)
    assert not loaded.ranked
    rows = loaded.table.to_pylist()
    # the higher a rank, the lower its score: rank 1 scores highest
    assert [(r["doc"], r["score"]) for r in rows[:3]] == [(b"7", -1.0), (b"8", -2.0), (b"9", -3.0)]
    assert evaluate(qrels, loaded, "RR@10")["RR@10"] == RIGHT


def test_named_rank_columns_give_the_same(tmp_path, files):
    qrels, _ = files
    header = tmp_path / "run_header.tsv"
    header.write_bytes(b"qid\tpid\trank\n" + MSMARCO)
    assert evaluate(qrels, header, "RR@10", columns={"query": "qid", "doc": "pid", "rank": "rank"})["RR@10"] == RIGHT
    assert read_run(header, columns={"query": "qid", "doc": "pid", "rank": "rank"}).table.equals(
        read_run(files[1], columns=POSITIONS).table)
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame([line.split("\t") for line in MSMARCO.decode().splitlines()], columns=["qid", "pid", "rank"])
    frame["rank"] = frame["rank"].astype(int)
    assert evaluate(qrels, frame, "RR@10", columns={"query": "qid", "doc": "pid", "rank": "rank"})["RR@10"] == RIGHT
    # a number in a table is the column at that position (or of that label)
    assert evaluate(qrels, frame, "RR@10", columns=POSITIONS)["RR@10"] == RIGHT


def test_rank_counted_from_zero_and_in_a_trec_run(tmp_path, files):
    qrels, _ = files
    zero = tmp_path / "zero.tsv"
    zero.write_bytes(b"1\t7\t0\n1\t8\t1\n1\t9\t2\n2\t4\t0\n2\t5\t1\n2\t6\t2\n")
    assert evaluate(qrels, zero, "RR@10", columns=POSITIONS)["RR@10"] == RIGHT
    # a TREC run whose scores disagree with its ranks: read by the rank field (position 3) on request
    trec = tmp_path / "run.trec"
    trec.write_bytes(b"1 Q0 9 1 9.0 t\n1 Q0 8 2 8.0 t\n1 Q0 7 3 7.0 t\n2 Q0 5 1 1.0 t\n2 Q0 4 2 2.0 t\n")
    assert evaluate(qrels, trec, "RR@10")["RR@10"] == (1 / 3 + 1 / 2) / 2  # by score: the default
    by_rank = evaluate(qrels, trec, "RR@10", columns={"query": 0, "doc": 2, "rank": 3})
    assert by_rank.values("RR@10").tolist() == [1 / 3, 1.0]


def test_the_trap_read_as_scores_warns(files):
    qrels, run = files
    with pytest.warns(UserWarning, match=r"run.tsv: each query's scores are exactly 1, 2, 3"):
        r = evaluate(qrels, run, "RR@10")
    assert r["RR@10"] == pytest.approx(TRAPPED, abs=1e-15)
    assert scores_look_like_ranks(read_run(run))
    assert not scores_look_like_ranks(read_run(run, columns=POSITIONS))


def test_what_does_not_look_like_ranks():
    # one query 1..n but another not; real scores; a single doc per query
    assert not scores_look_like_ranks(rankmeter.io.as_run({"a": {"x": 1, "y": 2}, "b": {"x": 1, "y": 3}}))
    assert not scores_look_like_ranks(rankmeter.io.as_run({"a": {"x": 1.5, "y": 2.5}}))
    assert not scores_look_like_ranks(rankmeter.io.as_run({"a": {"x": 1}, "b": {"x": 1}}))
    assert scores_look_like_ranks(rankmeter.io.as_run({"a": {"x": 2, "y": 1}, "b": {"x": 1}}))
    assert not scores_look_like_ranks(rankmeter.io.as_run({"a": {"x": 1, "y": 1, "z": 2}}))  # 1 twice, no 3
    assert not scores_look_like_ranks(rankmeter.io.as_run({"a": {"x": 1, "y": 2}, "b": {"x": 2, "y": 3}}))
    # queries interleaved line by line (not grouped): the same answers
    interleaved = b"a x 1\nb x 1\na y 2\nb y 2\na z 3\nb z 3\nb w 4\n"
    assert scores_look_like_ranks(read_run(io.BytesIO(interleaved)))
    assert not scores_look_like_ranks(read_run(io.BytesIO(interleaved.replace(b"b w 4", b"b w 3"))))
    assert not scores_look_like_ranks(read_run(io.BytesIO(interleaved.replace(b"b w 4", b"b w 5"))))


def test_tied_ranks_are_refused_in_one_line(tmp_path, files):
    qrels, _ = files
    tied = tmp_path / "tied.tsv"
    tied.write_bytes(b"1\t7\t1\n1\t8\t2\n1\t9\t2\n")
    with pytest.raises(InputError, match=r"tied.tsv:3: query '1' has rank 2 twice \(also at line 2\)") as err:
        read_run(tied, columns=POSITIONS)
    assert "\n" not in str(err.value)
    # the same when queries interleave (no grouped shortcut); ranks falling down the file are fine
    with pytest.raises(InputError, match=r"<stream>:3: query '1' has rank 1 twice \(also at line 1\)"):
        read_run(io.BytesIO(b"1\t7\t1\n2\t5\t1\n1\t8\t1\n"), columns=POSITIONS)
    falling = read_run(io.BytesIO(b"1\t9\t3\n1\t8\t2\n1\t7\t1\n"), columns=POSITIONS)
    assert falling.table.column("score").to_pylist() == [-3.0, -2.0, -1.0]
    with pytest.raises(InputError, match="is not a number"):
        read_run(io.BytesIO(b"1\t7\tfirst\n"), columns=POSITIONS)


@pytest.mark.parametrize("columns, message", [
    ({"query": 0, "doc": 1, "rnk": 2}, "unknown role 'rnk'"),
    ({"query": "qid", "doc": 1, "rank": 2}, "'query' names the column 'qid', but this file has no header line"),
    ({"query": 0, "doc": 1, "rank": 2, "score": 2}, "ordered by its score or by its rank, not both"),
    ({"query": 0, "doc": 1, "rel": 2}, "'rel' is a role of qrels, not of run"),
    ({"query": 0, "doc": 1, "rank": 3}, "a line has 3 fields, positions 0 to 2"),
])
def test_a_mapping_read_run_cannot_use_is_an_error(files, columns, message):
    with pytest.raises(InputError, match=re.escape(message)):
        read_run(files[1], columns=columns)


def test_a_mapping_evaluate_cannot_use_is_an_error(files):
    qrels, run = files
    # positions without a side's own role: qrels (query iter doc rel) and run fields differ
    with pytest.raises(InputError, match="positions mean different fields in a qrels file"):
        evaluate(qrels, run, "RR@10", columns={"query": 0, "doc": 1})
    with pytest.raises(ParameterError, match="no input has columns to choose from"):
        evaluate({"1": {"7": 1}}, {"1": {"7": 1.0}}, "RR", columns={"rank": 2})
    with pytest.raises(InputError, match="a dict has no columns"):
        evaluate(qrels, {"1": {"7": 1.0}}, "RR", columns={"rank": 2})
    with pytest.raises(ParameterError, match=r"columns=\{'query': 0.5\}"):
        evaluate(qrels, run, "RR", columns={"query": 0.5})


def test_the_command_line_reads_ranks_and_warns_otherwise(files, cli):
    qrels, run = files
    done = cli("eval", qrels, run, "-m", "RR@10", "--columns", "query=0,doc=1,rank=2", "--per-query",
               "--format", "csv")
    assert done.code == 0, done.err
    assert done.err == ""
    rows = [line.split(",") for line in done.out.splitlines()]
    assert [float(r[-1]) for r in rows if r[1] in ("1", "2")] == [1.0, 0.5]
    assert float(next(r for r in rows if r[1] == "all")[-1]) == RIGHT
    trapped = cli("eval", qrels, run, "-m", "RR@10", "--format", "csv")
    assert trapped.code == 0
    assert float(trapped.out.splitlines()[-1].split(",")[-1]) == pytest.approx(TRAPPED, abs=5e-5)
    lines = trapped.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("rankmeter: warning: ") and \
        "--columns query=0,doc=1,rank=2" in lines[0], trapped.err


@pytest.mark.parametrize("value, message", [("query=0,doc=1,rnk=2", "unknown role 'rnk'"),
                                            ("query=qid,doc=1,rank=2", "has no header line")])
def test_the_command_line_refuses_a_mapping_it_cannot_use(files, cli, value, message):
    done = cli("eval", *files, "-m", "RR@10", "--columns", value)
    assert done.code == 2 and done.out == ""
    assert len(done.err.splitlines()) == 1 and message in done.err, done.err


def test_check_reads_the_same_columns(files, cli):
    qrels, run = files
    flagged = cli("check", qrels, run, "--format", "json")
    assert "scores_look_like_ranks" in flagged.out
    fixed = cli("check", qrels, run, "--columns", "query=0,doc=1,rank=2", "--format", "json")
    assert fixed.code == 0, fixed.err + fixed.out
    assert "scores_look_like_ranks" not in fixed.out


def test_every_readme_line_about_ms_marco_works_as_written(files, cli):
    qrels, run = files
    text = " ".join(README.read_text(encoding="utf-8").split())
    start = text.index("MS MARCO's own run format")
    paragraph = text[text.rindex("Other column names", 0, start): text.index("`--profile` adds", start)]
    given = [ast.literal_eval(d) for d in re.findall(r"`columns=(\{[^`]*\})`", paragraph) if "rank" in d]
    assert len(given) == 2 and all(g == POSITIONS for g in given), given
    for columns in given:
        assert evaluate(qrels, run, "RR@10", columns=columns)["RR@10"] == RIGHT
        assert evaluate(qrels, read_run(run, columns=columns), "RR@10")["RR@10"] == RIGHT
    flags = re.findall(r"`--columns (\S+?)`", paragraph)
    assert "query=0,doc=1,rank=2" in flags
    done = cli("eval", qrels, run, "-m", "RR@10", "--columns", "query=0,doc=1,rank=2", "--format", "csv")
    assert float(done.out.splitlines()[-1].split(",")[-1]) == RIGHT
    assert "eval` warns when every query's scores are exactly 1, 2, 3" in paragraph
    assert "`rankmeter check` reports it" in paragraph


def test_one_dict_for_a_table_run_leaves_other_names_to_a_table_qrels(tmp_path):
    pd = pytest.importorskip("pandas")
    # the qrels' columns have no conventional names: the dict's query/doc names serve them too
    qrels = pd.DataFrame({"u": ["1", "2"], "i": ["7", "5"], "rel": [1, 1]})
    run = pd.DataFrame({"u": ["1", "1", "2", "2"], "i": ["7", "8", "4", "5"], "p": [0.9, 0.8, 0.7, 0.6]})
    r = evaluate(qrels, run, "RR@10", columns={"query": "u", "doc": "i", "score": "p"})
    assert r.values("RR@10").tolist() == [1.0, 0.5]
    # a TREC qrels file has no header: the same names are the run's alone (as before)
    path = tmp_path / "qrels.txt"
    path.write_bytes(QRELS)
    assert evaluate(path, run, "RR@10", columns={"query": "u", "doc": "i", "score": "p"})["RR@10"] == RIGHT
    # but names with no side of their own given to a headerless file are refused, not ignored
    with pytest.raises(InputError, match="has no header line"):
        evaluate(path, run.rename(columns={"p": "score"}), "RR@10", columns={"query": "u", "doc": "i"})
