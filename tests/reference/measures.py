"""Plain, slow, obviously-correct implementations of the measures of MEASURES.md.

One function per measure, each for ONE query, written straight from the
definitions in MEASURES.md section 4 (and trec_eval 10.0's m_*.c files for the
trec_eval measures) with explicit loops and no numpy. They are the oracle the
property tests compare rankmeter's vectorised kernels against, so clarity
beats speed everywhere.

Every function has the signature ``f(qrels, ranking, params) -> float``:

``qrels``
    ``{doc: grade}``: the judgments of the query (a negative grade means
    "pooled but not judged").
``ranking``
    ``[(doc, grade), ...]`` in rank order, ``grade`` being the doc's qrels
    grade or ``None`` when the qrels do not list it (use :func:`rank` to build
    it from a score dict).
``params``
    ``{"k": cutoff or None, "rel": threshold (default 1),
    "judged_only": bool, ...family parameters}``.
"""
from __future__ import annotations

import math

__all__ = [
    "order_run", "rank", "precision", "recall", "f_measure", "average_precision", "reciprocal_rank",
    "success", "cg", "dcg", "ndcg", "err", "nerr", "rbp", "rbp_resid", "auc", "inversions", "kendall_tau",
    "rprec", "bpref", "judged", "ncg", "compat", "accuracy", "hits", "hit_rate", "fall_out",
    "recall_at_fixed_precision", "cwl", "REFERENCE",
]


# --------------------------------------------------------------------------- ordering
def order_run(scores: dict[str, float]) -> list[str]:
    """Docs in trec_eval order: score descending, then docno descending compared as bytes."""
    return [doc for doc, _ in sorted(scores.items(), key=lambda item: (item[1], item[0].encode()), reverse=True)]


def rank(qrels: dict[str, int], docs: list[str]) -> list[tuple[str, int | None]]:
    """``[(doc, grade or None)]`` for a ranked list of docs."""
    return [(doc, qrels.get(doc)) for doc in docs]


# --------------------------------------------------------------------------- helpers
def _threshold(params: dict) -> int:
    rel = params.get("rel")
    return 1 if rel is None else rel


def _prepare(ranking: list, params: dict) -> list:
    """The ranking the measure sees: without unjudged docs when judged_only is set."""
    if params.get("judged_only"):
        return [(doc, g) for doc, g in ranking if g is not None and g >= 0]
    return list(ranking)


def _is_rel(grade, threshold: int) -> bool:
    """Judged with grade >= threshold (a threshold below 0 acts as 0, as trec_eval's -l)."""
    return grade is not None and grade >= 0 and grade >= threshold


def _num_rel(qrels: dict, threshold: int) -> int:
    return sum(1 for g in qrels.values() if _is_rel(g, threshold))


def _top(ranking: list, params: dict) -> list:
    k = params.get("k")
    return ranking if k is None else ranking[:k]


def _grade0(grade) -> int:
    """A grade as graded measures read it: unjudged and negative -> 0."""
    return grade if grade is not None and grade > 0 else 0


# --------------------------------------------------------------------------- set / cutoff measures
def precision(qrels, ranking, params) -> float:
    """P@k: relevant in the top k / k. Without k (trec_eval set_P): relevant retrieved / retrieved."""
    ranking = _prepare(ranking, params)
    t = _threshold(params)
    k = params.get("k")
    hits = sum(1 for _, g in _top(ranking, params) if _is_rel(g, t))
    if k is None:
        return hits / len(ranking) if ranking else 0.0
    return hits / k


def recall(qrels, ranking, params) -> float:
    """R@k: relevant in the top k / R, 0 when R = 0."""
    ranking = _prepare(ranking, params)
    t = _threshold(params)
    R = _num_rel(qrels, t)
    hits = sum(1 for _, g in _top(ranking, params) if _is_rel(g, t))
    return hits / R if R else 0.0


