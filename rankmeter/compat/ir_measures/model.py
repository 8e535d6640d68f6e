"""ir_measures' model: which provider computes each measure, and the conventions that follow from it.

ir_measures 0.4.3 hands each measure to the first provider of its pipeline that supports it
(:func:`rankmeter.compat.ir_measures.dispatch.provider_of`); each provider orders tied docs its own way
(:data:`~rankmeter.compat.ir_measures.dispatch.ORDER`) and only pytrec_eval's reads scores as C floats.
Its base ``Evaluator`` gives every judged query the run lacks the measure's default (0, a count too) and
averages it (or sums it: ``NumQ``, ``NumRel``, ``NumRet``).
The drop-in (:mod:`rankmeter.compat.ir_measures`) and ``rankmeter diff --as ir_measures`` both read these
rules from here and :mod:`~rankmeter.compat.ir_measures.dispatch`.

>>> from rankmeter.measures import Measure
>>> provider_settings(Measure.of("RR", {}, 10)), provider_settings(Measure.of("RR"))["ties"]
({'ties': 'docno', 'scores': 'double', 'aggregate': 'mean'}, 'trec_eval')
"""
from __future__ import annotations

from rankmeter.compat.convention import Convention

__all__ = ["CONVENTION", "as_c_floats", "provider_for", "provider_settings", "SCORES"]

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
