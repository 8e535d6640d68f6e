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

import numpy as np

from rankmeter.errors import MeasureError
from rankmeter.measures.aggregation import COUNT, TEXT
from rankmeter.measures.base import Measure
from rankmeter.compat.prefs import PREFS_MEASURES

__all__ = ["TrecMeasure", "TREC_MEASURES", "NICKNAMES", "expand", "expand_exact", "Derived", "format_value", "LEVEL_FREE", "uses_level"]

#: Families trec_eval computes without its -l relevance level (m_ndcg.c, m_G.c, m_rbp.c ... read the
#: grades themselves); every other family gets rel=-l.
LEVEL_FREE = frozenset({"CG", "DCG", "nDCG", "nDCGRel", "G", "ERR", "nERR", "RBP", "RBP_resid",
                        "RelString", "Unjudged", "Inversions", "KendallTau"})


def uses_level(measure: Measure) -> bool:
    """Whether trec_eval's ``-l`` applies to ``measure``'s family."""
    return measure.name not in LEVEL_FREE

Expanded = list[tuple[str, "Measure | Derived | tuple"]]


@dataclass(frozen=True)
class Derived:
    """A trec_eval value computed in compat from canonical measures with trec_eval's own arithmetic.

    ``compute(*per_query_arrays_of_needs) -> per-query values``; summarised by the mean.
    """

    name: str
    needs: tuple
    compute: Callable[..., np.ndarray]


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


def _numbers(name: str, text: str, kind=float) -> list:
    try:
        values = [kind(float(v)) if kind is int else float(v) for v in text.split(",") if v != ""]
    except ValueError:
        raise MeasureError(f"trec_eval measure {name}: cannot read parameters {text!r}; "
                           "expected numbers separated by commas") from None
    if not values:
        raise MeasureError(f"trec_eval measure {name}: empty parameter list")
    return sorted(set(values))


def _cutoffs(name: str, family: str, default: list[int], **params) -> Callable[[str | None], Expanded]:
    def expand(text: str | None) -> Expanded:
        ks = default if text is None else _numbers(name, text, int)
        return [(f"{name}_{k}", Measure.of(family, params, k)) for k in ks]
    return expand


def _levels(name: str, make: Callable[[float], Measure], default: list[float]) -> Callable[[str | None], Expanded]:
    def expand(text: str | None) -> Expanded:
        xs = default if text is None else _numbers(name, text)
        return [(f"{name}_{x:3.2f}", make(x)) for x in xs]
    return expand


def _single(name: str, family: str, **params) -> Callable[[str | None], Expanded]:
    def expand(text: str | None) -> Expanded:
        if text is not None:
            raise MeasureError(f"trec_eval measure {name} takes no parameters (got {text!r})")
        return [(name, Measure.of(family, params))]
    return expand


def _raw(name: str, make: Callable[[str | None], Measure]) -> Callable[[str | None], Expanded]:
    """One measure whose label carries the raw parameter string (``utility_2,-1,0,0``)."""
    def expand(text: str | None) -> Expanded:
        return [(name if text is None else f"{name}_{text}", make(text))]
    return expand


def _gain_map(name: str, text: str | None) -> dict[int, float]:
    if text is None:
        return {}
    gains = {}
    for item in text.split(","):
        level, sep, gain = item.partition("=")
        try:
            gains[int(level)] = float(gain)
        except ValueError:
            raise MeasureError(f"trec_eval measure {name}: cannot read gain {item!r}; "
                               "expected level=gain pairs such as 1=3,2=9") from None
    return gains


def _utility(text: str | None) -> Measure:
    if text is None:
        return Measure.of("Utility")
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        raise MeasureError(f"trec_eval measure utility: cannot read parameters {text!r}; "
                           "expected 4 numbers separated by commas") from None
    if len(values) != 4:
        raise MeasureError(f"trec_eval measure utility takes 4 numbers, got {text!r}")
    return Measure.of("Utility", dict(zip(("rel_ret", "nonrel_ret", "rel_nonret", "nonrel_nonret"), values)))


def _ordered_floats(name: str, text: str) -> list[float]:
    """Numbers in the order given, duplicates kept (trec_eval's get_double_params)."""
    try:
        return [float(v) for v in text.split(",")]
    except ValueError:
        raise MeasureError(f"trec_eval measure {name}: cannot read parameters {text!r}; "
                           "expected numbers separated by commas") from None


def _set_f_canonical(text: str | None) -> Measure:
    """set_F.x as the canonical F with beta = sqrt(x) (the API's well-defined form)."""
    if text is None:
        return Measure.of("F")
    import math
    x = _ordered_floats("set_F", text)[0]
    if x < 0:
        raise MeasureError(f"trec_eval measure set_F: the weight must be >= 0, got {text!r}")
    return Measure.of("F", {"beta": math.sqrt(x)})


