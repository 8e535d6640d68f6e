"""The ratchet: a gate that passed replaces its baseline with the new run, so the bar only goes up.

The baseline is replaced only when no check is a regression and no check's mean is lower than the
baseline's (a run a little worse on some measure or slice keeps the old baseline: small drops within the
margin cannot walk it down); ``allow_lower=True`` replaces it whenever the gate passes, and
``only_if_better=True`` requires besides that some check be significantly better (the same one-sided test the
other way, corrected across the checks).

Every baseline replaced is kept: its file, byte for byte, goes first into the folder beside it named after
it (``base.json`` -> ``base.history/0001.json``, ``0002.json``, ... oldest first), synced to the disk before
the new baseline is renamed over it; the new baseline's ``history`` lists the provenance of each, with the
copy's file name.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np

from rankmeter.core.options import validate_options
from rankmeter.gate.saved import Baseline, baseline_of, save_baseline
from rankmeter.gate.one_sided import regression_test
from rankmeter.stats.corrections import adjust

__all__ = ["update_baseline", "significantly_better", "history_folder", "lower_checks"]


def significantly_better(result, differences: dict[str, np.ndarray]) -> bool:
    """Whether some check of ``result`` shows the new run better than the baseline: the one-sided test of
    ``mean(d) > 0`` on each check's per-query differences (``differences``, keyed as :func:`_differences`),
    corrected across the checks as the gate corrects."""
    s = result.settings
    pvals = [regression_test(-differences[_key(c["canonical"], c["slice"])], margin=0.0, alpha=s["alpha"],
                             test=s["test"])["p_value"] for c in result.checks]
    adjusted = adjust(np.array(pvals, dtype=np.float64), s["correction"])
    return bool(np.any(adjusted < s["alpha"]))


def lower_checks(result) -> list[dict]:
    """The checks of a gate result whose new mean is below the baseline's (a check without queries aside)."""
    return [c for c in result.checks if c["queries"] and c["difference"] < 0]


def history_folder(path) -> Path:
    """Where the replaced baselines of ``path`` are kept: ``base.json`` -> ``base.history``."""
    path = Path(os.fsdecode(path))
    return path.with_name((path.stem if path.suffix else path.name) + ".history")


def _key(canonical: str, slice_name) -> str:
    return f"{canonical}\0{slice_name}"


def update_baseline(base: Baseline, result, qrels, run, path, *, only_if_better: bool = False,
                    allow_lower: bool = False, options: dict | None = None) -> tuple[bool, str]:
    """Replace the baseline file at ``path`` with ``run``'s values when the gate allows: (replaced, why).

    Parameters
    ----------
    base, result
        The baseline the gate compared with (read from ``path``) and the gate's result.
    qrels, run
        The judgments and the new run, as given to the gate.
    only_if_better : bool
        Replace it only when some check is significantly better.
    allow_lower : bool
        Replace it also when some check's mean is lower (within the margin): the bar may go down.
    options : dict, optional
        The evaluation options given to the gate.
    """
    if result.refused:
        return False, f"baseline kept: the gate refused the comparison ({result.refused})"
    if not result.passed:
        return False, "baseline kept: the run regressed"
    lower = lower_checks(result)
    if lower and not allow_lower:
        shown = ", ".join(f"{c['measure']} ({c['slice'] or 'all queries'}) {c['difference']:+.4g}" for c in lower[:3])
        return False, (f"baseline kept: the run is lower on {len(lower)} check(s): {shown}; the ratchet only goes "
                       "up (--allow-lower, or allow_lower=True, replaces it anyway)")
    scoring = validate_options(**base.options).replace(**(options or {}))  # the given options over the baseline's
    fresh = baseline_of(qrels, run, [e["name"] for e in base.measures], scoring, slices=base.slices)
    if only_if_better:
        differences = _differences(base, fresh)
        if not significantly_better(result, differences):
            return False, "baseline kept: the run is not significantly better (--only-if-better)"
    inputs = [p for p in (qrels, run) if isinstance(p, (str, os.PathLike))]
    kept = keep_in_history(path, inputs=inputs)
    fresh.history = [*base.history, {**base.provenance(), "file": kept}]
    save_baseline(fresh, path, inputs=inputs)
    return True, (f"baseline replaced by {fresh.runs[0]['source']} (the old one kept as {kept}; "
                  f"{len(fresh.history)} earlier in its history)")


def keep_in_history(path, *, inputs=()) -> str:
    """Copy the baseline file at ``path`` into its history folder (the next number, never over a copy),
    synced to the disk; returns the copy's path relative to the baseline's folder."""
    from rankmeter.io.output import OutputError, output_file, sync_folder

    source = Path(os.fsdecode(path))
    with open(source, "rb") as fh:
        data = fh.read()
    folder = history_folder(source)
    if not folder.is_dir():
        try:
            folder.mkdir()
        except FileExistsError:
            pass
        except OSError as exc:
            raise OutputError(f"{folder}: cannot keep the old baseline there ({exc.strerror or exc}); the "
                              "baseline was not replaced") from None
        sync_folder(folder.parent)
    suffix = source.suffix or ".json"
    taken = [int(m.group(1)) for m in (re.fullmatch(r"(\d+)\..*", p.name) for p in folder.iterdir()) if m]
    number = max(taken, default=0) + 1
    while True:
        copy = folder / f"{number:04d}{suffix}"
        try:
            with output_file(copy, inputs=inputs, mode="wb", replace=False) as out:
                out.write(data)
            return os.path.relpath(copy, source.parent)
        except OutputError:
            if not copy.exists():
                raise
            number += 1        # another ratchet took this number meanwhile


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
