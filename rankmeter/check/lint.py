"""A lint for suspicious numbers: values a run got that say more about the inputs than about the system.

:func:`lint` scores nothing new unless it must; each finding is a :class:`Finding`
(``rankmeter check`` lists them, ``rankmeter eval`` prints each as one warning line on stderr, ``--no-lint``
silences them; in Python, ``warnings.filterwarnings("ignore", category=SuspiciousNumberWarning)``):

* ``out_of_range``: a mean or a per-query value outside its measure's range ([0, 1] for nDCG, AP, RR, P,
  R, Success ...), or not a number;
* ``ties_decide``: the value falls by half or more when tied docs are put in their worst order
  (``ties="worst"``): the scores do not separate the docs, the tie-breaking rule makes the number (a
  constant or near-constant scorer getting a high score, mteb #5092); looked at when a tenth or more
  of the rows share their query's score with another (the run is then scored once more);
* ``unjudged_top``: most of the top 10 docs are unjudged (judged@10 below 50%) although the qrels judge 10 docs
  or more per query on average (pooled judgments; sparse ones such as MS MARCO's cannot fill a top 10): they
  count as non-relevant, and the run is unlike the pooled ones (or its ids are not the qrels');
* ``self_id``: queries that list their own id among their results (a corpus that holds the queries):
  BEIR drops those docs (``ignore_self=True``, ``--ignore-self``); where queries and docs are numbered
  with the same integers (MS MARCO), only when there are far more of them than chance gives or the own
  id ranks first in many (:mod:`rankmeter.check.ids`);
* ranks given as scores are reported where the run is read (``scores_look_like_ranks``).

>>> qrels = {f"q{i}": {f"d{i}": 1} for i in range(3)}
>>> run = {f"q{i}": {f"d{i}": 0.0, **{f"x{j}": 0.0 for j in range(5)}} for i in range(3)}
>>> [f.code for f in lint(qrels, run, ["RR@10"], ties="input")]
['ties_decide']
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field, replace

import numpy as np

__all__ = ["lint", "lint_results", "warn", "with_judged", "without", "SuspiciousNumberWarning", "UNIT_FAMILIES",
           "JUDGED"]

#: families whose every value lies in [0, 1]
UNIT_FAMILIES = frozenset({"nDCG", "AP", "RR", "P", "R", "Success", "Judged", "Rprec", "bpref", "infAP", "ERR",
                           "nERR", "F", "RBP", "SetP", "SetR", "SetF", "iprec_at_recall", "interpolated_P"})
_TOP = 10
_UNJUDGED = 0.5    # judged@10 below this

@dataclass
class Finding:
    """One thing the check found: where, what, and (for warnings) what it changes."""

    level: str                 # "warning" or "note"
    code: str                  # a stable name: "duplicates", "only_in_run", ...
    source: str
    message: str
    details: dict = field(default_factory=dict)

    def __str__(self) -> str:
        return f"{self.level}: {self.source}: {self.message}"


_TIES = 0.5        # the worst tie order loses this share of the value or more
_TIES_MIN = 0.05   # ... and at least this much
_TIED_ROWS = 0.1   # looked at only when this share of the rows or more is tied ...
_SAMPLE = 200_000  # ... among the run's first rows


class SuspiciousNumberWarning(UserWarning):
    """A number :func:`lint` finds suspicious (``rankmeter eval`` prints it; ``--no-lint`` silences it)."""


def _finding(code: str, name: str, message: str, data: dict, short: str):
    """A warning; ``short`` is its one line in ``rankmeter eval`` (fits a terminal), ``message`` ``check``'s."""
    return Finding("warning", code, name, message, {**data, "short": short})


