"""pytrec_eval's dicts read into columns in plain Python: the oracle of the compiled walker
(``_trecparse.from_dicts``, rankmeter/compat/pytrec_eval/dicts.py), and rankmeter's own path until the
walker became the only one."""
from __future__ import annotations

import numpy as np

from rankmeter.compat.pytrec_eval.dicts import _check_id
from rankmeter.engine.ids import Ids

__all__ = ["columns"]


def columns(data: dict, kind: str) -> tuple[Ids, Ids, np.ndarray]:
    """(query ids, doc ids, grades or scores) of ``{query: {doc: value}}``, or pytrec_eval's TypeError."""
    queries, docs, numbers = [], [], []
    for q, inner in data.items():
        qb = _check_id(q)
        for d, value in inner.items():
            docs.append(_check_id(d))
            queries.append(qb)
            if kind == "qrels":
                if not isinstance(value, int):
                    raise TypeError("Expected relevance to be integer.")
                numbers.append(int(value))
            else:
                if not isinstance(value, (int, float)):
                    raise TypeError("Unable to extract query/object scores.")
                numbers.append(float(value))
    dtype = np.int64 if kind == "qrels" else np.float64
    return Ids.from_list(queries), Ids.from_list(docs), np.asarray(numbers, dtype)
