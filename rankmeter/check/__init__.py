"""``rankmeter check``: read everything and report what would silently change a number, without refusing.

:func:`check` returns a list of :class:`Finding`, each of a level:

* ``"error"``: the inputs are wrong in a way that stops or silently corrupts evaluation (docs listed
  twice: trec_eval aborts and rankmeter refuses; ids used as a query and as a doc: columns swapped;
  scores that are ranks: an inverted run); where queries and docs are numbered with the same integers
  (MS MARCO), ids that coincide are a note unless the columns look swapped (:mod:`rankmeter.check.ids`);
* ``"warning"``: something that changes a number without being wrong (ties across a cut-off, low
  judged coverage, queries on one side only);
* ``"note"``: advice (grades and the relevance level they suggest, ties inside the cut-offs).

The CLI prints them as text or JSON. Its exit status is 0 unless there is an error (1), so advice
and warnings never break a ``&&`` chain; ``--strict`` exits 1 on warnings too; an input it cannot read
at all exits 2. Tied groups are counted by :func:`rankmeter.core.rows.tie_summary` over every query of
the run, the same figures as the report's Ties table and ``rankmeter ties`` (which counts over the
judged queries the run ranks, as they are scored). Checks:

* duplicate docs in a query (all of them, with their lines) -- trec_eval aborts;
* queries only in a run, judged queries a run lacks;
* ids used both as a query and as a doc (weighed against chance in a numeric id space both share);
* the grade distribution and the relevance level it implies (graded 0-3 judgments usually want
  ``rel=2`` for binary measures, as TREC DL does);
* judged@k coverage of each run at 10, 100 and 1000;
* tied scores: tied groups, how many straddle rank 10, 100 or 1000 (their order is decided
  by docno, not by the system), and the queries that have any;
* score columns that look like ranks (integers rising down the ranking: an inverted run);
* rank fields that disagree with the score order (trec_eval and rankmeter ignore the rank);
* run tags that change inside one file (runs pasted together);
* suspicious numbers (:mod:`rankmeter.check.lint`): nDCG@10 or RR@10 made by tied scores, values
  outside their range, queries listing their own id among their results.

``dedupe(run, keep="first"|"max")`` gives the run without duplicates (the CLI's ``--dedupe``, which
writes the file without the dropped lines: :mod:`rankmeter.check.dedupe`). Without qrels
(``qrels=None``, before judging) the checks that need judgments are skipped; ``topics=`` checks
the runs' queries against the collection's topics.

>>> findings = check({"q1": {"a": 2, "b": 0}}, [{"q1": {"a": 1.0, "b": 1.0, "x": 0.5}}])
>>> [f.code for f in findings]
['grades', 'coverage', 'ties']
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import asdict
from typing import TYPE_CHECKING

import numpy as np

from rankmeter.check.dedupe import dedupe
from rankmeter.check.lint import Finding
from rankmeter.core.naming import looks_like_one_run, name_runs
from rankmeter.engine.keys import binary_parts, id_hash, pair_hash
from rankmeter.errors import InputError, shown_id
from rankmeter.io import as_qrels, as_run
from rankmeter.io.canonical import Qrels, Run, decode_id

if TYPE_CHECKING:
    import pyarrow as pa

# pyarrow is imported by the functions that use it: ``rankmeter eval`` imports this package for its lint
# (rankmeter.check.lint), and scoring TREC text never loads Arrow (tests/test_no_pyarrow.py)

__all__ = ["Finding", "check", "dedupe", "judged_at", "exit_status"]

_CUTS = (10, 100, 1000)


def _names(ids, limit: int = 5) -> str:
    ids = list(ids)
    shown = ", ".join(shown_id(i) for i in ids[:limit])
    return shown + (f" and {len(ids) - limit} more" if len(ids) > limit else "")


def _duplicates(table: Qrels | Run) -> list[tuple[bytes, bytes, list[int]]]:
    """(query, doc, lines) of every (query, doc) listed more than once."""
    import pyarrow.compute as pc
    query = table.table.column("query").combine_chunks()
    docs = table.table.column("doc").combine_chunks()
    if len(query) == 0:
        return []
    codes = pc.dictionary_encode(query).indices.to_numpy(zero_copy_only=False).astype(np.int64)
    keys = pair_hash(codes, id_hash(*binary_parts(docs)))
    ordered = np.sort(keys)  # an unstable sort of the keys alone settles the usual case: none
    if not (ordered[1:] == ordered[:-1]).any():
        return []
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
    return sorted(out, key=lambda found: found[2])  # in the file's order, not the hashes'


def exit_status(findings: list[Finding], *, strict: bool = False) -> int:
    """The CLI's exit status for ``findings``: 1 for an error (a warning too when ``strict``), else 0."""
    failing = ("error", "warning") if strict else ("error",)
    return 1 if any(f.level in failing for f in findings) else 0


