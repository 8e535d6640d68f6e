"""The ratchet: a gate that passed replaces its baseline with the new run, so the bar only goes up.

The baseline is replaced only when no check is a regression (and, with ``only_if_better``, when some check is
significantly better: the same one-sided test the other way, corrected across the checks). The replaced
baseline's provenance is kept in the new one's ``history``, oldest first.
"""
from __future__ import annotations

import numpy as np

from rankmeter.gate.saved import Baseline, baseline, save_baseline
from rankmeter.gate.one_sided import regression_test
from rankmeter.stats.corrections import adjust

__all__ = ["update_baseline", "significantly_better"]


def significantly_better(result, differences: dict[str, np.ndarray]) -> bool:
    """Whether some check of ``result`` shows the new run better than the baseline: the one-sided test of
    ``mean(d) > 0`` on each check's per-query differences (``differences``, keyed as :func:`_differences`),
    corrected across the checks as the gate corrects."""
    s = result.settings
    pvals = [regression_test(-differences[_key(c["canonical"], c["slice"])], margin=0.0, alpha=s["alpha"],
                             test=s["test"])["p_value"] for c in result.checks]
    adjusted = adjust(np.array(pvals, dtype=np.float64), s["correction"])
    return bool(np.any(adjusted < s["alpha"]))


def _key(canonical: str, slice_name) -> str:
    return f"{canonical}\0{slice_name}"


def update_baseline(base: Baseline, result, qrels, run, path, *, only_if_better: bool = False,
                    options: dict | None = None) -> tuple[bool, str]:
    """Replace the baseline file at ``path`` with ``run``'s values when the gate allows: (replaced, why)."""
    if result.refused:
        return False, f"baseline kept: the gate refused the comparison ({result.refused})"
    if not result.passed:
        return False, "baseline kept: the run regressed"
    fresh = baseline(qrels, run, [e["name"] for e in base.measures], slices=base.slices,
                     **{**base.options, **(options or {})})
    if only_if_better:
        differences = _differences(base, fresh)
        if not significantly_better(result, differences):
            return False, "baseline kept: the run is not significantly better (--only-if-better)"
    fresh.history = [*base.history, base.provenance()]
    save_baseline(fresh, path, inputs=[p for p in (qrels, run) if isinstance(p, str)])
    return True, f"baseline replaced by {fresh.runs[0]['source']} ({len(fresh.history)} earlier in its history)"


def _differences(base: Baseline, fresh: Baseline) -> dict[str, np.ndarray]:
    """Per check key (canonical measure + slice): the new run's per-query differences from the baseline."""
    common = [q for q in base.queries if q in set(fresh.queries)]
    at_base = {q: i for i, q in enumerate(base.queries)}
    at_new = {q: i for i, q in enumerate(fresh.queries)}
    bi = np.array([at_base[q] for q in common])
    ni = np.array([at_new[q] for q in common])
    out = {}
    where = {q: i for i, q in enumerate(common)}
    groups = [(None, np.arange(len(common)))] + [
        (name, np.array(sorted(where[q] for q in members if q in where), dtype=np.int64))
        for name, members in (base.slices or {}).items()]
    for e in base.measures:
        d = fresh.values[e["canonical"]][0][ni] - base.mean(e["canonical"])[bi]
        for name, rows in groups:
            out[_key(e["canonical"], name)] = d[rows]
    return out
