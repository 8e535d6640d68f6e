"""ranx's ``Qrels`` and ``Run``: the same constructors, files and attributes, held as plain dicts.

A ``Run`` keeps each query's docs by score descending and its queries sorted, as ranx keeps them
(so ``to_dict`` and ``save`` write what ranx writes); ``.scores`` / ``.mean_scores`` are filled by
:func:`~rankmeter.compat.ranx.evaluate`. Docs with equal scores are in the order ranx's sort
(numba's quicksort, not stable) leaves them, reproduced by :mod:`rankmeter.compat.ranx.ties`, so
ties are scored as ranx scores them.

>>> run = Run({"q2": {"a": 0.1, "b": 0.9}, "q1": {"c": 1.0}}, name="bm25")
>>> dict(run.to_dict()), run.name, len(run)
({'q1': {'c': 1.0}, 'q2': {'b': 0.9, 'a': 0.1}}, 'bm25', 2)
"""
from __future__ import annotations

import gzip
import json
import os
from collections import defaultdict

from rankmeter.compat.ranx.errors import (InputFileNotFound, InputKeyError, InputTypeError,
                                          ParameterAssertion)
from rankmeter.errors import InputError, ParameterError

__all__ = ["Qrels", "Run", "file_kind", "get_file_kind"]

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


def _sorted(d: dict, value, what: str = "run") -> dict:
    """Queries sorted by id, each query's docs by value descending, tied docs in ranx's order (:mod:`.ties`)."""
    from rankmeter.compat.ranx.ties import order
    if not hasattr(d, "items"):
        raise InputTypeError(f"a ranx {what} is a dict {{q_id: {{doc_id: value}}}}; got {type(d).__name__}")
    out: dict = {}
    try:
        for q, docs in sorted(((str(q), docs) for q, docs in d.items()), key=lambda kv: kv[0]):
            items = [(str(doc), value(v)) for doc, v in docs.items()]
            out[q] = dict(items[i] for i in order([v for _, v in items])) if len(items) > 1 else dict(items)
    except AttributeError:
        bad = next(q for q, docs in d.items() if not hasattr(docs, "items"))
        raise InputTypeError(f"query {bad!r}: its {what} entry is a {type(d[bad]).__name__}, not a dict "
                             "{doc_id: value}", source=f"<{what}>") from None
    except (TypeError, ValueError, OverflowError) as exc:
        kind = "grade (an integer)" if what == "qrels" else "score (a number)"
        raise InputError(f"a {kind} is not one ({exc})", source=f"<{what}>") from None
    return out


#: doc id -> the number ranx's typed lists hold for it (ranx hashes the id; an exact numbering here)
_CODES: dict = {}


def get_file_kind(path: str = "run.json", kind: str | None = None) -> str:
    """ranx's ``get_file_kind``: ``json``, ``trec`` (``.txt`` too), ``lz4``, ``gz`` or ``parquet`` (``.parq``)."""
    return file_kind(path, kind, "run")


def _lines(path, kind: str, width: int, layout: str):
    """(line number, fields) of a TREC file (gzipped when ``kind`` is gz), each line checked for its width."""
    _readable(path)
    with (gzip.open if kind == "gz" else open)(path, "rt") as f:
        for number, line in enumerate(f, 1):
            fields = line.split()
            if not fields:
                continue
            if len(fields) != width:
                raise InputError(f"expected {width} fields ({layout}), found {len(fields)}; fix or remove the line",
                                 source=os.fspath(path), line=number)
            yield number, fields


def _readable(path) -> None:
    """Refuse a missing file in one line; note the file as an input (``save`` never writes over it)."""
    from rankmeter.io.inputs import record_input
    if not os.path.isfile(path):
        raise InputFileNotFound("no such file" if not os.path.exists(path) else "not a file", source=os.fspath(path))
    record_input(path)


def _json(path) -> dict:
    _readable(path)
    with open(path, encoding="utf-8") as f:
        try:
            return json.load(f)
        except json.JSONDecodeError as exc:
            raise InputError(f"not JSON ({exc.msg}, column {exc.colno})", source=os.fspath(path),
                             line=exc.lineno) from None
        except UnicodeDecodeError as exc:
            raise InputError(f"not UTF-8 text ({exc.reason})", source=os.fspath(path)) from None


