"""``rankmeter.leaderboard(...)``: many systems over many collections, with what the order can and cannot say."""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from rankmeter.core.keywords import EvaluationOptions, Unpack, takes_options
from rankmeter.core.options import validate_options
from rankmeter.engine.param import validate_params
from rankmeter.errors import ParameterError
from rankmeter.stats.corrections import adjust
from rankmeter.stats.params import Correction, Test
from rankmeter.leaderboard.pairs import corrected, effect_sizes, equivalence, pair_indices, pair_p_values
from rankmeter.leaderboard.inputs import Scores, read_scores
from rankmeter.leaderboard.params import DECLARED
from rankmeter.leaderboard.report import PAIR_KEYS, ROW_KEYS
from rankmeter.leaderboard.ranks import expansion, influence, intervals, letters, ranks, resampled_pairs
from rankmeter.leaderboard.resample import aggregate as aggregate_of
from rankmeter.leaderboard.resample import resample_aggregates

__all__ = ["leaderboard", "Leaderboard", "ROW_KEYS", "PAIR_KEYS"]

#: the keys of the rows and pairs of :meth:`Leaderboard.to_dict` (fixed for scripts), in order


class Leaderboard:
    """Systems ranked over several collections, from :func:`leaderboard`.

    Attributes
    ----------
    measures, systems, collections : list of str
        What was compared (collections left out under ``missing="drop"`` are not listed: see :attr:`notes`).
    level : {"collections", "queries"}
        What was resampled.
    aggregate, test, correction : str
    alpha : float
    resamples : int
    seed : int or None
    rows : list of dict
        Per measure, each system in rank order: ``mean`` (the aggregate), ``interval``, ``rank``,
        ``rank_interval``, ``tied_with_top``, ``group`` (letters), and ``collections`` (each collection's mean).
    pairs : list of dict
        Per measure, every pair ``a < b`` (in system order): ``difference`` (a - b), ``p``, ``p_adjusted``
        (over every pair and measure), ``win_probability`` (of a over b), ``effect_size`` (d_z over the
        collections' means).
    baseline_rows : list of dict
        With a baseline and a margin: per measure and system, the difference with the baseline and the
        non-inferiority and equivalence (TOST) p-values, corrected over systems and measures.
    notes : list of str
        What the input's missing cells changed (``missing="drop"``).
    """

    def __init__(self, *, scores: Scores, level: str, aggregate: str, test: str, correction: str, alpha: float,
                 resamples: int, seed, rows, pairs, baseline_rows, win, baselines, margin):
        self.per_query_scores = scores
        self.measures, self.systems = list(scores.measures), list(scores.systems)
        self.collections = list(scores.collections)
        self.level, self.aggregate, self.test, self.correction = level, aggregate, test, correction
        self.alpha, self.resamples, self.seed = alpha, resamples, seed
        self.rows, self.pairs, self.baseline_rows = rows, pairs, baseline_rows
        self.baselines, self.margin = baselines, margin
        self.notes = list(scores.notes)
        self._win = win

    @property
    def queries(self) -> dict[str, int]:
        """Queries per collection (1 for per-collection scores)."""
        return dict(zip(self.collections, map(int, self.per_query_scores.sizes)))

    def win_probability(self, measure: str) -> np.ndarray:
        """(systems x systems): the share of resamples where the row's system beats the column's (diagonal NaN)."""
        return self._win[self._measure(measure)].copy()

    def _measure(self, measure: str) -> int:
        if measure not in self.measures:
            raise KeyError(f"{measure!r} was not ranked; ranked: {', '.join(self.measures)}")
        return self.measures.index(measure)

    def table(self):
        """:attr:`rows` as a pandas DataFrame (one row per measure and system)."""
        from rankmeter.errors import require
        pd = require("pandas", "pandas", "Leaderboard.table (to_dict() works without it)")
        return pd.DataFrame([{k: r[k] for k in ROW_KEYS} for r in self.rows], columns=list(ROW_KEYS))

    def to_dict(self) -> dict[str, Any]:
        """The JSON of ``rankmeter leaderboard --format json`` (the keys of :data:`ROW_KEYS` and
        :data:`PAIR_KEYS` first, fixed for scripts)."""
        from rankmeter.leaderboard.report import to_dict
        return to_dict(self)

    def to_text(self, decimals: int = 4) -> str:
        """Per measure a table: rank, rank interval, system, mean, interval, group, tied with the top."""
        from rankmeter.leaderboard.report import to_text
        return to_text(self, decimals=decimals)

    def to_markdown(self, decimals: int = 4) -> str:
        """:meth:`to_text` as Markdown tables."""
        from rankmeter.leaderboard.report import to_markdown
        return to_markdown(self, decimals=decimals)

    def to_latex(self, decimals: int = 3) -> str:
        """A booktabs table for papers: one column per measure, each mean with its group letters."""
        from rankmeter.leaderboard.report import to_latex
        return to_latex(self, decimals=decimals)

    def per_collection(self):
        """Each collection's own tests: ``{collection: Comparison}`` (:func:`rankmeter.compare_scores`'s
        result over that collection's queries, with this leaderboard's test, correction and alpha; the
        bootstrap test there is :func:`rankmeter.stats.significance.bootstrap` over the queries)."""
        from rankmeter.stats.compare import compare_scores
        out = {}
        for c, name in enumerate(self.collections):
            block, queries = self.per_query_scores.blocks[c], self.per_query_scores.queries[c] or ["all"]
            scores = {s: {m: dict(zip(queries, block[:, k, j].tolist())) for k, m in enumerate(self.measures)}
                      for j, s in enumerate(self.systems)}
            out[name] = compare_scores(scores, baseline=self.baselines[0] if self.baselines else None,
                                       test=self.test, correction=self.correction, alpha=self.alpha,
                                       permutations=self.resamples, seed=self.seed)
        return out

    def __repr__(self) -> str:
        return (f"Leaderboard({len(self.systems)} systems, {len(self.collections)} collections, "
                f"measures={self.measures}, level={self.level!r}, test={self.test!r})")


