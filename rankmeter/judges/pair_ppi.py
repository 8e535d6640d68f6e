"""Estimates with valid intervals from LLM labels on every pair and human labels on a random sample of pairs.

When people judge a sample of (query, doc) pairs rather than whole queries, a per-query metric has no human value
on any query. For a measure that is a sum over the ranked documents, ``M(q) = sum_d w(rank_d) g(grade_d)``
(P@k, DCG@k, RBP, ...), the mean over the queries is a total over pairs, ``theta = (1/Q) sum_p c_p(human grade)``,
and the human labels of a sample of pairs estimate it without bias: the difference (prediction-powered)
estimator of survey sampling (Cochran 1977, 7.1; Angelopoulos et al. 2023, with the pair as the unit)

    ``theta_hat = (1/Q) sum_h [ lam F_h + (P_h / n_h) sum_{p in S_h} (y_p - lam f_p) ]``

where ``f_p`` is pair p's contribution under the LLM's grade, ``y_p`` under the human one, ``F_h`` the sum of
``f`` over the ``P_h`` pairs of stratum h and ``S_h`` its ``n_h`` human-labelled pairs; its variance is
``sum_h (P_h/Q)^2 (1 - n_h/P_h) s_h^2(y - lam f) / n_h`` and ``lam``, in [0, 1], minimises it (0 is the human-only
estimate); the interval uses Student's t with Satterthwaite's degrees of freedom, as stratified samples do. The strata are bands of the pair's best rank over the runs (1, 2-3, 4-7, 8-15, ...), so a sample drawn
at random within each band (uniformly over every pair, or by :func:`~rankmeter.judges.allocation.allocate_pairs`, which spends more labels at the
top ranks where the measure weighs more) is valid. The frame is the pairs the LLM judged that some run ranks
within the measure's depth; the others count for nothing in either labelling.

Assumptions, said by :func:`check_sample` when the data contradict them: the labelled pairs are a random sample
within each band (not concentrated in a few queries, not chosen by the LLM's grade), there are at least two in
every band (a band without any is merged with the one above it), and enough of them for a normal interval. The
interval is about these queries under human labels, not about other queries.
"""
from __future__ import annotations

import math
import warnings
from statistics import NormalDist

import numpy as np
import pyarrow.compute as pc

from rankmeter.core.options import Options, validate_options
from rankmeter.errors import ParameterError
from rankmeter.stats.student import t_quantile

__all__ = ["doc_weights", "doc_weights_of", "pair_estimate", "PairFrame", "pair_frame", "check_sample", "MIN_PAIRS"]

#: fewer human-labelled pairs in the frame than this and the normal interval is not to be trusted
MIN_PAIRS = 30


# ------------------------------------------------------------------ the measure as a sum over documents
def doc_weights(measure: str, grade_values, depth: int, **options) -> tuple[np.ndarray, dict]:
    """``(w, gain)``: the measure's value on one query is ``sum_d w[rank_d] * gain[grade_d]`` (``w[0] = 0``: a
    document not ranked within ``depth``). Found by scoring probe queries with rankmeter itself, then checked on
    random ones; ParameterError when the measure is not such a sum (nDCG's and AP's normalisers, RR's first
    relevant document ...)."""
    return doc_weights_of(measure, grade_values, depth, validate_options(**options))


