"""Each evaluation tool's conventions as a bundle of explicit rankmeter settings.

A :class:`Convention` lists, switch by switch, what a tool does; :func:`convention_value` scores
a run under one through :func:`rankmeter.evaluate`'s core, so every difference between two tools is a
difference of named settings that ``rankmeter diff`` can switch one at a time
(:mod:`rankmeter.diff.attribution`). Each tool's convention is part of that tool's one model, kept
beside its drop-in (``rankmeter/compat/<tool>/model.py``); :data:`CONVENTIONS` gathers them.

The switches, in the fixed order the attribution walks them (``SWITCHES``):

==================  =======================================================================
cause               setting
==================  =======================================================================
``self_id``         drop run docs whose id equals the query id (BEIR ``ignore_identical_ids``)
``truncation``      keep only the first ``max_docs`` docs of each ranking
``judged_only``     drop unjudged docs before scoring (trec_eval ``-J``)
``negative_grades`` grades below the relevance level gain nothing (ranx) or are kept as gains
``rel_level``       relevance threshold ``rel`` (grades >= rel are relevant)
``scores``          scores read as ``double`` or as C ``float32`` (pytrec_eval stores each score in a C
                    float: two scores equal in single precision tie)
``ties``            order of tied scores: ``trec_eval`` (docno descending), ``docno`` (docno ascending:
                    ir_measures' judged, msmarco, compat providers), ``input`` (a stable sort by score: tied
                    docs as given), ``ranx`` (ranx's own unstable quicksort, :mod:`rankmeter.compat.ranx.ties`),
                    ``average`` (the expected value over their orders), ``torchmetrics`` (the order torch's own
                    ``topk``/``argsort`` gives the query's scores)
``positive_scores`` a relevant doc counts only with a score > 0 (TorchMetrics MAP/MRR/P/R)
``ap_denominator``  AP divided by R (trec_eval) or by the relevant docs found (TorchMetrics)
``gain``            nDCG gain ``linear`` (grade) or ``exp`` (2^grade - 1)
``ideal_pool``      nDCG's ideal ranking over the judged docs or over the retrieved ones
``ideal_depth``     with a retrieved pool: the whole ranking or only its top k
``unjudged_query``  a query retrieved but not judged: left out or scored 0
``missing_query``   a query judged but not retrieved: left out (``queries="both"``), scored as an empty
                    ranking (``zero``: ``queries="qrels"``, trec_eval ``-c``), or given the value 0 whatever the
                    measure (``default``: ir_measures' ``DEFAULT``, a count such as ``NumRel`` too)
``empty_ranking``   a judged query given with an empty ranking (``{"q": {}}``): scored 0 and averaged
                    (pytrec_eval), or read as a query the run lacks (``missing``: ``missing_query`` decides)
``aggregate``       the value over queries: the ``mean``, or the ``sum`` (trec_eval, pytrec_eval's
                    ``compute_aggregated_measure`` and ir_measures sum the counts: ``NumRet`` ...)
``rounding``        values rounded to a number of decimals (trec_eval prints 4, BEIR 5)
==================  =======================================================================

A tool whose settings differ by measure (ir_measures hands each measure to a provider with its own
tie order) gives a ``per_measure`` function; :meth:`Convention.for_measure` applies it.

The attribution undoes the reference's rounding first and applies the other's last (one ``rounding``
cause), so every other switch is measured on unrounded values.

Duplicate docs in a run are not a switch: every tool here reads a run as ``{query: {doc: score}}``
(one score per doc), so a duplicate is resolved when the run is read (the last score is kept).
"""
from __future__ import annotations

import numpy as np

from rankmeter.compat.convention import COUNTS, CORE_TIES, MEAN_ONLY, QUERY_SET, SWITCHES, TIE_ORDERS, Convention
from rankmeter.engine.param import Param

__all__ = ["Convention", "CONVENTIONS", "SWITCHES", "QUERY_SET", "MEAN_ONLY", "COUNTS", "TIE_ORDERS", "convention_value", "get_convention",
           "reproduce_option", "prepared", "averaged", "offers", "measure_for"]

