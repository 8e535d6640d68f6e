"""The C/W/L framework (Moffat et al.; the cwl_eval tool): ``SDCG``, ``INST``, ``INSQ``, ``BPM``, ``NERR8``..``NERR11``.

A C/W/L measure is a user model: after inspecting rank i the user goes on
with probability C_i (the *continuation*, which may depend on the gain seen so
far). From C follow the weight W_i of rank i (the share of attention it gets)
and the probability L_i of stopping there::

    S_i = prod_{j<i} C_j       W_i = S_i / sum_j S_j       L_i = S_i (1 - C_i)

and four numbers per query (``quantity``):

* ``ERG`` (default): expected rate of gain, sum_i W_i g_i (cwl_eval's EU/item,
  the value ir_measures reports);
* ``EU``: expected utility, the gain collected before stopping, sum_i L_i G_i
  (G_i = g_1 + ... + g_i; cwl_eval's expected total utility);
* ``EC``: expected cost, sum_i L_i i, every doc costing 1 (cwl_eval's expected
  total cost without a cost file);
* ``ED``: expected depth, the expected number of docs inspected, 1 / W_1.

As cwl_eval, rankings are cut or padded to ``max_depth`` ranks (1000), the
padding and unjudged docs gaining 0. ``residual=true`` gives the best case
minus that worst case: unjudged docs and the padding gaining 1, how much the
quantity could still move. Docs absent from the qrels and docs judged with a
negative grade are unjudged (ir_measures hands cwl_eval negative grades as 0,
judged; the worst case, so every value without ``residual``, is the same).

Gains are grades scaled to [0, 1] as ir_measures feeds cwl_eval:
g = (min(max(grade, min_rel), max_rel) - min_rel) / (max_rel - min_rel),
negative grades reading as 0 first. ``max_rel`` unset means the highest grade
of the whole qrels (ir_measures requires it). The continuations, with i the
rank and K the cutoff:

* ``SDCG@K``: C_i = log2(i+1) / log2(i+2) for i < K, else 0 (so W_i is the
  DCG discount scaled to sum to 1: scaled DCG);
* ``INSQ(T)``: C_i = ((i + 2T - 1) / (i + 2T))^2;
* ``INST(T)``: C_i = ((i + T + T_i - 1) / (i + T + T_i))^2, T_i = T - G_i;
* ``BPM(T)@K`` (static Bejeweled Player Model): C_i = 1 while G_i < T and
  i < K, else 0;
* ``NERR8@K``: C_i = 1 - g_i for i < K; ``NERR9@K``: C_i = i/(i+1) (1 - g_i)
  for i < K; ``NERR10(p)``: C_i = p (1 - g_i); ``NERR11(T)``: the INSQ
  continuation times (1 - g_i) (Azzopardi, Mackenzie and Moffat 2021).

Examples
--------
Grades a = 2, b = 0, c = 1 scaled by max_rel = 2 to gains 1, 0, 1/2; the run
ranks a, b, c. SDCG@2 weighs ranks 1, 2 as 1 : 1/log2(3), so ERG =
1 / (1 + 0.6309) = 0.6131. NERR10(p=0.5) stops for sure after a (gain 1), so
all weight is on rank 1: ERG 1, expected depth 1.

>>> import rankmeter
>>> qrels = {"q": {"a": 2, "b": 0, "c": 1}}
>>> r = rankmeter.evaluate(qrels, {"q": ["a", "b", "c"]},
...                        ["SDCG(max_rel=2)@2", "NERR10(p=0.5, max_rel=2)", "NERR10(p=0.5, max_rel=2, quantity=ED)"])
>>> {k: round(v, 4) for k, v in r.mean.items()}
{'SDCG(max_rel=2)@2': 0.6131, 'NERR10(p=0.5, max_rel=2)': 1.0, 'NERR10(p=0.5, max_rel=2, quantity=ED)': 1.0}
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from rankmeter.measures.base import ExplainParts, Family, Param, register
from rankmeter.measures.explaining import fmt_number

__all__ = ["cwl_quantity", "scaled_gains", "CONTINUATIONS", "QUANTITY", "MAX_DEPTH", "RESIDUAL"]

#: elements of one dense block of queries x ranks (the model runs over max_depth ranks)
_BLOCK = 1 << 22


def scaled_gains(batch, m) -> np.ndarray:
    """Per rank, the grade clipped to [min_rel, max_rel] and scaled to [0, 1]; unjudged docs 0."""
    low = m.get("min_rel")
    high = m.get("max_rel")
    if high is None:
        high = batch.needs["qrels_max_grade"]
    grade = np.maximum(batch.rel, 0)
    if high <= low:  # no range to scale over: a step at max_rel (ir_measures divides by zero here)
        return np.where((batch.rel >= 0) & (grade >= high), 1.0, 0.0)
    grade = np.clip(grade, low, high).astype(np.float64)
    return np.where(batch.rel >= 0, (grade - low) / (high - low), 0.0)


def _rank_ratio(i, shift):
    return ((i + shift - 1.0) / (i + shift)) ** 2.0


def _sdcg(g, G, i, m):
    # cwl_eval's math.log(x, 2) quotients, so that the running products agree to the last bits
    c = (np.log(i + 1.0) / np.log(2.0)) / (np.log(i + 2.0) / np.log(2.0))
    return np.broadcast_to(np.where(i < m.cutoff, c, 0.0), g.shape)


CONTINUATIONS: dict[str, Callable] = {
    "SDCG": _sdcg,
    "INSQ": lambda g, G, i, m: np.broadcast_to(_rank_ratio(i, 2.0 * m.get("T")), g.shape),
    "INST": lambda g, G, i, m: _rank_ratio(i, m.get("T") + (m.get("T") - G)),
    "BPM": lambda g, G, i, m: ((G < m.get("T")) & (i < m.cutoff)).astype(np.float64),
    "NERR8": lambda g, G, i, m: np.where(i < m.cutoff, 1.0 - g, 0.0),
    "NERR9": lambda g, G, i, m: np.where(i < m.cutoff, (1.0 * i / (i + 1.0)) * (1.0 - g), 0.0),
    "NERR10": lambda g, G, i, m: m.get("p") * (1.0 - g),
    "NERR11": lambda g, G, i, m: _rank_ratio(i, 2.0 * m.get("T")) * (1.0 - g),
    "RBP": lambda g, G, i, m: np.full(g.shape, m.get("p")),
}


def _block_quantities(gains: np.ndarray, continuation: Callable, m, quantity: str) -> np.ndarray:
    """One quantity for each row of a dense (queries x depth) gain block."""
    ranks = np.arange(1, gains.shape[1] + 1, dtype=np.float64)
    cumulative = np.cumsum(gains, axis=1)
    c = continuation(gains, cumulative, ranks, m)
    survive = np.ones_like(gains)
    np.cumprod(c[:, :-1], axis=1, out=survive[:, 1:])
    total = survive.sum(axis=1)
    if quantity == "ED":
        return 1.0 / (1.0 / total)  # cwl_eval: 1 / W_1
    if quantity == "ERG":
        return np.einsum("ij,ij->i", survive * (1.0 / total)[:, None], gains)  # cwl_eval: W = S * (1 / sum S)
    stop = survive * (1.0 - c)
    return np.einsum("ij,ij->i", stop, cumulative if quantity == "EU" else np.broadcast_to(ranks, gains.shape))


def cwl_quantity(batch, m, gains: np.ndarray, continuation: Callable, *, quantity: str, depth: int,
                 best_case: bool = False) -> np.ndarray:
    """``quantity`` per query under ``continuation`` over ``depth`` ranks, from per-rank ``gains`` (worst case).

    ``best_case`` gives unjudged docs and the padding past the ranking gain 1.
    """
    out = np.zeros(batch.nq)
    keep = batch.rank <= depth
    gains = np.where(batch.rel < 0, 1.0, gains) if best_case else gains
    per_block = max(1, _BLOCK // depth)
    for start in range(0, batch.nq, per_block):  # blocks of queries bound the dense matrix, not a loop per query
        stop = min(start + per_block, batch.nq)
        rows = np.flatnonzero(keep[batch.offsets[start]:batch.offsets[stop]]) + batch.offsets[start]
        block = np.full((stop - start, depth), 1.0 if best_case else 0.0)
        block[batch.qidx[rows] - start, batch.rank[rows] - 1] = gains[rows]
        out[start:stop] = _block_quantities(block, continuation, m, quantity)
    return out


def _kernel(batch, m) -> np.ndarray:
    """The C/W/L quantity of the family's continuation (best minus worst case with residual=true)."""
    gains = scaled_gains(batch, m)
    continuation = CONTINUATIONS[m.name]
    options = {"quantity": m.get("quantity"), "depth": m.get("max_depth")}
    worst = cwl_quantity(batch, m, gains, continuation, **options)
    if not m.get("residual"):
        return worst
    return cwl_quantity(batch, m, gains, continuation, best_case=True, **options) - worst


