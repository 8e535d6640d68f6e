"""The stratified PPI++ estimate: a sample drawn at random within strata of the LLM's metric (allocate's design,
:mod:`.allocation`), each stratum weighted by its size. Apart from :mod:`.ppi` and :mod:`.allocation`, which both
use it."""
from __future__ import annotations

import numpy as np

from rankmeter.errors import ParameterError
from rankmeter.stats.student import t_quantile

__all__ = ["stratified_estimate", "stratified_ppi"]


def stratified_estimate(y, f, labelled, strata, *, alpha: float = 0.05, lam=None) -> dict:
    """The stratified PPI++ (difference) estimate of the mean of ``y`` over the population the queries come from,
    from a sample drawn at random within each stratum (the design of
    :func:`~rankmeter.judges.allocation.allocate`).

    ``f`` (the LLM's metric of every query), ``labelled`` (bool) and ``strata`` (ints) have shape ``(..., N)``
    (``strata`` may be ``(N,)``); ``y`` the same, read where ``labelled`` only. Leading axes are independent
    repetitions (a simulation). With ``W_h = N_h / N``, ``n_h`` labelled of the ``N_h`` queries of stratum h and
    ``e = y - lam f``::

        estimate = sum_h W_h (lam mean_h(f) + mean_{labelled, h}(e))
        variance = sum_h W_h^2 (1 - n_h/N_h) s_h^2(e) / n_h  +  s^2(y) / N

    the first term is the sampling of the labels within each stratum (Cochran 1977, 5.3 and 7.1), the second the
    draw of the N queries from their population (``s^2(y)``, stratified: the strata's variances and the spread of
    their means), which is what the unstratified PPI++ interval (:func:`~rankmeter.judges.ppi_means.ppi_mean`)
    also covers: with one stratum the two agree to O(1/N). ``lam`` (one for every stratum, in [0, 1]) minimises
    the first term; ``lam=0`` is the stratified human-only estimate. The interval uses Student's t with
    Satterthwaite's degrees of freedom. Returns arrays ``estimate, low, high, se, lam, n, df``.
    """
    f = np.asarray(f, float)
    labelled = np.asarray(labelled, bool)
    y = np.where(labelled, np.asarray(y, float), 0.0)
    strata = np.broadcast_to(np.asarray(strata), f.shape)
    codes = np.unique(strata)
    one_hot = (strata[..., None] == codes).astype(float)                # (..., N, H)

    def total(a):
        return np.einsum("...i,...ih->...h", a, one_hot)

    size = total(np.ones_like(f))
    m = labelled.astype(float)
    n = total(m)
    if np.any((size > 0) & (n < 2)):
        short = int(n[(size > 0) & (n < 2)].min())
        raise ParameterError(f"a stratum has {short} human-labelled queries: each needs two or more (label more "
                             "of its queries, or allocate over fewer strata)")
    present = size > 0
    n_, size_ = np.where(present, n, 2), np.where(present, size, 1)
    weight = size / size.sum(-1, keepdims=True)
    sy, sf = total(y * m), total(f * m)
    cyy = (total(y * y * m) - sy * sy / n_) / (n_ - 1)
    cff = (total(f * f * m) - sf * sf / n_) / (n_ - 1)
    cyf = (total(y * f * m) - sy * sf / n_) / (n_ - 1)
    a = np.where(present, weight ** 2 * (1 - n_ / size_) / n_, 0.0)
    fitted = lam is None
    if lam is None:
        den = (a * cff).sum(-1)
        with np.errstate(invalid="ignore", divide="ignore"):
            lam = np.where(den > 0, np.clip((a * cyf).sum(-1) / np.where(den > 0, den, 1), 0, 1), 0.0)
    lam = np.broadcast_to(np.asarray(lam, float), a.shape[:-1])
    li = lam[..., None]
    mean_h = li * total(f) / size_ + (sy - li * sf) / n_                # each stratum's estimate
    center = (weight * mean_h).sum(-1)
    residual = np.maximum(cyy - 2 * li * cyf + li ** 2 * cff, 0)
    labels, groups = n.sum(-1), present.sum(-1)
    # the residuals of a tuned lam lose one degree of freedom over the sample (Cochran 7.3's n - 2)
    inflate = (labels - groups) / np.maximum(labels - groups - fitted, 1)
    parts = a * residual * inflate[..., None]
    spread_y = (weight * cyy).sum(-1) + (weight * (mean_h - center[..., None]) ** 2).sum(-1)
    draw = spread_y / size.sum(-1)                                      # the queries' draw from the population
    var = parts.sum(-1) + draw
    se = np.sqrt(var)
    with np.errstate(invalid="ignore", divide="ignore"):
        df = np.where(var > 0, var ** 2 / np.maximum((parts ** 2 / (n_ - 1)).sum(-1) + draw ** 2 / (labels - 1),
                                                    1e-300), np.inf)
    t = t_quantile(df, 1 - alpha / 2)
    return {"estimate": center, "low": center - t * se, "high": center + t * se, "se": se, "lam": lam,
            "n": labels, "df": df}


def stratified_ppi(y, f, f_unlabelled, strata_labelled, strata_unlabelled, *, alpha: float = 0.05,
                   lam: float | None = None) -> dict:
    """:func:`stratified_estimate` of one sample, labelled queries first: ``{"estimate", "low", "high", "se",
    "lam", "n", "df"}`` as floats."""
    y, f, fu = (np.asarray(a, float) for a in (y, f, f_unlabelled))
    n = len(f)
    out = stratified_estimate(np.concatenate([y, np.zeros(len(fu))]), np.concatenate([f, fu]),
                              np.arange(n + len(fu)) < n, np.concatenate([strata_labelled, strata_unlabelled]),
                              alpha=alpha, lam=lam)
    return {k: float(v) for k, v in out.items()}
