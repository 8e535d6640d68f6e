"""Run-file utilities: filter, re-tag, merge and sample runs, and write one as TREC, Parquet or JSON Lines
(API and ``rankmeter run``).

Every function takes any run input and returns a :class:`~rankmeter.io.canonical.Run` with its rows as
given; :func:`write_rows` numbers ranks by row order. Putting a run in rank order (and cutting it) is the
core's (:mod:`rankmeter.core.ranked_runs`: ``rerank``, ``cut``, ``write_run``).

>>> r = retag(merge([{"q1": {"a": 1.0}}, {"q2": {"x": 1.0}}]), "both")
>>> r.name, [q.decode() for q in r.table.column("query").to_pylist()]
('both', ['q1', 'q2'])
"""
from __future__ import annotations

import os
from collections.abc import Iterable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from rankmeter.engine.groups import query_starts
from rankmeter.engine.param import SEED, Param, validate_params
from rankmeter.errors import ParameterError
from rankmeter.io import as_qrels, as_run
from rankmeter.io.canonical import Run, encode_id

__all__ = ["filter_queries", "retag", "merge", "sample", "write_rows", "N"]

#: how many queries :func:`sample` draws (``rankmeter run sample -n N``)
N = Param("n", "integer", 50, "sample: number of queries", low=1)


def filter_queries(run, *, keep: Iterable | None = None, qrels=None, drop: Iterable | None = None) -> Run:
    """Only the queries in ``keep`` (or judged in ``qrels``), without those in ``drop``."""
    run = as_run(run)
    query = run.table.column("query")
    mask = np.ones(len(run), dtype=bool)
    if keep is not None:
        absent = pc.filter(pa.array([encode_id(q) for q in keep], pa.binary()),
                           pc.invert(pc.is_in(pa.array([encode_id(q) for q in keep], pa.binary()), value_set=query)))
        if len(absent):
            from rankmeter.io.canonical import decode_id
            shown = ", ".join(decode_id(q)[:60] for q in absent.to_pylist()[:5])
            raise ParameterError(f"keep: {run.source} has no query {shown}{' ...' if len(absent) > 5 else ''}; "
                                 f"check the ids (the run has {len(pc.unique(query))} queries)")
    if keep is not None or qrels is not None:
        wanted = [encode_id(q) for q in (keep or [])]
        if qrels is not None:
            wanted += pc.unique(as_qrels(qrels).table.column("query")).to_pylist()
        mask &= pc.is_in(query, value_set=pa.array(wanted, pa.binary())).to_numpy(zero_copy_only=False)
    if drop is not None:
        unwanted = pa.array([encode_id(q) for q in drop], pa.binary())
        mask &= ~pc.is_in(query, value_set=unwanted).to_numpy(zero_copy_only=False)
    rows = np.flatnonzero(mask)
    lines = None if run.lines is None else run.lines[rows]
    return Run(run.table.take(pa.array(rows)), run.source, lines, origin=run.origin, tag=run.tag, ranked=run.ranked)


def retag(run, tag: str) -> Run:
    """The run with another run tag."""
    run = as_run(run)
    return Run(run.table, run.source, run.lines, origin=run.origin, tag=encode_id(tag), ranked=run.ranked)


def merge(runs, *, tag: str | None = None) -> Run:
    """Runs for different query sets as one run; a query in two runs is an error naming it."""
    loaded = [as_run(r) for r in runs]
    if not loaded:
        raise ParameterError("merge needs at least one run")
    seen: dict[bytes, int] = {}
    for i, r in enumerate(loaded):
        for q in pc.unique(r.table.column("query")).to_pylist():
            if q in seen:
                raise ParameterError(f"query {q.decode(errors='replace')} is in run {seen[q] + 1} and run {i + 1}; "
                                     "merge joins runs of different queries (use fuse to combine rankings)")
            seen[q] = i
    table = pa.concat_tables([r.table.select(["query", "doc", "score"]) for r in loaded])
    return Run(table, "<merged>", tag=encode_id(tag) if tag else loaded[0].tag, ranked=loaded[0].ranked)


