"""The beyond-accuracy measures made of item similarity: diversity and serendipity.

:func:`item_similarity` is Recommenders' ``item_cooccurrence_count`` (scipy's sparse matrices count
co-occurrences) or, with ``item_features``, the cosine of the items' feature vectors; :func:`diversity` and
:func:`serendipity` average it per user, vectorised over users (see :mod:`rankmeter.recsys.beyond`).
"""
from __future__ import annotations

import numpy as np

from rankmeter.errors import InputError

__all__ = ["mean_by", "item_similarity", "diversity", "serendipity"]


def mean_by(group: np.ndarray, values: np.ndarray, n: int) -> np.ndarray:
    sums = np.bincount(group, weights=values, minlength=n)
    counts = np.bincount(group, minlength=n)
    out = np.full(n, np.nan)
    np.divide(sums, counts, out=out, where=counts > 0)
    return out


def item_similarity(t_user, t_item, n_users, n_items, features, items):
    """A function (a, b) -> similarity of item code arrays a, b."""
    if features is not None:
        from collections.abc import Mapping
        if isinstance(features, Mapping):  # ids are compared as text, as the lists' ids are (1 and "1" alike)
            features = {str(k): v for k, v in features.items()}
        dim = None
        matrix = None
        present = np.zeros(n_items, dtype=bool)
        for code, name in enumerate(items):
            vector = features.get(name) if hasattr(features, "get") else None
            if vector is None:
                continue
            vector = np.asarray(vector, dtype=np.float64)
            if matrix is None:
                dim = len(vector)
                matrix = np.zeros((n_items, dim))
            matrix[code], present[code] = vector, True
        if matrix is None:
            raise InputError("item_features: no vector for any item of train or recommendations")
        norms = np.linalg.norm(matrix, axis=1)

        def by_features(a, b):
            ok = present[a] & present[b] & (norms[a] > 0) & (norms[b] > 0)
            out = np.zeros(len(a))
            out[ok] = np.einsum("ij,ij->i", matrix[a[ok]], matrix[b[ok]]) / (norms[a[ok]] * norms[b[ok]])
            return out
        return by_features
    from rankmeter.errors import MissingExtra
    try:
        from scipy import sparse
    except ImportError:
        raise MissingExtra("scipy", "stats", "co-occurrence similarity (diversity, serendipity)") from None
    X = sparse.csc_matrix((np.ones(len(t_user)), (t_user, t_item)), shape=(n_users, n_items))
    counts = np.asarray(X.sum(axis=0)).ravel()

    def by_cooccurrence(a, b):
        if len(a) == 0:
            return np.zeros(0)
        both = np.asarray(X[:, a].multiply(X[:, b]).sum(axis=0)).ravel()
        den = np.sqrt(counts[a] * counts[b])
        out = np.zeros(len(a))
        np.divide(both, den, out=out, where=den > 0)
        return out
    return by_cooccurrence


def diversity(r_user, r_item, n_users, similarity) -> np.ndarray:
    """Per user 1 - mean similarity over the distinct unordered pairs of listed items."""
    starts = np.flatnonzero(np.r_[True, r_user[1:] != r_user[:-1]]) if len(r_user) else np.zeros(0, np.int64)
    sizes = np.diff(np.append(starts, len(r_user)))
    pairs_per = sizes * (sizes - 1) // 2
    owner = np.repeat(np.arange(len(starts)), pairs_per)
    # the j-th pair (x < y) of a list of size s, enumerated with triangular indices
    local = np.arange(int(pairs_per.sum())) - np.repeat(np.cumsum(pairs_per) - pairs_per, pairs_per)
    s = sizes[owner]
    x = (s - 2 - np.floor(np.sqrt(-8 * local + 4 * s * (s - 1) - 7) / 2 - 0.5)).astype(np.int64)
    y = (local + x + 1 - s * (s - 1) // 2 + (s - x) * ((s - x) - 1) // 2).astype(np.int64)
    a, b = r_item[starts[owner] + x], r_item[starts[owner] + y]
    distinct = a != b
    sims = similarity(a[distinct], b[distinct])
    users = r_user[starts[owner]][distinct]
    out = np.full(n_users, np.nan)
    mean = mean_by(users, sims, n_users)
    out[~np.isnan(mean)] = 1 - mean[~np.isnan(mean)]
    return out


def serendipity(r_user, r_item, t_user, t_item, n_users, similarity) -> np.ndarray:
    """Per user the mean over its list of 1 - (mean similarity of the item to the user's training items)."""
    order = np.argsort(t_user, kind="stable")
    t_user, t_item = t_user[order], t_item[order]
    t_start = np.searchsorted(t_user, np.arange(n_users))
    t_count = np.bincount(t_user, minlength=n_users)
    n = t_count[r_user]                                    # training items of each listed item's user
    row = np.repeat(np.arange(len(r_user)), n)
    offset = np.arange(int(n.sum())) - np.repeat(np.cumsum(n) - n, n)
    partner = t_item[t_start[r_user][row] + offset]
    sims = similarity(r_item[row], partner)
    mean_sim = mean_by(row, sims, len(r_user))
    defined = ~np.isnan(mean_sim)                          # a user without training items has no serendipity
    return mean_by(r_user[defined], 1 - mean_sim[defined], n_users)
