"""One self-contained HTML report comparing runs.

:func:`write_report` writes a single file that works offline: the
stylesheet, the script and the plots (as SVG) are inline, nothing is fetched.
The page holds the comparison table, each run's judged coverage
(:mod:`.coverage`: Judged@k, measures on the full and the judged-only
ranking, bpref, infAP, the RBP interval) and its tied scores, the plots, a
per-query table that sorts
on a header click and filters by query id, and per query the
:func:`rankmeter.explain` breakdown of every measure for every run.

Everything taken from the data (run tags, query ids, docnos, file names) is
escaped; the per-query values are also embedded, exactly, as JSON in a
``<script type="application/json" id="rankmeter-data">`` block for tools (and
for the per-query table's sorting, :mod:`.per_query`), with
``<``, ``>``, ``&`` and U+2028/U+2029 escaped so that it cannot close the
block. The big parts are written compactly, never by dropping a number
(``bench/bench_report.py`` prints where the bytes go). A Content-Security-Policy
lets only the report's own script run (by its hash), as a second line of defence.
"""
from __future__ import annotations

import base64
import hashlib
import json
import math
from dataclasses import replace
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from rankmeter._version import __version__
from rankmeter.core.keywords import Unpack, takes_options
from rankmeter.core.options import Options
from rankmeter.engine.param import validate_params
from rankmeter.errors import ParameterError
from rankmeter.io.output import check_output
from rankmeter.report.assets import CSS, SCRIPT
from rankmeter.measures.aggregation import TEXT
from rankmeter.report.plots import PerQueryTable, align_per_query
from rankmeter.report.svg import slope_svg
from rankmeter.report.markup import comparison_html, data_value, is_missing, number_cell, p_cell, esc  # noqa: F401 - esc is public here
from rankmeter.report.explanations import explanations_html
from rankmeter.report.params import BEYOND_K, MAX_EXPLAINED, MAX_RANKS, TITLE
from rankmeter.report.per_query import per_query_html
from rankmeter.stats.params import ComparisonOptions, Significance, SignificanceOptions, significance


__all__ = ["write_report", "render_report", "render_leaderboard_report", "comparison_table", "script_json"]

_DECLARED = (TITLE, MAX_RANKS, MAX_EXPLAINED, BEYOND_K)

DASH = "\u2013"
_COLUMNS = ["measure", "system", "baseline", "mean", "baseline_mean", "delta", "p_value", "p_adjusted",
            "ci_low", "ci_high", "effect_size", "wins", "ties", "losses"]


def script_json(obj: object) -> str:
    """JSON safe inside ``<script>``: no ``<``, ``>``, ``&``, U+2028/2029 left raw; NaN becomes null.

    >>> script_json({"tag": "</script><b>&"})
    '{"tag": "\\\\u003c/script\\\\u003e\\\\u003cb\\\\u003e\\\\u0026"}'
    """
    text = json.dumps(_jsonable(obj), ensure_ascii=False, allow_nan=False)
    for raw, safe in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                      ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(raw, safe)
    return text


def _jsonable(obj):
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, np.ndarray)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, (np.generic,)):
        obj = obj.item()
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


# ------------------------------------------------------------------ comparison

def comparison_table(runs: Mapping[str, Any], *, baseline: str, tables: dict[str, PerQueryTable],
                     tests: Significance) -> tuple[list[dict], bool]:
    """The comparison rows (dicts) and whether significance was tested.

    Two runs or more go through :func:`rankmeter.compare_scores` on the per-query values the
    report already holds (the same table :func:`rankmeter.compare` gives, without scoring the runs
    again); one run gets a table of its means with the test columns empty.
    """
    if len(runs) > 1:
        from rankmeter.stats.compare import compare_scores
        scores = {system: {label: {q: float(v) for q, v in zip(t.queries, t.column(system)) if v == v}
                           for label, t in tables.items()} for system in next(iter(tables.values())).systems}
        return compare_scores(scores, baseline=baseline, **tests.as_dict()).table_records(), True
    rows = []
    for label, table in tables.items():
        base = table.column(baseline)
        for system in table.systems:
            values = table.column(system)
            both = ~(np.isnan(base) | np.isnan(values))
            d = values[both] - base[both]
            rows.append({"measure": label, "system": system, "baseline": baseline,
                         "mean": values[both].mean() if both.any() else np.nan,
                         "baseline_mean": base[both].mean() if both.any() else np.nan,
                         "delta": d.mean() if both.any() else np.nan,
                         "p_value": np.nan, "p_adjusted": np.nan, "ci_low": np.nan, "ci_high": np.nan,
                         "effect_size": np.nan, "wins": int((d > 0).sum()), "ties": int((d == 0).sum()),
                         "losses": int((d < 0).sum())})
    return rows, False


