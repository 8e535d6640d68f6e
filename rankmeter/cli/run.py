"""``rankmeter run cut|rerank|renumber|filter|tag|merge|sample|convert RUN... -o OUT``: run utilities."""
from __future__ import annotations

from rankmeter.cli import flags
from rankmeter.core.params import PARAMS
from rankmeter.engine.param import Param

HELP = "cut, re-rank, filter, re-tag, merge, sample or convert run files"
ACTIONS = ("cut", "rerank", "renumber", "filter", "tag", "merge", "sample", "convert")
KEEP = Param("keep", "string", None, "filter: comma-separated query ids to keep")
DROP = Param("drop", "string", None, "filter: comma-separated query ids to drop")
#: write_run(format=): the written file's format (--to is its older flag)
FORMAT = flags.declare("format", "choice", None, "format of the file written (default: by the output's suffix, else "
                       "TREC)", choices=("trec", "parquet", "jsonl"), deprecated=("--to",))


def add_arguments(p) -> None:
    from rankmeter.io.runs import N

    p.add_argument("action", choices=ACTIONS, metavar="{" + ",".join(ACTIONS) + "}",
                   help="what to do (rerank, renumber and convert all write the run in rank order)")
    flags.add(p, PARAMS["runs"].but(help="the run file(s); several for merge"),
              PARAMS["output"].but(required=True), PARAMS["k"].but(default=1000, help="cut: docs kept per query"),
              KEEP, DROP,
              flags.SHARED["qrels"].but(positional=False, required=False,
                                        help="filter: keep the queries these judgments "
                                                                        "judge"),
              "tag", N, "seed", FORMAT, *flags.READING_FUSING)


def run(args) -> int:
    from rankmeter.core.ranked_runs import cut, rerank, write_run
    from rankmeter.errors import ParameterError
    from rankmeter.io import runs
    from rankmeter.io import as_run

    reading = flags.keywords(args, ("columns", "input_format"))
    inputs = list(args.runs) + ([args.qrels] if args.qrels else [])
    if args.action == "tag" and not args.tag:
        raise ParameterError("run tag: give the new tag with --tag TAG")
    if args.action == "merge":
        result = runs.merge([as_run(r, columns=reading.get("columns"), input_format=reading["input_format"])
                             for r in args.runs], tag=args.tag)
    else:
        if len(args.runs) != 1:
            raise ParameterError(f"run {args.action} takes one run file ({len(args.runs)} given)")
        run = as_run(args.runs[0], columns=reading.get("columns"), input_format=reading["input_format"])
        if args.action == "cut":
            result = cut(run, args.k, ties=args.ties)
        elif args.action == "filter":
            keep = args.keep.split(",") if args.keep else None
            drop = args.drop.split(",") if args.drop else None
            result = runs.filter_queries(run, keep=keep, qrels=args.qrels, drop=drop)
        elif args.action == "tag":
            result = runs.retag(run, args.tag)
        elif args.action == "sample":
            result = runs.sample(run, args.n, seed=args.seed)
        else:  # rerank, renumber, convert: the same run, in rank order, in the format asked
            result = rerank(run, ties=args.ties)
        if args.tag and args.action != "tag":
            result = runs.retag(result, args.tag)
    write_run(result, args.output, inputs=inputs, format=args.format)
    return 0
