"""A drop-in for pytrec_eval: change one import, keep the code.

>>> from rankmeter.compat import pytrec_eval
>>> evaluator = pytrec_eval.RelevanceEvaluator({"q1": {"d1": 1, "d2": 0}}, {"map", "ndcg_cut_3", "P.1"})
>>> evaluator.evaluate({"q1": {"d1": 0.5, "d2": 0.9}})
{'q1': {'map': 0.5, 'P_1': 0.0, 'ndcg_cut_3': 0.6309297535714575}}

The module offers what pytrec_eval (pytrec-eval-terrier 0.5.11) offers, with its behaviour:
``RelevanceEvaluator(query_relevance, measures, relevance_level=1, judged_docs_only_flag=False)`` and its
``evaluate(scores)``, ``compute_aggregated_measure``, ``parse_qrel``, ``parse_run``, ``supported_measures``
and ``supported_nicknames``. Measure names are read as pytrec_eval reads them
(:mod:`rankmeter.compat.pytrec_eval.names`: ``P_10``, ``ndcg_cut.20,4``, ``iprec_at_recall_0.10``, the
nicknames ``official``, ``set``, ``all_trec``) and values are computed as its bundled trec_eval 9.0.8
computes them (:mod:`rankmeter.compat.pytrec_eval.values`): scores are read as C floats (two scores equal
in single precision tie), ties go by docno descending, ``iprec_at_recall`` and ``11pt_avg`` round recall
levels the 9.0.8 way, ``gm_map`` is log(AP) per query.

``evaluate`` scores the queries that are keys of ``scores`` and judged in ``query_relevance`` (a query
whose judgments dict is empty is not judged), an empty ranking ``{"q1": {}}`` included; the result keeps
the order of ``scores``. Differences, all deliberate (docs/migrate-pytrec-eval.md): where pytrec_eval
aborts the Python interpreter on a C assertion (a cutoff of 0, ``ndcg_10``, ``P_5,5.0``) the drop-in
raises ValueError; a NaN score is refused (pytrec_eval's sort is undefined on it); keyword-only
``trec_eval="10.0"`` gives trec_eval 10.0's ``iprec_at_recall`` and ``11pt_avg`` (0 instead of NaN on an
empty ranking).
"""
from __future__ import annotations

import collections
from collections.abc import Iterable, Mapping

import numpy as np

from rankmeter.compat.pytrec_eval.names import Item, combine, plan, supported_measures, supported_nicknames
from rankmeter.compat.pytrec_eval.values import VERSIONS, canonical_measures, values_of

__all__ = ["parse_run", "parse_qrel", "supported_measures", "supported_nicknames", "RelevanceEvaluator",
           "compute_aggregated_measure"]


def parse_run(f_run: Iterable[str]) -> dict[str, dict[str, float]]:
    """TREC run lines (``query Q0 doc rank score tag``) -> ``{query: {doc: score}}``.

    As pytrec_eval's: exactly six fields a line (else ValueError), a doc twice in one query fails an
    assertion, and the answer is a ``collections.defaultdict(dict)``.
    """
    run: dict[str, dict[str, float]] = collections.defaultdict(dict)
    for line in f_run:
        query, _, doc, _, score, _ = line.strip().split()
        assert doc not in run[query]
        run[query][doc] = float(score)
    return run


def parse_qrel(f_qrel: Iterable[str]) -> dict[str, dict[str, int]]:
    """TREC qrels lines (``query 0 doc grade``) -> ``{query: {doc: grade}}`` (as pytrec_eval's)."""
    qrel: dict[str, dict[str, int]] = collections.defaultdict(dict)
    for line in f_qrel:
        query, _, doc, grade = line.strip().split()
        assert doc not in qrel[query]
        qrel[query][doc] = int(grade)
    return qrel


def compute_aggregated_measure(measure: str, values: list[float]) -> float:
    """The value over all queries: a sum for ``num_*``, exp(mean) for ``gm_*`` (whose per-query values are
    logs), else the mean; as pytrec_eval computes it (numpy's sums)."""
    if measure.startswith("num_"):
        return float(np.sum(values))
    if measure.startswith("gm_"):
        return float(np.exp(np.sum(values) / len(values)))
    return float(np.mean(values))


def _check_dict(data, what: str) -> None:
    if not isinstance(data, dict):
        raise TypeError(f"Argument {what} should be of type dictionary.")


def _c_level(level) -> int:
    """relevance_level as pytrec_eval's C code reads it: a C int (TypeError outside) stored into the low half
    of a long that held 1, so 0 is refused and a negative level -n becomes 2**32 - n (on 64-bit Linux and
    macOS: no grade reaches it)."""
    if not isinstance(level, int) or not -2 ** 31 <= level < 2 ** 31:
        raise TypeError("Expected object_relevance_per_qid dictionary and measures set.")
    level = int(level) % 2 ** 32
    if level < 1:
        raise TypeError("Argument relevance_level should be positive.")
    return level


