"""Why do two tools' numbers differ? Each per-query difference attributed to the conventions causing it.

From a reference convention A to another B, :func:`diff` walks the switches of
:data:`rankmeter.compat.conventions.SWITCHES` in their fixed order, setting one at a time from A's
value to B's and scoring the run again; a switch's delta is the change it makes. The states run
from A to B, so the deltas telescope: per query they add up to B's value minus A's, and the same
walk over the means adds up to B's mean minus A's (a query-set switch, ``missing_query`` or
``unjudged_query``, changes which queries the mean is over, not any query's value). Causes are
found by switching, never guessed.
"""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from rankmeter.compat.conventions import (
    MEAN_ONLY, QUERY_SET, Convention, SWITCHES, averaged, convention_value, get_convention, offers, reproduce_option)

__all__ = ["diff", "load_dicts"]


def load_dicts(qrels, run) -> tuple[dict, dict]:
    """``({query: {doc: grade}}, {query: {doc: score}})`` from paths, rankmeter tables or dicts."""
    import rankmeter.io as io
    if not isinstance(qrels, dict):
        qrels = _nested(qrels if hasattr(qrels, "table") else io.read_qrels(qrels), "rel")
    if not isinstance(run, dict):
        run = _nested(run if hasattr(run, "table") else io.read_run(run), "score")
    return ({str(q): {str(d): g for d, g in docs.items()} for q, docs in qrels.items()},
            {str(q): {str(d): float(s) for d, s in docs.items()} for q, docs in run.items()})


def _nested(table, value: str) -> dict:
    """``{query: {doc: value}}`` of a rankmeter table's rows."""
    out: dict = {}
    for row in table.table.select(["query", "doc", value]).to_pylist():
        out.setdefault(_text(row["query"]), {})[_text(row["doc"])] = row[value]
    return out


def _text(value) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _round(value: float, digits) -> float:
    return value if digits is None or math.isnan(value) else round(value, digits)


def _mean(values: dict, mask: dict, digits, aggregate: str = "mean") -> float | None:
    """The value over the queries ``mask`` keeps: their mean, or their sum (a count trec_eval sums)."""
    kept = [v for q, v in values.items() if mask[q] and not math.isnan(v)]
    if not kept:
        return None
    return _round(float(np.sum(kept) if aggregate == "sum" else np.mean(kept)), digits)


class _Scorer:
    """Raw (unrounded) per-query values of one measure, one evaluation per distinct setting."""

    def __init__(self, qrels: dict, run: dict, measure, tables: dict):
        self.qrels, self.run, self.measure, self._cache, self._tables = qrels, run, measure, {}, tables

    def raw(self, conv) -> dict:
        key = tuple(v for k, v in conv.settings().items() if k not in QUERY_SET + MEAN_ONLY and k != "rounding")
        key += (conv.missing_query == "default",)   # a missing query's value: 0 whatever the measure
        if key not in self._cache:
            self._cache[key] = convention_value(conv, self.qrels, self.run, self.measure, rounded=False,
                                                cache=self._tables)
        return self._cache[key]

    def state(self, conv) -> tuple[dict, dict, float | None]:
        """Per-query values (rounded as ``conv`` rounds), which are averaged, and the mean."""
        raw = self.raw(conv)
        mask = averaged(conv, self.qrels, self.run)
        return ({q: _round(v, conv.rounding) for q, v in raw.items()}, mask,
                _mean(raw, mask, conv.rounding, conv.aggregate))


def _walk(scorer: _Scorer, a, b):
    """States from ``a`` to ``b``: ``[(switch, values, mask, mean)]`` (the first switch is None: ``a``).

    Rounding is undone first and applied last, so every other switch's delta is measured on unrounded
    values (the two rounding steps are one cause, their deltas added by :func:`_add`)."""
    states = [(None, *scorer.state(a))]
    conv = a
    if conv.rounding is not None:
        conv = replace(conv, rounding=None)
        states.append(("rounding", *scorer.state(conv)))
    for switch in SWITCHES:
        if switch != "rounding" and getattr(conv, switch) != getattr(b, switch):
            conv = conv.switched(switch, b)
            states.append((switch, *scorer.state(conv)))
    if b.rounding is not None:
        states.append(("rounding", *scorer.state(conv.switched("rounding", b))))
    return states


def _add(causes: list, cause: str, pair: list, delta) -> None:
    """Append a cause, or add its delta to the same cause of the same pair (rounding undone, then redone)."""
    for c in causes:
        if c["cause"] == cause and c["conventions"] == pair:
            c["delta"] = None if delta is None or c["delta"] is None else c["delta"] + delta
            return
    causes.append({"cause": cause, "conventions": pair, "delta": delta})


