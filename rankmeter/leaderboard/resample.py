"""The leaderboard's resamples: a paired bootstrap over collections, then (two levels) over queries within each.

One resample draws the collections with replacement (C of C); at two levels, each drawn collection then
draws its queries with replacement, independently for each time it was drawn. Every system is scored on
the same draws (paired), every measure too. A system's aggregate is computed from the draws as from the
data (:func:`aggregate`), so the B x measures x systems matrix of resampled aggregates gives the intervals,
the rank intervals, the win probabilities and the bootstrap tests (:mod:`.ranks`, :mod:`.pairs`).

Vectorised over resamples: per block of resamples, the collections' draw counts are a (B, C) matrix K; at
two levels, collection c's query counts are a (B, n_c) matrix W_c (``np.bincount`` of the drawn indices,
``K[b, c] * n_c`` of them in row b), and the resampled sums of every system and measure are one matrix
product ``W_c @ X_c``. Blocks hold about four million counts, whatever B is, so memory stays bounded.

The collections' draws and the queries' draws come from two streams of one seed
(``numpy.random.SeedSequence(seed).spawn(2)``): the collections drawn are the same at both levels, so with
one query per collection the two levels give identical resamples.

The two-level bootstrap counts the query noise twice for a population of collections (once in the spread
of the collections' means, once in the draws within them: Davison and Hinkley 1997, section 3.8; Field
and Welsh 2007): its intervals are wider than one level's by the within-collection share, which shrinks
as collections get more queries.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

__all__ = ["aggregate", "resample_aggregates", "FLOOR"]

#: geometric aggregates floor each collection's mean here (as trec_eval's GM_MAP floors AP at 1e-5)
FLOOR = 1e-5
_BLOCK = 1 << 22  # counts per block of resamples
_ROWS = 64  # rows counted at a time


def aggregate(means: np.ndarray, sizes: np.ndarray, how: str) -> np.ndarray:
    """Aggregate (measures x systems) of collection means (collections x measures x systems).

    >>> m = np.array([[[0.2, 0.4]], [[0.6, 0.4]]])  # two collections, one measure, two systems
    >>> aggregate(m, np.array([1, 3]), "macro").round(12).tolist(), aggregate(m, np.array([1, 3]), "weighted").round(12).tolist()
    ([[0.4, 0.4]], [[0.5, 0.4]])
    """
    if how == "macro":
        return means.mean(axis=0)
    if how == "weighted":
        return np.tensordot(sizes / sizes.sum(), means, axes=1)
    return np.exp(np.log(np.maximum(means, FLOOR)).mean(axis=0))


def _streams(seed: int | None) -> tuple[np.random.Generator, np.random.Generator]:
    collections, queries = np.random.SeedSequence(seed).spawn(2)
    return np.random.Generator(np.random.PCG64(collections)), np.random.Generator(np.random.PCG64(queries))


def _counts(rng: np.random.Generator, rows: int, n: int, draws: np.ndarray | int) -> np.ndarray:
    """(rows, n) float counts of ``draws[r]`` indices drawn uniformly from n in each row r.

    The indices are drawn at once (so the stream does not depend on the blocking below) and counted 64 rows
    at a time: a block's counts stay in cache (five times faster than one bincount of a 1000 x 1000 block).
    """
    draws = np.broadcast_to(np.asarray(draws, dtype=np.int64), (rows,))
    ends = np.cumsum(draws)
    drawn = rng.integers(0, n, size=int(ends[-1]) if rows else 0, dtype=np.uint16 if n <= 1 << 16 else np.int64)
    out = np.empty((rows, n))
    for r0 in range(0, rows, _ROWS):
        r1 = min(rows, r0 + _ROWS)
        segment = np.add(drawn[ends[r0] - draws[r0]:ends[r1 - 1]],
                         np.repeat(np.arange(r1 - r0, dtype=np.int64) * n, draws[r0:r1]), dtype=np.int64)
        out[r0:r1] = np.bincount(segment, minlength=(r1 - r0) * n).reshape(r1 - r0, n)
    return out


def _blocks(resamples: int, widest: int) -> Iterator[int]:
    step = max(1, min(resamples, _BLOCK // max(widest, 1)))
    for start in range(0, resamples, step):
        yield min(step, resamples - start)


def resample_aggregates(blocks: Sequence[np.ndarray], *, level: str, how: str, resamples: int,
                        seed: int | None, progress=None, counts: bool = False):
    """(resamples x measures x systems) aggregates of the resampled data (and, with ``counts=True``, the
    (resamples x collections) counts of each collection's draws beside them).

    Parameters
    ----------
    blocks : list of ndarray
        Per collection its (queries x measures x systems) values.
    level : {"collections", "queries"}
        One level (collections only, each collection's mean as it is) or two (queries within each drawn
        collection too).
    how : {"macro", "weighted", "geometric"}
        The aggregate (:func:`aggregate`). Geometric at two levels: a collection drawn k times counts with
        the mean of its k query draws pooled, k times.
    resamples : int
        B.
    seed : int or None
        Seed of the two streams (module notes).
    progress : callable, optional
        Called with the number of resamples done after each block.
    counts : bool, default False
        Also return how often each resample drew each collection (the rank bounds studentise with them).
    """
    n_c = len(blocks)
    measures, systems = blocks[0].shape[1:]
    width = measures * systems
    sizes = np.array([len(b) for b in blocks], dtype=np.float64)
    flat = [np.ascontiguousarray(b.reshape(len(b), width)) for b in blocks]
    means = np.stack([f.mean(axis=0) for f in flat])  # (C, measures * systems)
    rng_c, rng_q = _streams(seed)
    out = np.empty((resamples, width))
    drawn_counts = np.empty((resamples, n_c)) if counts else None
    done = 0
    widest = max(n_c, int(sizes.max()) if level == "queries" else n_c)
    for rows in _blocks(resamples, widest):
        k = _counts(rng_c, rows, n_c, n_c)  # (rows, C)
        kf = k
        if counts:
            drawn_counts[done:done + rows] = k
        k = k.astype(np.int64)
        if level == "collections":
            if how == "macro":
                agg = kf @ means / n_c
            elif how == "weighted":
                agg = (kf @ (means * sizes[:, None])) / (kf @ sizes)[:, None]
            else:
                agg = np.exp(kf @ np.log(np.maximum(means, FLOOR)) / n_c)
        else:
            agg = np.zeros((rows, width))
            for c, x in enumerate(flat):
                n = len(x)
                drawn = np.flatnonzero(k[:, c])  # a third of the resamples leave c out: no draws, no product
                sums = _counts(rng_q, len(drawn), n, k[drawn, c] * n) @ x  # over every time c was drawn
                if how == "macro":
                    agg[drawn] += sums / n
                elif how == "weighted":
                    agg[drawn] += sums
                else:
                    pooled = sums / (kf[drawn, c] * n)[:, None]
                    agg[drawn] += kf[drawn, c][:, None] * np.log(np.maximum(pooled, FLOOR))
            if how == "macro":
                agg /= n_c
            elif how == "weighted":
                agg /= (kf @ sizes)[:, None]
            else:
                agg = np.exp(agg / n_c)
        out[done:done + rows] = agg
        done += rows
        if progress:
            progress(rows)
    out = out.reshape(resamples, measures, systems)
    return (out, drawn_counts) if counts else out
