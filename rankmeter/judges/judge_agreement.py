"""How far two judges agree (a human and an LLM, two assessors, two qrels versions).

Over the (query, doc) pairs both judged, :func:`agreement` gives:

* ``cohen_kappa`` on the grades (as ``sklearn.metrics.cohen_kappa_score``; UMBRELA prints it);
* ``cohen_kappa_binary``: the same on relevant (grade >= ``rel``) or not; UMBRELA reports it at 2;
* ``quadratic_kappa``: Cohen's kappa with quadratic weights, the weight of two grades being the square
  of how many grades apart they are among the grades either judge gave (scikit-learn's
  ``weights="quadratic"``, whose labels are the grades seen);
* ``krippendorff_alpha``: Krippendorff's alpha, ordinal (as the ``krippendorff`` package computes it);
* ``fleiss_kappa`` over the two judges and ``jaccard`` of the relevant pairs (grade >= ``rel``);
* ``confusion``: pairs per (grade of ``a``, grade of ``b``);
* the same figures per query, and how many pairs each side judged alone.

A figure that cannot be computed (every pair the same grade: agreement by chance is total) is
None, with the reason under ``undefined``. Real grades (LLM scores such as 0.73) need ``bins``
for the figures over grade categories; the binary ones take them as they are.

Examples
--------
>>> human = {"q1": {"a": 0, "b": 1, "c": 2, "d": 3}, "q2": {"a": 1, "b": 0}}
>>> llm = {"q1": {"a": 0, "b": 2, "c": 2, "d": 3, "e": 1}, "q2": {"a": 1, "b": 1}}
>>> got = agreement(human, llm, rel=2)
>>> got["pairs"], got["only_b"], round(got["cohen_kappa"], 4), round(got["cohen_kappa_binary"], 4)
(6, 1, 0.5556, 0.6667)
>>> got["confusion"]["counts"][1]
[0, 1, 1, 0]
"""
from __future__ import annotations

import numpy as np

from rankmeter.judges.pairs import join, source_name
from rankmeter.core.params import PARAMS
from rankmeter.engine.param import validate_params
from rankmeter.errors import ParameterError

__all__ = ["agreement", "agreement_text"]

_FIGURES = ("cohen_kappa", "cohen_kappa_binary", "quadratic_kappa", "krippendorff_alpha", "fleiss_kappa", "jaccard")
_SAME = "every pair has the same grade from both judges: agreement by chance is total, kappa is 0 / 0"


