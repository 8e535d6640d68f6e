"""trec_eval 10.0's measure names, parameters, nicknames and exact text output.

Each trec_eval name expands, with its parameter string (``P.5,10`` ->
``"5,10"``), into labelled canonical measures: ``("P_5", P@5)``. Output
follows trec_eval: ``"%-22s\\t%s\\t%6.4f\\n"`` (``%ld`` for counts), measures
in the order of this table, per-query blocks in bytewise query order, then
``all``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from rankmeter.errors import MeasureError
from rankmeter.measures.aggregation import COUNT, TEXT
from rankmeter.measures.base import Measure
from rankmeter.measures.trec_eval.prefs import PREFS_MEASURES
from rankmeter.measures.trec_eval.exact import Derived, eleven_point, ordered_floats, set_f
from rankmeter.measures.trec_eval.params import (
    Expanded, expand_cutoffs, expand_jg_cutoffs, expand_jg_levels, expand_levels, expand_none, expand_other,
    expand_raw, expand_single, expand_yaap, parse_gain_map, parse_numbers, rbp_measure, set_f_measure,
    utility_measure)

__all__ = ["TrecMeasure", "TREC_MEASURES", "NICKNAMES", "expand", "expand_exact", "Derived", "format_value", "LEVEL_FREE", "uses_level"]

#: Families trec_eval computes without its -l relevance level (m_ndcg.c, m_G.c, m_rbp.c ... read the
#: grades themselves); every other family gets rel=-l.
LEVEL_FREE = frozenset({"CG", "DCG", "nDCG", "nDCGRel", "G", "ERR", "nERR", "RBP", "RBP_resid",
                        "RelString", "Unjudged", "Inversions", "KendallTau"})


def uses_level(measure: Measure) -> bool:
    """Whether trec_eval's ``-l`` applies to ``measure``'s family."""
    return measure.name not in LEVEL_FREE


@dataclass(frozen=True)
class TrecMeasure:
    """A trec_eval measure name and how its parameter string becomes canonical measures."""

    name: str
    expand: Callable[[str | None], Expanded]
    per_query: bool = True      # printed in -q blocks
    summary: bool = True        # printed in the `all` block
    mode: str = "qrels"         # the -R format it needs ("qrels", "prefs", "qrels_jg"); runid/num_q: any
    # What `rankmeter trec_eval` computes when it differs from the canonical measures `expand`
    # gives the API: trec_eval's exact arithmetic (set_F, unsorted 11pt_avg) or a value outside
    # the canonical engine (prefs, judgment groups, yaap, ideal_dcg). None: the canonical one.
    exact: Callable[[str | None], Expanded] | None = None


_CUTS = [5, 10, 15, 20, 30, 100, 200, 500, 1000]
_RECALLS = [round(0.1 * i, 2) for i in range(11)]
_MULTS = [round(0.2 * i, 2) for i in range(1, 11)]

#: trec_eval 10.0's measures in its print order.
TREC_MEASURES: dict[str, TrecMeasure] = {t.name: t for t in [
    TrecMeasure("runid", lambda text: [], per_query=False),
    TrecMeasure("num_q", expand_single("num_q", "NumQ"), per_query=False),
    TrecMeasure("num_ret", expand_single("num_ret", "NumRet")),
    TrecMeasure("num_rel", expand_single("num_rel", "NumRel")),
    TrecMeasure("num_rel_ret", expand_single("num_rel_ret", "NumRelRet")),
    TrecMeasure("map", expand_single("map", "AP")),
    TrecMeasure("gm_map", expand_single("gm_map", "GMAP"), per_query=False),
    TrecMeasure("Rprec", expand_single("Rprec", "Rprec")),
    TrecMeasure("bpref", expand_single("bpref", "Bpref")),
    TrecMeasure("recip_rank", expand_single("recip_rank", "RR")),
    TrecMeasure("iprec_at_recall", expand_levels("iprec_at_recall", lambda x: Measure.of("IPrec", {}, x), _RECALLS)),
    TrecMeasure("P", expand_cutoffs("P", "P", _CUTS)),
    TrecMeasure("relstring", expand_raw("relstring", lambda t: Measure.of(
        "RelString", {}, 10 if t is None else int(parse_numbers("relstring", t.split(",")[0])[0]))), summary=False),
    TrecMeasure("recall", expand_cutoffs("recall", "R", _CUTS)),
    TrecMeasure("infAP", expand_single("infAP", "infAP")),
    TrecMeasure("gm_bpref", expand_single("gm_bpref", "GMBpref"), per_query=False),
    TrecMeasure("Rprec_mult", expand_levels("Rprec_mult", lambda x: Measure.of("RprecMult", {"mult": x}), _MULTS)),
    TrecMeasure("utility", expand_raw("utility", utility_measure)),
    # 11pt_avg and set_F read their numbers in the order given, duplicates kept (trec_eval's
    # get_double_params); set_F uses the first, its x, which is beta^2.
    TrecMeasure("11pt_avg", expand_raw("11pt_avg", lambda t: Measure.of(
        "IPrecAvg", {} if t is None else {"recalls": ordered_floats("11pt_avg", t)})),
        exact=expand_raw("11pt_avg", eleven_point)),
    TrecMeasure("binG", expand_single("binG", "BinG")),
    TrecMeasure("G", expand_raw("G", lambda t: Measure.of("G", {"gain": parse_gain_map("G", t)} if t else {}))),
    TrecMeasure("dcg", expand_raw("dcg", lambda t: Measure.of("DCG", {"gain": parse_gain_map("dcg", t)} if t else {}))),
    # m_ndcg.c: registered in 10.0 but in no nickname; two of dcg/ideal_dcg/ndcg together often
    # crash 10.0 (they share one parameter block, freed twice); each alone works
    TrecMeasure("ideal_dcg", expand_none,
                exact=expand_raw("ideal_dcg", lambda t: ("ideal_dcg", parse_gain_map("ideal_dcg", t)))),
    TrecMeasure("ndcg", expand_raw("ndcg", lambda t: Measure.of("nDCG", {"gain": parse_gain_map("ndcg", t)}
                                                                if t else {}))),
    TrecMeasure("ndcg_rel", expand_raw("ndcg_rel", lambda t: Measure.of(
        "nDCGRel", {"gain": parse_gain_map("ndcg_rel", t)} if t else {}))),
    TrecMeasure("Rndcg", expand_raw("Rndcg", lambda t: Measure.of(
        "RnDCG", {"gain": parse_gain_map("Rndcg", t)} if t else {}))),
    TrecMeasure("ndcg_cut", expand_cutoffs("ndcg_cut", "nDCG", _CUTS)),
    TrecMeasure("map_cut", expand_cutoffs("map_cut", "AP", _CUTS)),
    TrecMeasure("relative_P", expand_cutoffs("relative_P", "RelativeP", _CUTS)),
    TrecMeasure("success", expand_cutoffs("success", "Success", [1, 5, 10])),
    TrecMeasure("set_P", expand_single("set_P", "P")),
    TrecMeasure("set_relative_P", expand_single("set_relative_P", "RelativeP")),
    TrecMeasure("set_recall", expand_single("set_recall", "R")),
    TrecMeasure("set_map", expand_single("set_map", "SetAP")),
    TrecMeasure("set_F", expand_raw("set_F", set_f_measure), exact=expand_raw("set_F", set_f)),
    TrecMeasure("num_nonrel_judged_ret", expand_single("num_nonrel_judged_ret", "NumNonrelJudgedRet")),
    *[TrecMeasure(name, expand_none, mode="prefs", exact=expand_other(name, "prefs")) for name in PREFS_MEASURES],
    TrecMeasure("map_avgjg", expand_none, mode="qrels_jg", exact=expand_other("map_avgjg", "qrels_jg")),
    TrecMeasure("P_avgjg", expand_none, mode="qrels_jg", exact=expand_jg_cutoffs("P_avgjg", _CUTS)),
    TrecMeasure("Rprec_mult_avgjg", expand_none, mode="qrels_jg", exact=expand_jg_levels("Rprec_mult_avgjg", _MULTS)),
    TrecMeasure("yaap", expand_none, exact=expand_yaap),
    TrecMeasure("rbp", expand_raw("rbp", rbp_measure("RBP"))),
    TrecMeasure("rbp_resid", expand_raw("rbp_resid", rbp_measure("RBP_resid"))),
    TrecMeasure("unj", expand_cutoffs("unj", "Unjudged", [5, 10, 20])),
]}

NICKNAMES: dict[str, list[str]] = {
    "official": ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
                 "bpref", "recip_rank", "iprec_at_recall", "P"],
    "set": ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
            "set_relative_P", "set_map", "set_F"],
}
# measures.c trec_names: all_trec is a fixed list, not every measure (no dcg, yaap, prefs ...)
NICKNAMES["all_trec"] = ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
                         "bpref", "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "unj", "rbp",
                         "rbp_resid", "infAP", "gm_bpref", "utility", "11pt_avg", "ndcg", "relative_P",
                         "Rprec_mult", "success", "map_cut", "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G",
                         "set_P", "set_recall", "set_relative_P", "set_map", "set_F", "num_nonrel_judged_ret"]
NICKNAMES["all_prefs"] = ["runid", "num_q", *PREFS_MEASURES]
NICKNAMES["prefs"] = ["runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
                      "prefs_simp", "prefs_pair", "prefs_avgjg"]
NICKNAMES["qrels_jg"] = ["runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"]


def split_name(spec: str) -> tuple[str, str | None]:
    """``"P.5,10"`` -> ``("P", "5,10")``; ``"iprec_at_recall..1"`` -> ``("iprec_at_recall", ".1")``."""
    name, dot, params = spec.partition(".")
    return name, (params if dot else None)


def _chosen(specs: list[str]) -> dict[str, str | None]:
    chosen: dict[str, str | None] = {}
    for spec in specs:
        name, params = split_name(spec)
        if name in NICKNAMES and params is None:
            for member in NICKNAMES[name]:
                chosen.setdefault(member, None)
        elif name in TREC_MEASURES:
            # meas_init.c takes the parameters of the FIRST -m that gave this measure some
            # (a nickname only marks it), so later parameters never replace earlier ones.
            if chosen.get(name) is None:
                chosen[name] = params
        else:
            import difflib
            close = difflib.get_close_matches(name, list(TREC_MEASURES) + list(NICKNAMES), n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise MeasureError(f"unknown trec_eval measure {name!r}{hint}")
    return chosen


def expand(specs: list[str]) -> list[tuple[str, TrecMeasure, Measure]]:
    """Expand ``-m`` arguments into (label, trec measure, canonical measure) in print order.

    Measures with no canonical counterpart (prefs, judgment groups, yaap, ideal_dcg) expand
    to nothing here; :func:`expand_exact` gives what ``rankmeter trec_eval`` computes.
    """
    chosen = _chosen(specs)
    out = []
    for name, tm in TREC_MEASURES.items():
        if name in chosen:
            for label, measure in tm.expand(chosen[name]):
                out.append((label, tm, measure))
            if name == "runid":
                out.append(("runid", tm, None))
    return out


def expand_exact(specs: list[str]) -> list[tuple[str, TrecMeasure, object]]:
    """As :func:`expand`, with trec_eval's own computation where it differs (TrecMeasure.exact)."""
    chosen = _chosen(specs)
    out = []
    for name, tm in TREC_MEASURES.items():
        if name in chosen:
            for label, payload in (tm.exact or tm.expand)(chosen[name]):
                out.append((label, tm, payload))
            if name == "runid":
                out.append(("runid", tm, None))
    return out


def format_value(measure: Measure | None, value) -> str:
    """trec_eval's text for one value."""
    value_type = measure.family.value_type
    if value_type is TEXT:
        return f"'{value}'"
    if value_type is COUNT:
        return "%ld" % int(value)
    return "%6.4f" % float(value)