def _models() -> dict[str, Convention]:
    """Each tool's convention, read from its model beside its drop-in."""
    from rankmeter.compat.beir.model import CONVENTION as beir
    from rankmeter.compat.ir_measures.model import CONVENTION as ir_measures
    from rankmeter.compat.mteb.model import CONVENTION as mteb
    from rankmeter.compat.pytrec_eval.model import CONVENTION as pytrec_eval
    from rankmeter.compat.ranx.model import CONVENTION as ranx
    from rankmeter.compat.sklearn.model import CONVENTION as sklearn
    from rankmeter.compat.torchmetrics.model import CONVENTION as torchmetrics
    from rankmeter.compat.trec_eval.model import CONVENTION as trec_eval
    return {c.name: c for c in (trec_eval, pytrec_eval, ir_measures, ranx, torchmetrics, sklearn, beir, mteb)}


CONVENTIONS = _models()

#: a convention by name (``rankmeter diff --as NAME,...``)
CONVENTION = Param("convention", "choice", None, "a tool's conventions", choices=tuple(CONVENTIONS))


def get_convention(name: str) -> Convention:
    return CONVENTIONS[CONVENTION.check(name)]


def offers(conv: Convention, measure) -> bool:
    return conv.families is None or measure.family.name in conv.families


def measure_for(conv: Convention, measure):
    """The rankmeter measure giving ``conv``'s per-query value of ``measure``."""
    params = {}
    family = measure.family.name
    if family in ("nDCG", "DCG"):
        params["gain"] = conv.gain
        if family == "nDCG" and conv.ideal_pool == "retrieved":
            params["ideal"] = "topk" if conv.ideal_depth == "k" and measure.cutoff else "run"
    if family == "AP" and conv.ap_denominator != "R":
        params["denom"] = conv.ap_denominator
    return measure.with_params(**params) if params else measure


def _torch_order(conv: Convention, measure) -> tuple | None:
    """``(call, k)`` of the torch call TorchMetrics orders ``measure``'s docs with, or None."""
    if conv.ties != "torchmetrics" or measure is None:
        return None
    from rankmeter.compat.torchmetrics.model import torch_call
    return torch_call(measure)


def _order_key(conv: Convention, measure):
    """What decides the order ``prepared`` puts a ranking in (None: the core orders it)."""
    if conv.ties in CORE_TIES:
        return None
    return conv.ties, _torch_order(conv, measure)


def _ordered(conv: Convention, docs: dict, measure) -> dict:
    """One query's ``{doc: score}`` in the tool's order (tied docs where the tool puts them)."""
    if not docs or conv.ties in CORE_TIES:
        return docs
    if conv.ties == "input":      # a stable sort by score: tied docs as given (Python's sorted, cwl_eval, BEIR's own)
        return dict(sorted(docs.items(), key=lambda kv: -kv[1]))
    if conv.ties == "docno":      # sorted(key=(-score, doc_id)): ir_measures' judged, msmarco, compat providers
        return dict(sorted(docs.items(), key=lambda kv: (-kv[1], kv[0])))
    if conv.ties == "ranx":
        from rankmeter.compat.ranx.model import ranked
        return ranked(docs)
    if conv.ties == "torchmetrics":
        from rankmeter.compat.torchmetrics.model import ranked
        return ranked(docs, *_torch_order(conv, measure))
    raise ValueError(f"unknown tie order {conv.ties!r}; expected one of {', '.join(TIE_ORDERS)}")


def prepared(conv: Convention, qrels: dict, run: dict, measure=None) -> tuple[dict, dict]:
    """The inputs ``conv`` scores: self-ids dropped, grades below the level zeroed, scores read as the tool
    reads them, each ranking in the tool's order (``measure``: the measure scored, for a tie order that
    depends on it), every query kept."""
    if conv.self_id:
        run = {q: {d: s for d, s in docs.items() if d != q} for q, docs in run.items()}
    if conv.negative_grades == "zero":
        qrels = {q: {d: (g if g >= conv.rel_level else 0) for d, g in docs.items()} for q, docs in qrels.items()}
    if conv.scores == "float32":
        with np.errstate(over="ignore"):
            run = {q: dict(zip(docs, np.asarray(list(docs.values()), np.float64).astype(np.float32).tolist()))
                   for q, docs in run.items()}
    if _order_key(conv, measure) is not None:
        run = {q: _ordered(conv, docs, measure) for q, docs in run.items()}
    # every run query is scored (a query without judgments has no relevant doc: 0), the mask decides the mean
    missing = {q: {} for q in run if q not in qrels}
    return {**qrels, **missing}, run