def _explain(batch, m, label: str) -> ExplainParts:
    """Per rank: gain, continuation C_i and weight W_i over the ranks the run holds (worst case)."""
    gains = scaled_gains(batch, m)
    depth = m.get("max_depth")
    block = np.zeros((1, depth))
    n = min(len(gains), depth)
    block[0, :n] = gains[:n]
    ranks = np.arange(1, depth + 1, dtype=np.float64)
    c = CONTINUATIONS[m.name](block, np.cumsum(block, axis=1), ranks, m)[0]
    survive = np.concatenate(([1.0], np.cumprod(c[:-1])))
    weight = survive / survive.sum()
    value = float(_kernel(batch, m)[0])
    return ExplainParts(["gain", "C_i", "W_i"], [[float(g), float(x), float(w)] for g, x, w in
                                                  zip(gains[:n], c[:n], weight[:n])],
                        [f"{label} = {value:.4f}  ({m.get('quantity')}; expected depth "
                         f"{fmt_number(float(survive.sum()), 4)})"])


QUANTITY = Param("quantity", "choice", "ERG", "which C/W/L number: ERG = expected rate of gain (the measure), EU = "
                 "expected utility (gain before stopping), EC = expected cost (docs inspected before stopping), ED = "
                 "expected depth (1 / W_1)", choices=("ERG", "EU", "EC", "ED"))
