"""Fusion methods trained on judged queries: how likely each rank of each run is to hold a relevant doc.

Training reads, per training run, the hit list of every query the training
qrels judge and the run ranks (1 where the doc at that rank has grade >= ``rel``;
ranx's hit lists use 1, the default), with the core's one ordering and join
under the evaluation options given; everything is vectorised over queries. The estimates and scores are ranx's:

=============  ==============================================================  =====================
method         trained per run (ranx's parameter)                              score of the doc at rank i
=============  ==============================================================  =====================
``posfuse``    ``probs[i]``: hits at rank i / queries with >= i docs           ``probs[i]`` (0 past the table)
               (Lillis et al. 2006's position probabilities)
``probfuse``   ``probs[k]``: mean over queries of the hit rate in the k-th of  ``probs[k] / k`` (k: segment of
               ``n_segments`` equal segments of the query's list                rank i, 1-based)
               (Lillis et al. 2006)
``segfuse``    ``probs[k]``: mean over queries of hits / size of the k-th of   ``probs[k] * (score + 1)``
               the segments [0, 5), [5, 15), [15, 35) ... (size 10 * 2^(k-1) - 5;
               Shokouhi 2007)
``slidefuse``  ``probs`` as posfuse                                            mean of ``probs`` over ranks
                                                                                i - w .. i + w (within the list)
``bayesfuse``  ``log_odds[i]``: log odds of the mean precision of rank i's     ``log_odds[i]``; a run without the
               interval of 0, 5, 10, 15, 20, 30, 100, 200, 500, 1000 (Aslam &    doc adds log(0.001 / 0.999)
               Montague 2001)
``mapfuse``    ``map_scores``: the run's MAP                                   ``map / i``
=============  ==============================================================  =====================

Fused scores are summed over the runs that retrieved the doc (CombSUM), as
ranx does. ``bayesfuse`` past rank 1000 and ``segfuse`` past rank 5115 read
as an absent doc (ranx reads past its table there).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from rankmeter.engine.param import Param, validate_params
from rankmeter.errors import ParameterError

if TYPE_CHECKING:
    from rankmeter.core.options import Options

__all__ = ["TRAINED", "train", "train_with", "trained_scores"]

#: method -> (trained parameter, training-only parameters and their defaults)
TRAINED = {
    "posfuse": ("probs", {}),
    "probfuse": ("probs", {"n_segments": 10}),
    "segfuse": ("probs", {}),
    "slidefuse": ("probs", {}),
    "bayesfuse": ("log_odds", {}),
    "mapfuse": ("map_scores", {}),
}
_SEGFUSE_BOUNDS = np.array([0] + [10 * 2 ** (k - 1) - 5 for k in range(1, 11)])
_BAYES_CUTS = np.array([0, 5, 10, 15, 20, 30, 100, 200, 500, 1000])
MIN_ODD = float(np.log(0.001 / 0.999))


def _hit_lists(evaluator, run):
    """(hit per rank, query index per rank, 0-based rank, list length per query, number of queries) of the
    judged queries ``run`` ranks: the core's ranked rows (:meth:`~rankmeter.core.Evaluator.rows`) under the
    evaluator's options, a hit where the row is relevant (grade >= ``rel``)."""
    rows = evaluator.rows(run)
    rank = rows.column("rank").to_numpy()
    q = np.cumsum(rank == 1) - 1             # the table holds each query's rows together, from rank 1
    lengths = np.bincount(q) if len(q) else np.zeros(0, np.int64)
    hit = rows.column("relevant").to_numpy(zero_copy_only=False).astype(np.float64)
    return hit, q, rank - 1, lengths, len(lengths)


#: the methods :func:`train` trains
TRAINED_METHOD = Param("method", "choice", help="a trained fusion method", choices=tuple(TRAINED))


@validate_params(TRAINED_METHOD)
def train(qrels, runs, method: str, *, n_segments: int = 10, measure: str = "AP", **options) -> dict:
    """The trained parameter of ``method`` for each of ``runs`` from the judged queries of ``qrels``.

    ``options`` are the evaluation options (``rel``, ``ties``, ``judged_only``, ``max_docs`` ...): a doc is
    a hit when its grade is >= ``rel`` (ranx's hit lists use 1), ranked and joined as ``evaluate`` ranks
    and joins under the same options; ``mapfuse`` scores ``measure`` with them.
    Returns ranx's parameter dict: ``{"probs": [...]}``, ``{"log_odds": [...]}`` or ``{"map_scores": [...]}``.
    """
    from rankmeter.core.options import validate_options

    return train_with(qrels, runs, method, validate_options(**options), n_segments=n_segments, measure=measure)


