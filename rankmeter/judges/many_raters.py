"""How far several judges agree: three assessors, or an LLM's several sampled labels per pair.

A *unit* is a judged (query, doc) pair; each judge (a qrels file) or each sample (a line of a samples
file, as ``judges aggregate`` reads them) gives it a rating. :func:`many_rater_agreement` gives:

* ``krippendorff_alpha`` at the ``nominal``, ``ordinal`` and ``interval`` levels, over every unit with
  two ratings or more (Krippendorff 2011, "Computing Krippendorff's alpha-reliability": the coincidence
  matrix of pairable values; missing ratings are simply absent), as the ``krippendorff`` package computes it;
* ``fleiss_kappa`` (Fleiss 1971) over the units rated by the most raters (Fleiss' kappa needs the same
  number of ratings per unit; ``fleiss_units`` says how many units that is), as statsmodels'
  ``fleiss_kappa`` computes it;
* the same two, nominal, on relevant (grade >= ``rel``) or not: ``krippendorff_alpha_binary``,
  ``fleiss_kappa_binary``;
* ``raters``, ``units`` (rated twice or more), ``ratings``, and the distribution of ratings per unit.

A figure that cannot be computed (every rating the same: agreement by chance is total) is None with the
reason under ``undefined``. Real grades need ``bins``, as for :func:`.judge_agreement.agreement`.

Examples
--------
Three judges on four pairs (the third judged only three):

>>> a = {"q1": {"d1": 0, "d2": 1, "d3": 2, "d4": 2}}
>>> b = {"q1": {"d1": 0, "d2": 1, "d3": 2, "d4": 1}}
>>> c = {"q1": {"d1": 0, "d2": 2, "d3": 2}}
>>> got = many_rater_agreement([a, b, c])
>>> got["raters"], got["units"], got["fleiss_units"]
(3, 4, 3)
>>> round(got["krippendorff_alpha"]["nominal"], 4), round(got["fleiss_kappa"], 4)
(0.4872, 0.6538)
"""
from __future__ import annotations

import numpy as np

from rankmeter.judges.judge_agreement import grade_categories
from rankmeter.judges.pairs import judgments, source_name
from rankmeter.judges.params import SAMPLED_LABELS
from rankmeter.core.params import PARAMS
from rankmeter.engine.param import validate_params
from rankmeter.errors import ParameterError

__all__ = ["many_rater_agreement", "many_rater_text", "rating_counts"]

LEVELS = ("nominal", "ordinal", "interval")
_SAME = "every rating is the same category: agreement by chance is total (0 / 0)"


