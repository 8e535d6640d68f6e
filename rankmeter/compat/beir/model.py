"""BEIR's model: what ``EvaluateRetrieval.evaluate`` and ``evaluate_custom`` (beir 2.x) compute.

``evaluate(qrels, results, k_values, ignore_identical_ids=True)`` pops every doc whose id is the query's
from ``results`` (in place), calls pytrec_eval for ``ndcg_cut``, ``map_cut``, ``recall`` and ``P`` at each k
(scores as C floats, ties by docno descending, an empty ranking scored 0), averages over the queries
pytrec_eval returns (judged and named by the run) and rounds each mean to 5 decimals.

``evaluate_custom(qrels, results, k_values, metric)`` is BEIR's own Python (``custom_metrics.py``): each
query's docs sorted by score with Python's stable ``sorted`` (tied docs as given), relevant = grade > 0,
no doc dropped, the sum over the run's queries divided by ``len(qrels)`` (every judged query averaged: a
missing one counts 0), rounded to 5. Its ``mrr`` is ``RR@k`` and ``top_k_accuracy`` is ``Success@k`` under
those rules; ``r_cap`` and ``hole`` have no rankmeter family (:mod:`rankmeter.compat.beir.custom`).
"""
from __future__ import annotations

from rankmeter.compat.convention import Convention

__all__ = ["CONVENTION", "CUSTOM", "K_VALUES", "MEASURES", "MAIN", "SUMMARY", "NAMES", "CUSTOM_NAMES"]

K_VALUES = (1, 3, 5, 10, 100, 1000)
#: BEIR's printed names -> rankmeter families (evaluate's four, then evaluate_custom's two with a family)
NAMES = {"NDCG": "nDCG", "MAP": "AP", "Recall": "R", "P": "P", "MRR": "RR", "Accuracy": "Success"}
#: evaluate_custom's ``metric`` spellings -> its measure (beir/retrieval/evaluation.py)
CUSTOM_NAMES = {"mrr": "mrr", "mrr@k": "mrr", "mrr_cut": "mrr", "recall_cap": "r_cap", "r_cap": "r_cap",
                "r_cap@k": "r_cap", "hole": "hole", "hole@k": "hole", "acc": "top_k_accuracy",
                "top_k_acc": "top_k_accuracy", "accuracy": "top_k_accuracy", "accuracy@k": "top_k_accuracy",
                "top_k_accuracy": "top_k_accuracy"}
MEASURES = tuple(f"{family}@{k}" for family in ("nDCG", "AP", "R", "P") for k in K_VALUES)
MAIN = "nDCG@10"
SUMMARY = ("BEIR's EvaluateRetrieval.evaluate: pytrec_eval's ndcg_cut, map_cut, recall and P at k in "
           "1, 3, 5, 10, 100, 1000 after dropping docs equal to the query id (ignore_identical_ids=True), "
           "means over the queries pytrec_eval scores (judged and named by the run, an empty ranking scoring 0), "
           "rounded to 5 decimals.")

#: evaluate_custom's settings (its mrr and top_k_accuracy)
CUSTOM = {"self_id": False, "scores": "double", "ties": "input", "missing_query": "zero", "empty_ranking": "zero"}


def _per_measure(measure) -> dict:
    return CUSTOM if measure.family.name in ("RR", "Success") else {}


CONVENTION = Convention("beir", self_id=True, scores="float32", empty_ranking="zero", rounding=5,
                        families=("nDCG", "AP", "R", "P", "RR", "Success"), per_measure=_per_measure,
                        note="BEIR EvaluateRetrieval.evaluate: pytrec_eval after ignore_identical_ids, rounded to "
                             "5; RR and Success from evaluate_custom (mrr, top_k_accuracy: a stable sort, every "
                             "judged query averaged)")
