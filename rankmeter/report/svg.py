"""The one renderer of figures: SVG drawn straight from a figure's specification (:mod:`.figures`).

The report's figures (sorted per-query differences, box plots, precision-recall, the slope chart of two
leaderboards) are drawn here;
:mod:`.plots` draws the same specifications with matplotlib for ``plot_*`` and ``rankmeter plot``.
A new figure (a report section's) builds on :class:`Axes`: data ranges mapped to pixels, a frame
with y ticks, title and axis labels, :func:`text`, and ``Axes.svg`` for the element.

matplotlib (``rankmeter plot``) took most of a report's time: importing it and
laying out ten figures cost ~2.5 s of a 1000-query report, and its box plots
drew every point as a path of its own. These draw the same pictures with a
handful of elements each: one path for all the bars, one for all the points.
Text is escaped; ids are not used, so figures never clash on a page.

Coordinates are written for the pixel grid, not for the float: a tenth of a
pixel (a whole pixel for the random jitter of the box plots' points), without
leading or trailing zeros, and the long paths in relative moves taken between
rounded positions (so the rounding never accumulates). The font size and
anchor most texts share are set once on the ``<svg>`` and inherited.
"""
from __future__ import annotations

from html import escape

import numpy as np

from rankmeter.report.figures import DOWN as _DOWN, NEUTRAL as _NEUTRAL, SERIES as _SERIES, UP as _UP
from rankmeter.report.figures import BoxFigure, DiffFigure, PRFigure, short_label as _short

__all__ = ["diff_svg", "box_svg", "pr_svg", "slope_svg", "Axes", "text", "coordinate"]
_W, _H = 640, 360
_LEFT, _RIGHT, _TOP, _BOTTOM = 64, 16, 46, 44


_FONT_SIZE, _ANCHOR = 11, "middle"  # set on the <svg>: a text states only what differs


def _decimal(tenths: int) -> str:
    """A number of tenths as SVG reads it, as short as it goes: 123 -> "12.3", 120 -> "12", -5 -> "-.5".

    >>> [_decimal(t) for t in (123, 120, 5, -5, 0, -120)]
    ['12.3', '12', '.5', '-.5', '0', '-12']
    """
    whole, tenth = divmod(abs(tenths), 10)
    text = (str(whole) if whole or not tenth else "") + (f".{tenth}" if tenth else "")
    return "-" + text if tenths < 0 else text


def _tenths(values) -> np.ndarray:
    return np.rint(np.asarray(values, float) * 10).astype(np.int64)


def coordinate(value: float) -> str:
    """One coordinate to a tenth of a pixel."""
    return _decimal(int(round(value * 10)))


def _pair(a: str, b: str) -> str:
    """Two numbers of a path: a minus sign separates them as a space would."""
    return a + b if b.startswith("-") else f"{a} {b}"


def text(x: float, y: float, s: str, *, size: int = _FONT_SIZE, anchor: str = _ANCHOR, weight: str = "normal",
         rotate: bool = False) -> str:
    """A ``<text>`` at pixel (x, y), escaped; only what differs from the figure's font size and anchor set."""
    style = "".join([f' font-size="{size}"' if size != _FONT_SIZE else "",
                     f' text-anchor="{anchor}"' if anchor != _ANCHOR else "",
                     f' font-weight="{weight}"' if weight != "normal" else "",
                     f' transform="rotate(-90 {coordinate(x)} {coordinate(y)})"' if rotate else ""])
    return f'<text x="{coordinate(x)}" y="{coordinate(y)}"{style}>{escape(s)}</text>'


def _ticks(low: float, high: float, n: int = 5) -> list[float]:
    if not np.isfinite(low) or not np.isfinite(high) or high <= low:
        return [low] if np.isfinite(low) else [0.0]
    step = (high - low) / n
    magnitude = 10 ** np.floor(np.log10(step))
    step = min((m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= step), default=step)
    first = np.ceil(low / step) * step
    return [0.0 if abs(v) < step * 1e-9 else float(v) for v in np.arange(first, high + step * 1e-9, step)]


