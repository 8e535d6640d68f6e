"""Where to spend human labels: how many a target interval needs, and which queries to send next.

* :func:`labels_needed`: the number of human-labelled queries at which the PPI++ interval (:mod:`.ppi`) reaches
  a target width, from the variances seen so far (the residual ``y - lam f`` on the labelled queries, the LLM's
  metric on the others).
* :func:`allocate`: a stratified design for the next ``budget`` labels. The queries are cut into strata by the
  LLM's metric (averaged over the runs); the labels go where the spreads of the LLM's error (``y - lam f``) are
  larger (Neyman allocation, Cochran 1977, 5.5), for each run's mean, each pair's difference or both
  (:func:`design_rows`, ``judges allocate --target``), never making one of them wider than proportional
  allocation would, and its queries are drawn at random within the stratum, so :func:`stratified_estimate`
  (PPI++ within the strata, weighted by their sizes: what ``judges estimate --design`` computes) stays unbiased
  while its interval is no wider, in expectation, than that of the same budget spent uniformly. The design
  (which stratum each query is in, how many labels each gets) is kept in a file (:mod:`.design`): estimating as
  if the allocated sample were uniform would be biased.
* :func:`allocate_pairs`: the same for human labels on pairs (:mod:`.pair_ppi`), over bands of the pairs' best rank.
"""
from __future__ import annotations

from statistics import NormalDist

import numpy as np

from rankmeter.judges.params import BUDGET, STRATA, TARGET, WIDTH
from rankmeter.judges.ppi_means import ppi_mean
from rankmeter.judges.stratified import stratified_estimate, stratified_ppi
from rankmeter.engine.param import SEED, validate_params
from rankmeter.errors import ParameterError

__all__ = ["labels_needed", "draws_needed", "interval_widths", "neyman", "stratified_estimate", "stratified_ppi", "allocate", "allocate_pairs",
           "pairs_needed", "design_rows", "cut_strata"]


#: the pilot's residual spread is taken at its one-sided upper confidence bound of this level (0.5: the median,
#: the chi-square's skew corrected). In tests/judges/test_ppi.py's simulation (two runs, a pilot of 40 of 200
#: queries, a target of 0.05) the size proposed made all three intervals (each run's mean, the difference) at
#: most the width asked in 7 repetitions of 10, the widest of them 0.97 of it (median); a higher level buys more
SIZING_CONFIDENCE = 0.5


def _chi2_quantile(p: float, df: float) -> float:
    """The chi-square quantile by Wilson and Hilferty's cube (1931): within 1% from 10 degrees of freedom on."""
    z = NormalDist().inv_cdf(p)
    return df * (1 - 2 / (9 * df) + z * np.sqrt(2 / (9 * df))) ** 3


def interval_widths(y, f, f_unlabelled, *, alpha: float = 0.05, confidence: float = SIZING_CONFIDENCE):
    """The width of :func:`~rankmeter.judges.ppi.estimate`'s PPI++ interval (Student's t, unbiased variances, a
    degree of freedom for the tuned ``lam``: ``ppi_mean(small_sample=True)``) at every number of labelled queries
    ``n = 2 .. len(f) + len(f_unlabelled) - 1``, for each row (a run's per-query values, or a pair's differences;
    shape ``(n_pilot,)`` or ``(R, n_pilot)``), if the spreads are what the pilot shows: ``lam`` the pilot's,
    the residual spread of ``y - lam f`` at its upper ``confidence`` bound (:data:`SIZING_CONFIDENCE`). Returns
    ``(n, widths (R, len(n)))``."""
    from rankmeter.stats.student import t_quantile

    y, f, fu = (np.atleast_2d(np.asarray(a, float)) for a in (y, f, f_unlabelled))
    pilot, total = y.shape[1], f.shape[1] + fu.shape[1]
    n = np.arange(2, total)
    widths = np.empty((len(y), len(n)))
    df = n - 1 - (n > 3)
    t = np.asarray(t_quantile(np.asarray(df, float), 1 - alpha / 2), float)
    for row in range(len(y)):
        lam = ppi_mean(y[row], f[row], fu[row], alpha=alpha)["lam"]
        residual = np.var(y[row] - lam * f[row], ddof=1)
        if confidence is not None and pilot > 2:
            residual *= (pilot - 1) / _chi2_quantile(1 - confidence, pilot - 1)
        spread = np.var(lam * np.concatenate([f[row], fu[row]]), ddof=1)
        widths[row] = 2 * t * np.sqrt(spread / (total - n) + residual * (n - 1) / df / n)
    return n, widths


