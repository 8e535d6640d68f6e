"""The TREC reader of this tree against another checkout's, side by side: the same files, whole processes.

usage: python bench/bench_reader.py --against /path/to/other/checkout [--repeat 5] [--data DIR] [--files QRELS RUN]
                                    [--big] [--gzip]

Each case runs as a fresh process with this tree first on PYTHONPATH and with the other checkout (its
extensions built) first, alternately, ``--repeat`` times; the table gives the median wall time, the median
CPU time (user + system: steadier than wall on a shared machine), the peak resident memory and the ratio of
medians this / other. The outputs must be identical (the exit status is 1 when they differ).

Cases: reading the run alone (by default the MS MARCO-shaped run, 6980 queries x 1000 docs, 223 MB, made by
make_synthetic.py under ``--data``; ``--files`` for others), ``rankmeter eval`` of it with five measures,
with ``--gzip`` the same from a gzip copy, and with ``--big`` plain ``rankmeter eval`` of bench_big.py's
100M-line file (streamed by itself: it is over a gigabyte).
"""
from __future__ import annotations

import argparse
import gzip
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

from child import run_child

HERE = Path(__file__).resolve().parent
MEASURES = ["-m", "AP", "-m", "nDCG@10", "-m", "RR", "-m", "R@1000", "-m", "P@10"]
BIG_MEASURES = ["-m", "AP", "-m", "nDCG@10", "-m", "P@10", "-m", "R@100", "-m", "RR"]
READ = "import sys; from rankmeter.io import read_run; r = read_run(sys.argv[1]); print(len(r), r.tag)"


def _data(folder: Path) -> tuple[Path, Path]:
    qrels, run = folder / "qrels.txt", folder / "run.txt"
    if not (qrels.exists() and run.exists()):
        subprocess.run([sys.executable, str(HERE / "make_synthetic.py"), str(folder), "6980", "1000", "30"], check=True)
    return qrels, run


def _measure(label: str, argv: list[str], repeat: int, trees: dict[str, str]) -> dict:
    runs = {name: [] for name in trees}
    for _ in range(repeat):
        for name, tree in trees.items():  # alternately, so both meet the same moments of a shared machine
            env = dict(os.environ, PYTHONPATH=tree)
            child = _with_env(argv, env)
            if child.status != 0:
                raise SystemExit(f"{label} ({name}) failed: {child.stderr[-500:]}")
            runs[name].append(child)
    outputs = {name: {c.stdout for c in children} for name, children in runs.items()}
    same = outputs["this"] == outputs["other"] and len(outputs["other"]) == 1
    row = {"case": label, "same": same}
    for path, children in runs.items():
        row[path] = (statistics.median(c.wall for c in children), statistics.median(c.cpu for c in children),
                     max(c.peak_mib for c in children))
    return row


def _with_env(argv: list[str], env: dict):
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        return run_child(argv)
    finally:
        os.environ.clear()
        os.environ.update(saved)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--against", type=Path, required=True, help="the other checkout (extensions built)")
    p.add_argument("--files", type=Path, nargs=2, metavar=("QRELS", "RUN"), help="other files than --data's")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--data", type=Path, default=HERE / "data")
    p.add_argument("--big", action="store_true", help="also plain eval of bench_big.py's 100M-line file")
    p.add_argument("--gzip", action="store_true", help="also the run read from a gzip copy")
    args = p.parse_args(argv)
    trees = {"this": str(HERE.parent), "other": str(args.against.resolve())}
    qrels, run = args.files or _data(args.data)
    py = sys.executable
    cases = [(f"read the run ({run.stat().st_size >> 20} MB)", [py, "-c", READ, str(run)]),
             ("eval, 5 measures", [py, "-m", "rankmeter", "eval", str(qrels), str(run), *MEASURES])]
    if args.gzip:
        packed = args.data / "run.txt.gz"
        if not packed.exists():
            with open(run, "rb") as src, gzip.open(packed, "wb", compresslevel=1) as out:
                shutil.copyfileobj(src, out, 1 << 24)
        cases += [("read the run from .gz", [py, "-c", READ, str(packed)]),
                  ("eval from .gz, 5 measures", [py, "-m", "rankmeter", "eval", str(qrels), str(packed), *MEASURES])]
    if args.big:
        big = HERE / "data" / "big"
        if not (big / "run.txt").exists():
            raise SystemExit("run bench/bench_big.py once first: it writes the 100M-line files")
        cases.append(("plain eval, 100M lines (streamed by itself)",
                      [py, "-m", "rankmeter", "eval", str(big / "qrels.txt"), str(big / "run.txt"), *BIG_MEASURES]))
    print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; medians of {args.repeat}")
    print("| case | this wall s | other wall s | ratio | this CPU s | other CPU s | ratio | peak MiB this / other | same output |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    ok = True
    for label, command in cases:
        row = _measure(label, command, args.repeat, trees)
        (cw, cc, cm), (pw, pc, pm) = row["this"], row["other"]
        print(f"| {label} | {cw:.2f} | {pw:.2f} | {cw / pw:.2f} | {cc:.2f} | {pc:.2f} | {cc / pc:.2f} | "
              f"{cm:.0f} / {pm:.0f} | {'yes' if row['same'] else 'NO'} |", flush=True)
        ok &= row["same"]
    print(f"load average at end: {os.getloadavg()[0]:.1f}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
