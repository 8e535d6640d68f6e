"""``rankmeter trec_eval``: trec_eval 10.0's command line and its exact output.

Every option of trec_eval 10.0 (see :mod:`.trec_eval_args`): ``-q -c -J -n
-M -l -m -N -D -R -T -Z -o -h -v``. The output is trec_eval's, quirks included,
each one commented with the C source it mirrors. Where 10.0 aborts because a
judged topic has no results (without ``-c``), the topics in both files are
evaluated (as trec_eval 9 did) and a warning goes to stderr.
"""
from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from rankmeter.errors import MeasureError, ParameterError
from rankmeter.measures.aggregation import COUNT, FLOAT, TEXT
from rankmeter.measures.trec_eval import Derived, expand_exact, uses_level
from rankmeter.compat.trec_eval.args import USAGE, TrecEvalArgs, parse_args
from rankmeter.cli.streams import write_all

__all__ = ["run", "parse_args", "TrecEvalArgs"]

VERSION_LINE = "trec_eval version 10.0-rc3"   # what trec_eval -v writes (to stderr)
BOGUS_DOC = b"ceci_nest_pas_un_docno"         # trec_eval.c: the one-doc ranking of a missing topic (-c)
_FORMATS = ("qrels", "prefs", "qrels_prefs", "qrels_jg")


@dataclass
class Column:
    """One printed measure: its label, per-query values and how they summarise."""

    label: str
    values: Any                      # np.ndarray (numbers) or list of str (relstring)
    kind: str                        # "float", "count" or "text"
    per_query: bool = True
    summary: bool = True
    reduce: Callable | None = None   # per-query values -> summary value
    summary_override: Any = None     # a summary trec_eval computes from elsewhere (-c num_rel)
    zscore: bool = True              # converted by -Z (num_q and relstring are not)


def _number(kind: str, value: Any, z: bool) -> str:
    if kind == "count" and not z:
        return "%ld" % int(value)
    value = float(value)
    if math.isnan(value):
        # 0.0/0.0 in C is the negative default NaN; glibc prints it as -nan
        return "%6s" % "-nan"
    return "%6.4f" % value


def _reduce_mean(values: np.ndarray) -> float:
    return float(np.mean(values)) if len(values) else 0.0


# -- qrels (the standard format) --------------------------------------------------------------

def _prepare(m, args: TrecEvalArgs):
    if m.get("rel") is None:
        m = m.with_params(rel=args.level if uses_level(m) else 1)
    if m.name == "Utility" and args.num_docs:
        m = m.with_params(num_docs=args.num_docs)
    return m


def _with_bogus_rows(run_table, missing: list[bytes]):
    """trec_eval.c -c: a topic missing from the run is scored on a one-doc ranking (BOGUS_DOC, sim 1.0)."""
    from rankmeter.engine.ids import Ids
    from rankmeter.io.canonical import Columns, Run
    columns = Columns({
        "query": Ids.concat([run_table.ids("query"), Ids.from_list(missing)]),
        "doc": Ids.concat([run_table.ids("doc"), Ids.from_list([BOGUS_DOC] * len(missing))]),
        "score": np.concatenate([run_table.numbers("score"), np.ones(len(missing))]),
    })
    return Run(columns, source=run_table.source, tag=run_table.tag, ranked=run_table.ranked)


def _zero_leftovers(columns: list[Column], bogus: np.ndarray) -> None:
    """trec_eval.c after a bogus ranking: zero the leftovers by EXACT name (num_ret, utility, rbp_resid),
    by prefix (unj*), and clear relstring; a parameterised utility_2,-1,0,0 keeps its value."""
    if not bogus.any():
        return
    for col in columns:
        if col.label == "relstring":
            col.values = ["" if b else v for v, b in zip(col.values, bogus)]
        elif col.label in ("num_ret", "utility", "rbp_resid") or col.label.startswith("unj"):
            col.values = np.where(bogus, 0, col.values).astype(col.values.dtype)


