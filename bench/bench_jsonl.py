"""Reading a 1M-line JSON Lines run: this tree against another checkout, whole processes, medians.

usage: python bench/bench_jsonl.py --against /path/to/other/checkout [--lines 1000000] [--repeat 3] [--data DIR]

Two files: ``clean.jsonl`` (well-typed: Arrow's reader takes it) and ``mixed.jsonl`` (a query id that is a
number on some lines and a string on others: read line by line). Each is read by ``rankmeter.io.read_run`` in
a fresh process with each tree first on PYTHONPATH, alternately, ``--repeat`` times; the table gives the
median CPU seconds of the read alone (timed inside the child: steadier than wall time on a shared machine) and the ratio this / other.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
CHILD = ("import sys, time; from rankmeter.io import read_run; c = time.process_time(); r = read_run(sys.argv[1]); "
         "print(time.process_time() - c, len(r))")


def _make(folder: Path, lines: int) -> dict[str, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    files = {"clean": folder / f"clean-{lines}.jsonl", "mixed": folder / f"mixed-{lines}.jsonl"}
    per_query = 1000
    for kind, path in files.items():
        if path.exists():
            continue
        with open(path, "w") as fh:
            for i in range(lines):
                q, rank = divmod(i, per_query)
                qid = q if kind == "mixed" and q % 2 else f"q{q}"
                fh.write(f'{{"query_id": {qid!r}, "doc_id": "d{(q * 7919 + rank) % 8_000_000}", '
                         f'"score": {per_query - rank + 0.5}}}\n'.replace("'", '"'))
    return files


def _time(tree: str, path: Path) -> tuple[float, str]:
    env = dict(os.environ, PYTHONPATH=tree)
    out = subprocess.run([sys.executable, "-c", CHILD, str(path)], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    return float(out[0]), out[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", required=True)
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data", default="/tmp/rankmeter-bench-jsonl")
    args = parser.parse_args()
    this = str(HERE.parent)
    files = _make(Path(args.data), args.lines)
    print(f"{'file':8} {'this (cpu s)':>13} {'other (cpu s)':>14} {'ratio':>6}  rows")
    for kind, path in files.items():
        mine, theirs = [], []
        for _ in range(args.repeat):
            seconds, rows = _time(this, path)
            mine.append(seconds)
            seconds, other_rows = _time(args.against, path)
            theirs.append(seconds)
            if rows != other_rows:
                print(f"{kind}: the trees read {rows} and {other_rows} rows", file=sys.stderr)
                return 1
        a, b = statistics.median(mine), statistics.median(theirs)
        print(f"{kind:8} {a:13.3f} {b:14.3f} {a / b:6.2f}  {rows}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