def diff(qrels, run, measures, conventions=("trec_eval", "pytrec_eval", "ir_measures", "ranx", "torchmetrics",
                                             "sklearn"), *, top: int | None = None) -> dict:
    """Each convention's value of each measure side by side, every difference attributed to its causes.

    Parameters
    ----------
    qrels, run : path, rankmeter Qrels/Run, or dict
        Judgments and results (a dict ``{query: {doc: score}}``; tied docs keep its order).
    measures : str or list of str
        rankmeter measure names (``"nDCG@10"``, ``"RR@10"``, ``"AP"``, ``"P@5"``).
    conventions : sequence of str or Convention
        Names of :data:`rankmeter.compat.conventions.CONVENTIONS`, or one's own
        :class:`~rankmeter.compat.conventions.Convention` (``Convention("mine", gain="exp",
        truncation=100)``); the first is the reference every other one is compared with.
    top : int, optional
        Keep only the ``top`` queries most affected (largest difference) per measure.

    Returns
    -------
    dict
        ``{"measures", "conventions": {name: {measure: mean}}, "queries": [{"query", "measure",
        "values": {name: value}, "causes": [{"cause", "conventions": [a, b], "delta"}]}],
        (a query whose causes include ``ties`` also has ``"tied"``: its groups of tied docs with
        different grades)
        "mean_causes": [{"measure", "cause", "conventions", "delta"}], "reproduce": {name: {measure: call}}}``.
        A value is None where the convention leaves the query out of its mean (or does not offer the
        measure); a query-set cause's per-query delta is None.
    """
    from rankmeter.measures.names import resolve_name
    from rankmeter.errors import ParameterError

    names = [measures] if isinstance(measures, str) else list(measures)
    parsed = [(label, m) for name in names for label, m in resolve_name(name)]
    convs = [c if isinstance(c, Convention) else get_convention(c) for c in conventions]
    if len(convs) < 2:
        raise ParameterError("--as: name at least two conventions to compare, e.g. trec_eval,ranx")
    qd, rd = load_dicts(qrels, run)
    out = {"measures": [label for label, _ in parsed], "conventions": {c.name: {} for c in convs},
           "queries": [], "mean_causes": [], "reproduce": {c.name: {} for c in convs}}
    tables: dict = {}   # the prepared inputs as rankmeter tables, shared by every measure
    for label, m in parsed:
        scorer = _Scorer(qd, rd, m, tables)
        ref = convs[0].for_measure(m)
        shown = {}
        for c in convs:
            if offers(c, m):
                values, mask, mean = scorer.state(c.for_measure(m))
                out["conventions"][c.name][label] = mean
                out["reproduce"][c.name][label] = reproduce_option(c.for_measure(m), m)
                shown[c.name] = {q: (values[q] if mask[q] else None) for q in values}
            else:
                out["conventions"][c.name][label] = None
        causes: dict = {q: [] for q in scorer.raw(ref)}
        for c in convs[1:]:
            if not offers(c, m) or not offers(convs[0], m):
                continue
            states = _walk(scorer, ref, c.for_measure(m))
            pair = [convs[0].name, c.name]
            mean_causes: list = []
            for (_, v0, k0, mean0), (switch, v1, k1, mean1) in zip(states, states[1:]):
                if mean0 is not None and mean1 is not None and mean1 != mean0:
                    _add(mean_causes, switch, pair, mean1 - mean0)
                for q in v1:
                    if switch in QUERY_SET and k0[q] != k1[q]:
                        _add(causes[q], switch, pair, None)
                    elif v1[q] != v0[q] and not (math.isnan(v1[q]) and math.isnan(v0[q])):
                        _add(causes[q], switch, pair, v1[q] - v0[q])
            out["mean_causes"].extend({"measure": label, **c} for c in mean_causes)
        rows = []
        for q in causes:
            values = {name: shown[name][q] for name in shown}
            if len({repr(v) for v in values.values()}) > 1:
                row = {"query": q, "measure": label, "values": values, "causes": causes[q]}
                if any(c["cause"] == "ties" for c in causes[q]):
                    row["tied"] = _tied_groups(qd.get(q, {}), rd.get(q, {}))
                rows.append(row)
        rows.sort(key=lambda r: (-_spread(r["values"]), r["query"]))
        out["queries"].extend(rows[:top] if top else rows)
    return out


def _tied_groups(judged: dict, docs: dict) -> list[list[str]]:
    """The groups of docs sharing a score whose grades differ (their order changes the value), best first."""
    groups: dict = {}
    for doc, score in docs.items():
        groups.setdefault(score, []).append(doc)
    return [sorted(g) for score, g in sorted(groups.items(), key=lambda kv: -kv[0])
            if len(g) > 1 and len({judged.get(d, 0) for d in g}) > 1]


def _spread(values: dict) -> float:
    """How much a query's values differ: the range of the numbers (1 when one is missing)."""
    nums = [v for v in values.values() if v is not None and not math.isnan(v)]
    if len(nums) < len(values):
        return 1.0
    return max(nums) - min(nums) if nums else 0.0