@validate_params(N, SEED)
def sample(run, n: int, *, seed: int = 0) -> Run:
    """``n`` of the run's queries drawn at random (reproducible with ``seed``), all their rows."""
    run = as_run(run)
    queries = sorted(pc.unique(run.table.column("query")).to_pylist())
    if n > len(queries):
        raise ParameterError(f"n={n!r}: expected an integer in [1, {len(queries)}] (the run has {len(queries)} "
                             "queries)")
    chosen = np.random.default_rng(seed).choice(len(queries), n, replace=False)
    return filter_queries(run, keep=[queries[i] for i in sorted(chosen)])


def write_rows(run: Run, path, *, inputs=(), format: str | None = None) -> None:
    """Write ``run``'s rows as TREC, Parquet or JSON Lines (by ``format``, else the suffix), ranks numbered
    1, 2, ... in row order within each query: give a run in rank order
    (:func:`rankmeter.core.ranked_runs.write_run` ranks any run first). ``inputs``: files never written over."""
    from rankmeter.io.output import output_file

    suffix = os.fspath(path).lower().rsplit(".", 1)[-1] if "." in os.fspath(path) else ""
    kind = format or {"parquet": "parquet", "jsonl": "jsonl", "ndjson": "jsonl"}.get(suffix, "trec")
    table = run.table
    starts = query_starts(table.column("query"))
    rank = np.arange(len(table)) - np.repeat(starts, np.diff(np.append(starts, len(table)))) + 1
    tag = run.name or "rankmeter"
    if kind == "trec":
        _write_trec(table, rank, tag, path, inputs)
        return
    if kind == "parquet":
        import pyarrow.parquet as pq
        # ids as text where they are UTF-8, else as the very bytes (Parquet's binary columns; rankmeter
        # reads either back to the same ids)
        columns = {"query": _text_or_bytes(table.column("query")), "doc": _text_or_bytes(table.column("doc")),
                   "rank": pa.array(rank), "score": table.column("score"),
                   "tag": _text_or_bytes(pa.array([tag.encode("utf-8", "surrogateescape")] * len(table),
                                                  pa.binary()))}
        with output_file(path, inputs=inputs, mode="wb") as out:
            pq.write_table(pa.table(columns), out)
        return
    for role in ("query", "doc"):  # JSON holds text only: an id that is not UTF-8 cannot be written
        _refuse_non_utf8(table.column(role), role, "JSON Lines")
    queries = [q.decode("utf-8") for q in table.column("query").to_pylist()]
    docs = [d.decode("utf-8") for d in table.column("doc").to_pylist()]
    scores = table.column("score").to_pylist()
    with output_file(path, inputs=inputs) as out:
        import json
        out.writelines(json.dumps({"query_id": q, "doc_id": d, "rank": int(r), "score": s}) + "\n"
                       for q, d, r, s in zip(queries, docs, rank, scores))


def _text_or_bytes(ids):
    """Binary ids as a string column when every one is UTF-8, else unchanged (binary)."""
    try:
        return ids.cast(pa.string())
    except (pa.ArrowInvalid, UnicodeDecodeError):
        return ids


def _refuse_non_utf8(ids, role: str, what: str) -> None:
    try:
        ids.cast(pa.string())
    except (pa.ArrowInvalid, UnicodeDecodeError):
        from rankmeter.errors import shown_id
        bad = next(v for v in ids.to_pylist() if not _is_utf8(v))
        raise ParameterError(f"the {role} id {shown_id(bad)} is not UTF-8 text, which {what} cannot hold; "
                             "write TREC or Parquet, which keep the bytes") from None


def _is_utf8(value: bytes) -> bool:
    try:
        value.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _score_text(scores) -> pa.Array:
    """Shortest round-trip text of each score, whole numbers with ".0" (3.0, not 3) as Python prints them."""
    text = pc.cast(scores, pa.string())
    whole = pc.invert(pc.match_substring_regex(text, "[.eEn]"))
    return pc.if_else(whole, pc.binary_join_element_wise(text, pa.scalar(".0"), pa.scalar("")), text)


#: what a TREC field cannot hold: the reader splits on ASCII whitespace (trec_eval's isspace) and
#: refuses a NUL byte; an empty field vanishes
_NOT_IN_A_FIELD = np.zeros(256, dtype=bool)
_NOT_IN_A_FIELD[list(b" \t\n\r\v\f\x00")] = True
#: rows joined into text at a time (bounded memory on any run)
_TREC_ROWS = 1 << 20


