"""Rich display in Jupyter: ``_repr_html_`` of Results, Comparison and Explanation render through here.

Everything taken from the data is escaped; numbers keep every digit asked for.
"""
from __future__ import annotations

from html import escape

from rankmeter.core.numbers import format_cell

__all__ = ["html_table"]


def _cell(value, decimals: int) -> str:
    return escape(format_cell(value, decimals))


def html_table(header, rows, *, caption: str = "", decimals: int = 4, limit: int = 50) -> str:
    """An HTML table of ``rows`` (at most ``limit`` shown, the count of the rest said)."""
    head = "".join(f"<th>{escape(str(h))}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{_cell(v, decimals)}</td>" for v in row) + "</tr>" for row in rows[:limit])
    more = f"<p>{len(rows) - limit} more rows not shown.</p>" if len(rows) > limit else ""
    cap = f"<caption>{escape(caption)}</caption>" if caption else ""
    return f"<table>{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{more}"
