"""The report's "Judged coverage" and "Ties" sections: how much each run's numbers can be trusted.

* Judged coverage: per run, :func:`rankmeter.judged` -- Judged@k, each
  measure on the full and on the judged-only ranking, bpref, infAP and the
  RBP interval.
* Ties: per run, groups of equal scores within a query, how many straddle
  rank 10, 100 and 1000 (the order inside them is decided by docno, not by
  the system, so an @k measure moves with the doc ids), and the queries that
  have any, over every query of the run (:func:`rankmeter.core.rows.tie_summary`: the figures
  ``rankmeter check`` prints).

Every run name is escaped; the numbers carry ``data-v`` for sorting.
"""
from __future__ import annotations

import numpy as np

from rankmeter.check.judged import judged_with
from rankmeter.core.options import Options
from rankmeter.core.rows import ranked, tie_summary
from rankmeter.report.markup import data_value, number_cell

__all__ = ["coverage_html", "ties_html"]


def _esc(value) -> str:
    from rankmeter.report.markup import esc
    return esc(value)


def _cell(value) -> str:
    """A number's cell with its exact value as the sort key (``data-v``)."""
    key = str(int(value)) if isinstance(value, (int, np.integer)) else data_value(value)
    return f'<td data-v="{key}">{number_cell(value)}</td>'


def coverage_html(qrels, named, measures: list[str], options: Options) -> str:
    """The "Judged coverage" table (one row per run) and its note: ``qrels`` and the runs of ``named`` read
    already, each measure scored with and without ``judged_only``."""
    report = judged_with(qrels, dict(named), measures, options.replace(columns=None, judged_only=False))
    rbp = f"RBP(p={report.rbp_p:g})"
    heads = (["run", "queries"] + [f"Judged@{k}" for k in report.cutoffs]
             + [h for m in report.measures for h in (m, f"{m} judged only")] + ["bpref", "infAP", rbp])
    head = "".join(f'<th class="{"text" if i == 0 else "num"}">{_esc(h)}</th>' for i, h in enumerate(heads))
    rows = []
    for row in report.rows:
        cells = [f'<td class="text run">{_esc(row.run)}</td>', _cell(row.queries)]
        cells += [_cell(v) for v in row.judged.values()]
        cells += [_cell(v) for m in report.measures for v in (row.full[m], row.condensed[m])]
        cells += [_cell(row.bpref), _cell(row.infAP),
                  f'<td data-v="{data_value(row.rbp[0])}">[{number_cell(row.rbp[0])}, {number_cell(row.rbp[1])}]</td>']
        rows.append(f"<tr>{''.join(cells)}</tr>")
    note = ("Judged@k: the share of the top min(k, retrieved) docs that the qrels list. Unjudged docs count as "
            "non-relevant; <i>judged only</i> scores the ranking with them removed (trec_eval -J). bpref and "
            f"infAP are built for incomplete judgments. {_esc(rbp)} is shown as [value, value + residual]: "
            "unjudged docs all non-relevant, all relevant. A run with low coverage, or a wide gap between "
            "the full and judged-only values, is measured against judgments that were not made for it.")
    return (f'<div class="scroll"><table class="sortable" id="judged-coverage"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div><p class="note">{note}</p>')


def ties_html(named, *, ties: str = "trec_eval") -> str:
    """The "Ties" table: tied groups, groups straddling 10/100/1000 and queries with ties, per run."""
    heads = ["run", "queries", "tied groups", "straddling 10", "straddling 100", "straddling 1000",
             "queries with ties"]
    head = "".join(f'<th class="{"text" if i == 0 else "num"}">{h}</th>' for i, h in enumerate(heads))
    rows = []
    for name, run in named:
        found = tie_summary(ranked(run, ties=ties))
        cells = [f'<td class="text run">{_esc(name)}</td>', _cell(found["queries"]), _cell(found["groups"])]
        for k in (10, 100, 1000):
            n = found["straddle"][k]
            warn = ' class="down"' if n else ""
            cells.append(f'<td data-v="{n}"{warn}>{n}</td>')
        cells.append(_cell(found["queries_with_ties"]))
        rows.append(f"<tr>{''.join(cells)}</tr>")
    broken = {"trec_eval": "docno, descending (trec_eval's rule), not by the system",
              "input": "the file order (ties='input')"}.get(ties, f"the ties={_esc(ties)} policy")
    note = ("A tied group is a set of docs with the same score for one query; inside it the order is decided by "
            f"{broken}. A group straddling rank k puts some of its docs above k and some below, so measures "
            "cut at k depend on that order. Runs without scores (ranked lists) have no ties.")
    return (f'<div class="scroll"><table class="sortable" id="ties"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div><p class="note">{note}</p>')
