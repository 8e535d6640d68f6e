"""ranx's ``evaluate``: its metric names, inputs and outputs, scored by rankmeter's evaluator.

>>> from rankmeter.compat.ranx import Qrels, Run, evaluate
>>> qrels = Qrels({"q_1": {"d_12": 5, "d_25": 3}, "q_2": {"d_11": 6, "d_22": 1}})
>>> run = Run({"q_1": {"d_12": 0.9, "d_23": 0.8, "d_25": 0.7, "d_36": 0.6, "d_32": 0.5, "d_35": 0.4},
...            "q_2": {"d_12": 0.9, "d_11": 0.8, "d_25": 0.7, "d_36": 0.6, "d_22": 0.5, "d_35": 0.4}})
>>> {m: round(float(v), 4) for m, v in evaluate(qrels, run, ["map@5", "mrr"]).items()}
{'map@5': 0.6417, 'mrr': 0.75}
>>> {q: round(float(v), 4) for q, v in run.scores["mrr"].items()}
{'q_1': 1.0, 'q_2': 0.5}
"""
from __future__ import annotations

import warnings

import numpy as np
import pyarrow as pa

from rankmeter.compat.ranx.data import Qrels, Run
from rankmeter.compat.ranx.metrics import grades_of, measures_for
from rankmeter.errors import InputError, ParameterError

__all__ = ["evaluate", "per_query", "as_dict"]


def as_dict(data, what: str) -> dict:
    """``{q: {doc: value}}`` of a Qrels or Run (this module's or ranx's own) or of a dict."""
    if isinstance(data, (Qrels, Run)):
        return data._data
    if isinstance(data, dict):
        return data
    if type(data).__module__.startswith("ranx.") and hasattr(data, "to_dict"):
        return {q: dict(docs) for q, docs in data.to_dict().items()}
    raise ParameterError(f"{what}: expected a ranx {what.capitalize()} or a dict {{q_id: {{doc_id: value}}}}; got "
                         f"{type(data).__name__} (numba typed lists are ranx's internals: pass the Qrels/Run)")


def _table(data: dict, value: str, kind) -> "pa.Table":
    """``{q: {doc: value}}`` as the Arrow table rankmeter's readers take (ids already strings: read once)."""
    queries = [str(q) for q, docs in data.items() for _ in range(len(docs))]
    docs = [str(d) for items in data.values() for d in items]
    values = [v for items in data.values() for v in items.values()]
    return pa.table({"query": pa.array(queries, pa.string()), "doc": pa.array(docs, pa.string()),
                     value: pa.array(values, kind)})


def per_query(qrels, run, metrics: list[str]) -> tuple[list[str], dict[str, np.ndarray]]:
    """ranx's query order (sorted ids) and each metric's values in it, for qrels and run with the same queries."""
    from rankmeter.core.evaluator import Evaluator

    judged = as_dict(qrels, "qrels")
    ranked = as_dict(run, "run")
    if set(judged) != set(ranked):
        raise InputError("Qrels and Run query ids do not match. Pass `make_comparable=True` to add empty results "
                         "for queries missing from the run and remove those not appearing in qrels.")
    # ranx reads a negative grade as a low grade (bpref: judged, not relevant); rankmeter, as trec_eval, as
    # unjudged: 0 is what ranx means by it
    judged = {str(q): {str(d): max(int(g), 0) for d, g in docs.items()} for q, docs in judged.items()}
    grades = grades_of(judged)
    parts = {m: measures_for(m, grades) for m in metrics}
    wanted = list(dict.fromkeys(measure for part in parts.values() for _, measure in part))
    queries = sorted(map(str, ranked))
    with warnings.catch_warnings():  # ranx scores an empty ranking 0 without a word
        warnings.filterwarnings("ignore", r".*judged queries have no results")
        results = Evaluator(_table(judged, "rel", pa.int64()), wanted, queries="qrels") \
            .evaluate(_table(ranked, "score", pa.float64()))
    position = {q: i for i, q in enumerate(results.queries)}
    order = np.array([position[q] for q in queries], dtype=np.int64)
    values = {}
    for metric, part in parts.items():
        total = np.zeros(len(queries))
        for weight, measure in part:
            total = total + weight * np.asarray(results.values(measure), dtype=np.float64)[order]
        values[metric] = total
    return queries, values


def evaluate(qrels, run, metrics, return_mean: bool = True, return_std: bool = False, threads: int = 0,
             save_results_in_run: bool = True, make_comparable: bool = False):
    """ranx's ``evaluate``: a value (one metric) or ``{metric: value}``; per query arrays with ``return_mean=False``.

    ``threads`` is accepted and ignored (rankmeter's kernels are vectorised). With ``make_comparable``
    the run is scored as ranx's ``Run.make_comparable`` would leave it, without changing the run you pass;
    scores are saved in ``run.scores`` / ``run.mean_scores`` (and ``run.std_scores``) as ranx saves them.
    """
    metrics = [metrics] if isinstance(metrics, str) else list(metrics)
    if not return_mean:
        return_std = False
    scored = run
    if make_comparable and isinstance(qrels, Qrels) and isinstance(run, Run):
        scored = Run(run._data, run.name).make_comparable(qrels)
    queries, values = per_query(qrels, scored, metrics)
    if isinstance(run, Run) and save_results_in_run:
        for m, scores in values.items():
            run.mean_scores[m] = np.mean(scores)
            if return_std:
                run.std_scores[m] = np.std(scores)
            for q, score in zip(queries, scores):
                run.scores[m][q] = score
    out: dict = dict(values)
    if return_mean:
        out = {m: {"mean": np.mean(s), "std": np.std(s)} if return_std else np.mean(s) for m, s in values.items()}
    return out[metrics[0]] if len(metrics) == 1 else out