def _figures_html(q, named, tables: dict[str, PerQueryTable], baseline: str, options: Options | None) -> str:
    """Per measure a difference plot per system and a distribution plot; then the PR curves (with the judgments
    ``q`` and the validated ``options``); as inline SVG (drawn directly, :mod:`rankmeter.report.svg`: no
    matplotlib in the report)."""
    from rankmeter.report.figures import box_spec, diff_spec, pr_spec
    from rankmeter.report.plots import RECALL_LEVELS, mean_pr_curves
    from rankmeter.report.svg import box_svg, diff_svg, pr_svg

    figures = []
    for label, t in tables.items():
        for s in t.systems:
            a, b = t.column(baseline), t.column(s)
            if s == baseline or (np.isnan(a) | np.isnan(b)).all():
                continue  # no query in common: no difference to draw
            figures.append((diff_svg(diff_spec(a, b, t.queries, label, s, baseline)),
                            f"{label}: {s} \u2212 {baseline}, per query"))
        figures.append((box_svg(box_spec(list(t.values.T), t.systems, label)), f"{label}: per-query values"))
    if q is not None and options is not None:  # the precision-recall curves need the judgments
        figures.append((pr_svg(pr_spec(mean_pr_curves(q, dict(named), RECALL_LEVELS, options))),
                        "Interpolated precision at the eleven recall levels, averaged over queries"))
    return "".join(f"<figure>{svg}<figcaption>{esc(caption)}</figcaption></figure>" for svg, caption in figures)


# ------------------------------------------------------------------ page

def _page(title: str, meta: list[tuple[str, str]], sections: list[str], data: dict, *, nav: str = "") -> str:
    """The one page skeleton of every report: head (Content-Security-Policy that lets only the page's own
    script run, by its hash), the header with ``meta`` (term, markup) and ``nav``, the sections, the footer,
    the data block for tools and the script. Empty sections are left out."""
    script_hash = base64.b64encode(hashlib.sha256(SCRIPT.encode()).digest()).decode()
    csp = (f"default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
           f"script-src 'sha256-{script_hash}'; base-uri 'none'; form-action 'none'")
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{esc(csp)}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{esc(title)}</title><style>{CSS}</style></head><body>",
        f'<header><h1>{esc(title)}</h1><dl class="meta">'
        + "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in meta) + "</dl>" + (f"<nav>{nav}</nav>" if nav else "")
        + "</header>",
        *sections,
        f'<footer class="note"><p>Made by rankmeter {esc(__version__)}; works offline.</p></footer>',
        f'<script type="application/json" id="rankmeter-data">{script_json(data)}</script>',
        f"<script>{SCRIPT}</script></body></html>",
    ]
    return "\n".join(p for p in parts if p) + "\n"


