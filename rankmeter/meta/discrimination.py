"""How well a measure tells systems apart: discriminative power and swap rates, over a set of runs.

* :func:`discriminative_power` (Sakai, SIGIR 2006): the achieved significance
  level (ASL, the p-value) of every pair of runs under a paired test
  (``bootstrap``, Sakai's choice; ``tukey``, his randomised Tukey HSD of 2012
  that controls the error over all pairs; or ``randomization`` / ``t``),
  sorted into the ASL curve, and the share of pairs significant at ``alpha``.
* :func:`swap_rate` (Voorhees and Buckley, SIGIR 2002): draw two disjoint
  sets of c topics, and count the pairs of runs whose order (by mean score)
  differs between the two; per c, overall and by bins of the difference on
  the first set. Small topic sets enumerate every pair of disjoint subsets
  instead of sampling.

Both take a (topics x runs) score matrix (:func:`score_matrix` makes one from
qrels and runs with any evaluation options), so other tools' scores can go in.

>>> import numpy as np
>>> x = np.array([[0.1, 0.5, 0.9], [0.2, 0.6, 0.8], [0.0, 0.7, 0.9], [0.1, 0.4, 0.7]])
>>> dp = discriminative_power(x, test="t", names=["a", "b", "c"])
>>> dp.power, [name for name, _ in dp.pairs]
(1.0, [('a', 'b'), ('a', 'c'), ('b', 'c')])
>>> swap_rate(x, sizes=[1, 2]).overall
{1: 0.0, 2: 0.0}
"""
from __future__ import annotations

import itertools
import math
import warnings
from dataclasses import dataclass, field

import numpy as np

from rankmeter.meta.params import BIN_WIDTH, POWER_PERMUTATIONS, POWER_TEST, SIZE, TRIALS
from rankmeter.engine.param import SEED
from rankmeter.stats.params import ALPHA
from rankmeter.engine.param import validate_params
from rankmeter.errors import ParameterError

__all__ = ["discriminative_power", "swap_rate", "score_matrix", "score_matrices", "common_topics",
           "DiscriminativePower", "SwapRate"]



def score_matrix(qrels, runs, measure, **options) -> tuple[np.ndarray, list[str], list[str]]:
    """(topics x runs matrix of ``measure``, topic ids, run names): complete, as every analysis here needs.

    The topics follow the one rule of ``compare`` and ``eval``: with ``queries="both"`` (the default) the
    judged topics that every run answered (a run lacking some drops them from the matrix, with a warning
    naming the runs); with ``queries="qrels"`` every judged topic, a run's missing ones scored as empty
    rankings (0 for the measures of relevant docs retrieved).
    """
    matrices, topics, names = score_matrices(qrels, runs, [measure], **options)
    return matrices[0], topics, names


def score_matrices(qrels, runs, measures, **options) -> tuple[list[np.ndarray], list[str], list[str]]:
    """:func:`score_matrix` for several measures at once (the runs are read and ranked once): one matrix per
    measure, in the order given, over the same topics."""
    from rankmeter.core import Evaluator, validate_options
    from rankmeter.stats.compare import named_runs, per_query_scores

    opts = validate_options(**options)
    evaluator = Evaluator.of(qrels, list(measures), opts)
    systems = named_runs(runs, opts)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # compare's warning speaks of comparisons; common_topics' says what happens
        topics, by_measure = per_query_scores(evaluator, systems)
    names = [name for name, _ in systems]
    lacking = np.logical_or.reduce([np.isnan(by_measure[m]) for m in evaluator.measures])
    keep = common_topics(lacking, topics, names)
    return [by_measure[m][keep] for m in evaluator.measures], [topics[i] for i in np.flatnonzero(keep)], names


def common_topics(lacking: np.ndarray, topics: list[str], names: list[str], *, stacklevel: int = 3) -> np.ndarray:
    """Which topics (rows) every system answered, given where each lacks one (``lacking``: topics x systems,
    True where a system has no value); warns naming the systems that lack some, as ``compare`` does."""
    keep = ~lacking.any(axis=1)
    if not keep.all():
        named = [f"{name} ({int(n)})" for name, n in zip(names, lacking.sum(axis=0)) if n]
        warnings.warn(
            f"systems without values for some of the {len(topics)} topics: {', '.join(named)}; the analysis uses "
            f"the {int(keep.sum())} topics every system answered (queries='qrels' scores a run's missing judged "
            f"topics as empty rankings instead)", stacklevel=stacklevel)
    if keep.sum() < 2:
        raise ParameterError(f"only {int(keep.sum())} of the {len(topics)} topics have a value for every system: "
                             "an analysis over topics needs two or more (queries='qrels' scores missing ones as 0)")
    return keep


@dataclass
class DiscriminativePower:
    """Pairs of runs with their ASL (p-value) and mean difference; ``curve`` the ASLs sorted."""

    test: str
    alpha: float
    pairs: list[tuple[tuple[str, str], float]]
    deltas: list[float]
    curve: list[float] = field(default_factory=list)

    @property
    def power(self) -> float:
        """Share of pairs with ASL < alpha."""
        return sum(p < self.alpha for _, p in self.pairs) / len(self.pairs) if self.pairs else math.nan

    @property
    def smallest_significant_delta(self) -> float | None:
        """The smallest |mean difference| among the significant pairs (None when none is)."""
        found = [abs(d) for (_, p), d in zip(self.pairs, self.deltas) if p < self.alpha]
        return min(found) if found else None


