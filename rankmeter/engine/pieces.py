"""Large run files in query-aligned pieces, scored on every core.

A run file is usually grouped by query. Cut at query boundaries, each piece
holds whole queries, so reading, ordering, joining and the kernels run on the
pieces independently (two threads keep both cores busy: Arrow's parser and
numpy release the GIL) and per-query values are exactly those of the whole
file. Memory stays bounded by the pieces in flight instead of the whole run.

Anything unusual — a file too small to be worth it, a query split across
pieces (the file is not grouped), any input error — returns None and the
caller takes the whole-file path, which then reports errors with the exact
file and line.
"""
from __future__ import annotations

import io
import mmap
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import RankmeterError
from ..tables import Qrels, Run
from .build import BatchInfo, build_batch

__all__ = ["PiecewiseResult", "score_run_file", "query_aligned_cuts"]

#: A file smaller than this is read whole.
MIN_BYTES = 48 << 20


@dataclass
class PiecewiseResult:
    queries: list[bytes]
    values: dict
    info: BatchInfo
    tag: bytes
    source: str


def _query_of(line: bytes) -> bytes:
    fields = line.split(None, 1)
    return fields[0] if fields else b""


def query_aligned_cuts(data: bytes, piece_bytes: int) -> list[int]:
    """Byte offsets cutting ``data`` into pieces of about ``piece_bytes``, each at a line where the query changes."""
    cuts = [0]
    pos = piece_bytes
    while pos < len(data):
        start = data.find(b"\n", pos) + 1
        if start <= 0 or start >= len(data):
            break
        end = data.find(b"\n", start)
        query = _query_of(data[start: end if end >= 0 else len(data)])
        # walk forward to the first line of another query (a few hundred lines at most)
        while True:
            nxt = data.find(b"\n", start)
            if nxt < 0:
                start = len(data)
                break
            line_end = data.find(b"\n", nxt + 1)
            line = data[nxt + 1: line_end if line_end >= 0 else len(data)]
            start = nxt + 1
            if line.strip() and _query_of(line) != query:
                break
        if start >= len(data):
            break
        if start > cuts[-1]:
            cuts.append(start)
        pos = start + piece_bytes
    cuts.append(len(data))
    return cuts


def _score_piece(piece: bytes, qrels: Qrels, measures, *, max_docs, ties, rel, judged_only, top):
    from ..api import compute_all
    from ..io.trec import read_run

    run = read_run(io.BytesIO(piece))
    run_queries = pc.unique(run.table.column("query"))
    mask = pc.is_in(qrels.table.column("query"), value_set=run_queries)
    sub = Qrels(qrels.table.filter(mask), qrels.source)
    batch, info = build_batch(sub, run, queries="both", max_docs=max_docs, ties=ties, qrels_max_grade=top)
    return batch.queries, compute_all(batch, measures, rel=rel, judged_only=judged_only), run.tag, \
        set(run_queries.to_pylist())


def score_run_file(qrels: Qrels, path, measures, *, queries: str = "both", rel: int = 1,
                   judged_only: bool = False, max_docs: int | None = None, ties: str = "trec_eval",
                   threads: int | None = None, piece_bytes: int = 24 << 20) -> PiecewiseResult | None:
    """Score a run file piece by piece, or return None when the whole-file path must be taken."""
    from ..api import compute_all
    from ..io.source import load_bytes

    if not isinstance(path, (str, os.PathLike)) or os.fspath(path) == "-":
        return None
    try:
        if os.path.getsize(path) < MIN_BYTES:
            return None
        with open(path, "rb") as fh:
            if fh.read(2) == b"\x1f\x8b":
                data, name = load_bytes(path)  # gzip: decompressed whole
            else:
                # Mapped, not read: each piece is copied out once, so the whole text never sits in memory twice.
                data, name = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ), os.fspath(path)
    except (OSError, ValueError, RankmeterError):
        return None
    cuts = query_aligned_cuts(data, piece_bytes)
    if len(cuts) < 3:
        return None
    top = max(int(np.max(qrels.table.column("rel").to_numpy(), initial=0)), 0)
    spans = list(zip(cuts[:-1], cuts[1:]))
    workers = threads or min(2, os.cpu_count() or 1)
    try:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            parts = list(pool.map(lambda span: _score_piece(data[span[0]:span[1]], qrels, measures,
                                                            max_docs=max_docs, ties=ties, rel=rel,
                                                            judged_only=judged_only, top=top), spans))
    except RankmeterError:
        return None
    finally:
        if isinstance(data, mmap.mmap):
            data.close()
    seen: set[bytes] = set()
    for _, _, _, piece_queries in parts:
        if seen & piece_queries:
            return None  # a query in two pieces: the file is not grouped by query
        seen |= piece_queries
    judged = set(pc.unique(qrels.table.column("query")).to_pylist())
    names = [q for p in parts for q in p[0]]
    values = {m: np.concatenate([p[1][m] for p in parts]) for m in measures}
    missing = sorted(judged - seen)
    if queries == "qrels" and missing:
        mask = pc.is_in(qrels.table.column("query"), value_set=pa.array(missing, pa.binary()))
        empty = Run(pa.table({"query": pa.array([], pa.binary()), "doc": pa.array([], pa.binary()),
                              "score": pa.array([], pa.float64())}), name)
        batch, _ = build_batch(Qrels(qrels.table.filter(mask), qrels.source), empty, queries="qrels",
                               qrels_max_grade=top)
        extra = compute_all(batch, measures, rel=rel, judged_only=judged_only)
        names += batch.queries
        values = {m: np.concatenate([values[m], extra[m]]) for m in measures}
    order = sorted(range(len(names)), key=names.__getitem__)
    index = np.asarray(order, dtype=np.int64)
    info = BatchInfo(missing_from_run=tuple(missing), only_in_run=tuple(sorted(seen - judged)))
    return PiecewiseResult([names[i] for i in order], {m: v[index] for m, v in values.items()},
                           info, parts[-1][2], name)

