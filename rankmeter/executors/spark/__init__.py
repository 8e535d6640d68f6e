"""The Spark executor: Spark DataFrames scored on the cluster with the same Evaluator.

:mod:`.frames` checks and groups the inputs on the driver and turns each
task's Arrow rows back into canonical tables; :mod:`.scoring` runs the
Evaluator in each task and aggregates on Spark. Nothing imports pyspark until
a Spark DataFrame arrives.
"""
from __future__ import annotations

__all__ = ["is_spark_frame", "evaluate_on_spark"]


def is_spark_frame(obj: object) -> bool:
    """True for a Spark DataFrame (classic or Spark Connect), without importing pyspark."""
    cls = type(obj)
    return cls.__name__ == "DataFrame" and cls.__module__.startswith("pyspark.sql")


def evaluate_on_spark(qrels, run, measures, options):
    """Score on Spark (see :mod:`.scoring`)."""
    from rankmeter.executors.spark.scoring import evaluate_on_spark as run_on_spark
    return run_on_spark(qrels, run, measures, options)
