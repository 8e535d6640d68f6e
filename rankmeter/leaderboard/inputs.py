"""A leaderboard's inputs, read into one shape: per collection, a (queries x measures x systems) block.

Three sources give it:

* a **manifest**, JSON ``{"collections": {NAME: {"qrels": PATH, "runs": {SYSTEM: PATH}}}}`` (paths relative
  to the manifest's folder; a qrels may be an ``irds:`` id), each run scored by the core with the
  evaluation options given (:class:`rankmeter.core.Evaluator`);
* a **per-query table**, ``system, collection, query, measure, value`` (CSV, TSV, Parquet, JSON Lines, a
  pandas DataFrame or an Arrow table);
* a **per-collection table**, ``system, collection, measure, value`` (as MTEB and BEIR publish them): one
  value per cell, so collections are the only level to resample.

Column names are matched without case; ``model``/``run`` are read as ``system``, ``dataset``/``task`` as
``collection``, ``metric`` as ``measure``, ``score`` as ``value``, ``qid``/``query_id`` as ``query``.
Every id is read as text, every value must be a finite number; a cell given twice, a value that is not a
number or not finite is refused with the file and the line (or row) that holds it.
"""
from __future__ import annotations

import os
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from rankmeter.errors import InputError, ParameterError
from rankmeter.core.options import Options, validate_options

__all__ = ["Scores", "read_scores", "from_blocks", "ALIASES"]

#: role -> the column names read as it (lower case)
ALIASES = {"system": ("system", "model", "run"), "collection": ("collection", "dataset", "task"),
           "query": ("query", "qid", "query_id"), "measure": ("measure", "metric"), "value": ("value", "score")}
_SHOWN = 5  # cells named in a refusal


@dataclass
class Scores:
    """What a leaderboard is computed from: ``blocks[c]`` is collection c's (queries x measures x systems) values
    (one row for a per-collection table), finite, every system on every row."""

    systems: list[str]
    collections: list[str]
    measures: list[str]
    blocks: list[np.ndarray]
    queries: list[list[str]]
    per_query: bool
    notes: list[str] = field(default_factory=list)

    @property
    def sizes(self) -> np.ndarray:
        """Queries per collection."""
        return np.array([len(b) for b in self.blocks], dtype=np.int64)

    def collection_means(self) -> np.ndarray:
        """(collections x measures x systems): each collection's mean over its queries."""
        return np.stack([b.mean(axis=0) for b in self.blocks])


# ------------------------------------------------------------------ completing the cells

def from_blocks(systems, collections, measures, queries, blocks, *, per_query: bool, missing: str,
                source: str, scored: bool = False) -> Scores:
    """:class:`Scores` from blocks that may hold NaN (a cell without a value), under ``missing``."""
    if len(systems) < 2:
        raise InputError(f"has {len(systems)} system; a leaderboard needs at least two", source=source)
    absent, partial = [], []  # (collection, measure, system, lacking count)
    for c, block in enumerate(blocks):
        lacking = np.isnan(block).sum(axis=0)  # (measures, systems)
        for m, s in zip(*np.nonzero(lacking)):
            entry = (c, m, s, int(lacking[m, s]))
            (absent if lacking[m, s] == len(block) else partial).append(entry)
    if not absent and not partial:
        return Scores(list(systems), list(collections), list(measures), list(blocks), list(queries), per_query)
    if missing == "refuse":
        cells = []
        for c, m, s, _ in absent[:_SHOWN]:
            cells.append(f"{systems[s]!r} has no {measures[m]} for collection {collections[c]!r}")
        for c, m, s, count in partial[:max(0, _SHOWN - len(cells))]:
            lacks = [queries[c][q] for q in np.flatnonzero(np.isnan(blocks[c][:, m, s]))[:3]]
            cells.append(f"{systems[s]!r} lacks {count} of {len(blocks[c])} queries of {collections[c]!r} "
                         f"({measures[m]}: {', '.join(map(repr, lacks))}{', ...' if count > 3 else ''})")
        more = len(absent) + len(partial) - len(cells)
        raise InputError("missing cells: " + "; ".join(cells) + (f"; and {more} more" if more > 0 else ""),
                         source=source, hint="give every system every collection, or missing='drop' (--missing "
                                             "drop) to compare on the collections and queries all systems have"
                                             + ("; queries='qrels' (--queries qrels) scores a query a run lacks "
                                                "as 0" if scored else ""))
    notes, keep = [], []
    gone = {c: (m, s) for c, m, s, _ in reversed(absent)}
    for c, block in enumerate(blocks):
        if c in gone:
            m, s = gone[c]
            notes.append(f"collection {collections[c]!r} left out: {systems[s]!r} has no {measures[m]} there")
            continue
        rows = ~np.isnan(block).any(axis=(1, 2))
        if not rows.all():
            notes.append(f"collection {collections[c]!r}: {int((~rows).sum())} of {len(block)} queries left out "
                         "(not every system has them)")
        keep.append((collections[c], [q for q, k in zip(queries[c], rows) if k], block[rows]))
    if not keep:
        raise InputError("no collection is left where every system has values (missing='drop')", source=source)
    return Scores(list(systems), [k[0] for k in keep], list(measures), [k[2] for k in keep], [k[1] for k in keep],
                  per_query, notes)


