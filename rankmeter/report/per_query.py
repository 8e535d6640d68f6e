"""The report's per-query table: every query's value of every measure and system, and the differences.

The table is the page's largest, a row per query, so its markup says each value once and nothing
more: the value at four decimals in its cell, with the end tags HTML lets a table leave out
(``</td>``, ``</tr>``). Its sort keys are not repeated in ``data-v`` attributes, as in the small
tables: a header's ``data-key`` (``"m s"``, or ``"m s b"`` for the difference ``s - b``, indices into
the ``measures`` and ``systems`` of the page's JSON block) tells the script where the exact values
are, and the script sorts the rows by them. The sign of a difference is a one-letter class (``u``,
``d``) the stylesheet colours.
"""
from __future__ import annotations

import numpy as np

from rankmeter.core.numbers import format_numbers
from rankmeter.report.markup import esc

__all__ = ["per_query_html"]

_MISSING = "\u2013"


def _value_cells(values: np.ndarray) -> list[str]:
    return ["<td>" + text for text in format_numbers(values.tolist(), undefined=_MISSING)]


def _difference_cells(deltas: np.ndarray) -> list[str]:
    opening = np.where(deltas > 0, "<td class=u>", np.where(deltas < 0, "<td class=d>", "<td>"))
    return [o + text for o, text in zip(opening.tolist(), format_numbers(deltas.tolist(), undefined=_MISSING))]


def per_query_html(tables: dict, baseline: str, explained: set[str]) -> str:
    """The ``#per-query`` table of ``tables`` (measure label -> :class:`~.plots.PerQueryTable`, all over the
    same queries and systems); a query in ``explained`` links to its explanation (``#q-<row>``)."""
    first = next(iter(tables.values()))
    base = first.systems.index(baseline)
    heads = ['<th class="text" data-key="order">query</th>']  # sorts by the rows' order: natural, q2 before q10
    columns = []
    for m, (label, table) in enumerate(tables.items()):
        for s, system in enumerate(table.systems):
            heads.append(f'<th data-key="{m} {s}">{esc(label)}<span class="sys">{esc(system)}</span></th>')
            columns.append(_value_cells(table.values[:, s]))
        for s, system in enumerate(table.systems):
            if s != base:
                heads.append(f'<th data-key="{m} {s} {base}">\u0394 {esc(label)}<span class="sys">{esc(system)} '
                             f'\u2212 {esc(baseline)}</span></th>')
                columns.append(_difference_cells(table.values[:, s] - table.values[:, base]))
    names = [esc(q) for q in first.queries]
    firsts = [f'<tr data-q="{name}"><td><a href="#q-{i}">{name}</a>' if q in explained
              else f'<tr data-q="{name}"><td>{name}' for i, (q, name) in enumerate(zip(first.queries, names))]
    rows = "".join(map("".join, zip(firsts, *columns)))
    return (f'<div class="scroll"><table class="sortable" id="per-query"><thead><tr>{"".join(heads)}</tr></thead>'
            f"<tbody>{rows}</tbody></table></div>")