class Axes:
    """A plotting area mapping data ranges ``x``, ``y`` to pixels (:meth:`px`, :meth:`py`), with its frame,
    y ticks and labels (:meth:`frame`); elements go into :attr:`parts`; :meth:`svg` is the ``<svg>``."""

    def __init__(self, x: tuple[float, float], y: tuple[float, float], width: int = _W, height: int = _H):
        self.width, self.height = width, height
        self.x0, self.x1 = x
        lo, hi = y
        if hi <= lo:
            lo, hi = lo - 0.5, hi + 0.5
        pad = (hi - lo) * 0.05
        self.y0, self.y1 = lo - pad, hi + pad
        self.parts: list[str] = []
        self.bottom_extra = 0

    def px(self, x):
        return _LEFT + (np.asarray(x, float) - self.x0) / (self.x1 - self.x0) * (self.width - _LEFT - _RIGHT)

    def py(self, y):
        bottom = _BOTTOM + self.bottom_extra
        return self.height - bottom - (np.asarray(y, float) - self.y0) / (self.y1 - self.y0) * \
            (self.height - _TOP - bottom)

    def frame(self, title: str, xlabel: str, ylabel: str, *, grid: bool = True) -> None:
        right, bottom = self.width - _RIGHT, self.height - _BOTTOM - self.bottom_extra
        for t in _ticks(self.y0, self.y1):
            y = float(self.py(t))
            if grid:
                self.parts.append(f'<path d="M{_LEFT} {coordinate(y)}H{right}" stroke="#ddd"/>')
            self.parts.append(text(_LEFT - 6, y + 4, f"{t:.3g}", size=10, anchor="end"))
        self.parts.append(f'<rect x="{_LEFT}" y="{_TOP}" width="{right - _LEFT}" height="{bottom - _TOP}" '
                          'fill="none" stroke="#333"/>')
        lines = title.split("\n")
        for k, line in enumerate(lines):
            self.parts.append(text(self.width / 2, 16 + 14 * k, line, size=12, weight="bold" if k == 0 else "normal"))
        self.parts.append(text((_LEFT + right) / 2, self.height - 10, xlabel))
        self.parts.append(text(14, (_TOP + bottom) / 2, ylabel, rotate=True))

    def svg(self, label: str) -> str:
        return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {self.width} {self.height}" '
                f'width="{self.width}" height="{self.height}" role="img" aria-label="{escape(label)}" '
                f'font-family="sans-serif" font-size="{_FONT_SIZE}" text-anchor="{_ANCHOR}">'
                + "".join(self.parts) + "</svg>")


def diff_svg(spec: DiffFigure) -> str:
    """Sorted per-query differences (:func:`~.figures.diff_spec`), with the zero and mean lines; a few
    queries are named under their bars."""
    d, names, n = spec.deltas, spec.queries, len(spec.deltas)
    labelled = spec.named
    ax = Axes((-0.5, max(n, 1) - 0.5), (min(float(d.min(initial=0)), 0.0), max(float(d.max(initial=0)), 0.0)),
               height=_H + (60 if labelled else 0))
    ax.bottom_extra = 60 if labelled else 0
    ax.frame(spec.title, spec.xlabel, spec.ylabel)
    if labelled:
        for x, name in zip(ax.px(np.arange(n)), names):
            ax.parts.append(text(float(x) + 3, ax.height - _BOTTOM - 56, _short(name, 16), size=8, anchor="end",
                                  rotate=True))
    zero = float(ax.py(0.0))
    pitch = float(ax.px(1) - ax.px(0))
    for color, keep in ((_UP, d > 0), (_DOWN, d < 0)):
        bars = np.flatnonzero(keep)  # contiguous: the differences are sorted
        if len(bars):
            path = _bars_path(ax.px(bars), ax.py(d[bars]), pitch, zero)
            ax.parts.append(f'<path d="{path}" fill="{color}"/>')
    right = _W - _RIGHT
    ax.parts.append(f'<path d="M{_LEFT} {coordinate(zero)}H{right}" stroke="black"/>')
    if n:
        mean = float(d.mean())
        y = float(ax.py(mean))
        ax.parts.append(f'<path d="M{_LEFT} {coordinate(y)}H{right}" stroke="black" stroke-dasharray="5 3"/>')
        ax.parts.append(text(right - 6, _TOP + 14, spec.summary, size=10, anchor="end"))
        ax.parts.append(text(right - 6, _TOP + 28, f"{spec.mean_text} (dashed)", size=10, anchor="end"))
    return ax.svg(f"{spec.measure}: {spec.system} minus {spec.baseline}, per query")


