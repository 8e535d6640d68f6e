"""One tool's conventions as a record of named switches (:class:`Convention`): the type every peer's model
(``rankmeter/compat/<tool>/model.py``) fills in. How a convention scores a run, and the switches'
meaning: :mod:`rankmeter.compat.conventions`."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace

__all__ = ["Convention", "SWITCHES", "QUERY_SET", "MEAN_ONLY", "COUNTS", "CORE_TIES", "TIE_ORDERS"]

#: the attribution's order: the switch's name (a cause) and the Convention field it sets
SWITCHES = ("self_id", "truncation", "judged_only", "negative_grades", "rel_level", "scores", "ties",
            "positive_scores", "ap_denominator", "gain", "ideal_pool", "ideal_depth", "unjudged_query",
            "missing_query", "empty_ranking", "aggregate", "rounding")

#: switches that change which queries are averaged, not any query's value
QUERY_SET = ("unjudged_query", "missing_query", "empty_ranking")
#: switches that change only how the per-query values make one number
MEAN_ONLY = ("aggregate",)
#: trec_eval's counts, summed over queries by trec_eval (its "all" line), pytrec_eval's
#: compute_aggregated_measure (num_*) and ir_measures (SumAgg)
COUNTS = ("NumQ", "NumRet", "NumRel", "NumRelRet", "NumNonrelJudgedRet")

#: tie orders the core applies itself (the others put each ranking in the tool's order first)
CORE_TIES = ("trec_eval", "average")
#: every tie order a convention can name
TIE_ORDERS = ("trec_eval", "docno", "input", "ranx", "average", "torchmetrics")


@dataclass(frozen=True)
class Convention:
    """One tool's conventions; every field but ``name``, ``families``, ``overrides``, ``per_measure`` and
    ``note`` is one switch of :data:`SWITCHES` (same name)."""

    name: str
    self_id: bool = False
    truncation: int | None = None
    judged_only: bool = False
    negative_grades: str = "keep"        # keep | zero (grades below rel gain nothing)
    rel_level: int = 1
    scores: str = "double"               # double | float32
    ties: str = "trec_eval"
    positive_scores: bool = False
    ap_denominator: str = "R"            # R | hits
    gain: str = "linear"
    ideal_pool: str = "judged"           # judged | retrieved
    ideal_depth: str = "all"             # all | k (retrieved pool only)
    unjudged_query: str = "skip"         # skip | zero
    missing_query: str = "skip"          # skip | zero (scored as an empty ranking) | default (its value is 0)
    empty_ranking: str = "missing"       # missing | zero
    aggregate: str = "mean"              # mean | sum (the value over queries)
    rounding: int | None = None
    families: tuple[str, ...] | None = None   # measures the tool offers (None: all)
    overrides: tuple = ()                      # ((family, {switch: value}), ...): a measure's own settings
    #: measure -> {switch: value}: settings the tool chooses per measure (ir_measures' providers)
    per_measure: Callable | None = field(default=None, compare=False, repr=False)
    note: str = ""

    def for_measure(self, measure) -> "Convention":
        """The settings this tool uses for ``measure`` (a family may override the tool's defaults)."""
        conv = self
        for family, changes in self.overrides:
            if measure.family.name == family:
                conv = replace(conv, **changes)
                break
        if self.per_measure is not None:
            conv = replace(conv, **self.per_measure(measure))
        return conv

    def switched(self, switch: str, other: "Convention") -> "Convention":
        """This convention with ``switch`` set to ``other``'s value."""
        return replace(self, **{switch: getattr(other, switch)})

    def settings(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name in SWITCHES}
