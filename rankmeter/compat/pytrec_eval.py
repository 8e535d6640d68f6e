"""A drop-in for pytrec_eval: change one import, keep the code.

>>> from rankmeter.compat.pytrec_eval import RelevanceEvaluator
>>> evaluator = RelevanceEvaluator({"q1": {"d1": 1, "d2": 0}}, {"map", "ndcg_cut.3", "P.1"})
>>> result = evaluator.evaluate({"q1": {"d1": 0.5, "d2": 0.9}})
>>> sorted(result["q1"].items())
[('P_1', 0.0), ('map', 0.5), ('ndcg_cut_3', 0.6309297535714575)]

``RelevanceEvaluator(query_relevance, measures, relevance_level=1, judged_docs_only_flag=False)``
takes pytrec_eval's measure names (``{"map", "ndcg_cut", "P.5,10"}``) and ``evaluate(run)`` returns
its nested dict ``{query: {name: value}}`` over the queries in both the qrels and the run, names as
trec_eval prints them (``P_5``, ``ndcg_cut_10``), every value a float. The judgments are prepared
once, so evaluating many runs costs only the runs. Known differences: pytrec_eval reads scores as
C ``double`` through its own parser and follows trec_eval 9.x's rounding in a few measures; see
``tests/compat/test_pytrec_eval_dropin.py`` for what is compared.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping

from rankmeter.core.evaluator import Evaluator
from rankmeter.errors import ParameterError
from rankmeter.compat.trec_eval import NICKNAMES, TREC_MEASURES, expand, uses_level

__all__ = ["RelevanceEvaluator", "supported_measures", "supported_nicknames"]

#: trec_eval measure names pytrec_eval accepts (``pytrec_eval.supported_measures``)
supported_measures = frozenset(name for name in TREC_MEASURES if name != "runid")
supported_nicknames = frozenset(NICKNAMES)


class RelevanceEvaluator:
    """pytrec_eval's evaluator: judgments and measures fixed, any number of runs evaluated."""

    def __init__(self, query_relevance: Mapping, measures: Iterable[str], relevance_level: int = 1,
                 judged_docs_only_flag: bool = False):
        if isinstance(measures, str):
            measures = [measures]
        specs = sorted(measures)
        labelled = []
        for label, _, m in expand(specs):
            if m is None:
                continue
            if m.get("rel") is None:
                m = m.with_params(rel=relevance_level if uses_level(m) else 1)
            labelled.append((label, m))
        if not labelled:
            raise ParameterError(f"measures={set(specs)!r}: no trec_eval measure among them; "
                                 f"pytrec_eval names such as 'map', 'ndcg_cut', 'P.5,10'")
        self._labels = labelled
        self._evaluator = Evaluator(query_relevance, [m for _, m in labelled], judged_only=judged_docs_only_flag)

    def evaluate(self, scores: Mapping) -> dict[str, dict[str, float]]:
        """``{query: {doc: score}}`` -> ``{query: {measure name: value}}`` (queries judged and ranked)."""
        import warnings
        if not scores:
            return {}
        with warnings.catch_warnings():  # pytrec_eval says nothing about judged queries the run lacks
            warnings.simplefilter("ignore")
            try:
                results = self._evaluator.evaluate(scores)
            except Exception as exc:  # no query in common: pytrec_eval returns nothing
                if "no query of the run is judged" in str(exc):
                    return {}
                raise
        columns = {label: results.values(m) for label, m in self._labels}
        return {q: {label: float(values[i]) for label, values in columns.items()}
                for i, q in enumerate(results.queries)}
