"""ir_measures over rankmeter's engine: ``import rankmeter.compat.ir_measures as ir_measures`` runs its scripts.

>>> import rankmeter.compat.ir_measures as ir_measures
>>> from rankmeter.compat.ir_measures import AP, RR, nDCG
>>> qrels = {"q1": {"d1": 1, "d2": 0}}
>>> run = {"q1": {"d1": 0.5, "d2": 0.9}}
>>> ir_measures.calc_aggregate([AP, nDCG@3], qrels, run)
{AP: 0.5, nDCG@3: 0.6309297535714575}
>>> [(m.query_id, str(m.measure), m.value) for m in ir_measures.iter_calc([RR], qrels, run)]
[('q1', 'RR', 0.5)]
>>> ir_measures.parse_measure("AP(rel=2)@100")
AP(rel=2)@100

Measures may be these objects, ir_measures' own, their names (``"nDCG@10"``) or any
rankmeter name. Each is computed as the ir_measures provider that ir_measures hands it to computes it
(:mod:`rankmeter.compat.ir_measures.dispatch`), ranked as that provider ranks tied docs: RR and AP
through pytrec_eval (docno descending, as trec_eval), ``RR@k`` through msmarco and ``Judged`` through
judged (docno ascending), the C/W/L measures and ``Accuracy`` in input order, ``ERR@k`` as gdeval
prints it (five decimals), ``Compat`` with ir_measures' ideal (docs/migrate-ir-measures.md lists what
differs, and why). Qrels and runs are what ir_measures takes: ``{query: {doc: value}}``, a DataFrame
with its column names (``query_id, doc_id, relevance[, iteration]`` / ``query_id, doc_id, score``), or
an iterable of :class:`Qrel` / :class:`ScoredDoc` (ir_measures' own namedtuples too); rankmeter's inputs
(paths, frames with its column names) are accepted as well.

As ir_measures does, a judged query the run does not answer gets ``measure.DEFAULT`` (0), a query
where a measure is undefined is left out for it, ``NumQ``, ``NumRel`` and ``NumRet`` are summed over
queries and the rest averaged (NaN over no query: empty qrels). A diversity qrels (namedtuples or rows
whose ``iteration`` differs) keeps its subtopics for the diversity measures (``ERR_IA``,
``alpha_nDCG``, ...); the other measures read one grade per (query, doc) as ir_measures' providers
do: the doc's last judgment in input order. The providers (``ir_measures.gdeval`` ...), ``define`` /
``define_byquery``, ``DefaultPipeline`` and the ``measures``, ``providers`` and ``util`` namespaces are
here too (:mod:`rankmeter.compat.ir_measures.providers`, :mod:`rankmeter.compat.ir_measures.util`).
"""
from __future__ import annotations

import re

from rankmeter.compat.ir_measures import objects as measures
from rankmeter.compat.ir_measures import providers
from rankmeter.compat.ir_measures import util
from rankmeter.compat.ir_measures.objects import REGISTRY, MeanAgg, Measure, ParamInfo, SumAgg, parse_measure
from rankmeter.compat.ir_measures.providers import (
    CwlMetric,
    Evaluator,
    Provider,
    define,
    define_byquery,
)
from rankmeter.compat.ir_measures.util import (
    CalcResults,
    GenericQrel,
    GenericScoredDoc,
    Metric,
    Qrel,
    ScoredDoc,
    read_trec_qrels,
    read_trec_run,
)
from rankmeter.errors import MeasureError
from rankmeter.compat.pytrec_eval.names import supported_nicknames as _pytrec_nicknames

__version__ = "0.4.3"  # the ir_measures release this drop-in follows

__all__ = [
    "BaseMeasure", "CalcResults", "CwlMetric", "DefaultPipeline", "Evaluator", "GenericQrel", "GenericScoredDoc",
    "MeanAgg", "Measure", "Metric", "ParamInfo", "Provider", "Qrel", "ScoredDoc", "SumAgg", "calc", "calc_aggregate",
    "calc_ctxt", "convert_trec_name", "define", "define_byquery", "evaluator", "iter_calc", "measures",
    "parse_measure", "parse_trec_measure", "parse_trec_qrels", "parse_trec_run", "providers", "qrel_inputs",
    "read_trec_qrels", "read_trec_run", "run_inputs", "util", "__version__",
    *providers.registry,  # accuracy, compat, cwl_eval, gdeval, judged, msmarco, pyndeval, pytrec_eval, ranx, ...
]
__all__ += list(REGISTRY)  # the measure objects: AP, nDCG, ERR_IA, MAP, α_nDCG, ...

BaseMeasure = Measure  # ir_measures' older name
globals().update(REGISTRY)  # AP, nDCG, ERR_IA, MAP, α_nDCG, NumRelRet, ... as module attributes
globals().update(providers.registry)  # ir_measures.pytrec_eval, ir_measures.gdeval, ... (providers)
measures.registry = REGISTRY  # ir_measures.measures.registry

