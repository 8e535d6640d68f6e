"""A sweep of ``rankmeter`` commands on inputs with many distinct ids, for tests/engine/test_id_collisions.py.

usage: python tests/collision_sweep.py DATA_DIR OUT_DIR  (DATA_DIR made by :func:`make_data`)

Runs every command of :data:`COMMANDS` in this process (``cli_runner.run_cli_in_process``) with OUT_DIR as the
working directory (so written files have the same relative names whichever build runs it) and prints one JSON
object: per command its exit status, standard output and error, and the bytes of every file it wrote. The test
runs it with the package as built and with a copy whose extensions hash every id alike
(``-DRANKMETER_CONSTANT_HASH``) and compares the two byte for byte.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np

_ALPHABET = np.frombuffer(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.:/", np.uint8)


def _ids(rng, n: int, taken: set) -> list[str]:
    out = []
    while len(out) < n:
        word = bytes(rng.choice(_ALPHABET, int(rng.integers(1, 31)))).decode()
        if word not in taken:
            taken.add(word)
            out.append(word)
    return out


def make_data(folder: Path, seed: int = 32) -> None:
    """qrels (graded, some negative), a diversity qrels, three runs with ties and run-only queries, and a run
    that lists some docs twice; ~1,500 distinct doc ids of 1 to 30 printable bytes, queries named every way."""
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    queries = [f"q{i}" for i in range(1, 19)] + ["301", "302", "7", "topic-7", "topic-11", "Q", "qq", "x.y"]
    taken: set = set()
    pools = {q: _ids(rng, 60, taken) for q in queries}
    qrels, div = [], []
    for q in queries:
        judged = rng.choice(pools[q], 25, replace=False)
        for d in judged:
            grade = int(rng.choice([-1, 0, 0, 1, 1, 2, 3]))
            qrels.append(f"{q} 0 {d} {grade}\n")
            for s in rng.choice(4, int(rng.integers(1, 3)), replace=False):
                div.append(f"{q} {s + 1} {d} {int(grade > 0)}\n")
    (folder / "qrels.txt").write_text("".join(qrels))
    (folder / "qrels_div.txt").write_text("".join(div))
    for r in range(3):
        lines = []
        asked = queries[r:] + (["q99", "zz"] if r == 0 else [])
        for q in asked:
            pool = pools.get(q) or _ids(rng, 60, taken)
            docs = rng.choice(pool, 40, replace=False)
            scores = np.sort(np.round(rng.normal(5, 2, len(docs)), 1))[::-1]  # rounded: ties
            lines += [f"{q} Q0 {d} {i + 1} {s:.1f} run{r}\n" for i, (d, s) in enumerate(zip(docs, scores))]
        (folder / f"run{r}.txt").write_text("".join(lines))
        if r == 0:
            again = [lines[i].replace(" run0", " dup") for i in rng.choice(len(lines), 12, replace=False)]
            (folder / "run_dup.txt").write_text("".join(lines + again))


def commands(data: Path) -> dict[str, list[str]]:
    q, qd, dup = str(data / "qrels.txt"), str(data / "qrels_div.txt"), str(data / "run_dup.txt")
    r0, r1, r2 = (str(data / f"run{i}.txt") for i in range(3))
    eval_measures = ["-m", "AP", "-m", "nDCG@10", "-m", "P@5", "-m", "R@20", "-m", "RR", "-m", "bpref",
                     "-m", "infAP", "-m", "Judged@10", "-m", "num_rel_ret"]
    return {
        "trec_eval": ["trec_eval", q, r0],
        "trec_eval -q all_trec": ["trec_eval", "-q", "-m", "all_trec", q, r0],
        "trec_eval -q -c -M all_trec": ["trec_eval", "-q", "-c", "-M", "20", "-m", "all_trec", q, r2],
        "trec_eval -l2 -J": ["trec_eval", "-q", "-l", "2", "-J", "-m", "all_trec", q, r1],
        "trec_eval prefs": ["trec_eval", "-q", "-m", "all_prefs", "-R", "qrels_prefs", q, r1],
        "eval -q csv": ["eval", q, r0, r1, r2, "-q", "--format", "csv", *eval_measures],
        "eval qrels queries json": ["eval", q, r2, "--queries", "qrels", "--format", "json", "-m", "AP", "-m", "P@10"],
        "eval ties average": ["eval", q, r0, "--ties", "average", "-q", "-m", "AP", "-m", "nDCG@10"],
        "eval ties best/worst": ["eval", q, r0, "--ties", "worst", "-m", "AP", "-m", "nDCG@10"],
        "eval streamed": ["eval", q, r1, "--executor", "streamed", "-q", "-m", "AP", "-m", "nDCG@10"],
        "eval diversity": ["eval", qd, r0, r1, "-q", "-m", "alpha_nDCG@10", "-m", "ERR_IA@20", "-m", "AP"],
        "explain": ["explain", q, r0, "--query", "q3", "--measure", "AP"],
        "check": ["check", q, r0, r1, dup],
        "check --dedupe first": ["check", "--dedupe", "first", "-o", "dedupe_first.txt", q, dup],
        "check --dedupe max": ["check", "--dedupe", "max", "-o", "dedupe_max.txt", q, dup],
        "fuse rrf": ["fuse", "--method", "rrf", "-o", "rrf.txt", r0, r1, r2],
        "fuse sum min-max": ["fuse", "--method", "sum", "--norm", "min-max", "-o", "sum.txt", r0, r1, r2],
        "fuse condorcet": ["fuse", "--method", "condorcet", "-o", "condorcet.txt", r0, r1],
        "pool depth": ["pool", "--depth", "15", "-o", "pool_depth.txt", r0, r1, r2],
        "pool take": ["pool", "--take", "300", "--priority", "rrf", "--qrels", q, "-o", "pool_take.txt", r0, r1, r2],
        "compare": ["compare", q, r0, r1, r2, "--measure", "AP", "--test", "t", "--per-query"],
        "judged": ["judged", q, r0, r1, "--measure", "nDCG@10", "--format", "csv"],
        "ties": ["ties", q, r0, "--measure", "AP", "--measure", "P@10", "--format", "json"],
        "run cut": ["run", "cut", "--k", "7", "-o", "cut.txt", r0],
        "run rerank": ["run", "rerank", "-o", "rerank.txt", r1],
        "run filter qrels": ["run", "filter", "--qrels", q, "-o", "filter.txt", r0],
        "run filter drop": ["run", "filter", "--drop", "q3,301,topic-7", "-o", "drop.txt", r1],
    }


def main(data: Path, out: Path) -> dict:
    from cli_runner import run_cli_in_process

    out.mkdir(parents=True, exist_ok=True)
    results = {}
    for name, argv in commands(data).items():
        before = set(os.listdir(out))
        done = run_cli_in_process(argv, cwd=out, text=False)
        written = {f: (out / f).read_bytes().hex() for f in sorted(set(os.listdir(out)) - before)}
        results[name] = {"code": done.code, "stdout": done.stdout_bytes.hex(), "stderr": done.stderr_bytes.hex(),
                         "files": written}
    return results


if __name__ == "__main__":
    print(json.dumps(main(Path(sys.argv[1]), Path(sys.argv[2]))))
