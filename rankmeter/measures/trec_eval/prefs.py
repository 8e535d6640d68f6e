"""trec_eval 10.0's preference measures (``-R prefs`` / ``-R qrels_prefs``).

A preference file judges, per query, judgment groups (JG) made of sub-groups
(JSG): inside one JSG every document with a higher level is preferred to every
document with a lower one. A JG with one JSG is a set of equivalence classes
(its levels); a JG with several JSGs is a preference relation closed under
transitivity (form_prefs_counts.c: form_jg_ec / form_jg_pa, add_transitives).

Each judged document gets an internal id: the retrieved ones by rank
(0 .. num_judged_ret-1), the rest after them in docno order
(form_prefs_counts.c: form_prefs_and_ranks). A preference ``a > b`` is then
"fulfilled" when ``id(a) < id(b)``; "retrieved" when both are retrieved,
"implied" when exactly one is, "not occurring" when neither is. The measures
(m_prefs_*.c) are ratios of these counts per query, per JG, or per document
pair (the counts array, summed over JGs).

Per query the work is numpy over the query's judged documents (pair masks and
boolean matrices); queries and JGs are visited one after another.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rankmeter.errors import InputError

__all__ = ["PREFS_MEASURES", "query_prefs_values"]

#: trec_eval 10.0's preference measures in its print order (measures.c), and whether each is a count.
PREFS_MEASURES: dict[str, bool] = {
    "prefs_num_prefs_poss": True, "prefs_num_prefs_ful": True, "prefs_num_prefs_ful_ret": True,
    "prefs_simp": False, "prefs_pair": False, "prefs_avgjg": False, "prefs_avgjg_Rnonrel": False,
    "prefs_simp_ret": False, "prefs_pair_ret": False, "prefs_avgjg_ret": False,
    "prefs_avgjg_Rnonrel_ret": False, "prefs_simp_imp": False, "prefs_pair_imp": False,
    "prefs_avgjg_imp": False,
}


@dataclass
class _JGCounts:
    ful_ret: int = 0
    poss_ret: int = 0
    ful_imp: int = 0
    poss_imp: int = 0
    notoccur: int = 0
    num_rel: int = 0
    num_rel_ret: int = 0
    num_nonrel: int = 0
    num_nonrel_ret: int = 0
    # (ful, poss) after the Rnonrel recalculations, when trec_eval would do them
    rnonrel: tuple[int, int] | None = None
    rnonrel_ret: tuple[int, int] | None = None


def _internal_ids(ranked_docs: np.ndarray, judged: np.ndarray) -> tuple[np.ndarray, int]:
    """Internal id of every judged doc (sorted unique ``judged``) and num_judged_ret."""
    pos = np.searchsorted(judged, ranked_docs)
    pos_c = np.minimum(pos, len(judged) - 1)
    hit = judged[pos_c] == ranked_docs
    ret_idx = pos_c[hit]                       # judged docs in rank order
    njr = len(ret_idx)
    ids = np.empty(len(judged), dtype=np.int64)
    ids[ret_idx] = np.arange(njr)
    unret = np.ones(len(judged), dtype=bool)
    unret[ret_idx] = False
    ids[unret] = njr + np.arange(int(unret.sum()))   # not retrieved: after, in docno order
    return ids, njr


def _classify(a: np.ndarray, b: np.ndarray, njr: int) -> tuple[int, int, int, int, int]:
    """Counts for preferences a > b (internal ids): ful_ret, poss_ret, ful_imp, poss_imp, notoccur.

    As add_ec_pref_to_jg / add_pa_pref_to_jg: possible counts include the fulfilled ones.
    """
    ful = a < b
    a_ret, b_ret = a < njr, b < njr
    ful_ret = int(np.count_nonzero(ful & b_ret))
    ful_imp = int(np.count_nonzero(ful & ~b_ret & a_ret))
    unful_ret = int(np.count_nonzero(~ful & a_ret))
    unful_imp = int(np.count_nonzero(~ful & ~a_ret & b_ret))
    notoccur = int(np.count_nonzero(~a_ret & ~b_ret))
    return ful_ret, ful_ret + unful_ret, ful_imp, ful_imp + unful_imp, notoccur


def _ratio_counts(a: np.ndarray, b: np.ndarray, njr: int) -> tuple[int, int]:
    """(ful, poss) of the Rnonrel recalculation: fulfilled iff a < b and a retrieved."""
    ful = int(np.count_nonzero((a < b) & (a < njr)))
    return ful, ful + (len(a) - ful)


def _ec_group(ids: np.ndarray, level: np.ndarray, njr: int, counts: np.ndarray) -> _JGCounts:
    """A JG with one sub-group: equivalence classes by level (form_jg_ec, add_ec_pref_to_jg)."""
    order = np.lexsort((ids, -level))
    ids, level = ids[order], level[order]
    hi, lo = np.nonzero(level[:, None] > level[None, :])
    a, b = ids[hi], ids[lo]
    if np.any(a == b):
        raise InputError("a document has two different levels in the same judgment sub-group "
                         "(trec_eval's form_prefs_counts rejects this); give each document one level")
    np.add.at(counts, (a, b), 1)
    jg = _JGCounts(*_classify(a, b, njr))
    rel = level > 0.0
    ret = ids < njr
    jg.num_rel, jg.num_rel_ret = int(rel.sum()), int((rel & ret).sum())
    jg.num_nonrel, jg.num_nonrel_ret = int((~rel).sum()), int((~rel & ret).sum())

    # m_prefs_avgjg_Rnonrel.c / _Rnonrel_ret.c `recalculate`: the last class is cut to its first
    # R ids; pairs among the other classes, then every class (the last one included, as the C
    # loop runs over all classes) against the cut class.
    last = level == level[-1]
    not_last = ~last
    if jg.num_rel < jg.num_nonrel:
        keep = ids[last][:jg.num_rel]
        i, j = np.nonzero((level[:, None] > level[None, :]) & not_last[None, :])
        f1, p1 = _ratio_counts(ids[i], ids[j], njr)
        a2 = np.repeat(ids, len(keep))
        b2 = np.tile(keep, len(ids))
        f2, p2 = _ratio_counts(a2, b2, njr)
        jg.rnonrel = (f1 + f2, p1 + p2)
    if jg.num_rel_ret < jg.num_nonrel_ret:
        r_ids, r_level, r_last = ids[ret], level[ret], last[ret]
        keep = ids[last][:jg.num_rel_ret]
        keep = keep[keep < njr]
        i, j = np.nonzero((r_level[:, None] > r_level[None, :]) & ~r_last[None, :])
        f1 = int(np.count_nonzero(r_ids[i] < r_ids[j]))
        a2, b2 = np.repeat(r_ids, len(keep)), np.tile(keep, len(r_ids))
        f2 = int(np.count_nonzero(a2 < b2))
        jg.rnonrel_ret = (f1 + f2, len(i) + len(a2))
    return jg


def _closure(pref: np.ndarray) -> np.ndarray:
    """Transitive closure of a preference matrix (add_transitives), diagonal cleared."""
    n = len(pref)
    reach = pref | np.eye(n, dtype=bool)
    while True:
        nxt = (reach.astype(np.uint32) @ reach.astype(np.uint32)) > 0
        if np.array_equal(nxt, reach):
            break
        reach = nxt
    np.fill_diagonal(reach, False)
    if np.any(reach & reach.T):
        raise InputError("inconsistent preferences inside one judgment group (a > b and b > a, "
                         "possibly through other documents); trec_eval aborts on this")
    return reach


def _pa_counts(pref: np.ndarray, keep: np.ndarray, njr: int) -> tuple[int, int, int, int, int]:
    a, b = np.nonzero(pref & keep[:, None] & keep[None, :])
    return _classify(a, b, njr)


def _pa_group(ids: np.ndarray, jsg: np.ndarray, level: np.ndarray, n: int, njr: int,
              counts: np.ndarray) -> _JGCounts:
    """A JG with several sub-groups: a preference matrix (form_jg_pa, add_pa_pref_to_jg)."""
    order = np.lexsort((ids, -level, jsg))
    ids, jsg, level = ids[order], jsg[order], level[order]
    rel_array = np.full(n, -1.0)
    for doc, lev in zip(ids.tolist(), level.tolist()):      # last line of a doc wins, with checks
        old = rel_array[doc]
        if (old > 0.0 and lev == 0.0) or (old == 0.0 and lev > 0.0):
            raise InputError("a document is both relevant (level > 0) and nonrelevant (level 0) in one "
                             "judgment group; trec_eval's form_prefs_counts rejects this")
        rel_array[doc] = lev
    pref = np.zeros((n, n), dtype=bool)
    hi, lo = np.nonzero((jsg[:, None] == jsg[None, :]) & (level[:, None] > level[None, :]))
    pref[ids[hi], ids[lo]] = True
    pref = _closure(pref)
    counts += pref
    everyone = np.ones(n, dtype=bool)
    jg = _JGCounts(*_pa_counts(pref, everyone, njr))
    rel, nonrel = rel_array > 0.0, rel_array == 0.0
    jg.num_rel, jg.num_nonrel = int(rel.sum()), int(nonrel.sum())
    jg.num_rel_ret, jg.num_nonrel_ret = int(rel[:njr].sum()), int(nonrel[:njr].sum())

    # recalculate (PA branch): nonrelevant docs after the (num_rel+1)-th one (in id order) are dropped.
    def dropped_after(limit: int) -> np.ndarray:
        seen = np.cumsum(nonrel[:limit])
        hit = np.nonzero(seen == jg.num_rel + 1)[0]
        first = int(hit[0]) if len(hit) else limit
        return nonrel & (np.arange(n) >= first)

    if jg.num_rel < jg.num_nonrel:
        f_ret, p_ret, f_imp, p_imp, notoc = _pa_counts(pref, ~dropped_after(n), njr)
        jg.rnonrel = (f_ret + f_imp, p_ret + p_imp + notoc)
    if jg.num_rel_ret < jg.num_nonrel_ret:
        # m_prefs_avgjg_Rnonrel_ret.c scans only the retrieved docs, but with num_rel (not num_rel_ret)
        keep = ~dropped_after(njr)
        keep[njr:] = False
        f_ret, p_ret, _, _, _ = _pa_counts(pref, keep, njr)
        jg.rnonrel_ret = (f_ret, p_ret)
    return jg


def _pairs(counts: np.ndarray, njr: int) -> dict[str, float]:
    """m_prefs_pair*.c: mean over document pairs with any preference of the share of JGs it agrees with.

    Retrieved pairs (i < j < njr) and, for pair/pair_imp, retrieved-unretrieved pairs add their
    share; prefs_pair also counts (with share 0) the pairs of two unretrieved documents.
    """
    i, j = np.nonzero(np.triu((counts > 0) | (counts.T > 0), 1))
    forward, backward = counts[i, j].astype(np.float64), counts[j, i].astype(np.float64)
    share_ij = forward / (forward + backward)           # i has the lower internal id
    both_ret, one_ret = j < njr, (i < njr) & (j >= njr)
    ret_sum, ret_n = float(share_ij[both_ret].sum()), int(both_ret.sum())
    imp_sum, imp_n = ret_sum + float(share_ij[one_ret].sum()), ret_n + int(one_ret.sum())
    all_n = len(i)
    return {"ret": ret_sum / ret_n if ret_n else 0.0, "imp": imp_sum / imp_n if imp_n else 0.0,
            "all": imp_sum / all_n if all_n else 0.0}


def _avg(ful: np.ndarray, poss: np.ndarray, num_jgs: int) -> float:
    """Mean over JGs of ful/poss, skipping poss == 0, printed only when the sum is > 0."""
    ok = poss > 0
    total = float(np.sum(ful[ok] / poss[ok]))
    return total / num_jgs if total > 0.0 else 0.0


def _avg_rnonrel(parts: list[tuple[int, int]], num_jgs: int) -> float:
    """As _avg but without the poss == 0 guard: trec_eval divides anyway, and a NaN sum prints 0."""
    with np.errstate(invalid="ignore", divide="ignore"):
        total = float(np.sum(np.array([f for f, _ in parts], float) / np.array([p for _, p in parts], float)))
    return total / num_jgs if total > 0.0 else 0.0


def query_prefs_values(ranked_docs: np.ndarray, judgments) -> dict[str, float]:
    """Every preference measure of one query.

    Parameters
    ----------
    ranked_docs : numpy array of bytes (``S`` dtype)
        The retrieved documents in rank order (already cut by ``-M``).
    judgments : rankmeter.io.rel_formats.PrefJudgments
        The query's preference lines (what :func:`rankmeter.io.rel_formats.read_prefs` reads): parallel
        arrays ``jg``, ``jsg``, ``doc`` (bytes) and ``level`` (float).

    Returns
    -------
    dict
        trec_eval measure name -> value.

    Examples
    --------
    >>> from rankmeter.io.rel_formats import PrefJudgments
    >>> j = PrefJudgments(jg=np.array([b"g", b"g"]), jsg=np.array([b"s", b"s"]),
    ...                   doc=np.array([b"A", b"B"]), level=np.array([2.0, 1.0]))
    >>> query_prefs_values(np.array([b"B", b"A"]), j)["prefs_simp"]
    0.0
    """
    judged = np.unique(judgments.doc)
    n = len(judged)
    ids_of_judged, njr = _internal_ids(ranked_docs, judged)
    entry_ids = ids_of_judged[np.searchsorted(judged, judgments.doc)]
    counts = np.zeros((n, n), dtype=np.int32)   # C: unsigned short per pair
    groups = []
    jg_names, jg_index = np.unique(judgments.jg, return_inverse=True)
    for g in range(len(jg_names)):
        sel = jg_index == g
        if len(np.unique(judgments.jsg[sel])) > 1:
            groups.append(_pa_group(entry_ids[sel], judgments.jsg[sel], judgments.level[sel], n, njr, counts))
        else:
            groups.append(_ec_group(entry_ids[sel], judgments.level[sel], njr, counts))
    col = {name: np.array([getattr(g, name) for g in groups], dtype=np.int64)
           for name in ("ful_ret", "poss_ret", "ful_imp", "poss_imp", "notoccur",
                        "num_rel", "num_rel_ret", "num_nonrel", "num_nonrel_ret")}
    num_jgs = len(groups)
    ful_all = col["ful_ret"] + col["ful_imp"]
    poss_all = col["poss_ret"] + col["poss_imp"] + col["notoccur"]
    poss_imp = col["poss_ret"] + col["poss_imp"]

    def simp(f: np.ndarray, p: np.ndarray) -> float:
        return float(f.sum()) / float(p.sum()) if p.sum() else 0.0

    pair = _pairs(counts, njr)
    rnonrel, rnonrel_ret = [], []
    for g in groups:
        R, N = g.num_rel, g.num_nonrel
        if g.rnonrel is None:   # R >= N: add R-N fulfilled nonrelevant docs per relevant doc
            rnonrel.append((g.ful_ret + g.ful_imp + g.num_rel_ret * (R - N),
                            g.poss_ret + g.poss_imp + g.notoccur + g.num_rel * (R - N)))
        else:
            rnonrel.append(g.rnonrel)
        R, N = g.num_rel_ret, g.num_nonrel_ret
        if g.rnonrel_ret is None:   # m_prefs_avgjg_Rnonrel_ret.c adds num_rel (not num_rel_ret) * (R-N)
            rnonrel_ret.append((g.ful_ret + g.num_rel_ret * (R - N), g.poss_ret + g.num_rel * (R - N)))
        else:
            rnonrel_ret.append(g.rnonrel_ret)
    return {
        "prefs_num_prefs_poss": float(poss_all.sum()),
        "prefs_num_prefs_ful": float(ful_all.sum()),
        "prefs_num_prefs_ful_ret": float(col["ful_ret"].sum()),
        "prefs_simp": simp(ful_all, poss_all),
        "prefs_pair": pair["all"],
        "prefs_avgjg": _avg(ful_all, poss_all, num_jgs),
        "prefs_avgjg_Rnonrel": _avg_rnonrel(rnonrel, num_jgs),
        "prefs_simp_ret": simp(col["ful_ret"], col["poss_ret"]),
        "prefs_pair_ret": pair["ret"],
        "prefs_avgjg_ret": _avg(col["ful_ret"], col["poss_ret"], num_jgs),
        "prefs_avgjg_Rnonrel_ret": _avg_rnonrel(rnonrel_ret, num_jgs),
        "prefs_simp_imp": simp(ful_all, poss_imp),
        "prefs_pair_imp": pair["imp"],
        "prefs_avgjg_imp": _avg(ful_all, poss_imp, num_jgs),
    }