@takes_options(in_memory=True)
@validate_params(*_DECLARED)
def render_report(qrels, runs, measures, *, baseline: str | None = None, title: str | None = None,
                  max_ranks: int = 20, max_explained: int | None = 100, plots: bool = True, train: Any = None,
                  beyond_k: int | None = None, other_qrels: Any = None, **options: Unpack[ComparisonOptions]) -> str:
    """The report as one HTML string (what :func:`write_report` writes).

    Parameters
    ----------
    qrels, runs, measures, baseline, title, max_ranks, max_explained, plots, train, beyond_k, other_qrels
        As for :func:`write_report`.
    %(evaluation_options)s

    Returns
    -------
    str
    """
    from rankmeter.core import Evaluator, validate_options
    from rankmeter.core.naming import name_runs

    tests = significance(options)
    opts = validate_options(**options)
    evaluator = Evaluator.of(qrels, measures, opts)
    q = evaluator.qrels
    named = name_runs(runs, columns=opts.columns, input_format=opts.input_format)
    names = [n for n, _ in named]
    baseline = names[0] if baseline is None else str(baseline)
    if baseline not in names:
        raise ParameterError(f"baseline={baseline!r} is not one of the runs: {', '.join(names)}")
    labels = list(dict(evaluator.names).items())
    text = [label for label, m in labels if m.family.value_type is TEXT]
    if text:
        raise ParameterError(f"{', '.join(text)}: text measures cannot be compared or plotted")
    given: dict[str, Any] = {k: v for k, v in options.items() if k != "columns"}  # for analyses taking **options
    results = [(name, evaluator.evaluate(run)) for name, run in named]
    tables = {label: align_per_query(str(m), results) for label, m in labels}
    for label, t in tables.items():
        t.measure = label
    frame, tested = comparison_table(dict(named), baseline=baseline, tables=tables, tests=tests)
    first = next(iter(tables.values()))
    chosen = first.queries if max_explained is None else first.queries[:max_explained]

    figures = _figures_html(q, named, tables, baseline, replace(opts, columns=None)) if plots else ""
    beyond = ""
    if train is not None:
        from rankmeter.report.beyond import beyond_html
        beyond = beyond_html(train, named, baseline=baseline, k=beyond_k, ties=opts.ties, tests=tests)
    elif beyond_k is not None:
        raise ParameterError("beyond_k needs train= (the training interactions the lists are measured against)")
    boards = ""
    if other_qrels is not None:  # two qrels versions (human, LLM): the two leaderboards side by side
        from rankmeter.judges.leaderboard_agreement import leaderboards
        found = leaderboards(qrels, other_qrels, {n: r for n, r in named}, [lb for lb, _ in labels], **given)
        boards = ("".join(f'<figure class="slope">{slope_svg(found, lb)}<figcaption>{esc(lb)}</figcaption></figure>'
                          for lb, _ in labels)
                  + f'<pre class="note">{esc(found.to_text())}</pre>')
    data = {"version": __version__, "qrels": q.source, "baseline": baseline, "measures": [lb for lb, _ in labels],
            "systems": names, "runs": [{"name": n, "tag": r.name, "file": r.source} for n, r in named],
            "queries": first.queries,
            "per_query": {lb: {s: t.column(s) for s in t.systems} for lb, t in tables.items()}}
    title = title or "rankmeter report: " + ", ".join(names)
    run_items = "".join(f'<li><b>{esc(n)}</b> <span class="muted">tag</span> <code>{esc(r.name)}</code> '
                        f'<span class="muted">from</span> <code>{esc(r.source)}</code></li>' for n, r in named)
    n_queries = len(first.queries)
    cap = (f"all {n_queries} queries" if len(chosen) == n_queries
           else f"the first {len(chosen)} of {n_queries} queries in natural order, q2 before q10 (raise "
                "max_explained / --explain-queries)")
    policy = "every judged query" if opts.queries == "qrels" else "queries in both qrels and run"
    if len(results) > 1 and len({len(r.queries) for _, r in results}) > 1:  # the runs answer different queries
        policy += "; per run: " + ", ".join(f"{esc(n)} {len(r.queries)}" for n, r in results)
    meta = [("qrels", f"<code>{esc(q.source)}</code>"), ("runs", f"<ul>{run_items}</ul>"),
            ("baseline", esc(baseline)), ("measures", ", ".join(f"<code>{esc(lb)}</code>" for lb, _ in labels)),
            ("queries", f"{n_queries} ({policy})"),
            ("test", f"{esc(tests.test)} test, "
                     f"{'no correction' if tests.correction == 'none' else esc(tests.correction) + ' correction'}, "
                     f"alpha {esc(tests.alpha)}" if tested else "not run"),
            ("settings", f"rel &ge; {esc(opts.rel)}{', judged docs only' if opts.judged_only else ''}")]
    nav = "".join(f'<a href="#sec-{k}">{v}</a>' for k, v in
                  [("comparison", "comparison"), ("leaderboards", "two qrels"), ("beyond", "beyond accuracy"),
                   ("coverage", "judged coverage"), ("ties", "ties"), ("plots", "plots"), ("per-query", "per query"),
                   ("explain", "explanations")]
                  if (plots or k != "plots") and (beyond or k != "beyond") and (boards or k != "leaderboards"))
    from rankmeter.report.coverage import coverage_html, ties_html
    sections = [
        '<section id="sec-comparison"><h2>Comparison</h2>'
        + comparison_html(frame, alpha=tests.alpha, tested=tested) + "</section>",
        f'<section id="sec-leaderboards"><h2>Leaderboards under two qrels</h2>{boards}</section>' if boards else "",
        f'<section id="sec-beyond"><h2>Beyond accuracy</h2>{beyond}</section>' if beyond else "",
        '<section id="sec-coverage"><h2>Judged coverage</h2>'
        + coverage_html(q, named, [label for label, _ in labels], opts) + "</section>",
        '<section id="sec-ties"><h2>Ties</h2>' + ties_html(named, ties=opts.ties) + "</section>",
        f'<section id="sec-plots"><h2>Plots</h2><div class="plots">{figures}</div></section>' if plots else "",
        '<section id="sec-per-query"><h2>Per query</h2><p class="note">Click a header to sort; click a query '
        'id for its explanation.</p><div class="filter"><label>Filter by query id: <input id="filter" '
        'type="search" autocomplete="off" placeholder="query id contains\u2026"></label> <span id="filter-count" '
        'class="muted"></span></div>' + per_query_html(tables, baseline, set(chosen)) + "</section>",
        f'<section id="sec-explain"><h2>Explanations</h2><p class="note">Step by step, per query, measure and run, '
        f'for {cap}. At most {max_ranks} ranks are shown per table (fewer when the measure has a smaller cutoff); '
        f'the formulas use every rank.</p>'
        + explanations_html(evaluator, named, labels, tables, chosen, max_ranks=max_ranks) + "</section>",
    ]
    return _page(title, meta, sections, data, nav=nav)


