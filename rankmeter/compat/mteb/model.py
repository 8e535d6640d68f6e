"""MTEB's model: what its ``RetrievalEvaluator`` (``calculate_retrieval_scores``, mteb 2.x) computes.

pytrec_eval's ``ndcg_cut``, ``map_cut``, ``recall``, ``P`` and ``success`` at each k (scores as C floats,
ties by docno descending, an empty ranking scored 0) and its own MRR@k (relevant: grade > 0, tied docs by
doc id descending since mteb #5092, as pytrec_eval), each mean over the queries pytrec_eval scores, rounded
to 5 decimals (its MRR is not rounded). ``ignore_identical_ids`` is off unless the task sets it (ArguAna,
Quora ...: ``--ignore-self``).
"""
from __future__ import annotations

from rankmeter.compat.convention import Convention

__all__ = ["CONVENTION", "K_VALUES", "MEASURES", "MAIN", "SUMMARY", "NAMES"]

K_VALUES = (1, 3, 5, 10, 20, 100, 1000)
#: MTEB's printed names -> rankmeter families
NAMES = {"NDCG": "nDCG", "MAP": "AP", "Recall": "R", "P": "P", "HitRate": "Success", "MRR": "RR"}
MEASURES = tuple(f"{family}@{k}" for family in ("nDCG", "AP", "R", "P", "Success", "RR") for k in K_VALUES)
MAIN = "nDCG@10"
SUMMARY = ("MTEB's RetrievalEvaluator: pytrec_eval's ndcg_cut, map_cut, recall, P and success at k in "
           "1, 3, 5, 10, 20, 100, 1000 and its own MRR@k (relevant: grade > 0, ties by doc id "
           "descending as pytrec_eval), main score nDCG@10, rounded to 5 decimals; ignore_identical_ids "
           "is off by default and set by the tasks whose corpus holds the queries (ArguAna, FEVER, "
           "FiQA2018, MSMARCO, Quora, TRECDL ...: add --ignore-self).")


def _per_measure(measure) -> dict:
    return {"rounding": None, "scores": "double"} if measure.family.name == "RR" else {}   # its own MRR: Python floats, not rounded


CONVENTION = Convention("mteb", scores="float32", empty_ranking="zero", rounding=5, per_measure=_per_measure,
                        note="MTEB RetrievalEvaluator: pytrec_eval's measures and its own MRR (ties by doc id "
                             "descending since mteb #5092, as pytrec_eval), rounded to 5; ignore_identical_ids "
                             "off unless the task sets it (Convention('mteb', self_id=True, rounding=5))")
