"""ir_measures' model: which provider computes each measure, and the conventions that follow from it.

ir_measures 0.4.3 hands each measure to the first provider of its pipeline that supports it
(:func:`rankmeter.compat.ir_measures.dispatch.provider_of`); each provider orders tied docs its own way
(:data:`~rankmeter.compat.ir_measures.dispatch.ORDER`) and only pytrec_eval's reads scores as C floats.
Its base ``Evaluator`` gives every judged query the run lacks the measure's default (0) and averages it.
The drop-in (:mod:`rankmeter.compat.ir_measures`) and ``rankmeter diff --as ir_measures`` both read these
rules from here and :mod:`~rankmeter.compat.ir_measures.dispatch`.

>>> from rankmeter.measures import Measure
>>> provider_settings(Measure.of("RR", {}, 10)), provider_settings(Measure.of("RR"))["ties"]
({'ties': 'docno', 'scores': 'double'}, 'trec_eval')
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
    """ir_measures' spelling of a rankmeter measure (its family, relevance level and cutoff)."""
    from rankmeter.compat.ir_measures.objects import REGISTRY
    family = measure.family.name
    names = {"AP": "AP", "RR": "RR", "nDCG": "nDCG", "P": "P", "R": "R", "Rprec": "Rprec", "Bpref": "Bpref",
             "Success": "Success", "Judged": "Judged", "ERR": "ERR", "infAP": "infAP", "NumRet": "NumRet",
             "NumRel": "NumRel", "NumQ": "NumQ", "SetAP": "SetAP", "IPrec": "IPrec", "RBP": "RBP", "Compat": "Compat"}
    name = names.get(family, family)
    if name not in REGISTRY:
        raise KeyError(family)
    params = []
    given = dict(measure.params)
    if set(given) - {"rel", "gain"} or given.get("gain") not in (None, "linear", "exp"):
        raise KeyError(family)   # a parameter ir_measures cannot spell
    rel = given.get("rel")
    if rel not in (None, 1) and family not in ("nDCG",):
        params.append(f"rel={int(rel)}")
    if family == "nDCG" and given.get("gain") == "exp":
        params.append("dcg='exp-log2'")
    text = name + (f"({', '.join(params)})" if params else "")
    return text + (f"@{measure.cutoff}" if measure.cutoff else "")


def provider_for(measure) -> str:
    """The provider ir_measures asks for a rankmeter ``measure`` (pytrec_eval when it has no spelling there)."""
    from rankmeter.compat.ir_measures.dispatch import provider_of
    from rankmeter.compat.ir_measures.objects import parse_measure
    try:
        return provider_of(parse_measure(_ir_name(measure)))
    except Exception:   # no ir_measures spelling (a rankmeter-only parameter): trec_eval's reading
        return "pytrec_eval"


def provider_settings(measure) -> dict:
    """The switches ir_measures' provider of ``measure`` sets: its tie order and how it reads scores."""
    from rankmeter.compat.ir_measures.dispatch import ORDER
    provider = provider_for(measure)
    return {"ties": _TIES[ORDER[provider]], "scores": SCORES.get(provider, "double")}


CONVENTION = Convention("ir_measures", missing_query="zero", empty_ranking="zero", per_measure=provider_settings,
                        note="each measure as its provider computes it (pytrec_eval: C float scores, ties by docno "
                             "descending; msmarco, judged, compat: docno ascending; cwl_eval: input order); "
                             "every judged query averaged (a missing one scores 0)")