def lint_results(results, name: str = "") -> list:
    """``out_of_range`` findings of scored :class:`~rankmeter.Results` (no input needed)."""
    out = []
    for label, measure in results._names:   # the values in the engine's order: no reordering unless one is bad
        if measure.family.name not in UNIT_FAMILIES:
            continue
        values = np.asarray(results._values[measure], dtype=np.float64)
        bad = np.isfinite(values) & ((values < 0) | (values > 1 + 1e-12))
        mean = results[label]
        mean = math.nan if mean is None else float(mean)
        if bad.any() or (math.isfinite(mean) and not 0 <= mean <= 1 + 1e-12):
            natural = np.asarray(results.values(label), dtype=np.float64)   # aligned with results.queries
            bad = np.isfinite(natural) & ((natural < 0) | (natural > 1 + 1e-12))
            queries = [str(q) for q in np.asarray(results.queries, dtype=object)[bad][:5]]
            out.append(_finding("out_of_range", name, f"{label} has {int(bad.sum())} per-query values (mean "
                                f"{mean:.4g}) outside [0, 1], its range: check the inputs (grades, duplicate docs) "
                                f"or the tool that made them; first: {', '.join(queries)}",
                                {"measure": label, "queries": queries},
                                f"{label} outside [0, 1] on {int(bad.sum())} queries (rankmeter check)"))
    return out


#: the hidden measure the lint reads the top docs' coverage from (scored with the others: no second pass)
JUDGED = "Judged@10"


def with_judged(measures) -> tuple[list, bool]:
    """``measures`` plus :data:`JUDGED` when it is not among them, and whether it was added."""
    chosen = [measures] if isinstance(measures, str) else list(measures)
    return (chosen, False) if JUDGED in chosen else (chosen + [JUDGED], True)


def without(results, label: str):
    """``results`` without the measure ``label`` (the one :func:`with_judged` added)."""
    from rankmeter.core.results import Results
    kept = [(n, m) for n, m in results._names if n != label]
    return Results(results._ids, kept, {m: results._values[m] for _, m in kept}, results.run,
                   missing=results.missing, only_in_run=results.only_in_run)


def lint(qrels, run, measures=("nDCG@10", "RR@10"), *, name: str = "", results=None, evaluator=None,
         **options) -> list:
    """Every finding of the module docstring for ``run`` scored with ``measures`` and ``options``.

    ``evaluator`` and ``results``: an :class:`~rankmeter.Evaluator` already made and the run's results
    (with :data:`JUDGED` among their measures: :func:`with_judged`), to score nothing twice. Cheap unless
    the run has tied scores in a query: then it is scored once more with ``ties="worst"``.
    """
    from rankmeter.core import Evaluator
    from rankmeter.core.options import validate_options
    from rankmeter.io import as_run

    if evaluator is None:
        evaluator = Evaluator.of(qrels, with_judged(measures)[0], validate_options(**options))
    ev = evaluator
    run = as_run(run, columns=ev.options.columns, input_format=ev.options.input_format)
    if results is None:
        from rankmeter.core.in_memory import evaluate_in_memory
        results = evaluate_in_memory(ev, run, warn=False, check_common=False)
    out = []
    if JUDGED in results.names:
        judged = results[JUDGED]
        results = without(results, JUDGED) if len(results.names) > 1 else results
        dense = len(ev.qrels) >= _TOP * max(ev.judgments.nq, 1)   # enough judged docs to fill the top 10
        if judged is not None and judged < _UNJUDGED and dense:
            out.append(_finding("unjudged_top", name, f"only {judged:.0%} of the top {_TOP} docs are judged: the "
                                "unjudged ones count as non-relevant, so the value says little (judge them, or "
                                "compare with judged_only=True)", {"judged@10": float(judged)},
                                f"only {judged:.0%} of the top {_TOP} docs judged (rankmeter check)"))
    out += lint_results(results, name)
    if ev.options.ties not in ("best", "worst", "average") and _has_ties(run):
        out[:0] = _ties_decide(ev, run, results, name)
    if not ev.options.ignore_self:
        out += _self_ids(run, name)
    return out


def _self_ids(run, name: str) -> list:
    """The ``self_id`` finding, when the evidence says the corpus holds the queries (:mod:`rankmeter.check.ids`:
    in an id space queries and docs share, as MS MARCO's numbers, a query's own number among its docs is chance)."""
    from rankmeter.core.build import self_rows
    own = np.flatnonzero(self_rows(run))
    if not len(own):
        return []
    from rankmeter.check.ids import self_id_evidence
    from rankmeter.io.canonical import decode_id
    evidence = self_id_evidence(run, own)
    if evidence is None:
        return []
    queries = sorted({decode_id(q) for q in run.ids("query").take(own).to_pylist()})
    why = "" if not evidence["expected"] else (
        f", far more than chance gives with queries and docs numbered alike (~{evidence['expected']:.1f})"
        if evidence["top"] is None else f", and {evidence['top']} of them rank it first")
    return [_finding("self_id", name, f"{len(queries)} queries list their own id among their results (e.g. "
                     f"{', '.join(queries[:3])}){why}: a corpus that holds the queries; BEIR drops such docs before "
                     "scoring, and ignore_self=True drops them as well",
                     {"queries": queries, "expected": evidence["expected"], "top": evidence["top"]},
                     f"{len(queries)} queries rank their own id (--ignore-self)")]


