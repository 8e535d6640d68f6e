"""Beyond-accuracy measures of recommendation lists, against the training interactions.

:func:`beyond_accuracy` takes the training interactions (who interacted
with what: a frame with ``user`` and ``item`` columns, or ``{user: [item,
...]}``) and the recommendations (a frame with ``user``, ``item`` and
optionally ``score`` columns, or ``{user: [item, ...]}`` best first), cut at
``k``, and returns per-user values (usable with :mod:`rankmeter.stats` for
significance over users) and their means, plus the catalogue-level numbers:

======================  =================================================================  ==================
name                    definition                                                          as in
======================  =================================================================  ==================
catalog_coverage        distinct recommended items of the catalogue / its distinct items    Recommenders
                        (the catalogue: the training items, or ``catalog=``; never above 1)
distributional_coverage Shannon entropy (log2) of how often each item is recommended        Recommenders
novelty                 mean over all recommendations of -log2(count(i) / interactions);    Recommenders
                        per user: the mean over the user's list
diversity               per user 1 - mean similarity of the distinct pairs in the list      Recommenders
                        (intra-list diversity; a list of one item has none)
serendipity             per user mean over the list of (1 - mean similarity of the item     Recommenders
                        to the user's training items) * relevance (1)
gini_index              Gini index of how often each catalogue item is recommended          RecBole
arp                     per user the mean training popularity of the listed items           Abdollahpouri 2019
aplt, aclt              per user the share / number of listed items in the long tail (the   Abdollahpouri 2019
                        items outside the ``head`` most popular share of the catalogue)
popularity_lift         per user (ARP of the list - ARP of the user's training items) /     Abdollahpouri 2021
                        ARP of the training items
======================  =================================================================  ==================

Where RecBole's metrics (``recbole/evaluator/metrics.py``) define a measure
differently, a parameter picks its definition:

* ``catalog=``: the whole item catalogue (the items, or their number) as
  the denominator of ``catalog_coverage`` and the items ``gini_index`` runs
  over, as RecBole's ItemCoverage and GiniIndex use ``num_items``; default
  the training items (Recommenders), for the Gini index those and the
  recommended ones.
* ``entropy="recbole"``: RecBole's ShannonEntropy, ``-sum p ln p`` divided by
  the number of distinct recommended items, as ``distributional_coverage``
  (default ``"recommenders"``: ``-sum p log2 p``).
* ``tail_ratio=``: RecBole's TailPercentage long tail for ``aplt`` / ``aclt``:
  the ``max(int(ratio * n), 1)`` least popular training items (ties by item
  id) for a ratio in (0, 1], or the items with at most ``ratio``
  interactions for a larger number; default the items outside the ``head``
  share (Abdollahpouri). RecBole's AveragePopularity is ``arp``.

:func:`compare_beyond` compares several recommenders' per-user values with
:func:`rankmeter.compare`'s tests and corrections (significance over users).

Similarity is Recommenders' ``item_cooccurrence_count`` (users who
interacted with both items / sqrt of the two items' interaction counts) or,
with ``item_features``, the cosine of the items' feature vectors. Items a
similarity cannot be computed for count 0, as in Recommenders. All of it is
vectorised over users (scipy's sparse matrices count co-occurrences).

>>> train = {"u1": ["a", "b"], "u2": ["a", "c"], "u3": ["b", "c", "d"]}
>>> recs = {"u1": ["c", "d"], "u2": ["b", "d"], "u3": ["a"]}
>>> b = beyond_accuracy(train, recs)
>>> round(b.overall["catalog_coverage"], 4), round(b.overall["distributional_coverage"], 4)
(1.0, 1.9219)
>>> round(b.per_user["arp"]["u1"], 4), b.per_user["diversity"]["u3"]
(1.5, nan)
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rankmeter.recsys.beyond_inputs import id_codes, pairs_of
from rankmeter.recsys.similarity import diversity, item_similarity, mean_by, serendipity
from rankmeter.engine.param import Param, validate_params
from rankmeter.errors import InputError, ParameterError
from rankmeter.stats.params import SIGNIFICANCE, Correction, Test

__all__ = ["beyond_accuracy", "BeyondAccuracy", "compare_beyond", "PER_USER", "PARAMS"]

#: measures of popularity bias, whose smaller values are better in comparisons
LOWER_IS_BETTER = ("arp", "popularity_lift")
#: the measures with a value per user (the others are catalogue-level)
PER_USER = ("novelty", "diversity", "serendipity", "arp", "aplt", "aclt", "popularity_lift")


#: The parameters of :func:`beyond_accuracy` (and ``rankmeter beyond``'s flags).
PARAMS = {p.name: p for p in (
    Param("k", "integer", help="cut each list at its first K items", low=1, optional=True),
    Param("head", "number", help="share of the most popular items that is not long tail", low=0, high=1,
          low_open=True, high_open=True),
    Param("tail_ratio", "number", help="RecBole's long tail instead: the least popular share (<= 1) or a count of "
          "interactions", low=0, low_open=True, optional=True),
    Param("entropy", "choice", help="distributional coverage: Shannon entropy in bits, or RecBole's "
          "normalised ln form", choices=("recommenders", "recbole")),
    Param("catalog", "integer", None, "number of items in the catalogue (RecBole's num_items; Python: also the "
          "catalogue's items)", low=1, optional=True),
    Param("user", "string", help="user column"),
    Param("item", "string", help="item column"),
    Param("score", "string", help="score column ordering each list (default: row order)"),
)}
#: the measures :func:`compare_beyond` compares: per-user ones (the others have one value per system);
#: ``rankmeter beyond -m M`` (repeatable)
MEASURES = Param("measures", "strings", help="per-user measure to compare (repeatable; default all)",
                 choices=PER_USER)


@dataclass
class BeyondAccuracy:
    """``overall``: each measure's value (per-user ones: the mean over users where defined);
    ``per_user``: ``{measure: {user: value}}`` (NaN where undefined)."""

    overall: dict[str, float]
    per_user: dict[str, dict[str, float]] = field(default_factory=dict)


@validate_params(*(PARAMS[n] for n in ("k", "head", "tail_ratio", "entropy", "user", "item", "score")))
def beyond_accuracy(train, recommendations, *, k: int | None = None, item_features=None, head: float = 0.2,
                    catalog=None, entropy: str = "recommenders", tail_ratio: float | None = None,
                    user: str = "user", item: str = "item", score: str | None = None,
                    ties: str = "trec_eval", measures=None) -> BeyondAccuracy:
    """The beyond-accuracy measures of ``recommendations`` given ``train`` (see the module docstring).

    ``item_features``: ``{item: vector}`` for feature-cosine similarity (default: co-occurrence);
    ``head``: the most popular share of the training items that is not long tail (default 0.2);
    ``catalog``, ``entropy`` and ``tail_ratio`` choose RecBole's definitions (module docstring).
    ``measures``: the per-user measures wanted (default all); diversity and serendipity, which need an item
    similarity (co-occurrence: scipy), are computed only when wanted.
    """
    tu, ti = pairs_of(train, "train", user, item, None)
    ru, ri = pairs_of(recommendations, "recommendations", user, item, score, ties)
    if not len(tu) or not len(ru):
        raise InputError("train and recommendations must each hold at least one (user, item)")
    items, t_item, r_item = id_codes(ti, ri)
    catalog_size = _catalog_size(catalog, items)
    users, t_user, r_user = id_codes(tu, ru)
    keep = np.unique(np.stack([t_user, t_item]), axis=1)          # one interaction per (user, item)
    t_user, t_item = keep[0], keep[1]
    # recommendation lists in their order, cut at k
    order = np.argsort(r_user, kind="stable")
    r_user, r_item = r_user[order], r_item[order]
    starts = np.flatnonzero(np.r_[True, r_user[1:] != r_user[:-1]])
    rank = np.arange(len(r_user)) - np.repeat(starts, np.diff(np.append(starts, len(r_user))))
    if k is not None:
        r_user, r_item = r_user[rank < k], r_item[rank < k]
    n_items, n_users = len(items), len(users)
    popularity = np.bincount(t_item, minlength=n_items).astype(np.float64)
    in_train = popularity > 0
    listed = np.bincount(r_item, minlength=n_items).astype(np.float64)
    p = listed[listed > 0] / len(r_item)
    spread = float(-np.sum(p * np.log2(p))) if entropy == "recommenders" else float(-np.sum(p * np.log(p)) / len(p))
    counted_items = listed[in_train | (listed > 0)]
    if catalog_size is not None:  # the catalogue's items never recommended count 0 (RecBole's num_items)
        counted_items = np.concatenate([listed[listed > 0], np.zeros(max(catalog_size - int((listed > 0).sum()), 0))])
    overall: dict[str, float] = {
        # a share of the catalogue: an item recommended but never seen in training is outside it (Microsoft
        # Recommenders counts it and can pass 1); how many there are is reported beside it
        "catalog_coverage": float(((listed > 0) & in_train).sum() / in_train.sum() if catalog_size is None
                                  else min((listed > 0).sum(), catalog_size) / catalog_size),
        "items_outside_catalog": int(((listed > 0) & ~in_train).sum()) if catalog_size is None else 0,
        "distributional_coverage": spread,
        "gini_index": _gini(counted_items),
    }
    info = np.zeros(n_items)
    info[in_train] = -np.log2(popularity[in_train] / len(t_item))
    overall["novelty"] = float(info[r_item].sum() / len(r_item))
    per_user: dict[str, np.ndarray] = {}
    counted = np.bincount(r_user, minlength=n_users).astype(np.float64)
    has = counted > 0
    per_user["novelty"] = mean_by(r_user, info[r_item], n_users)
    per_user["arp"] = mean_by(r_user, popularity[r_item], n_users)
    tail = _long_tail(popularity, in_train, items, head, tail_ratio)
    tail_count = np.bincount(r_user, weights=tail[r_item].astype(np.float64), minlength=n_users)
    per_user["aclt"] = np.where(has, tail_count, np.nan)
    per_user["aplt"] = np.where(has, tail_count / np.maximum(counted, 1), np.nan)
    profile = mean_by(t_user, popularity[t_item], n_users)
    per_user["popularity_lift"] = (per_user["arp"] - profile) / profile
    if {"diversity", "serendipity"} & set(PER_USER if measures is None else measures):
        similarity = item_similarity(t_user, t_item, n_users, n_items, item_features, items)
        per_user["diversity"] = diversity(r_user, r_item, n_users, similarity)
        per_user["serendipity"] = serendipity(r_user, r_item, t_user, t_item, n_users, similarity)
    answered = np.flatnonzero(has)
    values = {m: {str(users[u]): float(v[u]) for u in answered} for m, v in per_user.items()}
    for m, v in per_user.items():
        defined = v[answered][~np.isnan(v[answered])]
        overall.setdefault(m if m != "novelty" else "novelty_per_user", float(defined.mean()) if len(defined) else math.nan)
    return BeyondAccuracy(overall, values)


def _catalog_size(catalog, items) -> int | None:
    if catalog is None:
        return None
    if isinstance(catalog, (int, np.integer)) and not isinstance(catalog, bool):
        size = int(catalog)
    else:
        size = len({str(i) for i in catalog} | {str(i) for i in items})
    if size < len(items):
        raise ParameterError(f"catalog={catalog!r}: {size} items, fewer than the {len(items)} distinct items of "
                             "train and recommendations; give every item of the catalogue (or their number)")
    return size


def _long_tail(popularity, in_train, items, head: float, tail_ratio) -> np.ndarray:
    """Which items are long tail: outside the ``head`` share (Abdollahpouri), or RecBole's ``tail_ratio`` rule."""
    n_items = len(popularity)
    if tail_ratio is None:
        ranked = np.lexsort((np.arange(n_items), -popularity))      # most popular first, ties by item id
        tail = np.ones(n_items, dtype=bool)
        tail[ranked[:int(math.ceil(head * in_train.sum()))]] = False
        return tail
    tail = np.zeros(n_items, dtype=bool)
    if tail_ratio > 1:                                             # RecBole: at most that many interactions
        tail[in_train & (popularity <= tail_ratio)] = True
        return tail
    train_items = np.flatnonzero(in_train)                         # RecBole: the least popular share, by
    names = np.array([str(items[i]) for i in train_items])         # (count, item id) ascending
    order = np.lexsort((names, popularity[train_items]))
    tail[train_items[order[:max(int(len(train_items) * tail_ratio), 1)]]] = True
    return tail


