"""Every spelling people copy from other tools, read as rankmeter measures.

:func:`resolve_name` reads one name, in this order, keeping the label as typed:

1. rankmeter's own grammar (``nDCG(gain=exp)@10``);
2. trec_eval's ``-m`` names (``ndcg_cut.10``, ``P.5,10``) and nicknames (``official``, ``all_trec``, ``set``);
3. trec_eval's printed names (``P_10``, ``ndcg_cut_10``, ``iprec_at_recall_0.50``, ``recall_1000``);
4. ir_measures' names and parameters (``MAP``, ``NDCG@10``, ``RPrec``, ``BPref``, ``SetF(beta=1)``,
   ``nDCG(dcg='exp-log2')@10``, ``IPrec(recall=0.5)``), and its measure objects;
5. ranx's names (``map@100``, ``ndcg_burges@10``, ``r-precision``, ``rbp.95``, ``ndcg@10-l2``);
6. a name that differs only in case, when only one measure fits (``map``, ``Ndcg@10``);
7. otherwise an error suggesting the closest measure, the cutoff kept (``ndgc@10`` -> ``nDCG@10``).

:func:`split_names` cuts ``"AP nDCG@10"`` or ``"AP,nDCG@10"`` into names.

>>> [(label, str(m)) for label, m in resolve_name("ndcg_burges@10-l2")]
[('ndcg_burges@10-l2', 'nDCG(gain=exp, rel=2)@10')]
>>> [str(m) for _, m in resolve_name("P_10")]
['P@10']
"""
from __future__ import annotations

import difflib
import re

from rankmeter.errors import MeasureError
from rankmeter.measures.base import REGISTRY, Measure
from rankmeter.measures.grammar import parse_measure
from rankmeter.measures.trec_eval import NICKNAMES, TREC_MEASURES, expand, split_name

__all__ = ["resolve_name", "split_names", "FOREIGN_FAMILIES", "RANX", "IR_MEASURES", "ir_measures_object",
           "ir_measures_params"]

#: ir_measures family names that are spelled differently here (same measure)
FOREIGN_FAMILIES = {
    "MAP": "AP", "MRR": "RR", "NDCG": "nDCG", "Precision": "P", "Recall": "R", "RPrec": "Rprec",
    "BPref": "Bpref", "SetP": "P", "SetR": "R", "SetF": "F", "SetRelP": "RelativeP",
    "MAP_IA": "AP_IA", "\u03b1_DCG": "alpha_DCG", "\u03b1_nDCG": "alpha_nDCG",
}

#: ranx metric name -> (canonical family, fixed parameters)
RANX = {
    "map": ("AP", {}), "mrr": ("RR", {}), "ndcg": ("nDCG", {}), "ndcg_burges": ("nDCG", {"gain": "exp"}),
    "precision": ("P", {}), "recall": ("R", {}), "f1": ("F1", {}), "hit_rate": ("HitRate", {}),
    "r-precision": ("Rprec", {}), "r_precision": ("Rprec", {}), "bpref": ("Bpref", {}), "dcg": ("DCG", {}),
    "dcg_burges": ("DCG", {"gain": "exp"}), "rbp": ("RBP", {}), "hits": ("Hits", {}),
}
#: ir_measures names (its registry) that are spelled the same here and mean the same (not ERR: ir_measures'
#: ERR@k is gdeval's, ERR(max_grade=4)@k here; the drop-in rankmeter.compat.ir_measures reads it so)
IR_MEASURES = {"AP", "IPrec", "NumQ", "NumRel", "NumRelRet", "NumRet", "P", "R", "RBP", "RR", "Rprec",
               "Bpref", "SetAP", "Success", "infAP", "nDCG", "Judged", "Accuracy", "Compat", "SDCG", "INST", "INSQ",
               "BPM", "NERR8", "NERR9", "NERR10", "NERR11",
               "alpha_DCG", "alpha_nDCG", "ERR_IA", "nERR_IA", "NRBP", "nNRBP", "P_IA", "StRecall", "AP_IA"}

_RANX = re.compile(r"^(?P<name>[a-z_\-]+?)(?:\.(?P<p>\d+))?(?:@(?P<k>\d+))?(?:-l(?P<rel>\d+))?$")
_FOREIGN = re.compile(r"^(?P<name>[A-Za-z_\u03b1][A-Za-z0-9_]*)(?:\((?P<params>.*)\))?(?:@(?P<cutoff>[0-9.]+))?$")


def split_names(text: str) -> list[str]:
    """Names separated by spaces or commas outside parentheses and braces."""
    out, depth, current = [], 0, ""
    for ch in text:
        depth += ch in "([{"
        depth -= ch in ")]}"
        if depth == 0 and (ch.isspace() or ch == ","):
            if current:
                out.append(current)
            current = ""
        else:
            current += ch
    if current:
        out.append(current)
    return out


def _canonical(text: str) -> list[tuple[str, Measure]] | None:
    try:
        return [(text, parse_measure(text))]
    except MeasureError:
        return None


#: ir_measures spellings that read differently here, so they are translated before the canonical reader:
#: its NumRet(rel=k) counts the retrieved docs with grade >= k (NumRelRet), its SetP(relative=True) is RelativeP
_IR_MEASURES_FIRST = [
    (re.compile(r"^NumRet\(\s*rel\s*=\s*(-?\d+)\s*\)$"), lambda m: f"NumRelRet(rel={m[1]})"),
    (re.compile(r"^SetP\(\s*relative\s*=\s*True\s*((?:,[^)]*)?)\)$"),
     lambda m: "RelativeP" + (f"({m[1].strip(', ')})" if m[1].strip(", ") else "")),
]


