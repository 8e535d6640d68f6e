"""``rankmeter judges estimate`` and ``rankmeter judges allocate``: estimates with valid intervals from LLM labels on
every query and human labels on a sample, and where to spend the next human labels (rankmeter.judges.ppi,
rankmeter.judges.allocation)."""
from __future__ import annotations


from rankmeter.judges.params import BUDGET, DESIGN, EARLIER_DESIGN, RANK_RESAMPLES, STRATA, TARGET, UNIT, WIDTH
from rankmeter.cli import flags
from rankmeter.core.params import PARAMS

#: where allocate writes its design
DESIGN_OUT = flags.SHARED["output"].but(help="write the design (JSON: each unit's stratum, the labels per stratum, the "
                                       "seed) to FILE, for `judges estimate --design FILE` once the chosen units "
                                       "are labelled", metavar="FILE")

def add_parsers(kinds) -> None:
    """The two kinds, added to ``rankmeter judges``."""
    from rankmeter.judges.allocation import allocate
    from rankmeter.judges.ppi import estimate

    e = kinds.add_parser("estimate", help="PPI++ estimates of each run's mean and each pair's difference, with "
                                          "intervals, beside the LLM-only and human-only ones")
    common = (flags.SHARED["qrels"].but(name="human", metavar="HUMAN",
                                        help="human judgments of a random sample of queries"),
              flags.SHARED["qrels"].but(name="llm", metavar="LLM", help="the LLM's judgments of every query"),
              PARAMS["runs"].but(help="the runs"), PARAMS["measure"].but(required=True))
    flags.add(e, *common, UNIT, DESIGN, "alpha", PARAMS["format"].but(choices=("text", "json")), "decimals",
              *flags.EVALUATION, owner=estimate)
    e.set_defaults(func=run_estimate, subparser=e)
    a = kinds.add_parser("allocate", help="which queries to send to assessors next, and how many labels a target "
                                          "interval width needs")
    flags.add(a, *common, UNIT, BUDGET, STRATA, TARGET, EARLIER_DESIGN, WIDTH, DESIGN_OUT, "alpha", "seed",
              PARAMS["format"].but(choices=("text", "json")), *flags.EVALUATION, owner=(allocate, estimate))
    a.set_defaults(func=run_allocate, subparser=a)
    r = kinds.add_parser("ranking", help="Kendall's tau and tau_ap of the runs ranked under the LLM's labels (the "
                                         "mean over its draws) against the human ranking, with intervals over the "
                                         "queries and the draws")
    flags.add(r, flags.SHARED["qrels"].but(name="human", metavar="HUMAN", help="the human judgments"),
              flags.SHARED["qrels"].but(name="llm", metavar="LLM", help="the LLM's judgments (several lines per "
                                                                        "pair: its draws)"),
              PARAMS["runs"].but(help="the runs (two or more)"), PARAMS["measure"].but(required=True), "alpha",
              RANK_RESAMPLES, "seed", PARAMS["format"].but(choices=("text", "json")), "decimals",
              *flags.EVALUATION)
    r.set_defaults(func=run_ranking, subparser=r)


def run_ranking(args) -> int:
    from rankmeter.judges.ranking import rank_agreement_text, rank_agreement_with
    from rankmeter.core.options import validate_options

    got = rank_agreement_with(args.human, args.llm, list(args.runs), args.measure,
                              validate_options(**flags.evaluation(args)), alpha=args.alpha,
                              permutations=args.permutations, seed=args.seed or 0)
    return flags.emit(args, got, rank_agreement_text(got, decimals=args.decimals))


