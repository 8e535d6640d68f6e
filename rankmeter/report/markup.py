"""The HTML pieces every report section shares: escaping, numbers with their sort keys, the comparison table.

A module of its own below :mod:`.html`, :mod:`.beyond` and :mod:`.coverage`, so the sections import it
and the page imports the sections, never the other way round.
"""
from __future__ import annotations

import math
from html import escape

import numpy as np

from rankmeter.core.numbers import format_cell, format_number
from rankmeter.io.output import printable

DASH = "\u2013"


def esc(value: object) -> str:
    """Text for HTML content or a quoted attribute; bidirectional controls shown escaped, never obeyed.

    >>> esc("run\u202e<b>")
    'run\\\\u202e&lt;b&gt;'
    """
    return escape(printable(value), quote=True)


def number_cell(v, digits: int = 4) -> str:
    """A cell of the report's tables (:func:`~rankmeter.core.numbers.format_cell`); a missing value is a dash."""
    return format_cell(v, digits, undefined=DASH, empty=DASH)


def p_cell(v) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "\u2013"
    return format_p(v)


def format_p(v: float) -> str:
    """A p-value as every table shows it (text, Markdown, LaTeX, HTML): four decimals, ``<0.0001`` below.

    >>> format_p(0.04321), format_p(3e-7)
    ('0.0432', '<0.0001')
    """
    return "<0.0001" if v < 1e-4 else format_number(v)


def data_value(v) -> str:
    """A sortable data-v attribute value: '' for a missing number."""
    try:
        f = float(v)
    except (TypeError, ValueError):
        return ""
    return repr(f) if math.isfinite(f) else ""


def comparison_html(records: list[dict], *, alpha: float, tested: bool) -> str:
    cols = [("measure", "measure", True), ("system", "system", True), ("baseline", "baseline", True),
            ("mean", "mean", False), ("delta", "\u0394", False), ("p_value", "p", False),
            ("p_adjusted", "p (adjusted)", False), ("ci", "CI of \u0394", False),
            ("effect_size", "effect size", False), ("wtl", "wins / ties / losses", False)]
    head = "".join(f'<th class="{"text" if t else "num"}">{esc(h)}</th>' for _, h, t in cols)
    best: dict[str, float] = {}
    for row in records:
        if not is_missing(row.get("mean")):
            best[row["measure"]] = max(best.get(row["measure"], -math.inf), row["mean"])
    body = []
    for row in records:
        p = row.get("p_adjusted")
        sig = tested and p is not None and not is_missing(p) and p < alpha and row.get("system") != row.get("baseline")
        delta = row.get("delta")
        cells = []
        is_base = row.get("system") == row.get("baseline")
        for key, _, text in cols:
            if is_base and key in ("delta", "wtl", "ci"):
                cells.append(f'<td data-v="">{DASH}</td>')
            elif key == "ci":
                lo, hi = row.get("ci_low"), row.get("ci_high")
                shown = DASH if is_missing(lo) else f"[{number_cell(lo)}, {number_cell(hi)}]"
                cells.append(f'<td data-v="{data_value(lo)}">{shown}</td>')
            elif key == "wtl":
                cells.append(f'<td data-v="{data_value(row.get("wins"))}">{number_cell(row.get("wins"))} / '
                             f'{number_cell(row.get("ties"))} / {number_cell(row.get("losses"))}</td>')
            elif text:
                cells.append(f'<td class="text">{esc(row.get(key, ""))}</td>')
            else:
                v = row.get(key)
                classes = []
                if key == "mean" and not is_missing(v) and v == best.get(row["measure"]):
                    classes.append("best")
                if key == "delta" and not is_missing(delta) and delta:
                    classes.append("up" if delta > 0 else "down")
                if key == "p_adjusted" and sig:
                    classes.append("sig")
                shown = p_cell(v) if key.startswith("p_") else number_cell(v)
                cls = f' class="{" ".join(classes)}"' if classes else ""
                cells.append(f'<td data-v="{data_value(v)}"{cls}>{shown}</td>')
        base_cls = ' class="base"' if is_base else ""
        body.append(f"<tr{base_cls}>{''.join(cells)}</tr>")
    note = (f"Bold: best mean per measure. * : adjusted p &lt; {esc(alpha)}. A system's mean and \u0394 are "
            "over the queries it shares with the baseline." if tested else
            "Significance tests were not run (they need two runs or more); "
            "means are paired over the queries both runs answered.")
    return (f'<div class="scroll"><table class="sortable" id="comparison"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table></div><p class="note">{note}</p>')


def is_missing(v) -> bool:
    try:
        return v is None or math.isnan(float(v))
    except (TypeError, ValueError):
        return False


# ------------------------------------------------------------------ per-query table
