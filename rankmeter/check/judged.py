"""How far each run's numbers rest on judgments: :func:`judged`, and ``rankmeter judged``.

Unjudged docs count as non-relevant, so a run that retrieves many of them
(a new system against an old pool) scores low for a reason that says
nothing about it. Per run this puts side by side:

* ``Judged@k``: the share of the top min(k, retrieved) docs listed in the qrels;
* each requested measure on the full ranking and on the *condensed* ranking,
  unjudged docs removed and the gaps closed (``judged_only=True``, trec_eval
  ``-J``; Sakai, SIGIR 2007);
* ``bpref`` (Buckley and Voorhees, SIGIR 2004) and ``infAP`` (Yilmaz and
  Aslam, CIKM 2006), built to bear incomplete judgments, beside AP;
* ``RBP`` with its residual as the interval ``[RBP, RBP + residual]``: the
  value if every unjudged doc (and every doc past the ranking) is
  non-relevant, and if every one is relevant (Moffat and Zobel, TOIS 2008).

Means are over the judged queries each run ranks (as :func:`rankmeter.evaluate`).

Examples
--------
Grades a = 1, b = 0, c = 1; the run ranks a, x, c (x unjudged). Judged@2
is 1/2; AP = (1 + 2/3) / 2; on the condensed ranking a, c it is 1.
RBP(p=0.5) = 0.5 * (1 + 0.25) = 0.625; the residual adds 0.5 * 0.5 for x at
rank 2 and 0.5^3 past rank 3.

>>> report = judged({"q": {"a": 1, "b": 0, "c": 1}}, {"q": {"a": 3.0, "x": 2.0, "c": 1.0}},
...                 ["AP"], cutoffs=(2, 10), rbp_p=0.5)
>>> row = report.rows[0]
>>> row.judged[2], round(row.judged[10], 4), round(row.full["AP"], 4), row.condensed["AP"]
(0.5, 0.6667, 0.8333, 1.0)
>>> row.rbp
(0.625, 1.0)
"""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field

from rankmeter.core.keywords import EvaluationOptions, Unpack, takes_options
from rankmeter.core.numbers import format_number
from rankmeter.core.options import Options, validate_options
from rankmeter.engine.param import Param, validate_params
from rankmeter.errors import ParameterError

#: RBP's persistence in the report (``rankmeter judged --rbp-p``; ``--p`` is its older flag)
RBP_P = Param("rbp_p", "number", help="RBP persistence, in (0, 1)", low=0, high=1, low_open=True,
              high_open=True)
#: one k of Judged@k (``rankmeter judged --cutoff K``, repeatable; ``cutoffs=`` in Python)
CUTOFF = Param("cutoff", "integer", None, "Judged@K (repeatable; default 10, 100, 1000)", low=1)

__all__ = ["judged", "judged_with", "JudgedReport", "JudgedRow"]

CUTOFFS = (10, 100, 1000)


@dataclass
class JudgedRow:
    """One run: coverage, each measure full and condensed, bpref, infAP, the RBP interval."""

    run: str
    queries: int
    judged: dict[int, float]
    full: dict[str, float]
    condensed: dict[str, float]
    bpref: float
    infAP: float
    rbp: tuple[float, float]   # (RBP, RBP + residual)
    rbp_p: float = 0.8
    missing: int = 0           # judged queries the run does not rank

    def to_dict(self) -> dict:
        return {"run": self.run, "queries": self.queries, "missing_queries": self.missing,
                **{f"Judged@{k}": v for k, v in self.judged.items()},
                "measures": {name: {"full": self.full[name], "judged_only": self.condensed[name]}
                             for name in self.full},
                "bpref": self.bpref, "infAP": self.infAP,
                "rbp": {"p": self.rbp_p, "low": self.rbp[0], "high": self.rbp[1],
                        "residual": self.rbp[1] - self.rbp[0]}}


