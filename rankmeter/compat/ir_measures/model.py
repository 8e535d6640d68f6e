"""ir_measures' model: which provider computes each measure, and the conventions that follow from it.

ir_measures 0.4.3 hands each measure to the first provider of its pipeline that supports it
(:func:`rankmeter.compat.ir_measures.dispatch.provider_of`); each provider orders tied docs its own way
(:data:`~rankmeter.compat.ir_measures.dispatch.ORDER`) and only pytrec_eval's reads scores as C floats.
Its base ``Evaluator`` gives every judged query the run lacks the measure's default (0, a count too) and
averages it (or sums it: ``NumQ``, ``NumRel``, ``NumRet``).
The drop-in (:mod:`rankmeter.compat.ir_measures`) and ``rankmeter diff --as ir_measures`` both read these
rules from here and :mod:`~rankmeter.compat.ir_measures.dispatch`.

Its names (``MAP``, ``NDCG@10``, ``RPrec``, ``SetF(beta=1)``, ``nDCG(dcg='exp-log2')@10``, ``IPrec(recall=0.5)``)
and its measure objects are read here too (:func:`read_name`, :func:`measure_of`), registered with the measure
names at the end of this module, so every rankmeter entry point takes them.

>>> from rankmeter.measures import Measure
>>> provider_settings(Measure.of("RR", {}, 10)), provider_settings(Measure.of("RR"))["ties"]
({'ties': 'docno', 'scores': 'double', 'aggregate': 'mean'}, 'trec_eval')
>>> [str(m) for _, m in read_name("SetF(beta=1)")], [str(m) for _, m in read_name("nDCG(dcg='exp-log2')@10")]
(['F'], ['nDCG(gain=exp)@10'])
"""
from __future__ import annotations

import math
import re

from rankmeter.compat.convention import Convention
from rankmeter.errors import MeasureError
from rankmeter.measures import REGISTRY as RANKMETER_FAMILIES, Measure, parse_measure
from rankmeter.measures.names import register_spellings, resolve_name

__all__ = ["CONVENTION", "FAMILIES", "SAME_NAMES", "as_c_floats", "is_ir_measures_object", "measure_of",
           "provider_for", "provider_settings", "read_name", "read_name_first", "SCORES"]

#: how each provider reads a score: pytrec_eval into a C float, the others as Python floats
SCORES = {"pytrec_eval": "float32"}


def as_c_floats(column):
    """An Arrow column of scores as pytrec_eval stores them: each rounded to a C float (kept as a double)."""
    import numpy as np
    import pyarrow as pa
    with np.errstate(over="ignore"):
        values = column.to_numpy().astype(np.float32).astype(np.float64)
    return pa.array(values, pa.float64())


#: the Convention tie order of each dispatch.ORDER value
_TIES = {"trec_eval": "trec_eval", "docno": "docno", "input": "input"}


def _ir_name(measure) -> str:
    """ir_measures' spelling of a rankmeter measure: its family and every parameter ir_measures' measure takes
    (``gain=exp`` is ``dcg='exp-log2'``); KeyError for one it cannot spell."""
    from rankmeter.compat.ir_measures.objects import REGISTRY
    family = measure.family.name
    if family not in REGISTRY:
        raise KeyError(family)
    supported = REGISTRY[family].SUPPORTED_PARAMS
    params = []
    for key, value in measure.params:
        if key == "gain" and family == "nDCG" and value in ("linear", "exp"):
            params += ["dcg='exp-log2'"] if value == "exp" else []
        elif key in supported and key != "cutoff":
            params.append(f"{key}={value!r}")
        else:
            raise KeyError(key)   # a parameter ir_measures cannot spell
    text = family + (f"({', '.join(params)})" if params else "")
    return text + (f"@{measure.cutoff}" if measure.cutoff else "")


