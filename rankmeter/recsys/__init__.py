"""Recommender evaluation: implicit feedback and top-k lists as qrels and runs, beyond-accuracy measures.

:mod:`.feedback` -- :func:`implicit_qrels`, :func:`topk_run`, :func:`truncate`, :func:`coverage` and
:func:`evaluate`: recommender-shaped inputs scored by the core, with which users count said.
:mod:`.beyond` -- :func:`beyond_accuracy` (coverage, novelty, diversity, serendipity, popularity bias) and
:func:`compare_beyond`, compared over users with :func:`rankmeter.compare`'s tests.
:mod:`.pooled_auc` -- :func:`pooled_auc`: one ROC area over every row of a run.
"""
_WHERE = {"implicit_qrels": "feedback", "topk_run": "feedback", "truncate": "feedback", "coverage": "feedback",
          "Coverage": "feedback", "evaluate": "feedback",
          "beyond_accuracy": "beyond", "BeyondAccuracy": "beyond", "compare_beyond": "beyond",
          "pooled_auc": "pooled_auc"}
__all__ = list(_WHERE)


def __getattr__(name: str):  # numpy and scipy on first use only
    if name in _WHERE:
        import importlib
        return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    raise AttributeError(f"module 'rankmeter.recsys' has no attribute {name!r}")
