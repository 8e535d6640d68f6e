"""Meta-evaluation: how far a measure, a qrels version or a ranking of systems can be trusted.

:mod:`.correlation` -- agreement between the rankings of systems that two measures (or two qrels
versions) give: Kendall's tau (a and b), tau_ap, Spearman's rho, rank-biased overlap.
:mod:`.discrimination` -- discriminative power (Sakai 2006) and swap rates (Voorhees and Buckley 2002).
:mod:`.design` -- topic set size design, power and minimum detectable difference (Sakai 2016).
:mod:`.zscores` -- score standardisation (Webber et al. 2008) and trec_eval ``-Z`` files.
"""
_WHERE = {
    "kendall_tau": "correlation", "tau_ap": "correlation", "spearman": "correlation", "rbo": "correlation",
    "system_ranking": "correlation", "pearson": "correlation", "correlations": "correlation",
    "discriminative_power": "discrimination", "swap_rate": "discrimination", "score_matrix": "discrimination",
    "power": "design", "topic_set_size": "design", "minimum_detectable_difference": "design",
    "variance_estimate": "design",
    "standardisation": "zscores", "write_zscores": "zscores", "standardise": "zscores",
}
__all__ = list(_WHERE)


def __getattr__(name: str):  # loads numpy on first use only (the CLI lists `meta` without it)
    if name in _WHERE:
        import importlib
        return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    raise AttributeError(f"module 'rankmeter.meta' has no attribute {name!r}")