def _set_f(text: str | None) -> "Derived":
    """set_F.x: m_set_F.c uses only the first number, x, as is: (x+1)PR / (xP + R).

    Computed here from the counts with trec_eval's own arithmetic, so ``set_F.0.5`` keeps
    x = 0.5 exactly (going through beta = sqrt(x) and back gives 0.5000000000000001).
    """
    x = 1.0 if text is None else _ordered_floats("set_F", text)[0]
    if x < 0:
        raise MeasureError(f"trec_eval measure set_F: the weight must be >= 0, got {text!r}")

    def compute(rel_ret, ret, rel):
        with np.errstate(invalid="ignore", divide="ignore"):
            P = rel_ret / ret
            R = rel_ret / rel
            return np.where(rel_ret > 0, (x + 1.0) * P * R / (x * P + R), 0.0)
    return Derived("set_F", (Measure.of("NumRelRet"), Measure.of("NumRet"), Measure.of("NumRel")), compute)


def _eleven_point(text: str | None):
    """11pt_avg: the canonical IPrecAvg for sorted levels; m_11pt_avg.c's order-dependent walk otherwise.

    m_11pt_avg.c scans the levels from the last one down, matching each level's cutoff
    c = lround(x * R) against the relevant count as it falls: trailing levels with c above
    the relevant retrieved count score 0; a level reached gets its interpolated precision;
    once a level cannot be reached any more (c of 0, or above one already passed) it and all
    before it get the final interpolated precision (that of recall 0).
    """
    if text is None:
        return Measure.of("IPrecAvg")
    levels = _ordered_floats("11pt_avg", text)
    if levels == sorted(levels):
        return Measure.of("IPrecAvg", {"recalls": levels})
    needs = tuple(Measure.of("IPrec", {}, x) for x in levels) + (
        Measure.of("IPrec", {}, 0.0), Measure.of("NumRel"), Measure.of("NumRelRet"))

    def compute(*arrays):
        iprec, final, num_rel, rel_ret = arrays[:len(levels)], arrays[-3], arrays[-2], arrays[-1]
        total = np.zeros(len(final))
        skipping = np.ones(len(final), dtype=bool)
        blocked = np.zeros(len(final), dtype=bool)
        reachable = rel_ret.copy()
        for i in range(len(levels) - 1, -1, -1):
            cut = np.floor(levels[i] * num_rel + 0.5)
            skip = skipping & (cut > rel_ret)
            skipping &= skip
            live = ~skip
            blocked |= live & ((cut < 1) | (cut > reachable))
            hit = live & ~blocked
            total += np.where(hit, iprec[i], np.where(live & blocked, final, 0.0))
            reachable = np.where(hit, cut, reachable)
        return total / len(levels)
    return Derived("11pt_avg", needs, compute)


def _yaap(text: str | None) -> "Derived":
    """m_yaap.c: log((1 + S) / (1 + R - S)), S the sum of the precisions at the relevant ranks."""
    if text is not None:
        raise MeasureError(f"trec_eval measure yaap takes no parameters (got {text!r})")

    def compute(ap, rel):
        s = ap * rel
        return np.log((1.0 + s) / (1.0 + rel - s))
    return Derived("yaap", (Measure.of("AP"), Measure.of("NumRel")), compute)


def _rbp(family: str) -> Callable[[str | None], Measure]:
    def make(text: str | None) -> Measure:
        params: dict = {"p": 0.9, "gain": "trec_eval"}
        gains = {}
        for item in (text or "").split(","):
            if not item:
                continue
            key, _, value = item.partition("=")
            if key == "p":
                params["p"] = float(value)
            else:
                gains[int(key)] = float(value)
        if gains:
            params["gain"] = gains
        return Measure.of(family, params)
    return make


def _none(text: str | None) -> Expanded:
    """No canonical measure (only `rankmeter trec_eval` computes it, see TrecMeasure.exact)."""
    return []


def _other(name: str, mode: str) -> Callable[[str | None], Expanded]:
    """A measure computed outside the canonical engine (-R prefs / qrels_jg): label and name."""
    def expand(text: str | None) -> Expanded:
        if text is not None:
            raise MeasureError(f"trec_eval measure {name} takes no parameters (got {text!r})")
        return [(name, (mode, name, None))]
    return expand


def _jg_cutoffs(name: str, default: list[int]) -> Callable[[str | None], Expanded]:
    def expand(text: str | None) -> Expanded:
        ks = default if text is None else _numbers(name, text, int)
        return [(f"{name}_{k}", ("qrels_jg", name, k)) for k in ks]
    return expand


def _jg_levels(name: str, default: list[float]) -> Callable[[str | None], Expanded]:
    def expand(text: str | None) -> Expanded:
        xs = default if text is None else _numbers(name, text)
        return [(f"{name}_{x:3.2f}", ("qrels_jg", name, x)) for x in xs]
    return expand


def _yaap_expand(text: str | None) -> Expanded:
    return [("yaap", _yaap(text))]


_CUTS = [5, 10, 15, 20, 30, 100, 200, 500, 1000]
_RECALLS = [round(0.1 * i, 2) for i in range(11)]
_MULTS = [round(0.2 * i, 2) for i in range(1, 11)]

