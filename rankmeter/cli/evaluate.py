"""``rankmeter eval QRELS RUN... -m MEASURE...``: score runs with chosen measures."""
from __future__ import annotations

import sys

from rankmeter.cli import flags
from rankmeter.core.params import PARAMS

HELP = "score runs with chosen measures"


def add_arguments(p) -> None:
    flags.add(p, "qrels", "runs", "measure")
    p.add_argument("--profile", action="store_true",
                   help="add the official measures (and relevance level) of the ir_datasets qrels given, e.g. "
                        "msmarco-passage/trec-dl-2019/judged (needs ir_datasets: pip install ir_datasets)")
    flags.add(p, "per_query", PARAMS["format"].but(choices=("text", "json", "csv"),
                                                   help="text: a table fitted to the terminal; json: {measures, "
                                                        "options, runs: [...]}; csv"),
              "decimals", *flags.EVALUATION, "executor")
    p.add_argument("--chunked", action="store_true", help="the same as --executor streamed")


def run(args) -> int:
    from rankmeter.core import Evaluator
    from rankmeter.core.naming import unique_names
    from rankmeter.executors.streamed import evaluate_streamed
    from rankmeter.io import as_run
    from rankmeter.report.text import print_results

    options = flags.evaluation(args)
    if args.chunked:
        options["executor"] = "streamed"
    measures = args.measure
    if args.profile:  # the dataset's official measures and relevance level (ir_datasets profiles)
        from rankmeter.io.irds import profile, relevance_level
        measures = (measures or []) + profile(args.qrels)
        if "--rel" not in sys.argv[1:]:
            options["rel"] = relevance_level(args.qrels)
    if not measures:
        from rankmeter.errors import ParameterError
        raise ParameterError("give at least one measure with -m (e.g. -m AP -m nDCG@10), or --profile for an "
                             "ir_datasets qrels")
    evaluator = Evaluator(args.qrels, measures, **options)
    all_results, tags, sources = [], [], []
    from rankmeter.executors.streamed import evaluate_auto, streams_by_itself
    for path in args.runs:  # one run in memory at a time
        if evaluator.options.executor == "streamed":
            results, source = evaluate_streamed(evaluator, path), path
        elif streams_by_itself(path, evaluator.options):  # a gigabyte or more: streamed unless not grouped
            results, source = evaluate_auto(evaluator, path), path
        else:
            loaded = as_run(path, columns=evaluator.options.columns, format=evaluator.options.input_format)
            results, source = evaluator.evaluate(loaded), loaded.source
        tag = "" if results.run in (path, source, "") else results.run
        all_results.append(results)
        tags.append(tag)
        sources.append(source)
    names = unique_names(tags, sources, args.runs)  # the one naming rule: eval, compare, report, JSON, Python
    if args.format == "json":
        runs = [dict(r.to_dict(per_query=args.per_query), run=name) for name, r in zip(names, all_results)]
        flags.write_json({"measures": all_results[0].names,
                          "options": {k: v for k, v in options.items() if v is not None}, "runs": runs})
    else:
        print_results(all_results, names, fmt=args.format, per_query=args.per_query, decimals=args.decimals)
    return 0

