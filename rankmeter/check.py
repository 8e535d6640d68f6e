"""``rankmeter check``: read everything and report what would silently change a number, without refusing.

:func:`check` returns a list of :class:`Finding` (level ``"warning"`` or
``"note"``); the CLI prints them as text or JSON and exits 0 when there is no
warning, 1 otherwise (2 for an input it cannot read at all). Checks:

* duplicate docs in a query (all of them, with their lines) -- trec_eval aborts;
* queries only in a run, judged queries a run lacks;
* ids used both as a query and as a doc;
* the grade distribution and the relevance level it implies (graded 0-3 judgments usually want
  ``rel=2`` for binary measures, as TREC DL does);
* judged@k coverage of each run at 10, 100 and 1000;
* tied scores: tied groups, and how many straddle rank 10, 100 or 1000 (their order is decided
  by docno, not by the system);
* score columns that look like ranks (integers rising down the ranking: an inverted run).

``dedupe(run, keep="first"|"max")`` gives the run without duplicates (the CLI's ``--dedupe``).

>>> findings = check({"q1": {"a": 2, "b": 0}}, [{"q1": {"a": 1.0, "b": 1.0, "x": 0.5}}])
>>> [f.code for f in findings]
['grades', 'coverage', 'ties']
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .engine.build import query_starts, ranked_rows
from .engine.keys import binary_parts, id_hash, pair_hash
from .io import as_qrels, as_run
from .io.canonical import Qrels, Run, decode_id
from .io.naming import name_runs

__all__ = ["Finding", "check", "dedupe"]

_CUTS = (10, 100, 1000)


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


def _names(ids, limit: int = 5) -> str:
    ids = list(ids)
    shown = ", ".join(decode_id(i) for i in ids[:limit])
    return shown + (f" and {len(ids) - limit} more" if len(ids) > limit else "")


def _duplicates(table: Qrels | Run) -> list[tuple[bytes, bytes, list[int]]]:
    """(query, doc, lines) of every (query, doc) listed more than once."""
    query = table.table.column("query").combine_chunks()
    docs = table.table.column("doc").combine_chunks()
    if len(query) == 0:
        return []
    codes = pc.dictionary_encode(query).indices.to_numpy(zero_copy_only=False).astype(np.int64)
    keys = pair_hash(codes, id_hash(*binary_parts(docs)))
    order = np.argsort(keys, kind="stable")
    same = keys[order][1:] == keys[order][:-1]
    if not same.any():
        return []
    starts = np.flatnonzero(np.concatenate(([True], ~same)))
    sizes = np.diff(np.append(starts, len(order)))
    out = []
    for start, size in zip(starts[sizes > 1], sizes[sizes > 1]):  # only the (few) duplicated keys
        rows = sorted(order[start:start + size].tolist())
        groups: dict[tuple, list[int]] = {}
        for r in rows:  # the hash may join different ids: group by the exact ids
            groups.setdefault((query[r].as_py(), docs[r].as_py()), []).append(table.line_of(r))
        out += [(q, d, lines) for (q, d), lines in groups.items() if len(lines) > 1]
    return out


def _tie_groups(run: Run) -> tuple[int, dict[int, int]]:
    """Tied groups of scores within a query, and how many straddle each cut-off rank."""
    if run.ranked or len(run) == 0:
        return 0, {k: 0 for k in _CUTS}
    order = ranked_rows(run)
    query = run.table.column("query").take(pa.array(order))
    score = run.table.column("score").to_numpy()[order]
    starts = query_starts(query)
    counts = np.diff(np.append(starts, len(order)))
    rank = np.arange(len(order)) - np.repeat(starts, counts) + 1
    same_query = np.ones(len(order), dtype=bool)
    same_query[starts] = False
    tie = np.zeros(len(order), dtype=bool)
    tie[1:] = same_query[1:] & (score[1:] == score[:-1])
    group_start = np.flatnonzero(~tie)
    group_size = np.diff(np.append(group_start, len(order)))
    tied = group_size > 1
    first = rank[group_start][tied]
    last = first + group_size[tied] - 1
    return int(tied.sum()), {k: int(((first <= k) & (last > k)).sum()) for k in _CUTS}


def check(qrels, runs, *, columns=None) -> list[Finding]:
    """Everything :mod:`rankmeter.check` looks at, for one qrels and one or more runs."""
    q = as_qrels(qrels, columns=columns)
    findings: list[Finding] = []
    subtopics = "subtopic" in q.table.column_names
    dups = [] if subtopics else _duplicates(q)
    if subtopics:
        pairs = pa.table({"q": q.table.column("query"), "s": q.table.column("subtopic")}).group_by(["q", "s"])
        findings.append(Finding("note", "subtopics", q.source,
                                f"diversity qrels: {pairs.aggregate([]).num_rows} (query, subtopic) pairs; the "
                                "diversity measures (alpha_nDCG, ERR_IA ...) read each subtopic's judgment, the "
                                "others each doc's highest grade (trec_eval would see docs judged twice)", {}))
    if dups:
        findings.append(Finding("warning", "duplicates", q.source,
                                f"{len(dups)} docs judged twice for a query (trec_eval aborts); first: doc "
                                f"{decode_id(dups[0][1])} of query {decode_id(dups[0][0])}, lines {dups[0][2]}",
                                {"duplicates": [(decode_id(a), decode_id(b), c) for a, b, c in dups]}))
    grades = q.table.column("rel").to_numpy()
    values, counts = np.unique(grades, return_counts=True)
    distribution = {int(v): int(c) for v, c in zip(values, counts)}
    advice = ("graded judgments: binary measures count every grade >= rel as relevant; TREC DL uses rel=2 "
              "for AP, RR and R (--rel 2, or AP(rel=2))" if grades.max(initial=0) >= 2 else "binary judgments")
    findings.append(Finding("note", "grades", q.source, f"grades {distribution}; {advice}",
                            {"distribution": distribution}))
    judged_queries = set(pc.unique(q.table.column("query")).to_pylist())
    judged_docs = set(pc.unique(q.table.column("doc")).to_pylist())
    both_ways = judged_queries & judged_docs
    if both_ways:
        findings.append(Finding("warning", "query_is_doc", q.source, f"ids used as a query and as a doc: "
                                f"{_names(sorted(both_ways))}; check the column order"))
    for name, run in name_runs(runs, columns=columns):
        findings += _check_run(q, judged_queries, name, run)
    return findings


def _check_run(q: Qrels, judged_queries: set, name: str, run: Run) -> list[Finding]:
    out: list[Finding] = []
    dups = _duplicates(run)
    if dups:
        out.append(Finding("warning", "duplicates", name,
                           f"{len(dups)} docs listed twice for a query (trec_eval aborts; rankmeter refuses; "
                           f"--dedupe first|max fixes it); first: doc {decode_id(dups[0][1])} of query "
                           f"{decode_id(dups[0][0])}, lines {dups[0][2]}",
                           {"duplicates": [(decode_id(a), decode_id(b), c) for a, b, c in dups]}))
    run_queries = set(pc.unique(run.table.column("query")).to_pylist())
    only_run, missing = sorted(run_queries - judged_queries), sorted(judged_queries - run_queries)
    if only_run:
        out.append(Finding("warning", "only_in_run", name, f"{len(only_run)} queries are not judged and never "
                           f"scored: {_names(only_run)}", {"queries": [decode_id(x) for x in only_run]}))
    if missing:
        out.append(Finding("warning", "missing_from_run", name, f"{len(missing)} judged queries have no results: "
                           f"{_names(missing)} (left out of means by default; --queries qrels scores them 0)",
                           {"queries": [decode_id(x) for x in missing]}))
    if not dups and run_queries & judged_queries:
        judged = _judged_at(q, run)
        level = "warning" if judged[10] < 0.8 else "note"
        out.append(Finding(level, "coverage", name, "judged@10/100/1000 = " + " / ".join(
            f"{judged[k]:.1%}" for k in _CUTS) + (" (share of the top min(k, retrieved) that is judged); below "
                                                  "80% at 10: unjudged docs count as non-relevant"
                                                  if level == "warning" else ""),
                           {f"judged@{k}": judged[k] for k in _CUTS}))
    groups, straddle = _tie_groups(run)
    if groups:
        out.append(Finding("note" if not any(straddle.values()) else "warning", "ties", name,
                           f"{groups} groups of tied scores; straddling rank 10/100/1000: "
                           f"{straddle[10]}/{straddle[100]}/{straddle[1000]} (inside them docno decides the order)",
                           {"groups": groups, "straddle": straddle}))
    if not run.ranked and len(run) > 1 and _scores_are_ranks(run):
        out.append(Finding("warning", "scores_look_like_ranks", name,
                           "each query's scores are exactly 1, 2, 3 ...: if they are ranks, the ranking is "
                           "inverted (rank 1 scores lowest); negate them, or read the file with "
                           "columns={'rank': ...}"))
    return out


def _judged_at(q: Qrels, run: Run) -> dict[int, float]:
    """Mean over judged queries of the share of the top min(k, retrieved) docs that is judged."""
    from .engine import Evaluator
    batch = Evaluator(q, ["NumRet"]).batch(run)
    out = {}
    for k in _CUTS:
        top = np.minimum(batch.num_ret, k)
        judged = batch.count_upto(batch.rel >= 0, k)
        share = np.divide(judged, top, out=np.zeros(batch.nq), where=top > 0)
        out[k] = float(share.mean()) if batch.nq else 0.0
    return out


def _scores_are_ranks(run: Run) -> bool:
    """Whether every query's scores are a permutation of 1..n (a rank column read as scores)."""
    score = run.table.column("score").to_numpy()
    if not np.all(score == np.round(score)):
        return False
    codes = pc.dictionary_encode(run.table.column("query").combine_chunks()).indices.to_numpy(
        zero_copy_only=False).astype(np.int64)
    order = np.lexsort((score, codes))
    counts = np.bincount(codes)
    position = np.arange(len(order)) - np.repeat(np.cumsum(counts) - counts, counts)
    return bool(np.array_equal(score[order], position + 1.0))


def dedupe(run, *, keep: str = "first") -> Run:
    """The run with each (query, doc) once: the first line, or the line with the highest score."""
    if keep not in ("first", "max"):
        from .errors import ParameterError
        raise ParameterError(f"keep={keep!r}: expected 'first' or 'max'")
    run = as_run(run)
    n = len(run)
    if n == 0:
        return run
    query = run.table.column("query").combine_chunks()
    codes = pc.dictionary_encode(query).indices.to_numpy(zero_copy_only=False).astype(np.int64)
    keys = pair_hash(codes, id_hash(*binary_parts(run.table.column("doc").combine_chunks())))
    rows = np.arange(n)
    if keep == "max":
        score = run.table.column("score").to_numpy()
        order = np.lexsort((rows, -score, keys))
    else:
        order = np.lexsort((rows, keys))
    first = np.ones(n, dtype=bool)
    first[1:] = keys[order][1:] != keys[order][:-1]
    kept = np.sort(order[first])
    lines = None if run.lines is None else run.lines[kept]
    return Run(run.table.take(pa.array(kept)), run.source, lines, origin=run.origin, tag=run.tag, ranked=run.ranked)


def findings_json(findings: list[Finding]) -> list[dict]:
    return [asdict(f) for f in findings]

