"""``rankmeter trec_eval -h``: the options, input formats and every measure name, in rankmeter's words.

trec_eval prints its own help text and exits 0; this prints the same kind of
information (written for rankmeter, not copied) with the same exit status.
``-m NAME`` after ``-h`` adds the detailed entry of that measure or nickname.
"""
from __future__ import annotations

from rankmeter.measures.trec_eval import NICKNAMES, TREC_MEASURES, split_name

__all__ = ["help_text", "MEASURE_HELP"]

_OPTIONS = """\
rankmeter trec_eval [-h] [-v] [-q] [-m measure[.params]] [-c] [-n] [-l num]
   [-D debug_level] [-N num] [-M num] [-R rel_format] [-T results_format]
   [-Z zscore_file] rel_info_file results_file

Scores results_file against rel_info_file and prints what NIST trec_eval 10.0
prints, line for line. Each option also has trec_eval's long form.

 -h, --help                      this text (add -m NAME for details of a measure); exit 0
 -v, --version                   the trec_eval version emulated (on stderr); exit 0
 -q, --query_eval_wanted         also print every topic's values, before the summary
 -m, --measure NAME[.PARAMS]     a measure or nickname to print (repeatable); PARAMS are
                                 comma separated; the first -m giving parameters wins
 -c, --complete_rel_info_wanted  average over every topic of rel_info_file; a topic the run
                                 lacks is scored as trec_eval scores it (a one-document ranking)
 -n, --nosummary                 no summary (`all`) lines
 -l, --level_for_rel NUM         lowest grade that counts as relevant (default 1)
 -D, --Debug_level NUM           accepted for compatibility; no debug trace is printed
 -N, --Number_docs_in_coll NUM   collection size (used by utility's 4th weight)
 -M, --Max_retrieved_per_topic NUM  keep only the first NUM documents of each ranking
 -J, --Judged_docs_only          drop unjudged documents from each ranking first
 -R, --Rel_info_format FORMAT    qrels (default), prefs, qrels_prefs or qrels_jg
 -T, --Results_format FORMAT     trec_results (the only one)
 -Z, --Zscore FILE               print (value - mean) / stddev per topic and measure, from
                                 lines `qid measure mean stddev`; -1000000 where FILE has none

Formats
  results (trec_results): qid iter docno rank sim run_id [extra fields ignored]; the
      ranking is by sim, highest first; the run_id of the last line is printed.
  qrels: qid iter docno rel; rel < 0 marks a pooled but unjudged document.
  prefs: qid jg jsg docno rel_level; inside a judgment sub-group a higher level is
      preferred to a lower one; 0 means nonrelevant.
  qrels_prefs: a qrels file read as prefs (the iter field is the judgment group).
  qrels_jg: qid jg docno rel; every judgment group scores the topic on its own.
  Lines starting with '#' are comments.

Nicknames: """ + ", ".join(NICKNAMES) + ".\n"

