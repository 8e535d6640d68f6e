"""``rankmeter report`` on 3 runs x 1000 queries x 3 measures: wall time, peak memory, file size.

usage: python bench/bench_report.py [--repeat 5] [--queries 1000] [--depth 100]

Makes (once, under bench/data/report/, seeded) a qrels with about 20 judgments
per query graded 0-2 and three runs of ``depth`` docs per query, then runs
``rankmeter report QRELS RUN1 RUN2 RUN3 -m AP -m nDCG@10 -m P@10 -o out.html``
as a whole process ``--repeat`` times and prints the median and best wall
time, the peak resident memory (``os.wait4``) and the size of the page, then
where its bytes go: each section, the JSON block, the stylesheet and script.
"""
from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
from pathlib import Path

import numpy as np

from child import run_child

DATA = Path(__file__).resolve().parent / "data" / "report"


def make(queries: int, depth: int, seed: int = 5) -> tuple[Path, list[Path]]:
    DATA.mkdir(parents=True, exist_ok=True)
    qrels = DATA / f"qrels_{queries}.txt"
    runs = [DATA / f"run{i}_{queries}x{depth}.txt" for i in range(3)]
    if qrels.exists() and all(r.exists() for r in runs):
        return qrels, runs
    rng = np.random.default_rng(seed)
    pool = 3 * depth
    judged = {q: rng.choice(pool, 20, replace=False) for q in range(queries)}
    with open(qrels, "w") as out:
        for q, docs in judged.items():
            out.writelines(f"q{q} 0 d{d} {int(rng.choice(3, p=[0.5, 0.3, 0.2]))}\n" for d in docs)
    for i, path in enumerate(runs):
        with open(path, "w") as out:
            for q in range(queries):
                docs = rng.choice(pool, depth, replace=False)
                scores = np.sort(rng.random(depth))[::-1]
                out.writelines(f"q{q} Q0 d{d} {k + 1} {s:.5f} sys{i}\n" for k, (d, s) in enumerate(zip(docs, scores)))
    return qrels, runs


def page_parts(page: str) -> dict[str, int]:
    """Bytes of each part of a report: the head (stylesheet), every <section>, the JSON block, the script."""
    parts = {"head (stylesheet)": page[:page.index("</head>")]}
    sections = re.finditer(r'<section id="sec-([a-z-]+)">.*?</section>', page, re.S)
    parts.update((m.group(1), m.group(0)) for m in sections)
    parts["JSON block"] = re.search(r'<script type="application/json".*?</script>', page, re.S).group(0)
    parts["script"] = re.search(r"<script>.*?</script>", page, re.S).group(0)
    sizes = {name: len(text.encode()) for name, text in parts.items()}
    sizes["rest (header, footer)"] = len(page.encode()) - sum(sizes.values())
    return sizes


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--queries", type=int, default=1000)
    p.add_argument("--depth", type=int, default=100)
    args = p.parse_args(argv)
    from bytecode import compile_rankmeter
    compile_rankmeter()  # as an installed copy has it (bench/bytecode.py)
    qrels, runs = make(args.queries, args.depth)
    walls, peaks, size, parts = [], [], 0, {}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "report.html"
        argv = [sys.executable, "-m", "rankmeter", "report", str(qrels), *map(str, runs),
                "-m", "AP", "-m", "nDCG@10", "-m", "P@10", "-o", str(out)]
        for i in range(args.repeat):
            child = run_child(argv)
            if child.status:
                print(child.stderr, file=sys.stderr)
                return 1
            walls.append(child.wall)
            peaks.append(child.peak_mib)
            size = out.stat().st_size
            parts = page_parts(out.read_text(encoding="utf-8"))
            print(f"run {i + 1}/{args.repeat}: {walls[-1]:.2f} s, {peaks[-1]:.0f} MiB", flush=True)
    print(f"\nrankmeter report, 3 runs x {args.queries} queries x 3 measures: median {statistics.median(walls):.2f} s, "
          f"best {min(walls):.2f} s, peak {max(peaks):.0f} MiB, page {size / 1e6:.2f} MB")
    print("page: " + ", ".join(f"{name} {n / 1e3:.0f} kB" for name, n in parts.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
