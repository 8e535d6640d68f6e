"""The engine's id operations and hash index, one by one: medians of in-process timings.

Times what every evaluation runs on its id columns (:class:`rankmeter.engine.ids.Ids`: hash, take, compare
rows, runs of equal ids, byte order, numbering the distinct ones) and on its (query, doc) keys
(:class:`rankmeter.engine.keys.HashIndex`: build, probe), on synthetic columns shaped like a run's: 2M doc ids
of 8 to 40 bytes, query ids in blocks of 1,000 rows.

``--files QRELS RUN`` adds ``rankmeter.evaluate`` of those files (AP, nDCG@10, RR, R@1000, P@10), in
process, which runs all of them (make a 1M-line pair with ``python bench/make_synthetic.py DIR 1000 1000 30``).

``--compare DIR`` runs the same timings in fresh processes with ``DIR`` first on the path as well, rounds
alternating between the two trees, and prints both medians side by side with their ratio, in wall time and in
CPU time (which the load of a shared machine changes far less); a tree from before ``rankmeter/engine``
existed keeps these modules in ``rankmeter/core``::

    python bench/bench_idops.py --compare /work/wt/before --files DIR/qrels.txt DIR/run.txt
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _modules():
    try:
        from rankmeter.engine.ids import Ids
        from rankmeter.engine.keys import HashIndex, pair_hash
        from rankmeter.engine.groups import local_queries
    except ImportError:  # a tree from before the engine package
        from rankmeter.core.ids import Ids
        from rankmeter.core.keys import HashIndex, pair_hash
        from rankmeter.core.groups import local_queries
    return Ids, HashIndex, pair_hash, local_queries


def timings(rows: int, repeat: int, files: list[str] | None = None) -> dict[str, tuple[list[float], list[float]]]:
    """Wall and CPU seconds of ``repeat`` timings of each operation in this process."""
    import numpy as np

    Ids, HashIndex, pair_hash, local_queries = _modules()
    rng = np.random.default_rng(7)
    lengths = rng.integers(8, 41, rows)
    offsets = np.zeros(rows + 1, np.int64)
    np.cumsum(lengths, out=offsets[1:])
    docs = Ids(offsets.astype(np.int32), rng.integers(97, 123, int(offsets[-1])).astype(np.uint8))
    queries = Ids.from_list([b"q%d" % (i // 1000) for i in range(rows)])
    some = rng.permutation(rows)[: rows // 4].astype(np.int64)
    shuffled = rng.permutation(rows).astype(np.int64)
    doc_hash = docs.hashes()
    qcode = np.repeat(np.arange(rows // 1000 + 1), 1000)[:rows]
    keys = pair_hash(qcode, doc_hash.copy())
    probes = np.concatenate([keys[shuffled], rng.integers(0, 2 ** 64, rows, dtype=np.uint64, endpoint=False)])
    index = HashIndex(keys)
    cases = {
        "id hash (docs)": lambda: docs.hashes(),
        "HashIndex build": lambda: HashIndex(keys),
        "HashIndex lookup (2x rows, half absent)": lambda: index.lookup(probes),
        "Ids.take (all rows, shuffled)": lambda: docs.take(shuffled),
        "Ids.equal_rows (all rows)": lambda: docs.equal_rows(shuffled, docs, shuffled),
        "Ids.starts (query ids)": lambda: queries.starts(),
        "Ids.argsort (a quarter of the docs)": lambda: docs.take(some).argsort(),
        "Ids.encode (docs)": lambda: docs.encode(),
        "local_queries (query ids)": lambda: local_queries(queries),
    }
    if files:
        import rankmeter
        cases["evaluate (the files, 5 measures)"] = lambda: rankmeter.evaluate(
            files[0], files[1], ["AP", "nDCG@10", "RR", "R@1000", "P@10"])
    out = {}
    for name, case in cases.items():
        case()  # warm
        wall, cpu = [], []
        for _ in range(repeat):
            start, start_cpu = time.perf_counter(), time.process_time()
            case()
            wall.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
        out[name] = (wall, cpu)
    return out


def _child(tree: Path, rows: int, repeat: int, files: list[str] | None) -> dict[str, list[list[float]]]:
    env = dict(os.environ, PYTHONPATH=str(tree))
    env.pop("RANKMETER_PURE", None)
    more = ["--files", *files] if files else []
    done = subprocess.run([sys.executable, __file__, "--worker", "--rows", str(rows), "--repeat", str(repeat), *more],
                          env=env, capture_output=True, text=True, check=True, cwd=str(tree))
    return json.loads(done.stdout)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=2_000_000, help="rows per column (default 2M)")
    ap.add_argument("--repeat", type=int, default=5, help="timings per operation and process (default 5)")
    ap.add_argument("--rounds", type=int, default=3, help="processes per tree with --compare (default 3)")
    ap.add_argument("--compare", type=Path, metavar="DIR", help="also time the tree at DIR, side by side")
    ap.add_argument("--files", nargs=2, metavar=("QRELS", "RUN"), help="also time rankmeter.evaluate of these")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    files = [str(Path(f).resolve()) for f in a.files] if a.files else None
    if a.worker:
        print(json.dumps(timings(a.rows, a.repeat, files)))
        return 0
    if not a.compare:
        for name, (wall, cpu) in timings(a.rows, a.repeat, files).items():
            print(f"{name:42s} {statistics.median(wall) * 1e3:9.1f} ms wall {statistics.median(cpu) * 1e3:9.1f} ms CPU")
        return 0
    here = HERE.parent
    runs: dict[str, list[dict[str, list[list[float]]]]] = {"other": [], "this": []}
    trees = {"other": a.compare.resolve(), "this": here}
    for round_ in range(a.rounds):  # alternating, each first every other round: the machine's drift falls on both
        for label in (("other", "this") if round_ % 2 == 0 else ("this", "other")):
            runs[label].append(_child(trees[label], a.rows, a.repeat, files))
    print(f"{a.rows:,} rows; {a.rounds} processes x {a.repeat} timings per tree; A = {a.compare}, B = {here}\n")
    print("| operation | A wall median ms | B | B/A | A CPU median ms | B | B/A | A CPU best ms | B | B/A |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name in runs["this"][0]:
        cells = []
        for kind, pick in ((0, statistics.median), (1, statistics.median), (1, min)):
            before = pick([t for r in runs["other"] for t in r[name][kind]])
            after = pick([t for r in runs["this"] for t in r[name][kind]])
            cells.append(f"{before * 1e3:.1f} | {after * 1e3:.1f} | {after / before:.2f}")
        print(f"| {name} | {' | '.join(cells)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
