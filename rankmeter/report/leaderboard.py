"""The leaderboard's section of the HTML report: per measure its table, a rank-interval (forest) plot and the
win-probability matrix, drawn as SVG with :mod:`rankmeter.report.svg`'s helpers."""
from __future__ import annotations

from html import escape

import numpy as np

from rankmeter.report.figures import short_label
from rankmeter.report.svg import coordinate, text

__all__ = ["forest_svg", "win_matrix_svg", "leaderboard_html"]

_ROW = 18
_LEFT = 150
_WIDTH = 640


def forest_svg(rows: list[dict], measure: str) -> str:
    """Each system (in rank order) on a line: its rank interval as a bar, its rank as a dot; tied with the
    top in blue."""
    count = len(rows)
    top, bottom = 40, 36
    height = top + bottom + _ROW * count
    span = max(count, 2)

    def x(rank: float) -> float:
        return _LEFT + (rank - 1) / (span - 1) * (_WIDTH - _LEFT - 20)
    parts = [text(_WIDTH / 2, 16, f"{measure}: rank intervals", size=12, weight="bold")]
    step = 1 if span <= 12 else 5
    for tick in sorted({1, *range(step, span + 1, step), span}):
        parts.append(f'<path d="M{coordinate(x(tick))} {top - 6}V{height - bottom}" stroke="#eee"/>')
        parts.append(text(x(tick), height - bottom + 14, str(tick), size=10))
    parts.append(text((_LEFT + _WIDTH) / 2, height - 6, "rank (1 = best)"))
    for i, r in enumerate(rows):
        y = top + _ROW * i + _ROW / 2
        lo, hi = r["rank_interval"]
        colour = "#2b7bba" if r["tied_with_top"] else "#555555"
        parts.append(text(_LEFT - 8, y + 4, short_label(r["system"], 22), size=10, anchor="end"))
        parts.append(f'<path class="rank-interval" d="M{coordinate(x(lo))} {coordinate(y)}H{coordinate(x(hi) + 0.01)}" stroke="{colour}" '
                     f'stroke-width="4" stroke-linecap="round"><title>{escape(str(r["system"]))}: rank '
                     f'{r["rank"]}, interval {lo}\u2013{hi}</title></path>')
        parts.append(f'<circle cx="{coordinate(x(r["rank"]))}" cy="{coordinate(y)}" r="4" fill="#000"/>')
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="forest" viewBox="0 0 {_WIDTH} {height}" '
            f'width="{_WIDTH}" height="{height}" role="img" aria-label="{escape(measure)} rank intervals" '
            f'font-family="sans-serif" font-size="11" text-anchor="middle">' + "".join(parts) + "</svg>")


def win_matrix_svg(win: np.ndarray, systems: list[str], order: list[int], measure: str) -> str:
    """P(row beats column) over the resamples, systems in rank order: blue above one half, red below."""
    count = len(order)
    cell = max(6, min(28, 480 // max(count, 1)))
    left, top = _LEFT, 40
    size = left + cell * count + 20
    parts = [text(size / 2, 16, f"{measure}: P(row beats column)", size=12, weight="bold")]
    for i, a in enumerate(order):
        y = top + cell * i
        parts.append(text(left - 6, y + cell / 2 + 4, short_label(systems[a], 22), size=10, anchor="end"))
        for j, b in enumerate(order):
            if a == b:
                continue
            p = float(win[a, b])
            strength = abs(p - 0.5) * 2
            rgb = (43, 123, 186) if p >= 0.5 else (214, 96, 77)
            mixed = [round(255 - (255 - c) * strength) for c in rgb]
            parts.append(f'<rect class="win-cell" x="{left + cell * j}" y="{y}" width="{cell}" height="{cell}" '
                         f'fill="rgb({mixed[0]},{mixed[1]},{mixed[2]})"><title>{escape(str(systems[a]))} beats '
                         f'{escape(str(systems[b]))}: {p:.3f}</title></rect>')
            if cell >= 24:
                parts.append(text(left + cell * j + cell / 2, y + cell / 2 + 3, f"{p:.2f}"[1:] if p < 1 else "1",
                                   size=8))
    height = top + cell * count + 20
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="win-matrix" viewBox="0 0 {size} {height}" '
            f'width="{size}" height="{height}" role="img" aria-label="{escape(measure)} win probabilities" '
            f'font-family="sans-serif" font-size="11" text-anchor="middle">' + "".join(parts) + "</svg>")


def leaderboard_html(board) -> str:
    """The section: per measure the table (rank, interval, system, mean, interval, group), then the plots."""
    from rankmeter.leaderboard.report import header_lines

    parts = ['<section id="sec-leaderboard"><h2>Leaderboard</h2>']
    for n, measure in enumerate(board.measures):
        rows = [r for r in board.rows if r["measure"] == measure]
        first, second = header_lines(board, measure)
        parts.append(f"<h3>{escape(measure)}</h3><p class=\"note\">{escape(first.split(': ', 1)[1])}. "
                     f"{escape(second)}.</p>")
        parts.append(f'<table id="leaderboard-{n}"><thead><tr><th>rank</th><th>rank interval</th><th>system</th>'
                     "<th>mean</th><th>interval</th><th>group</th><th>tied with the top</th></tr></thead><tbody>")
        for r in rows:
            lo, hi = r["rank_interval"]
            parts.append(f"<tr><td>{r['rank']}</td><td>{lo}\u2013{hi}</td><td>{escape(str(r['system']))}</td>"
                         f"<td>{r['mean']:.4f}</td><td>[{r['interval'][0]:.4f}, {r['interval'][1]:.4f}]</td>"
                         f"<td>{escape(r['group'])}</td><td>{'yes' if r['tied_with_top'] else ''}</td></tr>")
        parts.append("</tbody></table>")
        order = [board.systems.index(r["system"]) for r in rows]
        parts.append('<div class="plots">'
                     f"<figure>{forest_svg(rows, measure)}<figcaption>Rank intervals ({100 * (1 - board.alpha):g}%)"
                     "</figcaption></figure>"
                     f"<figure>{win_matrix_svg(board.win_probability(measure), board.systems, order, measure)}"
                     "<figcaption>Win probabilities over the resamples</figcaption></figure></div>")
    parts += [f'<p class="note">{escape(n)}</p>' for n in board.notes]
    parts.append("</section>")
    return "".join(parts)
