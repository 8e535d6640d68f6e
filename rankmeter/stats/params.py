"""The significance-test knobs, declared once: :class:`SignificanceOptions` (type, default, constraint, help).

``test``, ``correction``, ``alpha``, ``permutations`` and ``seed`` mean the same in :func:`~rankmeter.compare`,
:func:`~rankmeter.compare_scores`, the report, the recommender comparisons
(:func:`rankmeter.recsys.compare_beyond`), the nuggets' comparisons and the gate (which narrows some of
them: :data:`rankmeter.gate.checks.GATE_PARAMS`). Each key of the TypedDict is one knob: its Python type (what
type checkers read, ``Unpack[SignificanceOptions]`` under PEP 692, or the aliases :data:`Test` and
:data:`Correction` in a signature), and in ``Annotated`` its default, help and bounds, from which
:data:`SIGNIFICANCE` holds the :class:`~rankmeter.engine.param.Param` that checks a keyword, makes the flag
(:mod:`rankmeter.cli.flags`) and writes the docs.

>>> SIGNIFICANCE["alpha"].check(5)
Traceback (most recent call last):
...
rankmeter.errors.ParameterError: alpha=5: expected a number in (0, 1)
>>> SIGNIFICANCE["correction"].choices
('none', 'bonferroni', 'holm', 'bh')
"""
from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal, TypedDict, cast

from rankmeter.core.options import EvaluationOptions, options_class
from rankmeter.engine.param import SEED, Param
from rankmeter.engine.typed_options import declarations, option

__all__ = ["Test", "Correction", "SignificanceOptions", "ComparisonOptions", "Significance", "significance",
           "SIGNIFICANCE", "TEST", "CORRECTION", "ALPHA",
           "PERMUTATIONS", "SEED", "TESTS", "CORRECTIONS"]

#: The paired two-sided tests (:mod:`rankmeter.stats.significance`).
Test = Literal["t", "wilcoxon", "randomization", "bootstrap", "tukey"]
#: The multiple-comparison corrections (:mod:`rankmeter.stats.corrections`).
Correction = Literal["none", "bonferroni", "holm", "bh"]


class SignificanceOptions(TypedDict, total=False):
    """The significance-test knobs: each key's type, and its default, help and bounds (see the module)."""

    test: Annotated[Test, option(
        "t", "paired two-sided test: t (Student's), wilcoxon (signed-rank; needs scipy), randomization (sign "
        "flips), bootstrap (studentised) or tukey (Sakai's randomised Tukey HSD across all systems)")]
    correction: Annotated[Correction, option(
        "none", "multiple-comparison correction per measure: none, bonferroni, holm or bh (Benjamini-Hochberg), "
        "across the comparisons with the baseline(s) and across all pairs; tukey is corrected already and takes "
        "none only")]
    alpha: Annotated[float, option(
        0.05, "significance level; intervals are at 1 - alpha", low=0, high=1, low_open=True, high_open=True)]
    permutations: Annotated[int, option(
        10000, "permutations / resamples of the random tests (sign flips, bootstrap resamples, Tukey trials)",
        low=1, high=10_000_000)]
    seed: Annotated[int | None, SEED]


#: Each knob's :class:`~rankmeter.engine.param.Param`, made from :class:`SignificanceOptions`.
SIGNIFICANCE: dict[str, Param] = declarations(SignificanceOptions)
TEST, CORRECTION, ALPHA, PERMUTATIONS = (SIGNIFICANCE[n] for n in ("test", "correction", "alpha", "permutations"))
TESTS: tuple[str, ...] = TEST.choices
CORRECTIONS: tuple[str, ...] = CORRECTION.choices


class ComparisonOptions(SignificanceOptions, EvaluationOptions, total=False):
    """What a function that scores runs and tests their differences takes: the knobs, then the evaluation
    options (:func:`rankmeter.compare`, the report)."""


@options_class(SignificanceOptions, SIGNIFICANCE)
class Significance:
    """A validated set of the significance-test knobs, one field per key of :class:`SignificanceOptions`
    (what travels below the public face: ``compare``'s statistics, the report's tables).

    >>> Significance(test="randomization").permutations
    10000
    """

    if TYPE_CHECKING:  # the fields are made from the declarations
        __dataclass_fields__: ClassVar[dict[str, Any]]

        def __init__(self, **knobs: Any) -> None: ...
        def __getattr__(self, name: str) -> Any: ...

    def as_dict(self) -> dict[str, Any]:
        """Every knob, by name (the keywords of :func:`~rankmeter.compare_scores`)."""
        return {name: getattr(self, name) for name in SIGNIFICANCE}

    def check_together(self) -> None:
        """What no single declaration says: Tukey's HSD is corrected already; the Wilcoxon test needs scipy.

        >>> Significance(test="tukey", correction="holm").check_together()
        Traceback (most recent call last):
        ...
        rankmeter.errors.ParameterError: test='tukey' already controls the family-wise error over all pairs; use correction='none' with it
        """
        from rankmeter.errors import ParameterError
        if self.test == "tukey" and self.correction != "none":
            raise ParameterError("test='tukey' already controls the family-wise error over all pairs; "
                                 "use correction='none' with it")
        if self.test == "wilcoxon":
            from rankmeter.stats.significance import scipy_stats
            scipy_stats()


def significance(options: Mapping[str, Any]) -> Significance:
    """The knobs among ``options`` taken out of it (the rest are the evaluation options), checked, the others
    at their defaults.

    >>> given = {"alpha": 0.01, "rel": 2}
    >>> significance(given).alpha, given
    (0.01, {'rel': 2})
    """
    given = cast(MutableMapping[str, Any], options)  # a function's own **options (a TypedDict to type checkers)
    return Significance(**{name: SIGNIFICANCE[name].check(given.pop(name)) for name in SIGNIFICANCE if name in given})
