"""``rankmeter meta correlate``: how alike two measures (or two qrels versions) rank the same systems."""
from __future__ import annotations

import argparse

from rankmeter.cli import flags
from rankmeter.core.numbers import format_number
from rankmeter.core.params import PARAMS

HELP = "meta-evaluation: how far a measure or a ranking of systems holds"
_SCORING = flags.EVALUATION
NUGGETS = flags.declare("nuggets", "paths", None, "nuggetizer assignment files, one per RAG system (repeatable): their "
                        "per-query nugget scores instead of QRELS and RUN...", metavar="FILE")


def _correlate(args: argparse.Namespace) -> int:
    from rankmeter.meta.correlation import correlations
    from rankmeter.core.evaluator import Evaluator
    from rankmeter.core.options import validate_options
    from rankmeter.errors import ParameterError

    options = validate_options(**flags.evaluation(args))  # once, for both qrels

    def evaluate_runs(qrels, runs, measures):
        return Evaluator.of(qrels, measures, options).evaluate_runs(runs)
    measures = args.measure
    if len(measures) == 2 and measures[0] == measures[1]:
        raise ParameterError(f"-m {measures[0]} twice: give two different measures, or one with --other-qrels")
    if args.other_qrels:
        if len(measures) != 1:
            raise ParameterError("with --other-qrels give one measure: the same measure under both qrels")
        first = evaluate_runs(args.qrels, list(args.runs), measures)
        second = evaluate_runs(args.other_qrels, list(args.runs), measures)
        a = {run: first[run][measures[0]] for run in first.runs}
        b = {run: second[run][measures[0]] for run in second.runs}
        names = (f"{measures[0]} ({args.qrels})", f"{measures[0]} ({args.other_qrels})")
    else:
        if len(measures) != 2:
            raise ParameterError("give two measures (-m A -m B), or one with --other-qrels")
        table = evaluate_runs(args.qrels, list(args.runs), measures)
        a = {run: table[run][table.names[0]] for run in table.runs}
        b = {run: table[run][table.names[1]] for run in table.runs}
        names = tuple(table.names)
    result = correlations(a, b, p=args.p, names=names)
    if args.format == "json":
        flags.write_json({"a": names[0], "b": names[1], **result})
    else:
        print(f"system rankings by {names[0]} and by {names[1]} ({result['systems']} systems)")
        for key, value in result.items():
            if key in ("systems", "undefined"):
                continue
            shown = format_number(value, args.decimals) if value is not None else \
                f"undefined ({result['undefined'][key]})"
            print(f"  {key:<22} {shown}")
    return 0


def _matrices(args):
    """([one topics x systems matrix per -m], topics, systems): from QRELS RUN..., or from the per-query nugget
    scores of --nuggets files (one per RAG system). Every meta command keeps the topics every system answered
    (``--queries qrels`` scores a run's missing judged topics as empty rankings), as ``compare`` does."""
    from rankmeter.errors import ParameterError
    measures = list(dict.fromkeys(args.measure))
    if getattr(args, "nuggets", None):
        if args.qrels or args.runs:
            raise ParameterError("give QRELS RUN... or --nuggets FILE..., not both")
        if len(args.nuggets) < 2:
            raise ParameterError("--nuggets: give two systems' assignment files or more")
        import numpy as np

        from rankmeter.meta.discrimination import common_topics
        from rankmeter.nuggets.assignments import nugget_scores, score_matrix
        from rankmeter.core.naming import unique_names
        names = unique_names([""] * len(args.nuggets), args.nuggets, args.nuggets)
        scored = [nugget_scores(f, system=n) for n, f in zip(names, args.nuggets)]
        per = [score_matrix(scored, m) for m in measures]
        topics = per[0][1]
        keep = common_topics(np.logical_or.reduce([np.isnan(x) for x, _, _ in per]), topics, names)
        return [x[keep] for x, _, _ in per], [topics[i] for i in np.flatnonzero(keep)], names
    if not args.qrels or len(args.runs) < 2:
        raise ParameterError("give the judgments and two runs or more (QRELS RUN RUN ...), or --nuggets FILE...")
    from rankmeter.meta.discrimination import score_matrices
    return score_matrices(args.qrels, list(args.runs), measures, **flags.evaluation(args))


def _per_measure(args, analyse) -> int:
    """Run ``analyse(measure, matrix, topics, names) -> (json object, text lines)`` for each -m; one JSON shape
    whatever their number: ``{"measures": [...], "results": [one object per measure]}``."""
    matrices, topics, names = _matrices(args)
    measures = list(dict.fromkeys(args.measure))
    done = [analyse(m, x, topics, names) for m, x in zip(measures, matrices)]
    lines = [line for i, (_, text) in enumerate(done) for line in ([""] if i else []) + text]
    return flags.emit(args, {"measures": measures, "results": [data for data, _ in done]}, lines)


