"""Fusion methods over an aligned (pairs x runs) score matrix, named and defined as in ranx.

With S[p, r] the (normalised) score run r gives pair p = (query, doc) (missing when the run
does not retrieve it), n_p the number of runs retrieving p and rank[p, r] its 1-based rank in
run r in the core's order (``ties="trec_eval"``: score descending, docno descending; ``ties="input"``: the
order the run gives, ranx's ranks for a run given in rank order). The parameters and their valid ranges
are declared in :data:`~rankmeter.fusion.catalog.PARAMETERS`:

==============  ==========================================================  ================
method          fused score                                                 parameters
==============  ==========================================================  ================
``sum``         sum of the scores present (CombSUM)
``mnz``         sum * n_p (CombMNZ)
``gmnz``        sum * n_p ** gamma                                          ``gamma``
``anz``         sum / n_p (CombANZ)
``max``         max of the scores present (CombMAX)
``min``         min of the scores present (CombMIN)
``med``         median of the scores present (CombMED)
``wsum``        sum of weight_r * S[p, r]                                   ``weights``
``wmnz``        (sum of the scores present) * (sum of their runs' weights)  ``weights``
``rrf``         sum of 1 / (k + rank)                                       ``k`` (60)
``rbc``         sum of (1 - phi) * phi ** (rank - 1)                        ``phi``
``isr``         (sum of 1 / rank**2) * n_p
``log_isr``     (sum of 1 / rank**2) * log(n_p)
``logn_isr``    (sum of 1 / rank**2) * log(n_p + sigma)                     ``sigma`` (0.01)
``bordafuse``   sum of Borda points: m - rank + 1, (m - n + 1) / 2 unranked
``w_bordafuse`` sum of weight_r * Borda points (ranx weighted_bordafuse)         ``weights``
``condorcet``   m - position after sorting by pairwise majority (Montague and
                Aslam 2002; see :mod:`~rankmeter.fusion.condorcet`)
``w_condorcet`` the same with each run's vote weighted                          ``weights``
``mixed``       (sum of weight_r * S[p, r] present) * sqrt(n_p)                 ``weights``
``posfuse``     sum of probs_r[rank]: trained (:mod:`~rankmeter.fusion.trained`) ``probs``
``probfuse``    sum of probs_r[segment] / segment number: trained               ``probs`` (``n_segments``)
``segfuse``     sum of probs_r[segment] * (S[p, r] + 1): trained                ``probs``
``slidefuse``   sum of the mean of probs_r over rank -+ w: trained              ``probs``, ``w``
``bayesfuse``   sum of log_odds_r[rank], log(0.001/0.999) where absent: trained ``log_odds``
``mapfuse``     sum of map_r / rank: trained                                    ``map_scores``
==============  ==========================================================  ================
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from rankmeter.core.build import query_starts, ranked_rows
from rankmeter.core.keywords import EvaluationOptions, Unpack, takes_options
from rankmeter.core.options import Options
from rankmeter.errors import ParameterError
from rankmeter.io.canonical import Run
from rankmeter.core.naming import name_runs
from rankmeter.fusion.catalog import FUSE_OPTIONS, METHODS
from rankmeter.engine.param import validate_params
from rankmeter.fusion.trained import TRAINED
from rankmeter.fusion.normalisation import normalise

__all__ = ["METHODS", "fuse", "fuse_read", "read_runs"]

def _aligned(runs: list[Run], ties: str = "trec_eval") -> tuple[pa.Array, pa.Array, np.ndarray, np.ndarray, np.ndarray]:
    """Every (query, doc) retrieved by some run, and the runs' scores and ranks on them (NaN: absent),
    and the first row (over the runs' rows in rank order, run after run) of each pair.

    Rows are keyed by the engine's 64-bit (query code, doc id) hash; only numbers are reordered, and
    equal keys are checked to be equal ids (a collision, never seen, falls back to Arrow's dictionary
    encoding of the joined ids).
    """
    from rankmeter.engine.keys import chunked_id_hash, pair_hash

    tables = [run.table for run in runs]
    blocks = [query_starts(t.column("query")) for t in tables]
    names = pa.chunked_array([t.column("query").take(pa.array(b)).combine_chunks().cast(pa.binary())
                              for t, b in zip(tables, blocks)])
    block_codes = pc.dictionary_encode(names.combine_chunks()).indices.to_numpy(zero_copy_only=False).astype(np.int64)
    docs = pa.chunked_array([c for t in tables for c in t.column("doc").cast(pa.binary()).chunks], pa.binary())
    doc_hash = chunked_id_hash(docs)
    keys, codes, scores, ranks, origin = [], [], [], [], []
    at = code_at = 0
    for t, b, run in zip(tables, blocks, runs):
        n = t.num_rows
        code = np.repeat(block_codes[code_at:code_at + len(b)], np.diff(np.append(b, n)))
        code_at += len(b)
        order = ranked_rows(run, ties=ties)
        code = code[order]
        key = pair_hash(code, doc_hash[at:at + n][order])
        change = np.flatnonzero(code[1:] != code[:-1]) + 1
        starts = np.concatenate(([0], change)) if n else np.zeros(0, np.int64)
        ranks.append(np.arange(n) - np.repeat(starts, np.diff(np.append(starts, n))) + 1)
        scores.append(t.column("score").to_numpy()[order])
        keys.append(key)
        codes.append(code)
        origin.append(at + order)
        at += n
    key = np.concatenate(keys)
    origin = np.concatenate(origin)          # rank-ordered row -> row of the runs' tables, one after another
    order = np.argsort(key, kind="stable")
    sorted_key = key[order]
    new = np.ones(len(key), dtype=bool)
    new[1:] = sorted_key[1:] != sorted_key[:-1]
    pair = np.empty(len(key), np.int64)
    pair[order] = np.cumsum(new) - 1
    first = order[new]                       # stable: the earliest rank-ordered row of each pair
    queries = pa.chunked_array([c for t in tables for c in t.column("query").cast(pa.binary()).chunks], pa.binary())
    code = np.concatenate(codes)
    lead = first[pair]
    again = np.flatnonzero(lead != np.arange(len(lead)))   # rows whose pair an earlier row opened
    same = (code[again] == code[lead[again]]).all() and pc.all(pc.equal(
        docs.take(pa.array(origin[again])), docs.take(pa.array(origin[lead[again]])))).as_py() is not False
    if not same:
        joined = pc.binary_join_element_wise(queries.take(pa.array(origin)), docs.take(pa.array(origin)),
                                             pa.scalar(b"\x00", pa.binary()))
        pair = pc.dictionary_encode(joined.combine_chunks()).indices.to_numpy(zero_copy_only=False).astype(np.int64)
        first = np.full(int(pair.max(initial=-1)) + 1, -1, np.int64)
        first[pair[::-1]] = np.arange(len(pair))[::-1]
    npairs = len(first)
    S = np.full((npairs, len(runs)), np.nan)
    R = np.full((npairs, len(runs)), np.nan)
    start = 0
    for r, (values, rank) in enumerate(zip(scores, ranks)):
        rows = pair[start:start + len(values)]
        S[rows, r] = values
        R[rows, r] = rank
        start += len(values)
    pick = pa.array(origin[first])
    return queries.take(pick), docs.take(pick), S, R, first


def _query_codes(query: pa.Array) -> np.ndarray:
    return pc.dictionary_encode(query.combine_chunks()).indices.to_numpy(zero_copy_only=False).astype(np.int64)


def _list_lengths(codes: np.ndarray, R: np.ndarray) -> np.ndarray:
    """Per (pair, run): how many docs the run retrieved for the pair's query."""
    present = ~np.isnan(R)
    return np.stack([np.bincount(codes, weights=present[:, r], minlength=codes.max(initial=-1) + 1)[codes]
                     for r in range(R.shape[1])], axis=1)


def _borda(query: pa.Array, R: np.ndarray, *, points: bool) -> np.ndarray:
    """Borda scores of every candidate (the docs any run retrieved for the query) in every run.

    With m candidates and n docs retrieved by a run: ``points`` (BordaFuse, Aslam and Montague 2001)
    gives rank i m - i + 1 points and an unretrieved candidate (m - n + 1) / 2; otherwise ranx's borda
    normalisation, 1 - (i - 1) / m and 0.5 - (n - 1) / (2 m).
    """
    codes = _query_codes(query)
    m = np.bincount(codes).astype(np.float64)[codes][:, None]
    present = ~np.isnan(R)
    n = _list_lengths(codes, R)
    if points:
        return np.where(present, m - R + 1, (m - n + 1) / 2)
    return np.where(present, 1 - (R - 1) / m, 0.5 - (n - 1) / (2 * m))


def _combine(method: str, S: np.ndarray, R: np.ndarray, p: dict) -> np.ndarray:
    present = ~np.isnan(S)
    n = present.sum(axis=1).astype(np.float64)
    if method in ("bordafuse", "w_bordafuse", "bayesfuse"):  # every run scores every candidate
        return S.sum(axis=1) if method != "w_bordafuse" else (S * np.asarray(p["weights"], np.float64)).sum(axis=1)
    if method in TRAINED:
        return np.nansum(S, axis=1)
    if method == "mixed":  # ranx: (sum of weight * score over the runs retrieving it) * sqrt(how many)
        return np.nansum(S * np.asarray(p["weights"], np.float64), axis=1) * np.sqrt(n)
    if METHODS[method][1]:  # rank-based: each run's score is a function of the rank
        if method == "rrf":
            S = 1.0 / (p["k"] + R)
        elif method == "rbc":
            S = (1 - p["phi"]) * p["phi"] ** (R - 1)
        else:
            S = 1.0 / R ** 2
    total = np.nansum(S, axis=1)
    if method in ("sum", "rrf", "rbc"):
        return total
    if method in ("mnz", "isr"):
        return total * n
    if method == "gmnz":
        return total * n ** p["gamma"]
    if method == "anz":
        return total / n
    if method == "log_isr":
        return total * np.log(n)
    if method == "logn_isr":
        return total * np.log(n + p["sigma"])
    if method == "max":
        return np.nanmax(S, axis=1)
    if method == "min":
        return np.nanmin(S, axis=1)
    if method == "med":
        return np.nanmedian(S, axis=1)
    weights = np.asarray(p["weights"], dtype=np.float64)
    if method == "wsum":
        return np.nansum(S * weights, axis=1)
    return total * (present * weights).sum(axis=1)  # wmnz


@takes_options(in_memory=True, without=("ties",))
@validate_params(FUSE_OPTIONS["method"], FUSE_OPTIONS["norm"], FUSE_OPTIONS["ties"], FUSE_OPTIONS["tag"])
def fuse(runs, *, method: str = "rrf", norm: str | None = "min-max", params: Mapping | None = None,
         tag: str | None = None, train_qrels=None, train_runs=None, ties: str = "trec_eval",
         **options: Unpack[EvaluationOptions]) -> Run:
    """Fuse several runs into one :class:`~rankmeter.io.canonical.Run` (see the module table).

    The evaluation options say how the runs are read and how the trained methods join them to
    ``train_qrels``.

    Parameters
    ----------
    runs : list or dict of runs
        Any run inputs (paths, Run, dicts, frames), two or more. Each is read and checked as
        ``evaluate`` reads it: a doc listed twice for a query is refused, naming both lines.
    method : str, default "rrf"
        A method of the table above, as ranx names it.
    norm : str or None, default "min-max"
        Per-query normalisation before fusing (:data:`~rankmeter.fusion.catalog.NORMS`, ``borda``
        included; ranx's default); rank-based methods read only the order, which it keeps. None (or ``"none"``,
        as ``--norm none`` says it): raw scores.
    params : dict, optional
        The method's parameters (``{"k": 60}``, ``{"weights": [0.3, 0.7]}``, ``{"phi": 0.8}``, ...), each
        checked against its range in :data:`~rankmeter.fusion.catalog.PARAMETERS`.
    tag : str, optional
        The fused run's tag (default: the method).
    train_qrels : qrels, optional
        For the trained methods (:mod:`~rankmeter.fusion.trained`): judgments of training queries;
        their tables (``probs``, ``log_odds``, ``map_scores``) are estimated from them and
        ``train_runs`` (default: ``runs``) unless ``params`` gives them.
    ties : {"trec_eval", "input"}, default "trec_eval"
        How each run's tied docs are ranked (rank-based methods, the ``rank`` and ``borda`` norms, training):
        ``trec_eval``, score descending then docno descending; ``input``, the order the run gives
        (``evaluate(ties="input")``'s order; for a run given in rank order, ranx's ranks).
    %(evaluation_options)s
    """
    from rankmeter.core.options import validate_options

    return fuse_with(runs, validate_options(ties=ties, **options), method=method, norm=norm, params=params, tag=tag,
                     train_qrels=train_qrels, train_runs=train_runs)


def fuse_with(runs, options: Options, *, method: str = "rrf", norm: str | None = "min-max",
              params: Mapping | None = None, tag: str | None = None, train_qrels=None, train_runs=None) -> Run:
    """:func:`fuse` under evaluation options validated already (``options.ties`` ranks each run's tied docs,
    ``trec_eval`` or ``input``)."""
    from rankmeter.fusion.catalog import check_params

    ties = options.ties
    named = read_runs(runs, options)
    if len(named) < 2:
        raise ParameterError(f"fuse needs at least two runs; got {len(named)}")
    p = {**METHODS[method][0], **check_params(method, params, runs=len(named))}
    runs_ = [run for _, run in named]
    if method in TRAINED and p[TRAINED[method][0]] is None and train_qrels is not None:
        from rankmeter.fusion.trained import train_with
        chosen = {k: p.pop(k, v) for k, v in TRAINED[method][1].items()}
        trainers = runs_ if train_runs is None else [r for _, r in read_runs(train_runs, options)]
        p.update(train_with(train_qrels, trainers, method, options, **chosen))
    return fuse_read(runs_, method=method, norm=norm, params=p, ties=ties, tag=tag)


@validate_params(FUSE_OPTIONS["method"], FUSE_OPTIONS["norm"], FUSE_OPTIONS["ties"], FUSE_OPTIONS["tag"])
def fuse_read(runs: list[Run], *, method: str, norm: str | None = "min-max", params: Mapping | None = None,
              ties: str = "trec_eval", tag: str | None = None) -> Run:
    """:func:`fuse` over runs already read and checked (:func:`read_runs`), with their tables when trained:
    what :func:`~rankmeter.fusion.optimise` calls once per setting it tries."""
    from rankmeter.fusion.catalog import check_params

    norm = None if norm == "none" else norm
    p = {**METHODS[method][0], **check_params(method, params, runs=len(runs))}
    for k in TRAINED[method][1] if method in TRAINED else {}:
        p.pop(k, None)
    if "weights" in p and p["weights"] is None:
        p["weights"] = (1.0,) * len(runs)
    runs_ = list(runs)
    if norm not in (None, "borda") and not METHODS[method][1]:
        runs_ = [_normalised(run, norm, ties) for run in runs_]
    query, doc, S, R, first = _aligned(runs_, ties)
    if method in ("bordafuse", "w_bordafuse") or (norm == "borda" and not METHODS[method][1]):
        S = _borda(query, R, points=method in ("bordafuse", "w_bordafuse"))
    if method in TRAINED:
        from rankmeter.fusion.trained import trained_scores
        S = trained_scores(method, S, R, _list_lengths(_query_codes(query), R), p)
    if method in ("condorcet", "w_condorcet"):
        from rankmeter.fusion.condorcet import condorcet_scores
        fused = condorcet_scores(_query_codes(query), first, R, np.asarray(p.get("weights") or (1.0,) * R.shape[1]))
    else:
        fused = _combine(method, S, R, p)
    table = pa.table({"query": query, "doc": doc, "score": pa.array(fused, pa.float64())})
    out = Run(table, f"<fused {method}>", tag=(tag or method).encode())
    order = ranked_rows(out)  # the fused run in trec_eval's order: every reader ranks the written file alike
    return Run(table.take(pa.array(order)), out.source, tag=out.tag)


def depth_pool_run(runs, depth: int, options: Options) -> Run:
    """The docs some run ranks in its top ``depth`` (TREC's depth@k pool), each scored by minus its best
    rank over the runs, in rank order (best rank first, then docno descending); ``options`` read the runs,
    ``options.ties`` ranks each run's tied docs."""
    query, doc, _, R, _ = _aligned([run for _, run in read_runs(runs, options)], options.ties)
    best = np.nanmin(R, axis=1)
    keep = pa.array(np.flatnonzero(best <= depth))
    table = pa.table({"query": query.take(keep), "doc": doc.take(keep),
                      "score": pa.array(-best[np.asarray(keep)], pa.float64())})
    out = Run(table, "<depth pool>", tag=b"pool")
    return Run(table.take(pa.array(ranked_rows(out))), out.source, tag=out.tag)


def read_runs(runs, opts: Options) -> list[tuple[str, Run]]:
    """The runs read as ``evaluate`` reads them (formats, columns) and checked by the core: a doc listed twice
    for one query is refused with the message ``evaluate`` gives, naming both lines."""
    from rankmeter.core.build import check_unique

    named = name_runs(runs, columns=opts.columns, input_format=opts.input_format)
    for _, run in named:
        check_unique(run)
    return named


def _normalised(run: Run, norm: str, ties: str = "trec_eval") -> Run:
    order = ranked_rows(run, ties=ties)
    table = run.table.take(pa.array(order))
    offsets = np.append(query_starts(table.column("query")), len(table)).astype(np.int64)
    scores = normalise(table.column("score").to_numpy(), offsets, norm)
    return Run(table.set_column(2, "score", pa.array(scores, pa.float64())), run.source, tag=run.tag)
