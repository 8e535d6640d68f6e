"""The report's explanations: per explained query, every measure's :func:`rankmeter.explain` breakdown
for every run -- its formula and its table of ranks.

A hundred queries explained make a thousand tables, most of a report's bytes, so they are written
tight: the end tags HTML lets a table omit are left out, each distinct cell value is escaped once,
and the ideal ranking (the qrels', the same for every run) is shown once per query and measure.
"""
from __future__ import annotations

from rankmeter.core.numbers import format_cell
from rankmeter.errors import RankmeterError
from rankmeter.report.markup import number_cell, esc

__all__ = ["explanations_html"]


class _CellMarkup(dict):
    """Each distinct cell value's ``<td>``, escaped once: the tables of a page repeat few values (0,
    "unjudged", a doc under each measure), so a hundred thousand cells cost a few thousand escapes."""

    def __missing__(self, key):
        markup = self[key] = f"<td>{esc(_cell(key[1]))}"
        return markup

    def of(self, value) -> str:
        try:
            return self[value.__class__, value]  # the class in the key: True, 1 and 1.0 are equal, not alike
        except TypeError:  # unhashable
            return f"<td>{esc(_cell(value))}"


def _rank_table(columns, rows, limit: int, kind: str = "ranks", total: int | None = None,
                cells: _CellMarkup | None = None) -> str:
    """The first ``limit`` rows; ``total``: how many the whole table has (default ``len(rows)``).

    A hundred queries explained make a thousand of these tables, most of the page: they leave out the
    end tags HTML lets a table omit (``</th>``, ``</td>``, ``</tr>``, ``</thead>``, ``</tbody>``), and
    scroll by their own class rather than in a wrapper.
    """
    cells = _CellMarkup() if cells is None else cells
    total = len(rows) if total is None else total
    head = "".join(f"<th>{esc(c)}" for c in columns)
    body = "".join("<tr>" + "".join(map(cells.of, r)) for r in rows[:limit])
    more = f'<p class="note">Ranks 1\u2013{limit} of {total} shown.</p>' if total > limit else ""
    return f'<table class="{kind}"><thead><tr>{head}<tbody>{body}</table>{more}'


def _cell(v) -> str:
    """An explanation table's cell: whole numbers without decimals (gains, grades), flags as check marks."""
    return format_cell(v, trim=True)


def explanations_html(evaluator, runs, labels, tables, queries: list[str], *, max_ranks: int) -> str:
    """Explanations through the report's one Evaluator: every value uses the whole qrels' statistics.

    Each run's explained queries are ordered and joined once, in one batch; each explanation reads
    its query's slice of it (diversity measures, which read subtopics, take one query at a time).
    """
    from rankmeter.core.explain import explain_queries
    from rankmeter.io.canonical import decode_id

    out = []
    cells = _CellMarkup()
    first = next(iter(tables.values()))
    index = {qid: i for i, qid in enumerate(first.queries)}
    raw = {decode_id(k): k for k in evaluator.judgments.ids.to_pylist()}
    keys = [raw[q] for q in queries if q in raw]
    explained = {name: explain_queries(evaluator, run, keys, labels, max_rows=max_ranks) for name, run in runs}
    for qid in queries:
        i, key = index[qid], raw.get(qid)
        summary = " \u00b7 ".join(
            f"{esc(label)}: " + ", ".join(f"{esc(s)} {number_cell(float(t.values[i, j]))}" for j, s in enumerate(t.systems))
            for label, t in tables.items())
        blocks = []
        for label, measure in labels:
            ideal_shown = {}  # the ideal ranking comes from the qrels: shown once, under the first run that has it
            for name, of_run in explained.items():
                head = f"<h4>{esc(label)} \u00b7 {esc(name)}</h4>"
                if key not in of_run:
                    blocks.append(f'{head}<p class="note">{esc(name)} retrieved nothing for this query.</p>')
                    continue
                got = of_run[key][label]
                if isinstance(got, RankmeterError):
                    blocks.append(f'{head}<p class="note">{esc(got)}</p>')
                    continue
                ex, total = got
                cut = measure.cutoff if isinstance(measure.cutoff, int) else None
                limit = min(cut, max_ranks) if cut else max_ranks
                ideal = ""
                if ex.ideal_rows:
                    table = _rank_table(ex.ideal_columns, ex.ideal_rows, limit, "ranks ideal", cells=cells)
                    if table in ideal_shown:
                        ideal = f'<p class="note">Ideal ranking: as for {ideal_shown[table]}.</p>'
                    else:
                        ideal_shown[table] = esc(name)
                        ideal = f"<details><summary>ideal ranking</summary>{table}</details>"
                formula = "\n".join(esc(line) for line in ex.formula)  # line by line: esc writes a newline as "\\n"
                blocks.append(f'{head}<pre class="formula">{formula}</pre>'
                              f"{_rank_table(ex.columns, ex.rows, limit, total=total, cells=cells)}{ideal}")
        out.append(f'<details class="explain" id="q-{i}" data-q="{esc(qid)}"><summary><span class="qid">'
                   f'{esc(qid)}</span> <span class="muted">{summary}</span></summary>{"".join(blocks)}</details>')
    return "".join(out)
