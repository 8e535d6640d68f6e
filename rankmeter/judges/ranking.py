"""How far the judge's ranking of the runs agrees with the human one, over the queries and the judge's draws:
:func:`rank_agreement` (``rankmeter judges ranking``).

Each run is scored per query under the human qrels and under each draw of the LLM's labels (several lines per
pair in LLM: the d-th line of a pair is draw d, as ``judges estimate`` reads them; one line a pair is one draw);
the runs are ranked by their mean over the queries both judged, the LLM's with each query's metric its mean over
its draws, and :func:`~rankmeter.judges.draws.ranking_agreement` gives Kendall's tau (b) and tau_ap (symmetric)
of the two rankings with a bootstrap interval over the queries (the draws' noise riding along), the judge's share
of its variance and the interval of the draws alone (these queries labelled again). ``low``/``high`` is the
percentile interval, and ``normal`` is the estimate +- z times the bootstrap's standard deviation. The
population's tau is a step function of the runs' mean differences, so no interval holds it at a fixed rate.
Where some interval can (bench/judge_draws.py --parts tau,tau-why), the percentile one held Kendall's tau in
98-100% and tau_ap in 94.8-100%, and ``normal`` held 92-95% and 86-88% (see
:func:`~rankmeter.judges.draws.ranking_agreement`).

Examples
--------
>>> human = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 1}}
>>> llm = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 1}}
>>> runs = {"good": {"q1": ["a"], "q2": ["b"], "q3": ["c"]}, "half": {"q1": ["x", "a"], "q2": ["x", "b"], "q3": ["c"]},
...         "bad": {"q1": ["x"], "q2": ["x"], "q3": ["x"]}}
>>> got = rank_agreement(human, llm, runs, "RR", permutations=200)
>>> m = got["measures"][0]
>>> m["kendall_tau"]["estimate"], m["queries"], m["draws"]
(1.0, 3, {'min': 1, 'max': 1})
"""
from __future__ import annotations

import numpy as np

from rankmeter.core.keywords import EvaluationOptions, Unpack, takes_options
from rankmeter.core.options import Options, validate_options
from rankmeter.engine.param import validate_params
from rankmeter.errors import ParameterError
from rankmeter.judges.params import RANK_RESAMPLES
from rankmeter.stats.params import ALPHA, SIGNIFICANCE

__all__ = ["rank_agreement", "rank_agreement_with", "rank_agreement_text"]

@takes_options(in_memory=True)
@validate_params(ALPHA, RANK_RESAMPLES, SIGNIFICANCE["seed"])
def rank_agreement(human, llm, runs, measures, *, alpha: float = 0.05, permutations: int = 1000,
                   seed: int = 0, **options: Unpack[EvaluationOptions]) -> dict:
    """Kendall's tau and tau_ap of the runs ranked under the LLM's labels (the mean over its draws) against the
    human ranking, with intervals over the queries and the draws (see the module docstring).

    Parameters
    ----------
    human, llm : path, Qrels, dict or DataFrame
        The human judgments and the LLM's (several lines per pair: its draws).
    runs : list or dict
        Two or more runs, named as :func:`rankmeter.compare` names them.
    measures : str or list of str
    alpha : float, default 0.05
        The intervals are at level 1 - alpha.
    permutations : int, default 1000
        Bootstrap resamples.
    seed : int, default 0
        The resamples' seed.
    %(evaluation_options)s

    Returns
    -------
    dict
        ``{"alpha", "permutations", "seed", "measures": [{"measure", "runs", "queries", "draws": {"min",
        "max"}, "kendall_tau": {"estimate", "low", "high", "normal", "judge_share", "redraw"}, "tau_ap": {...},
        "system_pairs", "unresolved_pairs", "human_means", "llm_means"}], "warnings"}``.
    """
    return rank_agreement_with(human, llm, runs, measures, validate_options(**options), alpha=alpha,
                               permutations=permutations, seed=seed)