def _frame_dict(df, q_id_col, doc_id_col, score_col) -> dict:
    missing = [c for c in (q_id_col, doc_id_col, score_col) if c not in getattr(df, "columns", ())]
    if missing:
        raise InputKeyError(f"no column {missing[0]!r} (columns: {', '.join(map(str, getattr(df, 'columns', [])))}); "
                            "name the columns with q_id_col=, doc_id_col=, score_col=", source="<DataFrame>")
    out: dict = {}
    for q, d, s in zip(df[q_id_col].tolist(), df[doc_id_col].tolist(), df[score_col].tolist()):
        out.setdefault(q, {})[d] = s
    return out


def _lz4(path, content=None):
    try:
        import cbor2
        import lz4.frame
    except ImportError:
        raise ParameterError("lz4 files need the lz4 and cbor2 packages: pip install lz4 cbor2") from None
    if content is None:
        _readable(path)
        with lz4.frame.open(path, mode="r") as f:
            return cbor2.loads(lz4.frame.decompress(f.read()))
    with lz4.frame.open(path, mode="wb") as f:  # path: the guarded writer's open file
        f.write(lz4.frame.compress(cbor2.dumps(content), compression_level=16))


class _Judged:
    """What Qrels and Run share: a dict of dicts, sorted as ranx sorts it."""

    _value = float
    _what = "run"

    def __init__(self, data: dict | None = None, name: str | None = None):
        self._data: dict = _sorted(data, self._value, self._what) if data is not None else {}
        self.sorted = data is not None  # ranx: an empty one is "not sorted" until sort() or add_multi()
        self.name = name

    @property
    def _store(self) -> dict:  # ranx's attribute: run.run, qrels.qrels
        return self._data

    @_store.setter
    def _store(self, data: dict) -> None:
        self._data = data

    def keys(self):
        return self._data.keys()

    def _copy(self):
        """A copy holding the same order (not sorted again: ranx's sort is not stable, a second one moves ties)."""
        new = type(self)(None, self.name)
        new._data, new.sorted = {q: dict(docs) for q, docs in self._data.items()}, self.sorted
        return new

    def get_query_ids(self) -> list[str]:
        return list(self._data)

    def get_doc_ids_and_scores(self) -> list[dict]:
        return list(self._data.values())

    def add_score(self, q_id: str, doc_id: str, score) -> None:
        """Add or change one doc's value (not sorted until :meth:`sort`, evaluation or fusion, as in ranx)."""
        self._data.setdefault(q_id, {})[doc_id] = _sorted({q_id: {doc_id: score}}, self._value, self._what)[q_id][doc_id]
        self.sorted = False

    def add(self, q_id: str, doc_ids: list, scores: list) -> None:
        self.add_multi([q_id], [doc_ids], [scores])

    def add_multi(self, q_ids: list, doc_ids: list, scores: list) -> None:
        """Add queries: each replaces the docs a query held (ranx's ``add_multi``), then all is sorted."""
        for q, docs, values in zip(q_ids, doc_ids, scores):
            self._data[q] = dict(zip(docs, values))
        self.sort()

    def sort(self) -> None:
        self._data = _sorted(self._data, self._value, self._what)
        self.sorted = True

    def to_typed_list(self) -> list:
        """ranx's low-level form: per query (sorted ids) an array of ``[doc number, value]`` rows, values descending.

        ranx numbers a doc by hashing its id; here every distinct id gets its own number (exact, the
        same number in every Qrels and Run of the process), which is all ranx's metric functions need.
        """
        import numpy as np
        if not self.sorted:
            self.sort()
        return [np.array([[float(_CODES.setdefault(d, len(_CODES) + 1)), float(v)] for d, v in docs.items()],
                         dtype=np.float64).reshape(-1, 2) for docs in self._data.values()]

    def to_dict(self) -> dict:
        out = defaultdict(dict)
        for q, docs in self._data.items():
            out[q] = dict(docs)
        return out

    def to_dataframe(self):
        import pandas as pd
        rows = [(q, d, v) for q, docs in self._data.items() for d, v in docs.items()]
        return pd.DataFrame({"q_id": [r[0] for r in rows], "doc_id": [r[1] for r in rows],
                             "score": [r[2] for r in rows]})

    def _write_trec(self, path, line) -> None:
        rows = [line(q, rank, d, v) for q, docs in self._data.items() for rank, (d, v) in enumerate(docs.items())]
        _write(path, lambda f: f.write("\n".join(rows)))  # ranx writes no final newline

    @property
    def size(self) -> int:
        return len(self._data)

    def __getitem__(self, q_id) -> dict:
        if q_id not in self._data:
            raise InputKeyError(f"query {q_id!r} is not in this {self._what}")
        return dict(self._data[q_id])

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        return repr(self._data)

    __str__ = __repr__


