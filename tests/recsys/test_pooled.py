"""Pooled AUC on the core's ranked rows: one row per ranked doc (diversity qrels too), rel validated,
the evaluation options applied as evaluate applies them; against scikit-learn on the flattened rows."""
from __future__ import annotations

import pytest
from sklearn.metrics import roc_auc_score

from rankmeter import ParameterError
from rankmeter.recsys.pooled_auc import pooled_auc


def test_a_doc_judged_for_two_subtopics_is_one_row(tmp_path):
    """b is judged non-relevant for subtopics 1 and 2: the Arrow join used to count it twice (1/3)."""
    qrels = tmp_path / "div.qrels"
    qrels.write_text("q1 1 a 1\nq1 1 b 0\nq1 2 b 0\nq1 2 c 0\n")
    run = {"q1": {"a": 0.2, "b": 0.5, "c": 0.1}}
    assert pooled_auc(str(qrels), run) == roc_auc_score([1, 0, 0], [0.2, 0.5, 0.1]) == 0.5


def test_rel_is_validated_and_read_as_evaluate_reads_it(tmp_path):
    qrels = {"q1": {"a": 2, "b": 1, "c": 0}}
    run = {"q1": {"a": 0.9, "b": 0.1, "c": 0.5}}
    assert pooled_auc(qrels, run, rel=2) == roc_auc_score([1, 0, 0], [0.9, 0.1, 0.5])
    assert pooled_auc(qrels, run, rel=1) == roc_auc_score([1, 1, 0], [0.9, 0.1, 0.5])
    for bad in ("2", float("nan"), None):
        with pytest.raises(ParameterError, match="rel="):
            pooled_auc(qrels, run, rel=bad)


def test_options_reach_the_rows():
    """max_docs=2 keeps each query's first two docs, as evaluate scores them."""
    qrels = {"q1": {"a": 1, "c": 1}, "q2": {"x": 1}}
    run = {"q1": {"a": 0.9, "b": 0.8, "c": 0.1}, "q2": {"x": 0.3, "y": 0.7}}
    assert pooled_auc(qrels, run, max_docs=2) == roc_auc_score([1, 0, 0, 1], [0.9, 0.8, 0.7, 0.3])
    assert pooled_auc(qrels, run) == roc_auc_score([1, 0, 1, 0, 1], [0.9, 0.8, 0.1, 0.7, 0.3])
