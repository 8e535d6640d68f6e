"""``rankmeter eval`` with its lint, two checkouts side by side: CPU on many runs, peak memory on a big one.

usage: python bench/bench_eval_lint.py BEFORE AFTER [--repeat 5] [--runs 16] [--trec-eval PATH]
                                        [--big QRELS RUN] [--measures AP nDCG@10 ...] [--flags ...]

BEFORE and AFTER are source trees with their extensions built. Each command runs as a whole process under
``/usr/bin/time`` (wall, user + system CPU, peak resident memory of that process), before and after in
turn so that both see the same load; medians and after/before ratios are printed, with ``--no-lint`` beside
(what the lint costs) and a shell loop of C trec_eval over the same runs when ``--trec-eval`` is given.

* ``rankmeter eval QRELS RUN1..RUNn`` on bench_small's TREC ad hoc-shaped runs (100 topics x 1000 docs,
  2000 judgments per topic; made once under bench/data/);
* ``--big QRELS RUN``: ``rankmeter eval`` of a big run (bench_big.py's 100M-line file, or a smaller one
  made the same way; a file of a gigabyte or more is streamed by itself).
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def timed(argv: list[str], tree: Path | None) -> tuple[float, float, float]:
    """(wall s, CPU s, peak MiB) of one process, from /usr/bin/time."""
    env = dict(os.environ, PYTHONPATH=str(tree)) if tree else dict(os.environ)
    with tempfile.NamedTemporaryFile("r") as report:
        done = subprocess.run(["/usr/bin/time", "-o", report.name, "-f", "%e %U %S %M"] + argv, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(argv)} failed: {done.stderr.decode()[-800:]}")
        wall, user, system, kib = report.read().split()[-4:]
    return float(wall), float(user) + float(system), int(kib) / 1024


def compare(label: str, argv: list[str], trees: dict[str, Path], repeat: int, extra: dict | None = None) -> None:
    """Each variant ``repeat`` times, interleaved; medians and ratios to the first."""
    variants = {name: (argv, tree) for name, tree in trees.items()}
    variants.update(extra or {})
    got = {name: [] for name in variants}
    for _ in range(repeat):
        for name, (cmd, tree) in variants.items():
            got[name].append(timed(cmd, tree))
    first = next(iter(variants))
    print(f"{label}:")
    for name, values in got.items():
        wall, cpu, peak = (statistics.median(v[i] for v in values) for i in range(3))
        ratio = [statistics.median(v[i] / b[i] for v, b in zip(values, got[first])) for i in range(3)]
        low, high = min(v[2] for v in values), max(v[2] for v in values)
        print(f"  {name:28} wall {wall:7.2f} s  CPU {cpu:7.2f} s  peak {peak:7.0f} MiB ({low:.0f}-{high:.0f})   "
              f"/{first}: wall {ratio[0]:.2f} CPU {ratio[1]:.2f} peak {ratio[2]:.2f}", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before", type=Path)
    ap.add_argument("after", type=Path)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--runs", type=int, default=16)
    ap.add_argument("--trec-eval", metavar="PATH")
    ap.add_argument("--big", nargs=2, type=Path, metavar=("QRELS", "RUN"))
    ap.add_argument("--measures", nargs="*", default=["AP", "P@10", "nDCG@10", "R@1000", "RR"])
    ap.add_argument("--flags", nargs="*", default=[], help="more eval flags for --big (e.g. --executor streamed)")
    args = ap.parse_args()
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    measures = [a for m in args.measures for a in ("-m", m)]
    eval_cmd = [sys.executable, "-m", "rankmeter", "eval"]
    if args.runs:
        sys.path.insert(0, str(HERE))
        from bench_small import DATA, make_adhoc
        qrels, runs = make_adhoc(DATA, runs=args.runs)
        argv = eval_cmd + [str(qrels), *map(str, runs), *measures]
        extra = {f"{k} --no-lint": (argv + ["--no-lint"], tree) for k, tree in trees.items()}
        if args.trec_eval:
            names = {"AP": "map", "P@10": "P.10", "nDCG@10": "ndcg_cut.10", "R@1000": "recall.1000", "RR": "recip_rank"}
            te = " ".join(f"-m {names[m]}" for m in args.measures if m in names)
            loop = " ".join(f"{args.trec_eval} {te} {qrels} {r} >/dev/null;" for r in runs)
            extra["C trec_eval loop"] = (["bash", "-c", loop], None)
        compare(f"{len(runs)} runs, one qrels, eval {' '.join(args.measures)}", argv, trees, args.repeat, extra)
    if args.big:
        argv = eval_cmd + [str(args.big[0]), str(args.big[1]), *measures, *args.flags]
        extra = {f"{k} --no-lint": (argv + ["--no-lint"], tree) for k, tree in trees.items()}
        compare(f"eval of {args.big[1]} ({args.big[1].stat().st_size >> 20} MiB)", argv, trees, args.repeat, extra)
    print(f"medians of {args.repeat}, interleaved; load average now {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
