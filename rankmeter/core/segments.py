"""Flat arrays cut into per-query segments by offsets: the layout of every batch and judgment table."""
from __future__ import annotations

import numpy as np

__all__ = ["segment_offsets", "gather_segments"]


def segment_offsets(counts: np.ndarray) -> np.ndarray:
    """Offsets (n + 1, int64) of consecutive segments with these lengths."""
    return np.concatenate(([0], np.cumsum(counts))).astype(np.int64)


def gather_segments(offsets: np.ndarray, which: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row indices of segments ``which`` (in that order) and their new offsets."""
    lo = offsets[which]
    counts = offsets[which + 1] - lo
    new = segment_offsets(counts)
    rows = np.repeat(lo - new[:-1], counts) + np.arange(int(new[-1]))
    return rows, new
