"""The leaderboard's statistics against a known truth, at a size CI does not run: prints coverage and error
rates with their Monte-Carlo standard errors (the world: tests/leaderboard/simulation.py).

usage: python bench/sim_leaderboard.py [--replicates R] [--resamples B] [--world spread|tied|board|near]
       [--queries Q] [--level collections|queries] [--test T]
       python bench/sim_leaderboard.py --table [--replicates R] [--resamples B]

Each replicate draws 20 collections from the world and ranks its systems (6, or 8 in the board world; and,
for the null, as many equal systems): --queries 1 gives per-collection scores (one level), --queries Q > 1
per-query values. --table runs every design of the docs' table (the four worlds at one level; spread and
near with 20 queries a collection at two levels and at one) and prints one row each.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]  # this checkout's rankmeter, and the simulation beside its tests

from leaderboard.simulation import WORLDS, simulate  # noqa: E402

#: (world, queries a collection, level) of --table
DESIGNS = [("spread", 1, None), ("near", 1, None), ("tied", 1, None), ("board", 1, None),
           ("spread", 20, "queries"), ("near", 20, "queries"), ("spread", 20, "collections")]


def _cell(v) -> str:
    return f"{v[0]:.3f} ({v[1]:.3f})"


def table(replicates: int, resamples: int, seed: int) -> None:
    print(f"20 collections, Holm over every pair, alpha 0.05, {resamples} resamples; share (Monte-Carlo s.e.)")
    print("| design | systems | queries | level | replicates | mean interval covers | rank interval covers | "
          "top group holds the best | null: rank interval covers 1..S | null: share of pairs separated | "
          "null: some pair separated |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for world, queries, level in DESIGNS:
        started = time.perf_counter()
        reps = replicates if queries == 1 else max(1, replicates * 2 // 5)  # two levels cost more a replicate
        f = simulate(reps, resamples=resamples, queries=queries, level=level, seed=seed, mu=WORLDS[world])
        shown = level or ("collections" if queries == 1 else "queries")
        print(f"| {world} | {len(WORLDS[world])} | {queries} | {shown} | {reps} | {_cell(f.interval_coverage)} | "
              f"{_cell(f.rank_coverage)} | {_cell(f.top_holds_best)} | {_cell(f.null_rank_coverage)} | "
              f"{_cell(f.null_pairs_separated)} | {_cell(f.null_any_separated)} |  "
              f"<!-- {time.perf_counter() - started:.0f} s -->", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--replicates", type=int, default=1000)
    ap.add_argument("--resamples", type=int, default=2000)
    ap.add_argument("--world", choices=tuple(WORLDS), default="spread")
    ap.add_argument("--queries", type=int, default=1)
    ap.add_argument("--level", choices=("collections", "queries"), default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--test", default=None, help="the pairwise test (default: the leaderboard's; the intervals are "
                    "the bootstrap's)")
    ap.add_argument("--table", action="store_true", help="every design of the docs' table, one row each")
    a = ap.parse_args()
    if a.table:
        table(a.replicates, a.resamples, a.seed)
        return
    started = time.perf_counter()
    figures = simulate(a.replicates, resamples=a.resamples, queries=a.queries, level=a.level, seed=a.seed, test=a.test,
                       mu=WORLDS[a.world])
    systems = len(WORLDS[a.world])
    print(f"world {a.world}, 20 collections x {a.queries} quer{'y' if a.queries == 1 else 'ies'}, {systems} systems, "
          f"level {a.level or 'default'}, {a.test or 'default'} test, {a.resamples} resamples, Holm over the "
          f"{systems * (systems - 1) // 2} pairs, alpha 0.05")
    print("\n".join(figures.lines()))
    print(f"  ({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