@validate_params(WIDTH)
def labels_needed(y, f, f_unlabelled, width: float, *, alpha: float = 0.05, per_row: bool = False):
    """The fewest labelled queries (of all ``len(f) + len(f_unlabelled)``) at which every row's interval (each
    run's mean and each pair's difference: give the rows, :func:`design_rows`) is at most ``width`` wide
    (:func:`interval_widths`: the interval :func:`~rankmeter.judges.ppi.estimate` gives, sized with a margin for
    the pilot's own noise); None if labelling every query would not be enough. ``per_row=True``: the list of
    each row's number instead.

    >>> rng = np.random.default_rng(0)
    >>> truth = rng.random(400); llm = truth + rng.normal(0, 0.1, 400)
    >>> labels_needed(truth[:40], llm[:40], llm[40:], 0.1)
    32
    """
    n, widths = interval_widths(y, f, f_unlabelled, alpha=alpha)
    rows = []
    for w in widths:
        enough = np.flatnonzero(w <= width)
        rows.append(int(n[enough[0]]) if len(enough) else None)
    if per_row:
        return rows
    return None if None in rows else max(rows)


@validate_params(WIDTH)
def draws_needed(values, width: float, *, alpha: float = 0.05, pairs_per_query: float = 1.0,
                 most: int = 10) -> dict:
    """How many draws of the LLM's label per pair, and how many queries, an LLM-only interval ``width`` wide
    needs, from a pilot's draws: ``values`` (Q, D) is one row's metric of each query under each of its draws
    (NaN past a query's draws; :func:`~rankmeter.judges.draws.draw_values`), some queries drawn twice or more.

    With ``S_w^2`` the variance of one draw's metric within a query (the pilot's pooled one) and ``S_b^2`` the
    variance of the queries' expected metrics (the spread of their means over the draws less the draws' part),
    the mean of ``Q`` queries at ``m`` draws a pair has the two-stage variance ``(S_b^2 + S_w^2 / m) / Q``
    (Cochran 1977, 10.2) and, over the draws alone (``redraw``: these queries labelled again), ``S_w^2 / (Q m)``.
    Returns ``{"within", "between", "redraw_draws"`` (the draws a pair for the redraw interval of the pilot's Q
    queries; None past ``most``), ``"plans"``: per ``m`` in 1..``most`` the queries the population's interval
    needs and the calls (queries x ``pairs_per_query`` x m)}. Each call is a draw, and a query adds nothing but
    its calls, so one draw a pair on more queries is the cheapest way to a narrower population interval
    (Cochran 10.8 with no cost per query); more draws a pair narrow the interval about the queries at hand.

    >>> got = draws_needed([[0.5, 0.7], [0.2, 0.2], [0.9, 0.7], [0.4, 0.6]], 0.2)
    >>> got["redraw_draws"], [p["queries"] for p in got["plans"][:3]]
    (2, [27, 25, 24])
    """
    from rankmeter.judges.draws import within_pairs

    mean, m, w = within_pairs(values)
    q = len(mean)
    within = float((w * m).mean())                             # s_q^2: one draw's variance within a query
    between = max(float(np.var(mean, ddof=1)) - float(w.mean()), 0.0) if q > 1 else 0.0
    z = NormalDist().inv_cdf(1 - alpha / 2)
    half = width / (2 * z)
    redraw = int(np.ceil(within / (q * half ** 2))) if within > 0 else 1
    plans = []
    for draws in range(1, most + 1):
        queries = max(2, int(np.ceil((between + within / draws) / half ** 2)))
        plans.append({"draws": draws, "queries": queries, "calls": int(np.ceil(queries * pairs_per_query * draws))})
    return {"within": within, "between": between, "queries": q, "redraw_draws": redraw if redraw <= most else None,
            "plans": plans}


