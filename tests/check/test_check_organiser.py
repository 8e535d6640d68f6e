"""The organiser's path: check before judging, --dedupe that keeps lines as they are, pool --topics, help text.

Every expected value is worked out by hand from the small files below.
"""
from __future__ import annotations

import argparse
import json
import re

import pytest

from rankmeter.check import check
from rankmeter.check.dedupe import dedupe, kept_rows
from rankmeter.fusion.pooling import pool
from rankmeter.cli.app import COMMANDS, _parser
from rankmeter.cli.flags import plain_help
from rankmeter.errors import InputError
from rankmeter.io import read_run
from rankmeter.io.topics import read_topics

QRELS = "q1 0 a 1\nq1 0 b 0\nq2 0 d 1\n"
# a submitted run: two tags (pasted together), ranks that skip, a duplicate of q1/a (lines 1 and 4) and
# of q2/d (lines 5 and 7, the later one scoring higher)
SUBMITTED = ("q1 Q0 a 1 3.0 bad-team\n"
             "q1 Q0 x 2 2.0 bad-team\n"
             "q1 Q0 b 4 1.5 bad-team-v2\n"
             "q1 Q0 a 7 1.0 bad-team-v2\n"
             "q2 Q0 d 1 5.0 bad-team-v2\n"
             "q2 Q0 y 2 4.0   bad-team-v2\n"
             "q2 Q0 d 3 6.0 bad-team-v2\n")


@pytest.fixture
def files(tmp_path):
    qrels, run = tmp_path / "qrels.txt", tmp_path / "submitted.txt"
    qrels.write_text(QRELS)
    run.write_text(SUBMITTED)
    return qrels, run


def _lines(text: str, *drop: int) -> str:
    return "".join(line for i, line in enumerate(text.splitlines(keepends=True), 1) if i not in drop)


@pytest.mark.parametrize("keep, dropped", [("first", (4, 7)), ("max", (4, 5))])
def test_dedupe_writes_the_input_without_the_dropped_lines(files, tmp_path, cli, keep, dropped):
    qrels, run = files
    fixed = tmp_path / "fixed.run"
    done = cli("check", qrels, run, "--dedupe", keep, "-o", fixed)
    # every kept line byte for byte: both tags, the ranks 1 2 4 / 2 as given, the odd spacing of line 6
    assert fixed.read_text() == _lines(SUBMITTED, *dropped)
    message = done.err.splitlines()
    assert len(message) == 1 and f"wrote {fixed}" in message[0], done.err
    assert f"2 duplicate lines left out (lines {dropped[0]}, {dropped[1]})" in message[0]
    # the report and the exit status are the written file's: no duplicate left, so exit 0
    assert done.code == 0, done.out
    assert "duplicates" not in done.out and "error" not in done.out
    assert "2 run tags in one file" in done.out  # still reported: the tags were kept as they were


def test_dedupe_exits_1_only_for_problems_left_in_its_output(tmp_path, cli):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(QRELS)
    run = tmp_path / "run.txt"
    # a duplicate (lines 1, 2) and a query id used as a doc (q2 ranks doc q1): the second one stays
    run.write_text("q1 Q0 a 1 2.0 t\nq1 Q0 a 2 1.0 t\nq2 Q0 q1 1 1.0 t\n")
    fixed = tmp_path / "fixed.txt"
    done = cli("check", qrels, run, "--dedupe", "first", "-o", fixed, "--format", "json")
    assert fixed.read_text() == "q1 Q0 a 1 2.0 t\nq2 Q0 q1 1 1.0 t\n"
    codes = {f["code"] for f in json.loads(done.out)["findings"]}
    assert "duplicates" not in codes and "query_is_doc" in codes
    assert done.code == 1


def test_dedupe_keeps_a_header_and_parquet_columns(tmp_path, cli):
    csv = tmp_path / "run.csv"
    csv.write_text("qid,docno,score,rank,system\nq1,a,3.0,1,x\nq1,b,2.0,2,x\nq1,a,1.0,3,y\n")
    fixed = tmp_path / "fixed.csv"
    done = cli("check", csv, "--dedupe", "first", "-o", fixed)
    assert fixed.read_text() == "qid,docno,score,rank,system\nq1,a,3.0,1,x\nq1,b,2.0,2,x\n"
    assert "1 duplicate line left out (line 4)" in done.err and done.code == 0
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq
    source = tmp_path / "run.parquet"
    pq.write_table(pa.table({"qid": ["q1", "q1", "q1"], "docno": ["a", "b", "a"], "score": [1.0, 2.0, 3.0],
                             "note": ["k", "l", "m"]}), source)
    out = tmp_path / "fixed.parquet"
    done = cli("check", source, "--dedupe", "max", "-o", out)
    assert pq.read_table(out).to_pylist() == [{"qid": "q1", "docno": "b", "score": 2.0, "note": "l"},
                                              {"qid": "q1", "docno": "a", "score": 3.0, "note": "m"}]
    assert "1 duplicate row left out (row 0 counted from 0)" in done.err and done.code == 0


