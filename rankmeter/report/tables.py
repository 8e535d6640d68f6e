"""Comparison tables as IR papers print them: text, Markdown, LaTeX, CSV and JSON.

Text, Markdown and LaTeX show one row per system (lettered a, b, c, ... in
the order given) and one column per measure. Each value carries, as a
superscript, the letters of the systems it is significantly better than
(:meth:`Comparison.beats`: all pairs, after the chosen correction); the best
value of each measure is bold in Markdown and LaTeX (and in the terminal).
A legend line names the letters and the test. CSV and JSON give the full
statistics of :attr:`Comparison.table` (JSON also the pairwise rows).
"""
from __future__ import annotations

import csv
import io
import json
import math
import sys
from typing import Any

from rankmeter.core.numbers import format_number

__all__ = ["letters", "escape_latex", "escape_markdown", "format_comparison", "write_comparison", "FORMATS"]

FORMATS = ("text", "markdown", "latex", "csv", "json")

_TESTS = {"t": "paired t-test", "wilcoxon": "Wilcoxon signed-rank test", "randomization": "randomization test",
          "bootstrap": "bootstrap test", "tukey": "randomised Tukey HSD test"}
_CORRECTIONS = {"bonferroni": "Bonferroni", "holm": "Holm", "bh": "Benjamini-Hochberg"}
_LATEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
          "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
          "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}"}
_MARKDOWN = {"\\": "\\\\", "|": "\\|", "*": "\\*", "_": "\\_", "`": "\\`", "[": "\\[", "]": "\\]",
             "<": "&lt;", ">": "&gt;", "&": "&amp;", "\n": " ", "\r": " "}


def letters(n: int) -> list[str]:
    """Labels of n systems: a ... z, then aa, ab, ...

    >>> letters(3), letters(28)[-2:]
    (['a', 'b', 'c'], ['aa', 'ab'])
    """
    out = []
    for i in range(n):
        label = ""
        i += 1
        while i:
            i, r = divmod(i - 1, 26)
            label = chr(ord("a") + r) + label
        out.append(label)
    return out


def escape_latex(text: str) -> str:
    r"""Make text safe in LaTeX text mode.

    >>> print(escape_latex("bm25_k1=0.9 & 50%"))
    bm25\_k1=0.9 \& 50\%
    """
    return "".join(_LATEX.get(ch, ch) for ch in text).replace("\n", " ").replace("\r", " ")


def escape_markdown(text: str) -> str:
    r"""Make text safe in a Markdown table cell (pipes, emphasis, HTML).

    >>> print(escape_markdown("a|b_c"))
    a\|b\_c
    """
    return "".join(_MARKDOWN.get(ch, ch) for ch in text)


def _value(x: float | None, digits: int, sign: bool = False) -> str:
    return format_number(x, digits, sign=sign, undefined="n/a")


def _grid(cmp, digits: int) -> tuple[list[str], list[list[tuple[str, str, bool]]]]:
    """Per system: per measure (value text, superscript letters, bold)."""
    tag = dict(zip(cmp.systems, letters(len(cmp.systems))))
    rows: list[list[tuple[str, str, bool]]] = [[] for _ in cmp.systems]
    for measure in cmp.measures:
        texts = [_value(cmp.mean(measure, s), digits) for s in cmp.systems]
        known = [cmp.mean(measure, s) for s in cmp.systems if not math.isnan(cmp.mean(measure, s))]
        lower = measure in getattr(cmp, "lower_is_better", ())
        best = _value(min(known) if lower else max(known), digits) if known else None
        unique_best = texts.count(best) == 1  # a tie at the printed precision: nothing is bold
        for i, system in enumerate(cmp.systems):
            sup = "".join(tag[o] for o in cmp.beats(measure, system))
            rows[i].append((texts[i], sup, unique_best and texts[i] == best))
    return list(tag.values()), rows


def legend(cmp) -> str:
    """One line naming the letters, the test, the correction and alpha."""
    test = _TESTS[cmp.test]
    if cmp.test in ("randomization", "bootstrap", "tukey"):
        test += f", B={cmp.permutations}"
    corr = ("no correction" if cmp.correction == "none"
            else f"{_CORRECTIONS[cmp.correction]} correction over all pairs")
    names = ", ".join(f"{t} = {s}" for t, s in zip(letters(len(cmp.systems)), cmp.systems))
    return (f"Superscripts: the systems a value is significantly better than "
            f"({test}, two-sided, {corr}, alpha={cmp.alpha:g}): {names}.")


