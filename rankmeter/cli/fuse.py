"""``rankmeter fuse RUN... --method rrf --norm min-max [--param k=60] [--weights ...] -o fused.run``.

``-m MEASURE --qrels TRAIN`` first chooses the method's parameters that maximise the measure on the training
judgments (:func:`~rankmeter.fusion.optimise`, whose ``measure=`` it is), then fuses with them.
"""
from __future__ import annotations

from rankmeter.cli import flags
from rankmeter.core.numbers import format_number
from rankmeter.core.params import PARAMS
from rankmeter.engine.param import Param

HELP = "fuse runs (CombSUM, CombMNZ, RRF, ... as ranx names them)"

PARAM = flags.declare("param", "strings", None, "a parameter of the method, e.g. k=60 (repeatable)",
                      metavar="NAME=VALUE")
#: optimise(measure=): given, the method's parameters are chosen before fusing (--optimise is its older flag)
MEASURE = flags.SHARED["measure"].but(kind="string", help="choose the method's parameters (weights, k, phi ...) that "
                                "maximise this measure on --qrels (grid search), then fuse with them",
                                deprecated=("--optimise",))
TEST_QRELS = Param("test_qrels", "path", None, "with -m: held-out judgments to report the chosen parameters on")
#: the training judgments of optimise(qrels=) and of the trained methods (fuse(train_qrels=))
QRELS = flags.SHARED["qrels"].but(positional=False, required=False,
                                  help="training judgments: for -m, and for the trained "
                            "methods (posfuse, probfuse, segfuse, slidefuse, bayesfuse, mapfuse)")


def add_arguments(p) -> None:
    from rankmeter.fusion.catalog import FUSE_OPTIONS, PARAMETERS
    from rankmeter.fusion.methods import fuse
    from rankmeter.fusion.tuning import optimise

    flags.add(p, "runs", FUSE_OPTIONS["method"],
              FUSE_OPTIONS["norm"],
              PARAM, PARAMETERS["weights"], FUSE_OPTIONS["tag"], MEASURE, QRELS, TEST_QRELS,
              PARAMS["output"].but(required=True, help="the TREC run file to write (never one of the inputs)"),
              *flags.EVALUATION_FUSING, owner=(fuse, optimise))


def run(args) -> int:
    from rankmeter.fusion import fuse
    from rankmeter.fusion.catalog import is_trained, parse_param, parameters_of
    from rankmeter.core.ranked_runs import write_run
    from rankmeter.errors import ParameterError

    options = flags.evaluation(args)
    params = dict(parse_param(args.method, item) for item in args.param or [])
    if args.weights:
        params["weights"] = list(args.weights)
    norm = args.norm
    if args.measure:
        if not args.qrels:
            raise ParameterError("-m needs --qrels: the training judgments the parameters are chosen on")
        from rankmeter.fusion.tuning import optimise
        best = optimise(list(args.runs), args.qrels, method=args.method, measure=args.measure, norm=norm,
                        test_qrels=args.test_qrels, **options)
        params = {**params, **best.params}
        held = "" if best.held_out is None else f"; held-out {args.measure} = {format_number(best.held_out)}"
        print(f"chosen {params} ({args.measure} = {format_number(best.score)} on the training queries, "
              f"{len(best.trials)} tried{held})")
    trained = is_trained(args.method)
    if trained and not args.qrels and not any(p.training and p.name in params for p in parameters_of(args.method)):
        raise ParameterError(f"--method {args.method} is trained on judged queries: give --qrels (the training "
                             "judgments; the runs' judged queries train it)")
    fused = fuse(list(args.runs), method=args.method, norm=norm, params=params, tag=args.tag,
                 train_qrels=args.qrels if trained else None, **options)
    write_run(fused, args.output, inputs=list(args.runs) + [q for q in (args.qrels, args.test_qrels) if q],
              format="trec")
    return 0
