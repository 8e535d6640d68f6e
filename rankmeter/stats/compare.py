"""Compare systems: :func:`compare` scores several runs and tests their differences.

The statistics are over per-query values: a system's ``mean`` is the
arithmetic mean of its per-query values over the queries of the comparison,
also for measures trec_eval sums (counts) or averages geometrically (GM_AP).
"""
from __future__ import annotations

import math
import os
import warnings
from collections.abc import Mapping, Sequence

import numpy as np

from rankmeter.core import Evaluator, validate_options
from rankmeter.core.options import Options
from rankmeter.core.keywords import Unpack, takes_options
from rankmeter.core.params import PARAMS
from rankmeter.stats.params import TESTS, ComparisonOptions, Significance, SignificanceOptions, significance
from rankmeter.engine.param import Param, validate_params
from rankmeter.errors import ParameterError
from rankmeter.io.canonical import Run, decode_id
from rankmeter.core.naming import name_runs
from rankmeter.measures.aggregation import TEXT
import rankmeter.stats.significance as sig
from rankmeter.stats.comparison import Comparison
from rankmeter.stats.corrections import adjust
from rankmeter.executors.progress import progress_bar

__all__ = ["compare", "compare_scores", "TESTS", "LOWER_IS_BETTER"]

_SAMPLED = ("randomization", "bootstrap", "tukey")


#: compare_scores' measures whose smaller values are better (a Python keyword: the commands that score
#: popularity bias pass it themselves)
LOWER_IS_BETTER = Param("lower_is_better", "strings", help="measures whose smaller values are better (ARP, "
                        "popularity lift): the tables' superscripts and bold best follow them")


def named_runs(runs, options: Options) -> list[tuple[str, Run]]:
    """The runs to compare, named and read under ``options`` (two or more)."""
    if isinstance(runs, (str, bytes, os.PathLike, Run)):
        raise ParameterError("runs: give several runs, as a list of paths or a dict name -> run")
    items = name_runs(runs, columns=options.columns, input_format=options.input_format)
    if len(items) < 2:
        raise ParameterError(f"runs: got {len(items)} run; a comparison needs at least two")
    return items


