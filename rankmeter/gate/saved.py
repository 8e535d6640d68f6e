"""A saved baseline: per-query values of every measure, with the provenance the gate checks.

The file is JSON (``format: "rankmeter-baseline/1"``)::

    {"format": "rankmeter-baseline/1", "created": ISO date, "rankmeter": version,
     "qrels": {"source": ..., "digest": sha256 of the judgments, "judgments": count},
     "options": {evaluation options}, "measures": [{"name": as given, "canonical": every option}],
     "runs": [{"source": ..., "tag": ..., "digest": sha256 of the run}],
     "queries": [query ids], "values": {canonical: [[per query] per run]},
     "judged_at": k, "judged": [[share of the top k judged, per query] per run],
     "slices": {name: [query ids]} or null, "history": [earlier baselines' provenance]}

Several runs of one nondeterministic system (``rankmeter baseline ... RUN1 RUN2 RUN3``) are kept apart, so the
gate compares with their per-query mean and knows the run-to-run noise. The digests are over the content
(judgments sorted by query and doc; a run's lines as read), so the same judgments in another file order or
format have the same digest.
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rankmeter.core.keywords import EvaluationOptions, Unpack, takes_options
from rankmeter.core.options import Options, validate_options
from rankmeter.errors import InputError, ParameterError

__all__ = ["Baseline", "baseline", "baseline_of", "save_baseline", "load_baseline", "read_slices", "FORMAT", "SCORING_OPTIONS",
           "JUDGED_AT"]

FORMAT = "rankmeter-baseline/1"
#: the largest magnitude of a per-query value a baseline holds: beyond it float64 sums of squared
#: differences lose every digit or overflow (2**53 is the last count a double holds exactly)
LARGEST_VALUE = 2.0 ** 53
#: the evaluation options that change a measure's value: a baseline and a gate must agree on them
SCORING_OPTIONS = ("queries", "rel", "judged_only", "max_docs", "ties", "positive_scores_only", "grades",
                   "ignore_self")
#: how deep the gate looks for unjudged documents at the top of the new run
JUDGED_AT = 10


@dataclass
class Baseline:
    """A loaded or freshly made baseline (see the module docstring for the file's fields)."""

    qrels: dict
    options: dict
    measures: list[dict]
    runs: list[dict]
    queries: list[str]
    values: dict[str, np.ndarray]            # canonical measure -> (runs x queries)
    judged: np.ndarray                       # (runs x queries): share of each run's top JUDGED_AT judged
    slices: dict[str, list[str]] | None = None
    created: str = ""
    version: str = ""
    history: list[dict] = field(default_factory=list)

    def mean(self, canonical: str) -> np.ndarray:
        """Per-query value of a measure, averaged over the baseline's runs."""
        return self.values[canonical].mean(axis=0)

    def provenance(self) -> dict:
        return {"created": self.created, "rankmeter": self.version, "qrels": self.qrels, "runs": self.runs,
                "measures": self.measures}

    def to_dict(self) -> dict:
        return {"format": FORMAT, "created": self.created, "rankmeter": self.version, "qrels": self.qrels,
                "options": self.options, "measures": self.measures, "runs": self.runs, "queries": self.queries,
                "values": {m: v.tolist() for m, v in self.values.items()}, "judged_at": JUDGED_AT,
                "judged": self.judged.tolist(), "slices": self.slices, "history": self.history}


def _column_bytes(column) -> bytes:
    import pyarrow as pa

    array = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if pa.types.is_binary(array.type) or pa.types.is_string(array.type) or pa.types.is_large_binary(array.type) \
            or pa.types.is_large_string(array.type):
        wide = pa.types.is_large_binary(array.type) or pa.types.is_large_string(array.type)
        offsets = np.frombuffer(array.buffers()[1], dtype=np.int64 if wide else np.int32)
        offsets = offsets[array.offset:array.offset + len(array) + 1]
        data = array.buffers()[2]
        body = b"" if data is None else data.to_pybytes()[offsets[0]:offsets[-1]]
        return np.diff(offsets).astype("<i8").tobytes() + body
    return np.asarray(array.to_numpy(zero_copy_only=False), dtype="<f8").tobytes()


def table_digest(table, columns: list[str], *, sort: bool) -> str:
    """sha256 of ``columns`` of an Arrow table; ``sort``: rows sorted by every column first (content, not order)."""
    if sort:
        table = table.sort_by([(c, "ascending") for c in columns])
    h = hashlib.sha256()
    for c in columns:
        h.update(c.encode() + b"\0")
        h.update(_column_bytes(table.column(c)))
    return h.hexdigest()


#: a slices file or dict: ``{slice: [query ids]}``; an id may be a JSON integer (TREC's numbers), read as its digits
SLICES = None  # made on first use: rankmeter.io.structured is imported lazily


def _slices_schema():
    from rankmeter.io.structured import Int, ListOf, MapOf, Str, Schema

    class QueryId(Schema):
        def describe(self):
            return "a query id (a string, or an integer)"

        def check(self, value, at, ctx):
            if type(value) is int:
                return str(Int(low=-2 ** 63, high=2 ** 64).check(value, at, ctx))
            if isinstance(value, str) and value:
                return Str().check(value, at, ctx)
            raise ctx.refuse(at, self.describe(), value)

    return MapOf(ListOf(QueryId()), key=Str(nonempty=True), min_items=1)


_SLICES_HINT = 'give {"slice": ["query id", ...], ...} or lines QUERY SLICE'


def check_slices(slices, *, source: str = "slices") -> dict[str, list[str]]:
    """Slices given in Python (``{slice: [query ids]}``) checked as a slices file is."""
    from rankmeter.io.structured import check
    return check(dict(slices) if isinstance(slices, Mapping) else slices, _slices_schema(), source=source,
                 hint=_SLICES_HINT)


def read_slices(source) -> dict[str, list[str]]:
    """Query slices from JSON (``{slice: [query ids]}``) or text lines ``QUERY SLICE`` (a query may be in several).

    The file must be UTF-8; JSON is read by :func:`rankmeter.io.structured.parse_json` (bounded, each field
    checked: a query id is a string or an integer, never ``true`` or ``1.5``).

    >>> import io
    >>> read_slices(io.BytesIO(b"q1 head\\nq2 tail\\nq3 tail\\n"))
    {'head': ['q1'], 'tail': ['q2', 'q3']}
    """
    from rankmeter.io import load_bytes
    from rankmeter.io.structured import MAX_BYTES, parse_json

    data, name = load_bytes(source)
    if len(data) > MAX_BYTES:
        raise InputError(f"a slices file of {len(data)} bytes, more than rankmeter reads ({MAX_BYTES})", source=name)
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = data.count(b"\n", 0, exc.start) + 1
            raise InputError(f"not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}): save the file "
                             "as UTF-8", source=name, line=line) from None
    else:
        text = data
    if text.lstrip()[:1] in ("{", "["):
        return parse_json(text, _slices_schema(), source=name, hint=_SLICES_HINT)
    slices: dict[str, list[str]] = {}
    for number, line in enumerate(text.splitlines(), 1):
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) != 2:
            raise InputError(f"expected two fields, QUERY SLICE; got {len(fields)}", source=name, line=number)
        slices.setdefault(fields[1], []).append(fields[0])
    if not slices:
        raise InputError("no slice: give lines 'QUERY SLICE' or JSON {slice: [queries]}", source=name)
    return slices


