"""Which ir_measures provider computes a measure object, and in which order that provider ranks tied docs.

ir_measures 0.4.3 hands each measure to the first provider of its ``DefaultPipeline`` that supports it
(runtime, pytrec_eval, cwl_eval, compat, pyndeval, judged, msmarco, gdeval, accuracy, ranx). The
providers rank a query's docs differently when scores tie, so the drop-in ranks as the chosen provider
does (read from ir_measures' and its providers' source):

========================  ==========================================================  ===========
provider                  tied docs                                                   ``ORDER``
========================  ==========================================================  ===========
pytrec_eval, gdeval       docno descending (trec_eval; gdeval.pl's ``runOrder``)       trec_eval
judged, msmarco, compat,  docno ascending (``sorted(key=(-score, doc_id))``; pyndeval   docno
pyndeval                  re-sorts the same way)
cwl_eval, accuracy        input order (Python's stable ``sorted`` by score)            input
ranx                      numba's ``np.argsort`` (quicksort, not stable), reversed      trec_eval
========================  ==========================================================  ===========

ranx's order on ties is not determined by the data (an unstable sort); it is reached only for
``nDCG(dcg='exp-log2')`` without a cutoff (and ``ir_measures.ranx`` itself), and the drop-in ranks
those ties as trec_eval does (docs/migrate-ir-measures.md).

>>> from rankmeter.compat.ir_measures.objects import REGISTRY as M
>>> [provider_of(m) for m in (M["RR"], M["RR"] @ 10, M["Judged"] @ 10, M["ERR"] @ 20, M["RBP"](rel=1))]
['pytrec_eval', 'msmarco', 'judged', 'gdeval', 'cwl_eval']
>>> ORDER["msmarco"], ORDER["cwl_eval"]
('docno', 'input')
"""
from __future__ import annotations

from rankmeter.errors import MeasureError

__all__ = ["ORDER", "PIPELINE", "SUPPORTED", "provider_of", "supports"]

_ANY, _REQ = "any", "required"
_NP = (None,)  # Choices(NOT_PROVIDED)

#: per provider, the measures and parameter rules of its SUPPORTED_MEASURES (ir_measures 0.4.3)
SUPPORTED: dict[str, list[tuple[str, dict]]] = {
    "pytrec_eval": [
        ("P", {}), ("RR", {"cutoff": _NP}), ("Rprec", {}), ("AP", {}), ("nDCG", {"dcg": ("log2",)}), ("R", {}),
        ("Bpref", {}), ("NumRet", {}), ("NumQ", {}), ("NumRel", {"rel": (1,)}), ("SetAP", {}), ("SetF", {}),
        ("SetP", {}), ("SetR", {}), ("Success", {}), ("IPrec", {}), ("infAP", {}),
    ],
    "cwl_eval": [
        ("P", {"judged_only": (False,)}), ("RR", {"cutoff": _NP, "judged_only": (False,)}),
        ("AP", {"cutoff": _NP, "judged_only": (False,)}), ("RBP", {"cutoff": _NP, "rel": _REQ}),
        ("BPM", {"max_rel": _REQ}), ("SDCG", {"cutoff": _REQ, "dcg": ("log2",), "max_rel": _REQ}),
        ("NERR8", {"cutoff": _REQ, "max_rel": _REQ}), ("NERR9", {"cutoff": _REQ, "max_rel": _REQ}),
        ("NERR10", {"max_rel": _REQ}), ("NERR11", {"max_rel": _REQ}), ("INST", {"max_rel": _REQ}),
        ("INSQ", {"max_rel": _REQ}),
    ],
    "compat": [("Compat", {})],
    "pyndeval": [(name, {}) for name in ("ERR_IA", "nERR_IA", "alpha_DCG", "alpha_nDCG", "NRBP", "nNRBP", "AP_IA",
                                         "P_IA", "StRecall")],
    "judged": [("Judged", {})],
    "msmarco": [("RR", {"judged_only": (False,)})],
    "gdeval": [("nDCG", {"cutoff": _REQ, "dcg": ("exp-log2",), "gains": _NP, "judged_only": (False,)}),
               ("ERR", {"cutoff": _REQ})],
    "accuracy": [("Accuracy", {})],
    "ranx": [
        ("P", {"judged_only": (False,)}), ("SetP", {"judged_only": (False,)}),
        ("RR", {"cutoff": _NP, "judged_only": (False,)}), ("Rprec", {"judged_only": (False,)}),
        ("AP", {"judged_only": (False,)}),
        ("nDCG", {"dcg": ("log2", "exp-log2"), "gains": _NP, "judged_only": (False,)}),
        ("R", {"judged_only": (False,)}), ("SetR", {}), ("NumRet", {"rel": _REQ}),
        ("Success", {"cutoff": _REQ, "judged_only": (False,)}),
    ],
    "trectools": [
        ("P", {"rel": (1,), "judged_only": (False,)}), ("RR", {"cutoff": _NP, "rel": (1,), "judged_only": (False,)}),
        ("Rprec", {"rel": (1,), "judged_only": (False,)}), ("AP", {"rel": (1,), "judged_only": (False,)}),
        ("nDCG", {"gains": _NP, "judged_only": (False,)}), ("Bpref", {"rel": (1,)}), ("RBP", {}),
    ],
}
#: ir_measures' DefaultPipeline, in its order (trectools is registered but left out of it)
PIPELINE = ("runtime", "pytrec_eval", "cwl_eval", "compat", "pyndeval", "judged", "msmarco", "gdeval", "accuracy",
            "ranx")
#: how each provider orders tied docs (module docstring)
ORDER = {"pytrec_eval": "trec_eval", "gdeval": "trec_eval", "ranx": "trec_eval", "judged": "docno",
         "msmarco": "docno", "compat": "docno", "pyndeval": "docno", "cwl_eval": "input", "accuracy": "input",
         "trectools": "input", "runtime": "input"}


def _params(measure) -> tuple[str, dict]:
    from rankmeter.compat.ir_measures.objects import params_of
    return params_of(measure)


def supports(provider: str, measure) -> bool:
    """Whether ``provider`` takes ``measure`` (ir_measures' ``Provider.supports``)."""
    if provider == "runtime":
        return hasattr(measure, "runtime_impl")
    name, params = _params(measure)
    for supported, rules in SUPPORTED[provider]:
        if supported != name:
            continue
        ok = True
        for key, rule in rules.items():
            value = params.get(key)
            if (rule == _REQ and value is None) or (isinstance(rule, tuple) and value not in rule):
                ok = False
                break
        if ok:
            return True
    return False


def provider_of(measure, pipeline=PIPELINE) -> str:
    """The provider of ``pipeline`` that ir_measures asks for ``measure``."""
    for provider in pipeline:
        if supports(provider, measure):
            return provider
    raise MeasureError(f"Unsupported measures {{{measure!r}}}: no ir_measures provider computes it with these "
                       "parameters")