@dataclass
class JudgedReport:
    """The rows of :func:`judged`, one per run, with text, JSON and CSV renderings."""

    measures: list[str]
    cutoffs: tuple[int, ...]
    rbp_p: float
    rows: list[JudgedRow] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"measures": self.measures, "cutoffs": list(self.cutoffs), "rbp_p": self.rbp_p,
                "runs": [row.to_dict() for row in self.rows]}

    def columns(self) -> list[str]:
        """The CSV header: one row per run, one column per number."""
        rbp = f"RBP(p={self.rbp_p:g})"
        return (["run", "queries", "missing_queries"] + [f"Judged@{k}" for k in self.cutoffs]
                + [c for m in self.measures for c in (m, f"{m} judged only")]
                + ["bpref", "infAP", rbp, f"{rbp} + residual"])

    def table(self) -> list[list]:
        return [[row.run, row.queries, row.missing, *row.judged.values(),
                 *[v for m in self.measures for v in (row.full[m], row.condensed[m])],
                 row.bpref, row.infAP, *row.rbp] for row in self.rows]

    def to_csv(self) -> str:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(self.columns())
        writer.writerows(self.table())
        return out.getvalue()

    def to_text(self, *, decimals: int = 4) -> str:
        """One block per run: coverage, then measure / full / judged only, then bpref, infAP and RBP."""
        def num(v) -> str:
            return format_number(v, decimals)
        width = max([len(m) for m in self.measures] + [len(f"RBP(p={self.rbp_p:g})"), 7])
        lines = []
        for row in self.rows:
            missing = f", {row.missing} judged queries missing" if row.missing else ""
            lines.append(f"{row.run} ({row.queries} queries{missing})")
            lines.append("  " + "  ".join(f"Judged@{k} {num(v)}" for k, v in row.judged.items()))
            lines.append(f"  {'measure':<{width}}  {'full':>{decimals + 2}}  judged only")
            for m in self.measures:
                lines.append(f"  {m:<{width}}  {num(row.full[m])}  {num(row.condensed[m])}")
            lines.append(f"  {'bpref':<{width}}  {num(row.bpref)}")
            lines.append(f"  {'infAP':<{width}}  {num(row.infAP)}")
            lines.append(f"  {f'RBP(p={self.rbp_p:g})':<{width}}  [{num(row.rbp[0])}, {num(row.rbp[1])}]"
                         "  (unjudged all non-relevant .. all relevant)")
        return "\n".join(lines) + "\n"


@takes_options(in_memory=True, without=("judged_only",))
@validate_params(RBP_P)
def judged(qrels, runs, measures=("AP", "nDCG@10"), *, cutoffs: tuple[int, ...] = CUTOFFS, rbp_p: float = 0.8,
           **options: Unpack[EvaluationOptions]) -> JudgedReport:
    """Per run: Judged@k, each measure full and condensed, bpref, infAP and the RBP interval.

    ``judged_only`` is not an option here: the report shows each measure both ways (it would make both
    columns the condensed one).

    Parameters
    ----------
    qrels : path, Qrels, dict or DataFrame
    runs : a run, a list of runs or a dict name -> run
        Named as :func:`rankmeter.evaluate` names them.
    measures : str or list of str, default ("AP", "nDCG@10")
        Each is scored twice: as given and with ``judged_only=True``.
    cutoffs : tuple of int, default (10, 100, 1000)
        The k of ``Judged@k``.
    rbp_p : float, default 0.8
        RBP's persistence.
    %(evaluation_options)s

    Returns
    -------
    JudgedReport
    """
    return judged_with(qrels, runs, measures, validate_options(**options), cutoffs=cutoffs, rbp_p=rbp_p)


def judged_with(qrels, runs, measures, options: Options, *, cutoffs: tuple[int, ...] = CUTOFFS,
                rbp_p: float = 0.8) -> JudgedReport:
    """:func:`judged` under evaluation options validated already (``judged_only`` False: each measure is
    scored both ways)."""
    from rankmeter.core import Evaluator
    from rankmeter.core.resolve import resolve_measures
    from rankmeter.core.naming import name_runs

    names = resolve_measures([measures] if isinstance(measures, str) else list(measures))
    if not names:
        raise ParameterError("give at least one measure")
    cutoffs = tuple(CUTOFF.but(required=True).check(k) for k in ([cutoffs] if isinstance(cutoffs, int) else cutoffs))
    if not cutoffs:
        raise ParameterError("cutoffs=(): give at least one k of Judged@k")
    judged_measures = [f"Judged@{k}" for k in cutoffs]
    extra = ["bpref", "infAP", f"RBP(p={rbp_p!r})", f"RBP_resid(p={rbp_p!r})"]
    condensed = [m.with_params(judged_only=True) for _, m in names]
    evaluator = Evaluator.of(qrels, [*judged_measures, *(m for _, m in names), *condensed, *extra], options)
    report = JudgedReport([label for label, _ in names], cutoffs, rbp_p)
    for run_name, run in name_runs(runs, columns=evaluator.options.columns):
        result = _evaluate_quietly(evaluator, run, run_name)
        mean = result.mean
        low, residual = mean[extra[2]], mean[extra[3]]
        report.rows.append(JudgedRow(
            run=run_name, queries=len(result.queries), missing=len(result.missing),
            judged={k: mean[m] for k, m in zip(cutoffs, judged_measures)},
            full={label: result[m] for label, m in names},
            condensed={label: result[m] for (label, _), m in zip(names, condensed)},
            bpref=mean["bpref"], infAP=mean["infAP"], rbp=(low, low + residual), rbp_p=rbp_p))
    return report


def _evaluate_quietly(evaluator, run, name):
    """The run's results; judged queries it lacks are counted in the row, not warned about."""
    from rankmeter.core.in_memory import evaluate_in_memory
    return evaluate_in_memory(evaluator, run, warn=False)