# ------------------------------------------------------------------ tables

def _columns(names: list[str], source: str) -> dict[str, str | None]:
    lower = {n.strip().lower(): n for n in names}
    chosen: dict[str, str | None] = {}
    for role, spellings in ALIASES.items():
        found = [lower[s] for s in spellings if s in lower]
        if len(found) > 1:
            raise InputError(f"columns {', '.join(map(repr, found))} all read as {role!r}; keep one", source=source)
        chosen[role] = found[0] if found else None
    lacking = [r for r in ("system", "collection", "measure", "value") if chosen[r] is None]
    if lacking:
        raise InputError(f"no {', '.join(lacking)} column (columns: {', '.join(map(repr, names))}); expected "
                         "system, collection, [query,] measure, value", source=source)
    return chosen


def _table_format(data: bytes, name: str, input_format: str) -> str:
    if input_format not in ("auto", "trec"):
        return input_format
    if data[:4] == b"PAR1":
        return "parquet"
    suffix = Path(name).suffix.lower()
    if suffix in (".csv", ".tsv", ".jsonl", ".parquet"):
        return suffix[1:]
    first = data.lstrip()[:1]
    if first == b"{":
        return "jsonl"
    head = data.split(b"\n", 1)[0]
    return "tsv" if b"\t" in head and b"," not in head else "csv"


def _arrow_table(data: bytes, name: str, fmt: str):
    import pyarrow as pa

    try:
        if fmt == "parquet":
            import pyarrow.parquet as pq
            return pq.read_table(pa.BufferReader(data)), 0
        if fmt == "jsonl":
            import pyarrow.json as pj
            return pj.read_json(pa.BufferReader(data)), 1
        import pyarrow.csv as pc
        head = data.split(b"\n", 1)[0].decode("utf-8", "replace")
        delimiter = "\t" if fmt == "tsv" else ","
        names = [h.strip() for h in head.split(delimiter)]
        types = {n: pa.string() for n in names}
        table = pc.read_csv(pa.BufferReader(data), parse_options=pc.ParseOptions(delimiter=delimiter),
                            convert_options=pc.ConvertOptions(column_types=types, strings_can_be_null=False))
        return table, 2
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot be read as {fmt}: {str(exc).splitlines()[0]}", source=name) from None


def _where(name: str, first_line: int, row: int) -> dict:
    return {"source": name, "line": row + first_line} if first_line else {"source": name, "row": row}


def _ids(table, column: str, name: str, first_line: int) -> tuple[np.ndarray, list[str]]:
    """Codes (first appearance order) and their texts of an id column."""
    import pyarrow as pa
    import pyarrow.compute as pc

    col = table.column(column)
    if col.null_count:
        row = int(np.flatnonzero(col.is_null().to_numpy(zero_copy_only=False))[0])
        raise InputError(f"{column!r} is empty", **_where(name, first_line, row))
    if not pa.types.is_string(col.type) and not pa.types.is_large_string(col.type):
        try:
            col = pc.cast(col, pa.string())
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            raise InputError(f"column {column!r} ({col.type}) cannot be read as ids", source=name) from None
    encoded = pc.dictionary_encode(col).combine_chunks()
    return encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64), encoded.dictionary.to_pylist()


def _values(table, column: str, name: str, first_line: int) -> np.ndarray:
    import pyarrow as pa
    import pyarrow.compute as pc

    col = table.column(column)
    if col.null_count:
        row = int(np.flatnonzero(col.is_null().to_numpy(zero_copy_only=False))[0])
        raise InputError(f"{column!r} is empty", **_where(name, first_line, row))
    try:
        values = pc.cast(col, pa.float64()).to_numpy(zero_copy_only=False)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        texts = col.to_pylist()
        for row, text in enumerate(texts):
            try:
                float(text)
            except (TypeError, ValueError):
                raise InputError(f"{column!r} is {str(text)[:40]!r}, not a number",
                                 **_where(name, first_line, row)) from None
        raise InputError(f"column {column!r} ({col.type}) is not numeric", source=name) from None
    bad = ~np.isfinite(values)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise InputError(f"{column!r} is {values[row]}, not a finite number (a leaderboard compares finite "
                         "values; leave the row out or give the value)", **_where(name, first_line, row))
    return values


