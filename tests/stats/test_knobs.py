"""The significance-test knobs (test, correction, alpha, permutations, seed) mean one thing everywhere: every
public function of rankmeter and of its product packages that takes one checks it with its one declaration
(rankmeter.stats.params.SIGNIFICANCE) or a narrowing of it (the gate's one-sided tests, a smaller alpha)."""
from __future__ import annotations

import importlib
import inspect

import pytest

from rankmeter.stats.params import SIGNIFICANCE

PACKAGES = ("rankmeter", "rankmeter.stats", "rankmeter.meta", "rankmeter.recsys", "rankmeter.judges",
            "rankmeter.gate", "rankmeter.leaderboard.board", "rankmeter.nuggets", "rankmeter.report.html")
#: the tests themselves, which the functions checked here call with knobs already checked
BUILDING_BLOCKS = {"paired_t", "wilcoxon", "randomization", "bootstrap", "tukey_hsd", "regression_test",
                   "minimum_detectable_drop"}
#: (function, knob) -> what the knob means there instead (declared beside the function, rankmeter.meta.params)
OTHER_MEANING = {(name, "test"): "the design's test: paired t for two systems, one-way ANOVA for several"
                 for name in ("power", "topic_set_size", "minimum_detectable_difference")}


def _public_functions():
    seen = {}
    for package in PACKAGES:
        module = importlib.import_module(package)
        for name in module.__all__:
            obj = getattr(module, name)
            if not inspect.ismodule(obj) and inspect.isfunction(inspect.unwrap(obj)) and name not in BUILDING_BLOCKS:
                seen.setdefault(id(obj), (f"{package}.{name}", obj))
    return sorted(seen.values(), key=lambda item: item[0])


FUNCTIONS = _public_functions()


def test_the_functions_that_take_knobs_are_found():
    with_knobs = {name.rsplit(".", 1)[1] for name, f in FUNCTIONS
                  if set(inspect.signature(f).parameters) & set(SIGNIFICANCE)}
    assert {"compare", "compare_scores", "compare_beyond", "impact", "gate", "leaderboard", "compare_nuggets",
            "discriminative_power", "swap_rate", "topic_set_size"} <= with_knobs


@pytest.mark.parametrize("name, function", FUNCTIONS, ids=[name for name, _ in FUNCTIONS])
def test_each_knob_is_checked_with_its_declaration(name, function):
    declared = {**getattr(function, "options", {}), **getattr(function, "params", {})}
    for knob in set(inspect.signature(function).parameters) & set(SIGNIFICANCE):
        if (name.rsplit(".", 1)[-1], knob) in OTHER_MEANING:
            continue
        own, shared = declared.get(knob), SIGNIFICANCE[knob]
        assert own is not None, f"{name}({knob}=...) is not checked with a declaration"
        assert own.kind == shared.kind and set(own.choices) <= set(shared.choices), (name, knob)
        assert own.low >= shared.low and own.high <= shared.high, (name, knob)   # narrowed, never widened


def test_a_knob_left_unchecked_is_caught():
    def loose(*, alpha: float = 0.05):
        return alpha
    with pytest.raises(AssertionError, match=r"loose\(alpha=\.\.\.\) is not checked"):
        test_each_knob_is_checked_with_its_declaration("loose", loose)