def provider_for(measure) -> str:
    """The provider ir_measures asks for a rankmeter ``measure`` (pytrec_eval when it has no spelling there)."""
    from rankmeter.compat.ir_measures.dispatch import provider_of
    from rankmeter.compat.ir_measures.objects import parse_measure
    try:
        return provider_of(parse_measure(_ir_name(measure)))
    except Exception:   # no ir_measures spelling (a rankmeter-only parameter): trec_eval's reading
        return "pytrec_eval"


#: the families whose value over queries ir_measures sums (its SumAgg: NumQ, NumRel, NumRet and NumRet(rel=))
SUMMED = ("NumQ", "NumRel", "NumRet", "NumRelRet")


def provider_settings(measure) -> dict:
    """The switches ir_measures' provider of ``measure`` sets: its tie order, how it reads scores, and whether the
    measure's values are summed over queries or averaged."""
    from rankmeter.compat.ir_measures.dispatch import ORDER
    provider = provider_for(measure)
    return {"ties": _TIES[ORDER[provider]], "scores": SCORES.get(provider, "double"),
            "aggregate": "sum" if measure.family.name in SUMMED else "mean"}


CONVENTION = Convention("ir_measures", missing_query="default", empty_ranking="zero", per_measure=provider_settings,
                        note="each measure as its provider computes it (pytrec_eval: C float scores, ties by docno "
                             "descending; msmarco, judged, compat: docno ascending; cwl_eval: input order); "
                             "every judged query averaged (a missing one scores 0)")


# ------------------------------------------------------------------ its names and measure objects
#: ir_measures family names that are spelled differently here (same measure)
FAMILIES = {
    "MAP": "AP", "MRR": "RR", "NDCG": "nDCG", "Precision": "P", "Recall": "R", "RPrec": "Rprec",
    "BPref": "Bpref", "SetP": "P", "SetR": "R", "SetF": "F", "SetRelP": "RelativeP",
    "MAP_IA": "AP_IA", "\u03b1_DCG": "alpha_DCG", "\u03b1_nDCG": "alpha_nDCG",
}
#: ir_measures names (its registry) that are spelled the same here and mean the same (not ERR: ir_measures'
#: ERR@k is gdeval's, ERR(max_grade=4)@k here; its objects are read so by :func:`measure_of`)
SAME_NAMES = {"AP", "IPrec", "NumQ", "NumRel", "NumRelRet", "NumRet", "P", "R", "RBP", "RR", "Rprec",
              "Bpref", "SetAP", "Success", "infAP", "nDCG", "Judged", "Accuracy", "Compat", "SDCG", "INST", "INSQ",
              "BPM", "NERR8", "NERR9", "NERR10", "NERR11",
              "alpha_DCG", "alpha_nDCG", "ERR_IA", "nERR_IA", "NRBP", "nNRBP", "P_IA", "StRecall", "AP_IA"}

_NAME = re.compile(r"^(?P<name>[A-Za-z_\u03b1][A-Za-z0-9_]*)(?:\((?P<params>.*)\))?(?:@(?P<cutoff>[0-9.]+))?$")

#: ir_measures spellings that read differently here, so they are translated before rankmeter's grammar:
#: its NumRet(rel=k) counts the retrieved docs with grade >= k (NumRelRet), its SetP(relative=True) is RelativeP
_FIRST = [
    (re.compile(r"^NumRet\(\s*rel\s*=\s*(-?\d+)\s*\)$"), lambda m: f"NumRelRet(rel={m[1]})"),
    (re.compile(r"^SetP\(\s*relative\s*=\s*True\s*((?:,[^)]*)?)\)$"),
     lambda m: "RelativeP" + (f"({m[1].strip(', ')})" if m[1].strip(", ") else "")),
]


def read_name_first(text: str):
    """ir_measures' ``NumRet(rel=k)`` and ``SetP(relative=True)``, which rankmeter's grammar reads otherwise."""
    for pattern, rewrite in _FIRST:
        match = pattern.match(text)
        if match:
            return [(text, parse_measure(rewrite(match)))]
    return None