def doc_weights_of(measure: str, grade_values, depth: int, options: Options) -> tuple[np.ndarray, dict]:
    """:func:`doc_weights` under evaluation options validated already."""
    from rankmeter.core.evaluator import Evaluator

    grades = [float(g) for g in grade_values]
    top = max(grades)
    qrels, run = {}, {}
    for r in range(1, depth + 1):                       # the weight of rank r: one document of the top grade there
        run[f"w{r}"] = {f"x{i}": float(depth - i) for i in range(r)}
        qrels[f"w{r}"] = {f"x{r - 1}": top}
    for j, g in enumerate(grades):                      # the gain of grade g: one document of it at rank 1
        run[f"g{j}"] = {"x0": 1.0}
        qrels[f"g{j}"] = {"x0": g}
    rng = np.random.default_rng(0)
    checks = []
    for c, (length, pool) in enumerate(((min(depth, 37), grades), (min(depth, 11), grades[:max(1, len(grades) // 2)]),
                                        (depth, grades))):
        given = rng.choice(pool, size=length)
        judged = rng.random(length) < 0.8               # the others unjudged
        run[f"c{c}"] = {f"x{i}": float(depth - i) for i in range(length)}
        qrels[f"c{c}"] = {f"x{i}": float(given[i]) for i in range(length) if judged[i]} or {"none": 0.0}
        checks.append((f"c{c}", given, judged))
    integer = all(g == int(g) for g in grades)
    if integer:
        qrels = {q: {d: int(g) for d, g in docs.items()} for q, docs in qrels.items()}
    probing = options.replace(queries="qrels", columns=None, input_format="auto")  # the probes are dicts
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        evaluator = Evaluator.of(qrels, [measure], probing)
        got = evaluator.evaluate(run)
    label = evaluator.names[0][0]
    value = dict(zip(got.queries, got.values(label)))
    unit = value["w1"] if value["w1"] else 1.0
    gain = {g: value[f"g{j}"] / unit for j, g in enumerate(grades)}
    w = np.zeros(depth + 1)
    w[1:] = [value[f"w{r}"] / gain[top] if gain[top] else 0.0 for r in range(1, depth + 1)]
    for name, given, judged in checks:
        want = sum(w[i + 1] * gain[float(g)] for i, (g, j) in enumerate(zip(given, judged)) if j)
        if not math.isclose(value[name], want, rel_tol=1e-9, abs_tol=1e-12):
            raise ParameterError(f"{label} is not a sum over the ranked documents (its value on a query is not the "
                                 "sum of each document's part: a normaliser or the first relevant document matters), "
                                 "so human labels on a sample of pairs cannot estimate it: use a measure that is "
                                 "(P@k, DCG@k, RBP ...), or label whole queries (unit='queries'; --unit queries)")
    return w, gain


# ------------------------------------------------------------------ the estimator (vectorised over repetitions)
def pair_estimate(y, f, labelled, strata, *, queries: int, alpha: float = 0.05, lam=None) -> dict:
    """The stratified difference (PPI) estimate of ``(1/queries) * sum(y)`` over a frame of pairs.

    ``f`` (the LLM's contribution of every pair) and ``labelled`` (bool) have shape ``(..., P)``, ``y`` the same
    (the human contribution; read where ``labelled`` only), ``strata`` shape ``(P,)``. Leading axes are independent
    repetitions (a simulation). ``lam=None`` tunes it; ``lam=0`` is the human-only estimate. Returns arrays of
    ``estimate, low, high, se, lam, n, df`` (Satterthwaite's degrees of freedom of the t interval).
    """
    f = np.asarray(f, float)
    labelled = np.asarray(labelled, bool)
    y = np.where(labelled, np.asarray(y, float), 0.0)
    strata = np.asarray(strata)
    one_hot = (strata[:, None] == np.unique(strata)[None, :]).astype(float)     # P x H
    size = one_hot.sum(0)                                                       # P_h
    m = labelled.astype(float)
    n = m @ one_hot
    if np.any(n < 2):
        raise ParameterError(f"a stratum has {int(n.min())} human-labelled pairs: each needs two or more")

    def moment(a, b):
        return (a * b * m) @ one_hot

    sy, sf = moment(y, 1), moment(f, 1)
    cyy = (moment(y, y) - sy * sy / n) / (n - 1)
    cff = (moment(f, f) - sf * sf / n) / (n - 1)
    cyf = (moment(y, f) - sy * sf / n) / (n - 1)
    a = (size / queries) ** 2 * (1 - n / size) / n
    if lam is None:
        den = (a * cff).sum(-1)
        with np.errstate(invalid="ignore", divide="ignore"):
            lam = np.where(den > 0, np.clip((a * cyf).sum(-1) / np.where(den > 0, den, 1), 0, 1), 0.0)
        fitted = 1    # lam was fitted on these labels: the residuals lose a degree of freedom (Cochran 7.3's n - 2)
    else:
        fitted = 0
    lam = np.asarray(lam, float)
    total_f = f @ one_hot                                                       # F_h
    center = ((lam[..., None] * total_f + size * (sy - lam[..., None] * sf) / n).sum(-1)) / queries
    residual = np.maximum(cyy - 2 * lam[..., None] * cyf + lam[..., None] ** 2 * cff, 0)
    kept = np.maximum(n - 1 - fitted, 1)
    parts = a * residual * (n - 1) / kept
    var = parts.sum(-1)
    se = np.sqrt(var)
    # Student's t with Satterthwaite's degrees of freedom (Cochran 1977, 5.4): strata of few labels count for less
    with np.errstate(invalid="ignore", divide="ignore"):
        df = np.where(var > 0, var ** 2 / np.maximum((parts ** 2 / kept).sum(-1), 1e-300), np.inf)
    t = t_quantile(df, 1 - alpha / 2)
    return {"estimate": center, "low": center - t * se, "high": center + t * se, "se": se, "lam": lam,
            "n": n.sum(-1), "df": df}


def band(rank) -> np.ndarray:
    """Rank band: 0 for rank 1, 1 for 2-3, 2 for 4-7, 3 for 8-15 ..."""
    return np.floor(np.log2(np.maximum(np.asarray(rank), 1))).astype(np.int64)


# ------------------------------------------------------------------ the frame of pairs from qrels and runs
class PairFrame:
    """The pairs the LLM judged within the runs' depth: their queries, best rank, band, LLM and human grades, and
    each run's rank of them (0: not within the depth)."""

    def __init__(self, queries, pair_query, best, llm, human, ranks, outside, depth, docs=None):
        self.queries, self.pair_query, self.best, self.llm, self.human = queries, pair_query, best, llm, human
        self.ranks, self.outside, self.depth = ranks, outside, depth
        self.docs = docs             # each pair's doc id as read (bytes or str)
        self.labelled = ~np.isnan(human)
        self.band = band(best)

    def contributions(self, run: str, w: np.ndarray, gain: dict, grades: np.ndarray) -> np.ndarray:
        """Each pair's part in ``run``'s metric under ``grades`` (0 where NaN: not labelled)."""
        keys = np.array(sorted(gain))
        values = np.array([gain[k] for k in keys])
        safe = np.where(np.isnan(grades), keys[0], grades)
        g = values[np.searchsorted(keys, safe)]
        r = np.minimum(self.ranks[run], len(w) - 1)
        return np.where(np.isnan(grades), 0.0, w[r] * g)


def _table(qrels, grades):
    from rankmeter.io import as_qrels

    t = as_qrels(qrels, grades=grades).table
    keys = pc.binary_join_element_wise(t.column("query").cast("binary"), t.column("doc").cast("binary"), b"\x1f")
    return (keys.to_numpy(zero_copy_only=False).astype("S"), t.column("query").to_numpy(zero_copy_only=False),
            t.column("rel").to_numpy().astype(float), t.column("doc").to_numpy(zero_copy_only=False))


def pair_frame(human, llm, named, depth: int, *, ties: str = "trec_eval", grades: str = "integer") -> PairFrame:
    """The frame (see :class:`PairFrame`) of runs ``named`` (name, run) at ``depth``."""
    from rankmeter.core.rows import ranked

    lkeys, lquery, lgrade, ldoc = _table(llm, grades)
    hkeys, _, hgrade, _ = _table(human, grades)
    order = np.argsort(lkeys, kind="stable")
    lkeys, lquery, lgrade, ldoc = lkeys[order], lquery[order], lgrade[order], ldoc[order]
    ranks = {}
    for name, run in named:
        t = ranked(run, ties=ties, as_bytes=True)
        t = t.filter(pc.less_equal(t.column("rank"), depth))
        keys = pc.binary_join_element_wise(t.column("query"), t.column("doc"), b"\x1f").to_numpy(
            zero_copy_only=False).astype("S")
        at = np.minimum(np.searchsorted(lkeys, keys), len(lkeys) - 1)
        hit = lkeys[at] == keys if len(lkeys) else np.zeros(len(keys), bool)
        r = np.zeros(len(lkeys), np.int64)
        r[at[hit]] = t.column("rank").to_numpy()[hit]
        ranks[name] = r
    ranked_any = np.column_stack(list(ranks.values())) if ranks else np.zeros((len(lkeys), 0), np.int64)
    best = np.where(ranked_any > 0, ranked_any, np.iinfo(np.int64).max).min(1) if ranked_any.size else \
        np.zeros(len(lkeys), np.int64)
    keep = (ranked_any > 0).any(1)
    human_grade = np.full(len(lkeys), np.nan)
    at = np.minimum(np.searchsorted(lkeys, hkeys), max(len(lkeys) - 1, 0))
    hit = lkeys[at] == hkeys if len(lkeys) else np.zeros(len(hkeys), bool)
    human_grade[at[hit]] = hgrade[hit]
    outside = int((~hit).sum())
    from rankmeter.core.order import natural_order

    ids, inverse = np.unique(lquery.astype("S") if lquery.dtype == object else lquery, return_inverse=True)
    names = [decode(q) for q in ids]                       # each query once
    order = natural_order(names)
    position = np.empty(len(order), np.int64)
    position[order] = np.arange(len(order))
    return PairFrame([names[i] for i in order], position[inverse][keep], best[keep], lgrade[keep],
                     human_grade[keep], {k: v[keep] for k, v in ranks.items()}, outside, depth, docs=ldoc[keep])


def decode(value) -> str:
    """An id as text (ids are read as bytes)."""
    return value.decode("utf-8", "surrogateescape") if isinstance(value, bytes) else str(value)


# ------------------------------------------------------------------ whether the sample looks random
def chi2_p(stat: float, df: int) -> float:
    """Upper tail of chi-square (Wilson-Hilferty): enough to flag p < 0.001."""
    if df <= 0:
        return 1.0
    z = ((stat / df) ** (1 / 3) - (1 - 2 / (9 * df))) / math.sqrt(2 / (9 * df))
    return 1 - NormalDist().cdf(z)


def _p(p: float) -> str:
    return "<1e-12" if p < 1e-12 else f"{p:.1e}"


def strata_of(frame: PairFrame, warnings_out: list) -> np.ndarray:
    """The bands, a band with fewer than two labelled pairs merged with the one above it (said in warnings)."""
    strata = frame.band.copy()
    bands = np.unique(strata)
    counts = {b: int(frame.labelled[strata == b].sum()) for b in bands}
    merged_into = {}
    for b in sorted(bands, reverse=True):
        if counts[b] >= 2:
            continue
        above = [a for a in bands if a < b and a not in merged_into]
        below = [a for a in bands if a > b and a not in merged_into]
        target = max(above) if above else (min(below) if below else None)
        if target is None:
            break
        merged_into[b] = target
        counts[target] += counts[b]
        lo, hi = 2 ** b, min(2 ** (b + 1) - 1, frame.depth)
        warnings_out.append(f"{int(frame.labelled[frame.band == b].sum())} of {int((frame.band == b).sum())} "
                            f"pairs at best ranks {lo}-{hi} are "
                            "human-labelled: the labels miss those ranks (concentrated higher up?); merged with "
                            "the ranks above, where the estimate then assumes the labels are a random sample of "
                            "both, which they are not: expect a bias")
        strata[strata == b] = target
    return strata


def check_sample(frame: PairFrame, strata: np.ndarray) -> list[str]:
    """Warnings where the labelled pairs do not look like a random sample within each stratum: too few, in too
    few queries, higher ranked or graded otherwise by the LLM than the others of their stratum."""
    out = []
    lab = frame.labelled
    n = int(lab.sum())
    if n < MIN_PAIRS:
        out.append(f"only {n} human-labelled pairs within the runs' depth: the normal interval needs more (at "
                   f"least {MIN_PAIRS}); treat the intervals as rough")
    # per query: the count expected if each stratum's labels were drawn at random over its pairs
    rate = {h: lab[strata == h].mean() for h in np.unique(strata)}
    expected = np.bincount(frame.pair_query, weights=np.array([rate[h] for h in strata]),
                           minlength=len(frame.queries))
    seen = np.bincount(frame.pair_query, weights=lab.astype(float), minlength=len(frame.queries))
    ok = expected > 0
    stat = float((((seen - expected) ** 2)[ok] / expected[ok]).sum())
    p = chi2_p(stat, int(ok.sum()) - 1)
    if p < 0.001:
        holding = int((seen > 0).sum())
        out.append(f"the human-labelled pairs are spread over the queries unlike a random sample ({holding} of "
                   f"{int(ok.sum())} queries hold any; chi-square p={_p(p)}): the estimate assumes a random sample "
                   "of pairs")
    for what, value in (("best rank", np.log2(frame.best.astype(float))), ("LLM grade", frame.llm)):
        diff, var = 0.0, 0.0
        for h in np.unique(strata):
            s = strata == h
            a, b = value[s & lab], value[s & ~lab]
            if len(a) < 2 or len(b) < 2:
                continue
            weight = s.sum() / len(strata)
            diff += weight * (a.mean() - b.mean())
            var += weight ** 2 * (a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b))
        if var > 0:
            p = 2 * (1 - NormalDist().cdf(abs(diff) / math.sqrt(var)))
            if p < 0.001:
                way = {"best rank": ("higher" if diff < 0 else "lower"),
                       "LLM grade": ("graded higher" if diff > 0 else "graded lower")}[what]
                out.append(f"within their rank bands the human-labelled pairs are {way} than the others ({what}, "
                           f"p={_p(p)}): they were chosen, not drawn at random, which the estimate assumes")
    return out


# ------------------------------------------------------------------ judges estimate with a sample of pairs
def depth_of(measures, options: Options) -> tuple[list, int | None]:
    """(label, measure) pairs and the deepest cutoff (None: some measure reads the whole ranking)."""
    from rankmeter.core.evaluator import Evaluator

    names = Evaluator.of({"q": {"d": 0}}, measures, options.replace(columns=None, input_format="auto")).names
    cutoffs = [m.cutoff for _, m in names]
    return names, (None if any(not isinstance(c, int) for c in cutoffs) else max(cutoffs))


def whole_queries(frame: PairFrame) -> bool:
    """Whether every query with a human label has all its pairs of the frame labelled (a sample of queries)."""
    touched = np.bincount(frame.pair_query, weights=frame.labelled.astype(float), minlength=len(frame.queries)) > 0
    missing = np.bincount(frame.pair_query, weights=(~frame.labelled).astype(float), minlength=len(frame.queries))
    return bool(touched.any()) and not (missing[touched] > 0).any()


def estimate_pairs(frame: PairFrame, named, names, llm_values, result, *, alpha: float, options: Options,
                   classical_mean, strata=None) -> None:
    """Fill ``result`` (ppi.Estimates) with the pair-level estimates: per run and measure, per pair of runs
    (``classical_mean``: the naive interval of the LLM-only per-query values; ``strata``: a design's, else the
    rank bands)."""
    if frame.outside:
        result.warnings.append(f"{frame.outside} human-labelled pairs are not in the LLM's judgments: left out (the "
                               "frame is the pairs the LLM judged)")
    strata = strata_of(frame, result.warnings) if strata is None else strata
    result.warnings += check_sample(frame, strata)
    grades = np.unique(np.concatenate([frame.llm, frame.human[frame.labelled]]))
    queries = len(frame.queries)
    deepest = max(int(r.max()) for r in frame.ranks.values()) if frame.ranks and len(frame.best) else 1

    def as_dict(d, i=None):
        return {k: float(v if i is None else v[i]) for k, v in d.items() if k in ("estimate", "low", "high", "se",
                                                                                    "lam", "df")} | {"n": int(d["n"])}

    parts = {}
    for label, measure in names:
        k = measure.cutoff if isinstance(measure.cutoff, int) else deepest
        w, gain = doc_weights_of(label, grades, k, options)
        for name, _ in named:
            parts[(name, label)] = (frame.contributions(name, w, gain, frame.llm),
                                    frame.contributions(name, w, gain, frame.human))
    lab = frame.labelled
    for name, _ in named:
        for label, _ in names:
            f, y = parts[(name, label)]
            changed = int((lab & (y != f)).sum())
            if changed < 10:
                result.warnings.append(
                    f"{name}, {label}: only {changed} of the {int(lab.sum())} human-labelled pairs change the "
                    "measure from the LLM's grade; the interval rests on so few disagreements that it may be too "
                    "narrow (it misses more often than it says): label more pairs")
            result.runs.append({"run": name, "measure": label,
                                "ppi": as_dict(pair_estimate(y, f, lab, strata, queries=queries, alpha=alpha)),
                                "llm_only": classical_mean(llm_values[(name, label)], alpha=alpha),
                                "human_only": as_dict(pair_estimate(y, f, lab, strata, queries=queries, alpha=alpha,
                                                                    lam=0.0))})
    for i, (a, _) in enumerate(named):
        for b, _ in named[i + 1:]:
            for label, _ in names:
                f = parts[(a, label)][0] - parts[(b, label)][0]
                y = parts[(a, label)][1] - parts[(b, label)][1]
                result.pairs.append({"a": a, "b": b, "measure": label,
                                     "ppi": as_dict(pair_estimate(y, f, lab, strata, queries=queries, alpha=alpha)),
                                     "llm_only": classical_mean(llm_values[(a, label)] - llm_values[(b, label)],
                                                                alpha=alpha),
                                     "human_only": as_dict(pair_estimate(y, f, lab, strata, queries=queries,
                                                                         alpha=alpha, lam=0.0))})