def check(qrels, runs, *, columns=None, input_format: str = "auto", topics=None) -> list[Finding]:
    """Everything :mod:`rankmeter.check` looks at, for one qrels (or None) and one or more runs.

    ``qrels=None`` checks runs before anything is judged: the checks that need judgments (grades,
    judged@k coverage, judged queries a run lacks or does not judge) are skipped, and a note says so.
    ``topics`` (a topics file, :func:`rankmeter.io.topics.read_topics`, or query ids) are the
    collection's queries: a run's queries outside them, and topics a run has no results for, are
    warnings.
    """
    import pyarrow as pa
    import pyarrow.compute as pc
    from rankmeter.io.topics import as_topics
    topic_ids = as_topics(topics)
    topic_source = os.fsdecode(topics) if isinstance(topics, (str, bytes, os.PathLike)) else "<topics>"
    if qrels is None:
        findings = [Finding("note", "no_judgments", topic_source if topic_ids is not None else "<no qrels>",
                            "no qrels: the checks that need judgments are skipped (grades, judged@10/100/1000 "
                            "coverage, judged queries a run lacks, unjudged queries it ranks)"
                            + ("; the runs' queries are checked against the topics" if topic_ids is not None
                               else ""), {"skipped": ["grades", "coverage", "only_in_run", "missing_from_run"]})]
        empty = pa.array([], pa.binary())
        for name, (run, fields) in _load_runs(runs, columns, input_format):
            findings += _check_run(None, set(), empty, name, run, fields, scorable=False)
            findings += _against_topics(run, name, topic_ids, topic_source)
        return findings
    q = as_qrels(qrels, columns=columns, input_format=input_format)
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
        findings.append(Finding("error", "duplicates", q.source,
                                f"{len(dups)} docs judged twice for a query (trec_eval aborts); first: doc "
                                f"{decode_id(dups[0][1])} of query {decode_id(dups[0][0])}, lines {dups[0][2]}",
                                {"duplicates": [(decode_id(a), decode_id(b), c) for a, b, c in dups]}))
    findings.append(_grades(q))
    judged_queries = set(pc.unique(q.table.column("query")).to_pylist())
    judged_docs = pc.unique(q.table.column("doc"))
    both_ways = judged_queries & set(judged_docs.to_pylist())
    if both_ways:
        doc_is_query = int(pc.sum(pc.is_in(q.table.column("doc"), value_set=pa.array(sorted(both_ways),
                                                                                     pa.binary()))).as_py() or 0)
        findings.append(_overlap(sorted(both_ways), q.source, q.ids("query").take(q.ids("query").starts()),
                                 q.ids("doc"), rows_with_query_doc=doc_is_query, rows=len(q)))
    if topic_ids is not None:
        outside = _natural(judged_queries - set(topic_ids))
        if outside:
            findings.append(Finding("warning", "judged_not_in_topics", q.source, f"{len(outside)} judged queries "
                                    f"are not in the topics ({topic_source}): {_names(outside)}",
                                    {"queries": [decode_id(x) for x in outside]}))
    for name, (run, fields) in _load_runs(runs, columns, input_format):
        found = _check_run(q, judged_queries, judged_docs, name, run, fields, scorable=not dups)
        findings += found + _against_topics(run, name, topic_ids, topic_source)
        if not dups and not subtopics and not any(f.code in ("duplicates", "only_in_run") and f.level == "error"
                                                  for f in found):
            findings += _suspicious(q, run, name)
    return findings


def _suspicious(q: Qrels, run: Run, name: str) -> list[Finding]:
    """The lint for suspicious numbers (:mod:`rankmeter.check.lint`) on nDCG@10 and RR@10; judged@10
    coverage is reported above already."""
    from rankmeter.check.lint import lint
    try:
        return [f for f in lint(q, run, name=name) if f.code != "unjudged_top"]
    except InputError:  # duplicates or no query in common: reported above
        return []


def _against_topics(run: Run, name: str, topic_ids, topic_source: str) -> list[Finding]:
    """A run's queries outside the topics, and topics it has no results for (none without topics)."""
    if topic_ids is None:
        return []
    run_queries = set(run.ids("query").encode()[0].to_pylist())
    outside, missing = _natural(run_queries - set(topic_ids)), _natural(set(topic_ids) - run_queries)
    out = []
    if outside:
        out.append(Finding("warning", "not_in_topics", name, f"{len(outside)} queries are not in the topics "
                           f"({topic_source}): {_names(outside)}", {"queries": [decode_id(x) for x in outside]}))
    if missing:
        out.append(Finding("warning", "topics_without_results", name, f"{len(missing)} topics have no results: "
                           f"{_names(missing)}", {"queries": [decode_id(x) for x in missing]}))
    return out


