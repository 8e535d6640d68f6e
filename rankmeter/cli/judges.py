"""``rankmeter judges aggregate|mix|impact`` and ``rankmeter agree``: evaluation with LLM-made judgments.

* ``judges aggregate SAMPLES --method mode|mean|median -o QRELS``: sampled labels -> one grade per pair;
* ``judges mix HUMAN LLM -o QRELS [--provenance FILE]``: human-first qrels, counts per source and query;
* ``judges impact HUMAN LLM RUN... -m M [--baseline B] [--probabilities FILE]``: what the labels change;
* ``agree HUMAN LLM [--rel 2] [--bins ...]``: judge agreement (kappas, alpha, confusion, per query).
"""
from __future__ import annotations

import argparse
import json
import sys

__all__ = ["add_agree_parser", "add_parser", "run", "run_agree"]

_OPTIONS = ("queries", "rel", "judged_only", "max_docs", "ties", "grades", "columns")


def _emit(args, data: dict, text: str) -> int:
    if args.format == "json":
        json.dump(data, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(text)
    return 0


def _aggregate(args) -> int:
    from rankmeter.analyses.judges.sources import aggregate, write_qrels
    from rankmeter.io.output import check_output

    check_output(args.output, inputs=[args.samples])  # before any work is spent
    qrels = aggregate(args.samples, method=args.method)
    write_qrels(qrels, args.output, inputs=[args.samples])
    kind = "real" if qrels.real_grades else "integer"
    print(f"{len(qrels)} pairs ({args.method} of the samples, {kind} grades) -> {args.output}")
    return 0


def _mix(args) -> int:
    from rankmeter.analyses.judges.sources import mix
    from rankmeter.io.output import check_output, printable

    inputs = [args.human, args.llm]
    check_output(args.output, inputs=inputs)
    if args.provenance:
        check_output(args.provenance, inputs=inputs + [args.output])
    mixed = mix(args.human, args.llm)
    mixed.write(args.output, inputs=inputs)
    if args.provenance:
        mixed.write_provenance(args.provenance, inputs=inputs)
    c = mixed.counts
    lines = [(f"{c['human'] + c['llm']} pairs -> {args.output}: {c['human']} human, {c['llm']} llm "
              f"({c['both']} judged by both kept human; {c['both_differ']} of them graded otherwise by the LLM)")]
    if args.per_query:
        width = max([5] + [len(printable(r["query"])) for r in mixed.per_query])
        lines.append(f"  {'query':<{width}} {'human':>6} {'llm':>6} {'both':>6} {'differ':>6}")
        lines += [f"  {printable(r['query']):<{width}} {r['human']:>6} {r['llm']:>6} {r['both']:>6} "
                  f"{r['both_differ']:>6}" for r in mixed.per_query]
    print("\n".join(lines))
    return 0


def _impact(args) -> int:
    from rankmeter.analyses.judges.label_impact import impact
    from rankmeter.cli import flags
    from rankmeter.errors import ParameterError

    if len(args.runs) < 2:
        raise ParameterError("give at least two runs: the impact on rankings compares runs")
    if not args.measure:
        raise ParameterError("give at least one measure: -m nDCG@10 (repeatable)")
    result = impact(args.human, args.llm, list(args.runs), args.measure, baseline=args.baseline, test=args.test,
                    correction=args.correction, alpha=args.alpha, permutations=args.permutations, seed=args.seed,
                    probabilities=args.probabilities, samples=args.samples, **flags.keywords(args, _OPTIONS))
    return _emit(args, _plain(result.to_dict()), result.to_text(decimals=args.decimals))


def _plain(value):
    """JSON-ready: NaN (no test of a run against itself) as null."""
    import math
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return None if isinstance(value, float) and math.isnan(value) else value


def run(args: argparse.Namespace) -> int:
    """``rankmeter judges KIND ...``."""
    return {"aggregate": _aggregate, "mix": _mix, "impact": _impact}[args.judges_command](args)


def run_agree(args: argparse.Namespace) -> int:
    """``rankmeter agree HUMAN LLM``."""
    from rankmeter.analyses.judges.judge_agreement import agreement, agreement_text
    bins = [float(b) for b in args.bins.split(",")] if args.bins else None
    result = agreement(args.qrels_a, args.qrels_b, rel=args.rel, bins=bins, per_query=not args.no_per_query)
    return _emit(args, result, agreement_text(result, decimals=args.decimals))


def add_agree_parser(subparsers) -> None:
    """Register ``agree`` (replacing the one ``rankmeter.cli.fuse.add_pool_parsers`` registers today)."""
    a = subparsers.add_parser("agree", help="agreement of two judges (human, LLM): Cohen's kappa, binary and "
                                            "quadratic kappa, Krippendorff's alpha, confusion matrix, per query")
    a.add_argument("qrels_a", metavar="HUMAN", help="the first judgments (rows of the confusion matrix)")
    a.add_argument("qrels_b", metavar="LLM", help="the second judgments (columns)")
    a.add_argument("--rel", type=float, default=1, help="relevant means grade >= REL: used by the binary kappa and "
                   "the Jaccard overlap (default 1; UMBRELA reports its binary kappa at 2)")
    a.add_argument("--bins", metavar="EDGES", help="real grades: comma-separated edges making categories (a grade's "
                   "category is how many edges it reaches), e.g. 0.5,1.5,2.5")
    a.add_argument("--no-per-query", action="store_true", help="leave out the per-query figures")
    a.add_argument("--format", choices=("text", "json"), default="text", help="output format (default text)")
    a.add_argument("--decimals", type=int, default=4, metavar="N", help="digits in text output (default 4)")
    a.set_defaults(func=run_agree, subparser=a)


def add_parser(subparsers) -> None:
    """Register ``judges`` with its kinds ``aggregate``, ``mix`` and ``impact``."""
    from rankmeter.cli import flags

    judges = subparsers.add_parser("judges", help="LLM-made judgments: aggregate samples, mix with human ones, "
                                                  "what they change per run")
    kinds = judges.add_subparsers(dest="judges_command", required=True, metavar="KIND")
    g = kinds.add_parser("aggregate", help="several sampled labels per (query, doc) -> one qrels")
    g.add_argument("samples", help="TREC qrels with one line per sample (in sample order), or JSON Lines with "
                                   "grade or probabilities per pair")
    g.add_argument("--method", choices=("mode", "mean", "median"), default="mode",
                   help="mode (UMBRELA's: on a tie the label seen first), mean (real grades) or median (default mode)")
    g.add_argument("-o", "--output", required=True, help="the qrels file to write (never one of the inputs)")
    g.set_defaults(func=run, subparser=g)
    m = kinds.add_parser("mix", help="human-first qrels: the human grade where judged, the LLM's elsewhere")
    m.add_argument("human", help="the human judgments")
    m.add_argument("llm", help="the LLM judgments")
    m.add_argument("-o", "--output", required=True, help="the qrels file to write")
    m.add_argument("--provenance", metavar="FILE", help="also write query, doc, grade, source (human or llm) per pair")
    m.add_argument("--per-query", action="store_true", help="print the counts per query")
    m.set_defaults(func=run, subparser=m)
    i = kinds.add_parser("impact", help="each run under human, LLM and mixed judgments: scores, unjudged bounds, "
                                        "rank changes, comparisons whose conclusion flips")
    i.add_argument("human", help="the human judgments")
    i.add_argument("llm", help="the LLM judgments")
    i.add_argument("runs", nargs="+", help="two or more runs")
    i.add_argument("-m", "--measure", action="append", help="a measure (repeatable)")
    i.add_argument("--baseline", action="append", help="compare with this run (repeatable; default: every pair)")
    i.add_argument("--test", choices=("t", "wilcoxon", "randomization", "bootstrap", "tukey"), default="t",
                   help="paired test, as in compare (default t)")
    i.add_argument("--correction", choices=("none", "bonferroni", "holm", "bh"), default="none",
                   help="multiple-comparison correction, as in compare (default none)")
    i.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    i.add_argument("--permutations", type=int, default=10000, help="random tests' samples (default 10000)")
    i.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    i.add_argument("--probabilities", metavar="FILE", help="the LLM's probability per grade (JSON Lines): expected "
                   "scores (DCG exactly) and a resampled interval")
    i.add_argument("--samples", type=int, default=200, help="label draws for the interval (default 200)")
    i.add_argument("--format", choices=("text", "json"), default="text", help="output format (default text)")
    i.add_argument("--decimals", type=int, default=4, metavar="N", help="digits in text output (default 4)")
    flags.add(i, *_OPTIONS)
    i.set_defaults(func=run, subparser=i)
