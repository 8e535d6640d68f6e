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

import json
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from rankmeter.errors import InputError, ParameterError
from rankmeter.io.canonical import Qrels, decode_id, encode_id, qrels_table

__all__ = ["METHODS", "Mixed", "aggregate", "mix", "read_samples", "write_qrels"]

METHODS = ("mode", "mean", "median")


@dataclass
class Samples:
    """Sampled labels in sample order (``grades``), or a probability per grade (``probabilities``)."""

    query: pa.Array
    doc: pa.Array
    grades: np.ndarray | None = None
    probabilities: np.ndarray | None = None   # (pairs, len(levels))
    levels: np.ndarray | None = None
    listed: np.ndarray | None = None          # (pairs, len(levels)): where each grade was listed (inf: not)
    source: str = "<samples>"


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
    queries, docs, grades, dists = [], [], [], []
    for n, line in enumerate(data.decode("utf-8", "surrogateescape").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            query, doc = row.get("query", row.get("qid")), row.get("doc", row.get("docid"))
        except (json.JSONDecodeError, AttributeError):
            raise InputError("expected one JSON object per line", source=name, line=n) from None
        if query is None or doc is None or ("grade" in row) == ("probabilities" in row):
            raise InputError("expected query, doc and either grade (one sample) or probabilities ({grade: p})",
                             source=name, line=n)
        queries.append(encode_id(query))
        docs.append(encode_id(doc))
        if "grade" in row:
            grades.append(_finite(row["grade"], name, n))
        else:
            probs = row["probabilities"]
            if not isinstance(probs, dict) or not probs:
                raise InputError("probabilities: expected {grade: probability}", source=name, line=n)
            dists.append({_finite(g, name, n): _finite(p, name, n) for g, p in probs.items()})
    if grades and dists:
        raise InputError("mixes single grades and probabilities; give one kind per file", source=name)
    if not queries:
        raise InputError("has no samples", source=name)
    if grades:
        return Samples(pa.array(queries, pa.binary()), pa.array(docs, pa.binary()), grades=np.array(grades),
                       source=name)
    levels = np.unique([g for d in dists for g in d])
    table = np.zeros((len(dists), len(levels)))
    listed = np.full((len(dists), len(levels)), np.inf)
    for i, d in enumerate(dists):  # parsing JSON is per line anyway
        at = np.searchsorted(levels, list(d))
        table[i, at] = list(d.values())
        listed[i, at] = np.arange(len(d))
    if (table < 0).any() or (table.sum(axis=1) <= 0).any():
        raise InputError("probabilities must be non-negative and not all 0", source=name)
    return Samples(pa.array(queries, pa.binary()), pa.array(docs, pa.binary()),
                   probabilities=table / table.sum(axis=1, keepdims=True), levels=levels, listed=listed, source=name)


def _finite(value, name, line) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{value!r} is not a number", source=name, line=line) from None
    if not np.isfinite(number):
        raise InputError(f"{value!r} is not a finite number", source=name, line=line)
    return number


def _pair_codes(query: pa.Array, doc: pa.Array):
    """A code per row for its (query, doc) pair, and per code the first row that has it."""
    qi = pc.dictionary_encode(query).combine_chunks() if isinstance(query, pa.ChunkedArray) else pc.dictionary_encode(query)
    di = pc.dictionary_encode(doc).combine_chunks() if isinstance(doc, pa.ChunkedArray) else pc.dictionary_encode(doc)
    key = qi.indices.to_numpy().astype(np.int64) * len(di.dictionary) + di.indices.to_numpy().astype(np.int64)
    _, first, code = np.unique(key, return_index=True, return_inverse=True)
    return code.ravel(), first


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
    if method not in METHODS:
        raise ParameterError(f"method={method!r}: expected one of {', '.join(METHODS)}")
    s = samples if isinstance(samples, Samples) else read_samples(samples)
    code, first = _pair_codes(s.query, s.doc)
    k = len(first)
    if s.probabilities is not None:
        if len(first) != len(code):
            raise InputError("a pair has two probability lines; give one distribution per pair", source=s.source)
        p, listed = np.empty_like(s.probabilities), np.empty_like(s.listed)
        p[code], listed[code] = s.probabilities, s.listed
        if method == "mean":
            value = p @ s.levels
        elif method == "median":
            value = s.levels[np.argmax(np.cumsum(p, axis=1) >= 0.5 - 1e-12, axis=1)]
        else:  # the most probable grade; on a tie the one listed first
            value = s.levels[np.argmin(np.where(p == p.max(axis=1, keepdims=True), listed, np.inf), axis=1)]
    else:
        value = _aggregate_grades(code, s.grades, k, method)
    rows = pa.array(first)
    query, doc = s.query.take(rows), s.doc.take(rows)
    whole = bool((value == np.floor(value)).all())
    rel = pa.array(value.astype(np.int64) if whole else value)
    table = qrels_table(query, doc, rel).sort_by([("query", "ascending"), ("doc", "ascending")])
    return Qrels(table, f"{method} of {s.source}", origin="dict")


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
        with output_file(path, inputs=inputs) as out:
            out.write("query\tdoc\tgrade\tsource\n")
            out.writelines(f"{decode_id(q)}\t{decode_id(d)}\t{_grade(g)}\t{s}\n" for q, d, g, s in
                           zip(t.column("query").to_pylist(), t.column("doc").to_pylist(),
                               t.column("rel").to_pylist(), self.source))


def mix(human, llm) -> Mixed:
    """Human-first qrels: the human grade where the pair is human-judged, the LLM's otherwise.

    ``counts``: ``human`` and ``llm`` (pairs taken from each), ``both`` (pairs both judged: the human
    grade kept) and ``both_differ`` (of those, how many the LLM graded otherwise); ``per_query``: the
    same per query.
    """
    from rankmeter.analyses.judges.pairs import join, source_name
    joined = join(human, llm, (source_name(human, "human"), source_name(llm, "llm")))
    from_human = ~np.isnan(joined.grade_a)
    both = joined.both
    grade = np.where(from_human, joined.grade_a, joined.grade_b)
    whole = bool((grade == np.floor(grade)).all())
    query = pa.array([encode_id(q) for q in joined.queries], pa.binary()).take(pa.array(joined.query))
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


def _grade(value) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def write_qrels(qrels: Qrels, path, *, inputs=()) -> None:
    """``query 0 doc grade`` lines through the guarded atomic writer (never over an input, never half a file)."""
    from rankmeter.io.output import output_file
    t = qrels.table
    with output_file(path, inputs=inputs) as out:
        out.writelines(f"{decode_id(q)} 0 {decode_id(d)} {_grade(g)}\n" for q, d, g in
                       zip(t.column("query").to_pylist(), t.column("doc").to_pylist(), t.column("rel").to_pylist()))
