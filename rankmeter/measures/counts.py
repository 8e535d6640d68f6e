"""Counts: queries, retrieved, relevant, relevant retrieved, judged non-relevant retrieved.

Summaries are sums over queries (trec_eval's ``num_*``).

Examples
--------
>>> import rankmeter
>>> qrels = {"q1": {"a": 1, "b": 0, "c": 2}, "q2": {"d": 1}}
>>> run = {"q1": ["a", "b", "x"], "q2": ["y", "d"]}
>>> rankmeter.evaluate(qrels, run, ["NumQ", "NumRet", "NumRel", "NumRelRet", "NumNonrelJudgedRet"]).mean
{'NumQ': 2, 'NumRet': 5, 'NumRel': 3, 'NumRelRet': 2, 'NumNonrelJudgedRet': 1}

At ``rel=2`` only c is relevant, and a and d (grade 1) join b as judged
non-relevant:

>>> rankmeter.evaluate(qrels, run, ["NumRel", "NumRelRet", "NumNonrelJudgedRet"], rel=2).mean
{'NumRel': 1, 'NumRelRet': 0, 'NumNonrelJudgedRet': 3}
"""
from __future__ import annotations

import numpy as np

from rankmeter.measures.aggregation import COUNT, SUM
from rankmeter.measures.base import Family, judged_nonrelevant, level_of, register


def _num_q(batch, m):
    return np.ones(batch.nq, dtype=np.int64)


def _num_ret(batch, m):
    return batch.num_ret.copy()


def _num_rel(batch, m):
    return batch.num_rel(level_of(batch, m)).copy()


def _num_rel_ret(batch, m):
    return batch.per_query_count(batch.is_rel(level_of(batch, m)))


def _num_nonrel_judged_ret(batch, m):
    return np.bincount(batch.query_of(judged_nonrelevant(batch, level_of(batch, m))), minlength=batch.nq)


for _name, _summary, _kernel in [
    ("NumQ", "number of queries evaluated", _num_q),
    ("NumRet", "number of documents retrieved", _num_ret),
    ("NumRel", "number of relevant documents judged (R)", _num_rel),
    ("NumRelRet", "number of relevant documents retrieved", _num_rel_ret),
    ("NumNonrelJudgedRet", "number of judged non-relevant documents retrieved", _num_nonrel_judged_ret),
]:
    register(Family(_name, _summary, _kernel, cutoff="none", aggregation=SUM, value_type=COUNT,
                    tie_average="kernel"))  # counts over the whole ranking: no order matters