def f_measure(qrels, ranking, params) -> float:
    """F(beta)@k = (1 + beta^2) P R / (beta^2 P + R) of P@k and R@k; 0 when nothing relevant is found.

    trec_eval's set_F.x computes (x + 1) P R / (x P + R), so x = beta^2.
    """
    beta = params.get("beta", 1.0)
    P = precision(qrels, ranking, params)
    R = recall(qrels, ranking, params)
    if P == 0 or R == 0:
        return 0.0
    return (1 + beta ** 2) * P * R / (beta ** 2 * P + R)


def average_precision(qrels, ranking, params) -> float:
    """Sum over relevant docs at rank i <= k of (relevant in top i) / i, over the denominator.

    ``denom``: ``R`` (default), ``min`` = min(R, k), ``hits`` = relevant in the top k.
    """
    ranking = _prepare(ranking, params)
    t = _threshold(params)
    k = params.get("k")
    total = 0.0
    found = 0
    for i, (_, g) in enumerate(_top(ranking, params), start=1):
        if _is_rel(g, t):
            found += 1
            total += found / i
    R = _num_rel(qrels, t)
    denom = params.get("denom", "R")
    if denom == "R":
        d = R
    elif denom == "min":
        d = R if k is None else min(R, k)
    else:
        d = found
    return total / d if d else 0.0


def reciprocal_rank(qrels, ranking, params) -> float:
    """1 / rank of the first relevant doc within the top k, else 0."""
    ranking = _prepare(ranking, params)
    t = _threshold(params)
    for i, (_, g) in enumerate(_top(ranking, params), start=1):
        if _is_rel(g, t):
            return 1.0 / i
    return 0.0


def success(qrels, ranking, params) -> float:
    """1 if a relevant doc is in the top k (anywhere without k), else 0."""
    ranking = _prepare(ranking, params)
    t = _threshold(params)
    return 1.0 if any(_is_rel(g, t) for _, g in _top(ranking, params)) else 0.0


def rprec(qrels, ranking, params) -> float:
    """Relevant in the top R / R, 0 when R = 0."""
    ranking = _prepare(ranking, params)
    t = _threshold(params)
    R = _num_rel(qrels, t)
    if R == 0:
        return 0.0
    return sum(1 for _, g in ranking[:R] if _is_rel(g, t)) / R


def bpref(qrels, ranking, params) -> float:
    """trec_eval's bpref (m_bpref.c).

    1/R * sum over retrieved relevant docs of (1 - min(n, R) / min(N, R)), n =
    judged non-relevant retrieved above it, N = judged non-relevant in the
    qrels; a term is 1 when n = 0. Unjudged docs (absent, or negative grade)
    are skipped.
    """
    ranking = _prepare(ranking, params)
    t = _threshold(params)
    R = _num_rel(qrels, t)
    N = sum(1 for g in qrels.values() if g >= 0 and not _is_rel(g, t))
    if R == 0:
        return 0.0
    total = 0.0
    n = 0
    for _, g in ranking:
        if g is None or g < 0:
            continue
        if _is_rel(g, t):
            total += 1.0 if n == 0 else 1.0 - min(n, R) / min(N, R)
        else:
            n += 1
    return total / R


# --------------------------------------------------------------------------- gain-based measures
def _gain(grade, gain) -> float:
    """Gain of a grade: linear g, exp 2^g - 1, or a map {grade: gain} (other grades: g); grades <= 0 gain 0.

    A map names judged grades (0 included: trec_eval's gain table has a level 0), whose gain it sets.
    """
    if gain not in (None, "linear", "exp") and grade is not None and grade >= 0 and grade in dict(gain):
        return float(dict(gain)[grade])
    g = _grade0(grade)
    if g == 0:
        return 0.0
    if gain in (None, "linear"):
        return float(g)
    if gain == "exp":
        return 2.0 ** g - 1.0
    table = dict(gain)
    return float(table.get(g, g))