def run_estimate(args) -> int:
    from rankmeter.judges.ppi import estimate
    from rankmeter.io.output import printable

    got = estimate(args.human, args.llm, list(args.runs), args.measure, alpha=args.alpha, unit=args.unit,
                   design=args.design, **flags.evaluation(args))
    d = args.decimals
    level = round(100 * (1 - args.alpha))

    def cell(e):
        return f"{e['estimate']:.{d}f} [{e['low']:.{d}f}, {e['high']:.{d}f}]"

    sample = (f"{got.labelled_pairs} of {got.frame_pairs} pairs within the runs' depth human-labelled, in "
              f"{got.labelled} of {got.queries} queries" if got.unit == "pairs" else
              f"{got.labelled} of {got.queries} queries human-labelled")
    if got.design is not None:
        sample += f" (stratified design {args.design}: {got.design['strata']} strata, each weighted by its size)"
    lines = [f"{sample}; {level}% intervals",
             f"{'run':<16} {'measure':<10} {'PPI++':>26}  {'LLM only (biased)':>26}  {'human only':>26}"]
    lines += [f"{printable(r['run']):<16} {r['measure']:<10} {cell(r['ppi']):>26}  {cell(r['llm_only']):>26}  "
              f"{cell(r['human_only']):>26}" for r in got.runs]
    if got.pairs:
        lines += ["", "differences (a - b)"]
        lines += [f"{printable(p['a'])} - {printable(p['b'])}  {p['measure']}: PPI++ {cell(p['ppi'])}; LLM only "
                  f"{cell(p['llm_only'])}; human only {cell(p['human_only'])}" for p in got.pairs]
    if got.draws is not None:
        def share(e):
            return "n/a" if e.get("judge_share") is None else f"{e['judge_share']:.0%}"

        lines += ["", f"the LLM's labels: {got.draws['min']}-{got.draws['max']} draws per query, each query's metric "
                      "their mean; the judge's share of each interval's variance, and the LLM-only mean over the "
                      "draws alone (these queries labelled again):"]
        lines += [f"{printable(r['run'])} {r['measure']}: PPI++ {share(r['ppi'])}, LLM only {share(r['llm_only'])}; "
                  f"redrawn {cell(r['llm_redraw'])}" for r in got.runs]
        lines += [f"{printable(p['a'])} - {printable(p['b'])} {p['measure']}: PPI++ {share(p['ppi'])}, LLM only "
                  f"{share(p['llm_only'])}; redrawn {cell(p['llm_redraw'])}" for p in got.pairs]
    lines += [f"warning: {w}" for w in got.warnings]
    return flags.emit(args, got.to_dict(), lines)


def run_allocate(args) -> int:
    import numpy as np

    from rankmeter.judges.allocation import allocate, cut_strata, design_rows, labels_needed
    from rankmeter.judges.ppi import split_labelled_queries, per_query_values
    from rankmeter.core.naming import name_runs
    from rankmeter.core.order import natural_order
    from rankmeter.io.output import printable

    from rankmeter.core.options import validate_options

    options = validate_options(**flags.evaluation(args))
    named = name_runs(list(args.runs), columns=options.columns)
    if args.unit != "queries":
        from rankmeter.judges import pair_ppi

        names, depth = pair_ppi.depth_of(args.measure[:1], options)
        frame = pair_ppi.pair_frame(args.human, args.llm, named, depth or 2 ** 62,
                                    ties=options.ties, grades=options.grades)
        if args.unit == "pairs" or not pair_ppi.whole_queries(frame):
            from rankmeter.judges.draws import has_draws

            if has_draws(args.llm, grades=options.grades):
                from rankmeter.errors import ParameterError

                raise ParameterError("the LLM's judgments hold several draws of a pair's label: allocate reads them "
                                     "as draws with human labels on whole queries (--unit queries); for a sample "
                                     "of pairs make them one grade each first (judges aggregate --method mean)")
            if args.design is not None:
                from rankmeter.errors import ParameterError

                raise ParameterError("allocate reads an earlier design (--design) for human labels on whole "
                                     "queries only; pairs' strata are their rank bands, found again from the runs "
                                     "and measure: allocate without it")
            return _allocate_pairs(args, frame, named, names)
    labelled, unlabelled, _ = split_labelled_queries(args.human, args.llm, options)
    measure = args.measure[0]
    per_draw = _draws(args.llm, named, measure, labelled + unlabelled, options)
    if per_draw is not None:      # several draws a pair: each query's metric its mean over them, as estimate's
        from rankmeter.judges.draws import query_means

        f = {key: query_means(values)[0] for key, values in per_draw.items()}
    else:
        f = per_query_values(args.llm, named, [measure], labelled + unlabelled, options)
    label = next(iter(f))[1]
    runs = [name for name, _ in named]
    f_runs = np.array([f[(name, label)] for name in runs])
    # the strata are cut in the queries' own order (not labelled first), so they do not depend on which are labelled
    every = labelled + unlabelled
    order = natural_order(every)
    strata = np.empty(len(every), dtype=np.int64)
    strata[order] = cut_strata(f_runs.mean(0)[order], args.strata)
    notes, earlier = [], None
    if args.design is not None:
        from rankmeter.judges.design import earlier_round

        earlier, kept, notes = earlier_round(args.design, measure=label, runs=runs, strata=args.strata,
                                             assignment=dict(zip(every, strata.tolist())), labelled=labelled)
        moved = [q for q in labelled if q not in kept]
        labelled, unlabelled = [q for q in labelled if q in kept], moved + unlabelled
        position = {q: i for i, q in enumerate(every)}
        strata, f_runs = (a[..., [position[q] for q in labelled + unlabelled]] for a in (strata, f_runs))
    y = per_query_values(args.human, named, [measure], labelled, options)
    y_runs = np.array([y[(name, label)] for name in runs])
    n = len(labelled)
    targets = design_rows(f_runs[:, :1], target=args.target, names=runs)[1]
    plan = allocate(y_runs, f_runs[:, :n], f_runs[:, n:], args.budget, strata=args.strata, seed=args.seed or 0,
                    target=args.target, assignment=strata)
    chosen = [unlabelled[i] for i in plan["chosen"]]
    kind = "Neyman" if plan["neyman"] == 1 else "proportional" if plan["neyman"] == 0 else \
        f"{plan['neyman']:.0%} Neyman, the rest proportional"
    data = {"measure": label, "labelled": n, "queries": n + len(unlabelled), "budget": args.budget,
            "chosen": chosen, "per_stratum": plan["per_stratum"], "stratum_spreads": plan["spreads"]}
    lines = [f"{len(chosen)} queries to label next ({label}, {args.strata} strata of the LLM's metric, labels per "
             f"stratum {plan['per_stratum']}, {kind} allocation for "
             f"{_TARGETS[args.target] if len(runs) > 1 else 'the run'}):", " ".join(chosen)]
    if args.width is not None:
        # each interval the labels are for (each run's mean, each pair's difference) sized on its own
        y_rows, names = design_rows(y_runs, target=args.target, names=runs)
        f_rows, _ = design_rows(f_runs, target=args.target, names=runs)
        rows = labels_needed(y_rows, f_rows[:, :n], f_rows[:, n:], args.width, alpha=args.alpha, per_row=True)
        needed = None if None in rows else max(rows)
        data["labels_needed"] = needed
        data["labels_needed_by_target"] = dict(zip(names, rows))
        lines.append(f"labelled queries for every interval ({_TARGETS[args.target] if len(runs) > 1 else 'the run'})"
                     f" {args.width} wide: "
                     + (f"{needed} ({max(0, needed - n)} more)" if needed else "not reachable with these queries")
                     + "; " + ", ".join(f"{printable(k)} {v if v is not None else 'not reachable'}"
                                        for k, v in zip(names, rows)))
        if per_draw is not None:
            _draws_plan(args, data, lines, per_draw, runs, label, n + len(unlabelled))
    lines += [f"warning: {w}" for w in notes]
    data["warnings"] = notes
    allocation = {"target": args.target, "targets": targets, "neyman": plan["neyman"],
                  "row_spreads": plan["row_spreads"], "round": 1 if earlier is None else earlier.get("round", 1) + 1}
    assignment = list(zip(labelled + unlabelled, plan["strata"]))
    return _finish(args, data, lines, "queries", named, label, assignment, labelled, chosen, plan["per_stratum"],
                   plan["spreads"], allocation=allocation)


