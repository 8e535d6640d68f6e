"""Correlation between system rankings: Kendall's tau, tau_ap, Spearman's rho, Pearson's r and RBO.

Two measures (or two qrels versions) score the same systems; these say how alike the
orderings of the systems are. Scores are given as two arrays over the same systems (or two
dicts name -> score); rankings go from the highest score down. All are vectorised over the
pairs (``n`` systems: ``n (n - 1) / 2`` pairs at once); :func:`kendall_tau_rows` and :func:`tau_ap_rows`
also over many score sets at once (a bootstrap's resamples). When every system scores alike on
one side there is no ranking to compare: :func:`correlations` then reports each
coefficient as undefined, with the reason.

>>> a, b = [0.30, 0.25, 0.20, 0.10], [0.31, 0.20, 0.22, 0.05]
>>> round(kendall_tau(a, b), 4), round(tau_ap(a, b), 4), round(spearman(a, b), 4), round(pearson(a, b), 4)
(0.6667, 0.6667, 0.8, 0.95)
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from rankmeter.meta.params import RBO_KIND, RBO_P, TAU_AP_TIES, TAU_VARIANT
from rankmeter.engine.param import validate_params
from rankmeter.errors import ParameterError

__all__ = ["correlations", "kendall_tau", "kendall_tau_rows", "pearson", "rbo", "spearman", "system_ranking", "tau_ap",
           "tau_ap_rows"]


def _paired(a, b) -> tuple[np.ndarray, np.ndarray]:
    """Two score arrays over the same systems (dicts are matched by name)."""
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        if set(a) != set(b):
            raise ParameterError(f"the two score sets name different systems: only in one: "
                                 f"{sorted(set(a) ^ set(b), key=str)[:5]}")
        names = sorted(a, key=str)
        a, b = [a[n] for n in names], [b[n] for n in names]
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1:
        raise ParameterError(f"expected two score lists of the same length, got {x.shape} and {y.shape}")
    return _scored(x, y)


def _scored(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``x`` and ``y`` (systems on the last axis), refused unless there are two systems and every score is finite."""
    if x.shape[-1] < 2:
        raise ParameterError("a correlation needs at least two systems")
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise ParameterError("scores must be finite numbers")
    return x, y


def system_ranking(scores) -> list:
    """System names (or indices) from the highest score down (ties: by name, then index)."""
    if isinstance(scores, Mapping):
        return sorted(scores, key=lambda n: (-scores[n], str(n)))
    values = np.asarray(scores, dtype=np.float64)
    return np.lexsort((np.arange(len(values)), -values)).tolist()


@validate_params(TAU_VARIANT)
def kendall_tau(a, b, *, variant: str = "b") -> float:
    """Kendall's tau between the orderings of ``a`` and ``b``.

    ``variant="b"`` (default; scipy's default) corrects for ties; ``"a"`` is
    (concordant - discordant) / all pairs.
    """
    x, y = _paired(a, b)
    return float(kendall_tau_rows(x[None], y[None], variant=variant)[0])


@validate_params(TAU_VARIANT)
def kendall_tau_rows(a, b, *, variant: str = "b") -> np.ndarray:
    """:func:`kendall_tau` of each row of ``a`` against the same row of ``b`` (both (R, S): R score sets over
    S systems), vectorised over the rows; NaN where a row of tau-b has no untied pair on one side.

    >>> kendall_tau_rows([[1, 2, 3], [1, 1, 2]], [[1, 2, 3], [3, 2, 1]]).tolist()
    [1.0, -0.8164965809277261]
    """
    x, y = _rows(a, b)
    i, j = np.triu_indices(x.shape[1], k=1)
    dx, dy = np.sign(x[:, i] - x[:, j]), np.sign(y[:, i] - y[:, j])
    s = (dx * dy).sum(axis=1)
    if variant == "a":
        return s / len(i)
    denom = np.sqrt((dx != 0).sum(axis=1).astype(np.float64) * (dy != 0).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denom > 0, s / denom, np.nan)


def _rows(a, b) -> tuple[np.ndarray, np.ndarray]:
    """Two (R, S) score arrays: R score sets over the same S systems."""
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 2:
        raise ParameterError(f"expected two (rows, systems) score arrays of the same shape, got {x.shape} and "
                             f"{y.shape}")
    return _scored(x, y)


