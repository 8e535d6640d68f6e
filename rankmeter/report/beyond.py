"""The report's beyond-accuracy section: each run's lists against the training interactions.

Given ``train`` (who interacted with what), every run is read as recommendation
lists (its ranking per query, the engine's order, cut at ``k``) and scored
with :func:`rankmeter.recsys.beyond.beyond_accuracy`: one table of each run's values
and, for two runs or more, the per-user measures compared over users with the
report's own test and correction (:func:`rankmeter.compare_scores`).
"""
from __future__ import annotations

import math

import numpy as np

from rankmeter.stats.params import Significance

__all__ = ["beyond_html", "run_as_lists"]


def run_as_lists(run, *, ties: str = "trec_eval"):
    """A run as recommendation lists: an Arrow table (user, item) of each query's docs in rank order."""
    import pyarrow as pa

    from rankmeter.core.build import ranked_rows
    from rankmeter.io.canonical import decode_id

    order = pa.array(ranked_rows(run, ties=ties))
    columns = {}
    for role, name in (("query", "user"), ("doc", "item")):
        ids = run.table.column(role).take(order)
        try:
            columns[name] = ids.cast(pa.string())
        except pa.ArrowInvalid:  # ids that are not UTF-8: as the readers show them
            columns[name] = pa.array([decode_id(v) for v in ids.to_pylist()], pa.string())
    return pa.table(columns)


def beyond_html(train, named: list, *, baseline: str, k: int | None, ties: str, tests: Significance) -> str:
    """The section's HTML: a table of every run's values, then the comparison over users."""
    from rankmeter.recsys.beyond import PER_USER, beyond_accuracy
    from rankmeter.report.markup import comparison_html, number_cell, esc

    results = {name: beyond_accuracy(train, run_as_lists(run, ties=ties), k=k)
               for name, run in named}
    keys = list(next(iter(results.values())).overall)
    head = '<th class="text">system</th>' + "".join(f'<th class="num">{esc(key)}</th>' for key in keys)
    rows = "".join(
        f'<tr><td class="text">{esc(name)}</td>'
        + "".join(f'<td data-v="{"" if math.isnan(v) else repr(v)}">{number_cell(v)}</td>'
                  for v in (float(result.overall[key]) for key in keys)) + "</tr>"
        for name, result in results.items())
    cut = f"the first {k} items of each list" if k else "whole lists"
    parts = [f'<p class="note">Each run\'s ranking per query read as a recommendation list ({cut}) against the '
             f'training interactions; per-user measures are means over users (definitions: '
             f'<code>rankmeter.recsys.beyond</code>).</p><div class="scroll"><table class="sortable" id="beyond">'
             f"<thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table></div>"]
    if len(results) > 1:
        from rankmeter.stats.compare import compare_scores

        scores = {name: {m: {u: v for u, v in result.per_user[m].items() if not np.isnan(v)} for m in PER_USER}
                  for name, result in results.items()}
        records = compare_scores(scores, baseline=baseline, **tests.as_dict()).table_records()
        parts.append("<h3>Per-user measures compared over users</h3>"
                     + comparison_html(records, alpha=tests.alpha, tested=True))
    return "".join(parts)
