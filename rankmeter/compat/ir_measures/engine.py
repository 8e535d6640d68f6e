"""The drop-in's scoring: ir_measures' inputs read once, each measure ranked as its provider ranks and scored.

:class:`Engine` is the evaluator behind every provider of :mod:`rankmeter.compat.ir_measures`: it takes
``(key, rankmeter measure, provider)`` triples, groups them by the provider's order of tied docs
(:data:`rankmeter.compat.ir_measures.dispatch.ORDER`) and by whether they read subtopics, and scores each
group with one rankmeter :class:`~rankmeter.core.evaluator.Evaluator`: the run is put in the provider's
order by one ``lexsort`` and scored with ``ties="input"`` (trec_eval's order is rankmeter's own).
"""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np

__all__ = ["Engine", "read_rows", "table"]


def read_any(data, value: str) -> tuple[dict, dict | None] | None:
    """:func:`read_rows`, and rankmeter's own inputs (paths, Arrow tables, frames with its column names) read by
    rankmeter into the same dicts; None for a ranked run without scores (its order is its own)."""
    read = read_rows(data, value)
    if read is not None:
        return read
    from rankmeter.io import as_qrels, as_run
    from rankmeter.compat.ir_measures.util import Qrel, ScoredDoc
    if value == "score":
        run = as_run(data)
        if run.ranked:
            return None
        table = run.table
        rows = zip(*(table.column(c).to_pylist() for c in ("query", "doc", "score")))
        return read_rows([ScoredDoc(*row) for row in rows], "score")
    table = as_qrels(data).table
    names = ["query", "doc", "rel"] + (["subtopic"] if "subtopic" in table.column_names else [])
    rows = zip(*(table.column(c).to_pylist() for c in names))
    return read_rows([Qrel(row[0], row[1], row[2], *(str(x) for x in row[3:])) for row in rows], "relevance")


def read_rows(data, value: str) -> tuple[dict, dict | None] | None:
    """ir_measures' inputs as ``({query: {doc: value}}`` last one winning, ``{query: {subtopic: {doc: value}}}``
    when the iterations differ, else None), or None for an input rankmeter reads itself."""
    if isinstance(data, dict):
        return data, None
    columns = getattr(data, "columns", None)
    if columns is not None and "query_id" in columns and type(data).__module__.startswith("pandas"):
        if "doc_id" not in columns or value not in columns:
            from rankmeter.compat.ir_measures.util import format_error
            raise format_error(data, value)
        names = ["query_id", "doc_id", value] + (["iteration"] if "iteration" in columns else [])
        rows = zip(*(data[c].tolist() for c in names))
    elif isinstance(data, (str, bytes)) or hasattr(data, "read") or columns is not None \
            or type(data).__module__.startswith(("pyarrow", "polars", "rankmeter", "pandas")) \
            or not isinstance(data, Iterable):
        if not isinstance(data, Iterable) and not hasattr(data, "read"):
            from rankmeter.compat.ir_measures.util import format_error
            raise format_error(data, value)
        return None
    else:
        rows = ((r.query_id, r.doc_id, getattr(r, value), getattr(r, "iteration", "0")) for r in data)
    flat: dict = {}
    nested: dict = {}
    subtopics = set()
    for row in rows:
        query, doc, v = str(row[0]), str(row[1]), row[2]
        flat.setdefault(query, {})[doc] = v
        if len(row) > 3:
            subtopics.add(str(row[3]))
            nested.setdefault(query, {}).setdefault(str(row[3]), {})[doc] = v
    return flat, (nested if len(subtopics) > 1 else None)


def table(data: dict | None, value: str, nested: bool = False, order: str = "trec_eval", columns=None):
    """``{q: {doc: v}}`` (``{q: {subtopic: {doc: v}}}``) as an Arrow table rankmeter reads, its rows in a
    provider's ``order`` (``"docno"``: score descending, docno ascending; ``"input"``: score descending,
    input order; ``"trec_eval"``: as given, rankmeter orders it; ``"float32"``: as given, each score rounded to a C
    float as pytrec_eval stores it); the dict itself when its values are not plain numbers (rankmeter's reader
    names them). ``columns``: the :func:`columns` of ``data``, read once."""
    import pyarrow as pa
    import pyarrow.compute as pc
    if data is None:
        return None
    if columns is None:
        columns = _columns(data, value, nested)
    if columns is None:
        return data
    out = columns["table"]
    if order == "float32":
        from rankmeter.compat.ir_measures.model import as_c_floats
        return out.set_column(out.schema.get_field_index(value), value, as_c_floats(out.column(value)))
    if order != "trec_eval" and out.num_rows > 1:
        distinct, score_rank = np.unique(-columns["values"], return_inverse=True)  # rank 0: the highest score
        keys = [columns["qcode"].astype(np.int64), score_rank.astype(np.int64)]
        sizes = [int(keys[0][-1]) + 1, len(distinct)]
        if order == "docno":
            encoded = pc.dictionary_encode(out.column("doc")).combine_chunks()  # few distinct docs: rank those
            rank = np.empty(len(encoded.dictionary), np.int64)
            rank[pc.sort_indices(encoded.dictionary).to_numpy()] = np.arange(len(rank))
            keys.append(rank[encoded.indices.to_numpy()])
            sizes.append(len(rank))
        if float(np.prod(np.array(sizes, dtype=np.float64))) < 2.0 ** 62:  # one integer key, one stable sort
            key = keys[0]
            for k, size in zip(keys[1:], sizes[1:]):
                key = key * size + k
            order_rows = np.argsort(key, kind="stable")
        else:
            order_rows = np.lexsort(tuple(reversed(keys)))  # lexsort is stable: input order last
        out = out.take(pa.array(order_rows))
    return out


