"""rankmeter.explain and `rankmeter explain`: per-rank tables and hand-style formulas."""
from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankmeter
from rankmeter import InputError, explain

# MEASURES.md S3: top-5 grades 5,3,2,1,2; the query's 7 judged grades 5,3,2,1,2,4,0
S3_QRELS = {"q": dict(zip("abcdefg", [5, 3, 2, 1, 2, 4, 0]))}
S3_RUN = {"q": list("abcde")}


def test_s3_reads_like_the_seed_hand_computation():
    e = explain(S3_QRELS, S3_RUN, "nDCG(gain=exp)@5", "q")
    assert e.formula == [
        "DCG@5 = 31/1 + 7/1.585 + 3/2 + 1/2.322 + 3/2.585 = 38.5077",
        "ideal DCG@5 (qrels) = 31/1 + 15/1.585 + 7/2 + 3/2.322 + 3/2.585 = 46.4165",
        "nDCG(gain=exp)@5 = 38.5077 / 46.4165 = 0.8296",
    ]
    assert e.columns == ["rank", "doc", "grade", "gain", "discount", "contribution", "running total"]
    assert [row[3] for row in e.rows] == [31, 7, 3, 1, 3]
    assert e.rows[-1][-1] == pytest.approx(38.5077, abs=1e-4)
    assert [row[1] for row in e.ideal_rows] == [31, 15, 7, 3, 3]
    assert e.value == pytest.approx(0.8296, abs=1e-4)
    text = str(e)
    assert "ideal ranking:" in text and "38.5077" in text


def test_s3_cg_and_s3b_variants():
    assert explain(S3_QRELS, S3_RUN, "CG@5", "q").formula == ["CG@5 = 5 + 3 + 2 + 1 + 2 = 13"]
    jk = explain(S3_QRELS, S3_RUN, "DCG(gain=exp, discount=jk)@5", "q")
    assert jk.formula == ["DCG@5 = 31/1 + 7/1 + 3/1.585 + 1/2 + 3/2.322 = 41.6848"]
    topk = explain(S3_QRELS, S3_RUN, "nDCG(gain=exp, ideal=topk)@5", "q")
    assert topk.formula[-1].endswith("= 0.9977")


def test_ap_formula_s1_topic_1():
    # S1: 4 relevant, retrieved relevant at ranks 1, 2, 4, 7 -> AP 0.8304
    docs = [f"d{i}" for i in range(1, 11)]
    rel = {"d1", "d2", "d4", "d7"}
    qrels = {"t": {d: int(d in rel) for d in docs}}
    e = explain(qrels, {"t": docs}, "AP", "t")
    assert e.formula[0].startswith("AP = (1/1 + 2/2 + 3/4 + 4/7) / 4 = 0.8304")


def test_rr_and_counting_formulas():
    qrels = {"t": {"a": 0, "b": 0, "c": 1}}
    run = {"t": ["a", "b", "c"]}
    assert explain(qrels, run, "RR", "t").formula == ["RR = 1/3 = 0.3333  (first relevant doc at rank 3)"]
    assert explain(qrels, run, "P@2", "t").formula == ["P@2 = 0 relevant / 2 (k) = 0.0000"]
    assert explain(qrels, run, "R@3", "t").formula == ["R@3 = 1 relevant retrieved / R = 1 = 1.0000"]


def test_measures_without_an_explainer_show_the_ranking_and_value():
    e = explain(S3_QRELS, S3_RUN, "Bpref", "q")
    assert e.columns == ["rank", "doc", "grade"]
    assert e.value == pytest.approx(rankmeter.evaluate(S3_QRELS, S3_RUN, "Bpref")["Bpref"])


def test_unknown_query_is_a_clear_error():
    with pytest.raises(InputError, match="query 'nope' has no judgments"):
        explain(S3_QRELS, S3_RUN, "AP", "nope")


EXPLAINED = ["AP", "AP@3", "AP(denom=hits)@3", "RR", "RR@2", "P@3", "R@4", "Success@2", "CG@4", "DCG@4",
             "nDCG@4", "nDCG(gain=exp, discount=jk, ideal=run)@3", "nDCG(ideal=topk)@2", "ERR@4", "nERR@4",
             "RBP(p=0.5)", "RBP(p=0.7, gain=graded)"]


