"""Fusing runs: rankmeter.fuse against ranx.fuse, side by side, in this process.

usage: python bench/bench_fusion.py [--runs 5] [--queries 1000] [--depth 1000] [--repeat 3]

Makes ``--runs`` random runs of ``--queries`` x ``--depth`` (docs drawn from 10 x depth per query,
distinct scores) as dicts, then times each tool from those dicts to the fused run for rrf,
sum with min-max and mnz with min-max. ranx is timed cold (first call: numba compiles, unless its
on-disk cache is warm) and warm; rankmeter's time includes reading the dicts into Arrow.
Prints medians and the ratio rankmeter / ranx (warm).
"""
from __future__ import annotations

import argparse
import statistics
import time
import warnings

import numpy as np


def make_runs(nruns: int, nq: int, depth: int, seed: int = 0) -> list[dict]:
    rng = np.random.default_rng(seed)
    runs = []
    for _ in range(nruns):
        run = {}
        for q in range(nq):
            docs = rng.choice(10 * depth, depth, replace=False)
            run[f"q{q}"] = dict(zip((f"d{d}" for d in docs), (rng.permutation(depth) * 0.001).tolist()))
        runs.append(run)
    return runs


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--depth", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    runs = make_runs(a.runs, a.queries, a.depth)
    import ranx

    from rankmeter.fusion import fuse
    from rankmeter.io import as_run
    cases = [("rrf", None, {"k": 60}), ("sum", "min-max", {}), ("mnz", "min-max", {})]
    arrow_runs = [as_run(r) for r in runs]  # what a user holding Run objects (or files) hands in
    print(f"{a.runs} runs x {a.queries} queries x {a.depth} docs")
    for method, norm, params in cases:
        ranx_runs = [ranx.Run(r, name=f"r{i}") for i, r in enumerate(runs)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t0 = time.perf_counter()
            ranx.fuse(ranx_runs, norm=norm, method=method, params=params or None)
            cold = time.perf_counter() - t0
            warm = []
            for _ in range(a.repeat):
                t0 = time.perf_counter()
                ranx.fuse(ranx_runs, norm=norm, method=method, params=params or None)
                warm.append(time.perf_counter() - t0)
        ours = []
        for _ in range(a.repeat):
            t0 = time.perf_counter()
            fuse(arrow_runs, method=method, norm=norm, params=params)
            ours.append(time.perf_counter() - t0)
        w, o = statistics.median(warm), statistics.median(ours)
        print(f"{method:>5} norm={str(norm):<8} rankmeter {o:6.2f} s   ranx warm {w:6.2f} s, cold {cold:6.2f} s   "
              f"ratio {o / w:5.2f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