@takes_options()
def render_scores_report(scores, *, baseline: str | None = None, title: str | None = None,
                         what: str = "per-query scores", **tests: Unpack[SignificanceOptions]) -> str:
    """The report of per-query scores computed elsewhere (RAG nugget scores, beyond-accuracy values):
    ``{system: {measure: {query: value}}}``, compared as :func:`rankmeter.compare_scores` compares them,
    with the per-query table and the difference and distribution plots. Sections that need judgments and
    rankings (coverage, ties, explanations, precision-recall) are not drawn.

    Parameters
    ----------
    scores : dict
        ``{system: {measure: {query: value}}}``, as for :func:`rankmeter.compare_scores`.
    baseline, title : str, optional
        As for :func:`write_report`.
    what : str
        What the queries' values are, for the page's header.
    %(evaluation_options)s

    Returns
    -------
    str
    """
    from rankmeter.stats.compare import compare_scores
    from rankmeter.report.plots import PerQueryTable

    knobs = significance(tests)
    test, correction, alpha = knobs.test, knobs.correction, knobs.alpha
    cmp = compare_scores(scores, baseline=baseline, **knobs.as_dict())
    tables = {label: PerQueryTable(label, list(cmp.queries), list(cmp.systems), cmp.scores[label])
              for label in cmp.measures}
    title = title or f"rankmeter report: {', '.join(cmp.systems)}"
    correction_text = "no correction" if correction == "none" else f"{esc(correction)} correction"
    meta = [("systems", ", ".join(esc(s) for s in cmp.systems)), ("baseline", esc(cmp.baseline)),
            ("measures", ", ".join(f"<code>{esc(m)}</code>" for m in cmp.measures)),
            ("queries", f"{len(cmp.queries)} ({esc(what)})"),
            ("test", f"{esc(test)} test, {correction_text}, alpha {esc(alpha)}")]
    data = {"version": __version__, "baseline": cmp.baseline, "measures": list(cmp.measures),
            "systems": list(cmp.systems), "queries": list(cmp.queries),
            "per_query": {lb: {sys_: t.column(sys_) for sys_ in t.systems} for lb, t in tables.items()}}
    sections = [
        '<section id="sec-comparison"><h2>Comparison</h2>'
        + comparison_html(cmp.table_records(), alpha=alpha, tested=len(cmp.systems) > 1) + "</section>",
        '<section id="sec-plots"><h2>Plots</h2><div class="plots">'
        + _figures_html(None, [], tables, cmp.baseline, None) + "</div></section>",
        '<section id="sec-per-query"><h2>Per query</h2>' + per_query_html(tables, cmp.baseline, set()) + "</section>",
    ]
    return _page(title, meta, sections, data)


