"""Fusing runs: rankmeter.fuse against ranx.fuse, side by side, in this process.

usage: python bench/bench_fusion.py [--runs 5] [--queries 1000] [--depth 1000] [--repeat 3] [--files]

Makes ``--runs`` random runs of ``--queries`` x ``--depth`` (docs drawn from 10 x depth per query,
distinct scores) as dicts, then times each tool from those dicts to the fused run for rrf,
sum with min-max and mnz with min-max. ranx is timed cold (first call: numba compiles, unless its
on-disk cache is warm) and warm; rankmeter's time includes reading the dicts into Arrow.
Prints medians and the ratio rankmeter / ranx (warm).

``--files`` instead writes the runs as TREC files under bench/data/fusion/ and times whole processes
from the files to the fused run file (median of ``--repeat``, peak memory from ``wait4``):
``rankmeter fuse`` against a Python process doing ``ranx.Run.from_file`` and ``ranx.fuse`` (cold: a
fresh process, numba's on-disk cache as it is). A process that fails (ranx runs out of memory at
5 x 7000 x 1000 on a 24 GB machine) is reported with its exit status.
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


def write_files(nruns: int, nq: int, depth: int, folder, seed: int = 0) -> list[str]:
    """The runs as TREC files (made once; numpy formats whole columns, no Python loop per line)."""
    import os
    os.makedirs(folder, exist_ok=True)
    rng = np.random.default_rng(seed)
    paths = []
    for r in range(nruns):
        path = os.path.join(folder, f"run{r}_{nq}x{depth}.txt")
        paths.append(path)
        if os.path.exists(path):
            continue
        docs = np.concatenate([rng.choice(10 * depth, depth, replace=False) for _ in range(nq)])
        q = np.repeat(np.arange(nq), depth)
        rank = np.tile(np.arange(1, depth + 1), nq)
        score = (depth - rank) * 0.001 + 0.0005
        lines = np.char.add(np.char.add(np.char.add(np.char.add(q.astype(str), " Q0 d"), docs.astype(str)),
                                        np.char.add(" ", rank.astype(str))),
                            np.char.add(np.char.add(" ", np.char.mod("%.4f", score)), f" r{r}\n"))
        with open(path + ".tmp", "w") as fh:
            fh.write("".join(lines.tolist()))
        os.replace(path + ".tmp", path)
    return paths


_RANX = """
import sys, warnings, ranx
warnings.simplefilter("ignore")
runs = [ranx.Run.from_file(p, kind="trec") for p in sys.argv[3:]]
ranx.fuse(runs, method=sys.argv[1], norm=None if sys.argv[2] == "none" else sys.argv[2]).save(
    "/tmp/ranx_fused.txt", kind="trec")
"""


def _process(argv, memory_gb: float = 16) -> tuple[float, float, int]:
    """(wall seconds, peak MiB, exit status) of one child process, its address space capped (so a tool
    that runs out of memory fails alone instead of waking the machine's OOM killer)."""
    from child import run_child
    child = run_child(argv, memory_gb=memory_gb)
    return child.wall, child.peak_mib, child.status


def main_files(a) -> int:
    import os
    import sys
    paths = write_files(a.runs, a.queries, a.depth, os.path.join(os.path.dirname(__file__), "data", "fusion"))
    print(f"{a.runs} run files x {a.queries} queries x {a.depth} docs, whole processes")
    for method, norm in [("rrf", "none"), ("sum", "min-max"), ("mnz", "min-max")]:
        ours = [_process(["rankmeter", "fuse", *paths, "--method", method, "--norm", norm, "-o", "/tmp/rm_fused.txt"])
                for _ in range(a.repeat)]
        theirs = [_process([sys.executable, "-c", _RANX, method, norm, *paths]) for _ in range(a.repeat)]
        def show(rows):
            ok = [r for r in rows if r[2] == 0]
            if not ok:
                return f"failed (exit {rows[0][2]}, peak {max(r[1] for r in rows):.0f} MiB)"
            return f"{statistics.median(r[0] for r in ok):6.2f} s, {max(r[1] for r in ok):6.0f} MiB"
        print(f"{method:>5} norm={norm:<8} rankmeter {show(ours)}   ranx {show(theirs)}", flush=True)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--depth", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--files", action="store_true", help="time whole processes from TREC files")
    a = ap.parse_args()
    if a.files:
        return main_files(a)
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
