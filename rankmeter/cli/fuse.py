"""``rankmeter fuse RUN... --method rrf --norm min-max [--param k=60] [--weights ...] -o fused.run``."""
from __future__ import annotations

import argparse

__all__ = ["add_parser"]


def _value(text: str):
    try:
        return int(text)
    except ValueError:
        return float(text)


def _fuse(args: argparse.Namespace) -> int:
    from rankmeter.errors import ParameterError
    from rankmeter.analyses.fusion import fuse

    params = {}
    for item in args.param or []:
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise ParameterError(f"--param {item!r}: expected NAME=VALUE, e.g. k=60")
        params[key] = _value(value)
    if args.weights:
        params["weights"] = args.weights
    norm = None if args.norm == "none" else args.norm
    if args.optimise:
        if not args.qrels:
            raise ParameterError("--optimise needs --qrels: the training judgments the parameters are chosen on")
        from rankmeter.analyses.fusion.tuning import optimise
        best = optimise(list(args.runs), args.qrels, method=args.method, measure=args.optimise, norm=norm,
                        test_qrels=args.test_qrels)
        params = {**params, **best.params}
        held = "" if best.held_out is None else f"; held-out {args.optimise} = {best.held_out:.4f}"
        print(f"chosen {params} ({args.optimise} = {best.score:.4f} on the training queries, "
              f"{len(best.trials)} tried{held})")
    from rankmeter.analyses.fusion.trained import TRAINED
    if args.method in TRAINED and TRAINED[args.method][0] not in params and not args.qrels:
        raise ParameterError(f"--method {args.method} is trained on judged queries: give --qrels (the training "
                             "judgments; the runs' judged queries train it)")
    fused = fuse(list(args.runs), method=args.method, norm=norm, params=params, name=args.tag,
                 train_qrels=args.qrels if args.method in TRAINED else None)
    from rankmeter.analyses.runs import write_run
    write_run(fused, args.output, inputs=list(args.runs), format="trec")
    return 0


def add_parser(subparsers) -> None:
    from rankmeter.analyses.fusion.catalog import METHODS, NORMS

    f = subparsers.add_parser("fuse", help="fuse runs (CombSUM, CombMNZ, RRF, ... as ranx names them)")
    f.add_argument("runs", nargs="+", help="two or more run files")
    f.add_argument("--method", choices=list(METHODS), default="rrf", help="fusion method (default rrf)")
    f.add_argument("--norm", choices=[n for n in NORMS if n != "borda"] + ["none"], default="min-max",
                   help="per-query normalisation before fusing (default min-max, as ranx)")
    f.add_argument("--param", action="append", metavar="NAME=VALUE", help="a method parameter, e.g. k=60 (repeatable)")
    f.add_argument("--weights", type=float, nargs="+", help="one weight per run (wsum, wmnz, mixed, w_bordafuse, "
                   "w_condorcet)")
    f.add_argument("--tag", help="run tag of the fused run (default: the method)")
    f.add_argument("--optimise", metavar="MEASURE", help="choose the method's parameters (weights, k, phi ...) "
                   "by this measure on --qrels, by grid search")
    f.add_argument("--qrels", help="training judgments: for --optimise, and for the trained methods (posfuse, "
                   "probfuse, segfuse, slidefuse, bayesfuse, mapfuse)")
    f.add_argument("--test-qrels", help="--optimise: held-out judgments to report the chosen parameters on")
    f.add_argument("-o", "--output", required=True, help="the TREC run file to write (never one of the inputs)")
    f.set_defaults(func=_fuse)


def _pool(args: argparse.Namespace) -> int:
    from rankmeter.analyses.fusion.pooling import pool
    made = pool(list(args.runs), depth=args.depth, take=args.take, priority=args.priority, qrels=args.qrels)
    made.write(args.output, inputs=[*args.runs] + ([args.qrels] if args.qrels else []))
    total, judged = sum(made.sizes.values()), sum(made.already_judged.values())
    print(f"{len(made.docs)} queries, {total} docs to judge ({judged} already in the qrels) -> {args.output}")
    return 0


def _agree(args: argparse.Namespace) -> int:
    import json
    import sys
    from rankmeter.analyses.fusion.pooling import agreement
    json.dump(agreement(args.qrels_a, args.qrels_b, rel=args.rel), sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


def add_pool_parsers(subparsers) -> None:
    p = subparsers.add_parser("pool", help="build a judgment pool from runs (depth@k or take@N by priority)")
    p.add_argument("runs", nargs="+", help="the run files to pool")
    p.add_argument("--depth", type=int, help="depth@k: every doc some run ranks in its top k")
    p.add_argument("--take", type=int, help="take@N: the N docs of best priority per query")
    p.add_argument("--priority", choices=("rrf", "sum", "rbp"), default="rrf", help="take@N priority (default rrf)")
    p.add_argument("--qrels", help="existing judgments: count the pooled docs already judged")
    p.add_argument("-o", "--output", required=True, help="the pool file to write (query 0 doc -1)")
    p.set_defaults(func=_pool)
    a = subparsers.add_parser("agree", help="agreement of two qrels versions: Cohen's and Fleiss' kappa, Jaccard")
    a.add_argument("qrels_a", help="the first judgments")
    a.add_argument("qrels_b", help="the second judgments")
    a.add_argument("--rel", type=int, default=1, help="relevance threshold for Jaccard (default 1)")
    a.set_defaults(func=_agree)