def _draws(llm, named, measure, queries, options):
    """Each run's values under each draw of the LLM's labels ({key: (Q, D)}), or None for one label a pair."""
    from rankmeter.judges.draws import draw_tables, draw_values, has_draws
    from rankmeter.judges.ppi import per_query_values

    if not has_draws(llm, grades=options.grades):
        return None
    tables, least = draw_tables(llm, grades=options.grades)
    return draw_values(tables, least, lambda t: per_query_values(t, named, [measure], queries, options), queries)[0]


def _draws_plan(args, data, lines, per_draw, runs, label, queries) -> None:
    """``--width`` with several draws a pair: the draws a pair and the queries the LLM-only intervals need."""
    from rankmeter.judges.allocation import draws_needed
    from rankmeter.io.output import printable

    keys = [(name, label) for name in runs]
    rows = [per_draw[k] for k in keys]
    names = list(runs)
    if args.target in ("difference", "both") and len(runs) > 1:
        pairs = [(i, j) for i in range(len(runs)) for j in range(i + 1, len(runs))]
        if args.target == "difference":
            rows, names = [], []
        rows += [per_draw[keys[i]] - per_draw[keys[j]] for i, j in pairs]
        names += [f"{runs[i]} - {runs[j]}" for i, j in pairs]
    plans = {name: draws_needed(v, args.width, alpha=args.alpha) for name, v in zip(names, rows)}
    redraw = [p["redraw_draws"] for p in plans.values()]
    most = None if None in redraw else max(redraw)
    first = [max(p["plans"][m]["queries"] for p in plans.values()) for m in range(3)]
    data["draws_needed"] = {"redraw_draws": most, "by_target": plans}
    lines.append(f"the LLM's draws: for every LLM-only interval {args.width} wide over the draws alone (these "
                 f"{queries} queries labelled again): "
                 + (f"{most} draws a pair" if most else "more than 10 draws a pair")
                 + "; over queries and draws (the population's): "
                 + ", ".join(f"{q} queries at {m + 1} draw{'s' if m else ''} a pair" for m, q in enumerate(first))
                 + "; by target: " + ", ".join(f"{printable(k)} {v['redraw_draws'] or '>10'}" for k,
                                               v in plans.items()))


_TARGETS = {"mean": "each run's mean", "difference": "each pair's difference",
            "both": "each run's mean and each pair's difference"}