def _iprec_nan(columns, rows, num_ret: np.ndarray, num_rel: np.ndarray) -> None:
    """m_iprec_at_recall.c / m_11pt_avg.c: with nothing retrieved (-J, -M0) the starting precision
    0/0 is NaN; it lands on every recall level whose cutoff lround(x * num_rel) is 0 (and so
    11pt_avg, their mean, is NaN as soon as one such level is asked for)."""
    empty = num_ret == 0
    if not empty.any():
        return
    for col, (label, tm, m) in zip(columns, rows):
        if tm.name == "iprec_at_recall":
            cut_zero = np.floor(float(m.cutoff) * num_rel + 0.5) == 0
        elif tm.name == "11pt_avg":
            levels = ([float(n.cutoff) for n in m.needs[:-3]] if isinstance(m, Derived)
                      else m.get("recalls") or [i / 10 for i in range(11)])
            cut_zero = np.any(np.floor(np.outer(num_rel, levels) + 0.5) == 0, axis=1)
        else:
            continue
        col.values = np.where(empty & cut_zero, np.nan, col.values)


def _rndcg_nan(columns, rows, num_rel: np.ndarray, judgments, ids) -> None:
    """m_Rndcg.c divides by the number of ideal-gain changes it saw: 0/0 = NaN for a topic with
    relevant docs (grade >= -l, e.g. -l0) but no positive ideal gain."""
    from rankmeter.compat.trec_eval.ideal_dcg import has_positive_gain
    codes = None
    for col, (label, tm, m) in zip(columns, rows):
        if tm.name != "Rndcg" or not (num_rel > 0).any():
            continue
        spec = m.get("gain")
        gains = {} if spec is None or isinstance(spec, str) else dict(spec)
        if codes is None:  # the judged ids are sorted bytewise, their code is their place: no Arrow array built
            codes = np.searchsorted(np.array(judgments.ids.to_pylist(), dtype=object), np.array(ids, dtype=object))
        positive = has_positive_gain(judgments.judged_rel, judgments.judged_offsets, codes, gains)
        col.values = np.where((num_rel > 0) & ~positive, np.nan, col.values)


def _qrels_columns(args: TrecEvalArgs, rows, run_table, err):
    from rankmeter.core import Evaluator
    from rankmeter.core.in_memory import evaluate_in_memory
    from rankmeter.core.options import validate_options
    from rankmeter.io import read_qrels
    from rankmeter.io.canonical import Qrels
    from rankmeter.measures.base import Measure

    qrels = read_qrels(args.qrels, truncate_grades=False, input_format="trec")  # trec_eval reads every line as data
    if "subtopic" in qrels.column_names:  # trec_eval ignores the second field: a doc twice is a duplicate
        qrels = Qrels(qrels.data.drop_columns(["subtopic"]), qrels.source, qrels.lines, origin=qrels.origin)
    bogus_ids: set[bytes] = set()
    if args.complete:
        judged = set(qrels.ids("query").encode()[0].to_pylist())
        missing = sorted(judged - set(run_table.ids("query").encode()[0].to_pylist()))
        if missing:
            bogus_ids = set(missing)
            run_table = _with_bogus_rows(run_table, missing)
    prepared = []
    for label, tm, payload in rows:
        if isinstance(payload, Derived):
            payload = Derived(payload.name, tuple(_prepare(m, args) for m in payload.needs), payload.compute)
        elif payload is not None and not isinstance(payload, tuple):
            payload = _prepare(payload, args)
        prepared.append((label, tm, payload))
    counts = (_prepare(Measure.of("NumRet"), args), _prepare(Measure.of("NumRel"), args))
    needed = list(counts)
    for _, _, p in prepared:
        needed.extend(p.needs if isinstance(p, Derived) else ([p] if p is not None and not isinstance(p, tuple) else []))
    needed = list(dict.fromkeys(needed))
    options = validate_options(queries="qrels" if args.complete else "both", judged_only=args.judged_only,
                               max_docs=args.max_docs)
    evaluator = Evaluator.of(qrels, needed, options)
    results = evaluate_in_memory(evaluator, run_table, warn=False)
    if not args.complete and results.missing:
        print(f"rankmeter trec_eval: warning: {len(results.missing)} judged topic(s) have no results "
              "and are not evaluated (trec_eval 10.0 would abort; -c scores them)", file=err)
    ids = results.query_ids(order="bytes")  # trec_eval prints and adds up its topics in byte order
    columns = []
    for label, tm, p in prepared:
        if p is None:
            continue
        if isinstance(p, tuple):     # ideal_dcg: from the judgments alone
            from rankmeter.compat.trec_eval.ideal_dcg import ideal_dcg
            judged_q = np.array(qrels.table.column("query").to_pylist(), dtype=object).astype(bytes)
            values = ideal_dcg(judged_q, qrels.table.column("rel").to_numpy(), ids, p[1])
            columns.append(Column(label, values, "float", tm.per_query, tm.summary, _reduce_mean))
            continue
        if isinstance(p, Derived):
            values = p.compute(*[np.asarray(results.values(m, order="bytes"), dtype=np.float64) for m in p.needs])
            columns.append(Column(label, values, "float", tm.per_query, tm.summary, _reduce_mean))
            continue
        vt = p.family.value_type
        kind = "text" if vt is TEXT else ("count" if vt is COUNT else "float")
        values = results.values(p, order="bytes")
        if kind == "text":
            values = list(values)
        # -Z turns counts into floats: summarise them as floats then
        reduce = (lambda v, agg=p.family.aggregation, vt=vt: agg.reduce(v, FLOAT if v.dtype.kind == "f" else vt))
        col = Column(label, values, kind, tm.per_query, tm.summary, reduce,
                     zscore=kind != "text" and label != "num_q")
        if label == "num_rel" and args.complete:
            # m_num_rel.c te_calc_avg_num_rel: with -c the summary counts every judged grade > 0
            # of every topic, whatever -l says
            col.summary_override = int(np.count_nonzero(qrels.numbers("rel") > 0))
        columns.append(col)
    kept = [r for r in prepared if r[2] is not None]
    num_rel = np.asarray(results.values(counts[1], order="bytes"), dtype=np.float64)
    _iprec_nan(columns, kept, np.asarray(results.values(counts[0], order="bytes")), num_rel)
    _rndcg_nan(columns, kept, num_rel, evaluator.judgments, ids)
    _zero_leftovers(columns, np.array([q in bogus_ids for q in ids], dtype=bool))
    return ids, columns