def _power(args: argparse.Namespace) -> int:
    from rankmeter.meta.discrimination import discriminative_power

    def analyse(measure, x, topics, names):
        dp = discriminative_power(x, test=args.test, alpha=args.alpha, permutations=args.permutations,
                                  seed=args.seed, names=names)
        pairs = [{"a": a, "b": b, "asl": p, "delta": d} for ((a, b), p), d in zip(dp.pairs, dp.deltas)]
        lines = [f"{measure}: {sum(p['asl'] < args.alpha for p in pairs)} of {len(pairs)} run pairs significant at "
                 f"alpha={args.alpha} ({args.test}, {len(topics)} topics): discriminative power {format_number(dp.power)}",
                 "smallest significant |difference|: "
                 + format_number(dp.smallest_significant_delta, undefined="none"),
                 "", f"{'rank':>4} {'ASL':>8}  pair (difference)"]
        ordered = sorted(pairs, key=lambda p: p["asl"])
        lines += [f"{i + 1:>4} {format_number(p['asl']):>8}  {p['a']} - {p['b']} ({format_number(p['delta'], sign=True)})" for i, p in enumerate(ordered)]
        return {"measure": measure, "test": args.test, "alpha": args.alpha, "topics": len(topics), "power": dp.power,
                "smallest_significant_delta": dp.smallest_significant_delta, "curve": dp.curve,
                "pairs": ordered}, lines

    return _per_measure(args, analyse)


def _swaps(args: argparse.Namespace) -> int:
    from rankmeter.meta.discrimination import swap_rate

    def analyse(measure, x, topics, names):
        sr = swap_rate(x, sizes=args.size, trials=args.trials, bin_width=args.bin_width, seed=args.seed)
        lines = [f"{measure}: swap rates over {len(names)} runs, {len(topics)} topics",
                 f"{'topics':>6} {'swap rate':>10}"]
        lines += [f"{c:>6} {format_number(rate):>10}" for c, rate in sr.overall.items()]
        return {"measure": measure, "topics": len(topics), "overall": {str(c): v for c, v in sr.overall.items()},
                "bins": {str(c): [{"from": lo, "pairs": n, "swaps": s} for lo, n, s in b]
                         for c, b in sr.bins.items()}, "trials": {str(c): n for c, n in sr.trials.items()},
                "bin_width": sr.bin_width}, lines

    return _per_measure(args, analyse)


def _size(args: argparse.Namespace) -> int:
    from rankmeter.meta.design import (
        minimum_detectable_difference, power, topic_set_size, variance_estimate,
    )

    variance = args.variance
    if variance is None:
        from rankmeter.errors import ParameterError
        if not (args.qrels and args.runs and args.measure):
            raise ParameterError("give --variance, or --qrels, --run (two or more) and -m to estimate it")
        if len(set(args.measure)) > 1:
            raise ParameterError(f"-m given {len(set(args.measure))} times: the design uses one measure's variance; "
                                 "run topic-set-size once per measure")
        (x,), _, _ = _matrices(args)
        variance = variance_estimate(x)
    common = {"test": args.test, "variance": variance, "alpha": args.alpha, "systems": args.systems}
    data = {"test": args.test, "variance": variance, "alpha": args.alpha, "beta": args.beta, "systems": args.systems}
    lines = [f"{args.test} test, variance {variance:.6g}, alpha {args.alpha}, beta {args.beta}"
             + (f", {args.systems} systems" if args.test == "anova" else "")]
    if args.min_diff is not None:
        n = topic_set_size(min_diff=args.min_diff, beta=args.beta, **common)
        data.update(min_diff=args.min_diff, topics=n)
        lines.append(f"topics needed to detect a difference of {args.min_diff}: {n}")
    if args.topics is not None:
        mdd = minimum_detectable_difference(args.topics, beta=args.beta, **common)
        data.update(topics_given=args.topics, minimum_detectable_difference=mdd)
        lines.append(f"smallest difference {args.topics} topics detect: {format_number(mdd)}")
        if args.min_diff is not None:
            achieved = power(args.topics, min_diff=args.min_diff, **common)
            data["power"] = achieved
            lines.append(f"power of {args.topics} topics for a difference of {args.min_diff}: {format_number(achieved)}")
    return flags.emit(args, data, lines)