def _bars_path(centres: np.ndarray, tops: np.ndarray, pitch: float, zero: float) -> str:
    """Bars at consecutive positions ``pitch`` pixels apart, from the ``zero`` line to ``tops``.

    Wide enough to show the gap between them (0.15 of the pitch, at least half a pixel), each bar is a
    rectangle of its own; narrower, the gaps would not show, and the bars are drawn as the outline of
    the staircase they make: a step per bar, a tenth of a pixel apart where the sorted heights differ.
    """
    if pitch * 0.15 >= 0.5:
        width = pitch * 0.85
        return "".join(f"M{_pair(coordinate(x - width / 2), coordinate(zero))}V{coordinate(y)}h{coordinate(width)}V{coordinate(zero)}z"
                       for x, y in zip(centres, tops))
    edges = _tenths(np.append(centres - pitch / 2, centres[-1] + pitch / 2))
    heights = _tenths(tops)
    steps = [f"M{_pair(_decimal(int(edges[0])), coordinate(zero))}V{_decimal(int(heights[0]))}"]
    widths, rises = np.diff(edges), np.diff(heights)
    run = 0
    for width, rise in zip(widths[:-1], rises):
        run += int(width)
        if rise:
            steps.append(f"h{_decimal(run)}v{_decimal(int(rise))}")
            run = 0
    steps.append(f"h{_decimal(run + int(widths[-1]))}V{coordinate(zero)}z")
    return "".join(steps)


def _dots_path(xs: np.ndarray, ys: np.ndarray) -> str:
    """A dot (a zero-length stroke with round caps) at every point, each a relative move from the last.

    x to the whole pixel (the points' jitter is random), y to the tenth; sorted by height, so most moves
    are short.
    """
    order = np.lexsort((xs, ys))
    x, y = np.rint(np.asarray(xs, float)[order]).astype(np.int64) * 10, _tenths(np.asarray(ys, float)[order])
    dx, dy = np.diff(x, prepend=0), np.diff(y, prepend=0)
    return "".join(f"{'M' if i == 0 else 'm'}{_pair(_decimal(int(a)), _decimal(int(b)))}h0"
                   for i, (a, b) in enumerate(zip(dx, dy)))


def box_svg(spec: BoxFigure) -> str:
    """Per system a box (quartiles, median, whiskers to 1.5 IQR), the mean (diamond) and every value
    (:func:`~.figures.box_spec`)."""
    data = spec.values
    k = len(data)
    values = np.concatenate(data) if data else np.zeros(0)
    width = max(560, 90 * k + 120)  # the width of the other figures: the box fills its panel as they do
    ax = Axes((0.4, k + 0.6), (float(values.min(initial=0)), float(values.max(initial=1))), width=width)
    ax.frame(f"{spec.title} (box)", "", spec.ylabel)
    half = float(ax.px(1.25) - ax.px(1.0))
    point_xs, point_ys = [], []
    for i, (d, box) in enumerate(zip(data, spec.boxes), start=1):
        cx = float(ax.px(i))
        ax.parts.append(text(cx, ax.height - _BOTTOM + 16, _short(spec.systems[i - 1], 16), size=10))
        if box is None:
            continue
        y1, ym, y3, yl, yh = (float(ax.py(box[v])) for v in ("q1", "median", "q3", "low", "high"))
        ax.parts.append(f'<path d="M{cx:.1f} {yl:.1f}V{y1:.1f}M{cx:.1f} {y3:.1f}V{yh:.1f}M{cx - half / 2:.1f} {yl:.1f}'
                        f'h{half:.1f}M{cx - half / 2:.1f} {yh:.1f}h{half:.1f}" stroke="black" fill="none"/>')
        ax.parts.append(f'<rect x="{cx - half:.1f}" y="{y3:.1f}" width="{2 * half:.1f}" height="{max(y1 - y3, 0.5):.1f}" '
                        f'fill="none" stroke="black"/>')
        ax.parts.append(f'<line x1="{cx - half:.1f}" x2="{cx + half:.1f}" y1="{ym:.1f}" y2="{ym:.1f}" '
                        'stroke="black" stroke-width="2"/>')
        point_xs.append(ax.px(i + spec.jitter[i - 1]))
        point_ys.append(ax.py(d))
        mean = float(ax.py(box["mean"]))
        ax.parts.append(f'<path d="M{cx:.1f} {mean - 5:.1f}l5 5l-5 5l-5-5z" fill="white" stroke="black"/>')
    if point_xs:
        dots = _dots_path(np.concatenate(point_xs), np.concatenate(point_ys))
        ax.parts.insert(0, f'<path d="{dots}" stroke="{_NEUTRAL}" stroke-opacity="0.6" '
                           'stroke-width="3" stroke-linecap="round" fill="none"/>')
        ax.parts.append(text(ax.width - _RIGHT - 6, _TOP + 14, spec.legend, size=10, anchor="end"))
    return ax.svg(f"{spec.measure}: per-query values")


