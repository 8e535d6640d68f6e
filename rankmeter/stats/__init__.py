"""Comparing systems: :func:`compare`, significance tests and multiple-comparison corrections."""
from rankmeter.stats.compare import TESTS, compare, compare_scores
from rankmeter.stats.comparison import Comparison
from rankmeter.stats.corrections import CORRECTIONS, adjust
from rankmeter.stats.significance import (
    bootstrap, effect_size, paired_t, randomization, tukey_hsd, wilcoxon,
)

__all__ = ["compare", "compare_scores", "Comparison", "TESTS", "CORRECTIONS", "adjust", "paired_t", "wilcoxon",
           "randomization", "bootstrap", "tukey_hsd", "effect_size"]