def train_with(qrels, runs, method: str, options: Options, *, n_segments: int = 10, measure: str = "AP") -> dict:
    """:func:`train` under evaluation options validated already (``method`` one of :data:`TRAINED`)."""
    from rankmeter.fusion.catalog import PARAMETERS
    from rankmeter.core import Evaluator
    from rankmeter.core.naming import name_runs

    if method == "probfuse":
        n_segments = PARAMETERS["n_segments"].check(n_segments, method=method)
    key = TRAINED[method][0]
    evaluator = Evaluator.of(qrels, [measure], options)
    named = [run for _, run in name_runs(list(runs), columns=evaluator.options.columns,
                                         input_format=evaluator.options.input_format)]
    if method == "mapfuse":
        return {key: [float(evaluator.evaluate(run).mean[measure]) for run in named]}
    return {key: [_estimate(method, *_hit_lists(evaluator, run), n_segments=n_segments) for run in named]}


def _estimate(method: str, hit, q, pos, lengths, nq, *, n_segments: int) -> np.ndarray:
    if nq == 0:
        raise ParameterError("no query is both judged by the training qrels and ranked by the run")
    if method in ("posfuse", "slidefuse"):
        longest = int(lengths.max(initial=0))
        hits = np.bincount(pos, weights=hit, minlength=longest)
        lists = np.bincount(lengths, minlength=longest + 1)[::-1].cumsum()[::-1][1:]  # queries with > i docs
        return hits / lists
    if method == "probfuse":
        size = -(-lengths // n_segments)                        # ceil(len / n_segments) per query
        seg = pos // np.maximum(size[q], 1)
        cell = q * n_segments + seg
        hits = np.bincount(cell, weights=hit, minlength=nq * n_segments).reshape(nq, n_segments)
        docs = np.bincount(cell, minlength=nq * n_segments).reshape(nq, n_segments)
        rate = np.divide(hits, docs, out=np.zeros_like(hits), where=docs > 0)
        return rate.sum(axis=0) / nq
    bounds = _SEGFUSE_BOUNDS if method == "segfuse" else _BAYES_CUTS
    inside = pos < bounds[-1]
    seg = np.searchsorted(bounds, pos[inside], side="right") - 1
    k = len(bounds) - 1
    hits = np.bincount(q[inside] * k + seg, weights=hit[inside], minlength=nq * k).reshape(nq, k)
    rate = (hits / np.diff(bounds)).sum(axis=0) / nq
    if method == "segfuse":
        return rate
    precision = np.where(rate == 0, 0.001, rate)
    other = 1 - precision
    other = np.where(other == 0, 0.001, other)
    return np.repeat(np.log(precision / other), np.diff(bounds))


def trained_scores(method: str, S: np.ndarray, R: np.ndarray, N: np.ndarray, p: dict) -> np.ndarray:
    """Per (pair, run) score of a trained method; NaN where the run did not retrieve the doc.

    ``S`` normalised scores, ``R`` 1-based ranks, ``N`` the run's list length for the pair's query.
    """
    key = TRAINED[method][0]
    table = p.get(key)
    if table is None:
        raise ParameterError(f"{method} needs {key}: train it on judged queries (fuse(..., train_qrels=...), "
                             f"rankmeter fuse --qrels) or pass params={{{key!r}: [one per run]}}")
    if len(table) != R.shape[1]:
        raise ParameterError(f"{key}: {len(table)} given for {R.shape[1]} runs")
    present = ~np.isnan(R)
    out = np.full(R.shape, np.nan)
    for r, values in enumerate(table):
        rows = np.flatnonzero(present[:, r])
        i = R[rows, r].astype(np.int64) - 1
        out[rows, r] = _score_of(method, np.asarray(values, dtype=np.float64), i, N[rows, r].astype(np.int64),
                                 S[rows, r], p)
    if method == "bayesfuse":
        out[~present] = MIN_ODD
    return out


def _score_of(method: str, values, i: np.ndarray, n: np.ndarray, score: np.ndarray, p: dict) -> np.ndarray:
    if method == "mapfuse":
        return values / (i + 1)
    padded = np.zeros(max(len(values), int(i.max(initial=0)) + 1, int(n.max(initial=0))) + 1)
    padded[:len(values)] = values
    if method in ("posfuse", "bayesfuse"):
        fill = 0.0 if method == "posfuse" else MIN_ODD
        return np.where(i < len(values), padded[np.minimum(i, len(padded) - 1)], fill)
    if method == "probfuse":
        k = i // np.maximum(-(-n // len(values)), 1)
        return padded[k] / (k + 1)
    if method == "segfuse":
        seg = np.searchsorted(_SEGFUSE_BOUNDS, i, side="right") - 1
        inside = i < _SEGFUSE_BOUNDS[-1]
        return np.where(inside, padded[np.minimum(seg, len(values))] * (score + 1), 0.0)
    w = int(p.get("w", 1))
    lo, hi = np.maximum(i - w, 0), np.minimum(i + w, n - 1)
    prefix = np.concatenate(([0.0], np.cumsum(padded)))
    return (prefix[hi + 1] - prefix[lo]) / (hi - lo + 1)
