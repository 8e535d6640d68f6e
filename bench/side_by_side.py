"""Two checkouts of rankmeter timed on the same commands, alternately: medians and ratios side by side.

usage: python bench/side_by_side.py BEFORE AFTER [--repeat N] [--trec-eval PATH] [--only NAME ...]

BEFORE and AFTER are source trees with their extensions built (``setup.py build_ext --inplace``). Each
scenario runs as a whole process with ``PYTHONPATH`` set to one tree, before and after in turn, so both
see the same machine load; the table gives the median wall time, CPU time (user + system of the child)
and peak memory of each, and after/before. The data are the MS MARCO-shaped synthetic files of
``make_synthetic.py`` (beside this script), made once under ``bench/data/side_by_side``.

Both trees are byte-compiled first (``compileall``), as ``pip install`` leaves an installed copy: where
``PYTHONDONTWRITEBYTECODE`` is set, a tree without ``.pyc`` files compiles its ~80 modules from source in
every process (44% of the instructions of the 100k trec_eval process), and a tree that has them beside one
that has not makes a difference no code made. ``--no-compile`` times the trees as they are.
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "side_by_side"
MAKE = HERE / "make_synthetic.py"

#: name -> (queries, depth, judged per query): 100k lines (TREC ad hoc-shaped) and 7M (MS MARCO dev-shaped)
SIZES = {"100k": (100, 1000, 300), "7M": (6980, 1000, 50)}


def data(size: str) -> tuple[Path, Path]:
    folder = DATA / size
    if not (folder / "run.txt").exists():
        nq, depth, judged = SIZES[size]
        subprocess.run([sys.executable, str(MAKE), str(folder), str(nq), str(depth), str(judged)], check=True)
    return folder / "qrels.txt", folder / "run.txt"


def scenarios(trec_eval: str | None) -> dict[str, tuple[list[str], str]]:
    """name -> (command after ``python``, the size of its data); QRELS and RUN stand for the files."""
    out = {
        "100k trec_eval default": (["-m", "rankmeter", "trec_eval", "QRELS", "RUN"], "100k"),
        "100k trec_eval all_trec": (["-m", "rankmeter", "trec_eval", "-m", "all_trec", "QRELS", "RUN"], "100k"),
        "7M eval AP nDCG@10 RR@10 R@1000": (["-m", "rankmeter", "eval", "QRELS", "RUN", "-m", "AP", "-m", "nDCG@10",
                                             "-m", "RR@10", "-m", "R@1000"], "7M"),
        "7M trec_eval all_trec": (["-m", "rankmeter", "trec_eval", "-m", "all_trec", "QRELS", "RUN"], "7M"),
        "7M evaluate() in Python": (["-c", "import sys, rankmeter; r = rankmeter.evaluate(sys.argv[1], sys.argv[2], "
                                     "['AP', 'nDCG@10', 'RR@10', 'R@1000']); print(r.mean)", "QRELS", "RUN"], "7M"),
    }
    return out


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {done.stderr.decode()[-800:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, after.ru_maxrss  # ru_maxrss of children is the largest so far (KiB)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before", type=Path)
    ap.add_argument("after", type=Path)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--trec-eval", metavar="PATH", help="also time C trec_eval 10.0 on the trec_eval scenarios")
    ap.add_argument("--only", nargs="*", help="scenario names (substrings) to run")
    ap.add_argument("--no-compile", action="store_true", help="do not byte-compile the two trees first")
    args = ap.parse_args()
    if not args.no_compile:
        import compileall
        for tree in (args.before, args.after):
            compileall.compile_dir(str(tree.resolve() / "rankmeter"), quiet=1)
    rows = []
    for name, (cmd, size) in scenarios(args.trec_eval).items():
        if args.only and not any(o in name for o in args.only):
            continue
        qrels, run = data(size)
        argv = [sys.executable] + [str(qrels) if c == "QRELS" else str(run) if c == "RUN" else c for c in cmd]
        trees = {"before": args.before.resolve(), "after": args.after.resolve()}
        walls = {k: [] for k in trees}
        cpus = {k: [] for k in trees}
        for _ in range(args.repeat):
            for label, tree in trees.items():
                env = dict(os.environ, PYTHONPATH=str(tree))
                wall, cpu, _ = timed(argv, env)
                walls[label].append(wall)
                cpus[label].append(cpu)
        med = {k: (statistics.median(walls[k]), statistics.median(cpus[k])) for k in trees}
        c_wall = None
        if args.trec_eval and "trec_eval" in name:
            c_argv = [args.trec_eval] + [a for a in argv[4:]]  # drop python -m rankmeter trec_eval
            c_wall = statistics.median(timed(c_argv, dict(os.environ))[0] for _ in range(args.repeat))
        rows.append((name, med, c_wall))
        b, a = med["before"], med["after"]
        line = (f"{name:34} before {b[0]:7.2f} s ({b[1]:6.2f} CPU)  after {a[0]:7.2f} s ({a[1]:6.2f} CPU)  "
                f"after/before {a[0] / b[0]:5.2f} wall {a[1] / b[1]:5.2f} CPU")
        if c_wall is not None:
            line += f"  C trec_eval {c_wall:6.2f} s (after/C {a[0] / c_wall:5.2f})"
        print(line, flush=True)
    print(f"medians of {args.repeat}, alternating before/after; load average now {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
