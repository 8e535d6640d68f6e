"""How far a judge agrees with itself: several draws of a label per (query, doc) pair.

An LLM sampled at a temperature above 0 (or served by a batch-dependent endpoint) answers the same pair
differently on another call. Given the draws (the label files ``judges label --samples N`` writes: one
``query 0 doc grade`` line per draw; or JSON Lines ``{"query", "doc", "grade"}``, several lines per pair),
:func:`reliability` reports:

* Krippendorff's alpha over the draws, ``ordinal`` and ``nominal`` (each draw a rating, each pair a unit:
  :func:`~rankmeter.judges.many_raters.krippendorff_alpha`, as the ``krippendorff`` package computes it);
* ``icc``: ICC(1), the one-way random-effects intraclass correlation with the pairs as targets and the draws as
  raters (Shrout and Fleiss 1979, case 1; unbalanced draws through the mean group size
  ``n0 = (N - sum n_i^2 / N) / (k - 1)`` of the one-way ANOVA, Snedecor and Cochran 1989, 13.7):
  ``(MSB - MSW) / (MSB + (n0 - 1) MSW)``: the share of the grades' variance that lies between pairs;
* ``flip_rate``: the share of pairs whose majority grade differs between two independent halves of their draws
  (each pair's draws shuffled with ``seed``, the first half against the second, an odd draw left out, a tied
  majority broken at random), overall and per query; ``flip_rate_relevant`` the same for the verdict
  grade >= ``rel``;
* per pair: its draws, grade distribution, the probability that a draw is relevant (grade >= ``rel``) with a
  Wilson score interval at level ``1 - alpha`` (Wilson 1927; Agresti and Coull 1998: it covers near its
  nominal rate even for few draws), and ``unstable`` where that interval straddles 1/2: the pair's verdict
  is not settled by its draws.

Only pairs with two draws or more enter the agreement figures (a pair drawn once says nothing of the judge's
consistency); every pair is listed.

Examples
--------
>>> import io
>>> draws = io.BytesIO(b"q 0 a 3\\nq 0 a 3\\nq 0 a 2\\nq 0 b 0\\nq 0 b 0\\nq 0 b 1\\nq 0 c 2\\nq 0 c 0\\n")
>>> got = reliability([draws], rel=2)
>>> got["pairs"], got["draws"]
(3, {'min': 2, 'max': 3})
>>> round(got["icc"], 4), round(got["alpha_ordinal"], 4), round(got["alpha_nominal"], 4)
(0.6732, 0.5457, 0.087)
>>> [(p["doc"], p["p_relevant"], [round(x, 3) for x in p["interval"]]) for p in got["per_pair"]]
[('a', 1.0, [0.439, 1.0]), ('b', 0.0, [0.0, 0.561]), ('c', 0.5, [0.095, 0.905])]

Three draws cannot settle a verdict at 95% (3 of 3 relevant: the interval reaches down to 0.44), so every pair
is ``unstable`` here.
"""
from __future__ import annotations

import math

import numpy as np
import pyarrow as pa

from rankmeter.core.params import PARAMS
from rankmeter.engine.param import SEED, validate_params
from rankmeter.errors import InputError, ParameterError
from rankmeter.judges.many_raters import krippendorff_alpha, rating_counts
from rankmeter.judges.stopping import wilson
from rankmeter.stats.params import SIGNIFICANCE

__all__ = ["reliability", "reliability_text", "icc1", "read_draws"]

#: the threshold a pair's probability of relevance is tested against: its verdict's
THRESHOLD = 0.5


def icc1(unit: np.ndarray, grade: np.ndarray) -> float | None:
    """ICC(1) of ratings ``grade`` of units ``unit`` (codes 0..k-1; each unit with two ratings or more), or None
    when it is undefined (one unit, or no variance at all).

    >>> round(icc1(np.array([0, 0, 1, 1, 2, 2]), np.array([1.0, 2, 3, 3, 5, 6])), 4)
    0.9216
    """
    k = int(unit.max()) + 1 if len(unit) else 0
    n_i = np.bincount(unit, minlength=k).astype(float)
    N = n_i.sum()
    if k < 2 or N <= k:
        return None
    centre = grade.mean()
    means = np.bincount(unit, weights=grade - centre, minlength=k) / n_i    # centred: no loss on large grades
    msb = (n_i * means ** 2).sum() / (k - 1)
    msw = (((grade - centre) - means[unit]) ** 2).sum() / (N - k)
    n0 = (N - (n_i ** 2).sum() / N) / (k - 1)
    den = msb + (n0 - 1) * msw
    return None if den <= 0 else float((msb - msw) / den)


