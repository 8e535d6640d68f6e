"""Estimates with valid intervals from LLM labels on every query and human labels on a sample of them.

Prediction-powered inference (Angelopoulos et al., Science 2023), power-tuned (PPI++: Angelopoulos, Duchi and
Zrnic 2023), with the per-query metric as the unit (Oosterhuis et al., KDD 2024, do the same for IR metrics):

* the LLM's qrels give every query's metric ``f(q)``; the human qrels give it, ``y(q)``, on the sampled queries;
* the estimate of the mean of ``y`` over all queries is ``lam * mean_unlabelled(f) + mean_labelled(y - lam f)``,
  unbiased whatever the LLM's bias when the labelled queries are a uniform random sample;
* ``lam`` minimises the estimate's variance, ``cov(y, f) / ((1 + n/N) var(f))`` clipped to [0, 1] (0 is the
  human-only estimate, 1 plain PPI), and the interval is the normal one with the variance
  ``lam^2 var(f_unlabelled) / N + var(y - lam f) / n``: exactly what ppi-python's ``ppi_mean_ci`` computes.

The same estimator on per-query differences between two runs gives the paired difference.
:func:`estimate` reports, per run, measure and pair of runs, the PPI estimate beside the naive LLM-only mean
(its interval covers the LLM's bias, not the truth) and the human-only mean on the labelled queries, each with
its interval, and says where the assumptions fail.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from statistics import NormalDist

import numpy as np

from rankmeter.judges.params import UNIT
from rankmeter.judges.ppi_means import classical_mean, ppi_mean
from rankmeter.stats.params import ALPHA
from rankmeter.core.options import Options, validate_options
from rankmeter.engine.param import validate_params
from rankmeter.errors import ParameterError

__all__ = ["estimate", "Estimates", "MIN_LABELLED"]

#: fewer human-labelled queries than this and the interval is not to be trusted (with 40 of 200 it covered 94%)
MIN_LABELLED = 30


@dataclass
class Estimates:
    """Per run and measure, and per pair of runs: PPI, LLM-only and human-only estimates with intervals."""

    runs: list[dict] = field(default_factory=list)
    pairs: list[dict] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    labelled: int = 0
    queries: int = 0
    alpha: float = 0.05
    #: what the human labels sample: "queries" (whole queries) or "pairs" (query, doc pairs)
    unit: str = "queries"
    labelled_pairs: int | None = None
    frame_pairs: int | None = None
    #: the stratified design estimated by (``design=``): its strata's sizes and labels; None: a uniform sample
    design: dict | None = None
    #: several draws of the LLM's label per pair: ``{"min", "max"}`` complete draws per query; None: one
    draws: dict | None = None

    def to_dict(self) -> dict:
        out = {"alpha": self.alpha, "unit": self.unit, "queries": self.queries, "labelled_queries": self.labelled,
               "runs": self.runs, "pairs": self.pairs, "warnings": self.warnings}
        if self.unit == "pairs":
            out.update(labelled_pairs=self.labelled_pairs, frame_pairs=self.frame_pairs)
        if self.design is not None:
            out["design"] = self.design
        if self.draws is not None:
            out["draws"] = self.draws
        return out


def per_query_values(qrels, runs, measures, queries: list[str], options: Options) -> dict[tuple[str, str], np.ndarray]:
    """(run, measure) -> values over ``queries`` (0 for a query the run did not answer: an empty ranking)."""
    from rankmeter.core.evaluator import Evaluator

    evaluator = Evaluator.of(qrels, measures, options.replace(queries="qrels"))
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, run in runs:
            results = evaluator.evaluate(run)
            where = {q: i for i, q in enumerate(results.queries)}
            for label, measure in evaluator.names:
                values = results.values(measure)
                out[(name, label)] = np.array([values[where[q]] if q in where else 0.0 for q in queries])
    return out


def split_labelled_queries(human, llm, options: Options) -> tuple[list[str], list[str], list[str]]:
    from rankmeter.core.order import natural_order
    from rankmeter.io import as_qrels

    def ids(qrels):
        table = as_qrels(qrels, grades=options.grades).table
        return {q.decode("utf-8", "surrogateescape") if isinstance(q, bytes) else str(q)
                for q in table.column("query").unique().to_pylist()}

    every, labelled = ids(llm), ids(human)
    outside = sorted(labelled - every)
    ordered = sorted(every)
    ordered = [ordered[i] for i in natural_order(ordered)]
    return [q for q in ordered if q in labelled], [q for q in ordered if q not in labelled], outside


@validate_params(ALPHA, UNIT)
def estimate(human, llm, runs, measures, *, alpha: float = 0.05, unit: str = "auto", design=None,
             **options) -> Estimates:
    """PPI++ estimates of each run's mean metric and each pair's difference, with LLM-only and human-only ones.

    Parameters
    ----------
    human : path, Qrels, dict or DataFrame
        Human judgments of a uniform random sample of the queries (each sampled query judged as fully as the
        LLM judged it), or of the (query, doc) pairs the LLM judged (see ``unit``).
    llm : path, Qrels, dict or DataFrame
        The LLM's judgments of every query. A pair on several lines is several draws of its label (``judges label
        --samples N``): each query's metric is then its mean over the draws (:mod:`.draws`), and each PPI++ and
        LLM-only interval carries ``judge_share``, the share of its variance due to the judge's draws, beside an
        ``llm_redraw`` interval (the same queries labelled again); with human labels on pairs, give one grade
        per pair.
    runs : dict name -> run, or a list of runs
        The systems.
    measures : str or list of str
        Per-query measures (``nDCG@10``, ``AP``, ``P@10`` ...).
    alpha : float, default 0.05
        The intervals are at level ``1 - alpha``.
    unit : {"auto", "queries", "pairs"}
        What the human labels are a sample of. ``"queries"``: whole queries, the per-query metric is the unit;
        ``"pairs"``: pairs, at random within bands of their best rank, for measures that are sums over the ranked
        documents (:mod:`.pair_ppi`); ``"auto"``: queries when every query with a human label has all the pairs
        the LLM judged within the runs' depth labelled, pairs otherwise (or the design's unit).
    design : path or dict, optional
        The stratified design the human labels were drawn by (``rankmeter judges allocate -o FILE``; see
        :mod:`.design`). The estimates then weight each stratum by its size
        (:func:`~rankmeter.judges.stratified.stratified_estimate`, or the design's bands for pairs), the
        human-only ones too; without it an allocated sample is taken for a uniform one, and the estimate is biased.
    **options
        Evaluation options (``rel``, ``judged_only`` ...).
    """
    return estimate_with(human, llm, runs, measures, validate_options(**options), alpha=alpha, unit=unit,
                         design=design)


def estimate_with(human, llm, runs, measures, options: Options, *, alpha: float = 0.05, unit: str = "auto",
                  design=None) -> Estimates:
    """:func:`estimate` under evaluation options validated already."""
    from rankmeter.core.naming import name_runs

    from rankmeter.judges.draws import has_draws

    measures = [measures] if isinstance(measures, str) else list(measures)
    named = name_runs(runs, columns=options.columns)
    drawn = has_draws(llm, grades=options.grades)
    plan = None
    if design is not None:
        from rankmeter.judges import design as design_file

        plan = design_file.read(design)
        if unit == "auto":
            unit = plan["unit"]
        elif unit != plan["unit"]:
            raise ParameterError(f"unit={unit!r}: the design is for human labels on {plan['unit']}")
    if unit != "queries":
        from rankmeter.judges import pair_ppi

        names, depth = pair_ppi.depth_of(measures, options)
        frame = pair_ppi.pair_frame(human, llm, named, depth or 2 ** 62, ties=options.ties,
                                    grades=options.grades)
        if unit == "auto":
            unit = "queries" if pair_ppi.whole_queries(frame) else "pairs"
        if unit == "pairs" and drawn:
            raise ParameterError("the LLM's judgments hold several draws of a pair's label: they are read as draws "
                                 "with human labels on whole queries (unit='queries'); for a sample of pairs make "
                                 "them one grade each first (judges aggregate --method mean)")
        if unit == "pairs":
            strata, notes = (None, []) if plan is None else design_file.pair_sample(plan, frame, [n for n, _ in names])
            touched = len(np.unique(frame.pair_query[frame.labelled]))
            result = Estimates(labelled=touched, queries=len(frame.queries), alpha=alpha, unit="pairs",
                               labelled_pairs=int(frame.labelled.sum()), frame_pairs=len(frame.best), warnings=notes)
            if plan is not None:
                result.design = _summary(strata, frame.labelled)
            llm_values = per_query_values(llm, named, measures, frame.queries, options)
            pair_ppi.estimate_pairs(frame, named, names, llm_values, result, alpha=alpha, options=options,
                                    classical_mean=classical_mean, strata=strata)
            return result
    labelled, unlabelled, outside = split_labelled_queries(human, llm, options)
    result = Estimates(labelled=len(labelled), queries=len(labelled) + len(unlabelled), alpha=alpha)
    if outside:
        result.warnings.append(f"{len(outside)} human-labelled queries have no LLM judgments (e.g. {outside[0]!r}):"
                               " left out")
    if len(labelled) < 2 or not unlabelled:
        raise ParameterError(f"{len(labelled)} human-labelled and {len(unlabelled)} other queries: the estimate "
                             "needs two labelled queries or more, and LLM-only ones")
    everything = labelled + unlabelled
    if drawn:     # several draws per pair: each query's metric is its mean over the draws (rankmeter.judges.draws)
        from rankmeter.judges.draws import draw_tables, draw_values, query_means

        tables, least = draw_tables(llm, grades=options.grades)
        per_draw, m = draw_values(tables, least, lambda t: per_query_values(t, named, measures, everything, options),
                                  everything)
        result.draws = {"min": int(m.min()), "max": int(m.max())}
        f, noise = {}, {}
        for key, values in per_draw.items():
            f[key], noise[key] = query_means(values)
    else:
        f = per_query_values(llm, named, measures, everything, options)
    labels = list(dict.fromkeys(label for _, label in f))
    if plan is not None:
        _by_design(result, plan, human, named, measures, labels, f, labelled, unlabelled, options,
                   draws=(per_draw, noise) if drawn else None)
        return result
    _few(result, len(labelled))
    y = per_query_values(human, named, measures, labelled, options)
    n = len(labelled)
    for name, _ in named:
        for label in labels:
            values = f[(name, label)]
            row = {"run": name, "measure": label,
                   "ppi": ppi_mean(y[(name, label)], values[:n], values[n:], alpha=alpha, small_sample=True),
                   "llm_only": classical_mean(values, alpha=alpha),
                   "human_only": classical_mean(y[(name, label)], alpha=alpha)}
            if drawn:
                _judge_shares(row, per_draw[(name, label)], noise[(name, label)], n, alpha)
            result.runs.append(row)
    for (a, _), (b, _) in ((x, z) for i, x in enumerate(named) for z in named[i + 1:]):
        for label in labels:
            da, db = f[(a, label)] - f[(b, label)], y[(a, label)] - y[(b, label)]
            row = {"a": a, "b": b, "measure": label,
                   "ppi": ppi_mean(db, da[:n], da[n:], alpha=alpha, small_sample=True),
                   "llm_only": classical_mean(da, alpha=alpha),
                   "human_only": classical_mean(db, alpha=alpha)}
            if drawn:    # draw d of both runs is the same labelling: the difference is paired within the draw
                difference = per_draw[(a, label)] - per_draw[(b, label)]
                _judge_shares(row, difference, query_means(difference)[1], n, alpha)
            result.pairs.append(row)
    result.warnings += _sampling_check(f, labels, named, n)
    return result


def _by_design(result, plan, human, named, measures, labels, f, labelled, unlabelled, options, *,
               draws=None) -> None:
    """``estimate`` at query level with the stratified design ``plan``: every run's mean and every pair's difference
    by the stratified estimator, the human-only ones stratified too (lam = 0). ``draws``: ``(per-draw values,
    s_q^2 / m_q)`` by key when the LLM's file holds several draws a pair (each interval that counts them then
    carries ``judge_share``)."""
    from rankmeter.judges.design import query_sample
    from rankmeter.judges.stratified import stratified_estimate

    strata, used, notes = query_sample(plan, labelled, unlabelled, labels)
    result.warnings += notes
    result.labelled = int(used.sum())
    _few(result, result.labelled)     # counted after the labels outside the design are left out
    everything = labelled + unlabelled
    y = per_query_values(human, named, measures, [q for q, u in zip(everything, used) if u], options)
    alpha = result.alpha

    def both(truth, llm) -> tuple[dict, dict]:
        full = np.zeros(len(everything))
        full[used] = truth
        out = [{k: float(v) for k, v in stratified_estimate(full, llm, used, strata, alpha=alpha, lam=lam).items()}
               for lam in (None, 0.0)]
        for e in out:   # counts as the uniform sample's estimate gives them
            e.update(n=int(used.sum()), N=int((~used).sum()))
        return tuple(out)

    for name, _ in named:
        for label in labels:
            ppi, human_only = both(y[(name, label)], f[(name, label)])
            row = {"run": name, "measure": label, "ppi": ppi,
                   "llm_only": classical_mean(f[(name, label)], alpha=alpha), "human_only": human_only}
            if draws is not None:
                _design_shares(row, draws[0][(name, label)], draws[1][(name, label)], used, strata, alpha)
            result.runs.append(row)
    for (a, _), (b, _) in ((x, z) for i, x in enumerate(named) for z in named[i + 1:]):
        for label in labels:
            da = f[(a, label)] - f[(b, label)]
            ppi, human_only = both(y[(a, label)] - y[(b, label)], da)
            row = {"a": a, "b": b, "measure": label, "ppi": ppi,
                   "llm_only": classical_mean(da, alpha=alpha), "human_only": human_only}
            if draws is not None:     # draw d of both runs is the same labelling: paired within the draw
                from rankmeter.judges.draws import query_means

                difference = draws[0][(a, label)] - draws[0][(b, label)]
                _design_shares(row, difference, query_means(difference)[1], used, strata, alpha)
            result.pairs.append(row)
    result.design = _summary(strata, used)


def _judge_shares(row: dict, per_draw: np.ndarray, noise: np.ndarray, n: int, alpha: float) -> None:
    """The judge's share of the variance beside each interval that counts the draws (PPI++ and LLM-only), and the
    LLM-only mean's interval over the draws alone (``llm_redraw``: the same queries labelled again)."""
    from rankmeter.judges.draws import ppi_judge_share, two_stage_mean

    row["ppi"]["judge_share"] = ppi_judge_share(row["ppi"]["lam"], row["ppi"]["se"], noise[:n], noise[n:])
    two = two_stage_mean(per_draw, alpha=alpha)
    row["llm_only"]["judge_share"] = two["judge_share"]
    row["llm_redraw"] = two["redraw"]


