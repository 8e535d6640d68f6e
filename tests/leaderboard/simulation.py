"""A known truth to check the leaderboard's statistics against (tests/leaderboard/test_simulation.py runs it
small; bench/sim_leaderboard.py runs it big and prints the figures).

A world of collections and queries: system s's value on query q of collection c is

    x = 0.5 + mu_s + u_c + g_cs + v_cq + e_cqs,   u ~ N(0, .08), g ~ N(0, tau), v ~ N(0, .1), e ~ N(0, sigma)

with u the collection's difficulty (shared by all systems), g how well the system suits the collection, v the
query's difficulty, e the rest. A replicate draws ``collections`` collections and ``queries`` queries in each;
the true aggregate of s (the mean over the population of collections and queries) is 0.5 + mu_s.

**True ranks.** System s's true rank is the set of ranks it could take: from ``1 + #{j: mu_j > mu_s}`` to
``S - #{j: mu_j < mu_s}`` (one rank without ties; 1 to 2 for each of two systems tied at the top). A rank
interval covers it when it holds the whole set (Al Mohamad, Goeman and van Zwet 2022): an interval that left
out rank 2 for one of two tied leaders would claim it is first.

Beside the leaderboard's rank intervals the figures give the coverage of the percentile interval of the
bootstrap ranks (each system's resampled ranks at alpha/2 and 1 - alpha/2), from the same resamples: the
interval people compute by hand, which rankmeter does not print (it has no guarantee and fails under ties:
Hall and Miller 2009).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, fields

import numpy as np
import pyarrow as pa

import rankmeter
from rankmeter.leaderboard.ranks import ranks
from rankmeter.leaderboard.resample import resample_aggregates

#: true means of the systems: distinct, the close ones closer than the noise separates
SPREAD = np.array([0.0, 0.01, 0.02, 0.035, 0.05, 0.08])
#: true means with ties: pairs of equal systems (true rank sets {1, 2}, {3, 4}, {5, 6})
TIED = np.array([0.0, 0.0, 0.02, 0.02, 0.04, 0.04])
#: a board as public ones look: two versions of one model tied, near-ties at the top, a clear tail
BOARD = np.array([0.0, 0.01, 0.03, 0.03, 0.04, 0.06, 0.06, 0.065])
#: near-ties: distinct means 0.004 apart, an eighth of the standard error of a pair's difference over 20
#: collections of one query (about 0.033): every rank is in doubt, yet each true rank is one number
NEAR = np.arange(6) * 0.004
WORLDS = {"spread": SPREAD, "tied": TIED, "board": BOARD, "near": NEAR}


@dataclass
class Figures:
    """Shares over replicates, each with its Monte-Carlo standard error (over replicates)."""

    replicates: int
    interval_coverage: tuple[float, float]
    rank_coverage: tuple[float, float]
    percentile_rank_coverage: tuple[float, float]
    top_holds_best: tuple[float, float]
    null_rank_coverage: tuple[float, float]
    null_percentile_rank_coverage: tuple[float, float]
    null_pairs_separated: tuple[float, float]
    null_any_separated: tuple[float, float]

    LABELS = {"interval_coverage": "95% intervals of the aggregate covering the truth",
              "rank_coverage": "95% rank intervals covering the true rank (set)",
              "percentile_rank_coverage": "(percentile interval of the bootstrap ranks, for comparison)",
              "top_holds_best": "group tied with the top holding every true best",
              "null_rank_coverage": "all-equal null: rank intervals covering 1..S",
              "null_percentile_rank_coverage": "(all-equal null: percentile intervals of the bootstrap ranks)",
              "null_pairs_separated": "all-equal null: share of pairs separated after correction",
              "null_any_separated": "all-equal null: replicates with any pair separated"}

    def lines(self) -> list[str]:
        out = [f"  replicates: {self.replicates}"]
        for f in fields(self)[1:]:
            v = getattr(self, f.name)
            out.append(f"  {self.LABELS[f.name]}: {v[0]:.4f} (Monte-Carlo s.e. {v[1]:.4f})")
        return out


def _table(rng, mu, collections, queries, tau, sigma) -> pa.Table:
    s = len(mu)
    u = rng.normal(0, 0.08, collections)
    g = rng.normal(0, tau, (collections, s))
    v = rng.normal(0, 0.1, (collections, queries))
    e = rng.normal(0, sigma, (collections, queries, s))
    x = 0.5 + mu[None, None, :] + u[:, None, None] + g[:, None, :] + v[:, :, None] + e
    c, q, j = np.meshgrid(np.arange(collections), np.arange(queries), np.arange(s), indexing="ij")
    columns = {"system": pa.array([f"s{i}" for i in j.ravel()]), "collection": pa.array([f"c{i}" for i in c.ravel()]),
               "measure": pa.array(["m"] * x.size), "value": x.ravel()}
    if queries > 1:
        columns["query"] = pa.array([f"q{i}" for i in q.ravel()])
    return pa.table(columns)


def _share(values) -> tuple[float, float]:
    values = np.asarray(values, dtype=float)
    return float(values.mean()), float(values.std(ddof=1) / math.sqrt(len(values))) if len(values) > 1 else math.nan


def rank_sets(mu: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The lowest and highest rank each system could take (module notes).

    >>> [v.tolist() for v in rank_sets(np.array([0.0, 0.0, 0.02]))]
    [[2, 2, 1], [3, 3, 1]]
    """
    return ranks(mu), len(mu) - (mu[None, :] < mu[:, None]).sum(axis=1)


