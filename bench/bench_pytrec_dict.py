"""pytrec_eval on dicts, as BEIR calls it: the drop-in beside the real pytrec_eval, whole processes.

usage: python bench/bench_pytrec_dict.py [--repeat 5] [--queries 6980] [--docs 1000] [--judged 29]

Each child process builds the same BEIR-shaped dicts from one seed (``--queries`` queries x ``--docs``
scored docs, Python floats as a retriever's scores come; ``--judged`` judgments per query, ~200k in all,
grades 0..2, a third of them among the ranked docs), then imports the tool and runs what
``beir.retrieval.evaluation.EvaluateRetrieval.evaluate`` runs::

    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"map_cut.1,3,5,10,100,1000", "ndcg_cut.1,3,5,10,100,1000",
                                                       "recall.1,3,5,10,100,1000", "P.1,3,5,10,100,1000"})
    scores = evaluator.evaluate(results)

and the per-measure means over the returned dict. The two tools alternate (load hits both alike); printed:
medians of the whole process's wall time, of the in-process time of import + RelevanceEvaluator + evaluate,
and of peak RSS (the dicts themselves are in both), side by side with ratios (drop-in / pytrec_eval). Each
child also prints a checksum of every value, and the two must agree to 1e-12.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from child import run_child  # noqa: E402

K = "1,3,5,10,100,1000"
MEASURES = [f"map_cut.{K}", f"ndcg_cut.{K}", f"recall.{K}", f"P.{K}"]


def make_dicts(queries: int, docs: int, judged: int, seed: int = 7):
    """BEIR-shaped qrels and results dicts (deterministic in ``seed``): doc ids ``doc<n>``, scores Python
    floats, a third of each query's judgments on docs it ranks, grades 0, 1, 1, 2."""
    import numpy as np
    rng = np.random.default_rng(seed)
    qrels, results = {}, {}
    for i in range(queries):
        ranked = rng.choice(10_000_000, docs + judged, replace=False)
        names = [f"doc{n}" for n in ranked.tolist()]
        results[f"q{i}"] = dict(zip(names[:docs], (rng.random(docs) * 20).tolist()))
        picked = names[: judged // 3] + names[docs: docs + judged - judged // 3]
        qrels[f"q{i}"] = dict(zip(picked, rng.choice([0, 1, 1, 2], judged).tolist()))
    return qrels, results


def child(tool: str, queries: int, docs: int, judged: int) -> None:
    import resource
    import time
    qrels, results = make_dicts(queries, docs, judged)
    start = time.perf_counter()
    if tool == "pytrec_eval":
        import pytrec_eval
    else:
        from rankmeter.compat import pytrec_eval
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES))
    scores = evaluator.evaluate(results)
    names = sorted(next(iter(scores.values())))
    means = {n: pytrec_eval.compute_aggregated_measure(n, [s[n] for s in scores.values()]) for n in names}
    took = time.perf_counter() - start
    print(json.dumps({"seconds": took, "queries": len(scores), "means": means,
                      "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--queries", type=int, default=6980)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--judged", type=int, default=29)
    parser.add_argument("--child", choices=["pytrec_eval", "rankmeter"])
    args = parser.parse_args()
    if args.child:
        child(args.child, args.queries, args.docs, args.judged)
        return
    from bytecode import compile_rankmeter
    compile_rankmeter()  # as pip install leaves it (bench/bytecode.py)
    tools = ["pytrec_eval", "rankmeter"]
    wall = {t: [] for t in tools}
    inner = {t: [] for t in tools}
    peak = {t: [] for t in tools}
    means = {}
    env_args = ["--queries", str(args.queries), "--docs", str(args.docs), "--judged", str(args.judged)]
    for _ in range(args.repeat):
        for tool in tools:
            c = run_child([sys.executable, os.path.abspath(__file__), "--child", tool, *env_args], timeout=300)
            if c.status != 0:
                sys.exit(f"{tool} failed ({c.status}):\n{c.stderr[-2000:]}")
            out = json.loads(c.stdout.strip().splitlines()[-1])
            wall[tool].append(c.wall)
            inner[tool].append(out["seconds"])
            peak[tool].append(c.peak_mib)
            means[tool] = out["means"]
    a, b = means["pytrec_eval"], means["rankmeter"]
    worst = max(abs(a[n] - b[n]) for n in a)
    assert a.keys() == b.keys() and worst <= 1e-12, f"the means differ: {worst}"
    print(f"{args.queries} queries x {args.docs} docs, {args.queries * args.judged} judgments; "
          f"{len(a)} values per query; means agree (largest difference {worst:.1e}); medians of {args.repeat}")
    print(f"{'':34}{'pytrec_eval':>12}{'drop-in':>12}{'ratio':>8}")
    for label, data, unit in [("whole process wall (s)", wall, "s"),
                              ("import + evaluator + evaluate (s)", inner, "s"),
                              ("peak RSS (MiB)", peak, "MiB")]:
        x, y = statistics.median(data["pytrec_eval"]), statistics.median(data["rankmeter"])
        print(f"{label:34}{x:12.3f}{y:12.3f}{y / x:8.2f}")


if __name__ == "__main__":
    main()
