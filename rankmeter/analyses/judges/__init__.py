"""Evaluation with judgments a language model made, beside (or instead of) human ones.

:mod:`.sources` -- :func:`aggregate` several sampled labels per (query, doc) into one qrels
(UMBRELA's mode, the mean, the median), :func:`mix` human and LLM qrels human-first with the
provenance of every pair.
:mod:`.agreement` -- :func:`agreement` of two judges on the pairs both judged: Cohen's kappa,
binary and quadratic-weighted kappa, Krippendorff's ordinal alpha, the confusion matrix, per query.
:mod:`.leaderboards` -- :func:`leaderboards`: how alike two qrels versions rank the same runs.
:mod:`.impact` -- :func:`impact`: what the LLM's labels change, run by run.
"""
_WHERE = {"aggregate": "sources", "mix": "sources", "read_samples": "sources", "Mixed": "sources",
          "agreement": "agreement", "agreement_text": "agreement",
          "leaderboards": "leaderboards", "read_leaderboard": "leaderboards", "Leaderboards": "leaderboards",
          "impact": "impact", "Impact": "impact"}
__all__ = list(_WHERE)


def __getattr__(name: str):  # numpy and pyarrow on first use only
    if name in _WHERE:
        import importlib
        return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    raise AttributeError(f"module 'rankmeter.analyses.judges' has no attribute {name!r}")
