"""How a family's per-query values are typed and summarised over queries.

A family carries one :class:`ValueType` (what one per-query value is) and one
:class:`Aggregation` (how the values of many queries become one number, on
numpy and on Spark). Drivers call these objects; none of them switches on a
family's name or on flags.

>>> import numpy as np
>>> MEAN.reduce(np.array([0.5, 1.0]), FLOAT), SUM.reduce(np.array([2, 3]), COUNT)
(0.75, 5)
>>> round(GMEAN.reduce(np.array([0.0, 0.5]), FLOAT), 6)  # trec_eval's 1e-5 floor before the log
0.002236
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["ValueType", "FLOAT", "COUNT", "TEXT", "Aggregation", "MEAN", "SUM", "GMEAN", "NO_SUMMARY"]


@dataclass(frozen=True)
class ValueType:
    """What one per-query value is: its numpy dtype, Arrow/Spark type and Python form."""

    name: str
    numpy_dtype: Any
    arrow_type: str      # pyarrow type factory name: "float64", "int64", "string"
    spark_type: str      # pyspark.sql.types class name

    def python(self, value: Any) -> Any:
        """One value as a plain Python object (for JSON, tables and Spark rows)."""
        if self is TEXT:
            return None if value is None else str(value)
        return int(value) if self is COUNT else float(value)

    def array(self, values) -> np.ndarray:
        """Values as this type's numpy array."""
        return np.asarray(values, dtype=self.numpy_dtype)


FLOAT = ValueType("float", np.float64, "float64", "DoubleType")
COUNT = ValueType("count", np.int64, "int64", "LongType")
TEXT = ValueType("text", object, "string", "StringType")


@dataclass(frozen=True)
class Aggregation:
    """A summary over queries with a numpy reducer and the same reducer as a Spark column."""

    name: str
    description: str

    def reduce(self, values: np.ndarray, value_type: ValueType) -> Any:
        """The summary of per-query ``values`` (0 over no queries, None when there is no summary)."""
        if self is NO_SUMMARY:
            return None
        if len(values) == 0:
            return 0
        if self is SUM:
            total = values.sum()
            return int(total) if value_type is COUNT else float(total)
        if self is GMEAN:
            # trec_eval's gm_map/gm_bpref: floor at 1e-5, mean of the logs, summed query by query.
            return float(np.exp(np.cumsum(np.log(np.maximum(values, 1e-5)))[-1] / len(values)))
        # trec_eval adds per-query values one by one in double; cumsum does the same.
        return float(np.cumsum(values, dtype=np.float64)[-1] / len(values))

    def spark_column(self, functions, column, scored):
        """The same summary as a Spark aggregate over ``column`` where ``scored`` holds (None: no summary)."""
        F = functions
        if self is NO_SUMMARY:
            return None
        if self is SUM:
            return F.sum(F.when(scored, column))
        if self is GMEAN:
            return F.exp(F.avg(F.when(scored, F.log(F.greatest(column, F.lit(1e-5))))))
        return F.avg(F.when(scored, column))

    def finish_spark(self, value: Any, value_type: ValueType) -> Any:
        """A Spark aggregate's result in the form :meth:`reduce` gives (0 when nothing was scored)."""
        if self is NO_SUMMARY:
            return None
        if value is None:
            return 0
        return int(value) if self is SUM and value_type is COUNT else float(value)


MEAN = Aggregation("mean", "mean")
SUM = Aggregation("sum", "sum")
GMEAN = Aggregation("gmean", "geometric mean (values floored at 1e-5, as trec_eval's gm_*)")
NO_SUMMARY = Aggregation("none", "per query only (no summary)")