def render_leaderboard_report(board, *, title: str | None = None) -> str:
    """The report of a :class:`rankmeter.leaderboard.Leaderboard`: its section
    (:func:`rankmeter.report.leaderboard.leaderboard_html`: tables, rank-interval plots, win-probability
    matrices), with the leaderboard's JSON as the data block."""
    from rankmeter.report.leaderboard import leaderboard_html

    title = title or f"rankmeter leaderboard: {len(board.systems)} systems, {len(board.collections)} collections"
    meta = [("systems", ", ".join(esc(s) for s in board.systems)),
            ("collections", ", ".join(esc(c) for c in board.collections)),
            ("measures", ", ".join(f"<code>{esc(m)}</code>" for m in board.measures)),
            ("resampled", esc(board.level)), ("test", f"{esc(board.test)}, {esc(board.correction)} correction, "
                                                      f"alpha {esc(board.alpha)}")]
    return _page(title, meta, [leaderboard_html(board)], {"version": __version__, **board.to_dict()})


@takes_options(in_memory=True)
def write_report(qrels, runs, measures, path: str | Path, *, baseline: str | None = None, title: str | None = None,
                 max_ranks: int = 20, max_explained: int | None = 100, plots: bool = True, train: Any = None,
                 beyond_k: int | None = None, other_qrels: Any = None, **options: Unpack[ComparisonOptions]) -> Path:
    """Write a self-contained HTML report comparing ``runs``.

    Parameters
    ----------
    qrels : as for :func:`rankmeter.evaluate`
    runs : dict name -> run, or a sequence of runs/paths (named by run tag or file)
    measures : str or list of str
        Measures for the tables, plots and explanations.
    path : str or Path
        The ``.html`` file to write.
    baseline : str, optional
        The run the others are compared with (default: the first).
    title : str, optional
    max_ranks : int, default 20
        Ranks shown per explanation table (fewer when the measure's cutoff is smaller).
    max_explained : int or None, default 100
        Explain the first this many queries (None: all), to keep the file small.
    plots : bool, default True
        Include the plots (needs matplotlib: ``pip install matplotlib``).
    train : frame or dict, optional
        Training interactions (``user`` and ``item`` columns, or ``{user: [item, ...]}``): adds a
        beyond-accuracy section where each run's rankings are recommendation lists
        (:func:`rankmeter.recsys.beyond.beyond_accuracy`), per-user measures compared over users.
    beyond_k : int, optional
        Cut each list at its first ``beyond_k`` items for that section (default: whole lists).
    other_qrels : path, Qrels, dict or DataFrame, optional
        A second qrels version (LLM-made, say): adds the two leaderboards side by side and their agreement.
    %(evaluation_options)s

    Returns
    -------
    pathlib.Path
    """
    from rankmeter.io.output import output_file

    inputs = [qrels] + (list(runs.values()) if isinstance(runs, dict) else
                        [runs] if isinstance(runs, (str, Path)) else list(runs))
    path = check_output(path, inputs=inputs, suffixes=(".html", ".htm"))
    page = render_report(qrels, runs, measures, baseline=baseline, title=title, max_ranks=max_ranks,
                         max_explained=max_explained, plots=plots, train=train, beyond_k=beyond_k,
                         other_qrels=other_qrels, **options)
    with output_file(path, inputs=inputs, suffixes=(".html", ".htm")) as fh:
        fh.write(page)
    return path