def _columns(data: dict, value: str, nested: bool = False):
    """One pass over a dict of dicts: its Arrow table and the numbers the orders need (None: values not numbers)."""
    import pyarrow as pa
    if nested:
        rows = [(q, s, d, v) for q, subs in data.items() for s, docs in subs.items() for d, v in docs.items()]
        queries, subtopics = [str(r[0]) for r in rows], [str(r[1]) for r in rows]
        docs, values = [str(r[2]) for r in rows], [r[3] for r in rows]
        lengths = None
    else:
        lengths = np.fromiter((len(d) for d in data.values()), np.int64, len(data))
        docs = [str(d) for per_query in data.values() for d in per_query]
        values = [v for per_query in data.values() for v in per_query.values()]
    try:
        array = pa.array(values, pa.float64() if value == "score" else None)
        if value != "score" and not (pa.types.is_integer(array.type) or pa.types.is_floating(array.type)):
            return None
        if nested:
            cols = {"query": pa.array(queries, pa.string()), "subtopic": pa.array(subtopics, pa.string())}
            qcode = None
        else:
            qcode = np.repeat(np.arange(len(data), dtype=np.int32), lengths)
            names = pa.array([str(q) for q in data], pa.string())
            cols = {"query": names.take(pa.array(qcode))}
        cols["doc"] = pa.array(docs, pa.string())
        cols[value] = array
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError):
        return None
    numbers = array.to_numpy(zero_copy_only=False) if value == "score" else None
    return {"table": pa.table(cols), "qcode": qcode, "values": numbers}


def _parse(text):
    from rankmeter.compat.ir_measures.objects import parse_measure
    return parse_measure(text)


