"""One machine, big data: a 100-million-line run scored in chunks; time and peak memory.

usage: python bench/bench_big.py [--queries 1000000] [--depth 100] [--chunk-mb 8] [--check] [--trec-eval PATH]

Writes (once; reused while the sizes match) a TREC run of QUERIES x DEPTH
lines and its qrels under bench/data/big/ (git-ignored), streamed in blocks
of 10,000 queries so generation needs little memory. The run is grouped by
query and sorted by score within each query, as a retrieval system writes
it; scores have 3 decimals, so ties occur. About 10 judgments per query,
grades 0-3, mostly on the run's top ranks.

Then scores it with ``rankmeter.evaluate(..., executor="streamed")`` in a child
process and prints the time and the child's peak resident memory
(``ru_maxrss``). ``--whole`` does the same with :func:`rankmeter.evaluate`
on the whole file for comparison (and checks that the means are the same
to the last bit); ``--check`` scores the first 200,000 lines both ways and
checks that every per-query value is identical. ``--trec-eval PATH`` also
runs trec_eval 10.0 (C) on the same files with the same five measures, as a
whole process beside rankmeter's whole process, and checks the means agree
to trec_eval's four printed decimals (it is stopped after ``--timeout`` seconds:
trec_eval 10.0 finds each query's results by a linear scan over the run's
queries, so its time grows with the square of the number of queries; run
smaller ``--queries`` to see the curve). ``--peers`` does the same with
pytrec_eval, ir_measures and ranx (their means must agree to 1e-9, except
ranx's, which orders tied scores its own way).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from child import run_child

DATA = Path(__file__).resolve().parent / "data" / "big"
MEASURES = ["AP", "nDCG@10", "P@10", "R@100", "RR"]
#: the same measures as trec_eval -m arguments and the labels it prints
TREC_EVAL = {"AP": ("map", "map"), "nDCG@10": ("ndcg_cut.10", "ndcg_cut_10"), "P@10": ("P.10", "P_10"),
             "R@100": ("recall.100", "recall_100"), "RR": ("recip_rank", "recip_rank")}
BLOCK = 10_000


def _ids(prefix: str, numbers: np.ndarray) -> pa.Array:
    return pc.binary_join_element_wise(prefix, pa.array(numbers).cast(pa.string()), "")


def generate(run_path: Path, qrels_path: Path, n_queries: int, depth: int, seed: int = 1) -> None:
    """Write the run and qrels block by block (peak memory: one block)."""
    rng = np.random.default_rng(seed)
    opts = pacsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none")
    n_docs = 50_000_000
    with pacsv.CSVWriter(str(run_path) + ".part", pa.schema([(c, pa.string()) for c in
                         ("q", "q0", "d", "rank", "score", "tag")]), write_options=opts) as run_out, \
            pacsv.CSVWriter(str(qrels_path) + ".part", pa.schema([(c, pa.string()) for c in
                            ("q", "it", "d", "rel")]), write_options=opts) as qrels_out:
        for first in range(0, n_queries, BLOCK):
            nq = min(BLOCK, n_queries - first)
            qnum = np.arange(first, first + nq) + 1_000_000
            # distinct docs per query: a random start plus positive gaps
            docs = rng.integers(0, n_docs // 2, size=(nq, 1)) + np.cumsum(
                rng.integers(1, n_docs // (2 * depth), size=(nq, depth)), axis=1)
            scores = -np.sort(-np.round(rng.normal(10, 3, size=(nq, depth)), 3), axis=1)
            q = _ids("q", np.repeat(qnum, depth))
            n = nq * depth
            run_out.write_table(pa.table({
                "q": q, "q0": pa.array(np.full(n, "Q0")), "d": _ids("D", docs.ravel()),
                "rank": pa.array(np.tile(np.arange(1, depth + 1), nq)).cast(pa.string()),
                "score": pa.array(scores.ravel()).cast(pa.string()), "tag": pa.array(np.full(n, "big"))}))
            # judgments: ~8 docs from the top of the ranking (biased), ~2 never retrieved
            k_in, k_out = 8, 2
            pos = np.minimum(rng.exponential(depth / 5, size=(nq, k_in)).astype(int), depth - 1)
            judged_in = np.take_along_axis(docs, pos, axis=1)
            judged_out = docs[:, -1:] + 1 + np.arange(k_out)[None, :]
            judged = np.concatenate([judged_in, judged_out], axis=1)
            judged.sort(axis=1)
            keep = np.ones_like(judged, dtype=bool)
            keep[:, 1:] = judged[:, 1:] != judged[:, :-1]
            qj = np.repeat(qnum, judged.shape[1]).reshape(judged.shape)[keep]
            m = int(keep.sum())
            qrels_out.write_table(pa.table({
                "q": _ids("q", qj), "it": pa.array(np.full(m, "0")), "d": _ids("D", judged[keep]),
                "rel": pa.array(rng.choice(4, size=m, p=[0.5, 0.25, 0.15, 0.1])).cast(pa.string())}))
            print(f"\rgenerating: {first + nq:,} / {n_queries:,} queries", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    os.replace(str(run_path) + ".part", run_path)
    os.replace(str(qrels_path) + ".part", qrels_path)


CHILD = """
import json, resource, sys, time, warnings
warnings.simplefilter("ignore")
import rankmeter
from rankmeter import evaluate
qrels, run, chunk, mode = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
t = time.perf_counter()
if mode == "chunked":
    r = evaluate(qrels, run, {measures!r}, executor="streamed", chunk_bytes=chunk)