def percentile_rank_intervals(board) -> tuple[np.ndarray, np.ndarray]:
    """Each system's bootstrap ranks at alpha/2 and 1 - alpha/2 (systems in the board's order), from the
    board's own resamples (same blocks, level, aggregate and seed)."""
    boot = resample_aggregates(board.per_query_scores.blocks, level=board.level, how=board.aggregate,
                               resamples=board.resamples, seed=board.seed)[:, 0, :]
    resampled = 1 + (boot[:, None, :] > boot[:, :, None]).sum(axis=2)  # (B, S): [b, s] = #{j beating s} + 1
    return (np.quantile(resampled, board.alpha / 2, axis=0, method="inverted_cdf"),
            np.quantile(resampled, 1 - board.alpha / 2, axis=0, method="inverted_cdf"))


def _rank_hits(board, low_true, high_true) -> tuple[float, float]:
    order = [int(name[1:]) for name in board.systems]
    p_low, p_high = percentile_rank_intervals(board)
    hits, p_hits = [], []
    for row in board.rows:
        s = int(row["system"][1:])
        hits.append(row["rank_interval"][0] <= low_true[s] and high_true[s] <= row["rank_interval"][1])
        k = order.index(s)
        p_hits.append(p_low[k] <= low_true[s] and high_true[s] <= p_high[k])
    return float(np.mean(hits)), float(np.mean(p_hits))


def simulate(replicates: int, *, resamples: int, collections: int = 20, queries: int = 1, tau: float = 0.03,
             sigma: float = 0.1, level: str | None = None, correction: str = "holm", seed: int = 0,
             mu: np.ndarray = SPREAD, test: str | None = None) -> Figures:
    """The figures of ``replicates`` leaderboards drawn from the world (module notes), and as many of the
    all-equal null (the same number of systems)."""
    rng = np.random.default_rng(seed)
    low_true, high_true = rank_sets(mu)
    null_low, null_high = rank_sets(np.zeros_like(mu))
    best = {f"s{i}" for i in np.flatnonzero(mu == mu.max())}
    cover, rank_cover, p_rank_cover, top, null_rank, null_p_rank, null_share, null_any = ([] for _ in range(8))
    for r in range(replicates):
        board = rankmeter.leaderboard(_table(rng, mu, collections, queries, tau, sigma), level=level,
                                      resamples=resamples, seed=r, correction=correction, test=test)
        cover.append(np.mean([row["interval"][0] <= 0.5 + mu[int(row["system"][1:])] <= row["interval"][1]
                              for row in board.rows]))
        hit, p_hit = _rank_hits(board, low_true, high_true)
        rank_cover.append(hit)
        p_rank_cover.append(p_hit)
        top.append(best <= {row["system"] for row in board.rows if row["tied_with_top"]})
        null = rankmeter.leaderboard(_table(rng, np.zeros_like(mu), collections, queries, tau, sigma), level=level,
                                     resamples=resamples, seed=r, correction=correction, test=test)
        hit, p_hit = _rank_hits(null, null_low, null_high)
        null_rank.append(hit)
        null_p_rank.append(p_hit)
        separated = [p["p_adjusted"] < null.alpha for p in null.pairs]
        null_share.append(np.mean(separated))
        null_any.append(any(separated))
    return Figures(replicates, _share(cover), _share(rank_cover), _share(p_rank_cover), _share(top),
                   _share(null_rank), _share(null_p_rank), _share(null_share), _share(null_any))
