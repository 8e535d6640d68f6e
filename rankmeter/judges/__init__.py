"""Evaluation with judgments a language model made, beside (or instead of) human ones.

:mod:`.sources` -- :func:`aggregate` several sampled labels per (query, doc) into one qrels
(UMBRELA's mode, the mean, the median), :func:`mix` human and LLM qrels human-first with the
provenance of every pair.
:mod:`.judge_agreement` -- :func:`agreement` of two judges on the pairs both judged: Cohen's kappa,
binary and quadratic-weighted kappa, Krippendorff's ordinal alpha, the confusion matrix, per query.
:mod:`.many_raters` -- :func:`many_rater_agreement` of three judges or more, or of sampled labels: Fleiss'
kappa, Krippendorff's alpha (nominal, ordinal, interval).
:mod:`.leaderboard_agreement` -- :func:`leaderboards`: how alike two qrels versions rank the same runs.
:mod:`.label_impact` -- :func:`impact`: what the LLM's labels change, run by run.
:mod:`.labelling` -- :func:`label`: an LLM's labels for the unjudged pairs of the runs' top k, several draws per
pair on request (:mod:`.stopping`: ``--until-stable``), through :mod:`.llm_client` (deadlines, a body cap, no
redirects) and :mod:`.label_calls`, cached in :mod:`.answer_cache` (schema checked, claims, a journal).
:mod:`.reliability` -- how far a judge agrees with itself across draws; :mod:`.draws` -- intervals that
count the judge's draws too.
:mod:`.ppi` -- PPI++ estimates with intervals from LLM labels on every query and human labels on a sample of
queries; :mod:`.pair_ppi` -- the same with human labels on a sample of (query, doc) pairs; :mod:`.allocation` --
where to spend the next human labels.
"""
_WHERE = {"aggregate": "sources", "mix": "sources", "read_samples": "sources", "Mixed": "sources",
          "write_qrels": "sources",
          "agreement": "judge_agreement", "agreement_text": "judge_agreement",
          "many_rater_agreement": "many_raters", "many_rater_text": "many_raters",
          "leaderboards": "leaderboard_agreement", "from_scores": "leaderboard_agreement",
          "read_leaderboard": "leaderboard_agreement", "Leaderboards": "leaderboard_agreement",
          "impact": "label_impact", "Impact": "label_impact",
          "label": "labelling", "Labelled": "labelling", "parse_grade": "label_inputs", "read_texts": "label_inputs"}
__all__ = list(_WHERE)


# The modules are not named like the functions they hold: importing ``judges.agreement`` the module
# would otherwise shadow ``judges.agreement`` the function.
def __getattr__(name: str):  # numpy and pyarrow on first use only
    if name in _WHERE:
        import importlib
        return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    raise AttributeError(f"module 'rankmeter.judges' has no attribute {name!r}")
