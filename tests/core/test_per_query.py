"""Evaluator.per_query: per-query values a block at a time, equal to evaluate's; IPrec's 9.x rounding."""
import numpy as np
import pytest

from rankmeter.core.evaluator import Evaluator
from rankmeter.errors import InputError

QRELS = {"q1": {"a": 1, "b": 0}, "q2": {"c": 2, "d": 1}, "q3": {"e": 1}, "q4": {"f": 1}}
RUN = {"q1": {"b": 0.9, "a": 0.4}, "q2": {"d": 0.8, "x": 0.5, "c": 0.3}, "q3": {"y": 0.7}}
MEASURES = ["AP", "P@2", "nDCG@3", "NumRet"]


def test_blocks_of_parts_give_evaluate_values_and_the_missing_queries_last():
    ev = Evaluator(QRELS, MEASURES, queries="qrels")
    whole = ev.evaluate(RUN)
    parts = iter([{"q1": RUN["q1"]}, {"q2": RUN["q2"], "q3": RUN["q3"]}])
    blocks = list(ev.per_query(parts))
    assert [b.queries for b in blocks] == [["q1"], ["q2", "q3"], ["q4"]]
    for m in MEASURES:
        got = np.concatenate([b.values(m) for b in blocks])
        assert got.tolist() == whole.values(m).tolist()
    assert blocks[-1].values("AP").tolist() == [0.0] and blocks[-1].values("NumRet").tolist() == [0]


def test_one_run_and_queries_both_give_no_block_for_missing_queries():
    blocks = list(Evaluator(QRELS, ["AP"]).per_query(RUN))
    assert len(blocks) == 1 and blocks[0].queries == ["q1", "q2", "q3"]
    assert blocks[0].values("AP").round(4).tolist() == [0.5, 0.8333, 0.0]


def test_a_query_in_two_parts_is_refused():
    ev = Evaluator(QRELS, ["AP"])
    with pytest.raises(InputError, match="scored in two parts"):
        list(ev.per_query(iter([{"q1": {"a": 1.0}}, {"q1": {"b": 1.0}}])))


def test_iprec_rounding_trec_eval_9():
    # R = 2 (a, c); ranked a, b, c: interpolated precision 1 at a, 2/3 at c. Recall 0.7 needs
    # lround(1.4) = 1 relevant doc (trec_eval 10.0) or floor(1.4 + 0.9) = 2 (trec_eval 9.x)
    r = Evaluator({"q": {"a": 1, "c": 1}}, ["IPrec@0.7", "IPrec(rounding=trec_eval_9)@0.7"]).evaluate(
        {"q": ["a", "b", "c"]})
    assert r["IPrec@0.7"] == 1.0 and r["IPrec(rounding=trec_eval_9)@0.7"] == pytest.approx(2 / 3)