def rating_counts(units: np.ndarray, categories: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(units x categories matrix of how many raters gave each category to each unit, the sorted categories)."""
    values = np.unique(categories)
    column = np.searchsorted(values, categories)
    n_units = int(units.max()) + 1 if len(units) else 0
    counts = np.bincount(units * len(values) + column, minlength=n_units * len(values))
    return counts.reshape(n_units, len(values)).astype(np.float64), values


def krippendorff_alpha(counts: np.ndarray, values: np.ndarray, level: str) -> float | None:
    """Krippendorff's alpha of a units x values count matrix; units with fewer than two ratings are left out."""
    pairable = counts[counts.sum(axis=1) >= 2]
    m = pairable.sum(axis=1)
    # coincidences: o_ck = sum_u n_uc (n_uk - [c == k]) / (m_u - 1)
    weighted = pairable / (m - 1)[:, None]
    coincidence = weighted.T @ pairable - np.diag(weighted.sum(axis=0))
    n_c = coincidence.sum(axis=1)
    n = n_c.sum()
    if level == "nominal":
        delta = 1.0 - np.eye(len(values))
    elif level == "interval":
        delta = (values[:, None] - values[None, :]) ** 2
    else:  # ordinal: the squared count of ratings between the two values, each end counted half
        cum = np.concatenate([[0.0], np.cumsum(n_c)])
        low = np.minimum.outer(np.arange(len(values)), np.arange(len(values)))
        high = np.maximum.outer(np.arange(len(values)), np.arange(len(values)))
        delta = (cum[high + 1] - cum[low] - (n_c[:, None] + n_c[None, :]) / 2) ** 2
    expected = (np.outer(n_c, n_c) * delta).sum()
    if n < 2 or expected == 0:
        return None
    return float(1.0 - (n - 1) * (coincidence * delta).sum() / expected)


def fleiss_kappa(counts: np.ndarray) -> tuple[float | None, int]:
    """Fleiss' kappa over the units rated by the most raters (the same number each), and how many those are."""
    per_unit = counts.sum(axis=1)
    if not len(per_unit) or per_unit.max() < 2:
        return None, 0
    full = counts[per_unit == per_unit.max()]
    raters = per_unit.max()
    agreement = ((full ** 2).sum(axis=1) - raters) / (raters * (raters - 1))
    share = full.sum(axis=0) / full.sum()
    chance = (share ** 2).sum()
    if chance >= 1:
        return None, len(full)
    return float((agreement.mean() - chance) / (1 - chance)), len(full)


def _ratings(sources, samples) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """(rater names, unit of each rating, rater of each rating, grade of each rating)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if samples is not None:
        if sources:
            raise ParameterError("give several judgment sets or one samples file, not both")
        from rankmeter.judges.sources import Samples, read_samples
        s = samples if isinstance(samples, Samples) else read_samples(samples)
        if s.grades is None:
            raise ParameterError(f"{s.source}: the samples give probabilities per grade, not sampled labels: "
                                 "agreement needs the labels themselves (one line per sample)")
        query, doc, grade = s.query, s.doc, np.asarray(s.grades, dtype=np.float64)
        names, rater = [source_name(samples, "samples")], np.zeros(len(grade), dtype=np.int64)
    else:
        sources = list(sources)
        if len(sources) < 2:
            raise ParameterError(f"got {len(sources)} judgment set(s): agreement needs two judges or more "
                                 "(or one samples file with several labels per pair)")
        names = [source_name(src, f"judge {i + 1}") for i, src in enumerate(sources)]
        tables = [judgments(src, name) for src, name in zip(sources, names)]
        query = pa.concat_arrays([t.column("query").combine_chunks() for t in tables])
        doc = pa.concat_arrays([t.column("doc").combine_chunks() for t in tables])
        grade = np.concatenate([t.column("rel").to_numpy() for t in tables]).astype(np.float64)
        rater = np.repeat(np.arange(len(tables)), [t.num_rows for t in tables])
    # a unit is a distinct (query, doc): both ids dictionary-encoded by their bytes, never by a hash
    q_code = pc.dictionary_encode(query).indices.to_numpy(zero_copy_only=False).astype(np.int64)
    d_code = pc.dictionary_encode(doc).indices.to_numpy(zero_copy_only=False).astype(np.int64)
    _, unit = np.unique(q_code * (int(d_code.max(initial=0)) + 1) + d_code, return_inverse=True)
    return names, unit.astype(np.int64), rater, grade


@validate_params(PARAMS["rel"], SAMPLED_LABELS)
def many_rater_agreement(sources=(), *, sampled=None, rel: float = 1, bins=None) -> dict:
    """Agreement of several judges (or of an LLM's sampled labels) on the (query, doc) pairs they judged.

    Parameters
    ----------
    sources : sequence of path, Qrels, dict or DataFrame
        Two judgment sets or more, one per judge.
    sampled : path or Samples, optional
        Instead of ``sources``: one file with several labels per pair (TREC qrels with one line per
        sample, as ``judges aggregate`` reads); each label is a rating.
    rel : float, default 1
        Relevant means grade >= ``rel`` (the binary figures).
    bins : sequence of float, optional
        Grade edges for real grades: a grade's category is the number of edges <= it.

    Returns
    -------
    dict
        JSON-ready: ``judges``, ``raters``, ``units``, ``ratings``, ``ratings_per_unit`` (``{count: units}``),
        ``krippendorff_alpha`` ``{level: value}``, ``fleiss_kappa``, ``fleiss_units``, their binary forms,
        and ``undefined`` ``{figure: reason}``.
    """
    names, unit, rater, grade = _ratings(sources, sampled)
    category = grade_categories(grade, bins, " / ".join(names))
    counts, values = rating_counts(unit, category)
    binary, _ = rating_counts(unit, (grade >= rel).astype(np.float64))
    per_unit = counts.sum(axis=1).astype(np.int64)
    rated = per_unit >= 2
    if not rated.any():
        raise ParameterError("no (query, doc) pair has two ratings or more: the judges share no pair")
    raters = len(names) if sampled is None else int(per_unit.max())
    result: dict = {"judges": names, "raters": raters, "units": int(rated.sum()), "ratings": int(per_unit.sum()),
                    "ratings_per_unit": {str(c): int(n) for c, n in zip(*np.unique(per_unit, return_counts=True))},
                    "rel": rel, "undefined": {}}
    alphas = {level: krippendorff_alpha(counts, values, level) for level in LEVELS}
    result["krippendorff_alpha"] = alphas
    for level, value in alphas.items():
        if value is None:
            result["undefined"][f"krippendorff_alpha.{level}"] = _SAME
    result["fleiss_kappa"], result["fleiss_units"] = fleiss_kappa(counts)
    result["krippendorff_alpha_binary"] = krippendorff_alpha(binary, np.array([0.0, 1.0]), "nominal")
    result["fleiss_kappa_binary"], _ = fleiss_kappa(binary)
    for key in ("fleiss_kappa", "krippendorff_alpha_binary", "fleiss_kappa_binary"):
        if result[key] is None:
            result["undefined"][key] = _SAME
    return result


def many_rater_text(result: dict, *, decimals: int = 4) -> str:
    """The figures of :func:`many_rater_agreement` as lines of text."""
    from rankmeter.io.output import printable

    def shown(value):
        return "undefined" if value is None else f"{value:.{decimals}f}"

    spread = ", ".join(f"{n} with {c}" for c, n in result["ratings_per_unit"].items())
    lines = [f"{result['raters']} raters ({', '.join(printable(n) for n in result['judges'])}), "
             f"{result['units']} pairs rated twice or more, {result['ratings']} ratings ({spread})"]
    rows = [(f"krippendorff_alpha ({level})", result["krippendorff_alpha"][level]) for level in LEVELS]
    rows += [(f"fleiss_kappa ({result['fleiss_units']} pairs with every rating)", result["fleiss_kappa"]),
             (f"krippendorff_alpha binary (rel >= {result['rel']:g})", result["krippendorff_alpha_binary"]),
             (f"fleiss_kappa binary (rel >= {result['rel']:g})", result["fleiss_kappa_binary"])]
    width = max(len(label) for label, _ in rows)
    lines += [f"  {label:<{width}}  {shown(value)}" for label, value in rows]
    if result["undefined"]:
        lines.append(f"  undefined: {_SAME}")
    return "\n".join(lines) + "\n"
