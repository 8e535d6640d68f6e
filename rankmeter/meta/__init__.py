"""Meta-evaluation: how far a measure, a qrels version or a ranking of systems can be trusted.

:mod:`.correlation` -- agreement between the rankings of systems that two measures (or two qrels
versions) give: Kendall's tau (a and b), tau_ap, Spearman's rho, rank-biased overlap.
"""
__all__ = ["kendall_tau", "tau_ap", "spearman", "rbo", "system_ranking"]


def __getattr__(name: str):  # loads numpy on first use only (the CLI lists `meta` without it)
    if name in __all__:
        from . import correlation
        return getattr(correlation, name)
    raise AttributeError(f"module 'rankmeter.meta' has no attribute {name!r}")
