"""The sums the gain-based measures share within a batch (:mod:`rankmeter.measures.dcg`).

Discounts; running sums added left to right, as trec_eval's loops add (:func:`seq_cumsum`); the ideal
ranking's gains and their running DCG; the ranks of the run that gain and the running DCG there. The
ideal side and the run side are kept once per batch and gain: nDCG at every cutoff (ndcg_cut.5,...,1000),
nDCGRel, RnDCG and G read the same.
"""
from __future__ import annotations

import numpy as np

from rankmeter.engine.segments import distinct_sorted
from rankmeter.errors import MeasureError
from rankmeter.measures.gains import gains_of as _gains

__all__ = ["denominators", "discounted", "seq_cumsum", "desc_by_query", "ideal_gains", "gather_prefix", "safe_div",
           "run_side", "run_dcg_at", "ideal_side", "segment_offsets_of"]


def denominators(ranks: np.ndarray, discount: str, base: float = 2.0) -> np.ndarray:
    """The discount's denominator at each rank: log_b(i + 1), or for jk 1 below rank b and log_b(i) after."""
    if base <= 1.0:
        raise MeasureError(f"log_base={base!r}: the base of the discount's logarithm must be > 1")
    log = np.log2 if base == 2.0 else (lambda x: np.log(x) / np.log(base))
    if discount == "jk":
        return np.where(ranks < base, 1.0, log(np.maximum(ranks, 1).astype(np.float64)))
    return log(ranks + 1.0)


def discounted(gains: np.ndarray, ranks: np.ndarray, discount: str, base: float = 2.0) -> np.ndarray:
    """gain / discount denominator, divided (not multiplied by a reciprocal) as trec_eval does."""
    return gains / denominators(ranks, discount, base)


def seq_cumsum(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Running sum of ``values`` within each segment of ``offsets``, added left to right.

    A global cumsum minus each segment's start value rounds differently from
    a C loop's running sum; this pads segments of similar length (bucketed by
    powers of two, so padding at most doubles the work) into rows and lets
    ``cumsum`` run along each row.
    """
    values = np.asarray(values, dtype=np.float64)
    out = np.empty(len(values))
    counts = np.diff(offsets)
    segs = np.flatnonzero(counts)
    if len(segs) == 0:
        return out
    bucket = np.frexp(counts[segs] - 1)[1]  # bit length of len-1: same bucket => within 2x
    for b in distinct_sorted(bucket).tolist():
        chosen = segs[bucket == b]
        lens = counts[chosen]
        rows = np.repeat(np.arange(len(chosen)), lens)
        cols = np.arange(lens.sum()) - np.repeat(np.cumsum(lens) - lens, lens)
        idx = np.repeat(offsets[chosen], lens) + cols
        pad = np.zeros((len(chosen), int(lens.max())))
        pad[rows, cols] = values[idx]
        np.cumsum(pad, axis=1, out=pad)
        out[idx] = pad[rows, cols]
    return out


def desc_by_query(values: np.ndarray, qidx: np.ndarray, nq: int):
    """Sort ``values`` descending within each query.

    Returns (sorted values, query index of each, offsets (nq + 1), 1-based position).
    """
    order = np.lexsort((-values, qidx))
    vals, q = values[order], qidx[order]
    counts = np.bincount(q, minlength=nq)
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    pos = np.arange(len(vals)) - offsets[q] + 1
    return vals, q, offsets, pos


def ideal_gains(batch, spec):
    """Positive gains of each query's judged docs (grades >= 0), best first: vals, qidx, offsets, pos
    (once per batch and gain: nDCG at every cutoff, nDCGRel, RnDCG and G read the same)."""
    key = ("ideal_positive_gains", spec)  # diversity.py keeps its own ("ideal_gains", level, alpha, depth)
    if key not in batch._cache:
        batch._cache[key] = _ideal_gains_of(batch, spec)
    return batch._cache[key]


def _ideal_gains_of(batch, spec):
    keep = batch.judged_rel > 0 if isinstance(spec, str) else batch.judged_rel >= 0
    q = batch.judged_qidx[keep]
    gains = _gains(batch, batch.judged_rel[keep], q, spec)
    if isinstance(spec, str):
        # linear and exp gains rise with the grade and judged_rel is sorted descending: already ideal
        counts = np.bincount(q, minlength=batch.nq)
        offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
        return gains, q, offsets, np.arange(len(gains)) - offsets[q] + 1
    pos = gains > 0
    return desc_by_query(gains[pos], q[pos], batch.nq)


def gather_prefix(prefix: np.ndarray, offsets: np.ndarray, q: np.ndarray, k: np.ndarray) -> np.ndarray:
    """prefix[offsets[q] + k - 1] where k >= 1, else 0 (the running sum over the first k entries)."""
    out = np.zeros(len(q))
    ok = k >= 1
    if ok.any():
        out[ok] = prefix[offsets[q[ok]] + k[ok] - 1]
    return out


def safe_div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.zeros(len(num))
    np.divide(num, den, out=out, where=den > 0)
    return out


def run_side(batch, spec):
    """The ranks with a nonzero gain, flat: position, query, rank, gain and running DCG there.

    A rank without gain adds 0 to the running DCG, so the running DCG at any
    rank is the one at the last gaining rank above it: visiting only those
    gives the rank-by-rank sums to the bit.
    """
    key = ("run_dcg", spec)
    if key not in batch._cache:
        if isinstance(spec, str):  # linear and exp gains can be nonzero on grades > 0 only: gain those alone
            pos = np.flatnonzero(batch.rel > 0)
            q = batch.query_of(pos)
            g = _gains(batch, batch.rel[pos], q, spec)
            gaining = g != 0
            pos, q, g = pos[gaining], q[gaining], g[gaining]
        else:
            gains = _gains(batch, batch.rel, batch.qidx, spec)
            pos = np.flatnonzero(gains)
            q = batch.query_of(pos)
            g = gains[pos]
        rank = pos - batch.offsets[q] + 1
        batch._cache[key] = pos, q, rank, g, seq_cumsum(discounted(g, rank, "log2"), segment_offsets_of(q, batch.nq))
    return batch._cache[key]


def run_dcg_at(batch, run, q: np.ndarray, k: np.ndarray) -> np.ndarray:
    """The running DCG of queries ``q`` at ranks ``k`` (0 where k < 1)."""
    pos, _, _, _, run_dcg = run
    target = batch.offsets[q] + k - 1
    idx = np.searchsorted(pos, target, side="right") - 1
    ok = (k >= 1) & (idx >= 0)
    ok[ok] = pos[idx[ok]] >= batch.offsets[q[ok]]
    out = np.zeros(len(q))
    out[ok] = run_dcg[idx[ok]]
    return out


def ideal_side(batch, spec):
    """Judged side: ideal gains, their running DCG, offsets; per query Npos (once per batch and gain)."""
    key = ("ideal_side", spec)
    if key not in batch._cache:
        vals, q, offsets, pos = ideal_gains(batch, spec)
        ideal_dcg = seq_cumsum(discounted(vals, pos, "log2"), offsets)
        batch._cache[key] = vals, ideal_dcg, offsets, np.diff(offsets)
    return batch._cache[key]


def segment_offsets_of(q: np.ndarray, nq: int) -> np.ndarray:
    """Offsets (nq + 1) of the segments of a sorted query index array."""
    return np.concatenate(([0], np.cumsum(np.bincount(q, minlength=nq)))).astype(np.int64)
