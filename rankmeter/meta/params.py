"""The parameters of the meta-evaluation analyses, declared once for their functions and ``rankmeter meta``.

The analyses validate their keywords with these declarations (:func:`~rankmeter.engine.param.validate_params`)
and ``rankmeter meta`` makes its flags from them, so a keyword and its flag say the same. No numpy here:
the command line reads them before any analysis is imported.
"""
from __future__ import annotations

from rankmeter.stats.params import PERMUTATIONS
from rankmeter.engine.param import Param

__all__ = ["POWER_TEST", "POWER_PERMUTATIONS", "SIZE", "TRIALS", "BIN_WIDTH", "DESIGN_TEST", "MIN_DIFF",
           "TOPICS", "VARIANCE", "BETA", "SYSTEMS", "MOST", "RBO_P", "DDOF", "RBO_KIND", "TAU_VARIANT",
           "TAU_AP_TIES"]

#: scipy's distributions take machine integers; no collection has more topics or systems
_COUNT = 1_000_000_000

# discriminative power and swap rates (rankmeter.meta.discrimination)
POWER_TEST = Param("test", "choice", help="paired test giving each pair's ASL (bootstrap: Sakai's; tukey: "
                   "randomised HSD)", choices=("bootstrap", "tukey", "randomization", "t"))
POWER_PERMUTATIONS = PERMUTATIONS.but(default=1000, help="bootstrap samples or trials")
SIZE = Param("size", "integer", None, "topic-set size (repeatable; default 1 .. topics/2)", low=1)
TRIALS = Param("trials", "integer", help="draws per size", low=1, high=10_000_000)
BIN_WIDTH = Param("bin_width", "number", help="width of the difference bins", low=0, high=1,
                  low_open=True)

# topic set size design (rankmeter.meta.design)
DESIGN_TEST = Param("test", "choice", help="paired t (two systems) or one-way ANOVA (several)",
                    choices=("t", "anova"))
MIN_DIFF = Param("min_diff", "number", None, "the smallest difference to detect", low=0, low_open=True,
                 optional=True)
TOPICS = Param("topics", "integer", None, "a topic count: its smallest detectable difference (and power)",
               low=2, high=_COUNT, optional=True)
VARIANCE = Param("variance", "number", None, "variance of the measure (else estimated from --qrels and --run)", low=0,
                 low_open=True, optional=True)
BETA = Param("beta", "number", help="type II error (0.2: power 0.8)", low=0, high=1, low_open=True,
             high_open=True)
SYSTEMS = Param("systems", "integer", help="systems compared by the ANOVA", low=2, high=_COUNT)
MOST = Param("most", "integer", help="the most topics searched", low=2, high=_COUNT)

# correlations of system rankings (rankmeter.meta.correlation)
RBO_P = Param("p", "number", help="RBO's persistence, in (0, 1]: 1 is average overlap", low=0, high=1,
              low_open=True)

# score standardisation (rankmeter.meta.zscores)
DDOF = Param("ddof", "integer", help="delta degrees of freedom (1: sample deviation)", low=0)
RBO_KIND = Param("kind", "choice", help="RBO's form: extrapolated (ext), the lower bound (min) or the residual "
                 "(res)", choices=("ext", "min", "res"))
TAU_VARIANT = Param("variant", "choice", help="Kendall's tau-a or tau-b (ties corrected)",
                    choices=("a", "b"))
TAU_AP_TIES = Param("ties", "choice", help="tau_ap's tied scores: strict (TREC AutoJudge's tau_ap-b) or "
                    "favourable", choices=("strict", "favourable"))
