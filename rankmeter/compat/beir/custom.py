"""BEIR's ``EvaluateRetrieval.evaluate_custom`` measures, scored by rankmeter's core with BEIR's conventions.

``evaluate_custom(qrels, results, k_values, metric)`` as BEIR (2.x) defines it
(:mod:`rankmeter.compat.beir.model`): each ranking sorted by score with a stable sort (tied docs as the
dict gives them), relevant = grade > 0, the sum over the run's queries divided by ``len(qrels)``, rounded to
5 decimals:

==================  =============================================================================
metric              per query
==================  =============================================================================
``mrr``             ``RR@k``: 1 / rank of the first relevant doc in the top k (``MRR@k``)
``top_k_accuracy``  ``Success@k``: 1 when a relevant doc is in the top k (``Accuracy@k``)
``r_cap``           relevant docs in the top k / min(relevant docs, k) (``R_cap@k``)
``hole``            docs in the top k that no query's judgments list / k (``Hole@k``)
==================  =============================================================================

Where BEIR fails (a run query without judgments for ``mrr``, ``r_cap`` and ``top_k_accuracy``: a
``KeyError``; ``r_cap`` for a query with no relevant doc: a division by zero) this raises an
:class:`~rankmeter.errors.InputError` naming the query.

>>> qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 2}}
>>> results = {"q1": {"x": 0.9, "a": 0.9, "b": 0.1}, "q2": {"c": 0.3, "y": 0.2}}
>>> evaluate_custom(qrels, results, [1, 3], "mrr")
{'MRR@1': 0.5, 'MRR@3': 0.75}
>>> evaluate_custom(qrels, results, [1, 3], "hole")
{'Hole@1': 0.5, 'Hole@3': 0.33333}
"""
from __future__ import annotations

from rankmeter.compat.beir.model import CUSTOM_NAMES
from rankmeter.errors import InputError, ParameterError

__all__ = ["evaluate_custom"]

_LABEL = {"mrr": "MRR", "r_cap": "R_cap", "hole": "Hole", "top_k_accuracy": "Accuracy"}


def _values(qrels: dict, results: dict, names: list[str]) -> dict:
    """``{query: {name: value}}`` of the run's non-empty rankings, ties in the dict's order (a stable sort)."""
    from rankmeter.core.evaluator import Evaluator
    from rankmeter.io import as_qrels, as_run
    # BEIR's sorted(..., reverse=True) by score is stable: the core then ranks in that order (ties="input")
    ranked = {q: dict(sorted(docs.items(), key=lambda kv: kv[1], reverse=True)) for q, docs in results.items() if docs}
    judged = {q: docs for q, docs in qrels.items() if docs}
    if not ranked or not judged:
        return {}
    res = Evaluator(as_qrels(judged), names, ties="input", rel=1, ignore_self=False).evaluate(as_run(ranked))
    columns = {name: res.values(name) for name in names}
    return {q: {name: float(columns[name][i]) for name in names} for i, q in enumerate(res.queries)}


def evaluate_custom(qrels: dict, results: dict, k_values, metric: str) -> dict[str, float]:
    """BEIR's ``EvaluateRetrieval.evaluate_custom``: ``{"MRR@k": mean, ...}`` for ``metric`` (``mrr``, ``r_cap``,
    ``hole``, ``top_k_accuracy`` or one of BEIR's other spellings of them)."""
    kind = CUSTOM_NAMES.get(str(metric).lower())
    if kind is None:
        raise ParameterError(f"metric={metric!r}: BEIR's evaluate_custom knows {', '.join(sorted(CUSTOM_NAMES))}")
    ks = [int(k) for k in k_values]
    if not ks or min(ks) < 1:
        raise ParameterError(f"k_values={k_values!r}: give positive cutoffs, e.g. [1, 10, 100]")
    if not qrels:
        raise InputError("the qrels are empty: BEIR divides each sum by the number of judged queries",
                         source="<qrels>")
    if kind != "hole":
        unjudged = [q for q in results if q not in qrels]
        if unjudged:
            raise InputError(f"query {unjudged[0]!r} has results but no judgments; BEIR's {kind} looks every run "
                             "query up in the qrels (a KeyError there): drop it or judge it", source="<qrels>")
    totals = {k: 0.0 for k in ks}
    if kind == "hole":
        _hole(qrels, results, ks, totals)
    else:
        names = {"mrr": "RR@{}", "top_k_accuracy": "Success@{}", "r_cap": "Hits@{}"}[kind]
        wanted = [names.format(k) for k in ks] + (["NumRel"] if kind == "r_cap" else [])
        values = _values(qrels, results, wanted)
        for q in results:
            got = values.get(q, {})
            for k in ks:
                value = got.get(names.format(k), 0.0)
                if kind == "r_cap":
                    relevant = sum(1 for g in qrels[q].values() if g > 0)
                    if relevant == 0:
                        raise InputError(f"query {q!r} has no relevant doc: R_cap@{k} divides by min(relevant, k) "
                                         "= 0 (BEIR raises ZeroDivisionError)", source="<qrels>")
                    value = value / min(relevant, k)
                totals[k] += value
    return {f"{_LABEL[kind]}@{k}": round(totals[k] / len(qrels), 5) for k in ks}


def _hole(qrels: dict, results: dict, ks: list[int], totals: dict) -> None:
    """Hole@k: the top k's docs that no query's judgments list, / k, summed over the run's queries."""
    annotated = {d for docs in qrels.values() for d in docs}
    # each query judged on the annotated docs it retrieved (grade 0): Unjudged@k then counts the others
    marked = {q: {d: 0 for d in docs if d in annotated} for q, docs in results.items()}
    marked = {q: docs for q, docs in marked.items() if docs}
    values = _values(marked, {q: results[q] for q in marked}, [f"Unjudged@{k}" for k in ks])
    for q, docs in results.items():
        for k in ks:
            if q in marked:
                totals[k] += values[q][f"Unjudged@{k}"]
            else:   # nothing it retrieved is annotated: every doc of its top k is a hole
                totals[k] += min(len(docs), k) / k
