"""Executors: they cut a run the core cannot hold into query-aligned parts and call the
:class:`~rankmeter.core.Evaluator` (a run in memory is the core's own: :meth:`~rankmeter.core.Evaluator.evaluate`).

* :mod:`.streamed` -- a run file read in blocks of whole queries (bounded memory);
* :mod:`.spark` -- Spark DataFrames, each task scoring its queries with the same Evaluator.
"""
from __future__ import annotations

__all__ = ["evaluate_run"]


def evaluate_run(qrels, run, measures, options):
    """Score one run with the executor ``options.executor`` (validated :class:`~rankmeter.core.options.Options`)
    chooses: Spark for a Spark DataFrame (or ``"spark"``), streamed for ``"streamed"`` or, under ``"auto"``, a
    run file large enough (:func:`.streamed.streams_by_itself`); else the core scores it in memory.

    What :func:`rankmeter.evaluate` and the analyses that take evaluation options (recommender inputs) run.
    """
    from rankmeter.core import Evaluator
    from rankmeter.executors.spark import is_spark_frame  # pyspark itself loads only for Spark inputs

    if options.executor == "spark" or (options.executor == "auto" and (is_spark_frame(qrels) or is_spark_frame(run))):
        from rankmeter.executors.spark import evaluate_on_spark
        return evaluate_on_spark(qrels, run, measures, options)
    evaluator = Evaluator.of(qrels, measures, options)
    if options.executor == "streamed":
        from rankmeter.executors.streamed import evaluate_streamed
        return evaluate_streamed(evaluator, run)
    if options.executor == "auto":  # a run file of a gigabyte or more streams by itself
        from rankmeter.executors.streamed import evaluate_auto
        return evaluate_auto(evaluator, run)
    return evaluator.evaluate(run)
