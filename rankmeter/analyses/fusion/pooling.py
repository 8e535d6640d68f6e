"""Judgment pools from runs, and agreement between two qrels versions.

:func:`pool` picks, per query, the docs assessors should judge:

* ``depth`` (depth@k): every doc some run ranks in its top ``k`` (TREC's classic pool);
* ``take`` (take@N): the ``n`` docs with the best fused priority, the priority being
  ``rrf`` (sum of 1 / (60 + rank)), ``sum`` (CombSUM of min-max normalised scores) or ``rbp``
  (sum of (1 - p) p^(rank - 1), Moffat et al.'s RBP-based pooling).

It returns a :class:`Pool` with the docs per query, the pool's size per query, its overlap with
existing qrels (docs already judged) and :meth:`Pool.write` (``query 0 doc -1`` lines, the grade to
fill in). :func:`agreement` compares two qrels versions on the (query, doc) pairs both judge:
Cohen's kappa, Fleiss' kappa over the two assessors, and the Jaccard overlap of the relevant sets.

>>> p = pool([{"q": {"a": 3.0, "b": 2.0}}, {"q": {"c": 9.0, "a": 1.0}}], depth=1)
>>> sorted(d.decode() for d in p.docs[b"q"])
['a', 'c']
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rankmeter.errors import ParameterError
from rankmeter.io import as_qrels
from rankmeter.io.canonical import decode_id

__all__ = ["Pool", "pool", "agreement"]


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


def pool(runs, *, depth: int | None = None, take: int | None = None, priority: str = "rrf", p: float = 0.8,
         qrels=None) -> Pool:
    """The pool of ``runs`` (see the module docstring); ``qrels`` counts docs already judged."""
    from rankmeter.analyses.fusion.methods import fuse
    from rankmeter.analyses.runs import cut

    if (depth is None) == (take is None):
        raise ParameterError("give exactly one of depth= (depth@k) or take= (take@N)")
    if depth is not None:
        from rankmeter.core.naming import name_runs
        cuts = [cut(run, depth) for _, run in name_runs(runs)]
        fused = fuse(cuts, method="sum", norm=None) if len(cuts) > 1 else cuts[0]
        chosen = fused
    else:
        methods = {"rrf": ("rrf", None, {}), "sum": ("sum", "min-max", {}), "rbp": ("rbc", None, {"phi": p})}
        if priority not in methods:
            raise ParameterError(f"priority={priority!r}: expected one of {', '.join(methods)}")
        method, norm, params = methods[priority]
        chosen = cut(fuse(runs, method=method, norm=norm, params=params), take)
    table = chosen.table
    docs: dict[bytes, list[bytes]] = {}
    for q, d in zip(table.column("query").to_pylist(), table.column("doc").to_pylist()):
        docs.setdefault(q, []).append(d)
    judged: dict[bytes, int] = {q: 0 for q in docs}
    if qrels is not None:
        known = as_qrels(qrels).table
        pairs = set(zip(known.column("query").to_pylist(), known.column("doc").to_pylist()))
        judged = {q: sum((q, d) in pairs for d in ds) for q, ds in docs.items()}
    return Pool(docs, judged)


def agreement(qrels_a, qrels_b, *, rel: int = 1) -> dict[str, float]:
    """Agreement of two judgment sets on the (query, doc) pairs both judge.

    Returns ``pairs`` (how many), ``cohen_kappa`` and ``fleiss_kappa`` over the grades, and
    ``jaccard`` of the relevant pairs (grade >= ``rel``) over the pairs judged by both.
    """
    a, b = as_qrels(qrels_a).table, as_qrels(qrels_b).table
    left = {(q, d): g for q, d, g in zip(a.column("query").to_pylist(), a.column("doc").to_pylist(),
                                         a.column("rel").to_pylist())}
    common = [(key, left[key], g) for key, g in zip(zip(b.column("query").to_pylist(), b.column("doc").to_pylist()),
                                                     b.column("rel").to_pylist()) if key in left]
    if not common:
        raise ParameterError("the two qrels judge no (query, doc) pair in common")
    x = np.array([g for _, g, _ in common])
    y = np.array([g for _, _, g in common])
    labels = np.unique(np.concatenate([x, y]))
    xi, yi = np.searchsorted(labels, x), np.searchsorted(labels, y)
    k = len(labels)
    table = np.zeros((k, k))
    np.add.at(table, (xi, yi), 1)
    n = len(common)
    observed = np.trace(table) / n
    expected = (table.sum(axis=1) @ table.sum(axis=0)) / n ** 2
    cohen = (observed - expected) / (1 - expected) if expected < 1 else 1.0
    # Fleiss with two raters per item: category shares over both raters
    counts = np.zeros((n, k))
    np.add.at(counts, (np.arange(n), xi), 1)
    np.add.at(counts, (np.arange(n), yi), 1)
    share = counts.sum(axis=0) / (2 * n)
    per_item = ((counts ** 2).sum(axis=1) - 2) / 2  # (sum n_ij^2 - r) / (r (r - 1)), r = 2
    pbar, pe = per_item.mean(), (share ** 2).sum()
    fleiss = (pbar - pe) / (1 - pe) if pe < 1 else 1.0
    rel_a, rel_b = x >= rel, y >= rel
    union = (rel_a | rel_b).sum()
    return {"pairs": n, "cohen_kappa": float(cohen), "fleiss_kappa": float(fleiss),
            "jaccard": float((rel_a & rel_b).sum() / union) if union else 1.0}