def _design_shares(row: dict, per_draw, noise, used, strata, alpha: float) -> None:
    """:func:`_judge_shares` for the stratified estimate: its draws' part by the design's strata."""
    from rankmeter.judges.draws import stratified_judge_share, two_stage_mean

    ppi = row["ppi"]
    ppi["judge_share"] = stratified_judge_share(ppi["lam"], ppi["se"], noise, used, strata)
    two = two_stage_mean(per_draw, alpha=alpha)
    row["llm_only"]["judge_share"] = two["judge_share"]
    row["llm_redraw"] = two["redraw"]


def _few(result, labelled: int) -> None:
    if labelled < MIN_LABELLED:
        result.warnings.append(f"only {labelled} human-labelled queries: the normal interval needs more "
                               f"(at least {MIN_LABELLED}); treat the intervals as rough")


def _summary(strata: np.ndarray, labelled: np.ndarray) -> dict:
    """The design as the estimate used it: per stratum its size and its human-labelled units."""
    codes = np.unique(strata)
    return {"strata": len(codes), "sizes": [int((strata == h).sum()) for h in codes],
            "labelled": [int(labelled[strata == h].sum()) for h in codes]}


def _sampling_check(f, labels, named, n) -> list[str]:
    """Whether the labelled queries look like a random sample: their LLM metric against the others' (a
    two-sample z test on each run's first measure; a tiny p-value says the sample was chosen, not drawn)."""
    out = []
    for name, _ in named:
        values = f[(name, labels[0])]
        a, b = values[:n], values[n:]
        if len(a) < 2 or len(b) < 2:
            continue
        se = math.sqrt(np.var(a, ddof=1) / len(a) + np.var(b, ddof=1) / len(b))
        if se == 0:
            continue
        z = (a.mean() - b.mean()) / se
        p = 2 * (1 - NormalDist().cdf(abs(z)))
        if p < 0.001:
            out.append(f"the human-labelled queries differ from the others on {name}'s {labels[0]} under the LLM's "
                       f"labels (mean {a.mean():.4f} against {b.mean():.4f}, p={p:.1e}): they may not be a uniform "
                       f"random sample of the queries, which the estimate assumes{_DESIGN_HINT}")
    # spread over the quartiles of the LLM's metric (the runs' mean) unlike a uniform sample: an allocated one?
    from rankmeter.judges.pair_ppi import chi2_p

    every = np.mean([f[(name, labels[0])] for name, _ in named], axis=0)
    quartile = np.searchsorted(np.quantile(every, [0.25, 0.5, 0.75]), every, side="right")
    seen, size = np.bincount(quartile[:n], minlength=4), np.bincount(quartile, minlength=4)
    expected = n * size / len(every)
    p = chi2_p(float(((seen - expected) ** 2 / np.where(expected > 0, expected, 1)).sum()), int((size > 0).sum()) - 1)
    if len(every) >= 8 and p < 0.001:
        out.append(f"the human-labelled queries are spread over the quartiles of the LLM's {labels[0]} unlike a "
                   f"uniform random sample ({', '.join(map(str, seen.tolist()))} labelled of "
                   f"{', '.join(map(str, size.tolist()))}, lowest first; p={p:.1e}){_DESIGN_HINT}")
    return out


_DESIGN_HINT = ("; if `rankmeter judges allocate` chose them, estimate with its design (--design FILE; design= in "
                "Python), else the estimate may be biased")
