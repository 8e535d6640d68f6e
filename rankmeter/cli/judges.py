"""``rankmeter judges aggregate|mix|impact`` and ``rankmeter agree``: evaluation with LLM-made judgments.

* ``judges aggregate SAMPLES --method mode|mean|median -o QRELS``: sampled labels -> one grade per pair;
* ``judges mix HUMAN LLM -o QRELS [--provenance FILE]``: human-first qrels, counts per source and query;
* ``judges impact HUMAN LLM RUN... -m M [--baseline B] [--probabilities FILE]``: what the labels change;
* ``agree HUMAN LLM [--rel 2] [--bins ...]``: judge agreement (kappas, alpha, confusion, per query).
"""
from __future__ import annotations

import argparse
import sys

from rankmeter.judges.params import AGGREGATE, DRAWS, SAMPLED_LABELS
from rankmeter.cli import flags
from rankmeter.core.params import PARAMS
from rankmeter.engine.param import Param

__all__ = ["HELP", "add_arguments", "add_agree_arguments", "run", "run_agree"]

_OPTIONS = flags.EVALUATION
HUMAN = flags.declare("human", "path", None, "the human judgments", positional=True, required=True, metavar="HUMAN")
LLM = flags.declare("llm", "path", None, "the LLM judgments", positional=True, required=True, metavar="LLM")
JUDGMENTS = flags.declare("judgments", "paths", None,
                          "two judgment files (e.g. HUMAN LLM: the rows, then the columns of the "
                          "confusion matrix), or more: one per judge", positional=True, metavar="JUDGMENTS")
SAMPLED = flags.declare("samples", "path", None,
                        "TREC qrels with one line per sample (in sample order), or JSON Lines with "
                        "grade or probabilities per pair", positional=True, required=True, metavar="SAMPLES")
BINS = flags.declare("bins", "string", None,
                     "real grades: comma-separated edges making categories (a grade's category is how "
                     "many edges it reaches), e.g. 0.5,1.5,2.5", metavar="EDGES")
PER_QUERY = Param("per_query", "bool", True, "the per-query figures (--no-per-query leaves them out)")
PROVENANCE = flags.declare("provenance", "path", None, "also write query, doc, grade, source (human or llm) per pair",
                           metavar="FILE")
PROBABILITIES = flags.declare("probabilities", "path", None,
                              "the LLM's probability per grade (JSON Lines): expected scores "
                              "and a resampled interval", metavar="FILE")


def _emit(args, data: dict, text: str) -> int:
    if args.format == "json":
        flags.write_json(data)
    else:
        sys.stdout.write(text)
    return 0


def _aggregate(args) -> int:
    from rankmeter.judges.sources import aggregate, write_qrels
    from rankmeter.io.output import check_output

    check_output(args.output, inputs=[args.samples])  # before any work is spent
    qrels = aggregate(args.samples, method=args.method)
    write_qrels(qrels, args.output, inputs=[args.samples])
    kind = "real" if qrels.real_grades else "integer"
    print(f"{len(qrels)} pairs ({args.method} of the samples, {kind} grades) -> {args.output}")
    return 0


def _mix(args) -> int:
    from rankmeter.judges.sources import mix
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
    from rankmeter.judges.label_impact import impact
    from rankmeter.cli import flags
    from rankmeter.errors import ParameterError

    if len(args.runs) < 2:
        raise ParameterError("give at least two runs: the impact on rankings compares runs")
    if not args.measure:
        raise ParameterError("give at least one measure: -m nDCG@10 (repeatable)")
    result = impact(args.human, args.llm, list(args.runs), args.measure, baseline=args.baseline, test=args.test,
                    correction=args.correction, alpha=args.alpha, permutations=args.permutations, seed=args.seed,
                    probabilities=args.probabilities, draws=args.draws, **flags.keywords(args, _OPTIONS))
    return _emit(args, result.to_dict(), result.to_text(decimals=args.decimals))


def run(args: argparse.Namespace) -> int:
    """``rankmeter judges KIND ...``."""
    return {"aggregate": _aggregate, "mix": _mix, "impact": _impact}[args.judges_command](args)


