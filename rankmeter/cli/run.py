"""``rankmeter run cut|rerank|filter|tag|merge|sample|convert ...`` (see :mod:`rankmeter.analyses.runs`)."""
from __future__ import annotations

import argparse

__all__ = ["add_parser"]


def _run(args: argparse.Namespace) -> int:
    from rankmeter.analyses import runs

    inputs = list(args.runs) + ([args.qrels] if getattr(args, "qrels", None) else [])
    if args.action == "merge":
        result = runs.merge(args.runs, tag=args.tag)
    else:
        if len(args.runs) != 1:
            from rankmeter.errors import ParameterError
            raise ParameterError(f"run {args.action} takes one run file ({len(args.runs)} given)")
        run = args.runs[0]
        if args.action == "cut":
            result = runs.cut(run, args.k)
        elif args.action == "filter":
            keep = args.keep.split(",") if args.keep else None
            drop = args.drop.split(",") if args.drop else None
            result = runs.filter_queries(run, keep=keep, qrels=args.qrels, drop=drop)
        elif args.action == "tag":
            result = runs.retag(run, args.tag)
        elif args.action == "sample":
            result = runs.sample(run, args.n, seed=args.seed)
        else:  # rerank, renumber, convert: the same run, in rank order, in the format asked
            result = runs.rerank(run)
        if args.tag and args.action != "tag":
            result = runs.retag(result, args.tag)
    runs.write_run(result, args.output, inputs=inputs, format=args.to)
    return 0


def add_parser(subparsers) -> None:
    r = subparsers.add_parser("run", help="cut, re-rank, filter, re-tag, merge, sample or convert run files")
    r.add_argument("action", choices=("cut", "rerank", "renumber", "filter", "tag", "merge", "sample", "convert"),
                   help="what to do (rerank, renumber and convert all write the run in rank order)")
    r.add_argument("runs", nargs="+", help="the run file(s); several for merge")
    r.add_argument("-o", "--output", required=True, help="the file to write (never one of the inputs)")
    r.add_argument("-k", type=int, default=1000, help="cut: docs kept per query (default 1000)")
    r.add_argument("--keep", help="filter: comma-separated query ids to keep")
    r.add_argument("--drop", help="filter: comma-separated query ids to drop")
    r.add_argument("--qrels", help="filter: keep the queries these judgments judge")
    r.add_argument("--tag", help="the run tag to write (tag: required)")
    r.add_argument("-n", type=int, default=50, help="sample: number of queries (default 50)")
    r.add_argument("--seed", type=int, default=0, help="sample: random seed (default 0)")
    r.add_argument("--to", choices=("trec", "parquet", "jsonl"),
                   help="output format (default: by the output's suffix, else TREC)")
    r.set_defaults(func=_run)
