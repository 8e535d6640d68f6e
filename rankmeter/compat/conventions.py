"""Each evaluation tool's conventions as a bundle of explicit rankmeter settings.

A :class:`Convention` lists, switch by switch, what a tool does; :func:`convention_value` scores
a run under one through :func:`rankmeter.evaluate`, so every difference between two tools is a
difference of named settings that ``rankmeter diff`` can switch one at a time
(:mod:`rankmeter.diff.attribution`).

The switches, in the fixed order the attribution walks them (``SWITCHES``):

==================  =======================================================================
cause               setting
==================  =======================================================================
``self_id``         drop run docs whose id equals the query id (BEIR ``ignore_identical_ids``)
``truncation``      keep only the first ``max_docs`` docs of each ranking
``judged_only``     drop unjudged docs before scoring (trec_eval ``-J``)
``negative_grades`` grades below the relevance level gain nothing (ranx) or are kept as gains
``rel_level``       relevance threshold ``rel`` (grades >= rel are relevant)
``ties``            order of tied scores: ``trec_eval`` (docno descending), ``input`` (a stable sort by
                    score: tied docs as given), ``average`` (the expected value over their orders),
                    ``torchmetrics`` (the order torch's own ``topk``/``argsort`` gives the query's scores)
``positive_scores`` a relevant doc counts only with a score > 0 (TorchMetrics MAP/MRR/P/R)
``ap_denominator``  AP divided by R (trec_eval) or by the relevant docs found (TorchMetrics)
``gain``            nDCG gain ``linear`` (grade) or ``exp`` (2^grade - 1)
``ideal_pool``      nDCG's ideal ranking over the judged docs or over the retrieved ones
``ideal_depth``     with a retrieved pool: the whole ranking or only its top k
``unjudged_query``  a query retrieved but not judged: left out or scored 0
``missing_query``   a query judged but not retrieved: left out (``queries="both"``) or 0 (``"qrels"``)
``rounding``        values rounded to a number of decimals (trec_eval prints 4, BEIR 5)
==================  =======================================================================

The attribution undoes the reference's rounding first and applies the other's last (one ``rounding``
cause), so every other switch is measured on unrounded values.

Duplicate docs in a run are not a switch: every tool here reads a run as ``{query: {doc: score}}``
(one score per doc), so a duplicate is resolved when the run is read (the last score is kept).
"""
from __future__ import annotations

from dataclasses import dataclass, fields, replace

from rankmeter.engine.param import Param

__all__ = ["Convention", "CONVENTIONS", "SWITCHES", "convention_value", "get_convention", "reproduce_option"]

#: the attribution's order: the switch's name (a cause) and the Convention field it sets
SWITCHES = ("self_id", "truncation", "judged_only", "negative_grades", "rel_level", "ties", "positive_scores",
            "ap_denominator", "gain", "ideal_pool", "ideal_depth", "unjudged_query", "missing_query", "rounding")

#: switches that change which queries are averaged, not any query's value
QUERY_SET = ("unjudged_query", "missing_query")


@dataclass(frozen=True)
class Convention:
    """One tool's conventions; every field is one switch of :data:`SWITCHES` (same name)."""

    name: str
    self_id: bool = False
    truncation: int | None = None
    judged_only: bool = False
    negative_grades: str = "keep"        # keep | zero (grades below rel gain nothing)
    rel_level: int = 1
    ties: str = "trec_eval"
    positive_scores: bool = False
    ap_denominator: str = "R"            # R | hits
    gain: str = "linear"
    ideal_pool: str = "judged"           # judged | retrieved
    ideal_depth: str = "all"             # all | k (retrieved pool only)
    unjudged_query: str = "skip"         # skip | zero
    missing_query: str = "skip"          # skip | zero
    rounding: int | None = None
    families: tuple[str, ...] | None = None   # measures the tool offers (None: all)
    overrides: tuple = ()                      # ((family, {switch: value}), ...): a measure's own settings
    note: str = ""

    def for_measure(self, measure) -> "Convention":
        """The settings this tool uses for ``measure`` (a family may override the tool's defaults)."""
        for family, changes in self.overrides:
            if measure.family.name == family:
                return replace(self, **changes)
        return self

    def switched(self, switch: str, other: "Convention") -> "Convention":
        """This convention with ``switch`` set to ``other``'s value."""
        return replace(self, **{switch: getattr(other, switch)})

    def settings(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name in SWITCHES}


_TM = ("nDCG", "AP", "RR", "P", "R")
CONVENTIONS = {c.name: c for c in (
    Convention("trec_eval", rounding=4, note="trec_eval's printed values: 4 decimals, ties by docno descending"),
    Convention("pytrec_eval", note="trec_eval's measures unrounded; queries in the run and the qrels"),
    Convention("ir_measures", note="pytrec_eval's conventions (its default provider for these measures)"),
    Convention("ranx", ties="input", negative_grades="zero", missing_query="zero",
               note="grades below the level gain nothing; every qrels query averaged (a missing one scores 0); "
                    "tied scores in ranx's own sort order (argsort reversed): modelled as input order"),
    Convention("torchmetrics", ties="torchmetrics", positive_scores=True, ap_denominator="hits", ideal_pool="retrieved",
               unjudged_query="zero", families=_TM,
               overrides=(("nDCG", {"ties": "average", "positive_scores": False}),),
               note="only the retrieved docs are seen (ideal over them); nDCG ties averaged; "
                    "MAP/MRR/P/R count a relevant doc only with a score > 0 and order tied scores as torch.topk "
                    "(MAP, MRR, P) or torch.argsort (R) leaves them: the functional metrics called per query"),
    Convention("sklearn", ties="average", ideal_pool="retrieved", unjudged_query="zero", families=("nDCG",),
               note="ndcg_score over the retrieved docs' y_true: ideal over them, ties averaged"),
    Convention("beir", self_id=True, rounding=5,
               note="BEIR EvaluateRetrieval.evaluate: pytrec_eval after ignore_identical_ids, rounded to 5"),
    Convention("mteb", rounding=5,
               note="MTEB RetrievalEvaluator: pytrec_eval's measures and its own MRR (ties by doc id descending "
                    "since mteb #5092, as pytrec_eval), rounded to 5; ignore_identical_ids off unless the task "
                    "sets it (ArguAna, Quora ...: Convention('mteb', self_id=True, rounding=5))"),
)}


