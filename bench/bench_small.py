"""Small TREC-style runs, side by side with trec_eval 10.0 (C): start-up, default measures, all_trec, many runs.

usage: python bench/bench_small.py --trec-eval /path/to/trec_eval [--repeat 5] [--runs 20]

Makes a TREC ad hoc shaped case (100 topics x 1000 docs, 2000 judgments per topic; ``make_adhoc``)
under bench/data/, then times whole processes, alternating the two tools so load hits both alike:

* ``import rankmeter`` and ``rankmeter --help`` (start-up);
* ``rankmeter trec_eval QRELS RUN`` vs ``trec_eval QRELS RUN`` (default measures) and with ``-m all_trec``;
* the five measures of bench_trec_eval.py (map, P.10, ndcg_cut.10, recip_rank, recall.1000) on one run,
  rankmeter beside trec_eval and beside pytrec_eval, ir_measures and ranx (each its own process, through
  bench_trec_eval.py's workers; peers that are not installed are skipped);
* ``rankmeter eval QRELS RUN1 .. RUNn -m map ...`` (the qrels prepared once) vs a loop of trec_eval
  over the same n runs, and the cost of the 2nd..nth run against the first inside one process.

Prints medians, the ratio per pair and peak RSS (getrusage of the children).
"""
from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from child import run_child

DATA = Path(__file__).resolve().parent / "data"


def make_adhoc(folder: Path, *, topics: int = 100, depth: int = 1000, judged: int = 2000, runs: int = 20,
               seed: int = 7) -> tuple[Path, list[Path]]:
    folder.mkdir(parents=True, exist_ok=True)
    qrels = folder / "adhoc.qrels"
    paths = [folder / f"adhoc{i:02d}.run" for i in range(runs)]
    if qrels.exists() and all(p.exists() for p in paths):
        return qrels, paths
    rng = np.random.default_rng(seed)
    pool = 5 * judged // 2
    with open(qrels, "w") as q:
        for t in range(topics):
            for j in rng.choice(pool, judged, replace=False):
                q.write(f"{301 + t} 0 FBIS{t}-{j:05d} {int(rng.random() < 0.1) + int(rng.random() < 0.03)}\n")
    for i, path in enumerate(paths):
        with open(path, "w") as r:
            for t in range(topics):
                docs = rng.choice(pool, depth, replace=False)
                scores = np.sort(rng.random(depth) * 20)[::-1]
                r.writelines(f"{301 + t} Q0 FBIS{t}-{d:05d} {k + 1} {s:.4f} run{i}\n"
                             for k, (d, s) in enumerate(zip(docs, scores)))
    return qrels, paths


def side_by_side(label: str, ours: list[str], theirs: list[str] | None, repeat: int, *,
                 peer: str = "trec_eval") -> None:
    pairs = []
    for _ in range(repeat):
        a = _timed(ours)
        b = _timed(theirs) if theirs else None
        pairs.append((a, b))
    ours_s = statistics.median(p[0][0] for p in pairs)
    line = f"{label:<44} rankmeter {ours_s:6.3f} s, {max(p[0][1] for p in pairs):4.0f} MiB"
    if theirs:
        theirs_s = statistics.median(p[1][0] for p in pairs)
        ratio = statistics.median(p[0][0] / p[1][0] for p in pairs)
        peak = max(p[1][1] for p in pairs)
        line += f"   {peer} {theirs_s:6.3f} s, {peak:4.0f} MiB   ratio {ratio:5.2f}"
    print(line, flush=True)


def _timed(argv: list[str]) -> tuple[float, float]:
    """Wall seconds and the peak RSS (MiB) of this one child process."""
    child = run_child(argv)
    if child.status:
        raise SystemExit(f"failed ({child.status}): {' '.join(argv)}")
    return child.wall, child.peak_mib


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trec-eval", help="the trec_eval 10.0 binary (built by shared/anchors/build_trec_eval.sh)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--runs", type=int, default=20)
    args = ap.parse_args()
    from bytecode import compile_rankmeter
    compile_rankmeter()  # as an installed copy has it (bench/bytecode.py)
    qrels, runs = make_adhoc(DATA, runs=args.runs)
    rankmeter = [sys.executable, "-c", "import _rankmeter_cli; _rankmeter_cli.main()"]
    te = args.trec_eval
    side_by_side("python start-up alone (floor)", [sys.executable, "-c", "pass"], None, args.repeat)
    side_by_side("numpy + pyarrow imports (the core's floor)",
                 [sys.executable, "-c", "import numpy, pyarrow, pyarrow.compute, pyarrow.csv"], None, args.repeat)
    side_by_side("import rankmeter", [sys.executable, "-c", "import rankmeter"], None, args.repeat)
    side_by_side("rankmeter --help", rankmeter + ["--help"], None, args.repeat)
    side_by_side("100k-line run, default measures", rankmeter + ["trec_eval", str(qrels), str(runs[0])],
                 [te, str(qrels), str(runs[0])] if te else None, args.repeat)
    side_by_side("100k-line run, -m all_trec", rankmeter + ["trec_eval", "-m", "all_trec", str(qrels), str(runs[0])],
                 [te, "-m", "all_trec", str(qrels), str(runs[0])] if te else None, args.repeat)
    measures = ["-m", "map", "-m", "P.10", "-m", "ndcg_cut.10", "-m", "recall.1000", "-m", "recip_rank"]
    five = rankmeter + ["trec_eval", *measures, str(qrels), str(runs[0])]
    if te:
        side_by_side("100k-line run, five measures", five, [te, *measures, str(qrels), str(runs[0])], args.repeat)
    worker = [sys.executable, str(Path(__file__).resolve().parent / "bench_trec_eval.py"), "--worker"]
    for tool in ("pytrec_eval", "ir_measures", "ranx"):
        if importlib.util.find_spec(tool) is None:
            print(f"{tool} is not installed: skipped")
            continue
        side_by_side("100k-line run, five measures", five, worker + [tool, str(qrels), str(runs[0])],
                     args.repeat, peer=tool)
    loop = None
    if te:
        loop = ["bash", "-c", " ".join(f"{te} {' '.join(measures)} {qrels} {r} >/dev/null;" for r in runs)]
    side_by_side(f"{len(runs)} runs, one qrels (eval vs a trec_eval loop)",
                 rankmeter + ["eval", str(qrels), *map(str, runs), *measures], loop, args.repeat)

    # inside one process: the first run pays for preparing the qrels, the others do not
    import rankmeter as rm
    evaluator_start = time.perf_counter()
    evaluator = rm.Evaluator(str(qrels), ["map", "P.10", "ndcg_cut.10", "recip_rank", "recall.1000"])
    prepare = time.perf_counter() - evaluator_start
    costs = []
    for path in runs:
        t0 = time.perf_counter()
        evaluator.evaluate(str(path))
        costs.append(time.perf_counter() - t0)
    first = prepare + costs[0]
    later = statistics.median(costs[1:])
    print(f"{'one Evaluator, first run (incl. qrels)':<44} {first:6.3f} s; later runs median {later:6.3f} s "
          f"(ratio {later / first:4.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
