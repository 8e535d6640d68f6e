"""``rankmeter gate QRELS RUN --baseline BASE.json``: fail when the run is worse than the baseline beyond a margin.

A one-sided paired test per measure and slice of "worse than the baseline by more than the margin", corrected
across them. Exit 0 when every check passes, 1 when a regression is significant, 2 when the inputs are wrong or
not comparable with the baseline (other judgments, scoring options or queries: --allow accepts a change).
``--update-baseline`` replaces the baseline with this run when it passes and no check's mean is lower (the
ratchet; ``--allow-lower`` lets it go down), keeping the replaced file in ``BASE.history/``.
"""
from __future__ import annotations

import sys

from rankmeter.cli import flags, presets
from rankmeter.engine.param import Param
from rankmeter.core.params import PARAMS

HELP = "retrieval quality as a regression test: compare a run with a saved baseline (exit 1 on a regression)"


#: this command's own knobs (the tests' knobs are the gate's: rankmeter.gate.checks.GATE_PARAMS)
OWN = (
    flags.declare("run", "path", None, "the new run", positional=True, required=True, metavar="RUN"),
    flags.declare("baseline", "path", None, "the baseline `rankmeter baseline` wrote", required=True,
                  metavar="BASE.json"),
    flags.declare("slices", "path", None, "query slices (default: the baseline's): lines 'QUERY SLICE' or JSON "
                  "{slice: [queries]}", metavar="FILE"),
    Param("update_baseline", "bool", False, "replace the baseline with this run when the gate passes and no "
          "check's mean is lower (the ratchet); the old file is kept in BASE.history/"),
    Param("only_if_better", "bool", False, "with --update-baseline: replace it only when some check is "
          "significantly better than the baseline"),
    Param("allow_lower", "bool", False, "with --update-baseline: replace it also when a check's mean is lower "
          "(within the margin): the bar may go down"),
)


def add_arguments(p) -> None:
    from rankmeter.gate.checks import GATE_PARAMS, gate
    flags.add(p, "qrels", *OWN,
              PARAMS["measure"].but(help="a measure to check (repeatable; default: every measure of the baseline)"),
              *GATE_PARAMS.values(), PARAMS["format"].but(choices=("text", "markdown", "json", "junit")),
              "decimals", *flags.EVALUATION, owner=gate)
    presets.add_profile(p)


def _given_options(args) -> dict:
    """The evaluation flags the user set, over the --profile's options (the rest comes from the baseline)."""
    _, options, preset = presets.apply_profile(args, args.measure)
    typed = presets.given(args) | set(preset.options if preset is not None else ())
    return {name: value for name, value in options.items() if name in typed or value != PARAMS[name].default}


def run(args) -> int:
    from rankmeter.gate.saved import load_baseline
    from rankmeter.gate.checks import GATE_PARAMS, gate
    from rankmeter.report.gate import gate_report

    base = load_baseline(args.baseline)
    keywords = flags.keywords(args, GATE_PARAMS)
    keywords["allow"] = keywords.get("allow") or ()
    result = gate(args.qrels, args.run, base, args.measure or None, slices=args.slices,
                  **_given_options(args), **keywords)
    sys.stdout.write(gate_report(result, args.format, decimals=args.decimals))
    if result.refused and args.format != "text":  # the text report's first line says it already
        print(f"rankmeter gate: refused: {result.refused}", file=sys.stderr)
    if args.update_baseline:
        from rankmeter.gate.ratchet import update_baseline
        _, why = update_baseline(base, result, args.qrels, args.run, args.baseline,
                                 only_if_better=args.only_if_better, allow_lower=args.allow_lower,
                                 options=_given_options(args))
        print(f"rankmeter gate: {why}", file=sys.stderr)
    return result.exit_status