def _ir_measures_first(text: str) -> list[tuple[str, Measure]] | None:
    for pattern, rewrite in _IR_MEASURES_FIRST:
        match = pattern.match(text)
        if match:
            return [(text, parse_measure(rewrite(match)))]
    return None


def _trec_eval(text: str) -> list[tuple[str, Measure]] | None:
    name = split_name(text)[0]
    candidates = [text] if (name in TREC_MEASURES or text in NICKNAMES) and name != "runid" else []
    # a printed name: "P_10", "ndcg_cut_10", "iprec_at_recall_0.50" -> the -m form "P.10", ...
    for i in [m.start() for m in re.finditer("_", text)][::-1]:
        if text[:i] in TREC_MEASURES and text[:i] != "runid" and re.fullmatch(r"[0-9.]+", text[i + 1:]):
            candidates.append(f"{text[:i]}.{text[i + 1:]}")
    for spec in candidates:
        try:
            expanded = [(label, m) for label, _, m in expand([spec]) if m is not None]
        except (MeasureError, ValueError):  # not a trec_eval spelling after all ("rbp.95" is ranx's)
            continue
        if not expanded:
            raise MeasureError(f"{text!r} is a trec_eval measure with no canonical form here; compute it with "
                               f"`rankmeter trec_eval -m {spec}` (see docs/trec_eval.md)")
        if len(expanded) == 1:
            return [(text, expanded[0][1])]
        return expanded
    return None


def _ir_measures(text: str) -> list[tuple[str, Measure]] | None:
    match = _FOREIGN.match(text.replace("\u03b1", "alpha"))
    if not match or match["name"] not in FOREIGN_FAMILIES and match["name"] not in REGISTRY:
        return None
    family = FOREIGN_FAMILIES.get(match["name"], match["name"])
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


def _ranx(text: str) -> list[tuple[str, Measure]] | None:
    match = _RANX.match(text)
    if not match or match["name"] not in RANX:
        return None
    family, fixed = RANX[match["name"]]
    params = dict(fixed)
    if match["p"]:
        if family != "RBP":
            return None
        params["p"] = float("0." + match["p"])
    if match["rel"]:
        params["rel"] = int(match["rel"])
    k = int(match["k"]) if match["k"] else None
    try:
        return [(text, Measure.of(family, params, k))]
    except MeasureError:
        return None


def _names_by_case() -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for name in list(REGISTRY) + list(FOREIGN_FAMILIES):
        out.setdefault(name.lower(), set()).add(FOREIGN_FAMILIES.get(name, name))
    return out


def _head(text: str) -> tuple[str, str]:
    """The leading name of ``text`` and the rest (parameters, cutoff)."""
    match = re.match(r"[A-Za-z_][A-Za-z0-9_]*", text)
    return (match.group(), text[match.end():]) if match else ("", text)


def resolve_name(text: str) -> list[tuple[str, Measure]]:
    """One name as typed -> [(label, Measure)] (several for trec_eval names with several parameters)."""
    text = text.strip()
    for reader in (_ir_measures_first, _canonical, _trec_eval, _ir_measures, _ranx):
        found = reader(text)
        if found is not None:
            return found
    head, rest = _head(text)
    fits = _names_by_case().get(head.lower(), set())
    if len(fits) == 1:
        found = resolve_name(next(iter(fits)) + rest) if next(iter(fits)) != head else None
        if found:
            return [(text, m) for _, m in found]
    if len(fits) > 1:
        raise MeasureError(f"{text!r} could mean {', '.join(sorted(f + rest for f in fits))}; write one of them")
    family = FOREIGN_FAMILIES.get(head, head)
    if family in REGISTRY:  # a known family the readers refused: its own complaint (a missing cutoff ...)
        return [(text, parse_measure(family + rest))]
    pool = sorted(set(REGISTRY) | set(FOREIGN_FAMILIES))
    close = difflib.get_close_matches(head, pool, n=1, cutoff=0.6) or \
        difflib.get_close_matches(head.lower(), [p.lower() for p in pool], n=1, cutoff=0.6)
    if close:
        guess = next((p for p in pool if p == close[0] or p.lower() == close[0]), close[0])
        suggestion = FOREIGN_FAMILIES.get(guess, guess) + rest
        raise MeasureError(f"unknown measure {text!r}; did you mean {suggestion}? "
                           "(`rankmeter measures` lists them all)")
    raise MeasureError(f"unknown measure {text!r} (`rankmeter measures` lists them all)")


def ir_measures_params(obj) -> tuple[str, dict]:
    """(name, every parameter with its default filled in) of an ir_measures measure object (of ir_measures
    or of its drop-in :mod:`rankmeter.compat.ir_measures`), read without importing either."""
    name = getattr(obj, "NAME", None) or type(obj).__name__
    supported = getattr(obj, "SUPPORTED_PARAMS", {})
    params = {}
    for key, info in supported.items():
        default = getattr(info, "default", None)
        params[key] = obj.params.get(key, None if type(default).__name__ == "object" else default)
    return name, params


def ir_measures_object(obj) -> Measure:
    """The measure giving ir_measures' numbers for one of its measure objects (``nDCG@10``, ``ERR@20``).

    ``ERR@k`` is the TREC Web track's gdeval ERR, the provider ir_measures calls for it: grades capped
    by a fixed maximum of 4 (``ERR(max_grade=4)@k``); ``SetF(beta=b)`` is trec_eval's ``set_F.b``,
    whose parameter is beta squared (``F(beta=sqrt(b))``); ``SetP(relative=True)`` is ``RelativeP``;
    everything else reads from its printed name (:func:`resolve_name`).
    """
    import math
    name, params = ir_measures_params(obj)
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