def _discount(i: int, discount, base: float = 2.0) -> float:
    """log2: 1/log_b(i+1). jk (Jarvelin & Kekalainen): 1 for i < b, else 1/log_b(i). b = 2 unless given."""
    if discount in (None, "log2"):
        return 1.0 / (math.log(i + 1) / math.log(base))
    if discount == "jk":
        return 1.0 if i < base else 1.0 / (math.log(i) / math.log(base))
    raise ValueError(discount)


def cg(qrels, ranking, params) -> float:
    """Sum of gains in the top k."""
    ranking = _prepare(ranking, params)
    return sum(_gain(g, params.get("gain")) for _, g in _top(ranking, params))


def _dcg_of(grades: list, params: dict) -> float:
    k = params.get("k")
    grades = grades if k is None else grades[:k]
    return sum(_gain(g, params.get("gain")) * _discount(i, params.get("discount"), params.get("log_base", 2.0))
               for i, g in enumerate(grades, start=1))


def dcg(qrels, ranking, params) -> float:
    """Sum over i <= k of gain(rel_i) * discount(i)."""
    ranking = _prepare(ranking, params)
    return _dcg_of([g for _, g in ranking], params)


def ndcg(qrels, ranking, params) -> float:
    """DCG@k / ideal DCG@k; 0 when the ideal is 0.

    ``ideal``: ``qrels`` = best ordering of all judged docs of the query;
    ``run`` = best ordering of every retrieved doc; ``topk`` = best ordering of
    the docs in the top k only.
    """
    ranking = _prepare(ranking, params)
    ideal_kind = params.get("ideal", "qrels")
    if ideal_kind == "qrels":
        pool = list(qrels.values())
    elif ideal_kind == "run":
        pool = [g for _, g in ranking]
    else:
        pool = [g for _, g in _top(ranking, params)]
    key = lambda g: _gain(g, params.get("gain"))  # noqa: E731
    # the ideal ranking holds the docs that gain something (a gain map may give a grade a negative gain)
    ideal = _dcg_of(sorted((g for g in pool if key(g) > 0), key=key, reverse=True), params)
    found = _dcg_of([g for _, g in ranking], params)
    return found / ideal if ideal > 0 else 0.0


def _err_grades(grades: list, params: dict) -> list[int]:
    t = max(_threshold(params), 0)  # grade 0 gains 2^0 - 1 = 0 anyway; unjudged docs are below 0
    top = params["max_grade"]
    return [min(g, top) if g is not None and g >= t else 0 for g in grades]


def _err_of(grades: list[int], params: dict) -> float:
    """sum_i (1/i) R_i prod_{j<i} ((1 - R_j) p), R = (2^g - 1) / 2^max_grade, over the top k."""
    p = params.get("p", 1.0)
    top = params["max_grade"]
    k = params.get("k")
    grades = grades if k is None else grades[:k]
    total = 0.0
    reach = 1.0
    for i, g in enumerate(grades, start=1):
        r = (2.0 ** g - 1.0) / 2.0 ** top
        total += reach * r / i
        reach *= (1.0 - r) * p
    return total


def err(qrels, ranking, params) -> float:
    """ERR@k (Chapelle et al. 2009). ``params["max_grade"]`` must be given; grades above it count as it."""
    ranking = _prepare(ranking, params)
    return _err_of(_err_grades([g for _, g in ranking], params), params)


def nerr(qrels, ranking, params) -> float:
    """ERR@k over the ERR@k of the query's judged docs sorted by grade; 0 when that is 0."""
    ranking = _prepare(ranking, params)
    found = _err_of(_err_grades([g for _, g in ranking], params), params)
    ideal = _err_of(sorted(_err_grades(list(qrels.values()), params), reverse=True), params)
    return found / ideal if ideal > 0 else 0.0


