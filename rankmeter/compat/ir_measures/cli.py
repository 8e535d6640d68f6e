"""ir_measures' command line over the drop-in: ``python -m rankmeter.compat.ir_measures QRELS RUN MEASURE...``.

The arguments and output of ``python -m ir_measures`` (0.4.3): measures as one or several arguments
(``"nDCG@10 P@5"``), ``-p/--places`` (4; -1 prints the full value), ``-q/--by_query`` (per-query lines,
then the ``all`` lines unless ``-n/--no_summary``), ``-o/--output_format tsv|jsonl``, ``--provider NAME``
(one provider's reading of the measures). QRELS is a TREC qrels file (ir_datasets ids are not read here).
"""
from __future__ import annotations

import argparse
import json
import os
import sys

__all__ = ["main_cli"]


def _printer(args):
    def tsv(metric) -> None:
        value = f"{metric.value}" if args.places == -1 else f"{metric.value:.{args.places}f}"
        print(f"{metric.query_id}\t{metric.measure}\t{value}" if args.by_query else f"{metric.measure}\t{value}")

    def jsonl(metric) -> None:
        record = {"query_id": metric.query_id, "measure": str(metric.measure), "value": metric.value}
        if not args.by_query:
            del record["query_id"]
        print(json.dumps(record))
    if args.output_format == "jsonl" and args.places != 4:
        sys.stderr.write("--places is ignored when using --output jsonl\n")
    return tsv if args.output_format == "tsv" else jsonl


def main_cli(argv=None) -> int:
    import rankmeter.compat.ir_measures.providers as providers
    from rankmeter.compat.ir_measures.objects import parse_measure
    from rankmeter.compat.ir_measures.util import Metric, read_trec_qrels, read_trec_run
    parser = argparse.ArgumentParser(prog="python -m rankmeter.compat.ir_measures")
    parser.add_argument("qrels")
    parser.add_argument("run")
    parser.add_argument("measures", nargs="+")
    parser.add_argument("--places", "-p", type=int, default=4)
    parser.add_argument("--by_query", "-q", action="store_true")
    parser.add_argument("--no_summary", "-n", action="store_true")
    parser.add_argument("--output_format", "-o", choices=["tsv", "jsonl"], default="tsv")
    parser.add_argument("--provider", choices=list(providers.registry))
    args = parser.parse_args(argv)
    if not os.path.exists(args.qrels):
        sys.stderr.write(f"{args.qrels} not found.\n")
        return 2
    measures, errors = [], []
    for text in args.measures:
        for name in text.split():
            try:
                measure = parse_measure(name)
            except ValueError:
                errors.append(f"unknown measure or syntax error: {name}")
                continue
            if measure not in measures:
                measures.append(measure)
    if errors:
        sys.stderr.write("\n".join(["error parsing measures", *errors, ""]))
        return 2
    qrels, run = list(read_trec_qrels(args.qrels)), list(read_trec_run(args.run))
    calc = providers.registry[args.provider] if args.provider else providers.DefaultPipeline
    output = _printer(args)
    if args.by_query:
        aggregators = None if args.no_summary else {m: m.aggregator() for m in measures}
        for metric in calc.iter_calc(measures, qrels, run):
            output(metric)
            if aggregators:
                aggregators[metric.measure].add(metric.value)
        for measure in measures if aggregators else []:
            output(Metric("all", measure, aggregators[measure].result()))
    else:
        if args.no_summary:
            sys.stderr.write("--no_summary (-n) only supported with --by_query (-q)\n")
            return 2
        results = calc.calc_aggregate(measures, qrels, run)
        for measure in measures:
            output(Metric("all", measure, results[measure]))
    return 0
