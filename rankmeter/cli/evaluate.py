"""``rankmeter eval QRELS RUN... -m MEASURE...``: score runs with chosen measures."""
from __future__ import annotations


from rankmeter.cli import flags, presets
from rankmeter.core.params import PARAMS
from rankmeter.engine.param import Param

HELP = "score runs with chosen measures"
#: the lint eval runs after scoring (rankmeter.check.lint), on unless --no-lint
LINT = Param("lint", "bool", True, "do not warn about suspicious numbers (see rankmeter check)")
CHUNKED = Param("chunked", "bool", False, "the same as --executor streamed")


def add_arguments(p) -> None:
    flags.add(p, "qrels", "runs", "measure")
    flags.add(p, "per_query", PARAMS["format"].but(choices=("text", "json", "csv"),
                                                   help="text: a table fitted to the terminal; json: {measures, "
                                                        "options, runs: [...]}; csv"),
              "decimals", *flags.EVALUATION, "executor", CHUNKED, LINT)
    presets.add_profile(p, dataset=True)


def run(args) -> int:
    from rankmeter.core import Evaluator
    from rankmeter.core.naming import unique_names
    from rankmeter.executors.streamed import evaluate_streamed
    from rankmeter.io import as_run
    from rankmeter.report.text import print_results

    measures, options, preset = presets.apply_profile(args, args.measure)
    if args.chunked:
        options["executor"] = "streamed"
    if args.profile == "dataset":  # the dataset's official measures and relevance level (ir_datasets profiles)
        from rankmeter.io.irds import profile, relevance_level
        measures = (measures or []) + profile(args.qrels)
        if "rel" not in presets.given(args):
            options["rel"] = relevance_level(args.qrels)
    if not measures:
        from rankmeter.errors import ParameterError
        raise ParameterError("give at least one measure with -m (e.g. -m AP -m nDCG@10), or --profile NAME ("
                             + ", ".join(presets.NAMES) + "; a bare --profile for an ir_datasets qrels)")
    decimals = args.decimals
    if preset is not None and preset.decimals is not None and "decimals" not in presets.given(args):
        decimals = preset.decimals
    from rankmeter.core.options import validate_options
    from rankmeter.executors.streamed import evaluate_auto, streams_by_itself
    opts = validate_options(**options)
    hidden = False
    if args.lint and not _all_streamed(args.runs, opts, streams_by_itself):
        # the lint reads the top docs' coverage from one more measure, scored in the same pass (a streamed run
        # gets the range check only: no measure is added for it)
        from rankmeter.check import lint
        measures, hidden = lint.with_judged(measures)
    evaluator = Evaluator.of(args.qrels, measures, opts)
    all_results, tags, sources, runs_read = [], [], [], []  # runs_read: each run's lint findings
    for path in args.runs:  # one run in memory at a time
        if evaluator.options.executor == "streamed":
            results, source, loaded = evaluate_streamed(evaluator, path), path, None
        elif streams_by_itself(path, evaluator.options):  # a gigabyte or more: streamed unless not grouped
            results, source, loaded = evaluate_auto(evaluator, path), path, None
        else:
            loaded = as_run(path, columns=evaluator.options.columns, input_format=evaluator.options.input_format)
            results, source = evaluator.evaluate(loaded), loaded.source
        tag = "" if results.run in (path, source, "") else results.run
        if args.lint:  # suspicious numbers, found while this run is in memory (a streamed one: its values only)
            from rankmeter.check import lint
            runs_read.append(lint.lint(None, loaded, results=results, evaluator=evaluator) if loaded is not None
                             else lint.lint_results(results))
            results = lint.without(results, lint.JUDGED) if hidden else results
        all_results.append(results)
        tags.append(tag)
        sources.append(source)
    names = unique_names(tags, sources, args.runs)  # the one naming rule: eval, compare, report, JSON, Python
    if args.format == "json":
        runs = [dict(r.to_dict(per_query=args.per_query), run=name) for name, r in zip(names, all_results)]
        flags.write_json({"measures": all_results[0].names,
                          "options": {k: v for k, v in options.items() if v is not None}, "runs": runs})
    else:
        print_results(all_results, names, format=args.format, per_query=args.per_query, decimals=decimals)
    for name, found in zip(names, runs_read):  # one warning line each (--no-lint silences them)
        from dataclasses import replace
        from rankmeter.check import lint
        lint.warn([replace(f, source=name) for f in found])
    return 0


def _all_streamed(runs, options, streams_by_itself) -> bool:
    """Whether every run is scored by the streamed executor (the lint then looks at their values only)."""
    return options.executor == "streamed" or all(streams_by_itself(path, options) for path in runs)