def rbp(qrels, ranking, params) -> float:
    """(1 - p) * sum_i g_i p^(i-1).

    ``gain``: ``binary`` (default) g = 1 when relevant (grade >= threshold);
    ``graded`` g = grade / highest grade judged for the query (0 when that is
    0), which is trec_eval's intended rbp rule for its default gain table.
    """
    ranking = _prepare(ranking, params)
    p = params.get("p", 0.8)
    gain = params.get("gain", "binary")
    t = _threshold(params)
    top = max([_grade0(g) for g in qrels.values()], default=0)
    total = 0.0
    for i, (_, g) in enumerate(_top(ranking, params), start=1):
        if gain == "binary":
            value = 1.0 if _is_rel(g, t) else 0.0
        else:
            value = _grade0(g) / top if top else 0.0
        total += value * p ** (i - 1)
    return (1 - p) * total


def rbp_resid(qrels, ranking, params) -> float:
    """p^n + (1 - p) * sum over unjudged ranks i of p^(i-1) (n = docs retrieved).

    With ``trec_eval=True`` (trec_eval's rbp_resid) 0 when nothing unjudged was retrieved.
    """
    ranking = _prepare(ranking, params)
    p = params.get("p", 0.8)
    unjudged = [i for i, (_, g) in enumerate(ranking, start=1) if g is None or g < 0]
    if params.get("trec_eval") and not unjudged:
        return 0.0
    return p ** len(ranking) + (1 - p) * sum(p ** (i - 1) for i in unjudged)


# --------------------------------------------------------------------------- pair measures
def auc(qrels, ranking, params) -> float:
    """Correctly ordered (relevant, non-relevant) pairs / all such pairs, ties 1/2.

    Items: the retrieved docs at their ranks plus the judged docs (grade >= 0)
    not retrieved, all tied below the last retrieved doc. Unjudged retrieved
    docs are non-relevant. 0 without a relevant or a non-relevant item.
    """
    ranking = _prepare(ranking, params)
    t = _threshold(params)
    retrieved = {doc for doc, _ in ranking}
    items = [(i, _is_rel(g, t)) for i, (_, g) in enumerate(ranking, start=1)]
    bottom = len(ranking) + 1
    items += [(bottom, _is_rel(g, t)) for doc, g in qrels.items() if doc not in retrieved and g >= 0]
    pos = [i for i, r in items if r]
    neg = [i for i, r in items if not r]
    if not pos or not neg:
        return 0.0
    score = 0.0
    for a in pos:
        for b in neg:
            score += 1.0 if a < b else 0.5 if a == b else 0.0
    return score / (len(pos) * len(neg))


def _graded_top(ranking: list, params: dict) -> list[int]:
    t = max(_threshold(params), 1)
    return [g if g is not None and g >= t else 0 for _, g in _top(ranking, params)]


def inversions(qrels, ranking, params) -> float:
    """Pairs (a above b) in the top k with grade_a < grade_b (unjudged, negative, below threshold: 0)."""
    ranking = _prepare(ranking, params)
    grades = _graded_top(ranking, params)
    return float(sum(1 for i in range(len(grades)) for j in range(i + 1, len(grades)) if grades[i] < grades[j]))


def kendall_tau(qrels, ranking, params) -> float:
    """Kendall tau-b between rank order (higher = better) and grade over the top k; 0 if all grades tie."""
    ranking = _prepare(ranking, params)
    grades = _graded_top(ranking, params)
    n = len(grades)
    concordant = discordant = tied = 0
    for i in range(n):
        for j in range(i + 1, n):
            if grades[i] > grades[j]:
                concordant += 1
            elif grades[i] < grades[j]:
                discordant += 1
            else:
                tied += 1
    pairs = n * (n - 1) // 2
    if pairs - tied == 0:
        return 0.0
    return (concordant - discordant) / math.sqrt(pairs * (pairs - tied))