else:
    r = rankmeter.evaluate(qrels, run, {measures!r})
elapsed = time.perf_counter() - t
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 ** 2  # KiB -> GiB
print(json.dumps({{"seconds": elapsed, "peak": peak, "queries": len(r.queries), "mean": r.mean}}))
"""


def _child(mode: str, qrels_path: Path, run_path: Path, chunk: int) -> dict | None:
    import json
    child = run_child([sys.executable, "-c", CHILD.format(measures=MEASURES), str(qrels_path), str(run_path),
                       str(chunk), mode])
    if child.status:
        print(child.stderr, file=sys.stderr)
        return None
    result = json.loads(child.stdout.strip().splitlines()[-1])
    result["process"] = child.wall  # start-up and imports included, as trec_eval's figure is
    return result


def _trec_eval(binary: str, qrels_path: Path, run_path: Path, ours: dict, timeout: float) -> None:
    argv = [binary] + [a for name in MEASURES for a in ("-m", TREC_EVAL[name][0])] + [str(qrels_path), str(run_path)]
    child = run_child(argv, timeout=timeout)
    status, wall, peak, out, err = child.status, child.wall, child.peak_mib / 1024, child.stdout, child.stderr
    if status is None:
        # trec_eval.c (10.0) looks up each judged query's results by a linear scan over the run's queries
        # (the loop after "Find results for this query"): quadratic in the number of queries
        print(f"trec_eval 10.0 (C), same files and measures: stopped after {timeout:.0f} s "
              f"(peak RSS {peak:.2f} GiB); rankmeter's whole process {ours['process']:.1f} s")
        return
    if status:
        print(f"trec_eval failed ({status}): {err.strip()[:300]}")
        return
    printed = {}
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[1] == "all" and fields[0] != "runid":
            printed[fields[0]] = float(fields[2])
    agree = all(abs(printed[TREC_EVAL[name][1]] - ours["mean"][name]) <= 5e-5 for name in MEASURES)
    print(f"trec_eval 10.0 (C), same files and measures: {wall:.1f} s, peak RSS {peak:.2f} GiB; "
          f"rankmeter's whole process {ours['process']:.1f} s, ratio {ours['process'] / wall:.2f}; "
          f"means agree to 4 decimals: {agree}")


#: the same five measures in each peer's own names: pytrec_eval (as trec_eval), ir_measures, ranx
PEERS = {
    "pytrec_eval": """
import json, sys, pytrec_eval
names = {names_te!r}
with open(sys.argv[1]) as f:
    qrels = pytrec_eval.parse_qrel(f)
with open(sys.argv[2]) as f:
    run = pytrec_eval.parse_run(f)
per_query = pytrec_eval.RelevanceEvaluator(qrels, {{arg for arg, _ in names.values()}}).evaluate(run)
print(json.dumps({{ours: pytrec_eval.compute_aggregated_measure(label, [v[label] for v in per_query.values()])
                  for ours, (_, label) in names.items()}}))
""",
    "ir_measures": """
import json, sys, ir_measures
measures = {{ir_measures.parse_measure(name): name for name in {names!r}}}
means = ir_measures.calc_aggregate(list(measures), ir_measures.read_trec_qrels(sys.argv[1]),
                                   ir_measures.read_trec_run(sys.argv[2]))
print(json.dumps({{name: float(means[m]) for m, name in measures.items()}}))
""",
    "ranx": """