#: One line per measure (rankmeter's own summary of what trec_eval computes).
MEASURE_HELP: dict[str, str] = {
    "runid": "the run tag of the results file",
    "num_q": "number of topics evaluated",
    "num_ret": "documents retrieved (summary: total)",
    "num_rel": "relevant documents judged (summary: total)",
    "num_rel_ret": "relevant documents retrieved (summary: total)",
    "map": "mean average precision",
    "gm_map": "geometric mean of the per-topic average precision",
    "Rprec": "precision after R documents, R the number relevant",
    "bpref": "binary preference: relevant docs ranked above judged nonrelevant ones",
    "recip_rank": "reciprocal rank of the first relevant document",
    "iprec_at_recall": "interpolated precision at recall levels (params: levels)",
    "P": "precision at cutoffs (params: cutoffs)",
    "relstring": "relevance of the top documents as a string (params: length)",
    "recall": "recall at cutoffs (params: cutoffs)",
    "infAP": "inferred average precision (pooled-but-unjudged documents are sampled)",
    "gm_bpref": "geometric mean of bpref",
    "Rprec_mult": "precision at multiples of R (params: multiples)",
    "utility": "p1*relret + p2*nonrelret + p3*relnotret + p4*nonrelnotret (params: p1..p4)",
    "11pt_avg": "mean interpolated precision over recall levels (params: levels)",
    "binG": "binary normalised gain G",
    "G": "normalised gain G (params: level=gain pairs)",
    "dcg": "discounted cumulative gain over the whole ranking (params: level=gain pairs)",
    "ndcg": "normalised DCG (params: level=gain pairs)",
    "ndcg_rel": "nDCG averaged over the relevant documents (params: level=gain pairs)",
    "Rndcg": "nDCG averaged at the ideal gain level changes (params: level=gain pairs)",
    "ndcg_cut": "nDCG at cutoffs (params: cutoffs)",
    "map_cut": "average precision at cutoffs (params: cutoffs)",
    "relative_P": "precision at cutoffs relative to the best possible (params: cutoffs)",
    "success": "1 if a relevant document is in the top k (params: cutoffs)",
    "set_P": "precision of the whole retrieved set",
    "set_relative_P": "set precision relative to the best possible",
    "set_recall": "recall of the whole retrieved set",
    "set_map": "set precision times set recall",
    "set_F": "(x+1)PR/(xP+R) of the retrieved set (params: x, default 1)",
    "num_nonrel_judged_ret": "judged nonrelevant documents retrieved",
    "prefs_num_prefs_poss": "preferences possible (both, one or neither document retrieved)",
    "prefs_num_prefs_ful": "preferences fulfilled, implied ones included",
    "prefs_num_prefs_ful_ret": "preferences fulfilled with both documents retrieved",
    "prefs_simp": "preferences fulfilled / possible",
    "prefs_pair": "per document pair, share of the judgment groups it agrees with, averaged",
    "prefs_avgjg": "prefs_simp per judgment group, averaged over groups",
    "prefs_avgjg_Rnonrel": "prefs_avgjg with each group's nonrelevant count set to its relevant count",
    "prefs_simp_ret": "prefs_simp over pairs with both documents retrieved",
    "prefs_pair_ret": "prefs_pair over pairs with both documents retrieved",
    "prefs_avgjg_ret": "prefs_avgjg over pairs with both documents retrieved",
    "prefs_avgjg_Rnonrel_ret": "prefs_avgjg_Rnonrel over retrieved documents",
    "prefs_simp_imp": "prefs_simp ignoring pairs with neither document retrieved",
    "prefs_pair_imp": "prefs_pair ignoring pairs with neither document retrieved",
    "prefs_avgjg_imp": "prefs_avgjg ignoring pairs with neither document retrieved",
    "map_avgjg": "average precision per judgment group, averaged (-R qrels_jg)",
    "P_avgjg": "precision at cutoffs per judgment group, averaged (-R qrels_jg)",
    "Rprec_mult_avgjg": "precision at multiples of R per judgment group, averaged (-R qrels_jg)",
    "yaap": "log((1 + S) / (1 + R - S)), S the sum of precisions at the relevant ranks",
    "rbp": "rank-biased precision (params: p=persistence, level=gain)",
    "rbp_resid": "the most rank-biased precision could still rise with unjudged documents",
    "unj": "share of unjudged documents in the top k (params: cutoffs)",
}


def help_text(measures: list[str]) -> str:
    """The full help, then the detail of each measure or nickname named with ``-m``.

    >>> text = help_text(["P"])
    >>> "--nosummary" in text and "P  " in text.split("Measures")[1]
    True
    """
    lines = [_OPTIONS, "Measures (trec_eval 10.0 names, in print order)"]
    width = max(map(len, TREC_MEASURES))
    for name in TREC_MEASURES:
        lines.append(f"  {name:<{width}}  {MEASURE_HELP.get(name, '')}")
    wanted = [split_name(m)[0] for m in measures]
    if wanted:
        lines.append("\nRequested measures")
        for name in wanted:
            if name in NICKNAMES:
                lines.append(f"  {name}: {' '.join(NICKNAMES[name])}")
            elif name in TREC_MEASURES:
                lines.append(f"  {name}: {MEASURE_HELP.get(name, '')}")
            else:
                lines.append(f"  {name}: not a trec_eval 10.0 measure")
    return "\n".join(lines) + "\n"