def _from_table(table, name: str, first_line: int, measures, missing: str) -> Scores:
    roles = _columns(list(table.column_names), name)
    if table.num_rows == 0:
        raise InputError("has no rows", source=name)
    sys_code, systems = _ids(table, roles["system"], name, first_line)
    col_code, collections = _ids(table, roles["collection"], name, first_line)
    mea_code, measure_names = _ids(table, roles["measure"], name, first_line)
    values = _values(table, roles["value"], name, first_line)
    per_query = roles["query"] is not None
    if per_query:
        q_code, query_names = _ids(table, roles["query"], name, first_line)
        key = col_code * len(query_names) + q_code
        if len(collections) * len(query_names) <= max(4 * len(key), 1 << 20):  # a dense map: no sort
            present = np.zeros(len(collections) * len(query_names), dtype=bool)
            present[key] = True
            pairs = np.flatnonzero(present)
            cq = (np.cumsum(present) - 1)[key]
        else:
            pairs, cq = np.unique(key, return_inverse=True)
        cq_collection = pairs // len(query_names)
        cq_query = [query_names[i] for i in pairs % len(query_names)]
    else:
        cq, cq_collection, cq_query = col_code, np.arange(len(collections)), [""] * len(collections)
    wanted = list(range(len(measure_names)))
    if measures is not None:
        unknown = [m for m in measures if m not in measure_names]
        if unknown:
            raise ParameterError(f"measures {', '.join(map(repr, unknown))} are not in {name} (it has: "
                                 f"{', '.join(map(repr, measure_names))})")
        wanted = [measure_names.index(m) for m in measures]
    remap = np.full(len(measure_names), -1)
    remap[wanted] = np.arange(len(wanted))
    n_cq, n_m, n_s = len(cq_collection), len(wanted), len(systems)
    cells = n_m * n_cq * n_s
    if cells > 16 * len(values) + (1 << 20):  # memory bounded: a leaderboard's table is (nearly) full
        raise InputError(f"{n_s} systems x {n_cq} {'(collection, query) pairs' if per_query else 'collections'} x "
                         f"{n_m} measures make {cells:,} cells for {len(values):,} rows: most systems lack most of "
                         "them; a leaderboard compares systems on the same cells", source=name)
    if n_m == len(measure_names):  # every row kept (gathering 4 million rows costs more than the rest)
        rows = np.arange(len(values))
        flat = (remap[mea_code] * n_cq + cq) * n_s + sys_code
    else:
        rows = np.flatnonzero(remap[mea_code] >= 0)
        flat = (remap[mea_code[rows]] * n_cq + cq[rows]) * n_s + sys_code[rows]
    counts = np.bincount(flat, minlength=n_m * n_cq * n_s)
    if (counts > 1).any():
        twice = np.flatnonzero(counts[flat] > 1)[:2]
        r = rows[twice[0]]
        what = (f"system {systems[sys_code[r]]!r}, collection {collections[col_code[r]]!r}"
                + (f", query {cq_query[cq[r]]!r}" if per_query else "") + f", measure {measure_names[mea_code[r]]!r}")
        lines = [int(rows[t]) + first_line for t in twice] if first_line else None
        raise InputError(f"{what} is given twice", source=name, line=lines,
                         row=None if first_line else [int(rows[t]) for t in twice])
    cube = np.full(n_m * n_cq * n_s, np.nan)
    cube[flat] = values if n_m == len(measure_names) else values[rows]
    cube = cube.reshape(n_m, n_cq, n_s)
    blocks, queries = [], []
    for c in range(len(collections)):
        members = np.flatnonzero(cq_collection == c)
        blocks.append(np.ascontiguousarray(cube[:, members, :].transpose(1, 0, 2)))
        queries.append([cq_query[i] for i in members])
    return from_blocks(systems, collections, [measure_names[i] for i in wanted], queries, blocks,
                       per_query=per_query, missing=missing, source=name)


# ------------------------------------------------------------------ manifests

