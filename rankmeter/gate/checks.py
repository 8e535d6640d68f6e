"""The gate: is a new run worse than the saved baseline by more than the margin, on any measure or slice?

:func:`gate` scores the new run with the baseline's measures and options, refuses what is not comparable
(other judgments, other scoring options, other queries: each can be allowed explicitly), then runs one
one-sided paired test per measure and per slice (:mod:`.tests`), corrects the p-values across all of them,
and reports, per check, the baseline's and the new mean, the difference with its interval, the p-value, the
effect size, the minimum detectable drop at the chosen power, and whether it is a regression; besides, the
queries that dropped most and the unjudged documents at the top of the new run.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from rankmeter.gate.saved import (
    JUDGED_AT, LARGEST_VALUE, SCORING_OPTIONS, Baseline, measure_entries, qrels_provenance, run_provenance,
    check_slices, load_baseline, read_slices, score_run, scoring_evaluator,
)
from rankmeter.gate.one_sided import TESTS, minimum_detectable_drop, regression_test
from rankmeter.stats.corrections import adjust
from rankmeter.core.keywords import EvaluationOptions, Unpack, takes_options
from rankmeter.core.options import validate_options
from rankmeter.engine.param import Param, validate_params
from rankmeter.stats.params import SIGNIFICANCE, Correction
from rankmeter.errors import ParameterError

__all__ = ["gate", "GateResult", "GATE_PARAMS", "CHANGES"]

#: what a gate may be told to accept although it differs from the baseline
CHANGES = ("qrels", "queries", "options")

#: The gate's own knobs, declared once: the Python keywords are checked with them and the command's flags
#: made from them (rankmeter.cli.gate). The significance knobs are stats.params' declarations, narrowed where
#: a gate means something narrower: one false-alarm rate for the whole gate, at most 0.5; its one-sided tests
#: only; Holm by default (it tests every measure and slice at once); and a fixed seed (a rerun on the same
#: inputs must give the same verdict: None, a fresh seed, is refused).
GATE_PARAMS = {p.name: p for p in (
    Param("margin", "number", help="the drop tolerated: a regression is a drop of the mean by more than this", low=0),
    SIGNIFICANCE["alpha"].but(help="the false-alarm rate of the whole gate (after the correction)", high=0.5),
    SIGNIFICANCE["test"].but(help="the one-sided paired test", choices=TESTS),
    SIGNIFICANCE["correction"].but(default="holm", help="correction across measures and slices"),
    Param("power", "number", help="the power at which the minimum detectable drop is given", low=0.5, high=1,
          high_open=True),
    SIGNIFICANCE["permutations"].but(help="sign flips or bootstrap resamples (randomization, bootstrap)", low=100),
    SIGNIFICANCE["seed"].but(help="seed of the resampling tests", optional=False),
    Param("worst", "integer", help="how many of the most dropped queries the report lists per measure", low=0,
          high=1000),
    Param("allow", "strings", help="accept a change from the baseline: qrels, queries or options (repeatable)",
          choices=CHANGES),
)}


@dataclass
class GateResult:
    """What :func:`gate` found: ``passed``, ``checks``, ``refused`` (None or the reason) and the details."""

    passed: bool
    checks: list[dict] = field(default_factory=list)
    refused: str | None = None
    worst: dict[str, list[dict]] = field(default_factory=dict)
    unjudged: dict | None = None
    settings: dict = field(default_factory=dict)
    baseline: dict = field(default_factory=dict)
    run: dict = field(default_factory=dict)
    changes: list[str] = field(default_factory=list)
    noise: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict:
        """The JSON shape (stable): ``passed``, ``checks``, ``refused``, then the details."""
        return {"passed": self.passed, "checks": self.checks, "refused": self.refused, "settings": self.settings,
                "changes": self.changes, "worst": self.worst, "unjudged": self.unjudged, "noise": self.noise,
                "baseline": self.baseline, "run": self.run}

    @property
    def exit_status(self) -> int:
        return 2 if self.refused else (0 if self.passed else 1)


def _refusals(base: Baseline, evaluator, qrels, allow) -> tuple[list[str], list[str]]:
    """(reasons to refuse, changes accepted) of comparing this evaluation with ``base``."""
    refused, changes = [], []
    now = {name: getattr(evaluator.options, name) for name in SCORING_OPTIONS}
    from rankmeter.core.params import PARAMS  # an option a baseline predates had its default there
    old = {k: base.options.get(k, PARAMS[k].default) for k in now}
    differ = {k: (old[k], v) for k, v in now.items() if old[k] != v}
    if differ:
        text = ", ".join(f"{k}={new!r} (baseline {old!r})" for k, (old, new) in differ.items())
        (changes if "options" in allow else refused).append(f"scoring options differ: {text}")
    digest = qrels_provenance(evaluator, qrels)["digest"]
    if digest != base.qrels.get("digest"):
        (changes if "qrels" in allow else refused).append(
            f"the judgments differ from the baseline's ({base.qrels.get('source')}: "
            f"{base.qrels.get('judgments')} judgments, digest {str(base.qrels.get('digest'))[:12]}; now "
            f"{evaluator.qrels.table.num_rows}, {digest[:12]})")
    return refused, changes


@takes_options()
@validate_params(*GATE_PARAMS.values())
def gate(qrels, run, baseline, measures=None, *, slices=None, margin: float = 0.01, alpha: float = 0.05,
         test: str = "t", correction: Correction = "holm", power: float = 0.8, permutations: int = 10000,
         seed: int = 0, worst: int = 5, allow=(), **options: Unpack[EvaluationOptions]) -> GateResult:
    """Test whether ``run`` is worse than ``baseline`` by more than ``margin``, per measure and per slice.

    Parameters
    ----------
    qrels : path, Qrels, dict or DataFrame
        The judgments (the baseline's digest must match, unless ``allow=["qrels"]``).
    run : path, Run or dict
        The new run.
    baseline : path or Baseline
        What :func:`rankmeter.gate.saved.baseline` made (``rankmeter baseline``).
    measures : list of str, optional
        The measures to check (default: every measure of the baseline); each must be in the baseline with the
        same options.
    slices : path or dict, optional
        Query slices to check as well (default: the baseline's).
    margin, alpha, test, correction, power, permutations, seed, worst, allow
        The gate's knobs, each declared (range, default, meaning) in :data:`GATE_PARAMS`: the drop tolerated,
        the false-alarm rate, the one-sided test (``t``, ``wilcoxon``, ``randomization``, ``bootstrap``), the
        correction across checks, the power of the minimum detectable drop, the resamples and their seed, the
        queries listed as dropping most, and the changes accepted (``qrels``, ``queries``, ``options``).
        ``alpha``, ``test``, ``correction``, ``permutations`` and ``seed`` are the significance knobs of
        :mod:`rankmeter.stats.params`, narrowed for the gate. The evaluation options below, when given, are
        over the baseline's (reading options such as ``columns`` freely; a scoring option that differs from
        the baseline's is refused unless ``allow=["options"]``).
    %(evaluation_options)s

    Returns
    -------
    GateResult
        ``exit_status`` is 0 when every check passes, 1 when a regression is significant, 2 when refused
        (also when a per-query value or a check's statistic is not finite: there is no verdict on it).

    Notes
    -----
    With ``allow=["queries"]`` a baseline query the run no longer answers counts as a loss (scored 0 on
    every measure, as an empty ranking; each check's ``unanswered`` counts them), and the run's queries the
    baseline lacks are named in ``changes`` and not compared.

    Examples
    --------
    >>> from rankmeter.gate.saved import baseline as make_baseline
    >>> qrels = {f"q{i}": {"a": 1} for i in range(8)}
    >>> old = {f"q{i}": {"a": 2.0, "b": 1.0} for i in range(8)}
    >>> new = {f"q{i}": {"b": 2.0, "a": 1.0} for i in range(8)}      # the relevant doc fell to rank 2
    >>> result = gate(qrels, new, make_baseline(qrels, old, ["RR"]), margin=0.05)
    >>> result.passed, result.checks[0]["difference"], result.checks[0]["regression"]
    (False, -0.5, True)
    """
    from rankmeter.core.naming import name_runs

    k = {"margin": margin, "alpha": alpha, "test": test, "correction": correction, "power": power,
         "permutations": permutations, "seed": seed, "worst": worst}
    allow = set(allow or ())
    base = baseline if isinstance(baseline, Baseline) else load_baseline(baseline)
    by_name = {e["name"]: e["canonical"] for e in base.measures}
    wanted = list(measures) if measures is not None else [e["name"] for e in base.measures]
    scoring = validate_options(**base.options).replace(**options)  # the given options over the baseline's
    evaluator = scoring_evaluator(qrels, wanted, scoring)
    entries = measure_entries(evaluator)
    settings = {name: k[name] for name in ("margin", "alpha", "test", "correction", "power")}
    (name, new_run), = name_runs(run, columns=evaluator.options.columns, input_format=evaluator.options.input_format)
    result = GateResult(passed=False, settings=settings, baseline=base.provenance(),
                        run=run_provenance(name, new_run, run))
    missing = [e for e in entries if e["canonical"] not in base.values]
    if missing:
        have = ", ".join(f"{n} = {c}" for n, c in by_name.items())
        result.refused = ("measures not in the baseline (with these options): "
                          + ", ".join(f"{e['name']} = {e['canonical']}" for e in missing) + f"; it holds {have}")
        return result
    refused, result.changes = _refusals(base, evaluator, qrels, allow)
    queries, values, judged = score_run(evaluator, new_run)
    answered = set(queries)
    unanswered = [q for q in base.queries if q not in answered]
    known = set(base.queries)
    extra = [q for q in queries if q not in known]
    if unanswered or extra:
        text = _query_change(unanswered, extra, counted="queries" in allow)
        (result.changes if "queries" in allow else refused).append(text)
    if refused:
        result.refused = "; ".join(refused) + " (rankmeter gate --allow qrels|queries|options accepts a change)"
        return result
    common = list(base.queries)       # the unanswered ones count as losses: scored as an empty ranking, 0
    if len(common) - len(unanswered) < 2:
        raise ParameterError(f"only {len(common) - len(unanswered)} query in common with the baseline: nothing "
                             "to test")
    at_new = {q: i for i, q in enumerate(queries)}
    present = np.array([q in answered for q in common], dtype=bool)
    new_values = {}
    for entry in entries:
        aligned = np.zeros(len(common), dtype=np.float64)
        aligned[present] = values[entry["canonical"]][[at_new[q] for q in common if q in answered]]
        new_values[entry["canonical"]] = aligned
    base_idx = np.arange(len(common))
    new_idx = base_idx
    not_finite = _non_finite(entries, common, base, new_values)
    if not_finite:
        result.refused = not_finite
        return result
    chosen = base.slices if slices is None else (check_slices(slices) if isinstance(slices, Mapping)
                                                 else read_slices(slices))
    groups: list[tuple[str | None, np.ndarray]] = [(None, np.arange(len(common)))]
    where = {q: i for i, q in enumerate(common)}
    for slice_name, members in (chosen or {}).items():
        rows = np.array(sorted(where[str(q)] for q in members if str(q) in where), dtype=np.int64)
        groups.append((str(slice_name), rows))
    checks = _run_checks(entries, groups, base, new_values, new_idx, base_idx, k, ~present)
    result.checks = checks
    broken = [c for c in checks if c["queries"] >= 2 and not all(
        math.isfinite(c[key]) for key in ("difference", "low", "high", "p_value", "p_adjusted"))]
    if broken:
        result.refused = ("no verdict: the statistics of " + ", ".join(_check_name(c) for c in broken[:5])
                          + " are not finite (NaN or infinite: values too large to compare); nothing passes on them")
        return result
    result.passed = not any(c["regression"] for c in checks)
    result.worst = _worst(entries, common, base, new_values, new_idx, base_idx, k["worst"])
    result.noise = _noise(entries, base, base_idx)
    kept = np.flatnonzero(present)      # the unjudged documents of the queries the run answers
    result.unjudged = _unjudged([common[i] for i in kept], base, judged[[at_new[common[i]] for i in kept]],
                                np.arange(len(kept)), kept)
    return result


def _non_finite(entries, common, base, new_values) -> str | None:
    """The refusal when a per-query value of the baseline or the new run is NaN, infinite or beyond
    :data:`LARGEST_VALUE` (a baseline built in Python is not checked as a file is)."""
    for entry in entries:
        for who, row in (("the baseline's", base.mean(entry["canonical"])), ("the new run's",
                                                                            new_values[entry["canonical"]])):
            bad = np.flatnonzero(~(np.abs(row) <= LARGEST_VALUE))
            if bad.size:
                from rankmeter.errors import shown_repr
                return (f"no verdict: {who} {entry['name']} is not a finite number up to 2**53 on {bad.size} "
                        f"quer{'y' if bad.size == 1 else 'ies'} (e.g. {shown_repr(common[bad[0]])}: "
                        f"{row[bad[0]]!r}); a gate on it cannot pass or fail")
    return None


def _check_name(check: dict) -> str:
    return f"{check['measure']} ({check['slice'] or 'all queries'})"


def _query_change(unanswered: list[str], extra: list[str], *, counted: bool) -> str:
    """The message of a run that answers other queries than the baseline: each side with its own examples."""
    from rankmeter.errors import shown_repr

    def some(ids):
        return ", ".join(shown_repr(q) for q in ids[:3]) + (", ..." if len(ids) > 3 else "")

    parts = []
    if unanswered:
        parts.append(f"{len(unanswered)} of the baseline's not answered (e.g. {some(unanswered)})"
                     + (": counted as losses (scored 0, as an empty ranking)" if counted else ""))
    if extra:
        parts.append(f"{len(extra)} new, not in the baseline (e.g. {some(extra)})"
                     + (": not compared (the baseline has no value for them)" if counted else ""))
    return "the queries differ: " + "; ".join(parts)


def _run_checks(entries, groups, base, values, new_idx, base_idx, k, unanswered) -> list[dict]:
    checks, p_values = [], []
    family = sum(1 for _ in entries) * sum(1 for _, rows in groups if len(rows) >= 2)
    per_check_alpha = k["alpha"] / max(family, 1) if k["correction"] != "none" else k["alpha"]
    for entry in entries:
        new = values[entry["canonical"]][new_idx]
        old = base.mean(entry["canonical"])[base_idx]
        for slice_name, rows in groups:
            d = new[rows] - old[rows]
            test = regression_test(d, margin=k["margin"], alpha=k["alpha"], test=k["test"],
                                   permutations=k["permutations"], seed=k["seed"])
            mde = minimum_detectable_drop(test["sd"], len(rows), margin=k["margin"], alpha=per_check_alpha,
                                          power=k["power"])
            checks.append({"measure": entry["name"], "canonical": entry["canonical"], "slice": slice_name,
                           "queries": int(len(rows)), "unanswered": int(unanswered[rows].sum()),
                           "baseline": float(old[rows].mean()) if len(rows) else math.nan,
                           "new": float(new[rows].mean()) if len(rows) else math.nan,
                           "difference": test["difference"], "low": test["low"], "high": test["high"],
                           "p_value": test["p_value"], "effect_size": test["effect_size"], "mde": mde})
            p_values.append(test["p_value"])
    adjusted = adjust(np.array(p_values, dtype=np.float64), k["correction"])
    for check, p in zip(checks, adjusted):
        check["p_adjusted"] = float(p)
        check["regression"] = bool(np.isfinite(p) and p < k["alpha"])
    return checks


def _worst(entries, common, base, values, new_idx, base_idx, count) -> dict[str, list[dict]]:
    out = {}
    for entry in entries:
        new = values[entry["canonical"]][new_idx]
        old = base.mean(entry["canonical"])[base_idx]
        d = new - old
        order = np.argsort(d, kind="stable")[:count]
        out[entry["name"]] = [{"query": common[i], "baseline": float(old[i]), "new": float(new[i]),
                               "difference": float(d[i])} for i in order if d[i] < 0]
    return out


def _noise(entries, base, base_idx) -> dict[str, float]:
    """Run-to-run noise of each measure's mean: the standard deviation of the mean over the baseline's runs."""
    if base.values and next(iter(base.values.values())).shape[0] < 2:
        return {}
    return {e["name"]: float(base.values[e["canonical"]][:, base_idx].mean(axis=1).std(ddof=1)) for e in entries}


def _unjudged(common, base, judged, new_idx, base_idx) -> dict:
    """How much of the top JUDGED_AT of the new run is judged, against the baseline's runs."""
    new = judged[new_idx]
    old = base.judged.mean(axis=0)[base_idx]
    fell = np.flatnonzero(new < old)
    order = fell[np.argsort(new[fell] - old[fell], kind="stable")]
    return {"depth": JUDGED_AT, "baseline": float(old.mean()), "new": float(new.mean()),
            "queries_with_more_unjudged": int(len(fell)),
            "examples": [{"query": common[i], "baseline": float(old[i]), "new": float(new[i])} for i in order[:5]]}