def averaged(conv: Convention, qrels: dict, run: dict) -> dict:
    """Which queries ``conv``'s mean is over: ``{query: bool}`` over the queries of either input."""
    out = {}
    for q in {**qrels, **run}:
        judged = q in qrels
        ranked = q in run and (bool(run[q]) or conv.empty_ranking == "zero")
        if judged and ranked:
            out[q] = True
        elif judged:
            out[q] = conv.missing_query in ("zero", "default")
        else:
            out[q] = conv.unjudged_query == "zero" and bool(run.get(q))
    return out


def convention_value(conv: Convention, qrels: dict, run: dict, measure, *, rounded: bool = True,
                     cache: dict | None = None) -> dict:
    """``{query: value}`` of ``measure`` under ``conv`` for every query of either input (a query the
    convention leaves out of its mean scores too: :func:`averaged` says which are averaged); rounded
    to the convention's decimals unless ``rounded=False``. ``cache``: a dict reused across calls on
    the same inputs, holding the prepared inputs as rankmeter tables (read once per distinct setting)."""
    from rankmeter.core.evaluator import Evaluator
    from rankmeter.io import as_qrels, as_run

    conv = conv.for_measure(measure)
    key = (conv.self_id, conv.negative_grades, conv.rel_level, conv.scores, _order_key(conv, measure))
    if cache is None or key not in cache:
        q2, r2 = prepared(conv, qrels, run, measure)
        scored = {q: docs for q, docs in r2.items() if docs}
        tables = (as_qrels(q2), as_run(scored) if scored else None, list({**q2, **r2}))
        if cache is None:
            cache = {}
        cache[key] = tables
    q_table, r_table, queries = cache[key]
    m = measure_for(conv, measure)
    values = {q: 0.0 for q in queries}
    if r_table is not None:
        ties = conv.ties if conv.ties in CORE_TIES else "input"
        res = Evaluator(q_table, [m], queries="qrels", rel=conv.rel_level, ties=ties,
                        judged_only=conv.judged_only, max_docs=conv.truncation,
                        positive_scores_only=conv.positive_scores).evaluate(r_table)
        for q, v in zip(res.queries, res.values(str(m))):
            values[q] = float(v)
    if conv.missing_query == "default":   # the tool's default value, not an empty ranking's
        values.update({q: 0.0 for q in qrels if q not in run})
    if rounded and conv.rounding is not None:
        values = {q: round(v, conv.rounding) for q, v in values.items()}
    return values


def reproduce_option(conv: Convention, measure) -> str:
    """The rankmeter call that reproduces ``conv``'s value of ``measure``."""
    m = measure_for(conv, measure)
    ties = conv.ties if conv.ties in CORE_TIES else "input"
    opts = [f"ties={ties!r}" if ties != "trec_eval" else "",
            f"rel={conv.rel_level}" if conv.rel_level != 1 else "",
            "judged_only=True" if conv.judged_only else "",
            f"max_docs={conv.truncation}" if conv.truncation else "",
            "positive_scores_only=True" if conv.positive_scores else "",
            "queries='qrels'" if conv.missing_query in ("zero", "default") else ""]
    pre = []
    if conv.scores == "float32":
        pre.append("scores rounded to C floats (float32)")
    pre += {"input": ["each query's docs sorted by score with a stable sort"],
            "docno": ["each query's docs sorted by score, then doc id ascending"],
            "ranx": ["each query's docs in ranx's own sort order (rankmeter.compat.ranx.ties)"]}.get(conv.ties, [])
    if _torch_order(conv, measure) is not None:
        pre.append(f"each query's docs in the order torch.{_torch_order(conv, measure)[0]} gives their float32 scores")
    if conv.self_id:
        pre.append("drop docs equal to the query id")
    if conv.negative_grades == "zero":
        pre.append("grades below rel set to 0")
    if conv.unjudged_query == "zero":
        pre.append("queries without judgments scored 0")
    if conv.missing_query == "default":
        pre.append("a judged query the run lacks given the value 0")
    if conv.empty_ranking == "zero":
        pre.append("a judged query with an empty ranking scored 0 and averaged")
    if conv.aggregate == "sum":
        pre.append("summed over queries (not averaged)")
    if conv.rounding is not None:
        pre.append(f"rounded to {conv.rounding} decimals")
    call = f"evaluate(qrels, run, {str(m)!r}" + "".join(", " + o for o in opts if o) + ")"
    return call + (" after: " + "; ".join(pre) if pre else "")
