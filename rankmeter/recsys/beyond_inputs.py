"""The inputs of :func:`rankmeter.recsys.beyond.beyond_accuracy`, read into arrays of codes.

The training interactions and the recommendations (``{user: [item, ...]}``, ``{user: {item: score}}`` or a
frame) become (users, items) string arrays in list order (:func:`pairs_of`, scored lists in the engine's
rank order), and each user and item id a code in id order (:func:`id_codes`).
"""
from __future__ import annotations

import numpy as np

from rankmeter.errors import InputError

__all__ = ["pairs_of", "id_codes"]


def pairs_of(data, what: str, user: str, item: str, score: str | None, ties: str = "trec_eval"):
    """(users, items) as Arrow string arrays in list order: dicts of lists, or frames (the recommender
    frames :mod:`rankmeter.io.recommender` reads; with ``score``, each user's rows in the engine's rank
    order: score descending, tied items by ``ties`` as everywhere, :func:`rankmeter.core.rows.ranked`)."""
    from collections.abc import Mapping

    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(data, Mapping):
        users, items = [], []
        for u, listed in data.items():
            if isinstance(listed, Mapping):  # {user: {item: score}}: ranked by the engine below
                users += [str(u)] * len(listed)
                items += [str(i) for i in listed]
                continue
            users += [str(u)] * len(listed)
            items += [str(i) for i in listed]
        users, items = pa.array(users, pa.string()), pa.array(items, pa.string())
        if any(isinstance(listed, Mapping) for listed in data.values()):
            scores = [float(v) for listed in data.values() if isinstance(listed, Mapping) for v in listed.values()]
            if len(scores) != len(users):
                raise InputError(f"{what}: give every user a list of items or every user {{item: score}}")
            return _ranked_lists(users, items, np.asarray(scores), ties)
        return users, items
    from rankmeter.io.frames import is_frame
    from rankmeter.io.recommender import frame_columns
    if not is_frame(data):
        raise InputError(f"{what}: expected a DataFrame with {user!r} and {item!r} columns or {{user: [item, ...]}}")
    table = frame_columns(data, {"user": user, "item": item, **({"score": score} if score else {})}, what)
    users = pc.cast(table.column(user), pa.string()).combine_chunks()
    items = pc.cast(table.column(item), pa.string()).combine_chunks()
    if score:
        return _ranked_lists(users, items, table.column(score).to_numpy().astype(float), ties)
    return users, items


def _ranked_lists(users, items, scores: np.ndarray, ties: str):
    """Each user's items in the engine's rank order (the order evaluate and the report use)."""
    import pyarrow as pa

    from rankmeter.core.rows import ranked
    from rankmeter.io.canonical import Run
    table = pa.table({"query": users.cast(pa.binary()), "doc": items.cast(pa.binary()), "score": pa.array(scores)})
    rows = ranked(Run(table), ties=ties)
    return rows.column("query").combine_chunks(), rows.column("doc").combine_chunks()


def id_codes(first, second) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sorted distinct ids of two string arrays, and each array's codes into them."""
    import pyarrow as pa
    import pyarrow.compute as pc

    encoded = pc.dictionary_encode(pa.concat_arrays([first, second]))
    order = pc.sort_indices(encoded.dictionary).to_numpy()
    rank = np.empty(len(order), np.int64)
    rank[order] = np.arange(len(order))                                # codes in id order
    codes = rank[encoded.indices.to_numpy(zero_copy_only=False)]
    return np.asarray(encoded.dictionary.take(pa.array(order)).to_pylist(), dtype=object), \
        codes[:len(first)], codes[len(first):]
