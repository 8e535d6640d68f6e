"""ir_measures' calling conventions over rankmeter's engine: ``calc_aggregate``, ``iter_calc``.

>>> from rankmeter.compat import ir_measures as irm
>>> qrels = {"q1": {"d1": 1, "d2": 0}}
>>> run = {"q1": {"d1": 0.5, "d2": 0.9}}
>>> irm.calc_aggregate(["AP", "nDCG@3"], qrels, run)
{'AP': 0.5, 'nDCG@3': 0.6309297535714575}
>>> [(m.query_id, str(m.measure), m.value) for m in irm.iter_calc(["AP"], qrels, run)]
[('q1', 'AP', 0.5)]

Measures may be ir_measures objects (``ir_measures.nDCG@10``), their names, or any rankmeter name;
qrels and runs may be dicts, frames, files, or iterables of ir_measures' namedtuples
(``Qrel(query_id, doc_id, relevance)``, ``ScoredDoc(query_id, doc_id, score)``). The keys of
``calc_aggregate``'s result are the measures as given, so ``result[ir_measures.nDCG@10]`` works.
"""
from __future__ import annotations

from collections import namedtuple
from collections.abc import Iterable, Iterator

from rankmeter.core.evaluator import Evaluator

__all__ = ["calc_aggregate", "iter_calc", "Metric"]

Metric = namedtuple("Metric", ["query_id", "measure", "value"])


def _table(data, value: str):
    """ir_measures' namedtuple iterables as a dict; anything else as given."""
    if isinstance(data, (dict, str, bytes)) or hasattr(data, "read") or hasattr(data, "columns") \
            or type(data).__module__.startswith(("pyarrow", "pandas", "polars", "rankmeter")):
        return data
    out: dict = {}
    for row in data:
        out.setdefault(row.query_id, {})[row.doc_id] = getattr(row, value)
    return out


def _measures(measures) -> list[tuple[object, object]]:
    """(key as given, Measure) pairs; a name that expands to several keys each by its label."""
    from rankmeter.core.resolve import resolve_measures
    if isinstance(measures, str) or not isinstance(measures, Iterable):
        measures = [measures]
    out = []
    for original in measures:
        resolved = resolve_measures(original)
        out += [(original, resolved[0][1])] if len(resolved) == 1 else resolved
    return out


def calc_aggregate(measures, qrels, run) -> dict:
    """``{measure: mean over queries}``, keyed by the measures as given."""
    given = _measures(measures)
    results = Evaluator(_table(qrels, "relevance"), [m for _, m in given]).evaluate(_table(run, "score"))
    return {key: results[m] for key, m in given}


def iter_calc(measures, qrels, run) -> Iterator[Metric]:
    """Per query and measure, ``Metric(query_id, measure, value)`` (measure as given)."""
    given = _measures(measures)
    results = Evaluator(_table(qrels, "relevance"), [m for _, m in given]).evaluate(_table(run, "score"))
    columns = [(key, results.values(m)) for key, m in given]
    for i, q in enumerate(results.queries):
        for original, values in columns:
            yield Metric(q, original, values[i].item() if hasattr(values[i], "item") else values[i])
