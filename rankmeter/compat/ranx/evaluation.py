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

import numpy as np
import pyarrow as pa

from rankmeter.compat.ranx.data import Qrels, Run
from rankmeter.compat.ranx.errors import InputAssertion, InputTypeError, MeasureAssertion, MeasureTypeError
from rankmeter.compat.ranx.metric_names import grades_of, split_metric
from rankmeter.compat.ranx.scoring import options, scores_of
from rankmeter.errors import InputError

__all__ = ["evaluate", "per_query", "as_dict", "is_typed_list", "scores_of", "options"]


def as_dict(data, what: str) -> dict:
    """``{q: {doc: value}}`` of a Qrels or Run (this module's or ranx's own) or of a dict."""
    if isinstance(data, (Qrels, Run)):
        return data._data
    if isinstance(data, dict):
        return data
    if type(data).__module__.startswith("ranx.") and hasattr(data, "to_dict"):
        return {q: dict(docs) for q, docs in data.to_dict().items()}
    raise InputTypeError(f"{what}: expected a ranx {what.capitalize()} or a dict {{q_id: {{doc_id: value}}}}; got "
                         f"{type(data).__name__}")


def is_typed_list(data) -> bool:
    """Whether ``data`` is ranx's low-level input: a list (numba typed or not) or 3-D array of (n, 2) arrays."""
    if isinstance(data, np.ndarray):
        return data.ndim == 3 or (data.ndim == 1 and data.dtype == object)
    return not isinstance(data, (dict, str, bytes, Qrels, Run)) and hasattr(data, "__len__") \
        and hasattr(data, "__getitem__") and not hasattr(data, "to_dict")


def _table(data: dict, value: str, kind) -> "pa.Table":
    """``{q: {doc: value}}`` as the Arrow table rankmeter's readers take (ids already strings: read once)."""
    queries = [str(q) for q, docs in data.items() for _ in range(len(docs))]
    docs = [str(d) for items in data.values() for d in items]
    try:
        values = pa.array([v for items in data.values() for v in items.values()], kind)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, OverflowError) as exc:
        raise InputError(f"a {'grade' if value == 'rel' else 'score'} is not a number ({exc})",
                         source="<qrels>" if value == "rel" else "<run>") from None
    return pa.table({"query": pa.array(queries, pa.string()), "doc": pa.array(docs, pa.string()), value: values})


def per_query(qrels, run, metrics: list[str]) -> tuple[list[str], dict[str, np.ndarray]]:
    """ranx's query order (sorted ids) and each metric's values in it, for qrels and run with the same queries."""
    if is_typed_list(qrels) or is_typed_list(run):
        from rankmeter.compat.ranx.kernels import typed_values
        values = typed_values(qrels, run, metrics)
        return [str(i) for i in range(len(qrels))], values
    if isinstance(run, Run) and not run.sorted:
        run.sort()  # as ranx's to_typed_list sorts it, in place
    judged = as_dict(qrels, "qrels")
    ranked = as_dict(run, "run")
    if set(judged) != set(ranked):
        raise InputAssertion("Qrels and Run query ids do not match. Pass `make_comparable=True` to add empty results "
                             "for queries missing from the run and remove those not appearing in qrels.")
    # ranx reads a negative grade as a low grade (bpref: judged, not relevant); rankmeter, as trec_eval, as
    # unjudged: 0 is what ranx means by it
    judged = {str(q): {str(d): max(_grade(g), 0) for d, g in docs.items()} for q, docs in judged.items()}
    for metric in metrics:
        split_metric(metric)  # a bad name is refused before any work
    if isinstance(run, Run):
        queries = sorted(map(str, ranked))
    else:  # ranx ranks a dict's docs by its own sort (ascending, reversed), in the qrels' query order
        queries = list(judged)
        ranked = {str(q): _dict_order(ranked[q] if q in ranked else ranked[_key(ranked, q)]) for q in queries}
    return queries, scores_of(_table(judged, "rel", pa.int64()), _table(ranked, "score", pa.float64()), queries,
                              metrics, grades_of(judged))


def _key(data: dict, q: str):
    return next(k for k in data if str(k) == q)


def _dict_order(docs: dict) -> dict:
    from rankmeter.compat.ranx.ties import order
    try:
        items = [(str(d), float(v)) for d, v in docs.items()]
    except (TypeError, ValueError, AttributeError) as exc:
        raise InputError(f"a score is not a number ({exc})", source="<run>") from None
    return dict(items[i] for i in order([v for _, v in items], descending_of_ascending=True))


def _grade(g) -> int:
    try:
        return int(g)
    except (TypeError, ValueError, OverflowError):
        raise InputError(f"grade {g!r} is not an integer", source="<qrels>") from None


def metric_list(metrics) -> list[str]:
    """ranx's ``metrics``: one name or a list of names (refused as ranx refuses them, in one line)."""
    if isinstance(metrics, str):
        return [metrics]
    if not isinstance(metrics, (list, tuple)) and not hasattr(metrics, "__iter__"):
        raise MeasureTypeError(f"metrics={metrics!r}: pass a ranx metric name such as 'ndcg@10' or a list of them")
    metrics = list(metrics)
    for m in metrics:
        if not isinstance(m, str):
            raise MeasureAssertion(f"metrics: {m!r} is not a ranx metric name such as 'ndcg@10'")
    return metrics


def evaluate(qrels, run, metrics, return_mean: bool = True, return_std: bool = False, threads: int = 0,
             save_results_in_run: bool = True, make_comparable: bool = False):
    """ranx's ``evaluate``: a value (one metric) or ``{metric: value}``; per query arrays with ``return_mean=False``.

    ``threads`` is accepted and ignored (rankmeter's kernels are vectorised). With ``make_comparable``
    the run is scored as ranx's ``Run.make_comparable`` would leave it, without changing the run you pass;
    scores are saved in ``run.scores`` / ``run.mean_scores`` (and ``run.std_scores``) as ranx saves them.
    """
    metrics = metric_list(metrics)
    if not return_mean:
        return_std = False
    scored = run
    if make_comparable and isinstance(qrels, Qrels) and isinstance(run, Run):
        scored = run._copy().make_comparable(qrels)
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