# -- prefs / qrels_prefs / qrels_jg -------------------------------------------------------------

def _other_columns(args: TrecEvalArgs, rows, run_table, err):
    from rankmeter.measures.trec_eval.judgment_groups import query_jg_values
    from rankmeter.measures.trec_eval.prefs import PREFS_MEASURES, query_prefs_values
    from rankmeter.compat.trec_eval.run_order import ranked_docs
    from rankmeter.io.rel_formats import read_prefs, read_qrels_jg

    jg_mode = args.rel_format == "qrels_jg"
    ranked = ranked_docs(run_table, max_docs=args.max_docs, ties_descending=jg_mode)
    judgments = read_qrels_jg(args.qrels) if jg_mode else read_prefs(
        args.qrels, form="prefs" if args.rel_format == "prefs" else "qrels_prefs")
    ids = []
    for q in judgments:
        if q in ranked:
            ids.append(q)
        elif args.complete:
            ids.append(q)
            # trec_eval.c -c: the bogus one-doc ranking (its doc is judged nowhere)
            ranked[q] = np.array([BOGUS_DOC])
    missing = [q for q in judgments if q not in ranked]
    if missing:
        print(f"rankmeter trec_eval: warning: {len(missing)} judged topic(s) have no results "
              "and are not evaluated (trec_eval 10.0 would abort; -c scores them)", file=err)
    wanted = [(label, tm, p) for label, tm, p in rows if p is not None and tm.name != "num_q"]
    per_query: list[dict] = []
    if jg_mode:
        cutoffs = [p[2] for _, _, p in wanted if p[1] == "P_avgjg"]
        mults = [p[2] for _, _, p in wanted if p[1] == "Rprec_mult_avgjg"]
        for q in ids:
            v = query_jg_values(ranked[q], judgments[q], level=args.level, judged_only=args.judged_only,
                                cutoffs=cutoffs or [1], mults=mults or [1.0])
            per_query.append(v)
    else:
        for q in ids:
            docs = ranked[q]
            if args.judged_only:
                docs = docs[np.isin(docs, judgments[q].doc)]
            per_query.append(query_prefs_values(docs, judgments[q]))
    columns = []
    for label, tm, p in rows:
        if tm.name == "num_q":
            columns.append(Column("num_q", np.ones(len(ids), dtype=np.int64), "count", False, True,
                                  lambda v: int(len(v)), zscore=False))
        elif p is None:
            continue
        elif jg_mode:
            name, param = p[1], p[2]
            if name == "map_avgjg":
                values = np.array([v["map_avgjg"][0] for v in per_query])
            else:
                pos = (cutoffs if name == "P_avgjg" else mults).index(param)
                values = np.array([v[name][pos] for v in per_query])
            columns.append(Column(label, values, "float", True, True, _reduce_mean))
        else:
            is_count = PREFS_MEASURES[p[1]]
            values = np.array([v[p[1]] for v in per_query], dtype=np.int64 if is_count else np.float64)
            columns.append(Column(label, values, "count" if is_count else "float", True, True,
                                  (lambda v: int(np.sum(v))) if is_count else _reduce_mean))
    return ids, columns


