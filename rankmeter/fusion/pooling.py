"""Judgment pools from runs.

:func:`pool` picks, per query, the docs assessors should judge:

* ``depth`` (depth@k): every doc some run ranks in its top ``k`` (TREC's classic pool);
* ``take`` (take@N): the ``n`` docs with the best fused priority, the priority being
  ``rrf`` (sum of 1 / (60 + rank)), ``sum`` (CombSUM of min-max normalised scores) or ``rbp``
  (sum of (1 - p) p^(rank - 1), Moffat et al.'s RBP-based pooling).

It returns a :class:`Pool` with the docs per query, the pool's size per query, its overlap with
existing qrels (docs already judged) and :meth:`Pool.write` (``query 0 doc -1`` lines, the grade to
fill in).

>>> p = pool([{"q": {"a": 3.0, "b": 2.0}}, {"q": {"c": 9.0, "a": 1.0}}], depth=1)
>>> sorted(d.decode() for d in p.docs[b"q"])
['a', 'c']
"""
from __future__ import annotations

from dataclasses import dataclass

from rankmeter.fusion.catalog import FUSE_OPTIONS, POOL_PARAMETERS
from rankmeter.engine.param import validate_params
from rankmeter.errors import ParameterError, shown_id
from rankmeter.io.canonical import decode_id

__all__ = ["Pool", "pool"]


@dataclass
class Pool:
    """Docs to judge per query (bytes ids, best first), with the pool's statistics."""

    docs: dict[bytes, list[bytes]]
    already_judged: dict[bytes, int]

    @property
    def sizes(self) -> dict[bytes, int]:
        return {q: len(d) for q, d in self.docs.items()}

    def write(self, path, *, inputs=()) -> None:
        """A qrels-shaped file for assessors: ``query 0 doc -1`` (grade -1: to be judged)."""
        from rankmeter.io.output import output_file
        with output_file(path, inputs=inputs) as out:
            for q in sorted(self.docs):
                out.writelines(f"{decode_id(q)} 0 {decode_id(d)} -1\n" for d in self.docs[q])


@validate_params(*POOL_PARAMETERS.values(), FUSE_OPTIONS["ties"])
def pool(runs, *, depth: int | None = None, take: int | None = None, priority: str = "rrf", p: float = 0.8,
         qrels=None, ties: str = "trec_eval", topics=None, **options) -> Pool:
    """The pool of ``runs`` (see the module docstring); ``qrels`` counts docs already judged.

    ``topics`` (a topics file, :func:`rankmeter.io.topics.read_topics`, or query ids) keeps only
    those queries: a warning names the runs' queries that are not topics (left out of the pool),
    another the topics no run has results for.

    Each parameter is checked against :data:`~rankmeter.fusion.catalog.POOL_PARAMETERS`.
    ``ties`` ranks each run's tied docs (``trec_eval`` or ``input``, as :func:`fuse`); ``options``
    (``columns``, ``input_format``, ``grades`` ...) read the runs and the qrels as ``evaluate`` does.
    A depth@k pool lists each query's docs by their best rank over the runs (then docno descending).
    """
    from rankmeter.fusion.methods import depth_pool_run, fuse_with
    from rankmeter.core.ranked_runs import cut
    from rankmeter.core.options import validate_options

    if (depth is None) == (take is None):
        raise ParameterError("give exactly one of depth= (depth@k) or take= (take@N)")
    opts = validate_options(ties=ties, **options)
    if depth is not None:
        chosen = depth_pool_run(runs, depth, opts)
    else:
        methods = {"rrf": ("rrf", None, {}), "sum": ("sum", "min-max", {}), "rbp": ("rbc", None, {"phi": p})}
        method, norm, params = methods[priority]
        chosen = cut(fuse_with(runs, opts, method=method, norm=norm, params=params), take)
    table = chosen.table
    docs: dict[bytes, list[bytes]] = {}
    for q, d in zip(table.column("query").to_pylist(), table.column("doc").to_pylist()):
        docs.setdefault(q, []).append(d)
    if topics is not None:
        docs = _only_topics(docs, topics)
    judged: dict[bytes, int] = {q: 0 for q in docs}
    if qrels is not None:
        judged.update(_already_judged(qrels, chosen, opts, docs))
    return Pool(docs, judged)


def _only_topics(docs: dict[bytes, list[bytes]], topics) -> dict[bytes, list[bytes]]:
    """``docs`` of the ``topics`` only, with a warning naming the queries left out and the topics without docs."""
    import os
    import warnings

    from rankmeter.core.order import natural_order
    from rankmeter.io.topics import as_topics

    wanted = as_topics(topics)
    keep = set(wanted)
    source = f" ({os.fsdecode(topics)})" if isinstance(topics, (str, bytes, os.PathLike)) else ""

    def named(ids: list[bytes]) -> str:
        ids = [ids[i] for i in natural_order(ids)]
        shown = ", ".join(shown_id(q) for q in ids[:10])
        return shown + (f" and {len(ids) - 10} more" if len(ids) > 10 else "")
    outside = [q for q in docs if q not in keep]
    if outside:
        warnings.warn(f"{len(outside)} queries of the runs are not in the topics{source} and are left out of the "
                      f"pool: {named(outside)}", stacklevel=3)
    empty = [q for q in wanted if q not in docs]
    if empty:
        warnings.warn(f"{len(empty)} topics{source} have no docs in the pool (no run has results for them): "
                      f"{named(empty)}", stacklevel=3)
    return {q: d for q, d in docs.items() if q in keep}


def _already_judged(qrels, chosen, opts, docs: dict) -> dict[bytes, int]:
    """Per pooled query, how many of its pooled docs ``qrels`` already grade (the core's join)."""
    from rankmeter.core import Evaluator

    # every pooled doc counts: none is cut (max_docs) or dropped by its score or id (the pool's scores are negative)
    counting = opts.replace(max_docs=None, positive_scores_only=False, ignore_self=False)
    evaluator = Evaluator.of(qrels, [], counting)
    rows = evaluator.rows(chosen)
    counts = rows.group_by("query").aggregate([("judged", "sum")])
    found = dict(zip(counts.column("query").to_pylist(), counts.column("judged_sum").to_pylist()))
    return {q: int(found.get(decode_id(q), 0)) for q in docs}