DefaultPipeline = providers.DefaultPipeline  # every measure to the first provider that supports it
evaluator = DefaultPipeline.evaluator
calc_ctxt = DefaultPipeline.calc_ctxt
iter_calc = DefaultPipeline.iter_calc
calc_aggregate = DefaultPipeline.calc_aggregate
calc = DefaultPipeline.calc
run_inputs = DefaultPipeline.run_inputs
qrel_inputs = DefaultPipeline.qrel_inputs


# ------------------------------------------------------------------ reading measures, qrels and runs
#: trec_eval names ir_measures 0.4.3 reads, in its order (a name matches the first entry it begins with):
#: (measure, the parameter a suffix sets, the values a bare name gives); None: known, not supported
_TREC = {
    "ndcg": ("nDCG", None, None), "P": ("P", "cutoff", [5, 10, 15, 20, 30, 100, 200, 500, 1000]),
    "map_cut": ("AP", "cutoff", [5, 10, 15, 20, 30, 100, 200, 500, 1000]), "Rndcg": None,
    "num_nonrel_judged_ret": None, "set_map": ("SetAP", None, None), "11pt_avg": None, "relative_P": None,
    "gm_map": None, "binG": None, "set_P": ("SetP", None, None), "infAP": ("infAP", None, None),
    "bpref": ("Bpref", None, None), "num_rel_ret": ("NumRelRet", None, None), "ndcg_rel": None,
    "recip_rank": ("RR", None, None), "recall": ("R", "cutoff", [5, 10, 15, 20, 30, 100, 200, 500, 1000]),
    "set_recall": ("SetR", None, None), "utility": None, "set_relative_P": ("SetRelP", None, None),
    "num_ret": ("NumRet", None, None), "num_rel": ("NumRel", None, None),
    "ndcg_cut": ("nDCG", "cutoff", [5, 10, 15, 20, 30, 100, 200, 500, 1000]), "Rprec": ("Rprec", None, None),
    "Rprec_mult": None, "relstring": None, "gm_bpref": None, "num_q": ("NumQ", None, None), "map": ("AP", None, None),
    "G": None, "success": ("Success", "cutoff", [1, 5, 10]), "set_F": ("SetF", "beta", [1.0]),
    "iprec_at_recall": ("IPrec", "recall", [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]),
}
#: pytrec_eval's nicknames, whose measures ir_measures expands in sorted order (names it cannot read are skipped):
#: pytrec_eval's own table (rankmeter.compat.pytrec_eval.names)
_NICKNAMES = {name: sorted(members) for name, members in _pytrec_nicknames.items()}


def parse_trec_measure(text: str) -> list[Measure]:
    """A trec_eval name or nickname (``"ndcg_cut.10,20"``, ``"P_5"``, ``"map"``, ``"official"``) -> ir_measures'
    measure objects, as ir_measures reads it (``ValueError`` for a name it does not support)."""
    if text in _NICKNAMES:
        out, skipped = [], []
        for sub in sorted(_NICKNAMES[text]):
            try:
                out += parse_trec_measure(sub)
            except ValueError:
                if sub != "runid":
                    skipped.append(sub)
        if skipped:
            print(f"skipped {skipped}: measures not yet supported")
        return out
    if text in _TREC:
        if _TREC[text] is None:
            raise MeasureError(f"known trec name {text}, but not yet supported")
        name, param, values = _TREC[text]
        return [REGISTRY[name](**{param: v}) for v in values] if param else [REGISTRY[name]]
    for base, spec in _TREC.items():
        match = re.match(re.escape(base) + r"[._]([0-9]+(\.[0-9]+)?(,[0-9]+(\.[0-9]+)?)*)", text)
        if match is None:
            continue
        if spec is None:
            raise MeasureError(f"known trec name {text}, but not yet supported")
        name, param, _ = spec
        if param is None:
            raise MeasureError(f"unknown argument for {text}: {match[1]}")
        cast = REGISTRY[name].SUPPORTED_PARAMS[param].dtype
        return [REGISTRY[name](**{param: cast(v)}) for v in match[1].split(",")]
    raise MeasureError(f"unkonwn measure {text}")  # sic: ir_measures' message


parse_trec_qrels, parse_trec_run, convert_trec_name = read_trec_qrels, read_trec_run, parse_trec_measure
util.parse_measure, util.parse_trec_measure = parse_measure, parse_trec_measure
util.parse_trec_qrels, util.parse_trec_run, util.convert_trec_name = read_trec_qrels, read_trec_run, parse_trec_measure
util.TYPE_QREL = util.TYPE_RUN = object  # ir_measures' type hints (a Union of the input forms)
measures.CALCULATION.update(iter_calc=iter_calc, calc_aggregate=calc_aggregate, calc=calc, evaluator=evaluator,
                            CalcResults=CalcResults)  # the measure objects' methods
