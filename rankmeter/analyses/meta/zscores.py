"""Score standardisation (Webber, Moffat and Zobel, SIGIR 2008) and trec_eval's ``-Z`` files.

A topic's scores are put on one scale by the mean and standard deviation
of a set of reference runs on that topic: z = (score - mean_t) / sd_t, so a
hard topic and an easy one weigh alike. :func:`standardisation` computes
the (mean, sd) of every topic and measure from the reference runs;
:func:`write_zscores` writes them as the file trec_eval reads with ``-Z``
(``qid measure mean stddev``; ``rankmeter trec_eval -Z`` reads it too) and
:func:`standardise` applies them to per-query values as trec_eval does
(compat/zscores.py, trec_eval's convert_zscores.c: a zero deviation gives
z = 0 at the mean, -1000000 elsewhere and for topics missing from the table).

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

from rankmeter.errors import ParameterError

__all__ = ["standardisation", "write_zscores", "standardise", "mean_and_sd"]


def standardisation(qrels, runs, measures, *, ddof: int = 1, **options) -> dict[str, dict[str, tuple[float, float]]]:
    """``{topic: {measure: (mean, sd)}}`` of the reference ``runs`` (at least two; ``ddof=1``: sample sd).

    Measures are keyed by their labels as given; for a file trec_eval itself reads with ``-Z``, give
    them as trec_eval prints them (``map``, ``P_10``, ``ndcg_cut_10``), which rankmeter reads too.
    """
    import rankmeter
    from rankmeter.core.params import Param

    ddof = Param("ddof", "integer", 1, "delta degrees of freedom (1: sample deviation)", "meta", low=0).check(ddof)
    table = rankmeter.evaluate(qrels, runs, measures, **options)
    if not hasattr(table, "runs") or len(table.runs) < 2:
        raise ParameterError("standardisation needs at least two reference runs")
    labels = list(table.names)
    values: dict[str, dict[str, list[float]]] = {}
    for run in table.runs:
        results = table[run]
        for label in labels:
            for query, value in zip(results.queries, results.values(label)):
                values.setdefault(query, {}).setdefault(label, []).append(float(value))
    out: dict[str, dict[str, tuple[float, float]]] = {}
    for query, per in values.items():
        for label, xs in per.items():
            out.setdefault(query, {})[label] = mean_and_sd(xs, ddof=ddof)
    return out


def mean_and_sd(values, *, ddof: int = 1) -> tuple[float, float]:
    """Mean and standard deviation of ``values``, computed about the first value so that identical values
    give their value and exactly 0 by construction (numpy's two-pass ``std`` of three 0.1s is 1.7e-17: the
    mean 0.1 + 1 ulp is subtracted back). A deviation from fewer than ``ddof + 1`` values is 0.

    >>> mean_and_sd([0.1, 0.1, 0.1])
    (0.1, 0.0)
    >>> mean_and_sd([1.0, 2.0, 3.0])
    (2.0, 1.0)
    """
    x = np.asarray(values, dtype=np.float64)
    if not len(x):
        raise ParameterError("a mean of no values")
    shifted = x - x[0]                         # exactly 0 wherever a value equals the first
    shift = float(shifted.mean())
    mean = float(x[0]) + shift
    if len(x) <= ddof or not shifted.any():
        return mean, 0.0
    return mean, float(np.sqrt(((shifted - shift) ** 2).sum() / (len(x) - ddof)))


def write_zscores(table: dict, path, *, inputs=()) -> None:
    """Write ``table`` as a trec_eval ``-Z`` file: ``qid measure mean stddev`` per line (repr precision, so
    trec_eval reads back the very doubles: a value equal to the mean of a topic whose runs all scored it
    gives z = 0). ``inputs``: the files the table was computed from, which the writer refuses to replace."""
    from rankmeter.io.output import output_file

    lines = [f"{q} {m} {float(mean)!r} {float(sd)!r}\n" for q in sorted(table)
             for m, (mean, sd) in sorted(table[q].items())]
    with output_file(path, inputs=inputs) as fh:
        fh.write("".join(lines))


def standardise(values: dict[str, float], table: dict, measure: str) -> dict[str, float]:
    """Per-query ``values`` of ``measure`` as z-scores under ``table``, as trec_eval ``-Z`` prints them."""
    from rankmeter.compat.zscores import MISSING_ZSCORE

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