def read_name(text: str):
    """An ir_measures name (``NDCG@10``, ``SetF(beta=1)``, ``nDCG(dcg='exp-log2')@10``, ``IPrec(recall=0.5)``)
    -> ``[(text, Measure)]``, or None for a name that is not ir_measures'."""
    match = _NAME.match(text.replace("\u03b1", "alpha"))
    if not match or match["name"] not in FAMILIES and match["name"] not in RANKMETER_FAMILIES:
        return None
    family = FAMILIES.get(match["name"], match["name"])
    params, cutoff = match["params"] or "", match["cutoff"]
    # ir_measures' parameter spellings
    params = re.sub(r"\bdcg\s*=\s*['\"]?log2['\"]?", "gain=linear", params)
    params = re.sub(r"\bdcg\s*=\s*['\"]?exp-log2['\"]?", "gain=exp", params)
    params = re.sub(r"\bgains\s*=", "gain=", params)
    recall = re.search(r"\brecall\s*=\s*([0-9.]+)", params)
    if family == "IPrec" and recall:
        cutoff = recall.group(1)
        params = re.sub(r",?\s*\brecall\s*=\s*[0-9.]+", "", params).strip(", ")
    if match["name"] in ("SetP", "SetR", "SetF", "SetRelP") and cutoff:
        return None  # the set measures have no cutoff
    canonical = family + (f"({params})" if params.strip() else "") + (f"@{cutoff}" if cutoff else "")
    try:
        return [(text, parse_measure(canonical))]
    except MeasureError:
        return None


def is_ir_measures_object(obj) -> bool:
    """A measure object of ir_measures or of its drop-in (:mod:`rankmeter.compat.ir_measures`), told apart
    without importing either."""
    module = type(obj).__module__
    return module.startswith("ir_measures.") or (module.startswith("rankmeter.compat.ir_measures.")
                                                  and hasattr(obj, "SUPPORTED_PARAMS"))


def measure_of(obj):
    """The measure giving ir_measures' numbers for one of its measure objects (``nDCG@10``, ``ERR@20``).

    ``ERR@k`` is the TREC Web track's gdeval ERR, the provider ir_measures calls for it: grades capped
    by a fixed maximum of 4 (``ERR(max_grade=4)@k``); ``SetF(beta=b)`` is trec_eval's ``set_F.b``,
    whose parameter is beta squared (``F(beta=sqrt(b))``); ``SetP(relative=True)`` is ``RelativeP``;
    everything else reads from its printed name (:func:`rankmeter.measures.names.resolve_name`).
    """
    from rankmeter.compat.ir_measures.objects import params_of
    name, params = params_of(obj)
    if name == "ERR":  # gdeval.pl: R = (2^g - 1) / 2^4, $MAX_JUDGMENT = 4
        return Measure.of("ERR", {"max_grade": 4}, params.get("cutoff"))
    if name == "SetF":  # trec_eval set_F.x weighs with x as beta^2 (trec_eval m_set_F.c)
        extra = {"rel": params["rel"]} if params["rel"] != 1 else {}
        extra |= {"judged_only": True} if params["judged_only"] else {}
        beta = math.sqrt(float(params["beta"]))
        return Measure.of("F", extra | ({"beta": beta} if beta != 1 else {}), None)
    if name == "SetP" and params.get("relative"):  # SetP(rel=2,relative=True) is RelativeP(rel=2)
        extra = {"rel": params["rel"]} if params["rel"] != 1 else {}
        return Measure.of("RelativeP", extra | ({"judged_only": True} if params["judged_only"] else {}), None)
    resolved = resolve_name(repr(obj).replace("\u03b1", "alpha"))
    if len(resolved) != 1:  # pragma: no cover - an object names one measure
        raise MeasureError(f"{obj!r} reads as {len(resolved)} measures")
    return resolved[0][1]


register_spellings("ir_measures", read_first=read_name_first, read=read_name, families=FAMILIES,
                   accepts_object=is_ir_measures_object, read_object=measure_of)