def pr_svg(spec: PRFigure) -> str:
    """Interpolated precision-recall curves (:func:`~.figures.pr_spec`)."""
    curves = spec.curves
    ax = Axes((0.0, 1.0), (0.0, 1.0), width=560, height=420)
    ax.frame(spec.title, spec.xlabel, spec.ylabel)
    for t in (0.0, 0.2, 0.4, 0.6, 0.8, 1.0):
        ax.parts.append(text(float(ax.px(t)), ax.height - _BOTTOM + 14, f"{t:g}", size=10))
    for k, (name, recall, precision) in enumerate(curves):
        color = _SERIES[k % len(_SERIES)]
        xs, ys = ax.px(recall), ax.py(precision)
        line = " ".join(f"{x:.1f},{y:.1f}" for x, y in zip(xs, ys))
        ax.parts.append(f'<polyline points="{line}" fill="none" stroke="{color}" stroke-width="1.5"/>')
        dots = "".join(f"M{x:.1f} {y:.1f}h0.01" for x, y in zip(xs, ys))
        ax.parts.append(f'<path d="{dots}" stroke="{color}" stroke-width="6" stroke-linecap="round"/>')
        y = _TOP + 14 + 14 * k
        ax.parts.append(f'<line x1="{560 - _RIGHT - 150}" x2="{560 - _RIGHT - 132}" y1="{y - 4}" y2="{y - 4}" '
                        f'stroke="{color}" stroke-width="2"/>')
        ax.parts.append(text(560 - _RIGHT - 126, y, _short(name, 24), size=10, anchor="start"))
    return ax.svg(spec.title)


def slope_svg(boards, measure: str | None = None) -> str:
    """Two leaderboards of ``measure`` (a :class:`~rankmeter.judges.Leaderboards`; default its first measure)
    side by side as a slope chart.

    Each run is a line from its rank under A (left) to its rank under B (right), coloured as a gain, a loss
    or neither (:data:`~rankmeter.report.figures.UP` ...), labelled with its name and both scores.
    """
    entry = boards.entry(measure)
    rows = entry["runs"]
    top, step, left, right, width = 48, 22, 190, 450, 640
    height = top + step * max(len(rows), 2) + 24

    def y(rank):
        return top + step * (rank - 0.5)

    parts = [text(left, 30, f"A: {_short(boards.a, 24)}", size=12, weight="bold"),
             text(right, 30, f"B: {_short(boards.b, 24)}", size=12, weight="bold")]
    for r in rows:
        colour = _UP if r["change"] > 0 else _DOWN if r["change"] < 0 else _NEUTRAL
        ya, yb = coordinate(y(r["rank_a"])), coordinate(y(r["rank_b"]))
        parts.append(f'<line x1="{left}" y1="{ya}" x2="{right}" y2="{yb}" stroke="{colour}" stroke-width="2"/>'
                     f'<circle cx="{left}" cy="{ya}" r="3" fill="{colour}"/>'
                     f'<circle cx="{right}" cy="{yb}" r="3" fill="{colour}"/>')
        parts.append(text(left - 8, y(r["rank_a"]) + 4, f'{_short(r["run"], 24)} {r["score_a"]:.4f}', anchor="end"))
        parts.append(text(right + 8, y(r["rank_b"]) + 4, f'{r["score_b"]:.4f} {_short(r["run"], 24)}', anchor="start"))
    title = escape(f"{entry['measure']}: rank under A and under B")
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
            f'font-family="sans-serif" font-size="{_FONT_SIZE}" text-anchor="{_ANCHOR}" role="img"><title>{title}</title>'
            + "".join(parts) + "</svg>")