import json, sys
from ranx import Qrels, Run, evaluate
names = {{"AP": "map", "nDCG@10": "ndcg@10", "P@10": "precision@10", "R@100": "recall@100", "RR": "mrr"}}
means = evaluate(Qrels.from_file(sys.argv[1], kind="trec"), Run.from_file(sys.argv[2], kind="trec"), list(names.values()))
print(json.dumps({{ours: float(means[theirs]) for ours, theirs in names.items()}}))
""",
}


def _peers(qrels_path: Path, run_path: Path, ours: dict, timeout: float) -> None:
    """pytrec_eval, ir_measures and ranx on the same files, each a whole process beside rankmeter's."""
    import importlib.util
    import json
    for tool, code in PEERS.items():
        if importlib.util.find_spec(tool) is None:
            print(f"{tool}: not installed, skipped")
            continue
        code = code.format(names_te={m: (TREC_EVAL[m][0], TREC_EVAL[m][1]) for m in MEASURES}, names=MEASURES)
        child = run_child([sys.executable, "-c", code, str(qrels_path), str(run_path)], timeout=timeout)
        status, wall, peak, out, err = child.status, child.wall, child.peak_mib / 1024, child.stdout, child.stderr
        if status is None:
            print(f"{tool}: stopped after {timeout:.0f} s (peak RSS {peak:.2f} GiB)")
            continue
        if status:
            print(f"{tool}: failed ({status}): {err.strip().splitlines()[-1][:200] if err.strip() else ''}")
            continue
        means = json.loads(out.strip().splitlines()[-1])
        # ranx breaks score ties its own way, so it is compared, not required to agree
        agree = all(abs(means[m] - ours["mean"][m]) <= 1e-9 for m in MEASURES)
        print(f"{tool}: {wall:.1f} s, peak RSS {peak:.2f} GiB; rankmeter's whole process {ours['process']:.1f} s, "
              f"ratio {ours['process'] / wall:.2f}; means agree to 1e-9: {agree}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--queries", type=int, default=1_000_000)
    p.add_argument("--depth", type=int, default=100)
    p.add_argument("--chunk-mb", type=int, default=8)
    p.add_argument("--check", action="store_true", help="also compare whole and chunked on a 200k-line prefix")
    p.add_argument("--whole", action="store_true", help="also score the whole file with rankmeter.evaluate "
                   "(the file in memory, scored in pieces) for comparison")
    p.add_argument("--trec-eval", metavar="PATH", help="also run this trec_eval 10.0 binary on the same files")
    p.add_argument("--peers", action="store_true", help="also run pytrec_eval, ir_measures and ranx on the same "
                   "files (memory: pytrec_eval needs ~1.2 GB per 7M lines)")
    p.add_argument("--timeout", type=float, default=900, help="seconds trec_eval or a peer may take (default 900)")
    args = p.parse_args(argv)
    from bytecode import compile_rankmeter
    compile_rankmeter()  # as an installed copy has it (bench/bytecode.py)

    DATA.mkdir(parents=True, exist_ok=True)
    run_path = DATA / f"run_{args.queries}x{args.depth}.txt"
    qrels_path = DATA / f"qrels_{args.queries}.txt"
    if not run_path.exists() or not qrels_path.exists():
        t = time.perf_counter()
        generate(run_path, qrels_path, args.queries, args.depth)
        print(f"generated in {time.perf_counter() - t:.0f} s")
    size = run_path.stat().st_size
    print(f"run: {run_path.name}, {args.queries * args.depth:,} lines, {size / 1e9:.2f} GB; "
          f"qrels: {qrels_path.stat().st_size / 1e6:.0f} MB")

    result = _child("chunked", qrels_path, run_path, args.chunk_mb << 20)
    if result is None:
        return 1
    print(f"chunked ({args.chunk_mb} MiB chunks): {result['seconds']:.1f} s after imports, "
          f"{result['process']:.1f} s whole process, peak RSS {result['peak']:.2f} GiB, {result['queries']:,} queries")
    print("  means: " + ", ".join(f"{k}={v!r}" for k, v in result["mean"].items()))
    if args.trec_eval:
        _trec_eval(args.trec_eval, qrels_path, run_path, result, args.timeout)
    if args.peers:
        _peers(qrels_path, run_path, result, args.timeout)
    if args.whole:
        whole = _child("whole", qrels_path, run_path, 0)
        if whole is None:
            return 1
        print(f"whole file (rankmeter.evaluate): {whole['seconds']:.1f} s, peak RSS {whole['peak']:.2f} GiB; "
              f"means identical: {whole['mean'] == result['mean']}")

    if args.check:
        import warnings
        import rankmeter
        from rankmeter import evaluate
        prefix = DATA / "prefix.txt"
        with open(run_path, "rb") as src, open(prefix, "wb") as dst:
            for _, line in zip(range(200_000), src):
                dst.write(line)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            qrels = rankmeter.read_qrels(qrels_path)
            whole = rankmeter.evaluate(qrels, prefix, MEASURES)
            chunked = evaluate(qrels, prefix, MEASURES, executor="streamed", chunk_bytes=1 << 20)
        same = whole.queries == chunked.queries and all(
            whole.values(m).tolist() == chunked.values(m).tolist() and whole[m] == chunked[m] for m in MEASURES)
        print(f"check on the first 200,000 lines: whole and chunked identical: {same}")
        prefix.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
