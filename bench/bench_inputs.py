"""Read the same synthetic run in every input format; print medians and the ratio to plain TREC.

usage: python bench/bench_inputs.py DIR   (DIR from make_synthetic.py: DIR/qrels.txt, DIR/run.txt)

Writes DIR/formats/ once (gzip, bz2, xz, zstd, 3 columns, TSV with header,
CSV, Parquet, JSON Lines) and times rankmeter.read_run on each.
"""
from __future__ import annotations

import bz2
import gzip
import lzma
import os
import statistics
import sys
import time

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from rankmeter.io import read_run


def _write_formats(base: str) -> dict[str, str]:
    out = os.path.join(base, "formats")
    os.makedirs(out, exist_ok=True)
    text = open(os.path.join(base, "run.txt"), "rb").read()
    run = read_run(os.path.join(base, "run.txt"), format="trec").table
    table = pa.table({"qid": run.column("query").cast(pa.string()), "docno": run.column("doc").cast(pa.string()),
                      "score": run.column("score")})
    paths = {"trec": os.path.join(base, "run.txt")}
    makers = {
        "trec.gz": lambda p: open(p, "wb").write(gzip.compress(text, 6)),
        "trec.bz2": lambda p: open(p, "wb").write(bz2.compress(text)),
        "trec.xz": lambda p: open(p, "wb").write(lzma.compress(text, preset=1)),
        "trec.zst": lambda p: pa.output_stream(p, compression="zstd").write(text),
        "3col.txt": lambda p: pacsv.write_csv(table, p, pacsv.WriteOptions(include_header=False, delimiter=" ",
                                                                           quoting_style="none")),
        "header.tsv": lambda p: pacsv.write_csv(table, p, pacsv.WriteOptions(delimiter="\t", quoting_style="none")),
        "run.csv": lambda p: pacsv.write_csv(table, p),
        "run.parquet": lambda p: pq.write_table(table, p),
        "run.jsonl": lambda p: open(p, "wb").write(b"".join(
            b'{"qid": "%s", "docno": "%s", "score": %r}\n' % (q, d, s) for q, d, s in zip(
                run.column("query").to_pylist(), run.column("doc").to_pylist(), run.column("score").to_pylist()))),
    }
    for name, make in makers.items():
        path = os.path.join(out, name)
        if not os.path.exists(path):
            make(path)
        paths[name] = path
    return paths


def main() -> None:
    base = sys.argv[1]
    paths = _write_formats(base)
    times = {}
    for name, path in paths.items():
        samples = []
        for _ in range(5):
            t = time.perf_counter()
            read_run(path)
            samples.append(time.perf_counter() - t)
        times[name] = statistics.median(samples)
        print(f"{name:12s} {os.path.getsize(path) / 1e6:8.1f} MB  median {times[name]:.3f} s  "
              f"x{times[name] / times['trec']:.2f} of plain TREC", flush=True)


if __name__ == "__main__":
    main()