def _bins(text: str) -> list[float]:
    """--bins EDGES: finite, increasing numbers separated by commas; one line naming the flag otherwise."""
    import math

    from rankmeter.errors import ParameterError
    try:
        edges = [float(part) for part in text.split(",")]
    except ValueError:
        edges = []
    if not edges or not all(math.isfinite(e) for e in edges) or any(b <= a for a, b in zip(edges, edges[1:])):
        raise ParameterError(f"--bins {text!r}: expected increasing finite grade edges separated by commas, e.g. "
                             "0.5,1.5,2.5")
    return edges


def run_agree(args: argparse.Namespace) -> int:
    """``rankmeter agree HUMAN LLM`` (two judges: Cohen's kappas, confusion matrix, per query), ``rankmeter agree
    J1 J2 J3 ...`` or ``rankmeter agree --sampled SAMPLES`` (several raters: Fleiss' kappa, Krippendorff's alpha)."""
    from rankmeter.errors import ParameterError
    bins = _bins(args.bins) if args.bins else None
    judges = list(args.judgments)
    if args.sampled is None and len(judges) == 2:
        from rankmeter.judges.judge_agreement import agreement, agreement_text
        result = agreement(*judges, rel=args.rel, bins=bins, per_query=args.per_query)
        return _emit(args, result, agreement_text(result, decimals=args.decimals))
    if args.sampled is None and len(judges) < 2:
        raise ParameterError(f"got {len(judges)} judgment file(s): give two judges or more, or --sampled SAMPLES "
                             "(several sampled labels per pair)")
    from rankmeter.judges.many_raters import many_rater_agreement, many_rater_text
    result = many_rater_agreement(judges, sampled=args.sampled, rel=args.rel, bins=bins)
    return _emit(args, result, many_rater_text(result, decimals=args.decimals))


def add_agree_arguments(a) -> None:
    """``rankmeter agree``'s flags (the ``agree`` command, rankmeter.cli.agree)."""
    from rankmeter.judges.many_raters import many_rater_agreement

    flags.add(a, JUDGMENTS, SAMPLED_LABELS,
              PARAMS["rel"].but(help="relevant means grade >= REL: the binary kappa and the Jaccard overlap "
                                     "(UMBRELA reports its binary kappa at 2)"),
              BINS, PER_QUERY, "format", "decimals", owner=many_rater_agreement)


HELP = "LLM-made judgments: aggregate samples, mix with human ones, what they change per run"


def add_arguments(judges) -> None:
    """``judges`` with its kinds ``aggregate``, ``mix`` and ``impact``."""
    from rankmeter.judges.label_impact import impact
    from rankmeter.judges.sources import aggregate

    kinds = judges.add_subparsers(dest="judges_command", required=True, metavar="KIND", parser_class=flags.Parser,
                                  help="what to do")
    g = kinds.add_parser("aggregate", help="several sampled labels per (query, doc) -> one qrels")
    flags.add(g, SAMPLED, AGGREGATE,
              PARAMS["output"].but(required=True, help="the qrels file to write (never one of the inputs)"),
              owner=aggregate)
    g.set_defaults(func=run, subparser=g)
    m = kinds.add_parser("mix", help="human-first qrels: the human grade where judged, the LLM's elsewhere")
    flags.add(m, HUMAN, LLM,
              PARAMS["output"].but(required=True, help="the qrels file to write (never one of the inputs)"),
              PROVENANCE, flags.SHARED["per_query"].but(short=None, help="print the counts per query"))
    m.set_defaults(func=run, subparser=m)
    i = kinds.add_parser("impact", help="each run under human, LLM and mixed judgments: scores, unjudged bounds, "
                                        "rank changes, comparisons whose conclusion flips")
    flags.add(i, HUMAN, LLM,
              "runs", "measure",
              PARAMS["baseline"].but(help="compare with this run (repeatable; default: every pair)"),
              "test", "correction", "alpha", "permutations", "seed", PROBABILITIES, DRAWS,
              "format", "decimals", *_OPTIONS, owner=impact)
    i.set_defaults(func=run, subparser=i)
    from rankmeter.cli.estimates import add_parsers
    add_parsers(kinds)
    from rankmeter.cli.labelling import add_parser; add_parser(kinds)  # noqa: E702 - judges label
    from rankmeter.cli.reliability import add_parser as add_reliability; add_reliability(kinds)  # noqa: E702
