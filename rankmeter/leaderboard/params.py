"""The leaderboard's own knobs, each declared once (:class:`rankmeter.engine.param.Param`); the tests' knobs are
``compare``'s (:data:`rankmeter.stats.params.SIGNIFICANCE`), with the defaults a leaderboard wants."""
from __future__ import annotations

from rankmeter.core.params import PARAMS
from rankmeter.engine.param import Param
from rankmeter.stats.params import SIGNIFICANCE

__all__ = ["LEVEL", "AGGREGATE", "MISSING", "MARGIN", "RESAMPLES", "TEST", "CORRECTION", "DECLARED"]

LEVEL = Param("level", "choice", help="what is resampled: collections (one level; the only one for per-collection "
              "scores), or queries (two levels: collections, then queries within each); default queries when "
              "per-query values are given", choices=("collections", "queries"), optional=True)
AGGREGATE = Param("aggregate", "choice", help="a system's score over the collections: macro (the mean of the "
                  "collections' means), weighted (by queries) or geometric (of the collections' means, each "
                  "floored at 1e-5)", choices=("macro", "weighted", "geometric"))
MISSING = Param("missing", "choice", help="a system without values in a collection (or for some of its "
                "queries): refuse, naming the cells, or drop (compare on the collections and queries every system "
                "has, said in the output)", choices=("refuse", "drop"))
MARGIN = Param("margin", "number", help="equivalence (TOST) and non-inferiority margin against the baseline, in "
               "the measure's units (e.g. 0.01)", low=0, low_open=True, optional=True)
#: compare's --permutations, under the name a leaderboard's scripts use (the older flag is read too)
RESAMPLES = SIGNIFICANCE["permutations"].but(name="resamples", help="bootstrap resamples (also the permutations of the "
                                       "randomisation and Tukey tests)")
TEST = SIGNIFICANCE["test"].but(default=None, optional=True, help="the pairwise test: bootstrap (the leaderboard's "
                          "own resamples), randomization (sign flips), t or wilcoxon (over the collections' means), "
                          "tukey (randomised HSD over the systems); default randomization at one level (sign flips "
                          "of the collections' differences: exact under the null, where the bootstrap over 20 "
                          "collections is not) and bootstrap at two")
CORRECTION = SIGNIFICANCE["correction"].but(default="holm", help="multiple-comparison correction over every pair and "
                                      "measure: none, bonferroni, holm or bh (Benjamini-Hochberg)")

DECLARED = (LEVEL, AGGREGATE, MISSING, MARGIN, RESAMPLES, TEST, CORRECTION, SIGNIFICANCE["alpha"], SIGNIFICANCE["seed"],
            PARAMS["baseline"])
