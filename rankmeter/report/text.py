"""Tables for people and for files: aligned text that fits the terminal without cutting a digit, CSV.

The same command prints the same text whichever optional packages are installed. Undefined
values follow the one rule of :mod:`rankmeter.core.results`: a per-query value that cannot be
computed is ``-`` in text (an empty cell in CSV), and a mean over fewer queries than the table
shows says how many it left out, ``0.5000 (1 undefined)`` (CSV: a row ``undefined`` with the counts).
"""
from __future__ import annotations

import csv
import shutil
import sys

import numpy as np

from rankmeter.core.numbers import UNDEFINED, format_number
from rankmeter.errors import shown_id
from rankmeter.io.output import printable

__all__ = ["print_results", "print_measures", "render_table"]




class _MeanOf:
    """A mean over the defined queries and how many were undefined, as a table cell."""

    def __init__(self, value, undefined: int):
        self.value, self.undefined = value, undefined

    def text(self, decimals: int) -> str:
        shown = UNDEFINED if self.value is None else _fmt(self.value, decimals)
        return f"{shown} ({self.undefined} undefined)"


def _fmt(value, decimals: int = 4) -> str:
    if isinstance(value, _MeanOf):
        return value.text(decimals)
    if isinstance(value, (float, np.floating)):
        return format_number(value, decimals)
    if value is None:
        return ""
    return shown_id(value)  # an id or a run name: one line, no terminal controls, a huge one cut


def _rows(results_list, names, per_query):
    measure_names = results_list[0].names
    # runs whose means are over different query sets say over how many (the means are not comparable
    # as they stand; rankmeter compare tests them over the queries both answered)
    # (one run: nothing to compare, and a million query ids are not turned into strings for it)
    counted = len(results_list) > 1 and len({tuple(res.query_ids(order="bytes")) for res in results_list}) > 1
    header = ["run", "query"] + measure_names + (["queries"] if counted else [])
    rows = []
    for res, name in zip(results_list, names):
        label = name  # the one naming rule (rankmeter.core.naming): unique, the same in every command
        if per_query:
            columns = [res.values(m) for m in measure_names]  # already in natural order (core.order)
            for i, query in enumerate(res.queries):
                rows.append([label, query] + [col[i] for col in columns] + ([""] if counted else []))
        undefined = getattr(res, "undefined", {})
        rows.append([label, "all"] + [_MeanOf(v, undefined[m]) if undefined.get(m) else
                                      UNDEFINED if v is None else v for m, v in res.mean.items()]
                    + ([len(res.query_ids(order="bytes"))] if counted else []))
    return header, rows


def _csv_cell(value):
    if isinstance(value, _MeanOf):
        value = value.value
    value = value.item() if hasattr(value, "item") else value
    if value is UNDEFINED or isinstance(value, float) and not np.isfinite(value):
        return ""
    return value


def _width(out) -> int | None:
    """The terminal's width when writing to one; None (no limit) otherwise."""
    try:
        if out.isatty():
            return shutil.get_terminal_size().columns
    except (AttributeError, ValueError, OSError):
        pass
    return None


def render_table(header: list[str], rows: list[list], *, keys: int = 2, decimals: int = 4,
                 width: int | None = None) -> str:
    """Aligned text; when wider than ``width``, the value columns go into blocks that fit (every digit kept).

    The first ``keys`` columns are repeated in every block; numbers are right-aligned.
    """
    cells = [[_fmt(v, decimals) for v in row] for row in rows]
    heads = [printable(h) for h in header]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(heads)]
    blocks, current = [], []
    key_width = sum(widths[:keys]) + 2 * keys
    for i in range(keys, len(heads)):
        if current and width is not None and key_width + sum(widths[c] + 2 for c in current) + widths[i] > width:
            blocks.append(current)
            current = []
        current.append(i)
    blocks.append(current)
    lines = []
    for b, block in enumerate(blocks):
        columns = list(range(keys)) + block
        if b:
            lines.append("")
        lines.append("  ".join(heads[c].ljust(widths[c]) if c < keys else heads[c].rjust(widths[c])
                               for c in columns).rstrip())
        for r in cells:
            lines.append("  ".join(r[c].ljust(widths[c]) if c < keys else r[c].rjust(widths[c])
                                   for c in columns).rstrip())
    return "\n".join(lines) + "\n"


