"""`rankmeter eval` and `rankmeter measures` through a real subprocess."""
from __future__ import annotations

import csv
import io
import json
import os
import re

import pytest

import rankmeter
from cli_runner import run_cli_subprocess  # noqa: E402  (tests/ is on sys.path: tests/conftest.py)

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(__file__)), "..", "examples")
QRELS = os.path.join(EXAMPLES, "qrels.txt")
RUN1 = os.path.join(EXAMPLES, "run.txt")
RUN2 = os.path.join(EXAMPLES, "run2.txt")


cli = run_cli_subprocess  # the console entry point itself, in a child process


def test_eval_json_one_run_matches_the_api():
    out = cli("eval", QRELS, RUN1, "-m", "AP", "-m", "nDCG@10", "--format", "json")
    assert out.returncode == 0, out.stderr
    obj = json.loads(out.stdout)
    assert set(obj) == {"measures", "options", "runs"} and obj["measures"] == ["AP", "nDCG@10"]
    (obj,) = obj["runs"]  # one shape whatever the number of runs
    assert set(obj) == {"run", "mean"}
    assert obj["run"] == "bm25"
    r = rankmeter.evaluate(QRELS, RUN1, ["AP", "nDCG@10"])
    assert obj["mean"] == {"AP": r["AP"], "nDCG@10": r["nDCG@10"]}


def test_eval_json_several_runs_with_per_query():
    out = cli("eval", QRELS, RUN1, RUN2, "-m", "P@5", "-q", "--format", "json")
    objs = json.loads(out.stdout)["runs"]
    assert [o["run"] for o in objs] == ["bm25", "neural"]
    for o in objs:
        assert set(o) == {"run", "mean", "per_query"}
        assert len(o["per_query"]) == 8
        assert set(o["per_query"][0]) == {"query", "P@5"}
        assert o["mean"]["P@5"] == pytest.approx(sum(row["P@5"] for row in o["per_query"]) / 8)


def test_eval_csv_and_text():
    out = cli("eval", QRELS, RUN1, "-m", "map", "-m", "P.5,10", "--format", "csv")
    rows = list(csv.reader(io.StringIO(out.stdout)))
    assert rows[0] == ["run", "query", "map", "P_5", "P_10"]
    assert rows[1][:2] == ["bm25", "all"]
    out = cli("eval", QRELS, RUN1, RUN2, "-m", "AP")
    lines = out.stdout.splitlines()
    assert lines[0].split() == ["run", "query", "AP"]
    assert lines[1].split()[0] == "bm25" and lines[2].split()[0] == "neural"


def test_eval_errors_are_one_line():
    out = cli("eval", QRELS, RUN1, "-m", "nDGC@10")
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "did you mean nDCG" in out.stderr
    out = cli("eval", QRELS, "missing.txt", "-m", "AP")
    assert out.returncode == 2 and "missing.txt" in out.stderr and "Traceback" not in out.stderr


def test_measures_lists_every_family():
    out = cli("measures")
    assert out.returncode == 0
    from rankmeter.measures import REGISTRY
    # each family heads its own entry, a line starting with its name and then its parameters or
    # cutoff ("P[@k]", "AP(denom=R)[@k]"), so "P" is not found inside "AP"
    headings = {re.match(r"[A-Za-z_0-9]+", line).group() for line in out.stdout.splitlines()
                if line[:1].isalpha() and not line.startswith(("Measures are", "Every measure"))}
    assert set(REGISTRY) == headings, sorted(set(REGISTRY) ^ headings)


def test_trec_eval_default_measures_on_the_example():
    out = cli("trec_eval", QRELS, RUN1)
    labels = [line.split("\t")[0].strip() for line in out.stdout.splitlines()]
    assert labels[:6] == ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map"]
    assert out.stdout.splitlines()[0] == "runid                 \tall\tbm25"


def test_every_argument_of_every_subcommand_has_help():
    import argparse
    from rankmeter.cli.app import _parser
    parser = _parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, command in sub.choices.items():
        if name == "trec_eval":
            continue  # trec_eval's own help (rankmeter trec_eval -h)
        for action in command._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            assert action.help, f"rankmeter {name} {action.option_strings or action.dest}: no help text"


def test_main_in_process_leaves_the_process_as_it_found_it(tmp_path):
    """main(argv) prints warnings in the CLI's words and changes no process global; hiding pandas from
    pyarrow (which pyarrow then remembers) is the console script's alone."""
    import sys
    import warnings

    from cli_runner import run_cli_in_process

    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text("q1 0 a 1\nq2 0 b 1\n")
    run.write_text("q1 Q0 a 1 2.0 t\n")  # q2 judged, not retrieved: a warning
    before = list(sys.meta_path), list(warnings.filters), warnings.showwarning
    got = run_cli_in_process("eval", qrels, run, "-m", "P@1", "--format", "csv")
    assert got.code == 0 and "rankmeter: warning:" in got.err, got.err
    assert (list(sys.meta_path), list(warnings.filters), warnings.showwarning) == before
    script = cli("eval", qrels, run, "-m", "P@1", "--format", "csv")
    assert script.code == 0 and script.out == got.out and "rankmeter: warning:" in script.err


def test_messages_name_flags_not_python_keywords(tmp_path):
    """The inverted-ranks warning and a refusal, as Python words them and as the command line does."""
    import warnings as warnings_module

    qrels, run = tmp_path / "q.txt", tmp_path / "ranks.txt"
    qrels.write_text("q1 0 a 1\nq2 0 b 1\n")
    run.write_text("q1 Q0 a 1 1 x\nq1 Q0 b 2 2 x\nq2 Q0 b 1 1 x\nq2 Q0 c 2 2 x\n")  # scores 1, 2: ranks
    with warnings_module.catch_warnings(record=True) as caught:
        warnings_module.simplefilter("always")
        rankmeter.evaluate(qrels, run, ["P@1"])
    assert any("columns={'query': 0, 'doc': 1, 'rank': 2}" in str(w.message) for w in caught)
    got = cli("eval", qrels, run, "-m", "P@1")
    assert got.code == 0 and "read them as ranks with --columns query=0,doc=1,rank=2 (MS MARCO" in got.stderr
    assert "columns={" not in got.stderr and "=2}" not in got.stderr
    refused = cli("eval", qrels, run, "-m", "P@1", "--executor", "streamed", "--input-format", "trec",
                  "--columns", "query=0,doc=2,score=4")
    assert refused.code == 2 and ("--columns query=0,doc=2,score=4 cannot be honoured: use --executor memory"
                                  in refused.stderr), refused.stderr
    assert "executor='memory'" not in refused.stderr and "columns={" not in refused.stderr
    measure = cli("eval", qrels, run, "-m", "P(rel=x)@1")   # a measure's parameter keeps the measure's spelling
    assert measure.code == 2 and "parameter rel='x' is invalid" in measure.stderr


def test_long_ids_are_cut_by_one_rule_in_messages(tmp_path):
    long_id = "q" + "7" * 199
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text(f"q1 0 a 1\n{long_id} 0 b 1\n")
    run.write_text("q1 Q0 a 1 2.0 t\n")
    got = cli("eval", qrels, run, "-m", "P@1")
    assert got.code == 0 and f"{long_id[:60]}\u2026 (200 bytes)" in got.stderr and long_id not in got.stderr
