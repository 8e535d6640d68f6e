"""Time ``rankmeter.leaderboard`` at the size of a real board: 100 systems x 20 collections x 1,000 queries,
two measures, 10,000 resamples (two levels: collections, then queries within each).

usage: python bench/bench_leaderboard.py [--repeat N] [--systems S] [--collections C] [--queries Q]
       [--resamples B] [--level queries|collections] [--scores] [--threads T]

Each repetition runs in a fresh child process (the input table is built there first, as a pyarrow Table
of per-query values, 4 million rows at the default size; with --scores, of the per-collection scores
only, as MTEB and BEIR publish them, 4,000 rows, resampled at one level) and reports its wall time and
its CPU time (user + system, every thread) for the call alone and its peak resident memory (ru_maxrss,
the whole child). The machine may be shared: quote medians, and read the CPU time beside the wall time
(a loaded machine stretches the wall time first). The child imports the rankmeter of the current
directory, so running the script from another checkout times that checkout's code on the same input.
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
S, C, Q, B, level, scores = {systems}, {collections}, {queries}, {resamples}, {level!r}, {scores!r}
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
if scores:  # each system's mean per collection and measure: the published table
    table = table.group_by(["system", "collection", "measure"]).aggregate([("value", "mean")])
    table = table.rename_columns(["system", "collection", "measure", "value"])
    level = "collections"
t, cpu = time.perf_counter(), time.process_time()
board = rankmeter.leaderboard(table, resamples=B, level=level)
wall, cpu = time.perf_counter() - t, time.process_time() - cpu
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({{"wall": wall, "cpu": cpu, "rss_mib": rss, "rows": table.num_rows, "top": board.rows[0]["system"]}}))
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--systems", type=int, default=100)
    ap.add_argument("--collections", type=int, default=20)
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--resamples", type=int, default=10000)
    ap.add_argument("--level", default="queries")
    ap.add_argument("--scores", action="store_true", help="per-collection scores only (one level)")
    ap.add_argument("--threads", type=int, default=2, help="BLAS threads (OPENBLAS_NUM_THREADS)")
    a = ap.parse_args()
    code = CHILD.format(systems=a.systems, collections=a.collections, queries=a.queries, resamples=a.resamples,
                        level=a.level, scores=a.scores)
    env = {**os.environ, "OPENBLAS_NUM_THREADS": str(a.threads), "OMP_NUM_THREADS": str(a.threads)}
    runs = []
    for _ in range(a.repeat):
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    walls, cpus, rss = [r["wall"] for r in runs], [r["cpu"] for r in runs], [r["rss_mib"] for r in runs]
    shape = ("per-collection scores" if a.scores else f"x {a.queries} queries")
    print(f"leaderboard: {a.systems} systems x {a.collections} collections {shape}, 2 measures "
          f"({runs[0]['rows']:,} rows), {a.resamples:,} resamples of {'collections' if a.scores else a.level}, "
          f"{a.threads} BLAS threads")
    print(f"  wall of the call: median {statistics.median(walls):.2f} s (min {min(walls):.2f}, max "
          f"{max(walls):.2f}) over {a.repeat} runs")
    print(f"  CPU of the call (user + system, all threads): median {statistics.median(cpus):.2f} s (min "
          f"{min(cpus):.2f}, max {max(cpus):.2f})")
    print(f"  peak resident memory of the process: median {statistics.median(rss):.0f} MiB (max {max(rss):.0f})")


if __name__ == "__main__":
    main()