def read_draws(labels) -> tuple[pa.Array, pa.Array, np.ndarray, list[str]]:
    """(query, doc, grade) of every draw in the label files ``labels`` (paths or file objects, read as
    :func:`~rankmeter.judges.sources.read_samples` reads them), in file then line order, and the files' names."""
    from rankmeter.judges.sources import read_samples

    labels = [labels] if isinstance(labels, (str, bytes)) or hasattr(labels, "read") else list(labels)
    if not labels:
        raise ParameterError("give one label file or more (one line per draw)")
    queries, docs, grades, names = [], [], [], []
    for source in labels:
        s = read_samples(source)
        if s.grades is None:
            raise InputError("gives probabilities per grade, not drawn labels: reliability needs the draws "
                             "themselves (one line per draw)", source=s.source)
        queries.append(s.query.cast(pa.binary()))
        docs.append(s.doc.cast(pa.binary()))
        grades.append(np.asarray(s.grades, dtype=np.float64))
        names.append(s.source)
    return pa.concat_arrays(queries), pa.concat_arrays(docs), np.concatenate(grades), names


def _units(query: pa.Array, doc: pa.Array):
    """A code per draw for its pair, pairs in query then doc order (natural order of the ids), and per pair its
    query's code and the (query, doc) ids as text."""
    from rankmeter.core.order import natural_order
    from rankmeter.io.canonical import decode_id

    q = np.asarray(query.to_numpy(zero_copy_only=False), dtype=object)
    d = np.asarray(doc.to_numpy(zero_copy_only=False), dtype=object)
    q_ids, q_code = np.unique(q.astype("S"), return_inverse=True)
    d_ids, d_code = np.unique(d.astype("S"), return_inverse=True)
    q_text = [decode_id(x) for x in q_ids]
    d_text = [decode_id(x) for x in d_ids]
    order_q, order_d = np.asarray(natural_order(q_text)), np.asarray(natural_order(d_text))
    q_rank = np.empty(len(q_ids), np.int64)
    q_rank[order_q] = np.arange(len(q_ids))
    d_rank = np.empty(len(d_ids), np.int64)
    d_rank[order_d] = np.arange(len(d_ids))
    key = q_rank[q_code.ravel()] * len(d_ids) + d_rank[d_code.ravel()]
    keys, unit = np.unique(key, return_inverse=True)
    pair_query = keys // len(d_ids)
    return unit.ravel(), pair_query, [q_text[order_q[i]] for i in pair_query], \
        [d_text[order_d[i]] for i in keys % len(d_ids)], [q_text[i] for i in order_q]


def _majorities(unit, values, half, keep, units: int, rng) -> np.ndarray:
    """Per unit, the majority category of its draws in ``half`` (0 or 1) among ``keep``; a tie broken at random."""
    cats = np.unique(values)
    column = np.searchsorted(cats, values)
    out = np.zeros((2, units), np.int64)
    for h in (0, 1):
        sel = keep & (half == h)
        counts = np.bincount(unit[sel] * len(cats) + column[sel], minlength=units * len(cats)).reshape(units, -1)
        # counts are whole: noise below 1 breaks only ties, each tied category equally likely
        out[h] = np.argmax(counts + 0.5 * rng.random(counts.shape), axis=1)
    return out