@validate_params(TAU_AP_TIES)
def tau_ap(a, b, *, symmetric: bool = True, ties: str = "strict") -> float:
    """AP correlation (Yilmaz, Aslam and Robertson, SIGIR 2008) of the rankings by ``a`` and by ``b``.

    One direction, ranking ``a`` against the truth ``b``: 2 / (n - 1) * sum over
    ranks i >= 2 of ``a``'s ordering of C(i) / (i - 1), minus 1, with C(i) the
    systems above rank i that ``b`` also puts above that system. Disagreements
    near the top weigh more than near the bottom.

    Parameters
    ----------
    a, b : arrays or dicts name -> score
    symmetric : bool, default True
        Average the two directions (``a`` against ``b`` and ``b`` against ``a``);
        False: ``a`` against the truth ``b`` only.
    ties : {"strict", "favourable"}, default "strict"
        ``"strict"`` is tau_ap-b as TREC AutoJudge computes it (``tauap_b`` in
        trec_auto_judge/pyircore.py, after Urbano and Marrero, SIGIR 2017): a
        system's pivot is the number of systems strictly above it in the ranking
        evaluated, the top tied group is skipped, and only systems strictly above
        in both rankings count as agreeing (ties count against). Undefined (NaN)
        when every system ties in the ranking evaluated. ``"favourable"`` is
        rankmeter's earlier rule: ties in ``a`` are ordered by ``b`` (the most
        favourable order) and ties in ``b`` count as agreement. Without ties both
        rules give the paper's value.

    Examples
    --------
    >>> tau_ap([1, 2, 3, 4], [10, 20, 40, 30], symmetric=False), tau_ap([1, 1, 2], [1, 2, 3])
    (0.33333333333333326, 0.75)
    """
    x, y = _paired(a, b)
    return float(tau_ap_rows(x[None], y[None], symmetric=symmetric, ties=ties)[0])


@validate_params(TAU_AP_TIES)
def tau_ap_rows(a, b, *, symmetric: bool = True, ties: str = "strict") -> np.ndarray:
    """:func:`tau_ap` of each row of ``a`` against the same row of ``b`` (both (R, S)), vectorised over the rows.

    >>> tau_ap_rows([[1, 2, 3, 4], [1, 1, 2, 3]], [[10, 20, 40, 30], [1, 2, 3, 4]], symmetric=False).round(4).tolist()
    [0.3333, 1.0]
    """
    x, y = _rows(a, b)
    direction = _tau_ap_strict if ties == "strict" else _tau_ap_favourable
    if symmetric:
        return (direction(x, y) + direction(y, x)) / 2
    return direction(x, y)