def _against_baseline(cmp, digits: int) -> tuple[list[str], list[list[str]]]:
    """Per measure and system: its mean and the baseline's over the queries both answered (so that
    mean - base = delta), the difference, its p-value (adjusted) and interval, and that query count."""
    level = f"{1 - cmp.alpha:.0%} CI"
    several = len(getattr(cmp, "baselines", [cmp.baseline])) > 1
    header = ["measure", "system", *(["baseline"] if several else []), "mean", "base", "delta", "p", "p adjusted",
              level, "d_z", f"d_z {level}", "W/T/L", "queries"]
    rows = []
    for r in cmp.table_records():
        if r["system"] == r["baseline"]:
            continue
        rows.append([r["measure"], r["system"], *([r["baseline"]] if several else []), _value(r["mean"], digits),
                     _value(r["baseline_mean"], digits),
                     _value(r["delta"], digits, sign=True), _p_text(r["p_value"]),
                     _p_text(r["p_adjusted"]), f"[{_value(r['ci_low'], digits)}, {_value(r['ci_high'], digits)}]",
                     _value(r.get("effect_size"), 2),
                     f"[{_value(r.get('effect_low'), 2)}, {_value(r.get('effect_high'), 2)}]",
                     f"{r['wins']}/{r['ties']}/{r['losses']}", str(r["queries"])])
    return header, rows


def all_pairs_text(cmp, digits: int = 4) -> str:
    """Every pair of systems per measure: difference, p (and adjusted over all pairs), intervals, d_z."""
    from rankmeter.report.text import render_table
    level = f"{1 - cmp.alpha:.0%} CI"
    rows = [[r["measure"], r["system_a"], r["system_b"], _value(r["delta"], digits, sign=True), _p_text(r["p_value"]),
             _p_text(r["p_adjusted"]), f"[{_value(r['ci_low'], digits)}, {_value(r['ci_high'], digits)}]",
             _value(r["effect_size"], 2), f"[{_value(r['effect_low'], 2)}, {_value(r['effect_high'], 2)}]",
             f"{r['wins']}/{r['ties']}/{r['losses']}"] for r in cmp.pair_records()]
    return render_table(["measure", "a", "b", "a - b", "p", "p adjusted", level, "d_z", f"d_z {level}", "W/T/L"],
                        rows, decimals=digits)


def _p_text(p) -> str:
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return "n/a"
    from rankmeter.report.markup import format_p
    return format_p(p)


def _plain(cmp, digits: int) -> str:
    tags, rows = _grid(cmp, digits)
    header = ["", "system", *cmp.measures]
    body = [[t, s, *(v + (f"^{sup}" if sup else "") for v, sup, _ in r)]
            for t, s, r in zip(tags, cmp.systems, rows)]
    widths = [max(len(h), *(len(b[i]) for b in body)) for i, h in enumerate(header)]
    lines = ["  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(line, widths))).rstrip()
             for line in [header, *body]]
    from rankmeter.report.text import render_table
    head2, rows2 = _against_baseline(cmp, digits)
    return "\n".join(lines + ["", legend(cmp), "", f"Against the baseline{'s' if len(cmp.baselines) > 1 else ''} {', '.join(cmp.baselines)}:"]) + "\n" + \
        render_table(head2, rows2, keys=2)


def _markdown(cmp, digits: int) -> str:
    tags, rows = _grid(cmp, digits)
    out = ["|  | System | " + " | ".join(escape_markdown(m) for m in cmp.measures) + " |",
           "|---|---|" + "---:|" * len(cmp.measures)]
    for t, s, r in zip(tags, cmp.systems, rows):
        cells = [(f"**{v}**" if bold else v) + (f"<sup>{sup}</sup>" if sup else "") for v, sup, bold in r]
        out.append(f"| {t} | {escape_markdown(s)} | " + " | ".join(cells) + " |")
    head2, rows2 = _against_baseline(cmp, digits)
    out += ["", escape_markdown(legend(cmp)), "", f"Against the baseline{'s' if len(cmp.baselines) > 1 else ''} {escape_markdown(', '.join(cmp.baselines))}:", "",
            "| " + " | ".join(head2) + " |", "|---|---|" + "---:|" * (len(head2) - 2)]
    out += ["| " + " | ".join(escape_markdown(c) for c in row) + " |" for row in rows2]
    return "\n".join(out) + "\n"


