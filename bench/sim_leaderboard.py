"""The leaderboard's statistics against a known truth, at a size CI does not run: prints coverage and error
rates with their Monte-Carlo standard errors (the world: tests/leaderboard/simulation.py).

usage: python bench/sim_leaderboard.py [--replicates R] [--resamples B] [--world spread|tied|board] [--queries Q]
       [--level collections|queries]

Each replicate draws 20 collections from the world and ranks its systems (6, or 8 in the board world; and,
for the null, as many equal systems): --queries 1 gives per-collection scores (one level), --queries Q > 1 per-query values.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]  # this checkout's rankmeter, and the simulation beside its tests

from leaderboard.simulation import WORLDS, simulate  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--replicates", type=int, default=1000)
    ap.add_argument("--resamples", type=int, default=4000)
    ap.add_argument("--world", choices=tuple(WORLDS), default="spread")
    ap.add_argument("--queries", type=int, default=1)
    ap.add_argument("--level", choices=("collections", "queries"), default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--test", default=None, help="the pairwise test (default: the leaderboard's; the intervals are "
                    "the bootstrap's)")
    a = ap.parse_args()
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
