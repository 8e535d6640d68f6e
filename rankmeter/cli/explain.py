"""``rankmeter explain QRELS RUN -m MEASURE -Q QUERY``: one measure on one query, step by step."""
from __future__ import annotations

import sys

from rankmeter.cli import flags
from rankmeter.core.params import PARAMS

HELP = "show one measure's computation for one query, step by step"


def add_arguments(p) -> None:
    flags.add(p, "qrels", "run", PARAMS["measure"].but(kind="string", required=True, help="one measure, e.g. "
                                                        "'nDCG(gain=exp)@5'"),
              PARAMS["query"].but(required=True),
              PARAMS["format"].but(choices=("text", "json", "csv"), help="text: the table and the formula; json; "
                                                                         "csv: the per-rank table"),
              *flags.EVALUATION)


def run(args) -> int:
    from rankmeter.core.explain import explain

    result = explain(args.qrels, args.run, args.measure, args.query, **flags.evaluation(args))
    if args.format == "csv":
        import csv
        w = csv.writer(sys.stdout, lineterminator="\n")
        w.writerow(result.columns)
        w.writerows(result.rows)
    elif args.format == "json":
        flags.write_json({"measure": str(result.measure), "query": result.query, "value": result.value,
                   "columns": result.columns, "rows": result.rows, "ideal_columns": result.ideal_columns,
                   "ideal_rows": result.ideal_rows, "formula": result.formula})
    else:
        print(result)
    return 0
