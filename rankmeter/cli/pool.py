"""``rankmeter pool RUN... --depth K | --take N [--priority rrf|sum|rbp] -o pool.txt``: a judgment pool."""
from __future__ import annotations

from rankmeter.cli import flags
from rankmeter.core.params import PARAMS

HELP = "build a judgment pool from runs (depth@k or take@N by priority)"


def add_arguments(p) -> None:
    from rankmeter.fusion.catalog import POOL_PARAMETERS as POOL
    from rankmeter.fusion.pooling import pool

    from rankmeter.cli.check import TOPICS

    flags.add(p, "runs", POOL["depth"], POOL["take"], POOL["priority"],
              flags.SHARED["qrels"].but(positional=False, required=False,
                                  help="existing judgments: count the pooled docs already judged"),
              PARAMS["output"].but(required=True, help="the pool file to write (query 0 doc -1)"),
              *flags.READING_FUSING, TOPICS, owner=pool)


def run(args) -> int:
    from rankmeter.fusion.pooling import pool

    made = pool(list(args.runs), depth=args.depth, take=args.take, priority=args.priority, qrels=args.qrels,
                topics=args.topics,
                **flags.keywords(args, ("ties", "columns", "input_format")))
    made.write(args.output, inputs=[*args.runs] + [f for f in (args.qrels, args.topics) if f])
    total, judged = sum(made.sizes.values()), sum(made.already_judged.values())
    print(f"{len(made.docs)} queries, {total} docs to judge ({judged} already in the qrels) -> {args.output}")
    return 0