#: a convention by name (``rankmeter diff --as NAME,...``)
CONVENTION = Param("convention", "choice", None, "a tool's conventions", "check", choices=tuple(CONVENTIONS))


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
    return ("argsort" if measure.family.name == "R" else "topk"), measure.cutoff


def _torch_ranked(docs: dict, call: str, k) -> dict:
    """``docs`` in the order TorchMetrics' ``preds.topk(min(k, n), sorted=True)`` or
    ``torch.argsort(preds, descending=True)`` gives their float32 scores (the docs past k: a stable sort)."""
    import torch
    names, scores = list(docs), torch.tensor(list(docs.values()), dtype=torch.float32)
    if call == "argsort":
        first = torch.argsort(scores, descending=True).tolist()
    else:
        first = scores.topk(min(k or len(names), len(names)), sorted=True).indices.tolist()
    taken = set(first)
    rest = sorted((i for i in range(len(names)) if i not in taken), key=lambda i: -docs[names[i]])
    return {names[i]: docs[names[i]] for i in first + rest}


def prepared(conv: Convention, qrels: dict, run: dict, measure=None) -> tuple[dict, dict]:
    """The inputs ``conv`` scores: self-ids dropped, grades below the level zeroed, every query kept
    (``measure``: the measure scored, for a tie order that depends on it)."""
    if conv.self_id:
        run = {q: {d: s for d, s in docs.items() if d != q} for q, docs in run.items()}
    if conv.negative_grades == "zero":
        qrels = {q: {d: (g if g >= conv.rel_level else 0) for d, g in docs.items()} for q, docs in qrels.items()}
    if conv.ties == "input":   # rankmeter's ties="input" takes the order given: a stable sort keeps tied docs so
        run = {q: dict(sorted(docs.items(), key=lambda kv: -kv[1])) for q, docs in run.items()}
    torch_call = _torch_order(conv, measure)
    if torch_call is not None:
        run = {q: _torch_ranked(docs, *torch_call) if docs else docs for q, docs in run.items()}
    # every run query is scored (a query without judgments has no relevant doc: 0), the mask decides the mean
    missing = {q: {} for q in run if q not in qrels}
    return {**qrels, **missing}, run


def averaged(conv: Convention, qrels: dict, run: dict) -> dict:
    """Which queries ``conv``'s mean is over: ``{query: bool}`` over the queries of either input."""
    out = {}
    for q in {**qrels, **run}:
        if q in qrels and q in run:
            out[q] = True
        elif q in qrels:
            out[q] = conv.missing_query == "zero"
        else:
            out[q] = conv.unjudged_query == "zero"
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
    key = (conv.self_id, conv.negative_grades, conv.rel_level, conv.ties == "input", _torch_order(conv, measure))
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
        ties = "input" if conv.ties == "torchmetrics" else conv.ties
        res = Evaluator(q_table, [m], queries="qrels", rel=conv.rel_level, ties=ties,
                        judged_only=conv.judged_only, max_docs=conv.truncation,
                        positive_scores_only=conv.positive_scores).evaluate(r_table)
        for q, v in zip(res.queries, res.values(str(m))):
            values[q] = float(v)
    if rounded and conv.rounding is not None:
        values = {q: round(v, conv.rounding) for q, v in values.items()}
    return values


def reproduce_option(conv: Convention, measure) -> str:
    """The rankmeter call that reproduces ``conv``'s value of ``measure``."""
    m = measure_for(conv, measure)
    opts = [f"ties={'input' if conv.ties == 'torchmetrics' else conv.ties!r}" if conv.ties != "trec_eval" else "",
            f"rel={conv.rel_level}" if conv.rel_level != 1 else "",
            "judged_only=True" if conv.judged_only else "",
            f"max_docs={conv.truncation}" if conv.truncation else "",
            "positive_scores_only=True" if conv.positive_scores else "",
            "queries='qrels'" if conv.missing_query == "zero" else ""]
    pre = ["each query's docs sorted by score with a stable sort"] if conv.ties == "input" else []
    if _torch_order(conv, measure) is not None:
        pre.append(f"each query's docs in the order torch.{_torch_order(conv, measure)[0]} gives their float32 scores")
    if conv.self_id:
        pre.append("drop docs equal to the query id")
    if conv.negative_grades == "zero":
        pre.append("grades below rel set to 0")
    if conv.unjudged_query == "zero":
        pre.append("queries without judgments scored 0")
    if conv.rounding is not None:
        pre.append(f"rounded to {conv.rounding} decimals")
    call = f"evaluate(qrels, run, {str(m)!r}" + "".join(", " + o for o in opts if o) + ")"
    return call + (" after: " + "; ".join(pre) if pre else "")