@validate_params(MEASURES, *SIGNIFICANCE.values())
def compare_beyond(train, recommendations, measures=PER_USER, *, baseline: str | list[str] | None = None,
                   test: Test = "t", correction: Correction = "none", alpha: float = 0.05, permutations: int = 10000,
                   seed: int | None = 0, **options):
    """Compare recommenders on per-user beyond-accuracy measures, with :func:`rankmeter.compare`'s tests.

    Parameters
    ----------
    train : frame or dict
        The training interactions, as for :func:`beyond_accuracy`.
    recommendations : dict
        ``{name: recommendations}``, each as for :func:`beyond_accuracy`.
    measures : str or list of str
        Per-user measures among :data:`PER_USER` (default: all of them).
    baseline, test, correction, alpha, permutations, seed
        As for :func:`rankmeter.compare`; the tests are paired over users. A user
        a system recommends nothing to, or whose value is undefined there (the
        diversity of a one-item list), is left out of that system's pairs.
    **options
        :func:`beyond_accuracy`'s options (``k``, ``item_features``, ``head``,
        ``tail_ratio``, ``user``, ``item``, ``score`` ...).

    Returns
    -------
    rankmeter.Comparison

    Examples
    --------
    >>> train = {"u1": ["a", "b"], "u2": ["a", "c"], "u3": ["b", "c", "d"]}
    >>> recs = {"pop": {"u1": ["a", "c"], "u2": ["a", "b"], "u3": ["a", "b"]},
    ...         "niche": {"u1": ["d", "c"], "u2": ["d", "b"], "u3": ["d", "a"]}}
    >>> c = compare_beyond(train, recs, "arp", baseline="pop")
    >>> round(c.mean("arp", "pop"), 4), round(c.mean("arp", "niche"), 4)
    (2.0, 1.5)
    """
    from rankmeter.stats.compare import compare_scores

    wanted = list(measures)  # each a per-user measure (checked by the declaration)
    if not wanted:
        raise ParameterError(f"measures=[]: give one or more of {', '.join(PER_USER)}")
    if not hasattr(recommendations, "items") or len(recommendations) < 2:
        raise ParameterError("recommendations: expected {name: recommendations} with at least two systems")
    scores = {}
    for name, recs in recommendations.items():
        per_user = beyond_accuracy(train, recs, measures=wanted, **options).per_user
        scores[str(name)] = {m: per_user[m] for m in wanted}
    return compare_scores(scores, baseline=baseline, test=test, correction=correction, alpha=alpha,
                          permutations=permutations, seed=seed,
                          lower_is_better=LOWER_IS_BETTER)


def _gini(counts: np.ndarray) -> float:
    """RecBole's GiniIndex: sum((2i - n - 1) c_(i)) / (n sum(c)) over counts sorted ascending (i from 1)."""
    c = np.sort(counts)
    n = len(c)
    return float(np.sum((2 * np.arange(1, n + 1) - n - 1) * c) / (n * c.sum())) if n and c.sum() else 0.0
