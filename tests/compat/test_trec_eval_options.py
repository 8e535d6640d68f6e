"""``rankmeter trec_eval`` options and quirks, on hand-made inputs (values worked from the C source).

Each expected value below is worked by hand from trec_eval 10.0's source (cited);
tests/compat/test_trec_eval_diff.py compares the same paths against the real binary.
"""
from __future__ import annotations

import math
import os
import subprocess
import sys
from io import BytesIO, StringIO

import numpy as np
import pytest

from rankmeter.io.rel_formats import PrefJudgments
from rankmeter.measures.trec_eval.prefs import query_prefs_values
from rankmeter.measures.trec_eval import expand, expand_exact
from rankmeter.compat.trec_eval.args import parse_args
from rankmeter.cli.trec_eval import run
from rankmeter.errors import MeasureError, ParameterError

QRELS = "1 0 a 1\n1 0 b 0\n1 0 c 1\n2 0 x 1\n2 0 y 2\n"
RUN = "1 Q0 a 1 3.0 tagA\n1 Q0 b 2 2.0 tagA\n1 Q0 d 3 1.0 tagA\n"


@pytest.fixture()
def files(tmp_path):
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    return str(tmp_path / "qrels"), str(tmp_path / "run")


def _run(argv):
    out, err = BytesIO(), StringIO()
    status = run(argv, out=out, err=err)
    return status, out.getvalue().decode(), err.getvalue()


def _value(text, label, query="all"):
    for line in text.splitlines():
        name, q, value = line.split("\t")
        if name.strip() == label and q == query:
            return value
    raise KeyError((label, query))


def test_n_means_no_summary(files):
    status, out, _ = _run(["-n", "-q", "-m", "P.5", *files])
    assert status == 0
    assert "\tall\t" not in out and "runid" not in out
    assert _value(out, "P_5", "1") == "0.2000"       # a is the only relevant doc in the top 5


def test_set_f_keeps_x(files):
    # P = 1/3, R = 1/2; (x+1)PR/(xP+R) with x = 0.5 exactly: 0.5 / (1/6 + 1/2) ... = 0.375
    _, out, _ = _run(["-m", "set_F.0.5", *files])
    p, r, x = 1 / 3, 1 / 2, 0.5
    assert _value(out, "set_F_0.5") == "%6.4f" % ((x + 1) * p * r / (x * p + r))


def test_first_parameters_win(files):
    _, out, _ = _run(["-m", "P.5", "-m", "P.10", "-m", "set_F.2", "-m", "set_F.0.5", *files])
    labels = [line.split("\t")[0].strip() for line in out.splitlines()]
    assert labels == ["P_5", "set_F_2"]


def test_complete_bogus_ranking_and_num_rel(files):
    # topic 2 is missing from the run: one nonpool doc; utility_2,-1,0,0 = -1 (kept, not "utility"),
    # num_ret zeroed; the -c summary num_rel counts grades > 0 whatever -l: 4
    _, out, _ = _run(["-q", "-c", "-l2", "-m", "utility.2,-1,0,0", "-m", "num_ret", "-m", "num_rel", *files])
    assert _value(out, "utility_2,-1,0,0", "2") == "-1.0000"
    assert _value(out, "num_ret", "2") == "0"
    assert _value(out, "num_rel", "2") == "1"        # per topic: grades >= 2
    assert _value(out, "num_rel") == "4"


def test_judged_only_nothing_retrieved_is_nan(files):
    # with -J and -c, topic 2 keeps no document: precision 0/0 (m_iprec_at_recall.c)
    _, out, _ = _run(["-q", "-c", "-J", "-m", "iprec_at_recall..0,1", *files])
    assert _value(out, "iprec_at_recall_0.00", "2") == "  -nan"
    assert _value(out, "iprec_at_recall_1.00", "2") == "0.0000"
    assert _value(out, "iprec_at_recall_0.00") == "  -nan"


def test_zscores(files, tmp_path):
    z = tmp_path / "z"
    z.write_text("1 map 0.5 0.25\n")
    _, out, _ = _run(["-q", "-m", "map", "-m", "num_q", "-Z", str(z), *files])
    assert _value(out, "Zmap", "1") == "%6.4f" % ((0.5 - 0.5) / 0.25)    # AP of topic 1 = (1/1)/2
    assert _value(out, "Znum_q") == "1.0000"


def test_version_and_help(files):
    status, out, err = _run(["-v"])
    assert (status, out, err) == (0, "", "trec_eval version 10.0-rc3\n")
    status, out, _ = _run(["-h", "-m", "all_prefs"])
    assert status == 0
    for name in ("prefs_avgjg_Rnonrel_ret", "map_avgjg", "yaap", "ideal_dcg", "--nosummary", "all_prefs:"):
        assert name in out


def test_wrong_format_for_measure(files):
    with pytest.raises(MeasureError, match="-R prefs"):
        _run(["-m", "prefs_simp", *files])
    with pytest.raises(ParameterError, match="-R"):
        _run(["-R", "bogus", *files])


def test_long_options_and_atol():
    a = parse_args(["--nosum", "--Max_retrieved_per_topic=7x", "--measure", "map", "--level_for_rel=2", "q", "r"])
    assert (a.summary, a.max_docs, a.measures, a.level, a.files) == (False, 7, ["map"], 2, ["q", "r"])
    with pytest.raises(ParameterError):
        parse_args(["--bogus"])


def test_api_expansion_stays_canonical():
    assert expand(["yaap", "prefs_simp", "map_avgjg"]) == []
    (label, _, m), = expand(["set_F.0.5"])
    assert m.name == "F" and math.isclose(m.get("beta") ** 2, 0.5)
    (label, _, d), = expand_exact(["set_F.0.5"])
    assert label == "set_F_0.5" and d.name == "set_F"


def test_prefs_hand_worked():
    # one JG, one sub-group: A(2) > B(1) > C(0); run retrieves C then A; B not retrieved.
    # ids: C=0, A=1 (retrieved, by rank), B=2. Prefs A>B (1<2, A retrieved: fulfilled implied),
    # A>C (1>0: not fulfilled, both retrieved), B>C (2>0: B not retrieved, C is: implied not fulfilled).
    j = PrefJudgments(jg=np.array([b"g"] * 3), jsg=np.array([b"s"] * 3), doc=np.array([b"A", b"B", b"C"]),
                      level=np.array([2.0, 1.0, 0.0]))
    v = query_prefs_values(np.array([b"C", b"A"]), j)
    assert v["prefs_num_prefs_poss"] == 3 and v["prefs_num_prefs_ful"] == 1 and v["prefs_num_prefs_ful_ret"] == 0
    assert v["prefs_simp"] == pytest.approx(1 / 3)
    assert v["prefs_simp_ret"] == 0.0                # the one retrieved pair is not fulfilled
    assert v["prefs_simp_imp"] == pytest.approx(1 / 3)
    assert v["prefs_pair"] == pytest.approx(1 / 3)    # pairs (C,A):0, (A,B):1, (C,B):0


def test_console_prefs_golden_row():
    here = os.path.join(os.path.dirname(os.path.dirname(__file__)), "golden")
    proc = subprocess.run([sys.executable, "-m", "rankmeter", "trec_eval", "-m", "all_prefs", "-q", "-R", "prefs",
                           os.path.join(here, "prefs.test"), os.path.join(here, "prefs.results.test")],
                          capture_output=True, timeout=300)
    assert proc.returncode == 0
    assert proc.stdout == open(os.path.join(here, "out.test.prefs"), "rb").read()
