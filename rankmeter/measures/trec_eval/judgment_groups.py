"""trec_eval 10.0's judgment-group measures (``-R qrels_jg``): map_avgjg, P_avgjg, Rprec_mult_avgjg.

A ``qrels_jg`` file is ``qid jg docno rel``: each judgment group (say, one
assessor) judges the query on its own. Each measure is computed per group as
its ordinary counterpart and averaged over the groups of the query
(form_res_rels_jg.c, m_map_avgjg.c, m_P_avgjg.c, m_Rprec_mult_avgjg.c).
Per group the work is numpy over the ranking.
"""
from __future__ import annotations

import numpy as np

__all__ = ["query_jg_values"]


def _group_rels(ranked_docs: np.ndarray, docs: np.ndarray, rels: np.ndarray, *,
                judged_only: bool) -> np.ndarray:
    """Grade at each rank (-1 not judged; negative grades kept negative), -J drops those < 0."""
    order = np.argsort(docs, kind="stable")
    docs, rels = docs[order], rels[order]
    pos = np.minimum(np.searchsorted(docs, ranked_docs), max(len(docs) - 1, 0))
    hit = docs[pos] == ranked_docs if len(docs) else np.zeros(len(ranked_docs), bool)
    grade = np.where(hit, rels[pos] if len(docs) else -1, -1)
    grade = np.where(hit & (grade < 0), -2, grade)    # in pool but unjudged
    return grade[grade >= 0] if judged_only else grade


def query_jg_values(ranked_docs: np.ndarray, groups: list[tuple[np.ndarray, np.ndarray]], *,
                    level: int, judged_only: bool, cutoffs: list[int],
                    mults: list[float]) -> dict[str, np.ndarray]:
    """map_avgjg, P_avgjg (one value per cutoff) and Rprec_mult_avgjg (per multiple) of one query.

    Parameters
    ----------
    ranked_docs : numpy ``S`` array
        Retrieved documents in trec_eval's order, cut by ``-M``.
    groups : list of (docs, grades)
        One entry per judgment group, in group-id order.
    level : int
        trec_eval's ``-l``.
    judged_only : bool
        trec_eval's ``-J``.
    cutoffs, mults : lists
        P_avgjg cutoffs and Rprec_mult_avgjg multiples.

    Examples
    --------
    >>> g = [(np.array([b"a", b"b"]), np.array([1, 0])), (np.array([b"b"]), np.array([1]))]
    >>> v = query_jg_values(np.array([b"a", b"b"]), g, level=1, judged_only=False, cutoffs=[1], mults=[1.0])
    >>> float(v["map_avgjg"][0]), float(v["P_avgjg"][0])
    (0.75, 0.5)
    """
    ks = np.asarray(cutoffs, dtype=np.int64)
    ms = np.asarray(mults, dtype=np.float64)
    ap_sum, p_sum, rp_sum = 0.0, np.zeros(len(ks)), np.zeros(len(ms))
    for docs, rels in groups:
        grade = _group_rels(ranked_docs, docs, rels, judged_only=judged_only)
        is_rel = grade >= level
        num_ret = len(grade)
        num_rel = int(np.count_nonzero(rels >= max(level, 0)))   # judged grades >= -l (negatives never)
        hits = np.cumsum(is_rel)
        ranks = np.arange(1, num_ret + 1)
        rel_so_far = int(hits[-1]) if num_ret else 0
        if rel_so_far:   # m_map_avgjg.c: average precision over the group's relevant docs
            ap_sum += float(np.sum(hits[is_rel] / ranks[is_rel])) / num_rel
        # m_P_avgjg.c: relevant in the first min(k, num_ret) docs, over k
        upto = np.minimum(ks, num_ret)
        p_sum += np.where(upto > 0, hits[np.maximum(upto - 1, 0)] if num_ret else 0, 0) / ks
        # m_Rprec_mult_avgjg.c: cutoff (long)(mult * num_rel + 0.9); beyond the ranking num_rel_ret/cut;
        # inside it the precision there, only reached while relevant docs remain above (else 0).
        cuts = (ms * num_rel + 0.9).astype(np.int64)
        inside = (cuts >= 1) & (cuts <= num_ret)
        at = hits[np.clip(cuts - 1, 0, max(num_ret - 1, 0))] if num_ret else np.zeros(len(cuts))
        with np.errstate(invalid="ignore", divide="ignore"):
            rp_sum += np.where(cuts > num_ret, rel_so_far / np.maximum(cuts, 1),
                               np.where(inside, at / np.maximum(cuts, 1), 0.0))
    n = len(groups)
    div = n if n > 1 else 1   # the C code divides only when there are several groups
    return {"map_avgjg": np.array([ap_sum / div]), "P_avgjg": p_sum / div, "Rprec_mult_avgjg": rp_sum / div}