def _manifest(obj, name: str, base: Path) -> dict[str, tuple[str, dict[str, str]]]:
    """{collection: (qrels, {system: run path})} of a manifest, every part checked."""
    if not isinstance(obj, Mapping) or not isinstance(obj.get("collections"), Mapping) or not obj["collections"]:
        raise InputError('expected {"collections": {NAME: {"qrels": PATH, "runs": {SYSTEM: PATH}}}}', source=name)
    out = {}
    for collection, entry in obj["collections"].items():
        where = f"collections.{collection}"
        if not isinstance(entry, Mapping):
            raise InputError(f"{where}: expected an object with qrels and runs", source=name)
        qrels, runs = entry.get("qrels"), entry.get("runs")
        if not isinstance(qrels, str) or not qrels:
            raise InputError(f"{where}.qrels: expected a path or an irds: id", source=name)
        if not isinstance(runs, Mapping) or not runs:
            raise InputError(f"{where}.runs: expected {{SYSTEM: PATH}}", source=name)
        for system, path in runs.items():
            if not isinstance(path, str) or not path:
                raise InputError(f"{where}.runs.{system}: expected a path", source=name)
        unknown = set(entry) - {"qrels", "runs"}
        if unknown:
            raise InputError(f"{where}: unknown field {sorted(unknown)[0]!r} (fields: qrels, runs)", source=name)

        def resolve(path: str) -> str:
            return path if path.startswith("irds:") or os.path.isabs(path) else str(base / path)
        out[str(collection)] = (resolve(qrels), {str(s): resolve(p) for s, p in runs.items()})
    return out


def _score_manifest(manifest, name: str, measures, options, missing: str) -> Scores:
    from rankmeter.core import Evaluator
    from rankmeter.io.canonical import decode_id
    from rankmeter.measures.aggregation import TEXT

    if not measures:
        raise ParameterError("a manifest is scored: give the measures (e.g. measures=['nDCG@10'], -m nDCG@10)")
    systems = list(dict.fromkeys(s for _, runs in manifest.values() for s in runs))
    labels, blocks, queries = None, [], []
    for collection, (qrels, runs) in manifest.items():
        evaluator = Evaluator.of(qrels, measures, options)
        names = list(dict(evaluator.names).items())
        if labels is None:
            labels = [label for label, _ in names]
            for label, m in names:
                if m.family.value_type is TEXT:
                    raise ParameterError(f"{label} is a text value and cannot be ranked; choose numeric measures")
        scored = {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a run lacking queries is a missing cell, named below
            for system, path in runs.items():
                scored[system] = evaluator.evaluate(path)
        universe = list(dict.fromkeys(q for r in scored.values() for q in r.query_ids(order="bytes")))
        where = {q: i for i, q in enumerate(universe)}
        block = np.full((len(universe), len(labels), len(systems)), np.nan)
        for system, results in scored.items():
            rows = [where[q] for q in results.query_ids(order="bytes")]
            for m, (label, measure) in enumerate(names):
                block[rows, m, systems.index(system)] = results.values(measure, order="bytes")
        blocks.append(block)
        queries.append([decode_id(q) for q in universe])
    return from_blocks(systems, list(manifest), labels, queries, blocks, per_query=True, missing=missing,
                       source=name, scored=True)


# ------------------------------------------------------------------ the one entry

def read_scores(source, measures=None, *, missing: str = "refuse", options: Options | None = None) -> Scores:
    """:class:`Scores` from a manifest (path or dict), a table file, a pandas DataFrame or an Arrow table; a
    manifest's runs are scored under ``options`` (the defaults when None)."""
    if options is None:
        options = validate_options()
    measures = [measures] if isinstance(measures, str) else None if measures is None else [str(m) for m in measures]
    if isinstance(source, Mapping):
        return _score_manifest(_manifest(source, "<manifest>", Path.cwd()), "<manifest>", measures, options, missing)
    if type(source).__module__.startswith("pandas"):
        import pyarrow as pa
        try:
            table = pa.Table.from_pandas(source, preserve_index=False)
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError) as exc:
            raise InputError(f"cannot be read: {exc}", source="<DataFrame>") from None
        return _from_table(table, "<DataFrame>", 0, measures, missing)
    if type(source).__module__.startswith("pyarrow"):
        return _from_table(source, "<Arrow table>", 0, measures, missing)
    if not isinstance(source, (str, os.PathLike)):
        raise ParameterError(f"source: expected a manifest, a table file or a DataFrame, got {type(source).__name__}")
    from rankmeter.io.source import load_bytes

    data, name = load_bytes(source)
    fmt = _table_format(data, name, getattr(options, "input_format", "auto"))
    if fmt == "jsonl" or data.lstrip()[:1] == b"{":
        from rankmeter.io.structured import parse_json
        # one reader: a key twice, NaN, deep nesting, bytes that are not UTF-8 are an InputError naming the field
        obj = parse_json(data, source=name, none_if_not_json=True)  # None: JSON Lines, one object per line
        if isinstance(obj, Mapping) and "collections" in obj:
            return _score_manifest(_manifest(obj, name, Path(os.fspath(source)).resolve().parent), name, measures,
                                   options, missing)
        fmt = "jsonl"
    table, first_line = _arrow_table(data, name, fmt)
    return _from_table(table, name, first_line, measures, missing)