def test_dedupe_needs_one_run_and_an_output(files, cli):
    qrels, run = files
    refused = cli("check", qrels, run, "--dedupe", "first")
    assert refused.code == 2 and "-o FILE" in refused.err


def test_dedupe_compares_ids_exactly_even_when_every_hash_collides(monkeypatch):
    import numpy as np
    import pyarrow as pa

    from rankmeter.engine import ids as ids_module
    from rankmeter.io.canonical import Run

    table = pa.table({"query": pa.array([b"q", b"q", b"q", b"r", b"q"]),
                      "doc": pa.array([b"a", b"b", b"a", b"a", b"b\x00"[:1] + b"c"]),
                      "score": pa.array([1.0, 2.0, 3.0, 4.0, 5.0])})
    monkeypatch.setattr(ids_module.Ids, "hashes", lambda self: np.zeros(len(self), dtype=np.uint64))
    # rows: q/a, q/b, q/a (again), r/a, q/bc -- only row 2 repeats a pair
    assert kept_rows(Run(table)).tolist() == [0, 1, 3, 4]
    assert kept_rows(Run(table), "max").tolist() == [1, 2, 3, 4]
    assert dedupe(Run(table)).table.column("doc").to_pylist() == [b"a", b"b", b"a", b"bc"]
    # check's duplicate finder groups colliding hashes by the exact ids too
    from rankmeter import check as check_module
    monkeypatch.setattr(check_module, "id_hash", lambda *parts: np.zeros(len(table), dtype=np.uint64))
    assert check_module._duplicates(Run(table)) == [(b"q", b"a", [1, 3])]


def test_check_before_judging(files, tmp_path, cli):
    _, run = files
    alone = cli("check", run, "--format", "json")
    found = {f["code"]: f for f in json.loads(alone.out)["findings"]}
    assert found["no_judgments"]["level"] == "note" and "skipped" in found["no_judgments"]["message"]
    assert sorted(found["duplicates"]["details"]["duplicates"]) == [["q1", "a", [1, 4]], ["q2", "d", [5, 7]]]
    assert not {"coverage", "grades", "only_in_run", "missing_from_run"} & set(found)
    assert alone.code == 1  # the duplicates are an error, judged or not
    topics = tmp_path / "topics.txt"
    topics.write_text("<top>\n<num> Number: q1\n<title> one\n</top>\n<top>\n<num> Number: q3\n</top>\n")
    with_topics = cli("check", "--topics", topics, run, "--format", "json")
    found = {f["code"]: f for f in json.loads(with_topics.out)["findings"]}
    assert found["not_in_topics"]["details"]["queries"] == ["q2"]
    assert found["topics_without_results"]["details"]["queries"] == ["q3"]
    # with qrels too: judged queries that are not topics are named as well
    judged = cli("check", files[0], run, "--topics", topics, "--format", "json")
    found = {f["code"]: f for f in json.loads(judged.out)["findings"]}
    assert found["judged_not_in_topics"]["details"]["queries"] == ["q2"]
    assert found["not_in_topics"]["details"]["queries"] == ["q2"] and "no_judgments" not in found
    # the Python API: qrels=None, topics as ids
    codes = [f.code for f in check(None, [str(run)], topics=["q1", "q2"])]
    assert codes[0] == "no_judgments" and "not_in_topics" not in codes and "coverage" not in codes


def test_which_file_is_the_qrels(files, tmp_path, cli):
    qrels, run = files
    second = tmp_path / "second.txt"
    second.write_text("q1 Q0 a 1 1.0 t\n")
    # two runs: no qrels (the first is a 6-field run)
    out = json.loads(cli("check", run, second, "--format", "json").out)["findings"]
    assert out[0]["code"] == "no_judgments" and "coverage" not in {f["code"] for f in out}
    assert {f["source"] for f in out if f["code"] == "duplicates"} == {"bad-team-v2"}
    # --qrels names them outright; a 4-field first file reads as qrels
    for argv in (("--qrels", qrels, run), (qrels, run)):
        codes = {f["code"] for f in json.loads(cli("check", *argv, "--format", "json").out)["findings"]}
        assert "grades" in codes and "no_judgments" not in codes
    lone = cli("check", qrels)
    assert lone.code == 2 and "reads as qrels and no run is given" in lone.err


