"""Score standardisation (Webber, Moffat and Zobel, SIGIR 2008) and trec_eval's ``-Z`` files.

A topic's scores are put on one scale by the mean and standard deviation
of a set of reference runs on that topic: z = (score - mean_t) / sd_t, so a
hard topic and an easy one weigh alike. :func:`standardisation` computes
the (mean, sd) of every topic and measure from the reference runs;
:func:`write_zscores` writes them as the file trec_eval reads with ``-Z``
(``qid measure mean stddev``; ``rankmeter trec_eval -Z`` reads it too) and
:func:`standardise` applies them to per-query values as trec_eval does
(:func:`to_zscores` on arrays, trec_eval's convert_zscores.c: a zero deviation gives
z = 0 at the mean, -1000000 elsewhere and for topics missing from the table). The file itself is
:mod:`rankmeter.io.zscores`'s.

Identical reference values give a deviation of exactly 0 and a mean equal to
that value (:func:`mean_and_sd` computes about the first value), so a run
scoring the common value gets z = 0 from rankmeter and trec_eval alike, never
a quotient of two rounding errors.

>>> table = standardisation({"t1": {"a": 1, "b": 1}}, {"r1": {"t1": ["a", "x"]}, "r2": {"t1": ["x", "b"]}},
...                         ["RR"])
>>> {q: {m: (round(mean, 4), round(sd, 4)) for m, (mean, sd) in v.items()} for q, v in table.items()}
{'t1': {'RR': (0.75, 0.3536)}}
>>> standardise({"t1": 1.0}, table, "RR")
{'t1': 0.7071067811865475}
"""
from __future__ import annotations

import numpy as np

from rankmeter.meta.params import DDOF
from rankmeter.engine.param import validate_params
from rankmeter.errors import ParameterError
from rankmeter.io.zscores import write_zscores

__all__ = ["standardisation", "write_zscores", "standardise", "to_zscores", "mean_and_sd", "MISSING_ZSCORE"]

#: a topic or measure the table lacks, or a value off the mean of a zero deviation (trec_eval.h MISSING_ZSCORE_VALUE)
MISSING_ZSCORE = -1000000.0


@validate_params(DDOF)
def standardisation(qrels, runs, measures, *, ddof: int = 1, **options) -> dict[str, dict[str, tuple[float, float]]]:
    """``{topic: {measure: (mean, sd)}}`` of the reference ``runs`` (at least two; ``ddof=1``: sample sd).

    Measures are keyed by their labels as given; for a file trec_eval itself reads with ``-Z``, give
    them as trec_eval prints them (``map``, ``P_10``, ``ndcg_cut_10``), which rankmeter reads too.
    A topic's statistics come from the runs with a value on it (under ``queries="both"``, the runs
    ranking it); a topic none has a value on is left out (trec_eval -Z then prints -1000000 for it).
    Computed for every topic at once, about each topic's first value (:func:`mean_and_sd`).
    """
    from rankmeter.core.evaluator import evaluate_runs

    table = evaluate_runs(qrels, runs, measures, **options)
    if len(table.runs) < 2:
        raise ParameterError("standardisation needs at least two reference runs")
    labels = list(table.names)
    queries = np.array(sorted(set().union(*(table[run].queries for run in table.runs))), dtype=object)
    out: dict[str, dict[str, tuple[float, float]]] = {q: {} for q in queries.tolist()}
    for label in labels:
        x = np.full((len(queries), len(table.runs)), np.nan)   # a run without a topic: not one of its values
        for j, run in enumerate(table.runs):
            results = table[run]
            x[np.searchsorted(queries, np.array(results.queries, dtype=object)), j] = results.values(label)
        mean, sd, count = _rows_mean_and_sd(x, ddof)
        for q, m, d in zip(np.flatnonzero(count > 0).tolist(), mean[count > 0].tolist(), sd[count > 0].tolist()):
            out[queries[q]][label] = (m, d)
    return {q: per for q, per in out.items() if per}


def _rows_mean_and_sd(x: np.ndarray, ddof: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row of ``x`` (NaN: no value), the mean and deviation about the row's first value, and the count."""
    present = ~np.isnan(x)
    count = present.sum(axis=1)
    first = x[np.arange(len(x)), np.argmax(present, axis=1)] if x.shape[1] else np.zeros(len(x))
    shifted = np.where(present, x - first[:, None], 0.0)    # exactly 0 wherever a value equals the first
    shift = shifted.sum(axis=1) / np.maximum(count, 1)
    squares = np.where(present, (shifted - shift[:, None]) ** 2, 0.0).sum(axis=1)
    sd = np.sqrt(squares / np.maximum(count - ddof, 1))
    return first + shift, np.where(count > ddof, sd, 0.0), count


def mean_and_sd(values, *, ddof: int = 1) -> tuple[float, float]:
    """Mean and standard deviation of ``values``, computed about the first value so that identical values
    give their value and exactly 0 by construction (numpy's two-pass ``std`` of three 0.1s is 1.7e-17: the
    mean 0.1 + 1 ulp is subtracted back). A deviation from fewer than ``ddof + 1`` values is 0.

    >>> mean_and_sd([0.1, 0.1, 0.1])
    (0.1, 0.0)
    >>> mean_and_sd([1.0, 2.0, 3.0])
    (2.0, 1.0)
    """
    x = np.asarray(values, dtype=np.float64).reshape(1, -1)
    if not x.size or np.isnan(x).any():
        raise ParameterError("values: one or more numbers, none of them NaN")
    mean, sd, _ = _rows_mean_and_sd(x, ddof)
    return float(mean[0]), float(sd[0])


def standardise(values: dict[str, float], table: dict, measure: str) -> dict[str, float]:
    """Per-query ``values`` of ``measure`` as z-scores under ``table``, as trec_eval ``-Z`` prints them."""
    out = {}
    for query, value in values.items():
        stats = table.get(query, {}).get(measure)
        if stats is None:
            out[query] = MISSING_ZSCORE
            continue
        mean, sd = stats
        # trec_eval's rule for sd = 0 (convert_zscores.c): 0 at the mean, undefined (MISSING) elsewhere
        out[query] = (value - mean) / sd if sd != 0 else (0.0 if value == mean else MISSING_ZSCORE)
    return out


def to_zscores(values: np.ndarray, queries: list[bytes], label: str,
               table: dict[bytes, dict[bytes, tuple[float, float]]]) -> np.ndarray:
    """Standardise one measure's per-query ``values`` as trec_eval's ``-Z`` does.

    Examples
    --------
    >>> t = {b"1": {b"map": (0.5, 0.25)}, b"2": {b"map": (0.5, 0.0)}}
    >>> to_zscores(np.array([1.0, 0.5, 0.2]), [b"1", b"2", b"3"], "map", t).tolist()
    [2.0, 0.0, -1000000.0]
    """
    key = label.encode()
    out = np.full(len(values), MISSING_ZSCORE)
    for i, (q, v) in enumerate(zip(queries, np.asarray(values, dtype=np.float64).tolist())):
        entry = table.get(q, {}).get(key)
        if entry is None:
            continue
        mean, std = entry
        if std:
            out[i] = (v - mean) / std
        elif v == mean:
            out[i] = 0.0
    return out
