"""pytrec_eval's measure names, read the way pytrec-eval-terrier 0.5.11 reads them.

pytrec_eval takes a set of names in two steps, both reproduced here:

1. its Python layer (:func:`combine`): nicknames (``official``, ``set``, ``all_trec``) are replaced by
   their members; a name not in :data:`supported_measures` must start with one that is, followed by
   ``.`` or ``_`` and numbers separated by commas (``P_5,10``, ``ndcg_cut.20,4``,
   ``iprec_at_recall_0.10``; anything after the numbers is ignored: ``P_10abc`` is ``P.10``); the numbers
   given for one measure across all names are pooled, de-duplicated as strings and joined in string order
   (``{"P_5", "P.10"}`` is ``P.10,5``). A measure given both bare and with numbers keeps only the numbers
   (``{"P", "P_5"}`` gives ``P_5`` alone).
2. the bundled trec_eval 9.0.8 (:func:`plan`): cutoffs are read with ``atol`` (``P.5.5`` is ``P_5``),
   sorted, and must be positive and distinct; recall levels and multipliers with ``atof``, sorted and
   distinct; ``11pt_avg``, ``set_F`` and ``utility`` keep their numbers in order; measures that take no
   numbers ignore them (``map.5`` is ``map``). Where pytrec_eval aborts the interpreter on a C assertion
   (a cutoff of 0, two equal cutoffs, numbers for ``G``, ``ndcg``, ``ndcg_rel`` or ``Rndcg``, which take
   ``grade=gain`` pairs that its name pattern cannot carry) the drop-in raises ValueError instead.

A measure's values are labelled as pytrec_eval labels them: ``P_5``, ``iprec_at_recall_0.10``,
``Rprec_mult_0.50`` for the cutoff measures, the bare name for every other one (``set_F``, ``11pt_avg``,
``utility`` whatever their numbers), in trec_eval 9.0.8's measure order.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from rankmeter.measures.trec_eval import NICKNAMES, PREFS_MEASURES

__all__ = ["supported_measures", "supported_nicknames", "combine", "plan", "Item"]

#: trec_eval 9.0.8's measures, in its table's order (measures.c te_trec_measures): pytrec_eval's order
#: within each query's dict
ORDER = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
         "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "Rprec_mult",
         "utility", "11pt_avg", "binG", "G", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut", "relative_P",
         "success", "set_P", "set_relative_P", "set_recall", "set_map", "set_F", "num_nonrel_judged_ret")

#: trec_eval 9.0.8's nicknames are trec_eval 10.0's (the registry's one copy, rankmeter.measures.trec_eval)
#: without the three measures 10.0 added to all_trec
_ADDED_IN_10 = ("unj", "rbp", "rbp_resid")
_OFFICIAL = list(NICKNAMES["official"])
_ALL_TREC = [name for name in NICKNAMES["all_trec"] if name not in _ADDED_IN_10]
_SET = list(NICKNAMES["set"])
_PREFS = list(PREFS_MEASURES)

#: ``pytrec_eval.supported_measures``: trec_eval 9.0.8's ``all_trec`` list (a set, as pytrec_eval's)
supported_measures = set(_ALL_TREC)
#: ``pytrec_eval.supported_nicknames``: each of trec_eval 9.0.8's nicknames to the set of its members.
#: Only official, set and all_trec can be used: the members of the others are not supported measures.
supported_nicknames = {
    "official": set(_OFFICIAL),
    "set": set(_SET),
    "all_trec": set(_ALL_TREC),
    "all_prefs": set(NICKNAMES["all_prefs"]),
    "prefs": set(NICKNAMES["prefs"]),
    "qrels_jg": set(NICKNAMES["qrels_jg"]),
}

# init kinds of trec_eval 9.0.8 (meas_init.c), by measure
_LONG_CUTS = {"P", "recall", "ndcg_cut", "map_cut", "relative_P", "success"}
_FLOAT_CUTS = {"iprec_at_recall", "Rprec_mult"}
_FLOAT_PARAMS = {"11pt_avg", "set_F", "utility", "relstring"}
_PAIR_PARAMS = {"G", "ndcg", "ndcg_rel", "Rndcg"}
_DEFAULTS = {
    "P": [5, 10, 15, 20, 30, 100, 200, 500, 1000], "recall": [5, 10, 15, 20, 30, 100, 200, 500, 1000],
    "ndcg_cut": [5, 10, 15, 20, 30, 100, 200, 500, 1000], "map_cut": [5, 10, 15, 20, 30, 100, 200, 500, 1000],
    "relative_P": [5, 10, 15, 20, 30, 100, 200, 500, 1000], "success": [1, 5, 10],
    "iprec_at_recall": [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0],
    "Rprec_mult": [0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0],
    "11pt_avg": [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0],
    "set_F": [1.0], "utility": [1.0, -1.0, 0.0, 0.0], "relstring": [10.0],
}
_LONG_MAX = 2 ** 63 - 1
#: what may follow a supported measure's name: pytrec_eval's pattern after ``re.escape(measure)``
_NUMBERS = re.compile(r"[\._]([0-9]+(\.[0-9]+)?(,[0-9]+(\.[0-9]+)?)*)")


@dataclass(frozen=True)
class Item:
    """One trec_eval measure as pytrec_eval computes it: its name, numbers and value labels."""

    name: str
    numbers: tuple      # cutoffs (int), levels or parameters (float), in trec_eval's order
    labels: tuple       # the keys of its values in each query's dict


def _base_of(name: str) -> tuple[str, str] | None:
    """(supported measure, numbers) of a parameterised name, as pytrec_eval's pattern matches it."""
    for base in supported_measures:  # re.match(re.escape(base) + pattern, name), with one compiled pattern
        found = _NUMBERS.match(name, len(base)) if name.startswith(base) else None
        if found is not None:
            return base, found.group(1)
    return None


