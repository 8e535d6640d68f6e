"""``rankmeter baseline QRELS RUN... -m MEASURE... -o BASE.json``: save per-query values for the gate.

One run, or several runs of one nondeterministic system (kept apart: the gate then knows the run-to-run noise).
The file records the judgments' digest, the measures with every option, the scoring options, rankmeter's
version, each run's digest and tag and the date (rankmeter.gate.saved).
"""
from __future__ import annotations

import sys

from rankmeter.cli import flags, presets
from rankmeter.core.numbers import format_number
from rankmeter.core.params import PARAMS

SLICES = flags.declare("slices", "path", None, "query slices the gate checks too: lines 'QUERY SLICE' or JSON "
                       "{slice: [queries]}", metavar="FILE")

HELP = "save a run's per-query values with their provenance: the baseline `rankmeter gate` compares with"


def add_arguments(p) -> None:
    flags.add(p, "qrels", PARAMS["runs"].but(help="the system's run (several: repeated runs of one system)"),
              PARAMS["measure"].but(help="a measure (repeatable; required unless --profile gives them)"),
              SLICES,
              PARAMS["output"].but(required=True, help="the baseline file to write (JSON; never one of the inputs)"),
              *flags.EVALUATION)
    presets.add_profile(p)


def run(args) -> int:
    from rankmeter.gate.saved import baseline, save_baseline
    from rankmeter.io.output import check_output

    inputs = [args.qrels, *args.runs] + ([args.slices] if args.slices else [])
    check_output(args.output, inputs=inputs)  # before any work is spent
    measures, options, _ = presets.apply_profile(args, args.measure)
    if not measures:
        from rankmeter.errors import ParameterError
        raise ParameterError("give a measure with -m (e.g. -m nDCG@10), or --profile NAME")
    base = baseline(args.qrels, list(args.runs), measures, slices=args.slices, **options)
    save_baseline(base, args.output, inputs=inputs)
    means = ", ".join(f"{e['name']} {format_number(base.values[e['canonical']].mean())}" for e in base.measures)
    print(f"baseline of {len(base.runs)} run(s) over {len(base.queries)} queries ({means}) -> {args.output}",
          file=sys.stderr)
    return 0