#: trec_eval 10.0's measures in its print order.
TREC_MEASURES: dict[str, TrecMeasure] = {t.name: t for t in [
    TrecMeasure("runid", lambda text: [], per_query=False),
    TrecMeasure("num_q", _single("num_q", "NumQ"), per_query=False),
    TrecMeasure("num_ret", _single("num_ret", "NumRet")),
    TrecMeasure("num_rel", _single("num_rel", "NumRel")),
    TrecMeasure("num_rel_ret", _single("num_rel_ret", "NumRelRet")),
    TrecMeasure("map", _single("map", "AP")),
    TrecMeasure("gm_map", _single("gm_map", "GMAP"), per_query=False),
    TrecMeasure("Rprec", _single("Rprec", "Rprec")),
    TrecMeasure("bpref", _single("bpref", "Bpref")),
    TrecMeasure("recip_rank", _single("recip_rank", "RR")),
    TrecMeasure("iprec_at_recall", _levels("iprec_at_recall", lambda x: Measure.of("IPrec", {}, x), _RECALLS)),
    TrecMeasure("P", _cutoffs("P", "P", _CUTS)),
    TrecMeasure("relstring", _raw("relstring", lambda t: Measure.of(
        "RelString", {}, 10 if t is None else int(_numbers("relstring", t.split(",")[0])[0]))), summary=False),
    TrecMeasure("recall", _cutoffs("recall", "R", _CUTS)),
    TrecMeasure("infAP", _single("infAP", "infAP")),
    TrecMeasure("gm_bpref", _single("gm_bpref", "GMBpref"), per_query=False),
    TrecMeasure("Rprec_mult", _levels("Rprec_mult", lambda x: Measure.of("RprecMult", {"mult": x}), _MULTS)),
    TrecMeasure("utility", _raw("utility", _utility)),
    # 11pt_avg and set_F read their numbers in the order given, duplicates kept (trec_eval's
    # get_double_params); set_F uses the first, its x, which is beta^2.
    TrecMeasure("11pt_avg", _raw("11pt_avg", lambda t: Measure.of(
        "IPrecAvg", {} if t is None else {"recalls": _ordered_floats("11pt_avg", t)})),
        exact=_raw("11pt_avg", _eleven_point)),
    TrecMeasure("binG", _single("binG", "BinG")),
    TrecMeasure("G", _raw("G", lambda t: Measure.of("G", {"gain": _gain_map("G", t)} if t else {}))),
    TrecMeasure("dcg", _raw("dcg", lambda t: Measure.of("DCG", {"gain": _gain_map("dcg", t)} if t else {}))),
    # m_ndcg.c: registered in 10.0 but in no nickname; two of dcg/ideal_dcg/ndcg together often
    # crash 10.0 (they share one parameter block, freed twice); each alone works
    TrecMeasure("ideal_dcg", _none, exact=_raw("ideal_dcg", lambda t: ("ideal_dcg", _gain_map("ideal_dcg", t)))),
    TrecMeasure("ndcg", _raw("ndcg", lambda t: Measure.of("nDCG", {"gain": _gain_map("ndcg", t)} if t else {}))),
    TrecMeasure("ndcg_rel", _raw("ndcg_rel", lambda t: Measure.of(
        "nDCGRel", {"gain": _gain_map("ndcg_rel", t)} if t else {}))),
    TrecMeasure("Rndcg", _raw("Rndcg", lambda t: Measure.of(
        "RnDCG", {"gain": _gain_map("Rndcg", t)} if t else {}))),
    TrecMeasure("ndcg_cut", _cutoffs("ndcg_cut", "nDCG", _CUTS)),
    TrecMeasure("map_cut", _cutoffs("map_cut", "AP", _CUTS)),
    TrecMeasure("relative_P", _cutoffs("relative_P", "RelativeP", _CUTS)),
    TrecMeasure("success", _cutoffs("success", "Success", [1, 5, 10])),
    TrecMeasure("set_P", _single("set_P", "P")),
    TrecMeasure("set_relative_P", _single("set_relative_P", "RelativeP")),
    TrecMeasure("set_recall", _single("set_recall", "R")),
    TrecMeasure("set_map", _single("set_map", "SetAP")),
    TrecMeasure("set_F", _raw("set_F", _set_f_canonical), exact=_raw("set_F", _set_f)),
    TrecMeasure("num_nonrel_judged_ret", _single("num_nonrel_judged_ret", "NumNonrelJudgedRet")),
    *[TrecMeasure(name, _none, mode="prefs", exact=_other(name, "prefs")) for name in PREFS_MEASURES],
    TrecMeasure("map_avgjg", _none, mode="qrels_jg", exact=_other("map_avgjg", "qrels_jg")),
    TrecMeasure("P_avgjg", _none, mode="qrels_jg", exact=_jg_cutoffs("P_avgjg", _CUTS)),
    TrecMeasure("Rprec_mult_avgjg", _none, mode="qrels_jg", exact=_jg_levels("Rprec_mult_avgjg", _MULTS)),
    TrecMeasure("yaap", _none, exact=_yaap_expand),
    TrecMeasure("rbp", _raw("rbp", _rbp("RBP"))),
    TrecMeasure("rbp_resid", _raw("rbp_resid", _rbp("RBP_resid"))),
    TrecMeasure("unj", _cutoffs("unj", "Unjudged", [5, 10, 20])),
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