def _grades(q: Qrels) -> Finding:
    grades = q.table.column("rel").to_numpy()
    values, counts = np.unique(grades, return_counts=True)
    distribution = {int(v): int(c) for v, c in zip(values, counts)}
    from rankmeter.core.needs import top_grade
    top = top_grade(q)
    if top >= 2:
        advice = (f"graded judgments (0-{top}): binary measures (AP, RR, P, R, bpref) count every grade >= rel "
                  "as relevant, 1 by default; if the lowest positive grade means 'marginal', use rel=2 as TREC "
                  "DL does (--rel 2, or AP(rel=2)); nDCG and ERR use the grades themselves")
        level = 2
    else:
        advice = "binary judgments: rel=1 (the default) is the only level"
        level = 1
    if (values < 0).any():
        advice += "; negative grades count as judged non-relevant (unjudged for Unjudged@k and -J)"
    return Finding("note", "grades", q.source, f"grades {distribution}; {advice}",
                   {"distribution": distribution, "suggested_rel": level})


def _load_runs(runs, columns, input_format="auto") -> list[tuple[str, tuple[Run, dict]]]:
    """(name, (run, rank/tag fields)) of each run, each file read once."""
    from rankmeter.check.fields import load_run_fields
    if isinstance(runs, Mapping) and not looks_like_one_run(runs):
        loaded = {name: load_run_fields(r, columns=columns, input_format=input_format) for name, r in runs.items()}
        named = name_runs({name: run for name, (run, _) in loaded.items()})
        return [(name, (run, loaded[name][1])) for name, run in named]
    if isinstance(runs, (str, bytes, os.PathLike, Run, Mapping)) or not isinstance(runs, (list, tuple)):
        runs = [runs]
    loaded = [load_run_fields(r, columns=columns, input_format=input_format) for r in runs]
    named = _named(runs, [run for run, _ in loaded])
    return [(name, (run, fields)) for (name, run), (_, fields) in zip(named, loaded)]


def _natural(ids) -> list[bytes]:
    from rankmeter.core.order import natural_order
    ids = list(ids)
    return [ids[i] for i in natural_order(ids)]


def _named(given, loaded) -> list[tuple[str, Run]]:
    """The runs named by the one naming rule, from what was given (paths name by file)."""
    from rankmeter.core.naming import unique_names
    return list(zip(unique_names([r.name for r in loaded], [r.source for r in loaded], given), loaded))


def _check_run(q: Qrels | None, judged_queries: set, judged_docs: pa.Array, name: str, run: Run,
               fields: dict, scorable: bool) -> list[Finding]:
    import pyarrow.compute as pc
    from rankmeter.check.fields import field_findings
    run_queries = pc.unique(run.table.column("query"))
    query_set = set(run_queries.to_pylist())
    dups, judged = [], None
    if q is not None and scorable and query_set & judged_queries:
        try:  # the engine finds duplicates on its way: look for all of them only when it found one
            judged = judged_at(q, run)
        except InputError:
            dups = _duplicates(run)
            if not dups:
                raise
    else:
        dups = _duplicates(run)
    # (no second thread for the coverage: it saves ~0.3 s on an idle machine and costs seconds on a
    # loaded one, where the numpy work of both threads fights for the two cores)
    later = _query_is_doc(run, run_queries, judged_queries, judged_docs, name) + field_findings(run, fields, name, cutoffs=_CUTS)
    out: list[Finding] = []
    if dups:
        out.append(Finding("error", "duplicates", name,
                           f"{len(dups)} docs listed twice for a query (trec_eval aborts; rankmeter refuses; "
                           f"--dedupe first|max fixes it); first: doc {decode_id(dups[0][1])} of query "
                           f"{decode_id(dups[0][0])}, lines {dups[0][2]}",
                           {"duplicates": [(decode_id(a), decode_id(b), c) for a, b, c in dups]}))
    only_run, missing = ([], []) if q is None else \
        (_natural(query_set - judged_queries), _natural(judged_queries - query_set))
    if only_run:
        out.append(Finding("warning", "only_in_run", name, f"{len(only_run)} queries are not judged and never "
                           f"scored: {_names(only_run)}", {"queries": [decode_id(x) for x in only_run]}))
    if missing:
        out.append(Finding("warning", "missing_from_run", name, f"{len(missing)} judged queries have no results: "
                           f"{_names(missing)} (left out of means by default; --queries qrels scores them 0)",
                           {"queries": [decode_id(x) for x in missing]}))
    if judged is not None:
        level = "warning" if judged[10] < 0.8 else "note"
        later.insert(int(bool(later) and later[0].code in ("query_is_doc", "shared_ids")), Finding(
            level, "coverage", name, "judged@10/100/1000 = " + " / ".join(f"{judged[k]:.1%}" for k in _CUTS)
            + (" (share of the top min(k, retrieved) that is judged); below 80% at 10: unjudged docs count as "
               "non-relevant" if level == "warning" else ""), {f"judged@{k}": judged[k] for k in _CUTS}))
    return out + later