def _finish(args, data, lines, unit, named, label, assignment, pilot, chosen, per_stratum, spreads, codes=None,
            allocation=None) -> int:
    """The design added to the JSON, and written to ``-o FILE``."""
    from rankmeter.judges import design

    doc = design.make(unit, measure=label, runs=[name for name, _ in named], seed=args.seed or 0,
                      budget=args.budget, assignment=assignment, pilot=pilot, chosen=chosen,
                      per_stratum=per_stratum, spreads=spreads, codes=codes,
                      **(allocation or {}))
    if args.output:
        design.write(doc, args.output, inputs=[args.human, args.llm, *args.runs])
        lines.append(f"design -> {args.output} (once the chosen {unit} are labelled and added to HUMAN: "
                     f"judges estimate ... --design {args.output})")
    else:
        lines.append(f"keep the design (-o FILE) for `judges estimate ... --design FILE`: an allocated sample "
                     f"estimated as a uniform one is biased")
    return flags.emit(args, {**doc, **data}, lines)


def _allocate_pairs(args, frame, named, names) -> int:
    """``judges allocate`` with human labels on pairs: the next pairs, by Neyman allocation over rank bands."""
    import numpy as np

    from rankmeter.judges.allocation import allocate_pairs
    from rankmeter.judges.pair_ppi import decode, doc_weights
    from rankmeter.io.output import printable

    label, measure = names[0]
    grades = np.unique(np.concatenate([frame.llm, frame.human[frame.labelled]]))
    deepest = max(int(r.max()) for r in frame.ranks.values()) if len(frame.best) else 1
    w, gain = doc_weights(label, grades, measure.cutoff if isinstance(measure.cutoff, int) else deepest,
                          **flags.evaluation(args))
    # the runs' mean part of each pair: where human and LLM differ most, labels shrink the interval most
    e = np.mean([frame.contributions(n, w, gain, frame.human) - frame.contributions(n, w, gain, frame.llm)
                 for n, _ in named], axis=0)
    plan = allocate_pairs(frame, np.where(frame.labelled, e, 0.0), args.budget, seed=args.seed or 0)
    queries = np.array(frame.queries, dtype=object)[frame.pair_query]
    chosen = [[str(queries[i]), decode(frame.docs[i])] for i in plan["chosen"]]
    data = {"unit": "pairs", "measure": label, "labelled_pairs": int(frame.labelled.sum()),
            "frame_pairs": len(frame.best), "budget": args.budget, "chosen": chosen, "bands": plan["bands"],
            "per_band": plan["per_band"], "band_spreads": plan["spreads"]}
    bands = ", ".join(f"ranks {lo}-{hi}: {k}" for (lo, hi), k in zip(plan["bands"], plan["per_band"]))
    lines = [f"{len(chosen)} pairs to label next ({label}; labels per band of best rank: {bands}):"]
    lines += [f"{printable(q)} {printable(d)}" for q, d in chosen]
    if args.width is not None:
        from rankmeter.judges.allocation import pairs_needed
        from rankmeter.judges.pair_ppi import strata_of

        from rankmeter.judges.allocation import design_rows

        # every interval promised, each run's mean and each pair's difference, sized on its own
        human_rows, targets = design_rows([frame.contributions(n, w, gain, frame.human) for n, _ in named],
                                          target="both" if len(named) > 1 else "mean", names=[n for n, _ in named])
        llm_rows, _ = design_rows([frame.contributions(n, w, gain, frame.llm) for n, _ in named],
                                  target="both" if len(named) > 1 else "mean")
        strata = strata_of(frame, [])
        rows = [pairs_needed(y, f, frame.labelled, strata, args.width, queries=len(frame.queries), alpha=args.alpha)
                for y, f in zip(human_rows, llm_rows)]
        needed = None if None in rows else max(rows)
        data["labels_needed"] = needed
        data["labels_needed_by_target"] = dict(zip(targets, rows))
        have = int(frame.labelled.sum())
        lines.append(f"labelled pairs for every {label} interval (each run's mean, each pair's difference) "
                     f"{args.width} wide (spread over the rank bands): "
                     + (f"{needed} ({max(0, needed - have)} more)" if needed else "not reachable with these pairs")
                     + "; " + ", ".join(f"{printable(k)} {v if v is not None else 'not reachable'}"
                                        for k, v in zip(targets, rows)))
    docs = [decode(d) for d in frame.docs]
    assignment = [(str(q), d, int(b)) for q, d, b in zip(queries, docs, frame.band)]
    pilot = [[str(queries[i]), docs[i]] for i in np.flatnonzero(frame.labelled)]
    return _finish(args, data, lines, "pairs", named, label, assignment, pilot, chosen, plan["per_band"],
                   plan["spreads"], codes=np.unique(frame.band))