def _check(test: str, correction: str) -> None:
    from rankmeter.stats.params import Significance
    Significance(test=test, correction=correction).check_together()


@takes_options(in_memory=True)
@validate_params(*DECLARED)
def leaderboard(source, measures: str | Sequence[str] | None = None, *,
                level: Literal["collections", "queries"] | None = None,
                aggregate: Literal["macro", "weighted", "geometric"] = "macro",
                missing: Literal["refuse", "drop"] = "refuse", baseline: str | Sequence[str] | None = None,
                margin: float | None = None,
                test: Test | None = None,
                correction: Correction = "holm", alpha: float = 0.05,
                resamples: int = 10000, seed: int | None = 0, **options: Unpack[EvaluationOptions]) -> Leaderboard:
    """Rank systems over several collections: aggregates with intervals, rank intervals, the group tied with the
    top, letter groups, win probabilities and corrected pairwise tests.

    Parameters
    ----------
    source : path, dict or DataFrame
        A manifest (JSON file or dict) ``{"collections": {NAME: {"qrels": PATH, "runs": {SYSTEM: PATH}}}}``,
        its runs scored with the evaluation options below; or a table of per-query values (``system,
        collection, query, measure, value``) or of per-collection scores (``system, collection, measure,
        value``) as CSV, TSV, Parquet or JSON Lines, a pandas DataFrame or an Arrow table
        (:mod:`rankmeter.leaderboard.inputs`).
    measures : str or list of str, optional
        The measures to rank by; required for a manifest, default every measure of a table.
    level : {"collections", "queries"}, optional
        Resample collections only, or collections then queries within each (default when per-query values
        are given; per-collection scores have collections only).
    aggregate : {"macro", "weighted", "geometric"}, default "macro"
        A system's score: the mean of the collections' means, their mean weighted by queries, or their
        geometric mean (each floored at 1e-5).
    missing : {"refuse", "drop"}, default "refuse"
        A system without values in a collection (or for some of its queries) is refused with the cells named,
        or the comparison keeps the collections and queries every system has (:attr:`Leaderboard.notes`).
    baseline : str or list of str, optional
        The system(s) that non-inferiority and equivalence are tested against (with ``margin``).
    margin : float, optional
        The margin of those tests, in the measure's units.
    test : {"t", "wilcoxon", "randomization", "bootstrap", "tukey"}, optional
        The pairwise test (:mod:`rankmeter.leaderboard.pairs`). Default: ``"randomization"`` at one level
        (sign flips of the collections' differences, exact under the null; the bootstrap's p-values over 20
        collections separate a pair of equal systems more often than alpha) and ``"bootstrap"`` at two (the
        sign flips of every query would multiply the cost by the queries), unless every collection has one
        query (then the two levels are one). The intervals, the rank intervals
        and the win probabilities come from the bootstrap whatever the test.
    correction : {"none", "bonferroni", "holm", "bh"}, default "holm"
        Over every pair and measure (Tukey: ``"none"``, it holds over the systems already).
    alpha : float, default 0.05
        Level of the tests; intervals are at ``1 - alpha``.
    resamples : int, default 10000
        Bootstrap resamples (and the permutations of the randomisation and Tukey tests).
    seed : int or None, default 0
        Seed of every random draw: the same seed gives the same leaderboard.
    %(evaluation_options)s

    Returns
    -------
    Leaderboard

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"system": ["A", "B"] * 3, "collection": ["x", "x", "y", "y", "z", "z"],
    ...                       "measure": "nDCG@10", "value": [0.5, 0.4, 0.6, 0.3, 0.55, 0.35]})
    >>> board = leaderboard(table, resamples=2000)
    >>> [(r["system"], r["rank"], round(r["mean"], 3)) for r in board.rows]
    [('A', 1, 0.55), ('B', 2, 0.35)]
    """
    if test is not None:
        _check(test, correction)  # before any work is spent
    opts = validate_options(**options)
    scores = read_scores(source, measures, missing=missing, options=opts)
    if level is None:
        level = "queries" if scores.per_query else "collections"
    if level == "queries" and not scores.per_query:
        raise ParameterError("level='queries': per-collection scores have no queries to resample; use "
                             "level='collections'")
    n_c = len(scores.collections)
    if level == "collections" and n_c < 2:
        raise ParameterError(f"level='collections' resamples collections: got {n_c}; give two or more, or "
                             "per-query values with level='queries'")
    if test is None:  # one query per collection: two levels are one, and so is the test
        test = "randomization" if level == "collections" or scores.sizes.max() == 1 else "bootstrap"
    bases = _baselines(baseline, scores.systems)
    if margin is not None and not bases:
        raise ParameterError("margin: give the baseline the systems are tested against (baseline=NAME)")
    sizes = scores.sizes
    units = n_c if n_c >= 2 else int(sizes[0])
    level_alpha, _ = expansion(units, alpha)
    means = scores.collection_means()
    observed = aggregate_of(means, sizes, aggregate)  # (measures, systems)
    # the rank bounds studentise by each resample's collections at one level (Mogstad et al. 2024: the null's
    # coverage 0.941 -> 0.957); at two levels the plug-in bound already covers 0.986, and studentising would
    # double the time of the size for nothing
    studentise = level == "collections"
    got = resample_aggregates(scores.blocks, level=level, how=aggregate, resamples=resamples, seed=seed,
                              counts=studentise)
    boot, drawn = got if studentise else (got, None)
    per_measure = [resampled_pairs(observed[m], boot[:, m, :], alpha=alpha, units=units, counts=drawn,
                                   unit_values=influence(means[:, m, :], sizes, aggregate, observed[m]),
                                   linear=level == "collections" and aggregate == "macro",
                                   p_values=test == "bootstrap")
                   for m in range(len(scores.measures))]
    p = pair_p_values(scores, test=test, level=level, aggregate=aggregate,
                            boot_p=[r["p"] for r in per_measure], alpha=alpha, resamples=resamples, seed=seed)
    p_adj = corrected(p, correction, test)
    effects = effect_sizes(scores, aggregate)
    a, b = pair_indices(len(scores.systems))
    rows, pair_rows = [], []
    for m, label in enumerate(scores.measures):
        r = per_measure[m]
        low, high = intervals(boot[:, m, :], level_alpha)
        rank = ranks(observed[m])
        separated = np.zeros((len(scores.systems),) * 2, dtype=bool)
        separated[a, b] = separated[b, a] = p_adj[m] < alpha
        order = np.argsort(-observed[m], kind="stable")
        groups = letters(order, separated)
        for s in order:
            rows.append({"measure": label, "system": scores.systems[s], "mean": float(observed[m, s]),
                         "interval": [float(low[s]), float(high[s])], "rank": int(rank[s]),
                         "rank_interval": [int(r["rank_low"][s]), int(r["rank_high"][s])],
                         "tied_with_top": bool(r["rank_low"][s] == 1), "group": groups[s],
                         "collections": {c: float(means[k, m, s]) for k, c in enumerate(scores.collections)}})
        for k, (i, j) in enumerate(zip(a, b)):
            pair_rows.append({"measure": label, "a": scores.systems[i], "b": scores.systems[j],
                              "difference": float(observed[m, i] - observed[m, j]), "p": float(p[m, k]),
                              "p_adjusted": float(p_adj[m, k]), "win_probability": float(r["win"][i, j]),
                              "effect_size": float(effects[m, k])})
    baseline_rows = _baseline_rows(scores, observed, boot, bases, margin, test, correction, aggregate, units, alpha)
    return Leaderboard(scores=scores, level=level, aggregate=aggregate, test=test, correction=correction,
                       alpha=float(alpha), resamples=int(resamples), seed=seed, rows=rows, pairs=pair_rows,
                       baseline_rows=baseline_rows, win=[r["win"] for r in per_measure],
                       baselines=[scores.systems[i] for i in bases], margin=margin)