@validate_params(PARAMS["rel"], SIGNIFICANCE["alpha"], SEED)
def reliability(labels, *, rel: float = 1, alpha: float = 0.05, seed: int = 0) -> dict:
    """How far the judge agrees with itself over the draws of each pair (see the module docstring).

    Parameters
    ----------
    labels : path, file object, or a list of them
        Label files with one line per draw (TREC qrels ``query 0 doc grade`` or JSON Lines with ``grade``);
        several files are pooled (each adds draws).
    rel : float, default 1
        A draw is relevant when its grade is >= ``rel``.
    alpha : float, default 0.05
        Each pair's interval of P(relevant) is at level ``1 - alpha``.
    seed : int, default 0
        The shuffle of each pair's draws into two halves (``flip_rate``).

    Returns
    -------
    dict
        JSON-ready: ``pairs``, ``draws`` ``{"min", "max"}``, ``alpha_ordinal``, ``alpha_nominal``, ``icc``,
        ``flip_rate``, ``flip_rate_relevant``, ``unstable``, ``per_query``, ``per_pair`` (``query``, ``doc``,
        ``draws``, ``grades`` ``{grade: count}``, ``p_relevant``, ``interval``, ``unstable``), and ``undefined``
        ``{figure: reason}`` for a figure that is None.
    """
    query, doc, grade, names = read_draws(labels)
    unit, pair_query, q_of, d_of, _ = _units(query, doc)
    k = len(q_of)
    n_i = np.bincount(unit, minlength=k)
    repeated = n_i >= 2
    if not repeated.any():
        raise InputError("no (query, doc) pair has two draws or more: the judge's agreement with itself needs "
                         "several labels per pair (judges label --samples N at a temperature above 0)",
                         source=", ".join(names))
    counts, values = rating_counts(unit, grade)
    undefined = {}
    out: dict = {"pairs": k, "draws": {"min": int(n_i.min()), "max": int(n_i.max())},
                 "repeated_pairs": int(repeated.sum()), "ratings": int(len(grade)), "rel": rel,
                 "level": 1 - alpha, "interval_method": "wilson", "seed": seed}
    for level in ("ordinal", "nominal"):
        out[f"alpha_{level}"] = krippendorff_alpha(counts, values, level)
        if out[f"alpha_{level}"] is None:
            undefined[f"alpha_{level}"] = "every draw has the same grade: agreement by chance is total (0 / 0)"
    # ICC over the pairs drawn twice or more (codes made dense)
    dense = np.cumsum(repeated) - 1
    rows = repeated[unit]
    out["icc"] = icc1(dense[unit[rows]], grade[rows])
    if out["icc"] is None:
        undefined["icc"] = "no variance between or within pairs (or a single pair drawn twice or more)"
    # two halves of each pair's draws, shuffled by a random key per draw
    rng = np.random.Generator(np.random.PCG64(seed))
    order = np.lexsort((rng.random(len(unit)), unit))
    position = np.empty(len(unit), np.int64)
    starts = np.concatenate([[0], np.cumsum(n_i)[:-1]])
    position[order] = np.arange(len(unit)) - starts[unit[order]]
    size = n_i[unit] // 2
    half = (position >= size).astype(np.int64)
    keep = position < 2 * size
    relevant = grade >= rel
    flips = {}
    for name, v in (("flip_rate", grade), ("flip_rate_relevant", relevant.astype(np.float64))):
        major = _majorities(unit, v, half, keep, k, rng)
        flips[name] = (major[0] != major[1]) & repeated
        out[name] = float(flips[name][repeated].mean())
    hits = np.bincount(unit, weights=relevant.astype(float), minlength=k)
    low, high = wilson(hits, n_i, alpha=alpha)
    unstable = (low < THRESHOLD) & (high > THRESHOLD)
    out["unstable"] = int(unstable.sum())
    per_query = []
    for qi in np.unique(pair_query):
        sel = (pair_query == qi)
        rep = sel & repeated
        per_query.append({"query": q_of[int(np.argmax(sel))], "pairs": int(sel.sum()),
                          "flip_rate": float(flips["flip_rate"][rep].mean()) if rep.any() else None,
                          "unstable": int(unstable[sel].sum())})
    out["per_query"] = per_query
    grades_shown = [int(v) if float(v).is_integer() else float(v) for v in values]
    out["per_pair"] = [{"query": q_of[i], "doc": d_of[i], "draws": int(n_i[i]),
                        "grades": {str(grades_shown[j]): int(counts[i, j]) for j in np.flatnonzero(counts[i])},
                        "p_relevant": float(hits[i] / n_i[i]), "interval": [float(low[i]), float(high[i])],
                        "unstable": bool(unstable[i])} for i in range(k)]
    out["undefined"] = undefined
    return out


def reliability_text(result: dict, *, decimals: int = 4, listed: int = 20) -> str:
    """The figures of :func:`reliability` as lines of text (the unstable pairs, at most ``listed`` of them)."""
    from rankmeter.io.output import printable

    def shown(value):
        return "undefined" if value is None or (isinstance(value, float) and math.isnan(value)) \
            else f"{value:.{decimals}f}"

    level = f"{100 * result['level']:g}%"
    rows = [("krippendorff_alpha (ordinal)", result["alpha_ordinal"]),
            ("krippendorff_alpha (nominal)", result["alpha_nominal"]),
            ("icc (ICC(1), draws as raters)", result["icc"]),
            ("flip_rate (majority grade)", result["flip_rate"]),
            (f"flip_rate (grade >= {result['rel']:g})", result["flip_rate_relevant"])]
    width = max(len(label) for label, _ in rows)
    lines = [f"{result['pairs']} pairs ({result['repeated_pairs']} drawn twice or more), {result['ratings']} draws "
             f"({result['draws']['min']}-{result['draws']['max']} per pair)"]
    lines += [f"  {label:<{width}}  {shown(value)}" for label, value in rows]
    lines.append(f"  unstable pairs ({level} Wilson interval of P(grade >= {result['rel']:g}) straddles 1/2): "
                 f"{result['unstable']}")
    shaky = [p for p in result["per_pair"] if p["unstable"]]
    for p in shaky[:listed]:
        dist = " ".join(f"{g}:{c}" for g, c in p["grades"].items())
        lines.append(f"    {printable(p['query'])} {printable(p['doc'])}  draws {p['draws']}  [{dist}]  "
                     f"P(rel) {p['p_relevant']:.{decimals}f} [{p['interval'][0]:.{decimals}f}, "
                     f"{p['interval'][1]:.{decimals}f}]")
    if len(shaky) > listed:
        lines.append(f"    ... {len(shaky) - listed} more (--format json lists every pair)")
    for name, why in result["undefined"].items():
        lines.append(f"  {name} undefined: {why}")
    return "\n".join(lines) + "\n"
