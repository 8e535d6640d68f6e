"""A leaderboard written out: text and Markdown (rank interval and group beside each mean), LaTeX, JSON."""
from __future__ import annotations

from typing import Any

__all__ = ["to_dict", "to_text", "to_markdown", "to_latex", "header_lines"]

_DASH = "\u2013"
#: the fixed JSON interface of a row and of a pair (``rankmeter leaderboard --format json``), in order
ROW_KEYS = ("measure", "system", "mean", "interval", "rank", "rank_interval", "tied_with_top", "group")
PAIR_KEYS = ("measure", "a", "b", "difference", "p", "p_adjusted", "win_probability")


def to_dict(board) -> dict[str, Any]:
    """The fixed JSON interface (ROW_KEYS, PAIR_KEYS first), then what else the leaderboard holds."""
    return {"measures": board.measures, "systems": board.systems, "collections": board.collections,
            "level": board.level,
            "rows": [{**{k: r[k] for k in ROW_KEYS}, "collections": r["collections"]} for r in board.rows],
            "pairs": [{**{k: p[k] for k in PAIR_KEYS}, "effect_size": p["effect_size"]} for p in board.pairs],
            "aggregate": board.aggregate, "test": board.test, "correction": board.correction, "alpha": board.alpha,
            "resamples": board.resamples, "seed": board.seed, "queries": board.queries, "notes": board.notes,
            "baseline": board.baseline_rows}


def _level_text(board) -> str:
    if board.level == "queries":
        return "collections, then queries within each"
    return "collections"


def header_lines(board, measure: str) -> list[str]:
    """What a measure's table is: the aggregate, what was resampled, the test and its correction."""
    confidence = f"{100 * (1 - board.alpha):g}%"
    correction = ("randomised Tukey HSD over the systems" if board.test == "tukey" else
                  "no correction" if board.correction == "none" else
                  f"{board.correction} correction over every pair and measure")
    how = {"macro": "mean of the collections' means", "weighted": "mean weighted by queries",
           "geometric": "geometric mean of the collections' means"}[board.aggregate]
    return [f"{measure}: {how} over {len(board.collections)} collections; {confidence} intervals from "
            f"{board.resamples} resamples of {_level_text(board)}",
            f"{board.test} test, {correction}; a shared letter: not separable by those tests; rank intervals "
            "hold for each system over its own comparisons; * tied with the top (rank interval reaches 1)"]


def _cells(board, measure: str, decimals: int) -> list[list[str]]:
    out = []
    for r in (r for r in board.rows if r["measure"] == measure):
        lo, hi = r["rank_interval"]
        out.append([str(r["rank"]), f"{lo}{_DASH}{hi}" if lo != hi else str(lo), r["system"],
                    f"{r['mean']:.{decimals}f}", f"[{r['interval'][0]:.{decimals}f}, {r['interval'][1]:.{decimals}f}]",
                    r["group"], "*" if r["tied_with_top"] else ""])
    return out


_HEAD = ["rank", "rank interval", "system", "mean", "interval", "group", "top"]


def _baseline_cells(board, measure: str, decimals: int) -> list[list[str]]:
    out = []
    for r in (r for r in board.baseline_rows if r["measure"] == measure):
        out.append([r["system"], r["baseline"], f"{r['difference']:+.{decimals}f}",
                    f"{r['p_noninferiority_adjusted']:.4g}", "yes" if r["noninferior"] else "no",
                    f"{r['p_equivalence_adjusted']:.4g}", "yes" if r["equivalent"] else "no"])
    return out


_BASE_HEAD = ["system", "baseline", "difference", "p non-inferior", "non-inferior", "p equivalent", "equivalent"]


def _aligned(head: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(x) for x in col) for col in zip(head, *rows)]
    return ["  ".join(x.ljust(w) for x, w in zip(line, widths)).rstrip() for line in [head, *rows]]


def _notes(board) -> list[str]:
    return [f"note: {n}" for n in board.notes]


def to_text(board, *, decimals: int = 4) -> str:
    """Plain text: per measure its header lines and table; the baseline tests; the notes."""
    lines: list[str] = []
    for measure in board.measures:
        lines += header_lines(board, measure) + [""] + _aligned(_HEAD, _cells(board, measure, decimals)) + [""]
        base = _baseline_cells(board, measure, decimals)
        if base:
            lines += [f"against the baseline, margin {board.margin:g} (non-inferiority; equivalence by TOST), "
                      "p corrected over systems and measures:"] + _aligned(_BASE_HEAD, base) + [""]
    return "\n".join(lines + _notes(board)).rstrip() + "\n"


def _markdown_table(head: list[str], rows: list[list[str]]) -> list[str]:
    def esc(x: str) -> str:
        return x.replace("|", "\\|")
    return (["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
            + ["| " + " | ".join(esc(x) for x in row) + " |" for row in rows])


def to_markdown(board, *, decimals: int = 4) -> str:
    """Markdown: per measure a heading, its header lines and a table."""
    lines: list[str] = []
    for measure in board.measures:
        first, second = header_lines(board, measure)
        lines += [f"### {measure}", "", first.split(": ", 1)[1] + ". " + second + ".", ""]
        lines += _markdown_table(_HEAD, _cells(board, measure, decimals)) + [""]
        base = _baseline_cells(board, measure, decimals)
        if base:
            lines += [f"Against the baseline, margin {board.margin:g}:", ""] + _markdown_table(_BASE_HEAD, base) + [""]
    lines += [f"- {n}" for n in board.notes]
    return "\n".join(lines).rstrip() + "\n"


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "<": r"\textless{}",
                  ">": r"\textgreater{}", "|": r"\textbar{}"}


def _tex(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(c, c) for c in str(text))


def to_latex(board, *, decimals: int = 3) -> str:
    """A booktabs tabular: systems in the first measure's rank order, one column per measure holding the mean
    with its group letters as a superscript and the rank interval; bold: tied with the top."""
    by = {(r["measure"], r["system"]): r for r in board.rows}
    order = [r["system"] for r in board.rows if r["measure"] == board.measures[0]]
    lines = [f"% rankmeter leaderboard: {board.aggregate} over {len(board.collections)} collections, "
             f"{board.test} test, {board.correction} correction, alpha {board.alpha:g}, {board.resamples} "
             f"resamples of {_level_text(board)}",
             "% a shared letter: not separable; bold: tied with the top; (lo-hi): the rank interval",
             r"\begin{tabular}{l" + "r" * len(board.measures) + "}", r"\toprule",
             "System & " + " & ".join(_tex(m) for m in board.measures) + r" \\", r"\midrule"]
    for system in order:
        cells = []
        for m in board.measures:
            r = by[(m, system)]
            mean = f"{r['mean']:.{decimals}f}"
            mean = rf"\textbf{{{mean}}}" if r["tied_with_top"] else mean
            lo, hi = r["rank_interval"]
            cells.append(rf"{mean}\textsuperscript{{{_tex(r['group'])}}} ({lo}--{hi})")
        lines.append(_tex(system) + " & " + " & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines) + "\n"