def per_query_scores(evaluator: Evaluator, systems):
    """Per measure, a (queries x systems) matrix of per-query values, NaN where a run lacks a query."""
    per_run, missing = [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # one warning below names every run that lacks queries
        for name, run in systems:
            results = evaluator.evaluate(run)
            if results.missing:
                count = len(results.missing)
                missing.append(f"{name} ({count} quer{'y' if count == 1 else 'ies'})")
            per_run.append(results)
    if missing:
        warnings.warn(f"runs without results for some judged queries are compared only on the queries they "
                      f"answered (queries='qrels' scores the missing ones as 0): {', '.join(missing)}", stacklevel=3)
    from rankmeter.core.order import natural_order
    universe = list(set().union(*(r.ids for r in per_run)))
    universe = [universe[i] for i in natural_order(universe)]  # natural order, as every per-query table
    where = {qid: i for i, qid in enumerate(universe)}
    matrices = {}
    for m in evaluator.measures:
        x = np.full((len(universe), len(systems)), np.nan)
        for j, results in enumerate(per_run):
            x[[where[qid] for qid in results.ids], j] = results.values(m)
        matrices[m] = x
    return [decode_id(qid) for qid in universe], matrices


def _pair_stats(a: np.ndarray, b: np.ndarray, alpha: float = 0.05) -> dict:
    """Means, difference, effect size and wins/ties/losses of a over b on the queries both have."""
    both = ~(np.isnan(a) | np.isnan(b))
    a, b = a[both], b[both]
    d = a - b
    close = np.abs(d) <= 1e-12 * np.maximum(1.0, np.maximum(np.abs(a), np.abs(b)))
    n = len(d)
    dz = sig.effect_size(d)
    low, high = sig.effect_size_interval(dz, n, alpha)
    return {"mean_a": float(a.mean()) if n else math.nan, "mean_b": float(b.mean()) if n else math.nan,
            "delta": float(d.mean()) if n else math.nan, "effect_size": dz,
            "effect_low": low, "effect_high": high,
            "wins": int(((d > 0) & ~close).sum()), "ties": int(close.sum()),
            "losses": int(((d < 0) & ~close).sum()), "queries": n}


def _test_pairs(x, pairs, tests: Significance, advance):
    """p, ci_low, ci_high of every pair (i, j) for the difference column i - column j."""
    test, alpha = tests.test, tests.alpha
    diffs = np.stack([x[:, i] - x[:, j] for i, j in pairs], axis=1)
    opts = {"permutations": int(tests.permutations), "seed": tests.seed, "alpha": alpha, "progress": advance}
    if test == "randomization":
        return sig.randomization(diffs, **opts)
    p, low, high = (np.full(len(pairs), np.nan) for _ in range(3))
    if test == "bootstrap":
        groups: dict[bytes, list[int]] = {}
        for col in range(len(pairs)):  # pairs over the same queries share the resamples
            groups.setdefault(np.packbits(~np.isnan(diffs[:, col])).tobytes(), []).append(col)
        for cols in groups.values():
            rows = ~np.isnan(diffs[:, cols[0]])
            p[cols], low[cols], high[cols] = sig.bootstrap(diffs[rows][:, cols], **opts)
        return p, low, high
    fn = sig.paired_t if test == "t" else sig.wilcoxon
    for col in range(len(pairs)):
        d = diffs[:, col]
        p[col], low[col], high[col] = fn(d[~np.isnan(d)], alpha=alpha)
    return p, low, high


def _analyse(label, x, systems, bases, tests: Significance, advance):
    """Pairwise records (all pairs, i < j) and table records (each system against each baseline)."""
    test, alpha = tests.test, tests.alpha
    k = x.shape[1]
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
    if test == "tukey":
        x = x[~np.isnan(x).any(axis=1)]
        pmat, hsd = sig.tukey_hsd(x, permutations=int(tests.permutations), seed=tests.seed, alpha=alpha,
                                  progress=advance)
        stats = [_pair_stats(x[:, i], x[:, j], alpha) for i, j in pairs]
        p = np.array([pmat[i, j] for i, j in pairs])
        low = np.array([s["delta"] - hsd for s in stats])
        high = np.array([s["delta"] + hsd for s in stats])
    else:
        stats = [_pair_stats(x[:, i], x[:, j], alpha) for i, j in pairs]
        p, low, high = _test_pairs(x, pairs, tests, advance)
    p_all = adjust(p, tests.correction)
    pair_rows = []
    for n, (i, j) in enumerate(pairs):
        s = stats[n]
        pair_rows.append({"measure": label, "system_a": systems[i], "system_b": systems[j],
                          "mean_a": s["mean_a"], "mean_b": s["mean_b"], "delta": s["delta"],
                          "p_value": float(p[n]), "p_adjusted": float(p_all[n]),
                          "ci_low": float(low[n]), "ci_high": float(high[n]), "effect_size": s["effect_size"],
                          "effect_low": s["effect_low"], "effect_high": s["effect_high"],
                          "wins": s["wins"], "ties": s["ties"], "losses": s["losses"], "queries": s["queries"]})
    rows, compared = [], []
    for b in bases:
        for i in range(k):
            if i == b:
                col = x[:, i][~np.isnan(x[:, i])]
                mean = float(col.mean()) if len(col) else math.nan
                rows.append({"measure": label, "system": systems[i], "baseline": systems[b], "mean": mean,
                             "baseline_mean": mean, "delta": 0.0, "p_value": math.nan, "p_adjusted": math.nan,
                             "ci_low": math.nan, "ci_high": math.nan, "effect_size": math.nan,
                             "effect_low": math.nan, "effect_high": math.nan,
                             "wins": 0, "ties": len(col), "losses": 0, "queries": len(col)})
                continue
            r = pair_rows[pairs.index((min(i, b), max(i, b)))]
            flip = i > b  # the pair row holds the lower index minus the higher one
            compared.append((len(rows), (min(i, b), max(i, b))))
            rows.append({"measure": label, "system": systems[i], "baseline": systems[b],
                         "mean": r["mean_b"] if flip else r["mean_a"],
                         "baseline_mean": r["mean_a"] if flip else r["mean_b"],
                         "delta": 0.0 - r["delta"] if flip else r["delta"],
                         "p_value": r["p_value"], "p_adjusted": math.nan,
                         "ci_low": 0.0 - r["ci_high"] if flip else r["ci_low"],
                         "ci_high": 0.0 - r["ci_low"] if flip else r["ci_high"],
                         "effect_size": 0.0 - r["effect_size"] if flip else r["effect_size"],
                         "effect_low": 0.0 - r["effect_high"] if flip else r["effect_low"],
                         "effect_high": 0.0 - r["effect_low"] if flip else r["effect_high"],
                         "wins": r["losses"] if flip else r["wins"], "ties": r["ties"],
                         "losses": r["wins"] if flip else r["losses"], "queries": r["queries"]})
    # family-wise over every comparison the table makes (all baselines) for this measure; two baselines
    # compared with each other are one comparison, listed under each
    unique = list(dict.fromkeys(pair for _, pair in compared))
    family = [pair_rows[pairs.index(pair)]["p_value"] for pair in unique]
    adjusted = dict(zip(unique, family if test == "tukey" else adjust(family, tests.correction)))
    for n, pair in compared:
        rows[n]["p_adjusted"] = float(adjusted[pair])
    return rows, pair_rows


@takes_options(in_memory=True)
@validate_params(PARAMS["baseline"])
def compare(qrels, runs, measures, *, baseline: str | Sequence[str] | None = None,
            **options: Unpack[ComparisonOptions]) -> Comparison:
    """Score several runs and test whether their differences are significant.

    With ``queries="both"`` each pair is compared on the judged queries both runs answered (Tukey: the
    queries every run answered); with ``"qrels"`` on every qrels query, a query a run lacks scoring 0.

    Parameters
    ----------
    qrels : path, Qrels, dict or DataFrame
        Judgments, as for :func:`rankmeter.evaluate`.
    runs : dict or list
        ``{name: run}`` (a run is a path, Run, dict or DataFrame), or a list of
        runs named by their run tag, or by file name when tags are empty or
        shared (then by path, then ``run<i>``).
    measures : str, Measure or list of them
        As for :func:`rankmeter.evaluate`.
    baseline : str or list of str, optional
        The run (or runs) the others are compared with in :attr:`Comparison.table`;
        default the first run. With several, the table holds every system against
        each baseline and ``correction`` runs over all those comparisons (per
        measure), so the family-wise error holds across baselines; every pair of
        systems is in :attr:`Comparison.pairwise`, corrected over all pairs.
    %(evaluation_options)s

    Returns
    -------
    Comparison
        ``.table`` (one row per measure and system, baseline included),
        ``.pairwise`` (every pair of systems), ``.per_query``, ``.significant()``.

    Examples
    --------
    >>> qrels = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 1}}
    >>> runs = {"good": {"q1": ["a", "x"], "q2": ["b", "x"], "q3": ["c", "x"]},
    ...         "bad": {"q1": ["x", "a"], "q2": ["x", "b"], "q3": ["x", "c"]}}
    >>> c = compare(qrels, runs, "RR", test="randomization", baseline="bad")
    >>> row = c.table.set_index("system").loc["good"]
    >>> float(row["delta"]), int(row["wins"]), c.significant("RR", "good", "bad")
    (0.5, 3, False)
    """
    tests = significance(options)
    tests.check_together()
    opts = validate_options(**options)
    evaluator = Evaluator.of(qrels, measures, opts)
    names = list(dict(evaluator.names).items())
    for label, m in names:
        if m.family.value_type is TEXT:
            raise ParameterError(f"{label} is a text value and cannot be compared; choose numeric measures")
    systems = named_runs(runs, opts)
    labels = [name for name, _ in systems]
    bases = _baselines(baseline, labels)
    query_ids, matrices = per_query_scores(evaluator, systems)
    return _comparison(labels, bases, names, query_ids, {label: matrices[m] for label, m in names}, tests)


def _baselines(baseline, labels: list[str], what: str = "runs") -> list[int]:
    wanted = [labels[0]] if baseline is None else [baseline] if isinstance(baseline, str) else list(baseline)
    unknown = [b for b in wanted if b not in labels]
    if unknown or not wanted:
        raise ParameterError(f"baseline={baseline!r}: {', '.join(map(repr, unknown)) or 'none given'} is not "
                             f"one of the {what}: {', '.join(labels)}")
    return list(dict.fromkeys(labels.index(b) for b in wanted))


def _comparison(labels, bases, names, query_ids, matrices, tests: Significance, *,
                lower_is_better=()) -> Comparison:
    """The tests of every measure's (queries x systems) matrix: the statistics half of :func:`compare`."""
    test, correction, alpha, permutations, seed = (tests.test, tests.correction, tests.alpha, tests.permutations,
                                                   tests.seed)
    k = len(labels)
    width = k if test == "tukey" else k * (k - 1) // 2
    sampled = test in _SAMPLED
    table, pairwise = [], []
    with progress_bar(permutations * len(names) if sampled else 0,
                      work=permutations * len(query_ids) * width * len(names) if sampled else 0,
                      label=f"{test} test") as advance:
        for label, _ in names:
            rows, pair_rows = _analyse(label, matrices[label], labels, bases, tests, advance)
            table += rows
            pairwise += pair_rows
    return Comparison(systems=labels, baseline=labels[bases[0]], baselines=[labels[b] for b in bases], measures=names,
                      queries=query_ids, scores=dict(matrices), table=table, pairwise=pairwise,
                      test=test, correction=correction, alpha=float(alpha), permutations=int(permutations),
                      seed=seed, lower_is_better=lower_is_better)


@takes_options()
@validate_params(PARAMS["baseline"], LOWER_IS_BETTER)
def compare_scores(scores: Mapping[str, Mapping[str, Mapping[str, float]]], *,
                   baseline: str | Sequence[str] | None = None, lower_is_better: Sequence[str] = (),
                   **tests: Unpack[SignificanceOptions]) -> Comparison:
    """Test the differences of per-query (or per-user) scores computed elsewhere, as :func:`compare` does.

    Parameters
    ----------
    scores : dict
        ``{system: {measure: {query: value}}}``. A query a system has no value
        for (absent, or NaN: undefined there) is left out of that system's
        pairs, as :func:`compare` leaves out queries a run did not answer.
    baseline : str or list of str, optional
        As for :func:`compare`.
    lower_is_better : sequence of str
        Measures whose smaller values are better (popularity bias: ARP, popularity lift): the tables'
        "better than" superscripts and bold best follow them.
    %(evaluation_options)s

    Returns
    -------
    Comparison

    Examples
    --------
    >>> scores = {"A": {"novelty": {"u1": 3.0, "u2": 2.0, "u3": 4.0}},
    ...           "B": {"novelty": {"u1": 2.0, "u2": 1.5, "u3": 3.0}}}
    >>> c = compare_scores(scores, baseline="B")
    >>> row = c.table.set_index("system").loc["A"]
    >>> float(row["delta"]), int(row["wins"])
    (0.8333333333333334, 3)
    """
    knobs = significance(tests)
    knobs.check_together()
    if not isinstance(scores, Mapping) or not scores or not all(isinstance(v, Mapping) for v in scores.values()):
        raise ParameterError("scores: expected {system: {measure: {query: value}}}")
    labels = [str(s) for s in scores]
    if len(labels) < 2:
        raise ParameterError(f"scores: at least two systems are needed to compare, got {len(labels)}")
    measures = list(dict.fromkeys(str(m) for per in scores.values() for m in per))
    lacking = [(s, m) for s, per in scores.items() for m in measures if m not in per]
    if lacking:
        raise ParameterError(f"scores: system {lacking[0][0]!r} has no values for {lacking[0][1]!r}; every "
                             "system needs every measure")
    bases = _baselines(baseline, labels, "systems")
    from rankmeter.core.order import natural_order
    queries = list({str(q) for per in scores.values() for values in per.values() for q in values})
    queries = [queries[i] for i in natural_order(queries)]  # the order compare's own tables use
    where = {q: i for i, q in enumerate(queries)}
    matrices = {}
    for m in measures:
        x = np.full((len(queries), len(labels)), np.nan)
        for j, per in enumerate(scores.values()):
            values = per[m]
            x[[where[str(q)] for q in values], j] = np.asarray(list(values.values()), dtype=np.float64)
        matrices[m] = x
    return _comparison(labels, bases, [(m, None) for m in measures], queries, matrices, knobs,
                       lower_is_better=tuple(lower_is_better))
