"""Where to spend human labels: how many a target interval needs, and which queries to send next.

* :func:`labels_needed`: the number of human-labelled queries at which the PPI++ interval (:mod:`.ppi`) reaches
  a target width, from the variances seen so far (the residual ``y - lam f`` on the labelled queries, the LLM's
  metric on the others).
* :func:`allocate`: a stratified design for the next ``budget`` labels. The queries are cut into strata by the
  LLM's metric (averaged over the runs); each stratum gets labels in proportion to its size times the spread of
  the LLM's error in it (Neyman allocation, Cochran 1977, 5.5), and its queries are drawn at random within the
  stratum, so :func:`stratified_estimate` (PPI++ within the strata, weighted by their sizes: what ``judges
  estimate --design`` computes) stays unbiased while its interval is no wider, in expectation, than that of the
  same budget spent uniformly. The design (which stratum each query is in, how many labels each gets) is kept in
  a file (:mod:`.design`): estimating as if the allocated sample were uniform would be biased.
* :func:`allocate_pairs`: the same for human labels on pairs (:mod:`.pair_ppi`), over bands of the pairs' best rank.
"""
from __future__ import annotations

from statistics import NormalDist

import numpy as np

from rankmeter.analyses.judges.params import BUDGET, STRATA, WIDTH
from rankmeter.analyses.judges.ppi import ppi_mean
from rankmeter.analyses.judges.stratified import stratified_estimate, stratified_ppi
from rankmeter.engine.param import SEED, validate_params
from rankmeter.errors import ParameterError

__all__ = ["labels_needed", "neyman", "stratified_estimate", "stratified_ppi", "allocate", "allocate_pairs",
           "pairs_needed"]


@validate_params(WIDTH)
def labels_needed(y, f, f_unlabelled, width: float, *, alpha: float = 0.05) -> int | None:
    """The fewest labelled queries (of all ``len(f) + len(f_unlabelled)``) whose PPI++ interval is at most ``width``
    wide, if the variances stay as they are now; None if labelling every query would not be enough.

    >>> rng = np.random.default_rng(0)
    >>> truth = rng.random(400); llm = truth + rng.normal(0, 0.1, 400)
    >>> labels_needed(truth[:40], llm[:40], llm[40:], 0.1)
    26
    """
    now = ppi_mean(y, f, f_unlabelled, alpha=alpha)
    lam = now["lam"]
    residual = np.var(np.asarray(y, float) - lam * np.asarray(f, float))
    spread = np.var(lam * np.asarray(f_unlabelled, float))
    total = len(f) + len(f_unlabelled)
    n = np.arange(2, total)
    z = NormalDist().inv_cdf(1 - alpha / 2)
    widths = 2 * z * np.sqrt(spread / (total - n) + residual / n)
    enough = np.flatnonzero(widths <= width)
    return int(n[enough[0]]) if len(enough) else None


def _strata(score: np.ndarray, count: int) -> np.ndarray:
    """Stratum of each query: ``count`` groups of about equal size by ``score`` (ties kept together)."""
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


@validate_params(BUDGET, STRATA, SEED)
def allocate(y, f, f_unlabelled, budget: int, *, strata: int = 4, seed: int = 0) -> dict:
    """Which of the unlabelled queries to label next (their positions in ``f_unlabelled``) with ``budget`` labels.

    ``y`` and ``f`` are the labelled queries' human and LLM metrics (the pilot), ``f_unlabelled`` the LLM's metric
    on the others. Returns ``{"chosen": positions, "per_stratum": [...], "strata": stratum of every query
    (labelled first)}``.
    """
    y, f, fu = (np.asarray(a, float) for a in (y, f, f_unlabelled))
    if budget > len(fu) or strata > len(f) // 2:     # the data's bounds (the declarations check the rest)
        raise ParameterError(f"budget={budget}, strata={strata}: {len(fu)} queries have no human labels and "
                             f"{len(f)} have, so at most budget={len(fu)} and strata={len(f) // 2} (two labelled "
                             "queries per stratum)")
    every = np.concatenate([f, fu])
    stratum = _strata(every, strata)
    sl, su = stratum[:len(f)], stratum[len(f):]
    residual = y - f
    spreads = np.array([residual[sl == h].std(ddof=1) if (sl == h).sum() >= 2 else residual.std(ddof=1)
                        for h in range(strata)])
    sizes = np.bincount(stratum, minlength=strata).astype(float)
    available = np.bincount(su, minlength=strata)
    # two labelled queries per stratum at least (the pilot's and the new ones), or the estimate has no variance
    floor_ = np.minimum(np.maximum(2 - np.bincount(sl, minlength=strata), 0), available)
    if floor_.sum() > budget:
        raise ParameterError(f"budget={budget}: the strata need {int(floor_.sum())} labels to have two labelled "
                             "queries each; give a larger budget or fewer strata")
    counts = floor_ + neyman(sizes, spreads, budget - int(floor_.sum()), available - floor_)
    rng = np.random.Generator(np.random.PCG64(seed))
    chosen = np.concatenate([rng.choice(np.flatnonzero(su == h), size=int(k), replace=False)
                             for h, k in enumerate(counts) if k]) if counts.sum() else np.array([], dtype=int)
    return {"chosen": np.sort(chosen).tolist(), "per_stratum": counts.tolist(), "strata": stratum.tolist(),
            "spreads": spreads.tolist()}


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
    (:func:`~rankmeter.analyses.judges.pair_ppi.pair_estimate`) is at most ``width`` wide, if each stratum's spread
    of ``y - lam f`` stays as the labelled pairs show it now; None if labelling every pair would not be enough."""
    from rankmeter.analyses.judges.pair_ppi import pair_estimate

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