RESIDUAL = Param("residual", "bool", False, "the best case (unjudged docs and docs past the ranking gain 1) minus "
                 "the value (cwl_eval -r)")
MAX_DEPTH = Param("max_depth", "integer", 1000, "ranks the user model runs over; rankings are cut or padded to it "
                  "(cwl_eval --max_depth; at most 100,000: every ranking is padded to it)", low=1,
                  high=100_000)
_MIN_REL = Param("min_rel", "integer", 0, "grade scaled to gain 0 (lower grades too)")
_MAX_REL = Param("max_rel", "integer", None, "grade scaled to gain 1 (higher grades too); default: the highest grade "
                 "in the whole qrels (ir_measures requires it)")
_T = Param("T", "number", 1.0, "the gain the user wants (grades scaled to [0, 1]); T = 0 would make the rate of gain "
           "0 / 0", low=0.0, low_open=True)
_COMMON = (_MIN_REL, _MAX_REL, QUANTITY, RESIDUAL, MAX_DEPTH)

for _name, _summary, _own, _cutoff in [
    ("SDCG", "scaled DCG: DCG@k over the DCG@k of an all-relevant ranking (C/W/L; ir_measures SDCG)",
     (Param("dcg", "choice", "log2", "DCG formulation", choices=("log2",)),), "required"),
    ("INST", "INST: adaptive, goal-sensitive expected rate of gain (Moffat et al. 2015; C/W/L)", (_T,), "none"),
    ("INSQ", "INSQ: expected rate of gain with continuation ((i + 2T - 1) / (i + 2T))^2 (Moffat et al. 2012; C/W/L)",
     (_T,), "none"),
    ("BPM", "static Bejeweled Player Model: stop once the gain reaches T or at rank K (Zhang et al. 2017; C/W/L)",
     (_T,), "required"),
    ("NERR8", "C/W/L approximation of ERR truncated at k, equation 8 (Azzopardi et al. 2021)", (), "required"),
    ("NERR9", "C/W/L approximation of ERR with rank discount truncated at k, equation 9 (Azzopardi et al. 2021)",
     (), "required"),
    ("NERR10", "C/W/L approximation of ERR with RBP patience p, equation 10 (Azzopardi et al. 2021)",
     (Param("p", "number", 0.9, "persistence", low=0.0, high=1.0),), "none"),
    ("NERR11", "C/W/L approximation of ERR with INST goal T, equation 11 (Azzopardi et al. 2021)", (_T,), "none"),
]:
    register(Family(_name, _summary, _kernel, params=_own + _COMMON, cutoff=_cutoff, needs=("qrels_max_grade",),
                    explain=_explain))