def _write(path, write, binary: bool = False) -> None:
    """Write ``path`` through rankmeter's guarded writer (never over an input, never half a file)."""
    from rankmeter.io.output import output_file
    with output_file(path, mode="wb" if binary else "w") as f:
        write(f)


def _save(self, path, kind: str) -> None:
    if kind == "json":
        _write(path, lambda f: json.dump(self.to_dict(), f, indent=2))
    elif kind == "parquet":
        _write(path, lambda f: self.to_dataframe().to_parquet(f, index=False), binary=True)
    elif kind == "lz4":
        _write(path, lambda f: _lz4(f, self.to_dict()), binary=True)
    elif self._what == "qrels":
        self._write_trec(path, lambda q, _, d, g: f"{q} 0 {d} {g}")
    else:
        self._write_trec(path, lambda q, rank, d, s: f"{q} Q0 {d} {rank + 1} {s} {self.name}")


class Qrels(_Judged):
    """Relevance judgments ``{q_id: {doc_id: grade}}`` (integers), as ranx's ``Qrels``."""

    _value = int
    _what = "qrels"
    qrels = _Judged._store

    def set_relevance_level(self, rel_lvl: int = 1) -> None:
        """Shift every grade down by ``rel_lvl - 1`` (ranx's method)."""
        if isinstance(rel_lvl, bool) or not isinstance(rel_lvl, int):
            raise ParameterError(f"rel_lvl={rel_lvl!r}: the relevance level is an integer, e.g. 2")
        self._data = {q: {d: g - (rel_lvl - 1) for d, g in docs.items()} for q, docs in self._data.items()}

    def save(self, path: str = "qrels.json", kind: str | None = None) -> None:
        """Write the qrels as JSON, TREC or Parquet (by the extension or ``kind``), as ranx writes them."""
        _save(self, path, file_kind(path, kind, "qrels"))

    @staticmethod
    def from_dict(d: dict) -> Qrels:
        return Qrels(d)

    @staticmethod
    def from_file(path: str, kind: str | None = None) -> Qrels:
        kind = file_kind(path, kind, "qrels")
        if kind == "json":
            return Qrels(_json(path))
        if kind == "parquet":
            return Qrels.from_parquet(path)
        qrels: dict = {}
        for number, fields in _lines(path, kind, 4, "query 0 doc grade"):
            try:
                qrels.setdefault(fields[0], {})[fields[2]] = int(fields[3])
            except ValueError:
                raise InputError(f"grade {fields[3]!r} is not an integer", source=os.fspath(path),
                                 line=number) from None
        return Qrels(qrels)

    @staticmethod
    def from_df(df, q_id_col: str = "q_id", doc_id_col: str = "doc_id", score_col: str = "score") -> Qrels:
        return Qrels(_frame_dict(df, q_id_col, doc_id_col, score_col))

    @staticmethod
    def from_parquet(path: str, q_id_col: str = "q_id", doc_id_col: str = "doc_id", score_col: str = "score",
                     pd_kwargs: dict | None = None) -> Qrels:
        import pandas as pd
        _readable(path)
        return Qrels.from_df(pd.read_parquet(path, **(pd_kwargs or {})), q_id_col, doc_id_col, score_col)

    @staticmethod
    def from_ir_datasets(dataset_id: str) -> Qrels:
        """The qrels of an ir_datasets dataset already downloaded; rankmeter never downloads one."""
        from rankmeter.io.irds import irds_qrels
        _require_local(dataset_id)
        qrels = Qrels(_table_dict(irds_qrels(dataset_id).table, "rel"))
        qrels.name = dataset_id
        return qrels


