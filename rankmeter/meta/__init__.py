"""Meta-evaluation: how far a measure, a qrels version or a ranking of systems can be trusted.

:mod:`.correlation` -- agreement between the rankings of systems that two measures (or two qrels
versions) give: Kendall's tau (a and b), tau_ap, Spearman's rho, rank-biased overlap.
"""
from .correlation import kendall_tau, rbo, spearman, system_ranking, tau_ap

__all__ = ["kendall_tau", "tau_ap", "spearman", "rbo", "system_ranking"]
