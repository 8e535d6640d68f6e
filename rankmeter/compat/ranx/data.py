"""ranx's ``Qrels`` and ``Run``: the same constructors, files and attributes, held as plain dicts.

A ``Run`` keeps each query's docs by score descending and its queries sorted, as ranx keeps them
(so ``to_dict`` and ``save`` write what ranx writes); ``.scores`` / ``.mean_scores`` are filled by
:func:`~rankmeter.compat.ranx.evaluate`. Docs with equal scores are in the order ranx's sort
(numba's quicksort, not stable) leaves them, reproduced by :mod:`rankmeter.compat.ranx.ties`, so
ties are scored as ranx scores them. Their files (kinds, reading, the guarded writer) are in :mod:`.files`.

>>> run = Run({"q2": {"a": 0.1, "b": 0.9}, "q1": {"c": 1.0}}, name="bm25")
>>> dict(run.to_dict()), run.name, len(run)
({'q1': {'c': 1.0}, 'q2': {'b': 0.9, 'a': 0.1}}, 'bm25', 2)
"""
from __future__ import annotations

from collections import defaultdict

from rankmeter.compat.ranx.errors import InputKeyError, InputTypeError
from rankmeter.compat.ranx.files import (file_kind, frame_dict, lz4_file, read_json, readable, require_local,
                                         save_file, table_dict, trec_dict, write_guarded)
from rankmeter.errors import InputError, ParameterError

__all__ = ["Qrels", "Run"]


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
        write_guarded(path, lambda f: f.write("\n".join(rows)))  # ranx writes no final newline

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
        save_file(self, path, file_kind(path, kind, "qrels"))

    @staticmethod
    def from_dict(d: dict) -> Qrels:
        return Qrels(d)

    @staticmethod
    def from_file(path: str, kind: str | None = None) -> Qrels:
        kind = file_kind(path, kind, "qrels")
        if kind == "json":
            return Qrels(read_json(path, "qrels"))
        if kind == "parquet":
            return Qrels.from_parquet(path)
        return Qrels(trec_dict(path, "qrels")[0])

    @staticmethod
    def from_df(df, q_id_col: str = "q_id", doc_id_col: str = "doc_id", score_col: str = "score") -> Qrels:
        return Qrels(frame_dict(df, q_id_col, doc_id_col, score_col))

    @staticmethod
    def from_parquet(path: str, q_id_col: str = "q_id", doc_id_col: str = "doc_id", score_col: str = "score",
                     pd_kwargs: dict | None = None) -> Qrels:
        import pandas as pd
        readable(path)
        return Qrels.from_df(pd.read_parquet(path, **(pd_kwargs or {})), q_id_col, doc_id_col, score_col)

    @staticmethod
    def from_ir_datasets(dataset_id: str) -> Qrels:
        """The qrels of an ir_datasets dataset already downloaded; rankmeter never downloads one."""
        from rankmeter.io.irds import irds_qrels
        require_local(dataset_id)
        qrels = Qrels(table_dict(irds_qrels(dataset_id).table, "rel"))
        qrels.name = dataset_id
        return qrels


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
        save_file(self, path, file_kind(path, kind, "run"))

    @staticmethod
    def from_dict(d: dict, name: str | None = None) -> Run:
        return Run(d, name)

    @staticmethod
    def from_file(path: str, kind: str | None = None, name: str | None = None) -> Run:
        kind = file_kind(path, kind, "run")
        if kind == "json":
            return Run(read_json(path), name)
        if kind == "lz4":
            return Run(lz4_file(path), name)
        if kind == "parquet":
            return Run.from_parquet(path, name=name)
        run, tag = trec_dict(path, "run")
        return Run(run, tag if name is None else name)

    @staticmethod
    def from_df(df, q_id_col: str = "q_id", doc_id_col: str = "doc_id", score_col: str = "score",
                name: str | None = None) -> Run:
        return Run(frame_dict(df, q_id_col, doc_id_col, score_col), name)

    @staticmethod
    def from_parquet(path: str, q_id_col: str = "q_id", doc_id_col: str = "doc_id", score_col: str = "score",
                     pd_kwargs: dict | None = None, name: str | None = None) -> Run:
        import pandas as pd
        readable(path)
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
        content = lz4_file(path)
        run = Run(content["run"], content["metadata"]["run"]["name"])
        run.metadata = content["metadata"]
        return run