# -- output ---------------------------------------------------------------------------------------

def _apply_zscores(path: str, ids: list[bytes], columns: list[Column]) -> None:
    from rankmeter.meta.zscores import to_zscores
    from rankmeter.io.zscores import read_zscores
    table = read_zscores(path)
    for col in columns:
        if col.zscore:
            col.values = to_zscores(col.values, ids, col.label, table)


def _line(prefix: str, label: str, query: bytes, value: str) -> bytes:
    return b"%s%-22s\t%s\t%s\n" % (prefix.encode(), label.encode(), query, value.encode())


def _render(args: TrecEvalArgs, ids, columns: list[Column], tag: bytes, has_runid: bool) -> bytes:
    z = args.zscores is not None
    chunks = []
    if args.per_query:
        for qi, q in enumerate(ids):
            for col in columns:
                if not col.per_query:
                    continue
                if col.kind == "text":
                    chunks.append(_line("", col.label, q, f"'{col.values[qi]}'"))
                else:
                    zz = z and col.zscore
                    chunks.append(_line("Z" if zz else "", col.label, q, _number(col.kind, col.values[qi], zz)))
    if not args.summary:      # trec_eval.c -n: summary_flag = 0, no `all` lines at all (runid included)
        return b"".join(chunks)
    if has_runid:
        chunks.append(b"%-22s\tall\t%s\n" % (b"runid", tag))
    for col in columns:
        if not col.summary or col.kind == "text":
            continue
        value = col.summary_override if col.summary_override is not None else col.reduce(np.asarray(col.values))
        chunks.append(_line("Z" if z else "", col.label, b"all", _number(col.kind, value, z)))
    return b"".join(chunks)


def run(argv: list[str], out=None, err=None) -> int:
    """Run trec_eval with ``argv``; write its output to ``out`` (binary stream). Returns the exit code."""
    out = out if out is not None else sys.stdout.buffer
    err = err if err is not None else sys.stderr
    args = parse_args(argv)
    if args.help:                # trec_eval.c: help is printed after all options are read, exit 0
        from rankmeter.compat.trec_eval.help import help_text
        write_all(out, help_text(args.measures).encode())
        out.flush()
        return 0
    if args.version:             # trec_eval.c: the version line goes to stderr, exit 0
        print(VERSION_LINE, file=err)
        return 0
    if len(args.files) != 2:
        raise ParameterError(f"expected a rel_info file and a results file, got {len(args.files)} file(s); {USAGE}")
    if args.rel_format not in _FORMATS:
        raise ParameterError(f"trec_eval: unknown -R format {args.rel_format!r}; use one of {', '.join(_FORMATS)}")
    if args.results_format != "trec_results":
        raise ParameterError(f"trec_eval: unknown -T format {args.results_format!r}; only trec_results exists")
    rows = expand_exact(args.measures or ["official"])
    mode = "prefs" if args.rel_format in ("prefs", "qrels_prefs") else args.rel_format
    for label, tm, _ in rows:
        if tm.name not in ("runid", "num_q") and tm.mode != mode:
            need = {"qrels": "the standard qrels format (no -R)", "prefs": "-R prefs or -R qrels_prefs",
                    "qrels_jg": "-R qrels_jg"}[tm.mode]
            raise MeasureError(f"trec_eval measure {tm.name} needs {need}; got -R {args.rel_format}")
    from rankmeter.io import read_run
    run_table = read_run(args.run, input_format="trec")
    if mode == "qrels":
        ids, columns = _qrels_columns(args, rows, run_table, err)
    else:
        ids, columns = _other_columns(args, rows, run_table, err)
    if args.zscores is not None:
        _apply_zscores(args.zscores, ids, columns)
    has_runid = any(tm.name == "runid" for _, tm, _ in rows)
    write_all(out, _render(args, ids, columns, run_table.tag, has_runid))  # a short write continued, or an error
    out.flush()
    return 0