def test_topics_files(tmp_path):
    trec = tmp_path / "topics.301-303"
    trec.write_text("<top>\n\n<num> Number: 301 \n<title> International Organized Crime\n\n<desc> Description:\n"
                    "x\n</top>\n<top>\n<num> Number:302\n</top>\n<top>\n<num> 303\n</top>\n")
    assert read_topics(trec) == [b"301", b"302", b"303"]
    web = tmp_path / "wt.xml"
    web.write_text('<webtrack2009>\n<topic number="1" type="faceted">\n<query>obama</query>\n</topic>\n'
                   "<topic number='2'>\n</topic>\n</webtrack2009>\n")
    assert read_topics(web) == [b"1", b"2"]
    listing = tmp_path / "ids.txt"
    listing.write_text("# the DL 2019 queries\n1037798\n\n104861\n1037798\n")
    assert read_topics(listing) == [b"1037798", b"104861"]
    queries = tmp_path / "queries.tsv"
    queries.write_text("qid\tquery\n1048585\twhat is paula deen's brother\n2\tAndrogen receptor define\n")
    assert read_topics(queries) == [b"1048585", b"2"]
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing\n\n")
    with pytest.raises(InputError, match="no topics"):
        read_topics(empty)


def test_pool_keeps_only_the_topics(tmp_path, cli):
    run1, run2 = tmp_path / "a.txt", tmp_path / "b.txt"
    run1.write_text("301 Q0 d1 1 3.0 a\n301 Q0 d2 2 2.0 a\n999 Q0 stray 1 1.0 a\n")
    run2.write_text("301 Q0 d3 1 9.0 b\n302 Q0 d4 1 1.0 b\n")
    topics = tmp_path / "topics.txt"
    topics.write_text("<num> Number: 301\n<num> Number: 302\n<num> Number: 303\n")
    out = tmp_path / "pool.txt"
    done = cli("pool", run1, run2, "--depth", "1", "--topics", topics, "-o", out)
    assert done.code == 0, done.err
    # depth 1: 301's top docs d1 (run a) and d3 (run b); 302's d4; 999 left out
    assert sorted(out.read_text().splitlines()) == ["301 0 d1 -1", "301 0 d3 -1", "302 0 d4 -1"]
    warned = [line for line in done.err.splitlines() if line.startswith("rankmeter: warning: ")]
    assert len(warned) == 2
    assert "1 queries of the runs are not in the topics" in warned[0] and warned[0].endswith(": 999")
    assert "1 topics" in warned[1] and warned[1].endswith(": 303")
    assert done.out.startswith("2 queries, 3 docs to judge")
    with pytest.warns(UserWarning, match=r"not in the topics and are left out of the pool: 999"):
        made = pool([str(run1), str(run2)], depth=1, topics=["301", "302"])
    assert sorted(made.docs) == [b"301", b"302"]
    without = pool([str(run1), str(run2)], depth=1)
    assert sorted(without.docs) == [b"301", b"302", b"999"]


def test_plain_help():
    assert plain_help(":mod:`rankmeter.check` and :func:`~rankmeter.io.read_run`") == \
        "rankmeter.check and read_run"
    assert plain_help(":class:`Results <rankmeter.core.results.Results>`, ``--dedupe``") == "Results, --dedupe"


_MARKUP = re.compile(r":[a-z]+:`|``|`~")


def _every_parser():
    top = _parser()
    yield "rankmeter", top
    sub = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    for name, command in sub.choices.items():
        if name == "trec_eval":
            continue  # trec_eval's own help, as trec_eval prints it
        yield name, command
        kinds = next((a for a in command._actions if isinstance(a, argparse._SubParsersAction)), None)
        for kind, kind_parser in (kinds.choices.items() if kinds is not None else ()):
            yield f"{name} {kind}", kind_parser


def test_no_command_help_shows_markup(cli):
    seen = 0
    for name, parser in _every_parser():
        text = parser.format_help()
        assert not _MARKUP.search(text), f"rankmeter {name} --help: {_MARKUP.search(text).group(0)!r} in\n{text}"
        seen += 1
    assert seen > len(COMMANDS)
    # as a user sees it: the command line's own --help
    shown = cli("check", "--help")
    assert shown.code == 0 and "rankmeter.check" in shown.out and ":mod:" not in shown.out