def _judged_label() -> str:
    return f"Judged@{JUDGED_AT}"


def scoring_evaluator(qrels, measures, options: Options):
    """The Evaluator of ``measures`` plus Judged@JUDGED_AT (the unjudged documents at the top), scored in one pass."""
    from rankmeter.core.evaluator import Evaluator
    wanted = [measures] if isinstance(measures, str) else list(measures)
    return Evaluator.of(qrels, wanted + [_judged_label()], options)


def measure_entries(evaluator) -> list[dict]:
    """The measures asked for (not the Judged@k the gate adds), each with its canonical name."""
    from rankmeter.measures.base import format_measure
    return [{"name": label, "canonical": format_measure(evaluator._effective[m])}
            for label, m in evaluator.names[:-1]]


def _scoring_options(evaluator) -> dict[str, Any]:
    return {name: getattr(evaluator.options, name) for name in SCORING_OPTIONS}


def score_run(evaluator, run) -> tuple[list[str], dict[str, np.ndarray], np.ndarray]:
    """(query ids in natural order, canonical measure -> per-query values, share judged in the top k) of one run,
    from one evaluation (``evaluator`` from :func:`scoring_evaluator`)."""
    results = evaluator.evaluate(run)
    values = {entry["canonical"]: np.asarray(results.values(m), dtype=np.float64)
              for entry, (_, m) in zip(measure_entries(evaluator), evaluator.names)}
    judged = np.asarray(results.values(evaluator.names[-1][1]), dtype=np.float64)
    return results.queries, values, judged


def qrels_provenance(evaluator, qrels) -> dict:
    from rankmeter.judges.pairs import source_name
    table = evaluator.qrels.table
    return {"source": source_name(qrels, "<judgments>"), "judgments": table.num_rows,
            "digest": table_digest(table, ["query", "doc", "rel"], sort=True)}