def _zscores(args: argparse.Namespace) -> int:
    from rankmeter.meta.zscores import standardisation, write_zscores
    from rankmeter.io.output import check_output

    check_output(args.output, inputs=[args.qrels, *args.runs])  # before any work (and any warning) is spent
    table = standardisation(args.qrels, list(args.runs), args.measure, **flags.evaluation(args))
    write_zscores(table, args.output, inputs=[args.qrels, *args.runs])
    print(f"wrote the mean and standard deviation of {len(args.runs)} runs for {len(table)} topics and "
          f"{len(args.measure)} measure(s) to {args.output} (trec_eval -Z)")
    return 0


def add_arguments(meta) -> None:
    from rankmeter.meta import params as meta_params
    from rankmeter.meta.correlation import correlations
    from rankmeter.meta.design import minimum_detectable_difference, power, topic_set_size
    from rankmeter.meta.discrimination import discriminative_power, swap_rate

    kinds = meta.add_subparsers(dest="meta_command", required=True, metavar="KIND", help="what to measure",
                                parser_class=flags.Parser)
    systems = PARAMS["runs"].but(help="the systems' run files (at least two)")
    c = kinds.add_parser("correlate", help="correlation between the system rankings of two measures or two qrels")
    flags.add(c, "qrels", systems, PARAMS["measure"].but(required=True, help="the two measures to correlate (or "
                                                                             "one, with --other-qrels)"),
              "other_qrels", meta_params.RBO_P,
              "format", "decimals", *_SCORING, owner=correlations)
    c.set_defaults(func=_correlate, subparser=c)

    def one_measure_over_runs(name: str, help: str):
        """A kind reading QRELS RUN... -m M (or per-query scores: --nuggets FILE...): its parser, with the
        arguments they all share."""
        kind = kinds.add_parser(name, help=help)
        kind.add_argument("qrels", nargs="?", metavar="QRELS", help=PARAMS["qrels"].help)
        kind.add_argument("runs", nargs="*", metavar="RUN", help="the systems' run files (at least two)")
        flags.add(kind, NUGGETS, PARAMS["measure"].but(required=True,
                                                          help="a measure (repeatable: each is analysed in turn; "
                                                               "a nugget score with --nuggets: strict_vital, "
                                                               "strict_all, vital, all)"),
                  "seed", "format", *_SCORING)
        return kind

    d = one_measure_over_runs("discriminative-power", "share of run pairs a measure separates (Sakai 2006)")
    flags.add(d, meta_params.POWER_TEST, "alpha", meta_params.POWER_PERMUTATIONS, owner=discriminative_power)
    d.set_defaults(func=_power, subparser=d)

    w = one_measure_over_runs("swap-rate", "how often two topic sets order a pair of runs differently")
    flags.add(w, meta_params.SIZE, meta_params.TRIALS, meta_params.BIN_WIDTH, owner=swap_rate)
    w.set_defaults(func=_swaps, subparser=w)

    t = kinds.add_parser("topic-set-size", help="topics needed, power, or smallest detectable difference "
                                                "(Sakai 2016)")
    flags.add(t, meta_params.DESIGN_TEST, meta_params.MIN_DIFF, meta_params.TOPICS, meta_params.VARIANCE,
              "alpha", meta_params.BETA, meta_params.SYSTEMS,
              flags.SHARED["qrels"].but(positional=False, required=False, flag="--qrels",
                                  help="judgments to estimate the variance from"),
              flags.SHARED["runs"].but(positional=False, required=False, flag="--run",
                                 help="a run to estimate the variance from (repeatable)"),
              PARAMS["measure"].but(help="the measure whose variance is estimated (one)"),
              "format", *_SCORING, owner=(topic_set_size, power, minimum_detectable_difference))
    t.set_defaults(func=_size, subparser=t)

    z = kinds.add_parser("zscores", help="per topic mean and deviation of reference runs: a trec_eval -Z file")
    flags.add(z, "qrels", PARAMS["runs"].but(help="the reference runs (at least two)"),
              PARAMS["measure"].but(required=True, help="a measure (repeatable; trec_eval's printed names, e.g. "
                                                        "map, P_10, for trec_eval -Z)"),
              PARAMS["output"].but(required=True), *_SCORING)
    z.set_defaults(func=_zscores, subparser=z)

    from rankmeter.cli import leaderboards
    board = kinds.add_parser("leaderboards", help=leaderboards.HELP)
    leaderboards.add_arguments(board)
    board.set_defaults(func=leaderboards.run, subparser=board)


def run(args) -> int:
    return args.func(args)