def _query_is_doc(run: Run, run_queries: pa.Array, judged_queries: set, judged_docs: pa.Array,
                  name: str) -> list[Finding]:
    """Ids the run uses as a query that are docs (in it or the qrels), or as a doc that are judged queries,
    weighed by :func:`_overlap`."""
    import pyarrow as pa
    import pyarrow.compute as pc
    docs = run.table.column("doc")
    # Probe the (many) docs against the (few) query ids; never hash the docs into a set.
    queries = pc.unique(pa.concat_arrays([run_queries, pa.array(sorted(judged_queries), pa.binary())]))
    doc_is_query = pc.is_in(docs, value_set=queries)
    docs_as_query = pc.unique(pc.filter(docs, doc_is_query))
    queries_as_doc = pc.filter(run_queries, pc.is_in(run_queries, value_set=judged_docs))
    ids = sorted(set(docs_as_query.to_pylist()) | set(queries_as_doc.to_pylist()))
    if not ids:
        return []
    judged_doc_not_query = len(set(queries_as_doc.to_pylist()) - judged_queries)
    from rankmeter.engine.ids import Ids
    return [_overlap(ids, name, Ids.from_arrow(queries), run.ids("doc"),
                     rows_with_query_doc=int(pc.sum(doc_is_query).as_py() or 0), rows=len(run),
                     queries_judged_as_docs=judged_doc_not_query, queries=len(run_queries))]


def _overlap(ids: list, source: str, query_ids, doc_ids, *, rows_with_query_doc: int, rows: int,
             queries_judged_as_docs: int = 0, queries: int = 0) -> Finding:
    """The finding for ``ids`` used as a query and as a doc: an error when columns look swapped, or when the
    ids are not numbers (``q1``, ``d1``: two kinds of id that should never meet); a note when queries and
    docs are numbered with the same integers (MS MARCO: some coincide by chance; :mod:`rankmeter.check.ids`)."""
    from rankmeter.check.ids import shared_space, swapped
    shown = {"ids": [decode_id(x) for x in ids]}
    if shared_space(query_ids, doc_ids) is None or swapped(rows_with_query_doc, rows, queries_judged_as_docs,
                                                              queries):
        return Finding("error", "query_is_doc", source, f"ids used as a query and as a doc: {_names(ids)}; check "
                       "the column order (query first, then doc)",
                       {**shown, "rows_with_query_doc": rows_with_query_doc, "rows": rows})
    return Finding("note", "shared_ids", source, f"{len(ids)} ids are both a query and a doc ({_names(ids)}): "
                   "queries and docs are numbered with the same integers (as MS MARCO's are), so some coincide; "
                   f"not swapped columns ({rows_with_query_doc} of {rows} rows have a query's number as their doc)",
                   {**shown, "rows_with_query_doc": rows_with_query_doc, "rows": rows})


def judged_at(q, run, cutoffs=_CUTS) -> dict[int, float]:
    """Mean over the judged queries a run ranks of the share of the top min(k, retrieved) docs that is judged.

    Judged means listed in the qrels with any grade, as ``Judged@k``.

    >>> judged_at({"q": {"a": 1, "b": 0}}, {"q": {"a": 3.0, "x": 2.0, "b": 1.0}}, (1, 2, 10))
    {1: 1.0, 2: 0.5, 10: 0.6666666666666666}
    """
    from rankmeter.core import Evaluator
    from rankmeter.core.in_memory import evaluate_in_memory
    labels = [f"Judged@{k}" for k in cutoffs]
    # the in-memory executor: query-aligned parts on both cores, as evaluation runs; no query in common
    # is no coverage (0), the queries finding says why
    results = evaluate_in_memory(Evaluator(q, labels), as_run(run), warn=False, check_common=False)
    return {k: float(results.mean[label]) for k, label in zip(cutoffs, labels)}


def findings_json(findings: list[Finding]) -> list[dict]:
    return [asdict(f) for f in findings]

