"""The Spark executor: Spark DataFrames scored on the cluster with the same Evaluator.

:mod:`.frames` checks and groups the inputs on the driver and turns each
task's Arrow rows back into canonical tables; :mod:`.scoring` runs the
Evaluator in each task and aggregates on Spark. Nothing imports pyspark until
a Spark DataFrame arrives.
"""
from __future__ import annotations

from rankmeter.io.frames import is_spark_frame  # what reads inputs tells a Spark frame apart

__all__ = ["is_spark_frame", "evaluate_on_spark"]


def evaluate_on_spark(qrels, run, measures, options):
    """Score on Spark (see :mod:`.scoring`)."""
    from rankmeter.executors.spark.scoring import evaluate_on_spark as run_on_spark
    return run_on_spark(qrels, run, measures, options)
