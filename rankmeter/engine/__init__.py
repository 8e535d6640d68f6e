"""Ordering + join done once, producing the per-query :class:`Batch` all kernels read."""
from .batch import NONPOOL, UNJUDGED, Batch
from .build import QUERY_POLICIES, TIE_POLICIES, BatchInfo, build_batch, warn_missing

__all__ = ["Batch", "BatchInfo", "NONPOOL", "UNJUDGED", "QUERY_POLICIES", "TIE_POLICIES",
           "build_batch", "warn_missing"]