def run_provenance(name: str, run, given) -> dict:
    """A run's source, tag and digest: of the file's bytes when it is a file (as read, compressed or not), else of
    its (query, doc, score) rows."""
    from rankmeter.judges.pairs import source_name
    if isinstance(given, (str, os.PathLike)) and os.path.isfile(given):
        h = hashlib.sha256()
        with open(given, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 22), b""):
                h.update(block)
        digest = h.hexdigest()
    else:
        digest = table_digest(run.table, ["query", "doc", "score"], sort=False)
    return {"source": source_name(given, name), "tag": name, "digest": digest}


@takes_options(in_memory=True)
def baseline(qrels, runs, measures, *, slices: str | os.PathLike[str] | Mapping[str, Sequence[str]] | None = None,
             **options: Unpack[EvaluationOptions]) -> Baseline:
    """Per-query values of ``measures`` for one run or several runs of the same system, with provenance.

    The evaluation options are recorded and required of the gate.

    Parameters
    ----------
    qrels : path, Qrels, dict or DataFrame
        The judgments.
    runs : path, Run, dict, or a list of them
        The system's run; several runs of a nondeterministic system are kept apart (the run-to-run noise).
    measures : str or list of str
        Any measure names (``nDCG@10``, ``AP``, ``P(rel=2)@5``, trec_eval's names).
    slices : path or dict, optional
        ``{slice: [query ids]}`` or a file of ``QUERY SLICE`` lines: the gate checks each slice too.
    %(evaluation_options)s

    Examples
    --------
    >>> qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    >>> b = baseline(qrels, {"q1": {"a": 2.0, "x": 1.0}, "q2": {"x": 2.0, "b": 1.0}}, ["RR"])
    >>> b.measures
    [{'name': 'RR', 'canonical': 'RR(rel=1)'}]
    >>> b.queries, b.values["RR(rel=1)"].tolist()
    (['q1', 'q2'], [[1.0, 0.5]])
    """
    return baseline_of(qrels, runs, measures, validate_options(**options), slices=slices)