def cut_strata(score, count: int) -> np.ndarray:
    """Stratum of each query: ``count`` groups of about equal size by ``score`` (ties broken by position: give the
    queries in an order that does not depend on which are labelled, e.g. their ids', so the strata do not either)."""
    score = np.asarray(score, float)
    ranks = np.argsort(np.argsort(score, kind="stable"), kind="stable")
    return np.minimum(ranks * count // len(score), count - 1)



def neyman(sizes: np.ndarray, spreads: np.ndarray, budget: int, available: np.ndarray) -> np.ndarray:
    """Labels per stratum in proportion to size x spread, at most what each stratum has left, summing to budget."""
    weight = sizes * np.maximum(spreads, 1e-12)
    out = np.zeros(len(sizes), dtype=np.int64)
    left = budget
    open_ = available > 0
    while left > 0 and open_.any():
        share = weight * open_ / (weight * open_).sum() * left
        give = np.minimum(np.floor(share).astype(np.int64), available - out)
        if give.sum() == 0:  # the remainder: one each to the largest shares
            order = np.argsort(-(share - np.floor(share)) * open_, kind="stable")
            for i in order[:left]:
                if open_[i] and out[i] < available[i]:
                    out[i] += 1
                    left -= 1
        else:
            out += give
            left -= int(give.sum())
        open_ = out < available
    return out


def _fill(weight, low, high, total: int) -> np.ndarray:
    """Integers in [low, high] summing to ``total``, as near to proportional to ``weight`` as the bounds allow (the
    multiplier found by bisection, the remainder to the largest fractions)."""
    weight = np.maximum(np.asarray(weight, float), 1e-12)
    low, high = np.asarray(low, float), np.asarray(high, float)
    a, b = 0.0, float((high / weight).max()) + 1.0
    for _ in range(80):
        c = (a + b) / 2
        a, b = (c, b) if np.clip(c * weight, low, high).sum() <= total else (a, c)
    x = np.clip(a * weight, low, high)
    out = np.floor(x + 1e-9).astype(np.int64)
    for i in np.argsort(-(x - out), kind="stable"):
        if out.sum() >= total:
            break
        if out[i] < high[i]:
            out[i] += 1
    return out


def _residual_spreads(y, f, sl, strata: int, shrink: float = 10.0) -> np.ndarray:
    """Each row's spread (variance) of ``y - lam f`` in each stratum among the labelled queries, ``lam`` the row's
    least-squares slope clipped to [0, 1]; a stratum's own variance shrunk towards the pooled within-strata one
    (weight n_h / (n_h + shrink): a pilot of a few queries that happen to agree must not starve its stratum)."""
    one_hot = (sl[:, None] == np.arange(strata)).astype(float)                  # (n, H)
    n_h = one_hot.sum(0)
    fc, yc = f - f.mean(1, keepdims=True), y - y.mean(1, keepdims=True)
    var_f = (fc * fc).sum(1)
    lam = np.clip(np.divide((fc * yc).sum(1), var_f, out=np.zeros(len(f)), where=var_f > 0), 0, 1)
    e = y - lam[:, None] * f
    mean_h = (e @ one_hot) / np.maximum(n_h, 1)
    ss = ((e - mean_h @ one_hot.T) ** 2) @ one_hot                               # (K, H) within sums of squares
    dof = np.maximum(n_h - 1, 0)
    pooled = ss.sum(1, keepdims=True) / max(dof.sum(), 1)
    own = np.where(n_h >= 2, ss / np.maximum(dof, 1), pooled)
    return (n_h * own + shrink * pooled) / (n_h + shrink)


@validate_params(BUDGET, STRATA, SEED, TARGET)
def allocate(y, f, f_unlabelled, budget: int, *, strata: int = 4, seed: int = 0, target: str = "both", by=None,
             assignment=None) -> dict:
    """Which of the unlabelled queries to label next (their positions in ``f_unlabelled``) with ``budget`` labels.

    ``y`` and ``f`` are the labelled queries' human and LLM metrics (the pilot), ``f_unlabelled`` the LLM's on the
    others; each is one run's (shape ``(n,)``) or several runs' (``(R, n)``). ``target`` says what the labels are
    for (:func:`design_rows`): each run's mean, each pair of runs' difference, or both (``judges allocate
    --target``); the rows below are those. The queries are cut into ``strata`` groups of about equal size by
    ``by`` (every query's score, labelled first; default the runs' mean LLM metric), or kept in the strata
    ``assignment`` gives (an earlier design's).

    The labels go where they shrink the rows' variances most together: with ``S_kh^2`` row k's spread of
    ``y - lam f`` in stratum h (the pilot's, shrunk towards the pooled one) and ``V_k`` its variance under
    proportional allocation, the labelled queries of stratum h (pilot and new together) are made proportional to
    ``N_h sqrt(sum_k S_kh^2 / V_k)``: Neyman allocation for the sum of the rows' variances each relative to its
    proportional one (so a row's scale does not matter), Cochran 1977, 5.5 and 5A.3, filled above what the pilot
    already has. If that would make a row's variance larger than under proportional allocation, the allocation is
    moved towards proportional (a quarter at a time) until no row's is; proportional allocation (never worse than
    a uniform sample in expectation) is the last resort. Returns ``{"chosen": positions, "per_stratum": [...],
    "strata": stratum of every query (labelled first), "spreads": the combined spread per stratum, "row_spreads":
    S_kh per row, "neyman": the share of the Neyman allocation kept (1 all, 0 proportional)}``.
    """
    y, f, fu = (np.atleast_2d(np.asarray(a, float)) for a in (y, f, f_unlabelled))
    n, m = y.shape[1], fu.shape[1]
    score = np.concatenate([f, fu], axis=1).mean(0) if by is None else by
    (y, _), (f, _), (fu, _) = (design_rows(a, target=target) for a in (y, f, fu))
    if budget > m or strata > n // 2:     # the data's bounds (the declarations check the rest)
        raise ParameterError(f"budget={budget}, strata={strata}: {m} queries have no human labels and "
                             f"{n} have, so at most budget={m} and strata={n // 2} (two labelled "
                             "queries per stratum)")
    stratum = cut_strata(score, strata) if assignment is None else np.asarray(assignment, np.int64)
    sl, su = stratum[:n], stratum[n:]
    size = np.bincount(stratum, minlength=strata).astype(float)
    weight = size / size.sum()
    have = np.bincount(sl, minlength=strata)
    available = np.bincount(su, minlength=strata)
    # two labelled queries per stratum at least (the pilot's and the new ones), or the estimate has no variance
    low = np.maximum(have, np.minimum(2, have + available))
    if (low - have).sum() > budget:
        raise ParameterError(f"budget={budget}: the strata need {int((low - have).sum())} labels to have two "
                             "labelled queries each; give a larger budget or fewer strata")
    spread2 = _residual_spreads(y, f, sl, strata)                                   # (K, H)
    draw = y.var(1, ddof=1) / (n + m)

    def variance(total):     # each row's variance with ``total`` labelled per stratum (Cochran 5.3, with the draw)
        return (weight ** 2 * spread2 * (1 / np.maximum(total, 1) - 1 / np.maximum(size, 1))).sum(1) + draw

    high, labels = have + available, n + budget
    proportional = _fill(size, low, high, labels)
    v_prop = variance(proportional)
    scale = np.where(v_prop > 0, v_prop, np.inf)[:, None]
    combined = np.sqrt((spread2 / scale).sum(0))
    neyman_total = _fill(size * combined, low, high, labels)
    total, share = proportional, 0.0
    for t in (1.0, 0.75, 0.5, 0.25):
        candidate = _fill(t * neyman_total + (1 - t) * proportional, low, high, labels)
        if (variance(candidate) <= v_prop * (1 + 1e-9)).all():
            total, share = candidate, t
            break
    counts = total - have
    rng = np.random.Generator(np.random.PCG64(seed))
    chosen = np.concatenate([rng.choice(np.flatnonzero(su == h), size=int(k), replace=False)
                             for h, k in enumerate(counts) if k]) if counts.sum() else np.array([], dtype=int)
    return {"chosen": np.sort(chosen).tolist(), "per_stratum": counts.tolist(), "strata": stratum.tolist(),
            "spreads": combined.tolist(), "row_spreads": np.sqrt(spread2).tolist(), "neyman": share}


@validate_params(TARGET)
def design_rows(values, *, target: str = "both", names=None) -> tuple[np.ndarray, list[str]]:
    """The rows an allocation is made for, from each run's per-query values ``values`` (R, N): each run's
    (``target="mean"``), each pair of runs' difference (``"difference"``), or both; with their names
    (``names``: the runs', default run0, run1 ...)."""
    values = np.atleast_2d(np.asarray(values, float))
    names = [f"run{i}" for i in range(len(values))] if names is None else [str(x) for x in names]
    pairs = [(i, j) for i in range(len(values)) for j in range(i + 1, len(values))]
    if target == "difference" and not pairs:
        raise ParameterError("target='difference': one run has no paired differences; give two runs or more, or "
                             "target='mean'")
    rows, labels = [], []
    if target in ("mean", "both"):
        rows += list(values)
        labels += names
    if target in ("difference", "both"):
        rows += [values[i] - values[j] for i, j in pairs]
        labels += [f"{names[i]} - {names[j]}" for i, j in pairs]
    return np.array(rows), labels


# ------------------------------------------------------------------ where to spend the next labels
@validate_params(BUDGET, SEED)
def allocate_pairs(frame: PairFrame, e: np.ndarray, budget: int, *, seed: int = 0) -> dict:
    """The next ``budget`` pairs to label: Neyman allocation over the rank bands (labels in proportion to a band's
    size times the spread of ``e = y - lam f`` among its labelled pairs), at random within each band."""
    unl = ~frame.labelled
    if budget > int(unl.sum()):
        raise ParameterError(f"budget={budget}: only {int(unl.sum())} pairs have no human labels")
    bands = np.unique(frame.band)
    lab = frame.labelled
    pooled = e[lab].var(ddof=1) if lab.sum() >= 2 else 1.0
    have = np.array([((frame.band == b) & lab).sum() for b in bands])
    # a band's spread from a small pilot is shrunk towards the pooled one (weight n / (n + 10)): a pilot of three
    # labels that happen to agree must not starve its band
    own = np.array([e[(frame.band == b) & lab].var(ddof=1) if k >= 2 else pooled for b, k in zip(bands, have)])
    spreads = np.sqrt((have * own + 10 * pooled) / (have + 10))
    sizes = np.array([(frame.band == b).sum() for b in bands], float)
    available = np.array([((frame.band == b) & unl).sum() for b in bands])
    # at least five labelled per band (or all it has), so each band's variance is estimated
    floor_ = np.minimum(np.maximum(5 - have, 0), available)
    counts = floor_ + neyman(sizes, spreads, budget - int(floor_.sum()), available - floor_) if budget > floor_.sum() \
        else floor_
    rng = np.random.Generator(np.random.PCG64(seed))
    chosen = [rng.choice(np.flatnonzero((frame.band == b) & unl), size=int(k), replace=False)
              for b, k in zip(bands, counts) if k]
    return {"chosen": np.sort(np.concatenate(chosen)).tolist() if chosen else [],
            "bands": [[int(2 ** b), int(min(2 ** (b + 1) - 1, frame.depth))] for b in bands],
            "per_band": [int(c) for c in counts], "spreads": spreads.tolist()}


@validate_params(WIDTH)
def pairs_needed(y, f, labelled, strata, width: float, *, queries: int, alpha: float = 0.05) -> int | None:
    """The fewest human-labelled pairs (spread over the strata in proportion to their sizes) whose interval
    (:func:`~rankmeter.judges.pair_ppi.pair_estimate`) is at most ``width`` wide, if each stratum's spread
    of ``y - lam f`` stays as the labelled pairs show it now; None if labelling every pair would not be enough."""
    from rankmeter.judges.pair_ppi import pair_estimate

    y, f, labelled, strata = (np.asarray(a) for a in (y, f, labelled, strata))
    lam = float(pair_estimate(y, f, labelled, strata, queries=queries, alpha=alpha)["lam"])
    e = (y - lam * f).astype(float)
    groups = np.unique(strata)
    size = np.array([(strata == h).sum() for h in groups], float)
    spread = np.array([e[labelled & (strata == h)].var(ddof=1) for h in groups])
    total = int(size.sum())
    n = np.arange(2 * len(groups), total + 1)
    n_h = np.maximum(np.minimum(n[:, None] * size / total, size), 2)
    var = ((size / queries) ** 2 * (1 - n_h / size) * spread / n_h).sum(1)
    z = NormalDist().inv_cdf(1 - alpha / 2)
    enough = np.flatnonzero(2 * z * np.sqrt(var) <= width)
    return int(n[enough[0]]) if len(enough) else None
