"""Time ``rankmeter.leaderboard`` at the size of a real board: 100 systems x 20 collections x 1,000 queries,
two measures, 10,000 resamples (two levels: collections, then queries within each).

usage: python bench/bench_leaderboard.py [--repeat N] [--systems S] [--collections C] [--queries Q]
       [--resamples B] [--level queries|collections] [--threads T]

Each repetition runs in a fresh child process (the input table is built there first, as a pyarrow Table
of per-query values, 4 million rows at the default size) and reports its wall time for the call alone
and its peak resident memory (ru_maxrss, the whole child). The machine may be shared: quote medians.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

CHILD = r"""
import json, resource, sys, time
import numpy as np, pyarrow as pa
import rankmeter
S, C, Q, B, level = {systems}, {collections}, {queries}, {resamples}, {level!r}
rng = np.random.default_rng(0)
skill = np.linspace(0, 0.1, S)
n = S * C * Q
system = np.tile(np.repeat(np.arange(S), Q), C)
collection = np.repeat(np.arange(C), S * Q)
query = np.tile(np.arange(Q), S * C)
hardness = rng.normal(0.4, 0.15, (C, Q))
columns = []
for m in ("nDCG@10", "AP"):
    value = np.clip(hardness[collection, query] + skill[system] + rng.normal(0, 0.1, n), 0, 1)
    columns.append(pa.table({{"system": pa.array([f"s{{i:03d}}" for i in range(S)]).take(system),
                             "collection": pa.array([f"c{{i:02d}}" for i in range(C)]).take(collection),
                             "query": pa.array([f"q{{i}}" for i in range(Q)]).take(query),
                             "measure": pa.array([m] * n), "value": value}}))
table = pa.concat_tables(columns)
t = time.perf_counter()
board = rankmeter.leaderboard(table, resamples=B, level=level)
wall = time.perf_counter() - t
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({{"wall": wall, "rss_mib": rss, "rows": table.num_rows, "top": board.rows[0]["system"]}}))
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--systems", type=int, default=100)
    ap.add_argument("--collections", type=int, default=20)
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--resamples", type=int, default=10000)
    ap.add_argument("--level", default="queries")
    ap.add_argument("--threads", type=int, default=2, help="BLAS threads (OPENBLAS_NUM_THREADS)")
    a = ap.parse_args()
    code = CHILD.format(systems=a.systems, collections=a.collections, queries=a.queries, resamples=a.resamples,
                        level=a.level)
    env = {**os.environ, "OPENBLAS_NUM_THREADS": str(a.threads), "OMP_NUM_THREADS": str(a.threads)}
    runs = []
    for _ in range(a.repeat):
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    walls, rss = [r["wall"] for r in runs], [r["rss_mib"] for r in runs]
    print(f"leaderboard: {a.systems} systems x {a.collections} collections x {a.queries} queries, 2 measures "
          f"({runs[0]['rows']:,} rows), {a.resamples:,} resamples of {a.level}, {a.threads} BLAS threads")
    print(f"  wall of the call: median {statistics.median(walls):.2f} s (min {min(walls):.2f}, max "
          f"{max(walls):.2f}) over {a.repeat} runs")
    print(f"  peak resident memory of the process: median {statistics.median(rss):.0f} MiB (max {max(rss):.0f})")


if __name__ == "__main__":
    main()
