"""Judgment sources: several sampled LLM labels made one qrels (:func:`aggregate`), human and LLM qrels mixed (:func:`mix`).

Samples come as a TREC qrels file with one line per sample (the same pair on several lines, in
sample order), or as JSON Lines, one object per line:

* ``{"query": "q1", "doc": "d7", "grade": 2}``: one sample (as a qrels line);
* ``{"query": "q1", "doc": "d7", "probabilities": {"0": 0.1, "1": 0.2, "2": 0.6, "3": 0.1}}``: the
  judge's probability of each grade (normalised to sum 1; ``qid``/``docid`` are read as well).

:func:`aggregate` makes one grade per pair: ``mode`` as UMBRELA does it (``statistics.mode``: the
most frequent label, on a tie the label seen first; with probabilities the most probable grade,
the one listed first on a tie), ``mean`` (real-valued grades: the expected grade), ``median`` (the
middle sample, the mean of the two middle ones for an even count; with probabilities the smallest
grade whose cumulative probability reaches 0.5).

:func:`mix` is human-first: the human grade where the pair is human-judged, the LLM's elsewhere;
the provenance of every pair is kept (:meth:`Mixed.write_provenance`) and counted per query.

Examples
--------
>>> import io
>>> samples = io.BytesIO(b"q 0 a 3\\nq 0 a 0\\nq 0 a 0\\nq 0 a 3\\nq 0 b 1\\nq 0 b 2\\nq 0 b 2\\n")
>>> qrels = aggregate(samples, method="mode")
>>> qrels.table.column("rel").to_pylist()
[3, 2]
>>> aggregate(io.BytesIO(b"q 0 a 3\\nq 0 a 0\\nq 0 b 1\\nq 0 b 2\\n"), method="mean").table.column("rel").to_pylist()
[1.5, 1.5]
>>> m = mix({"q": {"a": 2}}, {"q": {"a": 0, "b": 1}})
>>> m.counts, m.grades()
({'human': 1, 'llm': 1, 'both': 1, 'both_differ': 1}, {'q': {'a': 2, 'b': 1}})
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from rankmeter.judges.params import AGGREGATE
from rankmeter.engine.param import validate_params
from rankmeter.errors import InputError, shown_id, shown_repr
from rankmeter.io.canonical import Qrels, decode_id, encode_id, qrels_table

__all__ = ["METHODS", "Mixed", "aggregate", "mix", "read_samples", "write_qrels", "check_writable_ids"]

METHODS = AGGREGATE.choices
#: Grades are written as 64-bit integers or as doubles; whole values from 2^63 on fit no qrels reader
_GRADE_LIMIT = 2.0 ** 63


@dataclass
class Samples:
    """Sampled labels in sample order (``grades``), or a probability per grade (``probabilities``)."""

    query: pa.Array
    doc: pa.Array
    grades: np.ndarray | None = None
    # the probability lines as one entry per (line, grade listed), not a (lines x grades) table: memory is
    # linear in the input (the table of 5,000 lines of distinct grades took 1.5 GB for 388 KB)
    line: np.ndarray | None = None            # per entry: the probability line (row of query/doc) it is on
    grade: np.ndarray | None = None           # per entry: the grade
    probability: np.ndarray | None = None     # per entry: its probability, normalised over the line
    listed: np.ndarray | None = None          # per entry: where on its line the grade was listed
    source: str = "<samples>"

    @property
    def probabilities(self):
        """Whether the samples are probability lines (not single grades)."""
        return self.line


def _looks_like_jsonl(data: bytes) -> bool:
    return data.lstrip()[:1] == b"{"


def read_samples(source) -> Samples:
    """Sampled labels from a TREC qrels file (one line per sample) or JSON Lines (see the module docstring)."""
    from rankmeter.io import load_bytes, read_qrels
    data, name = load_bytes(source)
    if not _looks_like_jsonl(data):
        import io
        table = read_qrels(io.BytesIO(data), grades="real").table
        return Samples(table.column("query").combine_chunks(), table.column("doc").combine_chunks(),
                       grades=table.column("rel").to_numpy(), source=name)
    from rankmeter.io.structured import json_lines
    queries, docs, grades = [], [], []
    line, grade, probability, listed = [], [], [], []
    for n, row in json_lines(data, _sample_schema(), source=name, hint=_SAMPLE_HINT, what="a sample object"):
        query, doc = row.get("query", row.get("qid")), row.get("doc", row.get("docid"))
        if query is None or doc is None or ("grade" in row) == ("probabilities" in row):
            raise InputError("expected query and doc (text or integers) and either grade (one sample) or "
                             "probabilities ({grade: p})", source=name, line=n)
        queries.append(_id_bytes(query, name, n))
        docs.append(_id_bytes(doc, name, n))
        if "grade" in row:
            grades.append(_finite(row["grade"], name, n, grade=True))
        else:
            probs = row["probabilities"]
            values = [_finite(g, name, n, grade=True) for g in probs]
            if len(set(values)) != len(values):
                raise InputError("probabilities: a grade is listed twice", source=name, line=n)
            grade += values
            probability += [float(p) for p in probs.values()]
            listed += range(len(values))
            line += [len(queries) - 1] * len(values)
    if grades and line:
        raise InputError("mixes single grades and probabilities; give one kind per file", source=name)
    if not queries:
        raise InputError("has no samples", source=name)
    if grades:
        return Samples(pa.array(queries, pa.binary()), pa.array(docs, pa.binary()), grades=np.array(grades),
                       source=name)
    line, probability = np.array(line, dtype=np.int64), np.array(probability, dtype=np.float64)
    if (probability < 0).any():
        raise InputError("probabilities must be non-negative and not all 0", source=name)
    # normalised without overflow: each line scaled by its largest first (1e308 and 1e308 are 0.5 each)
    largest = np.zeros(len(queries))
    np.maximum.at(largest, line, probability)
    if (largest <= 0).any():
        raise InputError("probabilities must be non-negative and not all 0", source=name)
    scaled = probability / largest[line]
    total = np.bincount(line, weights=scaled, minlength=len(queries))
    return Samples(pa.array(queries, pa.binary()), pa.array(docs, pa.binary()), line=line,
                   grade=np.array(grade, dtype=np.float64), probability=scaled / total[line],
                   listed=np.array(listed, dtype=np.int64), source=name)


_SAMPLE_HINT = ('a sample is {"query": ID, "doc": ID, "grade": N} or {"query": ID, "doc": ID, '
                '"probabilities": {GRADE: P}}')


def _sample_schema():
    """A line of a JSON Lines samples file (``qid``/``docid`` read as ``query``/``doc``); other fields kept, bounded."""
    from rankmeter.io.schema import Id, MapOf, Num, Record
    return Record({}, {"query": Id(), "qid": Id(), "doc": Id(), "docid": Id(), "grade": Num(),
                       "probabilities": MapOf(Num(low=0), min_items=1)}, what="a sample object")


def _id_bytes(value, name: str, line: int) -> bytes:
    try:
        return encode_id(value)
    except InputError as exc:  # a lone surrogate
        raise InputError(exc.message, source=name, line=line) from None


def _finite(value, name, line, *, grade: bool = False) -> float:
    try:
        number = float(value) if isinstance(value, (str, int, float)) and not isinstance(value, bool) else None
    except (TypeError, ValueError, OverflowError):
        number = None
    if number is None:
        raise InputError(f"{shown_repr(value)} is not a number", source=name, line=line)
    if not np.isfinite(number) or (grade and abs(number) >= _GRADE_LIMIT):
        what = "a grade of magnitude below 2^63 (what qrels hold)" if grade else "a finite number"
        raise InputError(f"{shown_repr(value)} is not {what}", source=name, line=line)
    return number


def pair_codes(query: pa.Array, doc: pa.Array):
    """A code per row for its (query, doc) pair, and per code the first row that has it."""
    qi = pc.dictionary_encode(query).combine_chunks() if isinstance(query, pa.ChunkedArray) else pc.dictionary_encode(query)
    di = pc.dictionary_encode(doc).combine_chunks() if isinstance(doc, pa.ChunkedArray) else pc.dictionary_encode(doc)
    key = qi.indices.to_numpy().astype(np.int64) * len(di.dictionary) + di.indices.to_numpy().astype(np.int64)
    _, first, code = np.unique(key, return_index=True, return_inverse=True)
    return code.ravel(), first


@validate_params(AGGREGATE)
def aggregate(samples, *, method: str = "mode") -> Qrels:
    """One grade per (query, doc) pair from sampled labels (see the module docstring).

    Parameters
    ----------
    samples : path, file object or :class:`Samples`
    method : {"mode", "mean", "median"}, default "mode"

    Returns
    -------
    Qrels
        Integer grades when every aggregated grade is a whole number, else real ones; pairs in
        query then doc order.
    """
    s = samples if isinstance(samples, Samples) else read_samples(samples)
    code, first = pair_codes(s.query, s.doc)
    k = len(first)
    if s.probabilities is not None:
        if len(first) != len(code):
            raise InputError("a pair has two probability lines; give one distribution per pair", source=s.source)
        value = _aggregate_probabilities(code[s.line], s.grade, s.probability, s.listed, k, method)
    else:
        value = _aggregate_grades(code, s.grades, k, method)
    rows = pa.array(first)
    query, doc = s.query.take(rows), s.doc.take(rows)
    _check_grades(value, s.source)
    whole = bool((value == np.floor(value)).all())
    rel = pa.array(value.astype(np.int64) if whole else value)
    table = qrels_table(query, doc, rel).sort_by([("query", "ascending"), ("doc", "ascending")])
    return Qrels(table, f"{method} of {s.source}", origin="dict")


def _aggregate_probabilities(pair: np.ndarray, grade: np.ndarray, p: np.ndarray, listed: np.ndarray, k: int,
                             method: str) -> np.ndarray:
    """Per pair, from one entry per (pair, grade listed): the expected grade, the smallest grade whose
    cumulative probability reaches 0.5, or the most probable grade (on a tie the one listed first)."""
    if method == "mean":  # by the largest grade first: no overflow from grades near the double range
        scale = np.zeros(k)
        np.maximum.at(scale, pair, np.abs(grade))
        scale[scale == 0] = 1
        return np.bincount(pair, weights=p * (grade / scale[pair]), minlength=k) * scale
    if method == "median":
        order = np.lexsort((grade, pair))
        cumulative = np.cumsum(p[order])
        starts = np.searchsorted(pair[order], np.arange(k))
        within = cumulative - np.concatenate(([0.0], cumulative))[starts][pair[order]]
        reached = np.flatnonzero(within >= 0.5 - 1e-12)
        first = reached[np.searchsorted(pair[order][reached], np.arange(k))]
        return grade[order][first]
    order = np.lexsort((listed, -p, pair))
    head = np.concatenate(([True], pair[order][1:] != pair[order][:-1]))
    return grade[order][head]


def _aggregate_grades(code: np.ndarray, grades: np.ndarray, k: int, method: str) -> np.ndarray:
    counts = np.bincount(code, minlength=k)
    if method == "mean":
        return np.bincount(code, weights=grades, minlength=k) / counts
    if method == "median":
        order = np.lexsort((grades, code))
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
        ranked = grades[order]
        return (ranked[starts + (counts - 1) // 2] + ranked[starts + counts // 2]) / 2
    # mode: statistics.mode counts in insertion order and keeps the first label seen among the most frequent
    labels, label_code = np.unique(grades, return_inverse=True)
    key = code * len(labels) + label_code.ravel()
    keys, first_row, key_counts = np.unique(key, return_index=True, return_counts=True)
    pair = keys // len(labels)
    best = np.lexsort((first_row, -key_counts, pair))
    chosen = best[np.concatenate([[True], pair[best][1:] != pair[best][:-1]])]
    return labels[keys[chosen] % len(labels)].astype(np.float64)


@dataclass
class Mixed:
    """Human-first qrels with the source of each pair (``source``: ``"human"`` or ``"llm"``, in table order)."""

    qrels: Qrels
    source: np.ndarray
    counts: dict
    per_query: list[dict]

    def grades(self) -> dict:
        """``{query: {doc: grade}}`` (decoded ids)."""
        t = self.qrels.table
        out: dict = {}
        for q, d, g in zip(t.column("query").to_pylist(), t.column("doc").to_pylist(), t.column("rel").to_pylist()):
            out.setdefault(decode_id(q), {})[decode_id(d)] = g
        return out

    def write(self, path, *, inputs=()) -> None:
        write_qrels(self.qrels, path, inputs=inputs)

    def write_provenance(self, path, *, inputs=()) -> None:
        """``query doc grade source`` per pair, tab-separated with a header."""
        from rankmeter.io.output import output_file
        t = self.qrels.table
        query, doc = t.column("query").combine_chunks(), t.column("doc").combine_chunks()
        check_writable_ids(query, "query", self.qrels.source)
        check_writable_ids(doc, "doc", self.qrels.source)
        with output_file(path, inputs=inputs, mode="wb") as out:
            out.write(b"query\tdoc\tgrade\tsource\n")
            out.writelines(b"%s\t%s\t%s\t%s\n" % (q, d, _grade(g).encode(), s.encode()) for q, d, g, s in
                           zip(query.to_pylist(), doc.to_pylist(), t.column("rel").to_pylist(), self.source))


def mix(human, llm) -> Mixed:
    """Human-first qrels: the human grade where the pair is human-judged, the LLM's otherwise.

    ``counts``: ``human`` and ``llm`` (pairs taken from each), ``both`` (pairs both judged: the human
    grade kept) and ``both_differ`` (of those, how many the LLM graded otherwise); ``per_query``: the
    same per query.
    """
    from rankmeter.judges.pairs import join, source_name
    joined = join(human, llm, (source_name(human, "human"), source_name(llm, "llm")))
    from_human = ~np.isnan(joined.grade_a)
    both = joined.both
    grade = np.where(from_human, joined.grade_a, joined.grade_b)
    whole = bool((grade == np.floor(grade)).all())
    if whole and len(grade) and np.abs(grade).max() > 2.0 ** 53:
        raise InputError(f"grade {np.abs(grade).max():.0f} is beyond 2^53: mixed grades go through doubles and "
                         "would not be written exactly; use smaller grades", source="mix")
    query = joined.query_ids.take(pa.array(joined.query))
    table = qrels_table(query, joined.doc, pa.array(grade.astype(np.int64) if whole else grade))
    source = np.where(from_human, "human", "llm")
    differ = both & (joined.grade_a != joined.grade_b)
    nq = len(joined.queries)

    def per(mask):
        return np.bincount(joined.query[mask], minlength=nq)

    columns = {"human": per(from_human), "llm": per(~from_human), "both": per(both), "both_differ": per(differ)}
    counts = {key: int(v.sum()) for key, v in columns.items()}
    per_query = [{"query": q, **{key: int(v[i]) for key, v in columns.items()}} for i, q in enumerate(joined.queries)]
    return Mixed(Qrels(table, "mixed", origin="dict"), source, counts, per_query)


def _check_grades(value: np.ndarray, source: str) -> None:
    """Grades a qrels file can hold: finite, of magnitude below 2^63."""
    bad = np.flatnonzero(~np.isfinite(value) | (np.abs(value) >= _GRADE_LIMIT))
    if len(bad):
        raise InputError(f"an aggregated grade is {float(value[bad[0]]):.17g}: qrels hold finite grades of "
                         "magnitude below 2^63; fix the samples", source=source)


def _grade(value) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def write_qrels(qrels: Qrels, path, *, inputs=()) -> None:
    """``query 0 doc grade`` lines through the guarded atomic writer (never over an input, never half a file).

    Ids are written as the bytes they are (a Latin-1 id stays Latin-1); an id TREC qrels cannot hold (empty, a
    blank, a line end or a NUL inside, a query id starting with ``#``, which readers skip as a comment) and a
    grade no reader takes back (not finite, or whole and of magnitude 2^63 or more) are refused before
    anything is written: what is written reads back as it was."""
    from rankmeter.io.output import output_file
    t = qrels.table
    query, doc = t.column("query").combine_chunks(), t.column("doc").combine_chunks()
    check_writable_ids(query, "query", qrels.source)
    check_writable_ids(doc, "doc", qrels.source)
    rel = t.column("rel").combine_chunks()
    if pa.types.is_floating(rel.type):
        _check_grades(rel.to_numpy(zero_copy_only=False), qrels.source)
    grades = [_grade(g).encode() for g in rel.to_pylist()]
    with output_file(path, inputs=inputs, mode="wb") as out:
        out.writelines(b"%s 0 %s %s\n" % row for row in zip(query.to_pylist(), doc.to_pylist(), grades))


_UNWRITABLE = np.zeros(256, dtype=bool)
_UNWRITABLE[list(b" \t\n\r\x0b\x0c\x00")] = True


def check_writable_ids(ids: pa.Array, what: str, source: str) -> None:
    """Refuse, in one line, an id TREC text cannot hold: empty, holding a blank, line end or NUL (fields are
    split at blanks, lines at line ends; NUL is binary data), or a query id starting with ``#`` (a comment)."""
    ids = ids.cast(pa.binary()) if not pa.types.is_binary(ids.type) else ids
    offsets = np.frombuffer(ids.buffers()[1], dtype=np.int32)[ids.offset: ids.offset + len(ids) + 1]
    values = np.frombuffer(ids.buffers()[2], dtype=np.uint8) if ids.buffers()[2] is not None else \
        np.zeros(0, np.uint8)
    bad = np.zeros(len(ids), dtype=bool)
    bad |= offsets[1:] == offsets[:-1]
    hits = np.flatnonzero(_UNWRITABLE[values[offsets[0]: offsets[-1]]]) + offsets[0]
    if len(hits):
        bad[np.searchsorted(offsets, hits, side="right") - 1] = True
    if what == "query":
        nonempty = offsets[1:] > offsets[:-1]
        starts = values[np.minimum(offsets[:-1], max(len(values) - 1, 0))] if len(values) else np.zeros(len(ids))
        bad |= nonempty & (starts == ord("#"))
    if bad.any():
        value = ids[int(np.argmax(bad))].as_py()
        why = "is empty" if not value else "starts with '#' (a comment line to every reader)" \
            if value.startswith(b"#") and not _UNWRITABLE[np.frombuffer(value, np.uint8)].any() \
            else "holds a blank, a line end or a NUL (TREC fields are split at blanks)"
        raise InputError(f"{what} id '{shown_id(value)}' {why}: TREC qrels cannot hold it, so nothing was written; "
                         "fix the id", source=source)