class RelevanceEvaluator:
    """pytrec_eval's evaluator: judgments and measures fixed, any number of runs evaluated.

    Parameters
    ----------
    query_relevance : dict
        ``{query: {doc: grade}}``, ids ``str``, grades ``int``.
    measures : iterable of str
        pytrec_eval's names and nicknames (see the module docstring).
    relevance_level : int, default 1
        The lowest relevant grade (trec_eval ``-l``; not for ``ndcg``, ``G`` and their kin).
    judged_docs_only_flag : bool, default False
        Drop unjudged docs from each ranking first (trec_eval ``-J``).
    trec_eval : {"9.0.8", "10.0"}, default "9.0.8"
        Keyword only. ``"10.0"``: trec_eval 10.0's ``iprec_at_recall`` and ``11pt_avg`` (recall levels
        rounded with lround, 0 on an empty ranking) instead of pytrec_eval's.
    """

    def __init__(self, query_relevance: Mapping, measures: Iterable[str], relevance_level: int = 1,
                 judged_docs_only_flag: bool = False, *, trec_eval: str = "9.0.8"):
        if trec_eval not in VERSIONS:
            raise ValueError(f"trec_eval={trec_eval!r}: expected one of {', '.join(VERSIONS)}")
        items = plan(combine(measures))
        from rankmeter.compat.pytrec_eval.dicts import judged_queries, qrels_of
        # pytrec_eval's Python layer: the outer mapping through its items() and each judgments dict's len()
        # (its methods); the C layer then reads each judgments dict's storage (the compiled walker does too)
        query_relevance = {q: judged for q, judged in query_relevance.items() if len(judged) > 0}
        relevance_level = _c_level(relevance_level)
        self._queries = judged_queries(query_relevance)
        self._items: list[Item] = items
        self._labels = [label for item in items for label in item.labels]
        self._level = int(relevance_level)
        self._version = trec_eval
        self._measures = canonical_measures(items, self._level, trec_eval)
        self._evaluator = None
        qrels = qrels_of(query_relevance) if self._queries else None  # its grades checked, measures or not
        if qrels is not None and items:
            from rankmeter.core.evaluator import Evaluator
            # every measure carries its relevance level already; the rest default to trec_eval's rel=1
            self._evaluator = Evaluator(qrels, self._measures or [], judged_only=bool(judged_docs_only_flag),
                                        queries="qrels")

    def evaluate(self, scores: Mapping) -> dict[str, dict[str, float]]:
        """``{query: {doc: score}}`` -> ``{query: {label: value}}``: the queries of ``scores`` that are judged."""
        from rankmeter.compat.pytrec_eval.dicts import as_stored, check_run
        if not scores:   # pytrec_eval's Python layer: the run's own truth value
            return {}
        _check_dict(scores, "object scores")
        scores = as_stored(scores)   # its C layer: what the outer and each inner dict store (PyDict_Next)
        wanted = [q for q in scores if q in self._queries]
        check_run(scores, self._queries if self._items else frozenset())
        if not wanted or not self._items:
            return {q: {} for q in wanted}
        names, table = self._score(scores, [q for q in wanted if scores[q]], [q for q in wanted if not scores[q]])
        row = {name: i for i, name in enumerate(names)}
        labels = self._labels
        rows = table.tolist()
        return {q: dict(zip(labels, rows[row[q]])) for q in wanted}

    def _score(self, scores: dict, ranked: list[str], empty: list[str]) -> tuple[list[str], np.ndarray]:
        """(query names, their values: one row per query, one column per label) of the judged queries with
        results (``ranked``) and with an empty ranking (``empty``): the core's per-query values
        (:meth:`~rankmeter.core.evaluator.Evaluator.per_query`, a part of the run at a time; the judged
        queries no part ranks come last, scored as empty rankings, as queries="qrels" scores them)."""
        names: list[str] = []
        blocks: list[np.ndarray] = []
        wanted = set(empty)
        for results in self._evaluator.per_query(_parts(scores, ranked)):
            queries = [q.decode("utf-8", "surrogateescape") for q in results.query_ids(order="bytes")]
            computed = {m: results.values(m, order="bytes") for m in self._measures}
            if len(names) >= len(ranked):  # past the parts: the judged queries the run lacks, as empty rankings
                rows = np.array([i for i, q in enumerate(queries) if q in wanted], np.int64)
                queries = [queries[i] for i in rows]
                computed = {m: v[rows] for m, v in computed.items()}
            names.extend(queries)
            blocks.append(self._table(computed, len(queries)))
            if len(names) == len(ranked) and not wanted:
                break  # no empty ranking asked for: the judged queries the run lacks are not scored
        return names, np.concatenate(blocks) if len(blocks) > 1 else blocks[0]

    def _table(self, computed, nq: int) -> np.ndarray:
        columns = values_of(self._items, computed, nq, self._level, self._version)
        return np.column_stack(columns) if columns else np.zeros((nq, 0))


#: rows of a run read and scored at once: the columns (~30 bytes a row) and the engine's working arrays
#: (~115 bytes a row) of this many rows at a time, however big the run (pytrec_eval holds ~50 bytes a row
#: of the whole run)
PART_ROWS = 200_000


def _parts(scores: dict, queries: list[str]):
    """The run of ``queries`` (non-empty rankings of ``scores``) in parts of about PART_ROWS results, each
    read from the dicts only when the core asks for it."""
    from rankmeter.compat.pytrec_eval.dicts import run_of
    chunk: list[str] = []
    rows = 0
    for q in queries:
        chunk.append(q)
        rows += len(scores[q])
        if rows >= PART_ROWS:
            yield run_of({q: scores[q] for q in chunk})
            chunk, rows = [], 0
    if chunk:
        yield run_of({q: scores[q] for q in chunk})
