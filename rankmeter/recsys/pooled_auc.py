"""Pooled (global) AUC: one ROC area over every row of a run, beside the per-query ``AUC`` measure.

``pooled_auc`` flattens the run: each (query, doc) row is one example, its
label relevant when the doc's grade is >= ``rel`` (docs absent from the
qrels, or with a negative grade, are non-relevant), its score the run's.
The rows are the core's ranked, joined rows (:meth:`rankmeter.core.Evaluator.rows`):
the judged queries the run ranks, under the evaluation options given.
The result is the fraction of (relevant, non-relevant) row pairs in which
the relevant row scores higher, a tie counting 1/2 -- what scikit-learn's
``roc_auc_score`` and TorchMetrics' ``BinaryAUROC`` return on the flattened
scores and labels. Scores of different queries are compared with each
other, so it asks whether relevant rows score higher anywhere (a question of
calibration across queries); the per-query ``AUC`` compares docs within one
query and also counts the judged docs the run missed. Only retrieved rows
enter here, as in those libraries.

Examples
--------
Relevant rows a (0.9) and c (0.1) against b (0.2) and d (0.5, not judged):
a beats both, c neither, so 2 of the 4 pairs are in order.

>>> qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 1}}
>>> run = {"q1": {"a": 0.9, "b": 0.2}, "q2": {"c": 0.1, "d": 0.5}}
>>> pooled_auc(qrels, run)
0.5
"""
from __future__ import annotations

import numpy as np

from rankmeter.errors import ParameterError

__all__ = ["pooled_auc"]


def pooled_auc(qrels, run, *, rel: int | float = 1, **options) -> float:
    """ROC area of the run's scores over all its rows at once (see the module docstring).

    Parameters
    ----------
    qrels, run
        Anything :func:`rankmeter.evaluate` reads (paths, dicts, frames).
    rel
        Grades >= ``rel`` are relevant.
    **options
        The evaluation options (``judged_only``, ``max_docs``, ``positive_scores_only``, ``grades``,
        ``columns`` ...): the rows are the core's (:meth:`~rankmeter.core.Evaluator.rows`), those
        ``evaluate`` scores under the same options -- the judged queries the run ranks, one row per
        ranked doc (a diversity qrels' subtopics do not repeat it), relevant when its top grade is
        >= ``rel``. A ranked list without scores is scored by its ranks (rank 1 highest).

    Returns
    -------
    float
        The pooled AUC. Raises :class:`~rankmeter.ParameterError` when the run
        has no relevant or no non-relevant row (the area is undefined).
    """
    from rankmeter.core import Evaluator
    from rankmeter.core.options import validate_options

    rows = Evaluator.of(qrels, [], validate_options(rel=rel, **options)).rows(run)
    positive = rows.column("relevant").to_numpy(zero_copy_only=False)
    score = rows.column("score")
    scores = (-rows.column("rank").to_numpy().astype(np.float64) if score.null_count == len(score) and len(score)
              else score.to_numpy(zero_copy_only=False))
    n_pos = int(positive.sum())
    n_neg = len(positive) - n_pos
    if n_pos == 0 or n_neg == 0:
        raise ParameterError(f"pooled AUC is undefined: the run has {n_pos} relevant and {n_neg} non-relevant "
                             f"rows at rel={rel}; it needs both")
    # Mann-Whitney: the mid-rank of each score (ties share the average rank) summed over the relevant rows
    uniques, inverse, counts = np.unique(scores, return_inverse=True, return_counts=True)
    mid_rank = np.cumsum(counts) - (counts - 1) / 2.0
    rank_sum = float(mid_rank[inverse][positive].sum())
    return (rank_sum - n_pos * (n_pos + 1) / 2.0) / (n_pos * n_neg)