def combine(measures) -> dict[str, str | None]:
    """pytrec_eval's Python layer: measure -> its pooled numbers as one string (None: none given)."""
    names = set()
    for m in measures:  # a str is iterated letter by letter, as pytrec_eval does
        names.update(supported_nicknames[m] if m in supported_nicknames else (m,))
    numbers: dict[str, set] = {}
    for name in names:
        if name in supported_measures or name in supported_nicknames:
            numbers.setdefault(name, set())
            continue
        if not isinstance(name, str):
            raise TypeError(f"expected string or bytes-like object, got {type(name).__name__!r}")
        found = _base_of(name)
        if found is None:
            raise ValueError(f"unsupported measure {name}")
        numbers.setdefault(found[0], set()).update(found[1].split(","))
    return {name: ",".join(sorted(given)) if given else None for name, given in numbers.items()}


def _atol(text: str) -> int:
    """C atol on a string of the pattern above: the leading digits (clamped as glibc clamps)."""
    return min(int(re.match(r"[0-9]+", text).group(0)), _LONG_MAX)


def _refuse(name: str, numbers: str, why: str) -> None:
    raise ValueError(f"measure {name}.{numbers}: {why} (pytrec_eval aborts the Python interpreter here; "
                     "the drop-in refuses it)")


def _item(name: str, given: str | None) -> Item:
    if name in _LONG_CUTS:
        cuts = _DEFAULTS[name] if given is None else sorted(_atol(t) for t in given.split(","))
        if cuts[0] <= 0:
            _refuse(name, given, "cutoffs must be positive")
        if len(set(cuts)) != len(cuts):
            _refuse(name, given, "two cutoffs are the same number")
        return Item(name, tuple(cuts), tuple(f"{name}_{k}" for k in cuts))
    if name in _FLOAT_CUTS:
        levels = _DEFAULTS[name] if given is None else sorted(float(t) for t in given.split(","))
        if len(set(levels)) != len(levels):
            _refuse(name, given, "two levels are the same number")
        return Item(name, tuple(levels), tuple(f"{name}_{x:3.2f}" for x in levels))
    if name in _PAIR_PARAMS and given is not None:
        _refuse(name, given, "this measure takes grade=gain pairs, which pytrec_eval's names cannot carry")
    if name in _FLOAT_PARAMS:
        values = _DEFAULTS[name] if given is None else [float(t) for t in given.split(",")]
        return Item(name, tuple(values), (name,))
    return Item(name, (), (name,))


def plan(combined: dict[str, str | None]) -> list[Item]:
    """The measures of :func:`combine`'s answer as trec_eval 9.0.8 sets them up, in its order."""
    return [_item(name, combined[name]) for name in ORDER if name in combined]
