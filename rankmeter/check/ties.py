"""How much a score depends on the order of tied docs: :func:`tie_report` and ``rankmeter ties``.

Docs with equal scores in one query have no order of their own; trec_eval
breaks the tie by docno (descending), so renaming documents can change a
score. For each measure and query the report gives the trec_eval value, the
expected value over every order of the tied docs (``ties="average"``: exact,
McSherry and Najork 2008; None for a measure without a closed form), and the
lowest and highest values (``ties="worst"`` and ``ties="best"``: tied docs
ordered relevant-last and relevant-first, exact for measures that never fall
when a doc's grade rises), with the tied groups of each query and the
cutoffs they straddle.

>>> import rankmeter
>>> report = rankmeter.tie_report({"q": {"a": 1, "c": 1}}, {"q": {"a": 1.0, "b": 1.0, "c": 1.0, "d": 0.5}},
...                               ["AP", "P@1"])
>>> [(row["measure"], round(row["trec_eval"], 4), round(row["average"], 4), row["worst"], row["best"])
...  for row in report.overall]
[('AP', 0.8333, 0.8056, 0.5833333333333333, 1.0), ('P@1', 1.0, 0.6667, 0.0, 1.0)]
>>> report.groups[0]["tied_groups"], report.groups[0]["straddles"]
(1, [1])
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rankmeter.core.keywords import EvaluationOptions, Unpack, takes_options
from rankmeter.core.numbers import format_number

__all__ = ["tie_report", "TieReport"]

CUTOFFS = (10, 100, 1000)


@dataclass
class TieReport:
    """Per measure the four values overall (``overall``) and per query (``per_query``), and per query
    its tied groups (``groups``: how many, their sizes, the cutoffs they straddle)."""

    overall: list[dict[str, Any]]
    per_query: list[dict[str, Any]]
    groups: list[dict[str, Any]]
    cutoffs: tuple[int, ...] = field(default=CUTOFFS)

    def to_dict(self) -> dict[str, Any]:
        return {"overall": self.overall, "per_query": self.per_query, "groups": self.groups,
                "cutoffs": list(self.cutoffs)}

    def to_text(self, *, decimals: int = 4, all_queries: bool = False) -> str:
        """The overall table, then the queries whose value depends on the order of their tied docs."""
        def num(v) -> str:
            return format_number(v, decimals)
        lines = [f"{'measure':<24} {'trec_eval':>10} {'average':>10} {'worst':>10} {'best':>10}"]
        lines += [f"{r['measure']:<24} {num(r['trec_eval']):>10} {num(r['average']):>10} {num(r['worst']):>10} "
                  f"{num(r['best']):>10}" for r in self.overall]
        tied = [g for g in self.groups if g["tied_groups"]]
        straddling = {k: sum(k in g["straddles"] for g in tied) for k in self.cutoffs}
        lines.append("")
        lines.append(f"{len(tied)} of {len(self.groups)} queries hold tied docs "
                     f"({sum(g['tied_groups'] for g in tied)} groups); queries with a group across rank "
                     + ", ".join(f"{k}: {n}" for k, n in straddling.items()))
        rows = [r for r in self.per_query if all_queries or r["worst"] != r["best"]]
        if rows:
            lines += ["", f"{'query':<16} {'measure':<24} {'trec_eval':>10} {'average':>10} {'worst':>10} {'best':>10}"]
            lines += [f"{r['query']:<16} {r['measure']:<24} {num(r['trec_eval']):>10} {num(r['average']):>10} "
                      f"{num(r['worst']):>10} {num(r['best']):>10}" for r in rows]
        return "\n".join(lines) + "\n"


@takes_options(in_memory=True, without=("ties",))
def tie_report(qrels, run, measures, *, cutoffs: tuple[int, ...] = CUTOFFS,
               **options: Unpack[EvaluationOptions]) -> TieReport:
    """Each measure under the four tie policies, and the run's tied groups (see the module docstring).

    ``ties`` is what the report varies, so it is not an option here; ``max_docs`` is refused with the
    average policy (its closed form ranks every doc).

    Parameters
    ----------
    qrels, run, measures
        As :func:`rankmeter.evaluate` takes them.
    cutoffs : tuple of int, default (10, 100, 1000)
        The ranks a tied group is said to straddle (each measure's own cutoff is added).
    %(evaluation_options)s
    """
    from rankmeter.core import Evaluator
    from rankmeter.core.options import validate_options
    from rankmeter.core.rows import tie_groups
    from rankmeter.io import as_run

    opts = validate_options(**options)
    base = Evaluator.of(qrels, measures, opts)
    run = as_run(run, columns=base.options.columns, input_format=base.options.input_format)
    labels = [label for label, _ in base.names]
    results = {"trec_eval": base.evaluate(run)}
    for policy in ("worst", "best"):
        results[policy] = Evaluator.of(qrels, measures, opts.replace(ties=policy)).evaluate(run)
    averaged = [label for label, m in base.names if m.family.tie_average is not None]
    if averaged:
        results["average"] = Evaluator.of(qrels, averaged, opts.replace(ties="average")).evaluate(run)
    per_query, overall = [], []
    values = {policy: _values(res) for policy, res in results.items()}
    for label in labels:
        row = {"measure": label}
        for policy in ("trec_eval", "average", "worst", "best"):
            res = results.get(policy)
            row[policy] = _mean(res, label) if res is not None and label in res.mean else None
        overall.append(row)
        for q, value in values["trec_eval"].get(label, {}).items():
            per_query.append({"query": q, "measure": label, "trec_eval": value,
                              "average": values.get("average", {}).get(label, {}).get(q),
                              "worst": values["worst"][label][q], "best": values["best"][label][q]})
    cut = sorted(set(cutoffs) | {int(m.cutoff) for _, m in base.names
                                 if isinstance(m.cutoff, (int, np.integer)) and m.cutoff})
    groups = tie_groups(base.rows(run), cutoffs=cut)  # the judged queries the run ranks, as scored
    return TieReport(overall, per_query, groups, tuple(cut))


def _mean(results, label: str):
    value = results.mean[label]
    return None if value is None else float(value)


def _values(results) -> dict[str, dict[str, float]]:
    """{measure: {query: value}} of a Results."""
    return {label: dict(zip(results.queries, map(float, results.values(label)))) for label in results.names}
