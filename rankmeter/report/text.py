"""Tables for people: rich when installed and writing to a terminal, plain text otherwise; CSV."""
from __future__ import annotations

import csv
import sys

__all__ = ["print_results", "print_measures"]


def _fmt(value) -> str:
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)


def _rows(results_list, names, per_query):
    measure_names = results_list[0].names
    header = ["run", "query"] + measure_names
    rows = []
    for res, name in zip(results_list, names):
        label = res.run or name
        if per_query:
            columns = [res.values(m) for m in measure_names]
            for i, q in enumerate(res.queries):
                rows.append([label, q] + [col[i] for col in columns])
        rows.append([label, "all"] + list(res.mean.values()))
    return header, rows


def print_results(results_list, names, *, fmt="text", per_query=False, out=None) -> None:
    out = out or sys.stdout
    header, rows = _rows(results_list, names, per_query)
    if fmt == "csv":
        w = csv.writer(out, lineterminator="\n")
        w.writerow(header)
        for row in rows:
            w.writerow([v.item() if hasattr(v, "item") else v for v in row])
        return
    try:
        if not out.isatty():
            raise ImportError
        from rich.console import Console
        from rich.table import Table
    except (ImportError, AttributeError):
        widths = [max(len(str(h)), *(len(_fmt(r[i])) for r in rows)) for i, h in enumerate(header)]
        out.write("  ".join(str(h).ljust(w) for h, w in zip(header, widths)).rstrip() + "\n")
        for r in rows:
            out.write("  ".join(_fmt(v).ljust(w) for v, w in zip(r, widths)).rstrip() + "\n")
        return
    table = Table()
    for i, h in enumerate(header):
        table.add_column(h, justify="left" if i < 2 else "right")
    for r in rows:
        table.add_row(*(_fmt(v) for v in r))
    Console(file=out).print(table)


def print_measures(out=None) -> None:
    from ..measures import REGISTRY
    out = out or sys.stdout
    for name in sorted(REGISTRY, key=str.lower):
        fam = REGISTRY[name]
        params = ", ".join(f"{p.name}={p.default!r}" for p in fam.params)
        cut = {"none": "", "optional": "[@k]", "required": "@k"}[fam.cutoff]
        out.write(f"{name}{'(' + params + ')' if params else ''}{cut}\n    {fam.summary}\n")
