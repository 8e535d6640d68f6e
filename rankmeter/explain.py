"""Show one measure's computation for one query, step by step.

:func:`explain` returns an :class:`Explanation`: a per-rank table (doc, score,
grade and the measure's own columns: gain, discount, contribution, running
total ...), the ideal ranking where the measure has one, and the final
formula with its numbers, the way the seeds work their examples by hand::

    DCG@5 = 31/1 + 7/1.585 + 3/2 + 1/2.322 + 3/2.585 = 38.5077

The value shown is checked against the measure's kernel, so an explanation
can never disagree with :func:`rankmeter.evaluate`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .engine import NONPOOL, UNJUDGED, Batch, build_batch
from .errors import InputError
from .io import as_qrels, as_run
from .measures import Measure
from .measures.base import level_of
from .measures.dcg import gain_values
from .tables import Qrels, Run, decode_id, encode_id

__all__ = ["explain", "Explanation"]


@dataclass
class Explanation:
    """One measure on one query: per-rank table, optional ideal table, formula and value."""

    measure: Measure
    query: str
    value: float | int | str
    columns: list[str]
    rows: list[list[Any]]
    formula: list[str]
    ideal_columns: list[str] = field(default_factory=list)
    ideal_rows: list[list[Any]] = field(default_factory=list)

    def to_arrow(self, ideal: bool = False) -> pa.Table:
        cols, rows = (self.ideal_columns, self.ideal_rows) if ideal else (self.columns, self.rows)
        return pa.table({c: [r[i] for r in rows] for i, c in enumerate(cols)})

    @property
    def table(self):
        """The per-rank table as a pandas DataFrame (needs pandas)."""
        return self.to_arrow().to_pandas()

    def __str__(self) -> str:
        out = [f"{self.measure} for query {self.query}", ""]
        out += _render(self.columns, self.rows)
        if self.ideal_rows:
            out += ["", "ideal ranking:"] + _render(self.ideal_columns, self.ideal_rows)
        out += [""] + self.formula
        return "\n".join(out)


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.4f}".rstrip("0").rstrip(".") if abs(v - round(v)) > 1e-12 or abs(v) >= 1e15 else str(int(round(v)))
    return str(v)


def _render(columns: list[str], rows: list[list[Any]]) -> list[str]:
    cells = [[_cell(v) for v in r] for r in rows]
    widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(columns)]
    lines = ["  ".join(c.rjust(w) for c, w in zip(columns, widths))]
    lines += ["  ".join(v.rjust(w) for v, w in zip(r, widths)) for r in cells]
    return lines


def _num(x: float, digits: int = 4) -> str:
    """A number the way a person writes it: 31, 1.585, 0.8296."""
    if abs(x - round(x)) < 1e-9:
        return str(int(round(x)))
    return f"{x:.{digits}f}".rstrip("0")


def _grade_text(g: int) -> Any:
    return "unjudged" if g == NONPOOL else ("judged<0" if g == UNJUDGED else int(g))


# ------------------------------------------------------------------ per-family explainers
# Each gets (batch of one query, measure with rel filled in) and returns
# (extra column names, per-rank extra values, ideal columns, ideal rows, formula lines, value).
# ``m`` has rel filled in; ``name`` is the measure as the user named it, for the formula.

def _denominators(ranks: np.ndarray, discount: str) -> np.ndarray:
    if discount == "jk":
        return np.where(ranks < 2, 1.0, np.log2(np.maximum(ranks, 2).astype(float)))
    return np.log2(ranks + 1.0)


def _dcg_rows(grades: np.ndarray, gain_spec, discount: str):
    ranks = np.arange(1, len(grades) + 1)
    gains = gain_values(grades, gain_spec)
    denom = _denominators(ranks, discount)
    contrib = gains / denom
    running = np.cumsum(contrib)
    terms = " + ".join(f"{_num(g)}/{_num(d, 3)}" for g, d in zip(gains, denom)) or "0"
    return gains, denom, contrib, running, terms


def _explain_gain(batch: Batch, m: Measure, name: str):
    k = m.cutoff
    rel = batch.rel if k is None else batch.rel[:k]
    spec = m.get("gain")
    label = m.name if k is None else f"{m.name}@{k}"
    if m.name == "CG":
        gains = gain_values(rel, spec)
        total = float(gains.sum())
        formula = [f"{label} = {' + '.join(_num(g) for g in gains) or '0'} = {_num(total)}"]
        return ["gain", "running total"], list(zip(gains, np.cumsum(gains))), [], [], formula, total
    discount = m.get("discount")
    ideal_kind = m.get("ideal") if m.name == "nDCG" else None
    gains, denom, contrib, running, terms = _dcg_rows(rel, spec, discount)
    dcg = float(running[-1]) if len(running) else 0.0
    extra = ["gain", "discount", "contribution", "running total"]
    per_rank = list(zip(gains, denom, contrib, running))
    dcg_label = label.replace("nDCG", "DCG")
    formula = [f"{dcg_label} = {terms} = {_num(dcg)}"]
    if m.name == "DCG":
        return extra, per_rank, [], [], formula, dcg
    if ideal_kind == "qrels":
        pool = batch.judged_rel
    elif ideal_kind == "run":
        pool = batch.rel
    else:
        pool = rel
    ideal_gains = np.sort(gain_values(pool, spec))[::-1]
    ideal_gains = ideal_gains[ideal_gains > 0]
    if k is not None:
        ideal_gains = ideal_gains[:k]
    ranks = np.arange(1, len(ideal_gains) + 1)
    idenom = _denominators(ranks, discount)
    icontrib = ideal_gains / idenom
    idcg = float(icontrib.sum())
    ideal_rows = [[int(r), g, d, c, t] for r, g, d, c, t in zip(ranks, ideal_gains, idenom, icontrib, np.cumsum(icontrib))]
    iterms = " + ".join(f"{_num(g)}/{_num(d, 3)}" for g, d in zip(ideal_gains, idenom)) or "0"
    formula.append(f"ideal {dcg_label} ({ideal_kind}) = {iterms} = {_num(idcg)}")
    value = dcg / idcg if idcg > 0 else 0.0
    formula.append(f"{name} = {_num(dcg)} / {_num(idcg)} = {value:.4f}")
    return extra, per_rank, ["rank", "gain", "discount", "contribution", "running total"], ideal_rows, formula, value


def _explain_ap(batch: Batch, m: Measure, name: str):
    level, k = level_of(batch, m), m.cutoff
    rel = batch.rel if k is None else batch.rel[:k]
    is_rel = rel >= max(level, 0)
    seen = np.cumsum(is_rel)
    ranks = np.arange(1, len(rel) + 1)
    prec = np.where(is_rel, seen / ranks, np.nan)
    running = np.cumsum(np.where(is_rel, seen / ranks, 0.0))
    R = int((batch.judged_rel >= max(level, 0)).sum())
    denom_kind = m.get("denom")
    denom = {"R": R, "min": R if k is None else min(R, k), "hits": int(is_rel.sum())}[denom_kind]
    terms = " + ".join(f"{s}/{r}" for s, r in zip(seen[is_rel], ranks[is_rel])) or "0"
    total = float(running[-1]) if len(running) else 0.0
    value = total / denom if denom else 0.0
    label = name
    what = {"R": "R (relevant judged)", "min": "min(R, k)", "hits": "relevant retrieved"}[denom_kind]
    formula = [f"{label} = ({terms}) / {denom} = {value:.4f}    [divided by {what}]"]
    per_rank = [[bool(r), int(s) if r else None, None if np.isnan(p) else p, t]
                for r, s, p, t in zip(is_rel, seen, prec, running)]
    return ["relevant", "relevant so far", "precision", "running sum"], per_rank, [], [], formula, value


def _explain_rr(batch: Batch, m: Measure, name: str):
    level, k = level_of(batch, m), m.cutoff
    rel = batch.rel if k is None else batch.rel[:k]
    is_rel = rel >= max(level, 0)
    hit = np.flatnonzero(is_rel)
    value = 1.0 / (hit[0] + 1) if len(hit) else 0.0
    formula = [f"{name} = 1/{hit[0] + 1} = {value:.4f}  (first relevant doc at rank {hit[0] + 1})" if len(hit)
               else f"{name} = 0  (no relevant doc{' in the top ' + str(k) if k else ''})"]
    return ["relevant"], [[bool(r)] for r in is_rel], [], [], formula, value


def _explain_counting(batch: Batch, m: Measure, name: str):
    """P, R, Success: relevant docs in the top k."""
    level, k = level_of(batch, m), m.cutoff
    rel = batch.rel if k is None else batch.rel[:k]
    is_rel = rel >= max(level, 0)
    found = int(is_rel.sum())
    R = int((batch.judged_rel >= max(level, 0)).sum())
    if m.name == "P":
        denom = k if k is not None else len(rel)
        value = found / denom if denom else 0.0
        formula = [f"{name} = {found} relevant / {denom} {'(k)' if k else 'retrieved'} = {value:.4f}"]
    elif m.name == "R":
        value = found / R if R else 0.0
        formula = [f"{name} = {found} relevant retrieved / R = {R} = {value:.4f}"]
    else:
        value = 1.0 if found else 0.0
        formula = [f"{name} = {int(value)}  ({found} relevant in the top {k})"]
    return ["relevant", "relevant so far"], [[bool(r), int(s)] for r, s in zip(is_rel, np.cumsum(is_rel))], \
        [], [], formula, value


def _explain_err(batch: Batch, m: Measure, name: str):
    k, p = m.cutoff, m.get("p")
    level = level_of(batch, m)
    rel = batch.rel if k is None else batch.rel[:k]
    max_grade = m.get("max_grade")
    top = int(max_grade) if max_grade is not None else batch.qrels_max_grade
    g = np.clip(np.where(rel >= max(level, 0), rel, 0), 0, top).astype(float) if top > 0 else np.zeros(len(rel))
    R = (np.exp2(g) - 1) / np.exp2(top) if top > 0 else np.zeros(len(rel))
    reach = np.concatenate(([1.0], np.cumprod((1 - R) * p)[:-1])) if len(R) else R
    ranks = np.arange(1, len(rel) + 1)
    contrib = reach * R / ranks
    value = float(contrib.sum())
    terms = " + ".join(f"{_num(r_, 4)}*{_num(c, 4)}/{i}" for r_, c, i in zip(reach, R, ranks) if c > 0) or "0"
    formula = [f"ERR{'' if k is None else '@' + str(k)} = {terms} = {value:.4f}   [R_i = (2^g - 1) / 2^{top}]"]
    if m.name == "nERR":
        ideal = np.sort(np.clip(np.where(batch.judged_rel >= max(level, 0), batch.judged_rel, 0), 0, top))[::-1]
        ideal = ideal[:k] if k is not None else ideal
        iR = (np.exp2(ideal) - 1) / np.exp2(top) if top > 0 else np.zeros(len(ideal))
        ireach = np.concatenate(([1.0], np.cumprod((1 - iR) * p)[:-1])) if len(iR) else iR
        ivalue = float((ireach * iR / np.arange(1, len(iR) + 1)).sum())
        nvalue = value / ivalue if ivalue > 0 else 0.0
        formula.append(f"{name} = {value:.4f} / {ivalue:.4f} (ideal) = {nvalue:.4f}")
        value = nvalue
    return ["R_i", "P(reach i)", "contribution"], list(zip(R, reach, contrib)), [], [], formula, value


def _explain_rbp(batch: Batch, m: Measure, name: str):
    p = m.get("p")
    level = level_of(batch, m)
    gain = m.get("gain")
    rel = batch.rel
    if gain == "binary":
        g = (rel >= max(level, 1)).astype(float)
    elif gain == "graded":
        top = max(int(batch.judged_rel.max(initial=0)), 0)
        g = np.where(rel > 0, rel, 0) / top if top > 0 else np.zeros(len(rel))
    else:
        return None
    w = (1 - p) * p ** np.arange(len(rel))
    contrib = g * w
    value = float(contrib.sum())
    terms = " + ".join(f"{_num(gi)}*{_num(wi, 4)}" for gi, wi in zip(g, w) if gi > 0) or "0"
    formula = [f"{name} = sum g_i (1-p) p^(i-1) = {terms} = {value:.4f}"]
    return ["gain", "weight", "contribution"], list(zip(g, w, contrib)), [], [], formula, value


_EXPLAINERS: dict[str, Callable] = {
    "CG": _explain_gain, "DCG": _explain_gain, "nDCG": _explain_gain,
    "AP": _explain_ap, "RR": _explain_rr,
    "P": _explain_counting, "R": _explain_counting, "Success": _explain_counting,
    "ERR": _explain_err, "nERR": _explain_err, "RBP": _explain_rbp,
}


def _one_query(table, query: bytes):
    mask = pc.equal(table.table.column("query"), pa.scalar(query, pa.binary()))
    return table.table.filter(mask)


def explain(qrels, run, measure: str | Measure, query, *, rel: int = 1, judged_only: bool = False,
            ties: str = "trec_eval") -> Explanation:
    """Explain ``measure`` on one ``query``: per-rank table, ideal list and formula.

    Parameters
    ----------
    qrels, run : as for :func:`rankmeter.evaluate`
    measure : str or Measure
        One canonical measure, e.g. ``"nDCG(gain=exp)@5"``.
    query : str or bytes
        The query id.
    rel, judged_only, ties : as for :func:`rankmeter.evaluate`

    Returns
    -------
    Explanation

    Examples
    --------
    >>> qrels = {"q": {"a": 3, "b": 2, "c": 0}}
    >>> run = {"q": ["b", "c", "a"]}
    >>> print(explain(qrels, run, "DCG@3", "q").formula[0])
    DCG@3 = 2/1 + 0/1.585 + 3/2 = 3.5
    """
    from .api import resolve_measures

    resolved = resolve_measures(measure)
    if len(resolved) != 1:
        raise InputError(f"explain takes one measure; {measure!r} names {len(resolved)}")
    m = resolved[0][1]
    q, r = as_qrels(qrels), as_run(run)
    qid = encode_id(query)
    qt, rt = _one_query(q, qid), _one_query(r, qid)
    if qt.num_rows == 0:
        raise InputError(f"query {decode_id(qid)!r} has no judgments in the qrels", source=q.source)
    top = max(int(q.table.column("rel").to_numpy().max(initial=0)), 0)
    batch, _ = build_batch(Qrels(qt, q.source), Run(rt, r.source, tag=r.tag, ranked=r.ranked),
                           queries="qrels", ties=ties, keep_docs=True, qrels_max_grade=top)
    if judged_only or m.get("judged_only"):
        batch = batch.judged_only()
    effective = m if m.get("rel") is not None else m.with_params(rel=rel)
    raw = m.family.kernel(batch, effective)[0]
    kernel_value = None if m.family.text else (int(raw) if m.family.integer else float(raw))
    explainer = _EXPLAINERS.get(m.name)
    parts = explainer(batch, effective, str(m)) if explainer else None
    depth = len(batch.rel) if m.cutoff is None or not isinstance(m.cutoff, int) else min(m.cutoff, len(batch.rel))
    docs = [decode_id(d) for d in (batch.docs or [])]
    if r.ranked or ties == "input":
        base_cols = ["rank", "doc", "grade"]
        base = [[i + 1, docs[i], _grade_text(int(batch.rel[i]))] for i in range(len(docs))]
    else:
        base_cols = ["rank", "doc", "score", "grade"]
        base = [[i + 1, docs[i], float(batch.scores[i]), _grade_text(int(batch.rel[i]))] for i in range(len(docs))]
    if parts is None:
        rows = base
        if m.family.text:
            formula = [f"{m} = '{raw}'"]
        elif m.family.integer:
            formula = [f"{m} = {kernel_value}"]
        else:
            formula = [f"{m} = {kernel_value:.4f}"]
        return Explanation(m, decode_id(qid), raw if m.family.text else kernel_value, base_cols, rows, formula)
    extra, per_rank, ideal_cols, ideal_rows, formula, value = parts
    if kernel_value is not None and not np.isclose(value, kernel_value, rtol=1e-9, atol=1e-12):
        formula.append(f"(the kernel computes {kernel_value:.6f}; this explanation is approximate)")
    rows = [b + [float(v) if isinstance(v, (np.floating, float)) and not isinstance(v, bool) else
                 (bool(v) if isinstance(v, (np.bool_, bool)) else v) for v in extra_vals]
            for b, extra_vals in zip(base[:len(per_rank)], per_rank)]
    rows += [b + [None] * len(extra) for b in base[len(per_rank):depth]]
    return Explanation(m, decode_id(qid), value, base_cols + extra, rows, formula,
                       ideal_cols, [[v if not isinstance(v, np.generic) else v.item() for v in r] for r in ideal_rows])
