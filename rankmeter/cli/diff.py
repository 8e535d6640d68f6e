"""``rankmeter diff QRELS RUN -m M... --as trec_eval,ranx,...``: why tools' numbers differ, cause by cause."""
from __future__ import annotations

import sys

from rankmeter.cli import flags
from rankmeter.core.numbers import format_number
from rankmeter.core.params import PARAMS

HELP = ("each tool's value side by side (trec_eval, pytrec_eval, ir_measures, ranx, torchmetrics, sklearn, beir, mteb); "
        "every difference attributed to the convention causing it, one switch at a time")
DEFAULT_AS = "trec_eval,pytrec_eval,ir_measures,ranx,torchmetrics,sklearn"
#: diff(conventions=), comma-separated (``as`` is a Python word: the flag keeps the docs' --as)
CONVENTIONS = flags.declare("conventions", "string", DEFAULT_AS,
                            "the conventions compared, the first the reference (also "
                            "beir, mteb)", flag="--as", metavar="TOOL,TOOL...")
#: to_text(top=)
TOP = flags.declare("top", "integer", 10, "queries listed per measure in text, most affected first (JSON lists all)",
                    low=0, metavar="N")


def add_arguments(p) -> None:
    flags.add(p, "qrels", "run", PARAMS["measure"].but(help="a measure (repeatable; default nDCG@10 RR@10 AP)"),
              "format", "decimals", CONVENTIONS, TOP)


def run(args) -> int:
    from rankmeter.diff.attribution import diff

    names = [n.strip() for n in args.conventions.split(",") if n.strip()]
    report = diff(args.qrels, args.run, args.measure or ["nDCG@10", "RR@10", "AP"], names)
    if args.format == "json":
        flags.write_json(report)
    else:
        sys.stdout.write(to_text(report, decimals=args.decimals, top=args.top))
    return 0


def _fmt(value, decimals: int) -> str:
    return format_number(value, decimals)


def to_text(report: dict, *, decimals: int = 4, top: int = 10) -> str:
    """The report as text: means side by side, the mean's difference by cause, the queries most affected."""
    names = list(report["conventions"])
    ref = names[0]
    width = max(len(m) for m in report["measures"] + ["measure"]) + 2
    cols = [max(len(n), decimals + 4) + 2 for n in names]
    lines = ["measure".ljust(width) + "".join(n.rjust(c) for n, c in zip(names, cols))]
    for m in report["measures"]:
        lines.append(m.ljust(width) + "".join(_fmt(report["conventions"][n][m], decimals).rjust(c)
                                              for n, c in zip(names, cols)))
    for m in report["measures"]:
        for other in names[1:]:
            parts = [c for c in report["mean_causes"] if c["measure"] == m and c["conventions"][1] == other]
            a, b = report["conventions"][ref][m], report["conventions"][other][m]
            if not parts or a is None or b is None:
                continue
            lines.append(f"\n{m}: {ref} -> {other}: {b - a:+.{decimals + 2}f} = "
                         + " ".join(f"{c['cause']} {c['delta']:+.{decimals + 2}f}" for c in parts))
        rows = [r for r in report["queries"] if r["measure"] == m
                and any(c["cause"] != "rounding" for c in r["causes"])][:top]   # rounding alone: not listed
        if rows:
            lines.append(f"\n{m}: queries most affected")
            for r in rows:
                vals = " ".join(f"{n}={_fmt(r['values'].get(n), decimals)}" for n in names if n in r["values"])
                causes = sorted({c["cause"] for c in r["causes"]})
                lines.append(f"  {r['query']}: {vals}  [{', '.join(causes)}]")
                for group in r.get("tied", [])[:3]:
                    lines.append("    tied: " + " ".join(group[:8]) + (" ..." if len(group) > 8 else ""))
    lines.append("\nto reproduce each convention with rankmeter:")
    for n in names:
        for m, call in report["reproduce"][n].items():
            lines.append(f"  {n} {m}: {call}")
    return "\n".join(lines) + "\n"
