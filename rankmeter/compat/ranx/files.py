"""ranx's files: which kind a path is, reading its JSON, TREC, lz4, gzip and parquet files and frames, and
writing them through rankmeter's guarded writer (what :mod:`~rankmeter.compat.ranx.data`'s ``Qrels`` and
``Run`` read and save).
"""
from __future__ import annotations

import json
import os

from rankmeter.compat.ranx.errors import InputFileNotFound, InputKeyError, ParameterAssertion
from rankmeter.errors import InputError, ParameterError

__all__ = ["file_kind", "get_file_kind", "trec_dict", "readable", "read_json", "frame_dict", "lz4_file",
           "write_guarded", "save_file", "require_local", "table_dict"]

_KINDS = {"qrels": ("json", "trec", "gz", "parquet"), "run": ("json", "trec", "lz4", "gz", "parquet")}


def file_kind(path, kind: str | None, what: str) -> str:
    """ranx's rule: the extension (``.txt`` is trec, ``.parq`` parquet) unless ``kind`` is given."""
    if kind is None:
        kind = os.path.splitext(os.fspath(path))[1][1:]
        kind = {"txt": "trec", "parq": "parquet"}.get(kind, kind)
    if kind not in _KINDS[what]:
        raise ParameterAssertion(f"kind={kind!r} ({os.fspath(path)}): a ranx {what} file is one of "
                             f"{', '.join(_KINDS[what])}; pass kind= for another extension")
    return kind


def get_file_kind(path: str = "run.json", kind: str | None = None) -> str:
    """ranx's ``get_file_kind``: ``json``, ``trec`` (``.txt`` too), ``lz4``, ``gz`` or ``parquet`` (``.parq``)."""
    return file_kind(path, kind, "run")


def trec_dict(path, what: str) -> tuple[dict, str | None]:
    """A TREC qrels or run file (gzipped too) read by rankmeter's reader: ``{q: {doc: value}}`` (a doc given twice
    keeps its last line's value, as ranx's dict does) and, for a run, the tag of its last line."""
    import rankmeter.io as io
    readable(path)
    if what == "run":
        read = io.read_run(path, input_format="trec")
        tag = read.tag.decode("utf-8", "surrogateescape") if isinstance(read.tag, bytes) else read.tag
        return table_dict(read.table, "score"), tag
    return table_dict(io.read_qrels(path, input_format="trec").table, "rel"), None


def readable(path) -> None:
    """Refuse a missing file in one line; note the file as an input (``save`` never writes over it)."""
    from rankmeter.io.inputs import record_input
    if not os.path.isfile(path):
        raise InputFileNotFound("no such file" if not os.path.exists(path) else "not a file", source=os.fspath(path))
    record_input(path)


def read_json(path, what: str = "run") -> dict:
    """A ranx JSON file (``{q_id: {doc_id: number}}``, as ranx's ``save`` writes it) read by rankmeter's one JSON
    reader: UTF-8, no key twice, finite numbers, bounded size and nesting, each field of its type."""
    from rankmeter.io.schema import MapOf, Num
    from rankmeter.io.structured import read_json as read_structured
    readable(path)
    schema = MapOf(MapOf(Num()))
    return read_structured(path, schema, what=f"the ranx {what} file",
                           hint=f"a ranx {what} JSON file is {{\"q_id\": {{\"doc_id\": "
                                f"{'grade' if what == 'qrels' else 'score'}, ...}}, ...}}")


def frame_dict(df, q_id_col, doc_id_col, score_col) -> dict:
    missing = [c for c in (q_id_col, doc_id_col, score_col) if c not in getattr(df, "columns", ())]
    if missing:
        raise InputKeyError(f"no column {missing[0]!r} (columns: {', '.join(map(str, getattr(df, 'columns', [])))}); "
                            "name the columns with q_id_col=, doc_id_col=, score_col=", source="<DataFrame>")
    out: dict = {}
    for q, d, s in zip(df[q_id_col].tolist(), df[doc_id_col].tolist(), df[score_col].tolist()):
        out.setdefault(q, {})[d] = s
    return out


def lz4_file(path, content=None):
    try:
        import cbor2
        import lz4.frame
    except ImportError:
        raise ParameterError("lz4 files need the lz4 and cbor2 packages: pip install lz4 cbor2") from None
    if content is None:
        readable(path)
        with lz4.frame.open(path, mode="r") as f:
            return cbor2.loads(lz4.frame.decompress(f.read()))
    with lz4.frame.open(path, mode="wb") as f:  # path: the guarded writer's open file
        f.write(lz4.frame.compress(cbor2.dumps(content), compression_level=16))


def write_guarded(path, write, binary: bool = False) -> None:
    """Write ``path`` through rankmeter's guarded writer (never over an input, never half a file)."""
    from rankmeter.io.output import output_file
    with output_file(path, mode="wb" if binary else "w") as f:
        write(f)


def save_file(data, path, kind: str) -> None:
    """``data.save``: a ranx Qrels or Run written as ``kind``, through the guarded writer."""
    if kind == "json":
        write_guarded(path, lambda f: json.dump(data.to_dict(), f, indent=2))
    elif kind == "parquet":
        write_guarded(path, lambda f: data.to_dataframe().to_parquet(f, index=False), binary=True)
    elif kind == "lz4":
        write_guarded(path, lambda f: lz4_file(f, data.to_dict()), binary=True)
    elif data._what == "qrels":
        data._write_trec(path, lambda q, _, d, g: f"{q} 0 {d} {g}")
    else:
        data._write_trec(path, lambda q, rank, d, s: f"{q} Q0 {d} {rank + 1} {s} {data.name}")


def require_local(dataset_id: str) -> None:
    """Refuse a dataset whose qrels file is not on this machine (ir_datasets would download it)."""
    try:
        import ir_datasets
    except ImportError:
        raise ImportError('Qrels.from_ir_datasets needs ir_datasets: pip install ir_datasets') from None
    try:
        handler = ir_datasets.load(dataset_id).qrels_handler()
    except (KeyError, AttributeError, NotImplementedError):
        return  # unknown ids and datasets without qrels get irds_qrels' own message
    sources = getattr(handler, "_qrels_dlc", None)
    sources = sources if isinstance(sources, list) else [sources]
    paths = [dlc.path(force=False) if hasattr(dlc, "path") else None for dlc in sources]
    if not paths or any(p is None or not os.path.exists(p) for p in paths):
        raise InputError("this dataset's qrels are not on this machine, and rankmeter does not download: fetch "
                         f"them once with ir_datasets (`ir_datasets export {dataset_id} qrels`), then call again",
                         source=f"irds:{dataset_id}")


def table_dict(table, value: str) -> dict:
    from rankmeter.io.canonical import decode_id
    out: dict = {}
    for q, d, v in zip(table.column("query").to_pylist(), table.column("doc").to_pylist(),
                       table.column(value).to_pylist()):
        out.setdefault(decode_id(q), {})[decode_id(d)] = v
    return out