def baseline_of(qrels, runs, measures, options: Options, *, slices=None) -> Baseline:
    """:func:`baseline` with its evaluation options validated already."""
    from rankmeter._version import __version__
    from rankmeter.core.naming import name_runs

    evaluator = scoring_evaluator(qrels, measures, options)
    given = list(runs) if isinstance(runs, (list, tuple)) else [runs]
    named = name_runs(given, columns=evaluator.options.columns, input_format=evaluator.options.input_format)
    scored = [score_run(evaluator, run) for _, run in named]
    queries = scored[0][0]
    for (name, _), (other, _, _) in zip(named[1:], scored[1:]):
        if other != queries:
            missing = [q for q in queries if q not in set(other)]
            more = [q for q in other if q not in set(queries)]
            said = "; ".join(part for part in (
                f"{len(missing)} of {named[0][0]}'s not answered (e.g. {missing[0]!r})" if missing else "",
                f"{len(more)} that {named[0][0]} does not answer (e.g. {more[0]!r})" if more else "",
                "the same queries in another order" if not missing and not more else "") if part)
            raise ParameterError(f"runs: {name} answers other queries than {named[0][0]} ({said}): the runs of one "
                                 "baseline must answer the same queries (queries='qrels' scores every judged query)")
    values = {m: np.vstack([s[1][m] for s in scored]) for m in scored[0][1]}
    chosen = None
    if slices is not None:
        chosen = check_slices(slices) if isinstance(slices, Mapping) else read_slices(slices)
    return Baseline(qrels=qrels_provenance(evaluator, qrels), options=_scoring_options(evaluator),
                    measures=measure_entries(evaluator),
                    runs=[run_provenance(name, run, g) for (name, run), g in zip(named, given)],
                    queries=list(queries), values=values, judged=np.vstack([s[2] for s in scored]), slices=chosen,
                    created=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"), version=__version__)


def save_baseline(base: Baseline, path, *, inputs=()) -> None:
    """Write ``base`` as JSON through the guarded, atomic writer (never over one of ``inputs``: the ratchet
    replaces the baseline it read, which is not one of them)."""
    from rankmeter.io.output import output_file
    text = json.dumps(base.to_dict(), indent=1, allow_nan=False) + "\n"
    with output_file(path, inputs=list(inputs)) as fh:
        fh.write(text)


_HINT = "give the file `rankmeter baseline` wrote, unedited (or make it again)"


def _baseline_schema():
    from rankmeter.core.params import PARAMS
    from rankmeter.io.structured import Anything, Int, ListOf, MapOf, Nullable, Numbers, Record, Schema, Str

    class Declared(Schema):
        """An evaluation option, checked by its declaration (its kind, bounds, choices), never converted."""

        def __init__(self, param):
            self.param = param

        def describe(self):
            wide = self.param.kind == "integer" and self.param.high > 2 ** 63
            return self.param.expected + (" (at most 2**63 - 1)" if wide else "")

        def check(self, value, at, ctx):
            if isinstance(value, (list, dict, str)) and self.param.kind not in ("choice", "string") \
                    or isinstance(value, float) and not math.isfinite(value) \
                    or type(value) is int and not -2 ** 63 <= value < 2 ** 63:
                raise ctx.refuse(at, self.describe(), value)
            try:
                return self.param.check(value)
            except ParameterError:
                raise ctx.refuse(at, self.describe(), value) from None

    provenance = Record({"source": Str(), "tag": Str(), "digest": Str()})
    digest = Str(pattern="[0-9a-f]{64}", what="a sha256 digest (64 hexadecimal digits)")

    class Baseline_(Schema):
        def describe(self):
            return f"a baseline (an object with \"format\": \"{FORMAT}\")"

        def check(self, value, at, ctx):
            if not isinstance(value, dict) or value.get("format") != FORMAT:
                raise InputError(f"not a baseline: expected format {FORMAT!r} (made by rankmeter baseline)",
                                 source=ctx.source)
            queries = value.get("queries")
            length = len(queries) if isinstance(queries, list) else None
            values = Numbers(rows=True, length=length, low=-LARGEST_VALUE, high=LARGEST_VALUE)
            return Record(
                {"format": Str(), "qrels": Record({"source": Str(), "judgments": Int(0, 2 ** 53), "digest": digest}),
                 "options": Record({}, {name: Declared(PARAMS[name]) for name in SCORING_OPTIONS}, closed=True),
                 "measures": ListOf(Record({"name": Str(nonempty=True), "canonical": Str(nonempty=True)}),
                                    min_items=1),
                 "runs": ListOf(provenance, min_items=1), "queries": ListOf(Str(), min_items=1, unique=True),
                 "values": MapOf(values, min_items=1),
                 "judged": Numbers(rows=True, length=length, low=0, high=1)},
                {"created": Str(), "rankmeter": Str(), "judged_at": Int(choices=(JUDGED_AT,)),
                 "slices": Nullable(_slices_schema()), "history": ListOf(Anything())}).check(value, at, ctx)

    return Baseline_()


def load_baseline(source) -> Baseline:
    """Read a baseline file (what :func:`save_baseline` wrote); refuses another format or a damaged file.

    Every field is checked (:mod:`rankmeter.io.structured`): a value that is not a finite number within
    ``2**53`` (``NaN``, ``Infinity``, ``1e308``), a share judged outside [0, 1], a string where a number or
    a boolean belongs, a measure without values or values of another length than the queries is an
    :class:`~rankmeter.errors.InputError` naming the file and the field.
    """
    from rankmeter.io.structured import field_error, read_json

    name = os.fsdecode(source) if isinstance(source, (str, os.PathLike)) else "<baseline>"
    data = read_json(source, _baseline_schema(), what="the baseline", hint=_HINT)
    queries, runs = data["queries"], len(data["runs"])
    canonical = [e["canonical"] for e in data["measures"]]
    twice = sorted({c for c in canonical if canonical.count(c) > 1})
    if twice:
        raise field_error(name, "measures", f"each measure once ({twice[0]} is given twice)", got=False, hint=_HINT)
    for c in canonical:
        if c not in data["values"]:
            raise field_error(name, ("values", c), f"the per-query values of the measure {c} (the field is missing)",
                              got=False, hint=_HINT)
    for c in data["values"]:
        if c not in canonical:
            raise field_error(name, ("values", c), "values of a measure the baseline names in measures (this one "
                              "it does not)", got=False, hint=_HINT)
    for at, rows in [(("values", c), v) for c, v in data["values"].items()] + [(("judged",), data["judged"])]:
        if rows.shape[0] != runs:
            raise field_error(name, at, f"one list per run ({runs}, as in runs)", rows.tolist(), hint=_HINT)
    values, judged = data["values"], data["judged"]
    return Baseline(qrels=data["qrels"], options=data["options"], measures=data["measures"], runs=data["runs"],
                    queries=queries, values=values, judged=judged, slices=data.get("slices"),
                    created=data.get("created", ""), version=data.get("rankmeter", ""),
                    history=list(data.get("history", [])))