def _latex(cmp, digits: int) -> str:
    tags, rows = _grid(cmp, digits)
    ncol = 2 + len(cmp.measures)
    out = [r"\begin{tabular}{ll" + "r" * len(cmp.measures) + "}", r"\hline",
           " & System & " + " & ".join(escape_latex(m) for m in cmp.measures) + r" \\", r"\hline"]
    for t, s, r in zip(tags, cmp.systems, rows):
        cells = [(rf"\textbf{{{v}}}" if bold else v) + (f"$^{{{sup}}}$" if sup else "") for v, sup, bold in r]
        out.append(f"{t} & {escape_latex(s)} & " + " & ".join(cells) + r" \\")
    out += [r"\hline", rf"\multicolumn{{{ncol}}}{{l}}{{\footnotesize {escape_latex(legend(cmp))}}} \\",
            r"\end{tabular}"]
    return "\n".join(out) + "\n"


def _clean(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value.item() if hasattr(value, "item") else value


def _csv(cmp) -> str:
    from rankmeter.stats.comparison import TABLE_COLUMNS
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(TABLE_COLUMNS)
    for row in cmp.table_records():
        w.writerow(["" if (v := _clean(row[c])) is None else repr(v) if isinstance(v, float) else v
                    for c in TABLE_COLUMNS])
    return buf.getvalue()


def _json(cmp) -> str:
    obj = {"test": cmp.test, "correction": cmp.correction, "alpha": cmp.alpha, "permutations": cmp.permutations,
           "seed": cmp.seed, "baseline": cmp.baseline, "baselines": cmp.baselines, "systems": cmp.systems,
           "letters": dict(zip(letters(len(cmp.systems)), cmp.systems)), "measures": cmp.measures,
           "table": [{k: _clean(v) for k, v in r.items()} for r in cmp.table_records()],
           "pairwise": [{k: _clean(v) for k, v in r.items()} for r in cmp.pair_records()]}
    return json.dumps(obj, indent=2, allow_nan=False) + "\n"


def format_comparison(cmp, format: str = "text", *, decimals: int = 4) -> str:
    """A :class:`~rankmeter.Comparison` as text.

    Parameters
    ----------
    cmp : Comparison
    format : {"text", "markdown", "latex", "csv", "json"}
        ``"text"`` is plain aligned text with ``^bc`` superscripts.
    decimals : int
        Decimals of the means in text, Markdown and LaTeX.
    """
    if format == "text":
        return _plain(cmp, decimals)
    if format == "markdown":
        return _markdown(cmp, decimals)
    if format == "latex":
        return _latex(cmp, decimals)
    if format == "csv":
        return _csv(cmp)
    if format == "json":
        return _json(cmp)
    from rankmeter.errors import ParameterError
    raise ParameterError(f"format={format!r}: expected one of {', '.join(FORMATS)}")


def write_comparison(cmp, format: str = "text", *, out=None, decimals: int = 4) -> None:
    """Write a comparison to ``out`` (default stdout): the same text whichever extras are installed."""
    out = out or sys.stdout
    out.write(format_comparison(cmp, format, decimals=decimals))


def per_query_text(cmp, digits: int = 4) -> str:
    """Per-query values of every system, one block per measure, queries in natural order."""
    from rankmeter.core.order import natural_order
    from rankmeter.report.text import render_table
    order = natural_order(list(cmp.queries)).tolist()
    blocks = []
    for label in cmp.measures:
        values = cmp.scores[label]
        rows = [[label, cmp.queries[i]] + [None if math.isnan(v) else float(v) for v in values[i]] for i in order]
        blocks.append(render_table(["measure", "query", *cmp.systems], rows, decimals=digits))
    return "\n".join(blocks)
