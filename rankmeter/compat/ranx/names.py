"""ranx's vocabulary: its metric names (``ndcg@10``, ``map@100-l2``, ``rbp.95``) and the rankmeter measures
that give each one's value per query (the table in :mod:`rankmeter.compat.ranx.metrics`)."""
from __future__ import annotations

from rankmeter.compat.ranx.errors import MeasureAssertion
from rankmeter.errors import MeasureError
from rankmeter.compat.ranx.model import NAMES

__all__ = ["METRICS", "grades_of", "measures_for", "measures_of", "split_metric"]

#: ranx metric -> rankmeter family: ranx's model's names table (:data:`rankmeter.compat.ranx.model.NAMES`),
#: without the ``r_precision`` spelling ranx itself refuses
METRICS = {name: family for name, (family, _) in NAMES.items() if name != "r_precision"}
_NO_CUTOFF = {"r-precision", "bpref", "rbp"}


def split_metric(metric: str) -> tuple[str, int | float, int]:
    """``"ndcg@10-l2"`` -> ``("ndcg", 10, 2)``; ``"rbp.95"`` -> ``("rbp", 0.95, 1)`` (ranx's own reading)."""
    if not isinstance(metric, str):
        raise MeasureError(f"metrics: {metric!r} is not a ranx metric name such as 'ndcg@10'")
    name, level = metric, 1
    if "-l" in name:
        name, _, text = name.partition("-l")
        if not text.isdigit():
            raise MeasureError(f"{metric!r}: the relevance level after -l must be an integer, e.g. ndcg@10-l2")
        level = int(text)
    if name.startswith("rbp"):
        base, sep, p = name.replace("@", ".").partition(".")
        if base != "rbp" or not sep or not p.isdigit():
            raise MeasureError(f"{metric!r}: RBP needs its persistence, e.g. rbp.95 for p = 0.95")
        return "rbp", float(f"0.{p}"), level
    base, _, k = name.partition("@")
    if base not in METRICS:
        raise MeasureError(f"unknown ranx metric {metric!r}; ranx's metrics are {', '.join(METRICS)}")
    if k.startswith("-") and k[1:].isdigit():
        raise MeasureAssertion(f"{metric!r}: k must be greater or equal to 0 (0: the whole ranking)")
    if k and not k.isdigit():
        raise MeasureError(f"{metric!r}: the cutoff after @ must be a non-negative integer")
    return base, int(k) if k else 0, level


def grades_of(qrels) -> list[int]:
    """The distinct grades of ``{query: {doc: grade}}``."""
    return sorted({int(g) for docs in qrels.values() for g in docs.values()})


def measures_for(metric: str, grades: list[int]) -> list[tuple[float, object]]:
    """``[(weight, rankmeter Measure)]`` whose weighted sum per query is ranx's ``metric``."""
    return measures_of(*split_metric(metric), grades)


def measures_of(base: str, k: int | float, level: int, grades: list[int]) -> list[tuple[float, object]]:
    """:func:`measures_for` of a name already split (``k`` is RBP's persistence for ``rbp``)."""
    from rankmeter.measures import Measure

    family = METRICS[base]
    if base == "rbp":
        top = max([g for g in grades if g >= level], default=level)
        out = [(float(level), Measure.of("RBP", {"p": k, "rel": level}, None))]
        return out + [(1.0, Measure.of("RBP", {"p": k, "rel": t}, None)) for t in range(level + 1, top + 1)]
    cutoff = None if base in _NO_CUTOFF or k == 0 else k
    if family in ("DCG", "nDCG"):
        burges = base.endswith("_burges")
        gains = {g: (float(2 ** g - 1) if burges else float(g)) if g >= level and g > 0 else 0.0
                 for g in set(grades) | {1}}
        return [(1.0, Measure.of(family, {"gain": gains}, cutoff))]
    return [(1.0, Measure.of(family, {"rel": level}, cutoff))]
