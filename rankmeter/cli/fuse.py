"""``rankmeter fuse RUN... --method rrf --norm min-max [--param k=60] [--weights ...] -o fused.run``."""
from __future__ import annotations

from rankmeter.cli import flags
from rankmeter.core.numbers import format_number
from rankmeter.core.params import PARAMS
from rankmeter.engine.param import Param

HELP = "fuse runs (CombSUM, CombMNZ, RRF, ... as ranx names them)"

PARAM = Param("param", "strings", None, "a parameter of the method, e.g. k=60 (repeatable)", "fusion",
              metavar="NAME=VALUE")
OPTIMISE = Param("optimise", "string", None, "choose the method's parameters (weights, k, phi ...) by this measure on "
                 "--qrels, by grid search", "fusion", metavar="MEASURE")
TEST_QRELS = Param("test_qrels", "path", None, "--optimise: held-out judgments to report the chosen parameters on",
                   "fusion")


def add_arguments(p) -> None:
    from rankmeter.analyses.fusion.catalog import FUSE_OPTIONS, NORMS, PARAMETERS

    flags.add(p, "runs", FUSE_OPTIONS["method"],
              FUSE_OPTIONS["norm"].but(choices=NORMS + ("none",), help="per-query normalisation of each run's "
                                                                       "scores before fusing (none: raw scores)"),
              PARAM, PARAMETERS["weights"], PARAMS["tag"].but(help="run tag of the fused run (default: the method)"),
              OPTIMISE,
              PARAMS["qrels"].but(positional=False, required=False, flag="--qrels",
                                  help="training judgments: for --optimise, and for the trained methods (posfuse, "
                                       "probfuse, segfuse, slidefuse, bayesfuse, mapfuse)"),
              TEST_QRELS, PARAMS["output"].but(required=True, help="the TREC run file to write (never one of "
                                                                       "the inputs)"),
              *flags.EVALUATION_FUSING)


def run(args) -> int:
    from rankmeter.analyses.fusion import fuse
    from rankmeter.analyses.fusion.catalog import is_trained, parse_param, parameters_of
    from rankmeter.core.ranked_runs import write_run
    from rankmeter.errors import ParameterError

    options = flags.evaluation(args)
    params = dict(parse_param(args.method, item) for item in args.param or [])
    if args.weights:
        params["weights"] = list(args.weights)
    norm = None if args.norm == "none" else args.norm
    if args.optimise:
        if not args.qrels:
            raise ParameterError("--optimise needs --qrels: the training judgments the parameters are chosen on")
        from rankmeter.analyses.fusion.tuning import optimise
        best = optimise(list(args.runs), args.qrels, method=args.method, measure=args.optimise, norm=norm,
                        test_qrels=args.test_qrels, **options)
        params = {**params, **best.params}
        held = "" if best.held_out is None else f"; held-out {args.optimise} = {format_number(best.held_out)}"
        print(f"chosen {params} ({args.optimise} = {format_number(best.score)} on the training queries, "
              f"{len(best.trials)} tried{held})")
    trained = is_trained(args.method)
    if trained and not args.qrels and not any(p.training and p.name in params for p in parameters_of(args.method)):
        raise ParameterError(f"--method {args.method} is trained on judged queries: give --qrels (the training "
                             "judgments; the runs' judged queries train it)")
    fused = fuse(list(args.runs), method=args.method, norm=norm, params=params, name=args.tag,
                 train_qrels=args.qrels if trained else None, **options)
    write_run(fused, args.output, inputs=list(args.runs) + [q for q in (args.qrels, args.test_qrels) if q],
              format="trec")
    return 0
