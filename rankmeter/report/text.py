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


def print_measures(out=None, *, fmt: str = "text", width: int | None = None) -> None:
    """List every registered measure: parameters, defaults, allowed values, cutoff rule, trec_eval names.

    Parameters
    ----------
    out : file, optional
        Where to write (default stdout).
    fmt : {"text", "json"}, default "text"
        ``text`` for a terminal; ``json`` for ``{"common_params": [...], "measures": [...]}``,
        one object per family as :func:`rankmeter.measures.facts.family_facts` gives it.
    width : int, optional
        Wrap text at this many columns (default: the terminal's width, 100 when not a terminal).
    """
    import json
    import shutil
    import textwrap

    from ..measures.facts import allowed_values, families_by_module, family_facts, trec_eval_names, value_text
    from ..measures import COMMON_PARAMS

    out = out or sys.stdout
    trec = trec_eval_names()
    groups = families_by_module()
    if fmt == "json":
        common = [{"name": p.name, "default": p.default, "allowed": allowed_values(p), "doc": p.doc}
                  for p in COMMON_PARAMS]
        facts = [family_facts(fam, trec) for fams in groups.values() for fam in fams]
        json.dump({"common_params": common, "measures": facts}, out, indent=2)
        out.write("\n")
        return
    if fmt != "text":
        raise ValueError(f"print_measures: fmt={fmt!r}; expected text or json")
    if width is None:
        tty = hasattr(out, "isatty") and out.isatty()
        width = shutil.get_terminal_size((100, 24)).columns if tty else 100
    width = max(width, 60)

    def para(text: str, indent: str, hang: str | None = None) -> None:
        out.write(textwrap.fill(text, width, initial_indent=indent, break_long_words=False,
                                break_on_hyphens=False,
                                subsequent_indent=hang if hang is not None else indent) + "\n")

    def param_lines(rows: list[tuple[str, str, str]], indent: str) -> None:
        # "name=default  (allowed values)", then the meaning wrapped below it
        for head, allowed, meaning in rows:
            para(f"{head}  ({allowed})", indent, indent + "    ")
            para(meaning, indent + "    ")

    para("Measures are written Name(param=value, ...)@cutoff, e.g. nDCG(gain=exp)@10.", "")
    out.write("Every measure also takes:\n")
    param_lines([(f"{p.name}={value_text(p.default)}", allowed_values(p), p.doc) for p in COMMON_PARAMS],
                "  ")
    for module, fams in groups.items():
        out.write(f"\n== {module} (docs/measures/{module}.md) ==\n")
        for fam in fams:
            f = family_facts(fam, trec)
            own = [p for p in f["params"] if not p["common"]]
            sig = f"({', '.join(p['name'] + '=' + p['default_text'] for p in own)})" if own else ""
            cut = {"none": "", "optional": "[@k]", "required": "@k"}[fam.cutoff]
            if fam.cutoff != "none" and fam.cutoff_kind is not int:
                cut = cut.replace("k", "r")
            out.write("\n")
            para(f"{fam.name}{sig}{cut}", "", " " * (len(fam.name) + 1))
            para(fam.summary, "  ")
            if own:
                param_lines([(f"{p['name']}={p['default_text']}", p["allowed"], p["doc"]) for p in own], "  ")
            para(f"cutoff: {f['cutoff_rule']}; summary over queries: {f['summary_rule']}", "  ", "    ")
            if f["trec_eval"]:
                para("trec_eval: " + "; ".join(f["trec_eval"]), "  ", "    ")

