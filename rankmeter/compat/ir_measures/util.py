"""ir_measures' ``util`` for the drop-in: the record types and the converters between its input forms.

``QrelsConverter`` / ``RunConverter`` turn a dict of dicts, a DataFrame or an iterable of namedtuples
into each other form as ir_measures' do (``as_dict_of_dict``: last value wins; ``as_sorteddict``: a
stable sort by score, ties in input order), and reject other inputs with ir_measures' messages.

>>> RunConverter({"q": {"a": 1.0, "b": 2.0}}).as_sorteddict()
{'q': [ScoredDoc(query_id='q', doc_id='b', score=2.0), ScoredDoc(query_id='q', doc_id='a', score=1.0)]}
"""
from __future__ import annotations

import itertools
from typing import Any, NamedTuple

__all__ = ["CalcResults", "GenericQrel", "GenericScoredDoc", "Metric", "Qrel", "QrelsConverter", "RunConverter",
           "ScoredDoc", "format_error", "read_trec_qrels", "read_trec_run"]


class Qrel(NamedTuple):
    query_id: str
    doc_id: str
    relevance: int
    iteration: str = "0"


class ScoredDoc(NamedTuple):
    query_id: str
    doc_id: str
    score: float


class Metric(NamedTuple):
    query_id: str
    measure: Any
    value: float


class CalcResults(NamedTuple):
    aggregated: Any
    per_query: list


GenericQrel, GenericScoredDoc = Qrel, ScoredDoc  # ir_measures' older names


class _Converter:
    KIND = "qrels"
    RECORD: type = Qrel
    VALUE = "relevance"

    def __init__(self, data, strict: bool = True):
        self.data = data
        self.strict = strict
        self._kind: tuple[str, str | None] | None = None

    @property
    def required(self) -> tuple[str, ...]:
        return tuple(f for f in self.RECORD._fields if f not in self.RECORD._field_defaults)

    def predict_type(self) -> tuple[str, str | None]:
        if self._kind is not None:
            return self._kind
        kind, error = "UNKNOWN", None
        if isinstance(self.data, dict):
            kind = "dict_of_dict"
        elif hasattr(self.data, "itertuples"):
            missing = [f for f in self.required if f not in self.data.columns]
            if missing and self.strict:
                error = f"DataFrame missing columns: {missing} (found {list(self.data.columns)})"
            else:
                kind = "pd_dataframe"
        elif hasattr(self.data, "__iter__"):
            self.data, peek = itertools.tee(self.data, 2)
            item = next(peek, None)
            if item is None:
                kind = "namedtuple_iter"
            elif isinstance(item, tuple) and hasattr(item, "_fields"):
                missing = [f for f in self.required if f not in item._fields]
                kind, error = ("UNKNOWN", f"namedtuple iter missing fields: {missing} (found {list(item._fields)})") \
                    if missing else ("namedtuple_iter", None)
            else:
                error = "iterable not a namedtuple iterator"
        else:
            record = f"ir_measures.{self.RECORD.__name__}"
            error = (f"unexpected format; please provide either: (1) an iterable of namedtuples (fields "
                     f"{self.required}, e.g., from {record}); (2) a pandas DataFrame with columns {self.required}; "
                     "or (3) a dict-of-dict")
        self._kind = (kind, error)
        return self._kind

    def tee(self, count: int) -> list:
        if self.predict_type()[0] == "namedtuple_iter":
            return [type(self)(d) for d in itertools.tee(self.data, count)]
        return [self] * count

    def as_namedtuple_iter(self):
        kind, error = self.predict_type()
        if kind == "namedtuple_iter":
            yield from self.data
        elif kind == "dict_of_dict":
            for query, docs in self.data.items():
                for doc, value in docs.items():
                    yield self.RECORD(query, doc, value)
        elif kind == "pd_dataframe":
            fields = [f for f in self.RECORD._fields if f in self.data.columns]
            for row in self.data.itertuples():
                yield self.RECORD(*(getattr(row, f) for f in fields))
        else:
            raise ValueError(f"unknown {self.KIND} format: {error}")

    def as_dict_of_dict(self) -> dict:
        if self.predict_type()[0] == "dict_of_dict":
            return self.data
        out: dict = {}
        for record in self.as_namedtuple_iter():
            out.setdefault(record.query_id, {})[record.doc_id] = getattr(record, self.VALUE)
        return out

    def as_pd_dataframe(self):
        import pandas as pd
        if self.predict_type()[0] == "pd_dataframe":
            if self.RECORD is Qrel and "iteration" not in self.data.columns:
                return self.data.assign(iteration=["0"] * len(self.data))
            return self.data
        frame = pd.DataFrame(self.as_namedtuple_iter())
        return frame if len(frame) else pd.DataFrame([], columns=list(self.RECORD._fields))


class QrelsConverter(_Converter):
    """ir_measures' ``util.QrelsConverter``."""


class RunConverter(_Converter):
    """ir_measures' ``util.RunConverter``."""

    KIND, RECORD, VALUE = "run", ScoredDoc, "score"

    def as_sorteddict(self) -> dict:
        """Query -> its docs by score, descending; ties in input order."""
        per_query: dict = {}
        for record in self.as_namedtuple_iter():
            per_query.setdefault(record.query_id, []).append(record)
        return {q: sorted(docs, key=lambda r: r.score, reverse=True) for q, docs in per_query.items()}

    def as_sorted_namedtuple_iter(self):
        """Each run of consecutive rows of one query, sorted by score (ties in input order)."""
        for _, rows in itertools.groupby(self.as_namedtuple_iter(), key=lambda r: r.query_id):
            yield from sorted(rows, key=lambda r: r.score, reverse=True)


def format_error(data, value: str) -> ValueError:
    """ir_measures' error for an input of no form it reads."""
    converter = QrelsConverter(data) if value == "relevance" else RunConverter(data)
    kind, error = converter.predict_type()
    return ValueError(f"unknown {converter.KIND} format: {error or 'empty'}")


def _lines(source):
    import gzip
    import io
    if isinstance(source, str) and "\n" in source:
        source = io.StringIO(source)
    if hasattr(source, "read"):
        yield from (line.split() for line in source if line.strip())
        return
    with (gzip.open if str(source).endswith(".gz") else open)(source, "rt") as handle:
        yield from (line.split() for line in handle if line.strip())


def read_trec_qrels(source):
    """:class:`Qrel` rows of a TREC qrels (a path, ``.gz`` too, an open file, or the text itself)."""
    for query, iteration, doc, rel in _lines(source):
        yield Qrel(query, doc, int(rel), iteration)


def read_trec_run(source):
    """:class:`ScoredDoc` rows of a TREC run (a path, ``.gz`` too, an open file, or the text itself)."""
    for query, _, doc, _, score, _ in _lines(source):
        yield ScoredDoc(query, doc, float(score))