def rank_agreement_with(human, llm, runs, measures, options: Options, *, alpha: float = 0.05,
                        permutations: int = 1000, seed: int = 0) -> dict:
    """:func:`rank_agreement` under evaluation options validated already."""
    from rankmeter.core.naming import name_runs
    from rankmeter.judges.draws import draw_tables, draw_values, ranking_agreement
    from rankmeter.judges.ppi import per_query_values, split_labelled_queries

    measures = [measures] if isinstance(measures, str) else list(measures)
    named = name_runs(runs, columns=options.columns, input_format=options.input_format)
    if len(named) < 2:
        raise ParameterError(f"runs: got {len(named)}; ranking the runs needs at least two")
    both, llm_only, human_only = split_labelled_queries(human, llm, options)
    if len(both) < 2:
        raise ParameterError(f"the human and the LLM judgments share {len(both)} quer{'y' if len(both) == 1 else 'ies'}"
                             ": the rankings are compared over the queries both judged (two or more)")
    warnings = []
    if llm_only:
        warnings.append(f"{len(llm_only)} of the LLM's queries have no human labels (e.g. {llm_only[0]!r}): left out, "
                        "the rankings are compared over the queries both judged")
    if human_only:
        warnings.append(f"{len(human_only)} human-judged queries have no LLM labels (e.g. {human_only[0]!r}): left out")
    y = per_query_values(human, named, measures, both, options)
    tables, least = draw_tables(llm, grades=options.grades)
    f, m = draw_values(tables, least, lambda t: per_query_values(t, named, measures, both, options), both)
    names = [name for name, _ in named]
    labels = list(dict.fromkeys(label for _, label in y))
    out = []
    for label in labels:
        h = np.array([y[(name, label)] for name in names])
        drawn = np.array([f[(name, label)] for name in names])
        for what, values in (("human", h), ("LLM", drawn)):
            if not np.isfinite(np.nanmean(values, axis=-1) if values.ndim == 3 else values).all():
                raise ParameterError(f"{label}: a run's value under the {what} labels is undefined on some query; "
                                     "choose a measure defined on every query")
        got = ranking_agreement(h, drawn, alpha=alpha, reps=permutations, seed=seed)
        means = np.nansum(drawn, 2) / m
        out.append({"measure": label, "runs": names, "queries": len(both),
                    "draws": {"min": int(m.min()), "max": int(m.max())}, **got,
                    "human_means": dict(zip(names, h.mean(1).tolist())),
                    "llm_means": dict(zip(names, means.mean(1).tolist()))})
    return {"alpha": alpha, "permutations": permutations, "seed": seed, "measures": out, "warnings": warnings}


def rank_agreement_text(result: dict, *, decimals: int = 4) -> list[str]:
    """The lines ``judges ranking`` prints."""
    from rankmeter.io.output import printable

    level = round(100 * (1 - result["alpha"]))

    def show(x):
        return "undefined" if x is None or not np.isfinite(x) else f"{x:.{decimals}f}"

    lines = []
    for m in result["measures"]:
        lines.append(f"{m['measure']}: {len(m['runs'])} runs ranked over {m['queries']} queries, the LLM's with "
                     f"{m['draws']['min']}-{m['draws']['max']} draws per query; {level}% intervals over the queries "
                     "and the draws")
        for key, name in (("kendall_tau", "Kendall's tau-b"), ("tau_ap", "tau_ap (symmetric)")):
            e = m[key]
            share = "n/a" if e["judge_share"] is None else f"{e['judge_share']:.0%}"
            lines.append(f"  {name:<19} {show(e['estimate'])} [{show(e['low'])}, {show(e['high'])}] (normal "
                         f"[{show(e['normal'][0])}, {show(e['normal'][1])}]); judge's share {share}; the draws "
                         f"alone [{show(e['redraw'][0])}, {show(e['redraw'][1])}]")
        lines.append(f"  system pairs whose order the queries leave open: {m['unresolved_pairs']} of "
                     f"{m['system_pairs']}" + (" (read the interval as the statistic's spread)"
                                               if m["unresolved_pairs"] * 2 > m["system_pairs"] else ""))
        width = max(len(printable(r)) for r in m["runs"])
        lines.append(f"  {'run':<{width}}  {'human':>{decimals + 3}}  {'LLM':>{decimals + 3}}")
        lines += [f"  {printable(r):<{width}}  {m['human_means'][r]:>{decimals + 3}.{decimals}f}  "
                  f"{m['llm_means'][r]:>{decimals + 3}.{decimals}f}" for r in m["runs"]]
    lines += [f"warning: {w}" for w in result["warnings"]]
    return lines