def _require_local(dataset_id: str) -> None:
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


def _table_dict(table, value: str) -> dict:
    from rankmeter.io.canonical import decode_id
    out: dict = {}
    for q, d, v in zip(table.column("query").to_pylist(), table.column("doc").to_pylist(),
                       table.column(value).to_pylist()):
        out.setdefault(decode_id(q), {})[decode_id(d)] = v
    return out


class Run(_Judged):
    """A ranking ``{q_id: {doc_id: score}}`` with a name, as ranx's ``Run``; evaluation fills ``.scores``."""

    run = _Judged._store

    def __init__(self, run: dict | None = None, name: str | None = None):
        super().__init__(run, name)
        self.metadata: dict = {}
        self.scores: defaultdict = defaultdict(dict)
        self.mean_scores: dict = {}
        self.std_scores: dict = {}

    def make_comparable(self, qrels: Qrels) -> Run:
        """Add empty results for the qrels' queries the run lacks and drop the queries the qrels lack."""
        if not isinstance(qrels, (Qrels, dict)):
            raise InputTypeError(f"make_comparable: expected a ranx Qrels; got {type(qrels).__name__}")
        self._data = {q: self._data.get(q, {}) for q in qrels.keys()}
        self.sort()
        return self

    def save(self, path: str = "run.json", kind: str | None = None) -> None:
        """Write the run as JSON, TREC, LZ4 or Parquet (by the extension or ``kind``), as ranx writes it."""
        _save(self, path, file_kind(path, kind, "run"))

    @staticmethod
    def from_dict(d: dict, name: str | None = None) -> Run:
        return Run(d, name)

    @staticmethod
    def from_file(path: str, kind: str | None = None, name: str | None = None) -> Run:
        kind = file_kind(path, kind, "run")
        if kind == "json":
            return Run(_json(path), name)
        if kind == "lz4":
            return Run(_lz4(path), name)
        if kind == "parquet":
            return Run.from_parquet(path, name=name)
        run: dict = {}
        for number, fields in _lines(path, kind, 6, "query Q0 doc rank score tag"):
            try:
                run.setdefault(fields[0], {})[fields[2]] = float(fields[4])
            except ValueError:
                raise InputError(f"score {fields[4]!r} is not a number", source=os.fspath(path), line=number) from None
            name = fields[5] if name is None else name
        return Run(run, name)

    @staticmethod
    def from_df(df, q_id_col: str = "q_id", doc_id_col: str = "doc_id", score_col: str = "score",
                name: str | None = None) -> Run:
        return Run(_frame_dict(df, q_id_col, doc_id_col, score_col), name)

    @staticmethod
    def from_parquet(path: str, q_id_col: str = "q_id", doc_id_col: str = "doc_id", score_col: str = "score",
                     pd_kwargs: dict | None = None, name: str | None = None) -> Run:
        import pandas as pd
        _readable(path)
        return Run.from_df(pd.read_parquet(path, **(pd_kwargs or {})), q_id_col, doc_id_col, score_col, name)

    @staticmethod
    def from_ranxhub(id: str) -> Run:
        """A run of ranxhub, only from ranx's own download cache (``~/.ranx/<id>.rh``): rankmeter works offline."""
        from pathlib import Path
        path = Path.home() / ".ranx" / f"{id}.rh"
        if not path.exists():
            raise InputError(f"ranxhub run {id!r} is not on this machine and rankmeter does not download: fetch it "
                             f"once with ranx (`ranx.Run.from_ranxhub({id!r})`, which caches it in ~/.ranx), or "
                             "save the run as a file and use Run.from_file", source=str(path))
        content = _lz4(path)
        run = Run(content["run"], content["metadata"]["run"]["name"])
        run.metadata = content["metadata"]
        return run
