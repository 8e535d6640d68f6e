"""A known truth to check the leaderboard's statistics against (tests/leaderboard/test_simulation.py runs it
small; bench/sim_leaderboard.py runs it big and prints the figures).

A world of collections and queries: system s's value on query q of collection c is

    x = 0.5 + mu_s + u_c + g_cs + v_cq + e_cqs,   u ~ N(0, .08), g ~ N(0, tau), v ~ N(0, .1), e ~ N(0, sigma)

with u the collection's difficulty (shared by all systems), g how well the system suits the collection, v the
query's difficulty, e the rest. A replicate draws ``collections`` collections and ``queries`` queries in each;
the true aggregate of s (the mean over the population of collections and queries) is 0.5 + mu_s, its true
rank the rank of mu_s.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

import rankmeter

#: true means of the systems: distinct, the close ones closer than the noise separates
SPREAD = np.array([0.0, 0.01, 0.02, 0.035, 0.05, 0.08])
#: true means with ties: pairs of equal systems (true ranks 1, 1, 3, 3, 5, 5: competition ranks)
TIED = np.array([0.0, 0.0, 0.02, 0.02, 0.04, 0.04])


@dataclass
class Figures:
    """Shares over replicates, each with its Monte-Carlo standard error (over replicates)."""

    replicates: int
    interval_coverage: tuple[float, float]
    rank_coverage: tuple[float, float]
    top_holds_best: tuple[float, float]
    null_pairs_separated: tuple[float, float]
    null_any_separated: tuple[float, float]

    def lines(self) -> list[str]:
        def f(name, v):
            return f"  {name}: {v[0]:.4f} (Monte-Carlo s.e. {v[1]:.4f})"
        return [f"  replicates: {self.replicates}", f("95% intervals of the aggregate covering the truth",
                                                      self.interval_coverage),
                f("95% rank intervals covering the true rank", self.rank_coverage),
                f("group tied with the top holding the true best", self.top_holds_best),
                f("all-equal null: share of pairs separated after correction", self.null_pairs_separated),
                f("all-equal null: replicates with any pair separated", self.null_any_separated)]


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


def simulate(replicates: int, *, resamples: int, collections: int = 20, queries: int = 1, tau: float = 0.03,
             sigma: float = 0.1, level: str | None = None, correction: str = "holm", seed: int = 0,
             mu: np.ndarray = SPREAD, test: str = "bootstrap") -> Figures:
    """The figures of ``replicates`` leaderboards drawn from the world (module notes). With tied true means
    the true rank is the competition rank (1, 1, 3) and the top group must hold every true best."""
    rng = np.random.default_rng(seed)
    truth_rank = rankmeter.leaderboard.ranks.ranks(mu)
    best = {f"s{i}" for i in np.flatnonzero(mu == mu.max())}
    cover, rank_cover, top, null_share, null_any = [], [], [], [], []
    for r in range(replicates):
        board = rankmeter.leaderboard(_table(rng, mu, collections, queries, tau, sigma), level=level,
                                      resamples=resamples, seed=r, correction=correction, test=test)
        hits, rank_hits = [], []
        for row in board.rows:
            s = int(row["system"][1:])
            hits.append(row["interval"][0] <= 0.5 + mu[s] <= row["interval"][1])
            rank_hits.append(row["rank_interval"][0] <= truth_rank[s] <= row["rank_interval"][1])
        cover.append(np.mean(hits))
        rank_cover.append(np.mean(rank_hits))
        top.append(best <= {row["system"] for row in board.rows if row["tied_with_top"]})
        null = rankmeter.leaderboard(_table(rng, np.zeros_like(mu), collections, queries, tau, sigma), level=level,
                                     resamples=resamples, seed=r, correction=correction, test=test)
        separated = [p["p_adjusted"] < null.alpha for p in null.pairs]
        null_share.append(np.mean(separated))
        null_any.append(any(separated))
    return Figures(replicates, _share(cover), _share(rank_cover), _share(top), _share(null_share), _share(null_any))