def _first_unwritable(ids, query: bool) -> int:
    """The row of the first id a TREC field cannot hold (-1: none), on the ids' bytes in numpy."""
    if isinstance(ids, pa.ChunkedArray):
        ids = ids.combine_chunks()
    ids = ids.cast(pa.large_binary())
    offsets = np.frombuffer(ids.buffers()[1], dtype=np.int64, count=len(ids) + 1, offset=8 * ids.offset)
    data = np.frombuffer(ids.buffers()[2] or b"", dtype=np.uint8)[offsets[0]:offsets[-1]]
    offsets = offsets - offsets[0]
    bad = np.diff(offsets) == 0
    hits = np.flatnonzero(_NOT_IN_A_FIELD[data])
    if len(hits):
        bad[np.searchsorted(offsets, hits, side="right") - 1] = True
    if query:
        starts = offsets[:-1][~bad]
        bad[np.flatnonzero(~bad)[data[starts] == ord("#")]] = True
    found = np.flatnonzero(bad)
    return int(found[0]) if len(found) else -1


def _refuse_unwritable_ids(table, tag: str, path) -> None:
    """Refuse, before anything is written, an id or tag the TREC format cannot hold: whitespace, a NUL,
    an empty id, or a query id starting with ``#`` (a comment line to every reader). A quote is fine."""
    from rankmeter.errors import shown_id
    from rankmeter.io.output import OutputError

    for role in ("query", "doc"):
        row = _first_unwritable(table.column(role), role == "query")
        if row >= 0:
            value = table.column(role)[row].as_py()
            why = ("starts with #, which reads back as a comment line" if value[:1] == b"#" else
                   "is empty" if not value else "holds a blank, a line end or a NUL byte")
            raise OutputError(f"{os.fspath(path)}: the {role} id {shown_id(value)} {why}, which a TREC run cannot "
                              "hold; write .parquet or .jsonl instead (nothing was written)")
    encoded = tag.encode("utf-8", "surrogateescape")
    if not encoded or _NOT_IN_A_FIELD[np.frombuffer(encoded, dtype=np.uint8)].any():
        raise OutputError(f"{os.fspath(path)}: the run tag '{shown_id(tag)}' is empty or holds a blank, a line end "
                          "or a NUL byte, which a TREC run cannot hold; choose another with --tag (nothing was "
                          "written)")


def _write_trec(table, rank: np.ndarray, tag: str, path, inputs) -> None:
    """``query Q0 doc rank score tag`` lines joined by Arrow (no Python loop per line), written a block
    of rows at a time; ids written byte for byte (a quote too), scores in the shortest text that reads
    back as the same double. An id the format cannot hold is refused before anything is written."""
    from rankmeter.io.output import output_file

    _refuse_unwritable_ids(table, tag, path)
    # 32-bit offsets while a block's text surely fits them (casting to 64-bit ones costs a copy)
    text = pa.binary() if table.nbytes + 80 * min(table.num_rows, _TREC_ROWS) < (1 << 30) else pa.large_binary()
    width = 4 if text == pa.binary() else 8
    q0, tail, blank = (pa.scalar(b, text) for b in (b"Q0", tag.encode("utf-8", "surrogateescape") + b"\n", b" "))
    with output_file(path, inputs=inputs, mode="wb") as out:
        for start in range(0, table.num_rows, _TREC_ROWS):
            part = table.slice(start, _TREC_ROWS)
            n = part.num_rows
            ranks = pc.cast(pa.array(rank[start:start + n]), pa.string())
            fields = [part.column("query"), q0, part.column("doc"), ranks, _score_text(part.column("score")), tail]
            lines = pc.binary_join_element_wise(*[f if isinstance(f, pa.Scalar) else pc.cast(f, text) for f in fields],
                                                blank)
            if isinstance(lines, pa.ChunkedArray):
                lines = lines.combine_chunks()
            offsets = np.frombuffer(lines.buffers()[1], dtype=np.int32 if width == 4 else np.int64,
                                    count=len(lines) + 1, offset=width * lines.offset)
            out.write(memoryview(lines.buffers()[2])[int(offsets[0]):int(offsets[-1])])