def _tau_ap_favourable(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    n = x.shape[1]
    order = np.lexsort((-y, -x), axis=-1)          # x's ranking, its ties ordered by y
    yb = np.take_along_axis(y, order, axis=1)
    above = np.tril(yb[:, None, :] >= yb[:, :, None], k=-1)   # above[r, i, j]: j above i in x, and y agrees
    correct = above.sum(axis=2)[:, 1:]
    return 2.0 / (n - 1) * _in_turn(correct / np.arange(1, n)) - 1.0


def _in_turn(terms: np.ndarray) -> np.ndarray:
    """Each row's sum, its terms added one after another (numpy's sum adds a row of 8 or more pairwise, so that a
    row's sum would depend on where its zero terms are; a running sum adds in order, zeros changing nothing)."""
    return np.cumsum(terms, axis=1)[:, -1]


def _tau_ap_strict(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    # pyircore's _tauap_b_ties with x's ranking evaluated: pivot p_i = |{j: x_j > x_i}|, agreeing
    # c_i = |{j: x_j > x_i and y_j > y_i}|, value 2 / |{i: p_i > 0}| * sum c_i / p_i - 1
    above_x = x[:, None, :] > x[:, :, None]     # [r, i, j]: j strictly above i by x
    pivot = above_x.sum(axis=2)
    agree = (above_x & (y[:, None, :] > y[:, :, None])).sum(axis=2)
    ranked = (pivot > 0).sum(axis=1)
    share = _in_turn(np.where(pivot > 0, agree / np.maximum(pivot, 1), 0.0))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(ranked > 0, 2.0 / ranked * share - 1.0, np.nan)


def spearman(a, b) -> float:
    """Spearman's rho: Pearson's correlation of the ranks (ties share the mean rank), as scipy computes it."""
    x, y = _paired(a, b)

    def ranks(v):
        order = np.argsort(v, kind="stable")
        sorted_v = v[order]
        first = np.concatenate(([True], sorted_v[1:] != sorted_v[:-1]))
        group = np.cumsum(first) - 1
        starts = np.flatnonzero(first)
        ends = np.append(starts[1:], len(v))
        mean_rank = (starts + ends + 1) / 2.0
        out = np.empty(len(v))
        out[order] = mean_rank[group]
        return out

    rx, ry = ranks(x), ranks(y)
    rx, ry = rx - rx.mean(), ry - ry.mean()
    denom = np.sqrt((rx * rx).sum() * (ry * ry).sum())
    return float((rx * ry).sum() / denom) if denom > 0 else float("nan")


def pearson(a, b) -> float:
    """Pearson's linear correlation of the scores, as ``scipy.stats.pearsonr`` computes it (NaN when one side is constant).

    >>> round(pearson([1, 2, 3], [2, 4, 7]), 4)
    0.9934
    """
    x, y = _paired(a, b)
    if (x == x[0]).all() or (y == y[0]).all():  # x - mean(x) need not be exactly 0 there
        return float("nan")
    x, y = x / np.abs(x).max(), y / np.abs(y).max()  # scaled first, as scipy does: tiny values keep their norm
    dx, dy = x - x.mean(), y - y.mean()
    nx, ny = np.linalg.norm(dx), np.linalg.norm(dy)
    return float(np.clip(np.dot(dx / nx, dy / ny), -1.0, 1.0))


@validate_params(RBO_P, RBO_KIND)
def rbo(a: Sequence, b: Sequence, *, p: float = 0.9, kind: str = "ext") -> float:
    """Rank-biased overlap of two rankings (lists of item ids, best first; Webber, Moffat and Zobel, TOIS 2010).

    With s <= l the lengths of the shorter and longer list, X_d the overlap of
    the two prefixes of depth d and f = l + s - X_l:

    * ``"min"`` (eq. 11, at depth s): the lower bound from the prefixes seen;
    * ``"res"`` (eq. 30): the residual, the most the unseen tails could add;
    * ``"ext"`` (eq. 32): the point estimate extrapolated from the prefixes.

    ``p`` in (0, 1] is the persistence; ``p=1`` gives the average overlap at the depth of the shorter list
    (Fagin, Kumar and Sivakumar 2003: the mean of X_d / d, d = 1..s), what the rbo package's ``rbo(p=1)``
    computes, for every ``kind``.

    >>> round(rbo(["a", "b", "c", "d"], ["b", "a", "c", "e"], p=0.9), 4)
    0.7177
    >>> rbo(["a", "b", "c", "d"], ["b", "a", "c", "e"], p=1)  # (0/1 + 2/2 + 3/3 + 3/4) / 4
    0.6875
    """
    S, L = (list(a), list(b)) if len(a) <= len(b) else (list(b), list(a))
    s, l = len(S), len(L)
    if len(set(S)) != s or len(set(L)) != l:
        raise ParameterError("each ranking must name an item once")
    if s == 0:
        return float("nan")
    # X_d = |S[:d] & L[:d]| for d = 1..l: an item counts from depth max(its rank in S, its rank in L)
    rank_l = {item: r for r, item in enumerate(L, start=1)}
    depth = np.array([max(r, rank_l[item]) for r, item in enumerate(S, start=1) if item in rank_l], dtype=np.int64)
    X = np.cumsum(np.bincount(depth, minlength=l + 1)[1:]).astype(np.float64)
    d = np.arange(1, l + 1, dtype=np.float64)
    pd = p ** d
    q = (1 - p) / p
    if p == 1:
        return float((X[:s] / d[:s]).mean())
    Xs, Xl = X[s - 1], X[l - 1]
    if kind == "min":
        return float(q * (((X[:s] - Xs) * pd[:s] / d[:s]).sum() - Xs * np.log(1 - p)))
    if kind == "res":
        f = int(l + s - Xl)
        df = np.arange(1, f + 1, dtype=np.float64)
        pf = p ** df / df
        return float(p ** s + p ** l - p ** f - q * (s * pf[s:].sum() + l * pf[l:].sum()
                                                     + Xl * (np.log(1 / (1 - p)) - pf.sum())))
    tail = (Xs * (d[s:] - s) * pd[s:] / (s * d[s:])).sum()
    return float(q * ((X / d * pd).sum() + tail) + ((Xl - Xs) / l + Xs / s) * p ** l)


@validate_params(RBO_P)
def correlations(a, b, *, p: float = 0.9, names: tuple[str, str] = ("a", "b")) -> dict:
    """Every coefficient of this module for one pair of score sets, each a number or undefined with the reason.

    Returns ``{"systems": n, "kendall_tau_b", "kendall_tau_a", "spearman", "pearson", "tau_ap" (symmetric,
    strict ties), "tau_ap_a_vs_b" (``a`` against the truth ``b``), "rbo": number or None, "undefined":
    {coefficient: reason}}``. When every system scores alike under ``a`` or ``b`` there is no ranking:
    every coefficient is None, with that reason (``names`` name the two sides in it).

    >>> got = correlations([0.2, 0.2, 0.2], [0.1, 0.3, 0.2], names=("human qrels", "LLM qrels"))
    >>> got["kendall_tau_b"], got["undefined"]["kendall_tau_b"]
    (None, 'every system scores 0.2 under human qrels: the systems are not ranked')
    """
    x, y = _paired(a, b)
    ranking_a, ranking_b = system_ranking(a), system_ranking(b)
    keys = ("kendall_tau_b", "kendall_tau_a", "spearman", "pearson", "tau_ap", "tau_ap_a_vs_b", "rbo")
    for values, name in ((x, names[0]), (y, names[1])):
        if (values == values[0]).all():
            reason = f"every system scores {values[0]:g} under {name}: the systems are not ranked"
            return {"systems": len(x), **dict.fromkeys(keys), "undefined": dict.fromkeys(keys, reason)}
    got = {"kendall_tau_b": kendall_tau(x, y), "kendall_tau_a": kendall_tau(x, y, variant="a"),
           "spearman": spearman(x, y), "pearson": pearson(x, y), "tau_ap": tau_ap(x, y),
           "tau_ap_a_vs_b": tau_ap(x, y, symmetric=False), "rbo": rbo(ranking_a, ranking_b, p=p)}
    undefined = {k: "not a finite number" for k, v in got.items() if not np.isfinite(v)}
    return {"systems": len(x), **{k: (None if k in undefined else v) for k, v in got.items()},
            "undefined": undefined}