# --------------------------------------------------------------------------- peers' measures (issue 11, part 3)
def ncg(qrels, ranking, params) -> float:
    """CG@k / CG@k of the ideal ordering (of the judged docs, or the run's docs for ideal=run)."""
    ranking = _prepare(ranking, params)
    pool = list(qrels.values()) if params.get("ideal", "qrels") == "qrels" else [g for _, g in ranking]
    gains = sorted((_gain(g, params.get("gain")) for g in pool), reverse=True)
    k = params.get("k")
    best = sum(x for x in (gains if k is None else gains[:k]) if x > 0)
    return cg(qrels, ranking, params) / best if best > 0 else 0.0


def compat(qrels, ranking, params) -> float:
    """Clarke et al.'s compatibility: RBO of the ranking with the ideal (grade desc, then run order), by depth."""
    ranking = _prepare(ranking, params)
    t = _threshold(params)
    p = params.get("p", 0.95)
    docs = [d for d, _ in ranking]
    where = {d: i for i, d in enumerate(docs)}
    ideal = [d for d, g in qrels.items() if _is_rel(g, t)]
    ideal.sort(key=lambda d: (-qrels[d], where.get(d, len(docs))))
    depth = max(len(docs), len(ideal))

    def rbo(a, b):
        score = norm = 0.0
        weight = 1.0
        for d in range(1, depth + 1):
            score += weight * len(set(a[:d]) & set(b[:d])) / d
            norm += weight
            weight *= p
        return score / norm if norm else 0.0

    score = rbo(docs, ideal)
    if params.get("normalize", True):
        best = rbo(ideal, ideal)
        return score / best if best > 0 else score
    return score


def accuracy(qrels, ranking, params) -> float:
    """ir_measures Accuracy@k: right-ordered (relevant, non-relevant) pairs in the top k / pairs; NaN if none."""
    ranking = _prepare(ranking, params)
    t = _threshold(params)
    labels = [_is_rel(g, t) for _, g in _top(ranking, params)]
    pairs = right = 0
    for i, a in enumerate(labels):
        for b in labels[i + 1:]:
            if a != b:
                pairs += 1
                right += a
    return right / pairs if pairs else math.nan


def hit_rate(qrels, ranking, params) -> float:
    """1 if a relevant doc is in the top k, else 0."""
    return 1.0 if hits(qrels, ranking, params) > 0 else 0.0


def fall_out(qrels, ranking, params) -> float:
    """Judged non-relevant in the top k / judged non-relevant in the qrels; 0 when there is none."""
    ranking = _prepare(ranking, params)
    t = _threshold(params)
    nonrel = sum(1 for g in qrels.values() if g >= 0 and not _is_rel(g, t))
    found = sum(1 for _, g in _top(ranking, params) if g is not None and g >= 0 and not _is_rel(g, t))
    return found / nonrel if nonrel else 0.0


def recall_at_fixed_precision(qrels, ranking, params) -> float:
    """Largest R@i over i <= k (all ranks) with P@i >= min_precision; 0 when none or R = 0."""
    ranking = _prepare(ranking, params)
    t = _threshold(params)
    R = _num_rel(qrels, t)
    best = found = 0
    for i, (_, g) in enumerate(_top(ranking, params), start=1):
        found += _is_rel(g, t)
        if found / i >= params.get("min_precision", 0.0):
            best = max(best, found)
    return best / R if R else 0.0


# --------------------------------------------------------------------------- C/W/L user models (Moffat et al.)
def _cwl_continuation(name: str, params: dict):
    """C(i, g_i, G_i): the chance of going on after rank i (gain g_i there, G_i collected up to it)."""
    k = params.get("k")
    T = params.get("T", 1.0)

    def insq(i):
        return ((i + 2 * T - 1) / (i + 2 * T)) ** 2

    return {
        "SDCG": lambda i, g, G: math.log2(i + 1) / math.log2(i + 2) if i < k else 0.0,
        "INSQ": lambda i, g, G: insq(i),
        "INST": lambda i, g, G: ((i + T + (T - G) - 1) / (i + T + (T - G))) ** 2,
        "BPM": lambda i, g, G: 1.0 if G < T and i < k else 0.0,
        "NERR8": lambda i, g, G: 1.0 - g if i < k else 0.0,
        "NERR9": lambda i, g, G: i / (i + 1) * (1.0 - g) if i < k else 0.0,
        "NERR10": lambda i, g, G: params.get("p", 0.9) * (1.0 - g),
        "NERR11": lambda i, g, G: insq(i) * (1.0 - g),
    }[name]