def _baselines(baseline, systems: list[str]) -> list[int]:
    if baseline is None:
        return []
    wanted = [baseline] if isinstance(baseline, str) else list(baseline)
    unknown = [b for b in wanted if b not in systems]
    if unknown:
        raise ParameterError(f"baseline={baseline!r}: {', '.join(map(repr, unknown))} is not one of the systems: "
                             f"{', '.join(systems)}")
    return list(dict.fromkeys(systems.index(b) for b in wanted))


def _baseline_rows(scores, observed, boot, bases, margin, test, correction, aggregate, units, alpha):
    if margin is None:
        return []
    found = []
    for base in bases:
        eq = equivalence(scores, observed, boot, baseline=base, margin=margin, test=test if test == "t" else
                               "bootstrap", aggregate=aggregate, units=units)
        found.append((base, eq))
    raw = np.array([[eq["p_lower"], np.maximum(eq["p_lower"], eq["p_upper"])] for _, eq in found])
    kind = "none" if correction == "none" or test == "tukey" else correction
    adjusted = np.stack([adjust(raw[:, k].ravel(), kind).reshape(raw[:, k].shape) for k in range(2)], axis=1)
    rows = []
    for n, (base, eq) in enumerate(found):
        for m, label in enumerate(scores.measures):
            for s, system in enumerate(scores.systems):
                if s == base:
                    continue
                p_ni, p_eq = adjusted[n, 0, m, s], adjusted[n, 1, m, s]
                rows.append({"measure": label, "system": system, "baseline": scores.systems[base],
                             "difference": float(eq["difference"][m, s]), "margin": float(margin),
                             "p_noninferiority": float(raw[n, 0, m, s]), "p_equivalence": float(raw[n, 1, m, s]),
                             "p_noninferiority_adjusted": float(p_ni), "p_equivalence_adjusted": float(p_eq),
                             "noninferior": bool(p_ni < alpha) if math.isfinite(p_ni) else None,
                             "equivalent": bool(p_eq < alpha) if math.isfinite(p_eq) else None})
    return rows
