"""Small pieces the families' explain hooks share.

An explain hook (``Family.explain``) gets a batch holding one query and the
measure with ``rel`` filled in, and returns :class:`~rankmeter.measures.base.ExplainParts`:
its per-rank columns and the formula written out with its numbers. Hooks read
the same batch arrays as the kernels (``batch.is_rel``, the kernels' own gain
functions), so what they show agrees with the value by construction; the value
printed beside them is always the kernel's.
"""
from __future__ import annotations

import numpy as np

__all__ = ["fmt_number", "explained_depth", "relevant_in_top"]


def fmt_number(x: float, digits: int = 4) -> str:
    """A number the way a person writes it: 31, 1.585, 0.8296."""
    if abs(x - round(x)) < 1e-9:
        return str(int(round(x)))
    return f"{x:.{digits}f}".rstrip("0")


def explained_depth(batch, m) -> int:
    """How many ranks the measure reads: its integer cutoff, or the whole ranking."""
    k = m.cutoff
    n = len(batch.rel)
    return n if k is None or not isinstance(k, int) else min(int(k), n)


def relevant_in_top(batch, m, level: int) -> np.ndarray:
    """The kernel's relevance test (grade >= level, unjudged never) over the ranks the measure reads."""
    return batch.is_rel(level)[:explained_depth(batch, m)]