def _cwl_numbers(gains: list, cont, quantity: str) -> float:
    """From per-rank gains: ERG = sum W_i g_i, EU = sum L_i G_i, EC = sum L_i i, ED = sum_i S_i (= 1 / W_1)."""
    reach, G = 1.0, 0.0
    reaches, stops, collected = [], [], []
    for i, g in enumerate(gains, start=1):
        G += g
        c = cont(i, g, G)
        reaches.append(reach)
        stops.append(reach * (1.0 - c))
        collected.append(G)
        reach *= c
    depth = sum(reaches)
    if quantity == "ED":
        return depth
    if quantity == "ERG":
        return sum(r * g for r, g in zip(reaches, gains)) / depth
    if quantity == "EU":
        return sum(s * G for s, G in zip(stops, collected))
    return sum(s * i for i, s in enumerate(stops, start=1))


def cwl(name: str):
    """The C/W/L measure ``name`` for one query: grades scaled to gains over max_depth ranks (padding gains 0)."""
    def measure(qrels, ranking, params) -> float:
        ranking = _prepare(ranking, params)
        low = params.get("min_rel", 0)
        high = params.get("max_rel")
        high = params["max_grade"] if high is None else high
        depth = params.get("max_depth", 1000)

        def gain(grade, best: bool) -> float:
            if grade is None or grade < 0:
                return 1.0 if best else 0.0
            if high <= low:
                return 1.0 if grade >= high else 0.0
            return (min(max(grade, low), high) - low) / (high - low)

        def value(best: bool) -> float:
            gains = [gain(g, best) for _, g in ranking[:depth]]
            gains += [1.0 if best else 0.0] * (depth - len(gains))
            return _cwl_numbers(gains, _cwl_continuation(name, params), params.get("quantity", "ERG"))

        worst = value(False)
        return value(True) - worst if params.get("residual") else worst
    measure.__name__ = name.lower()
    return measure


def judged(qrels, ranking, params) -> float:
    """Listed in the qrels (any grade) among the top min(k, retrieved), over that number; 0 when empty."""
    top = _top(_prepare(ranking, params), params)
    return sum(1 for _, g in top if g is not None) / len(top) if top else 0.0


def hits(qrels, ranking, params) -> int:
    """Relevant docs in the top k."""
    t = _threshold(params)
    return sum(1 for _, g in _top(_prepare(ranking, params), params) if _is_rel(g, t))


#: rankmeter family name -> reference function
REFERENCE = {
    "Judged": judged, "Hits": hits,
    "P": precision, "R": recall, "F": f_measure, "AP": average_precision, "RR": reciprocal_rank,
    "Success": success, "CG": cg, "DCG": dcg, "nDCG": ndcg, "ERR": err, "nERR": nerr, "RBP": rbp,
    "RBP_resid": rbp_resid, "AUC": auc, "Inversions": inversions, "KendallTau": kendall_tau,
    "Rprec": rprec, "Bpref": bpref, "NCG": ncg, "Compat": compat, "Accuracy": accuracy,
    "HitRate": hit_rate, "FallOut": fall_out, "RecallAtFixedPrecision": recall_at_fixed_precision,
    **{name: cwl(name) for name in ("SDCG", "INST", "INSQ", "BPM", "NERR8", "NERR9", "NERR10", "NERR11")},
}