def _has_ties(run) -> bool:
    """Whether a tenth or more of ``run``'s rows share their query's score with another row (over the first
    :data:`_SAMPLE` rows: neighbours compared when each query's scores descend, as runs are written, else
    hashes of (query, score) sorted): enough ties to be worth scoring the run again with ``ties="worst"``."""
    if run.ranked or len(run) < 2:
        return False
    n = min(len(run), _SAMPLE)
    query = run.ids("query").slice(0, n)
    starts = query.starts()   # blocks of equal consecutive query ids
    score = np.ascontiguousarray(run.numbers("score")[:n], dtype=np.float64) + 0.0   # -0.0 and 0.0 alike
    new_block = np.zeros(n, dtype=bool)
    new_block[starts] = True
    step = np.diff(score)
    if not (step[~new_block[1:]] > 0).any():
        # each block in descending score order (as runs are written): tied rows are neighbours, no sort needed
        return int(((step == 0) & ~new_block[1:]).sum()) >= _TIED_ROWS * n
    from rankmeter.engine.keys import pair_hash
    block = np.cumsum(new_block, dtype=np.int64) - 1
    keys = np.sort(pair_hash(block, score.view(np.uint64)))  # not np.unique: numpy 2.4's took 17 s on 3M keys
    return int((keys[1:] == keys[:-1]).sum()) >= _TIED_ROWS * n


def _prefix(run):
    """The run's first whole queries, up to :data:`_SAMPLE` rows: the ties check scores these twice, so its
    cost stays flat however big the run (a run is nearly always written query by query)."""
    if len(run) <= _SAMPLE:
        return run, 0
    starts = run.ids("query").slice(0, _SAMPLE + 1).starts()
    cut = int(starts[-1]) if len(starts) > 1 else _SAMPLE   # the last block may go on past the sample
    return replace(run, data=run.data.slice(0, cut), lines=None if run.lines is None else run.lines[:cut],
                   doc_hash=None if run.doc_hash is None else run.doc_hash[:cut]), max(len(starts) - 1, 1)


def _ties_decide(ev, run, results, name: str) -> list:
    """``ties_decide`` findings: measures whose value falls by half or more under the worst order of ties
    (on the run's first :data:`_SAMPLE` rows of whole queries when it is bigger)."""
    from rankmeter.core import Evaluator
    from rankmeter.core.in_memory import evaluate_in_memory

    sample, blocks = _prefix(run)
    if sample is not run:
        results = evaluate_in_memory(ev, sample, warn=False, check_common=False)
        if JUDGED in results.names and len(results.names) > 1:
            results = without(results, JUDGED)
    worst_ev = Evaluator.of(ev.qrels, [m for _, m in results._names], ev.options.replace(ties="worst"))
    worst = evaluate_in_memory(worst_ev, sample, warn=False, check_common=False)
    where = "" if sample is run else f" (on the run's first {blocks} queries)"
    out = []
    for label in results.names:
        got, low = results[label], worst[results._measure(label)]
        if got is None or low is None or not isinstance(got, float):
            continue
        if got - low >= max(_TIES * abs(got), _TIES_MIN):
            out.append(_finding("ties_decide", name, f"{label} = {got:.4f}, but {low:.4f} with tied docs in their "
                                f"worst order{where}: tied scores, not the system, make the value (a constant or "
                                "near-constant scorer?); see rankmeter ties", {"measure": label, "value": got,
                                                                               "worst": low},
                                f"ties make {label} {got:.3f} (worst order: {low:.3f})"))
    return out


def warn(findings, *, stacklevel: int = 2) -> None:
    """Each finding as a :class:`SuspiciousNumberWarning` (one line each on the command line)."""
    for f in findings:
        text = f.details.get("short", f.message)
        warnings.warn(f"{f.source + ': ' if f.source else ''}{text}", SuspiciousNumberWarning,
                      stacklevel=stacklevel + 1)