@st.composite
def one_query(draw):
    n_docs = draw(st.integers(1, 8))
    docs = [f"d{i}" for i in range(n_docs)]
    grades = {d: draw(st.integers(-1, 3)) for d in docs if draw(st.booleans())}
    grades.setdefault("extra", draw(st.integers(0, 3)))
    scores = {d: float(draw(st.integers(0, 3))) for d in docs}
    return {"q": grades}, {"q": scores}


@settings(max_examples=60, deadline=None)
@given(one_query(), st.sampled_from(EXPLAINED))
def test_explained_value_equals_evaluate(data, measure):
    qrels, run = data
    e = explain(qrels, run, measure, "q")
    value = rankmeter.evaluate(qrels, run, measure)[measure]
    assert e.value == pytest.approx(value, rel=1e-9, abs=1e-12)
    assert not any("approximate" in line for line in e.formula)
    # the rank column lists the whole ranking in trec_eval order
    assert [row[0] for row in e.rows] == list(range(1, len(e.rows) + 1))


def test_cli_explain_text_and_json(tmp_path, cli):
    qrels = tmp_path / "qrels.txt"
    run = tmp_path / "run.txt"
    qrels.write_text("".join(f"q 0 {d} {g}\n" for d, g in zip("abcdefg", [5, 3, 2, 1, 2, 4, 0])))
    run.write_text("".join(f"q Q0 {d} {i + 1} {10 - i} tag\n" for i, d in enumerate("abcde")))
    out = cli("explain", str(qrels), str(run), "--measure", "nDCG(gain=exp)@5", "--query", "q")
    assert out.returncode == 0, out.stderr
    assert "DCG@5 = 31/1 + 7/1.585 + 3/2 + 1/2.322 + 3/2.585 = 38.5077" in out.stdout
    out = cli("explain", str(qrels), str(run), "-m", "AP", "-Q", "q", "--format", "json")
    obj = json.loads(out.stdout)
    assert obj["columns"][:4] == ["rank", "doc", "score", "grade"]
    assert np.isclose(obj["value"], 1.0 * (1 + 1 + 1 + 1 + 1) / 6)


# ------------------------------------------------ explanations agree with evaluate by construction
def test_rbp_explained_at_rel_0_is_the_evaluated_value():
    """Grade-0 docs are relevant at rel=0: 0.5 * (1 + 0.5 + 0.25) = 0.875 (the old explain showed 0.25)."""
    qrels, run = {"q": {"a": 0, "b": 1, "c": 0}}, {"q": ["a", "b", "c"]}
    ex = explain(qrels, run, "RBP(p=0.5)", "q", rel=0)
    assert ex.value == 0.875 == rankmeter.evaluate(qrels, run, "RBP(p=0.5)", rel=0)["RBP(p=0.5)"]
    assert [row[-3] for row in ex.rows] == [1.0, 1.0, 1.0]  # the gain column: every doc relevant at rel=0
    assert ex.formula[-1].endswith("= 0.8750")


def test_err_in_the_report_uses_the_whole_qrels_top_grade(tmp_path):
    """q2's own top grade is 1, the qrels' is 2: its explanation divides by 2^2 as its table value does."""
    from rankmeter.report.html import render_report

    qrels = {"q1": {"a": 2, "b": 0}, "q2": {"c": 1, "d": 0}}
    runs = {"s1": {"q1": ["a", "b"], "q2": ["c", "d"]}, "s2": {"q1": ["b", "a"], "q2": ["d", "c"]}}
    value = rankmeter.evaluate(qrels, runs["s1"], "ERR").values("ERR")[1]
    assert value == 0.25  # (2^1 - 1) / 2^2
    page = render_report(qrels, runs, ["ERR"], plots=False, test="randomization", permutations=100)
    assert "ERR = 1*0.25/1 = 0.2500" in page and "g_max = 2" in page
    assert "0.0625" not in page


def test_success_without_a_cutoff_reads_the_whole_ranking():
    ex = explain({"q": {"b": 1}}, {"q": ["a", "b"]}, "Success", "q")
    assert ex.value == 1.0
    assert ex.formula == ["Success = 1  (1 relevant retrieved)"]