class Engine:
    """Qrels prepared once for ``(key, rankmeter measure, provider)`` triples; :meth:`scores` ranks a run as
    each provider does and yields ``(query, key, value)``."""

    def __init__(self, triples: list[tuple[object, object, str]], qrels):
        from rankmeter.core.evaluator import Evaluator as Core
        from rankmeter.measures.base import REGISTRY as FAMILIES
        self.triples = triples
        read = read_any(qrels, "relevance")
        flat, nested = read if read is not None else (qrels, None)
        self.empty = read is not None and not any(flat.values())
        self.qids: set = set(flat) if read is not None else None
        #: msmarco reads a doc as relevant when any of its lines is (its highest grade); the others read its last
        self._highest = read is not None and nested is not None
        highest = None
        if self._highest:
            highest = {q: {} for q in nested}
            for q, subtopics in nested.items():
                for docs in subtopics.values():
                    for d, g in docs.items():
                        highest[q][d] = max(g, highest[q].get(d, g))
            highest = table(highest, "rel")
        if read is not None:
            flat, nested = table(flat, "rel"), table(nested, "rel", nested=True)
        self._flat = read[0] if read is not None else None
        #: Compat as ir_measures' compat provider computes it (its ideal's ties), when the qrels are ir_measures'
        self._compat = {}
        #: SetF as trec_eval computes it from set precision and recall: (1 + b) P R / (b P + R)
        self._setf = {}
        groups: dict = {}
        for key, measure, provider in triples:
            if provider in ("compat", "pytrec_eval") and (self._flat is not None or provider == "pytrec_eval"):
                from rankmeter.compat.ir_measures.objects import REGISTRY, is_measure_object, params_of, to_rankmeter
                obj = key if is_measure_object(key) else _parse(key) if isinstance(key, str) else None
                name, params = params_of(obj) if obj is not None else (None, {})
                if provider == "compat" and name == "Compat":
                    self._compat[key] = (float(params["p"]), bool(params["normalize"]))
                    continue
                if name == "SetF":
                    parts = (to_rankmeter(REGISTRY["SetP"](rel=params["rel"], judged_only=params["judged_only"])),
                             to_rankmeter(REGISTRY["SetR"](rel=params["rel"])))
                    self._setf[key] = (float(params["beta"]), *parts)
                    groups.setdefault(("float32", False), []).extend(parts)
                    continue
            diverse = FAMILIES[measure.name].subtopics
            groups.setdefault((self._slot(provider), diverse), []).append(measure)
        self._parts = []
        if self.empty:
            return
        for (slot, diverse), measures in groups.items():
            judged = highest if slot == "highest" else nested if diverse and nested is not None else flat
            core = Core(judged, list(dict.fromkeys(measures)), ties="trec_eval" if slot in ("trec_eval", "float32") else "input")
            self._parts.append((slot, core))
        if self.qids is None:
            self.qids = set(self._parts[0][1].qrels.queries) if self._parts else set()

    def _slot(self, provider: str) -> str:
        """The provider's tie order, ``"float32"`` for pytrec_eval's (trec_eval's order of C float scores)."""
        from rankmeter.compat.ir_measures.dispatch import ORDER
        from rankmeter.compat.ir_measures.model import SCORES
        if provider == "msmarco" and self._highest:
            return "highest"
        return "float32" if SCORES.get(provider) == "float32" else ORDER[provider]

    def scores(self, run):
        """``(query, key, value)`` per query the run ranks and the qrels judge, and per measure defined there."""
        import warnings
        if self.empty:
            return
        read = read_any(run, "score")
        values: dict = {}
        queries: list[str] = []
        tables: dict = {}
        nothing = read is not None and not any(read[0].values())  # no ranked doc: judged queries take the default
        cols = _columns(read[0], "score") if read is not None and not nothing else None
        for slot, core in [] if nothing else self._parts:
            order = "docno" if slot == "highest" else slot
            if read is None:
                given = run
            else:
                if order not in tables:
                    tables[order] = table(read[0], "score", order=order, columns=cols)
                given = tables[order]
            with warnings.catch_warnings():  # ir_measures scores them as the default without a word
                warnings.filterwarnings("ignore", r".*judged queries have no results")
                warnings.filterwarnings("ignore", r".*(run|results).*")
                results = core.evaluate(given)
            for i, query in enumerate(results.queries):
                if query not in values:
                    values[query] = {}
                    queries.append(query)
                for m in results.measures:
                    values[query][slot, m] = float(results.values(m)[i])
        if self._compat and read is not None and not nothing:
            from rankmeter.compat.ir_measures.rbo import compat_values
            for key, (p, normalize) in self._compat.items():
                for query, value in compat_values(self._flat, read[0], p, normalize).items():
                    if query not in values:
                        values[query] = {}
                        queries.append(query)
                    values[query]["compat", key] = value
        for key, (beta, p_measure, r_measure) in self._setf.items():
            for query in queries:
                p, r = values[query].get(("float32", p_measure)), values[query].get(("float32", r_measure))
                if p is not None and r is not None:
                    values[query]["setf", key] = (1.0 + beta) * p * r / (beta * p + r) if p > 0 and r > 0 else 0.0
        if read is not None:
            self._empty_rankings(read[0], values, queries)
        for query in queries:
            for key, m, provider in self.triples:
                slot = ("compat", key) if key in self._compat else ("setf", key) if key in self._setf else \
                    (self._slot(provider), m)
                value = values[query].get(slot, float("nan"))
                if value is None:
                    yield query, key, float("nan")
                elif value == value:  # an undefined value (NaN) is not reported
                    yield query, key, float(f"{value:.5f}") if provider == "gdeval" else value

    def _empty_rankings(self, run: dict, values: dict, queries: list) -> None:
        """What pytrec_eval gives a judged query whose ranking is empty (``{"q": {}}``, or nothing judged left under
        ``judged_only``): NumQ 1, NumRel its relevant docs (pytrec_eval 0.5.11 gives 0 in some calls: uninitialised
        memory) and NaN interpolated precision at recall 0, which ir_measures reports (and averages into a NaN);
        everything else 0, the default."""
        special = [(key, m) for key, m, provider in self.triples if provider == "pytrec_eval"
                   and (m.name in ("NumQ", "NumRel") or m.name == "IPrec" and m.cutoff == 0)]
        if not special or self._flat is None:
            return
        for key, m in special:
            judged_only = bool(m.get("judged_only"))
            for query, docs in run.items():
                judged = self._flat.get(query)
                if judged is None or any(d in judged for d in docs) or (docs and not judged_only):
                    continue
                if query not in values:
                    values[query] = {}
                    queries.append(query)
                relevant = sum(1 for g in judged.values() if g >= 1)
                values[query]["float32", m] = {"IPrec": None, "NumQ": 1.0}.get(m.name, float(relevant))  # None: NaN