def print_results(results_list, names, *, format="text", per_query=False, out=None, decimals: int = 4) -> None:
    """Results of one or more runs as a text table (fits the terminal, never cuts a number), CSV or Markdown."""
    out = out or sys.stdout
    header, rows = _rows(results_list, names, per_query)
    if format == "csv":
        w = csv.writer(out, lineterminator="\n")
        w.writerow(header)
        for row in rows:
            w.writerow([_csv_cell(v) for v in row])
        for res, name in zip(results_list, names):  # the counts the means leave out, when any
            undefined = getattr(res, "undefined", {})
            if undefined:
                w.writerow([name, "undefined"] + [undefined.get(m, 0) for m in header[2:]])
        return
    out.write(render_table(header, rows, decimals=decimals, width=_width(out)))


def _matching(groups: dict, name: str | None) -> dict:
    """The families whose name, or one of whose trec_eval names, contains ``name`` (any case), or whose
    family a full measure name such as ``P(rel=2)@10`` parses to; every family when ``name`` is None."""
    if not name:
        return groups
    wanted = {name.lower()}
    try:
        from rankmeter.core.resolve import resolve_measures
        wanted |= {m.family.name.lower() for _, m in resolve_measures(name)}
        exact = True
    except Exception:  # noqa: BLE001 - not a whole measure name: a part of one
        exact = False
    from rankmeter.measures.facts import trec_eval_names
    trec = trec_eval_names()

    def hit(fam) -> bool:
        names = [fam.name.lower()] + [n.lower() for n in trec.get(fam.name, [])]
        if exact:
            return fam.name.lower() in wanted
        return any(w in n for w in wanted for n in names)
    found = {module: [f for f in fams if hit(f)] for module, fams in groups.items()}
    found = {module: fams for module, fams in found.items() if fams}
    if not found:
        from rankmeter.errors import ParameterError
        raise ParameterError(f"no measure matches {name!r}; rankmeter measures lists them all")
    return found


def print_measures(out=None, *, format: str = "text", width: int | None = None, name: str | None = None) -> None:
    """List every registered measure: parameters, defaults, allowed values, cutoff rule, trec_eval names.

    Parameters
    ----------
    out : file, optional
        Where to write (default stdout).
    format : {"text", "json"}, default "text"
        ``text`` for a terminal; ``json`` for ``{"common_params": [...], "measures": [...]}``,
        one object per family as :func:`rankmeter.measures.facts.family_facts` gives it.
    width : int, optional
        Wrap text at this many columns (default: the terminal's width, 100 when not a terminal).
    name : str, optional
        Only the measures this names: a measure (``nDCG@10``, ``ndcg_cut.10``) or part of a name.
    """
    import json
    import shutil
    import textwrap

    from rankmeter.measures.facts import (
        allowed_values, families_by_module, family_facts, trec_eval_names, value_text,
    )
    from rankmeter.measures import COMMON_PARAMS

    out = out or sys.stdout
    trec = trec_eval_names()
    groups = _matching(families_by_module(), name)
    if format == "json":
        common = [{"name": p.name, "default": p.default, "allowed": allowed_values(p), "doc": p.help}
                  for p in COMMON_PARAMS]
        facts = [family_facts(fam, trec) for fams in groups.values() for fam in fams]
        json.dump({"common_params": common, "measures": facts}, out, indent=2)
        out.write("\n")
        return
    if format != "text":
        raise ValueError(f"print_measures: format={format!r}; expected text or json")
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
    param_lines([(f"{p.name}={value_text(p.default)}", allowed_values(p), p.help) for p in COMMON_PARAMS],
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