@validate_params(POWER_TEST, ALPHA, POWER_PERMUTATIONS, SEED)
def discriminative_power(scores: np.ndarray, *, test: str = "bootstrap", alpha: float = 0.05,
                         permutations: int = 1000, seed: int | None = 0,
                         names: list[str] | None = None) -> DiscriminativePower:
    """Sakai's discriminative power of the measure behind ``scores`` (topics x runs, no NaN).

    ``alpha``, ``permutations`` and ``seed`` (None: fresh randomness) are checked against their declarations
    (:mod:`rankmeter.meta.params`), the message giving the valid range.
    """
    from rankmeter.stats import significance as sig

    x = np.asarray(scores, dtype=np.float64)
    if x.ndim != 2 or x.shape[1] < 2 or np.isnan(x).any():
        raise ParameterError("scores: a (topics x runs) matrix of at least two runs, without missing values")
    k = x.shape[1]
    names = names or [f"run{i}" for i in range(k)]
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
    from rankmeter.executors.progress import progress_bar
    resampled = test in ("tukey", "bootstrap", "randomization")
    with progress_bar(permutations if resampled else 0, work=float(permutations) * x.size * max(len(pairs), 1),
                      label=f"{test} ({len(pairs)} pairs)") as advance:
        if test == "tukey":
            pmat, _ = sig.tukey_hsd(x, permutations=permutations, seed=seed, alpha=alpha, progress=advance)
            p = np.array([pmat[i, j] for i, j in pairs])
        else:
            diffs = np.stack([x[:, i] - x[:, j] for i, j in pairs], axis=1)
            if test == "t":
                p = np.array([sig.paired_t(diffs[:, c], alpha=alpha)[0] for c in range(len(pairs))])
            else:
                run = sig.bootstrap if test == "bootstrap" else sig.randomization
                p = run(diffs, permutations=permutations, seed=seed, alpha=alpha, progress=advance)[0]
    deltas = [float(x[:, i].mean() - x[:, j].mean()) for i, j in pairs]
    listed = [((names[i], names[j]), float(v)) for (i, j), v in zip(pairs, p)]
    return DiscriminativePower(test, float(alpha), listed, deltas, sorted(float(v) for v in p))


@dataclass
class SwapRate:
    """Per topic-set size c: the overall swap rate, and per bin of |difference| its pairs and swaps."""

    overall: dict[int, float]
    bins: dict[int, list[tuple[float, int, int]]]   # (bin's lower edge, pairs compared, swaps)
    trials: dict[int, int]
    bin_width: float


def _subset_pairs(n: int, c: int, trials: int, rng) -> np.ndarray:
    """(trials x 2c) topic indices: the first c one set, the next c a disjoint one."""
    combos = math.comb(n, c) * math.comb(n - c, c)
    if combos <= trials:  # every ordered pair of disjoint subsets, once
        out = []
        for first in itertools.combinations(range(n), c):
            rest = [t for t in range(n) if t not in first]
            out += [list(first) + list(second) for second in itertools.combinations(rest, c)]
        return np.array(out, dtype=np.int64)
    return np.argsort(rng.random((trials, n)), axis=1)[:, : 2 * c]


@validate_params(TRIALS, BIN_WIDTH, SEED)
def swap_rate(scores: np.ndarray, *, sizes=None, trials: int = 1000, bin_width: float = 0.01,
              seed: int | None = 0) -> SwapRate:
    """Voorhees and Buckley's swap rates of the measure behind ``scores`` (topics x runs, no NaN).

    For each size c in ``sizes`` (default 1 .. topics // 2), ``trials`` draws
    of two disjoint topic sets (or all of them when there are fewer); a pair
    of runs swaps when its difference of means has opposite signs on the two
    sets (a zero difference on either counts as a swap, as in the paper's
    "different order"). Pairs are binned by |difference| on the first set.
    ``trials``, ``bin_width``, each size and ``seed`` (None: fresh randomness) are checked against their
    declarations (:mod:`rankmeter.meta.params`), the message giving the valid range.
    """
    x = np.asarray(scores, dtype=np.float64)
    if x.ndim != 2:
        raise ParameterError("scores: a (topics x runs) matrix of at least two topics and two runs, no NaN")
    n, k = x.shape
    if k < 2 or n < 2 or np.isnan(x).any():
        raise ParameterError("scores: a (topics x runs) matrix of at least two topics and two runs, no NaN")
    if sizes is not None and (isinstance(sizes, (str, bytes)) or not hasattr(sizes, "__iter__")):
        sizes = [sizes]
    sizes = list(range(1, n // 2 + 1)) if sizes is None else [SIZE.but(optional=False, required=True)
                                                                .check(c) for c in sizes]
    too_big = [c for c in sizes if 2 * c > n]
    if too_big:
        raise ParameterError(f"size={too_big[0]!r}: expected an integer in [1, {n // 2}] (two disjoint sets of "
                             f"size topics among the {n})")
    rng = np.random.default_rng(seed)
    iu, ju = np.triu_indices(k, 1)
    overall, bins, used = {}, {}, {}
    for c in sizes:
        picks = _subset_pairs(n, c, trials, rng)
        first = x[picks[:, :c]].mean(axis=1)      # trials x runs
        second = x[picks[:, c:]].mean(axis=1)
        d1 = first[:, iu] - first[:, ju]
        d2 = second[:, iu] - second[:, ju]
        swapped = (np.sign(d1) != np.sign(d2)) | (d1 == 0) | (d2 == 0)
        which = np.floor(np.abs(d1) / bin_width + 1e-9).astype(np.int64).ravel()
        counts = np.bincount(which)
        swaps = np.bincount(which, weights=swapped.ravel().astype(np.float64))
        overall[c] = float(swapped.mean())
        bins[c] = [(round(b * bin_width, 12), int(counts[b]), int(swaps[b])) for b in np.flatnonzero(counts)]
        used[c] = len(picks)
    return SwapRate(overall, bins, used, bin_width)