def _kappa(confusion: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Weighted kappa of each (..., K, K) table, as scikit-learn computes it; second: where it is defined."""
    n = confusion.sum(axis=(-2, -1))
    rows, cols = confusion.sum(axis=-1), confusion.sum(axis=-2)
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = rows[..., :, None] * cols[..., None, :] / n[..., None, None]
        chance = (weights * expected).sum(axis=(-2, -1))
        value = 1.0 - (weights * confusion).sum(axis=(-2, -1)) / chance
    return value, (n > 0) & (chance > 0)


def _krippendorff_ordinal(confusion: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Krippendorff's ordinal alpha of each (..., K, K) table of two coders (Krippendorff 2011, sec. 3)."""
    coincidence = confusion + np.swapaxes(confusion, -1, -2)   # each unit: (a, b) and (b, a), m_u - 1 = 1
    n_v = coincidence.sum(axis=-1)
    k = n_v.shape[-1]
    cum = np.concatenate([np.zeros(n_v.shape[:-1] + (1,)), np.cumsum(n_v, axis=-1)], axis=-1)
    low, high = np.minimum.outer(np.arange(k), np.arange(k)), np.maximum.outer(np.arange(k), np.arange(k))
    between = cum[..., high + 1] - cum[..., low]              # n_low + ... + n_high
    delta = (between - (n_v[..., :, None] + n_v[..., None, :]) / 2) ** 2
    total = n_v.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = (n_v[..., :, None] * n_v[..., None, :]) / (total - 1)[..., None, None]
        value = 1.0 - (coincidence * delta).sum(axis=(-2, -1)) / (expected * delta).sum(axis=(-2, -1))
    return value, (n_v > 0).sum(axis=-1) > 1


def _fleiss(confusion: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    n = confusion.sum(axis=(-2, -1))
    with np.errstate(invalid="ignore", divide="ignore"):
        observed = np.trace(confusion, axis1=-2, axis2=-1) / n
        share = (confusion.sum(axis=-1) + confusion.sum(axis=-2)) / (2 * n[..., None])
        chance = (share ** 2).sum(axis=-1)
        value = (observed - chance) / (1 - chance)
    return value, (n > 0) & (chance < 1)


def grade_categories(grades: np.ndarray, bins, name: str) -> np.ndarray:
    if bins is not None:
        try:
            edges = np.asarray(bins, dtype=np.float64)
        except (TypeError, ValueError):
            edges = np.array([np.nan])
        if edges.ndim != 1 or not len(edges) or not np.isfinite(edges).all() or (np.diff(edges) <= 0).any():
            raise ParameterError(f"bins={bins!r}: expected increasing grade edges, e.g. [0.5, 1.5, 2.5]")
        return np.searchsorted(edges, grades, side="right").astype(np.float64)
    fractional = grades[grades != np.floor(grades)]
    if len(fractional):
        raise ParameterError(f"{name} has real-valued grades (e.g. {fractional[0]:g}): kappa, alpha and the "
                             "confusion matrix need grade categories; give bins (edges such as 0.5, 1.5, 2.5: a "
                             "grade's category is how many edges it reaches), or round the grades first")
    return grades


@validate_params(PARAMS["rel"])
def agreement(qrels_a, qrels_b, *, rel: float = 1, bins=None, per_query: bool = True) -> dict:
    """Agreement of two judges on the (query, doc) pairs both judged.

    Parameters
    ----------
    qrels_a, qrels_b : path, Qrels, dict or DataFrame
        The two judgment sets (e.g. human, then LLM); grades may be real numbers.
    rel : float, default 1
        Relevant means grade >= ``rel``: used by ``cohen_kappa_binary`` and ``jaccard``
        (UMBRELA's binary kappa is ``rel=2``).
    bins : sequence of float, optional
        Grade edges for real grades: a grade's category is the number of edges <= it.
    per_query : bool, default True
        Add ``per_query``: the figures of each query.

    Returns
    -------
    dict
        JSON-ready: ``a``, ``b`` (names), ``pairs``, ``only_a``, ``only_b``, ``rel``, each figure
        of the module docstring (None when undefined), ``confusion`` ``{"grades", "counts"}`` (rows:
        ``a``'s grade), ``undefined`` ``{figure: reason}`` and ``per_query`` (each figure per query,
        with the query's confusion counts over the same grades).
    """
    names = (source_name(qrels_a, "a"), source_name(qrels_b, "b"))
    joined = join(qrels_a, qrels_b, names)
    both = joined.both
    if not both.any():
        raise ParameterError(f"{names[0]} and {names[1]} judge no (query, doc) pair in common")
    x, y = joined.grade_a[both], joined.grade_b[both]
    query = joined.query[both]
    cx, cy = grade_categories(x, bins, names[0]), grade_categories(y, bins, names[1])
    grades = np.unique(np.concatenate([cx, cy]))
    k, nq = len(grades), len(joined.queries)
    xi, yi = np.searchsorted(grades, cx), np.searchsorted(grades, cy)
    confusion = np.bincount((query * k + xi) * k + yi, minlength=nq * k * k).reshape(nq, k, k).astype(np.float64)
    binary = np.bincount((query * 2 + (x >= rel)) * 2 + (y >= rel), minlength=nq * 4).reshape(nq, 2, 2)
    binary = binary.astype(np.float64)
    steps = np.arange(k, dtype=np.float64)
    unweighted, quadratic = 1.0 - np.eye(k), (steps[:, None] - steps[None, :]) ** 2

    def figures(table, table2):
        """Each figure with its defined mask, for one table or a stack of them."""
        both_rel, either_rel = table2[..., 1, 1], table2[..., 1, :].sum(-1) + table2[..., :, 1].sum(-1) - table2[..., 1, 1]
        with np.errstate(invalid="ignore", divide="ignore"):
            jaccard = np.where(either_rel > 0, both_rel / either_rel, 1.0)   # nobody relevant: the sets agree
        return {"cohen_kappa": _kappa(table, unweighted), "cohen_kappa_binary": _kappa(table2, 1.0 - np.eye(2)),
                "quadratic_kappa": _kappa(table, quadratic), "krippendorff_alpha": _krippendorff_ordinal(table),
                "fleiss_kappa": _fleiss(table), "jaccard": (jaccard, table2.sum(axis=(-2, -1)) > 0)}

    reasons = {"cohen_kappa": _SAME, "quadratic_kappa": _SAME, "fleiss_kappa": _SAME,
               "cohen_kappa_binary": f"every pair is on the same side of rel={rel:g} for both judges: agreement "
                                     "by chance is total, kappa is 0 / 0",
               "krippendorff_alpha": "one grade only among the pairs: alpha needs two values", "jaccard": "no pairs"}
    overall = figures(confusion.sum(axis=0), binary.sum(axis=0))
    result = {"a": names[0], "b": names[1], "pairs": int(both.sum()),
              "only_a": int((~np.isnan(joined.grade_a) & np.isnan(joined.grade_b)).sum()),
              "only_b": int((np.isnan(joined.grade_a) & ~np.isnan(joined.grade_b)).sum()),
              "rel": rel, "bins": None if bins is None else [float(e) for e in bins]}
    result.update({name: float(v) if ok else None for name, (v, ok) in overall.items()})
    result["confusion"] = {"grades": [_number(g) for g in grades], "counts": confusion.sum(axis=0).astype(int).tolist()}
    result["undefined"] = {name: reasons[name] for name, (_, ok) in overall.items() if not ok}
    if per_query:
        result["per_query"] = _per_query(joined, figures(confusion, binary), confusion)
    return result


def _per_query(joined, stacked: dict, confusion: np.ndarray) -> list[dict]:
    pairs = confusion.sum(axis=(1, 2)).astype(int)
    only_a = np.bincount(joined.query[~np.isnan(joined.grade_a) & np.isnan(joined.grade_b)],
                         minlength=len(joined.queries))
    only_b = np.bincount(joined.query[np.isnan(joined.grade_a) & ~np.isnan(joined.grade_b)],
                         minlength=len(joined.queries))
    columns = {name: [float(v) if ok else None for v, ok in zip(*stacked[name])] for name in _FIGURES}
    counts = confusion.astype(int).tolist()
    return [{"query": q, "pairs": int(pairs[i]), "only_a": int(only_a[i]), "only_b": int(only_b[i]),
             **{name: columns[name][i] for name in _FIGURES}, "confusion": counts[i]}
            for i, q in enumerate(joined.queries)]


def _number(value: float):
    return int(value) if float(value).is_integer() else float(value)


def agreement_text(result: dict, *, decimals: int = 4) -> str:
    """The plain-text rendering of an :func:`agreement` result (``rankmeter agree``)."""
    from rankmeter.io.output import printable

    def show(value):
        return "undefined" if value is None else f"{value:.{decimals}f}"

    a, b, rel = printable(result["a"]), printable(result["b"]), f"{result['rel']:g}"
    lines = [(f"{a} vs {b}: {result['pairs']} pairs judged by both; {result['only_a']} by {a} only, "
              f"{result['only_b']} by {b} only")]
    labels = {"cohen_kappa": "Cohen's kappa", "cohen_kappa_binary": f"Cohen's kappa, binary (grade >= {rel})",
              "quadratic_kappa": "Cohen's kappa, quadratic weights", "krippendorff_alpha": "Krippendorff's alpha, ordinal",
              "fleiss_kappa": "Fleiss' kappa", "jaccard": f"Jaccard of the relevant pairs (grade >= {rel})"}
    width = max(map(len, labels.values()))
    lines += [f"  {labels[name]:<{width}}  {show(result[name])}" for name in _FIGURES]
    lines += [f"  {name}: undefined: {why}" for name, why in result["undefined"].items()]
    grades = [str(g) for g in result["confusion"]["grades"]]
    cell = max([len(g) for g in grades] + [len(str(c)) for row in result["confusion"]["counts"] for c in row] + [4])
    lines += ["", f"confusion (rows: {a}'s grade, columns: {b}'s grade)",
              "  " + " " * cell + "".join(f" {g:>{cell}}" for g in grades)]
    lines += [f"  {g:>{cell}}" + "".join(f" {c:>{cell}}" for c in row)
              for g, row in zip(grades, result["confusion"]["counts"])]
    if result.get("per_query"):
        qw = max(len("query"), *(len(printable(r["query"])) for r in result["per_query"]))
        lines += ["", "per query (undefined: -)",
                  (f"  {'query':<{qw}} {'pairs':>6} {'only a':>6} {'only b':>6} {'kappa':>8} {'binary':>8} "
                   f"{'quadratic':>9} {'alpha':>8}")]
        for r in result["per_query"]:
            cells = [("-" if r[n] is None else f"{r[n]:.{decimals}f}") for n in
                     ("cohen_kappa", "cohen_kappa_binary", "quadratic_kappa", "krippendorff_alpha")]
            lines.append(f"  {printable(r['query']):<{qw}} {r['pairs']:>6} {r['only_a']:>6} {r['only_b']:>6} "
                         f"{cells[0]:>8} {cells[1]:>8} {cells[2]:>9} {cells[3]:>8}")
    return "\n".join(lines) + "\n"
