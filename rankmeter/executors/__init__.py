"""Executors: they cut a run into query-aligned parts and call the :class:`~rankmeter.core.Evaluator`.

* :mod:`.memory` -- a run in memory, in parts on both cores when it is large;
* :mod:`.streamed` -- a run file read in blocks of whole queries (bounded memory);
* :mod:`.spark` -- Spark DataFrames, each task scoring its queries with the same Evaluator.
"""
