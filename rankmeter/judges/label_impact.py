"""What the LLM's labels change, run by run: :func:`impact`.

Each run is scored under three versions of the judgments: ``human`` only, ``llm`` only and
``mixed`` (human-first, :func:`rankmeter.judges.mix`), and under the mixed judgments
with every retrieved doc judged by neither counted relevant at the top grade
(``unjudged_relevant``; the mixed score itself counts them non-relevant, the usual worst case).
For precision-like measures and RBP the two are the bounds; for measures normalised by the
relevant docs (AP, nDCG) the second is the value under that assumption, not a bound.

Each run's rank (competition rank of the mean) under each version and its change from the human
ranking; then the comparisons of :func:`rankmeter.stats.compare.compare` (against the
baseline, or every pair) under each version, with its test and correction, flagging each
comparison whose conclusion (significantly better, worse, or neither) differs from the human one.

When the LLM gave probabilities per grade (a :func:`rankmeter.judges.read_samples` JSON
Lines file), ``probabilities=`` adds, under ``llm`` and ``mixed``: the expected score, exact for
measures linear in the grades (:data:`LINEAR`: DCG, and graded RBP with a fixed ``max_grade``;
the score under the expected grades; others are undefined, with the reason), and an interval from resampling the labels (seeded, ``draws`` draws; the
``alpha / 2`` and ``1 - alpha / 2`` quantiles of each run's mean).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from rankmeter.judges.params import DRAWS
from rankmeter.core.keywords import Unpack, takes_options
from rankmeter.core.options import Options, validate_options
from rankmeter.engine.param import validate_params
from rankmeter.stats.params import ComparisonOptions, significance
from rankmeter.errors import ParameterError

__all__ = ["LINEAR", "Impact", "impact"]

VERSIONS = ("human", "llm", "mixed")
#: measures whose value is linear in the grades, so that their expectation is the score under the expected
#: grades: DCG (gain = grade) and graded RBP with a fixed top grade (gain = grade / max_grade); not nDCG, AP,
#: binary measures (a threshold on the grade) or DCG(gain=exp)
LINEAR = re.compile(r"^(DCG(@\d+)?|RBP\((?=[^)]*\bgain=graded\b)(?=[^)]*\bmax_grade=)[^)]*\)(@\d+)?)$")


@dataclass
class Impact:
    """Scores, ranks, bounds, comparisons and flips per run and measure (see the module docstring)."""

    measures: list[str]
    runs: list[dict] = field(default_factory=list)
    comparisons: list[dict] = field(default_factory=list)
    expected: dict = field(default_factory=dict)
    settings: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"measures": self.measures, **self.settings, "runs": self.runs, "comparisons": self.comparisons,
                "expected": self.expected}

    def flips(self) -> list[dict]:
        """The comparisons whose conclusion differs from the human judgments' under some version."""
        return [c for c in self.comparisons if c["flips"]]

    def to_text(self, *, decimals: int = 4) -> str:
        from rankmeter.io.output import printable
        f = f"{{:.{decimals}f}}"
        lines = []
        for m in self.measures:
            lines.append(f"{m}: score (rank) under each version; range over unjudged docs non-relevant or relevant "
                         "(mixed)")
            rows = [[printable(r["run"])]
                    + [f"{f.format(r['scores'][m][v])} ({r['ranks'][m][v]:>2})" for v in VERSIONS]
                    # making the unjudged docs relevant can lower a score (nDCG's ideal grows): the range is sorted
                    + ["{} .. {}".format(*(f.format(x) for x in sorted((r["scores"][m]["mixed"],
                                                                         r["scores"][m]["unjudged_relevant"]))))]
                    for r in self.runs]
            header = ["run", *VERSIONS, "unjudged range"]
            widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
            for row in [header, *rows]:
                lines.append("  " + "  ".join(cell.ljust(w) if i == 0 else cell.rjust(w)
                                              for i, (cell, w) in enumerate(zip(row, widths))).rstrip())
            if m in self.expected:
                lines.append("  with the LLM's probabilities: expected score [interval]")
                for run, e in self.expected[m].items():
                    parts = []
                    for v in ("llm", "mixed"):
                        mean = "undefined" if e[v]["expected"] is None else f.format(e[v]["expected"])
                        low, high = e[v]["interval"]
                        parts.append(f"{v} {mean} [{f.format(low)}, {f.format(high)}]")
                    lines.append(f"    {printable(run)}: " + "; ".join(parts))
                why = next((e[v]["undefined"] for e in self.expected[m].values() for v in ("llm", "mixed")
                            if e[v].get("undefined")), None)
                if why:
                    lines.append(f"    expected score undefined: {why}")
            mine = [c for c in self.comparisons if c["measure"] == m]
            flips = [c for c in mine if c["flips"]]
            test = f"{self.settings['test']} test, {self.settings['correction']} correction, alpha {self.settings['alpha']}"
            lines.append(f"  {len(flips)} of {len(mine)} comparisons change their conclusion with the labels ({test})"
                         + (":" if flips else ""))
            for c in flips:
                said = ", ".join(f"{v}: {c[v]['conclusion']}" for v in VERSIONS)
                lines.append(f"    {printable(c['system'])} vs {printable(c['baseline'])}: {said}")
            lines.append("")
        return "\n".join(lines)


def _ranks(values: list[float]) -> list[int]:
    return [1 + sum(v > x for v in values) for x in values]


def _conclusion(row: dict, alpha: float) -> str:
    p = row["p_adjusted"]
    if p is None or not np.isfinite(p) or p >= alpha:
        return "no significant difference"
    return "better" if row["delta"] > 0 else "worse"


def _unjudged_relevant(mixed, run, top: float):
    """The mixed qrels plus every doc ``run`` retrieves for a judged query that neither side judged, at ``top``."""
    from rankmeter.io.canonical import Qrels, qrels_table
    known = mixed.table
    retrieved = run.table.select(["query", "doc"])
    retrieved = retrieved.filter(pc.is_in(retrieved.column("query"), value_set=pc.unique(known.column("query"))))
    unjudged = retrieved.join(known.select(["query", "doc"]), keys=["query", "doc"], join_type="left anti",
                              use_threads=False)
    unjudged = unjudged.group_by(["query", "doc"], use_threads=False).aggregate([])
    rel_type = known.schema.field("rel").type
    extra = pa.array(np.full(len(unjudged), top), type=pa.float64()).cast(rel_type)
    table = qrels_table(pa.concat_arrays([known.column("query").combine_chunks(),
                                          unjudged.column("query").combine_chunks()]),
                        pa.concat_arrays([known.column("doc").combine_chunks(), unjudged.column("doc").combine_chunks()]),
                        pa.concat_arrays([known.column("rel").combine_chunks(), extra]))
    return Qrels(table, "unjudged relevant", origin="dict")


@takes_options(in_memory=True)
@validate_params(DRAWS)
def impact(human, llm, runs, measures, *, baseline: str | list[str] | None = None, probabilities=None,
           draws: int = 200, **options: Unpack[ComparisonOptions]) -> Impact:
    """What scoring with the LLM's labels changes for each run (see the module docstring).

    Parameters
    ----------
    human, llm : path, Qrels, dict or DataFrame
        The human and the LLM judgments (LLM grades may be real numbers: pass ``grades="real"``).
    runs : list or dict
        Two or more runs, named as :func:`rankmeter.compare` names them.
    measures : str or list of str
    baseline : str or list of str, optional
        The run(s) compared with; None compares every pair of runs.
    probabilities : path or Samples, optional
        The LLM's probability per grade for each pair (JSON Lines, see
        :mod:`rankmeter.judges.sources`): adds ``expected``.
    draws : int, default 200
        Label draws for the resampled interval.
    %(evaluation_options)s

    Returns
    -------
    Impact

    Examples
    --------
    The human judged only ``a`` per query; the LLM also judged ``b`` relevant, which lifts ``second``:

    >>> human = {"q1": {"a": 1}, "q2": {"a": 1}, "q3": {"a": 1}}
    >>> llm = {q: {"a": 1, "b": 1} for q in human}
    >>> runs = {"first": {q: {"a": 2.0, "b": 1.0} for q in human}, "second": {q: {"b": 2.0, "c": 1.0} for q in human}}
    >>> got = impact(human, llm, runs, "P@1", baseline="first")
    >>> [(r["run"], r["scores"]["P@1"]["human"], r["scores"]["P@1"]["llm"]) for r in got.runs]
    [('first', 1.0, 1.0), ('second', 0.0, 1.0)]
    >>> got.runs[1]["rank_change"]["P@1"]["llm"]
    1
    """
    from rankmeter.judges.sources import mix

    knobs = significance(options)  # the tests' knobs out of options: the rest are the evaluation options
    mixed = mix(human, llm)
    opts = validate_options(**options)
    if mixed.qrels.real_grades and "grades" not in options:
        opts = opts.replace(grades="real")      # the LLM's real grades (0.73) read as they are, unless told
    return _impact(human, llm, mixed, runs, measures, opts, knobs, baseline=baseline, probabilities=probabilities,
                   draws=draws)


def _evaluate(qrels, runs: dict, measures, options: Options):
    from rankmeter.core.evaluator import Evaluator

    return Evaluator.of(qrels, measures, options).evaluate_runs(runs)


def _impact(human, llm, mixed, runs, measures, options: Options, knobs, *, baseline, probabilities, draws) -> Impact:
    """:func:`impact` with its options validated (``knobs`` the tests' settings)."""
    from rankmeter.stats.compare import compare
    from rankmeter.core.naming import name_runs

    measures = [measures] if isinstance(measures, str) else list(measures)
    named = name_runs(runs, columns=options.columns)
    if len(named) < 2:
        raise ParameterError(f"runs: got {len(named)}; the impact on rankings needs at least two runs")
    runs_by_name = dict(named)
    sources = {"human": human, "llm": llm, "mixed": mixed.qrels}
    tables = {v: _evaluate(q, runs_by_name, measures, options) for v, q in sources.items()}
    labels = list(tables["human"].names)
    from rankmeter.core.needs import top_grade
    top = float(top_grade(mixed.qrels))
    best = {name: _evaluate(_unjudged_relevant(mixed.qrels, run, top), {name: run}, measures, options)
            for name, run in named}
    result = Impact(labels, settings={"test": knobs.test, "correction": knobs.correction, "alpha": knobs.alpha,
                                      "baseline": baseline, "judged": mixed.counts})
    names = [name for name, _ in named]
    ranks = {(v, m): dict(zip(names, _ranks([tables[v][n][m] for n in names]))) for v in VERSIONS for m in labels}
    for name in names:
        scores = {m: {**{v: tables[v][name][m] for v in VERSIONS}, "unjudged_relevant": best[name][name][m]}
                  for m in labels}
        rank = {m: {v: ranks[(v, m)][name] for v in VERSIONS} for m in labels}
        change = {m: {v: rank[m]["human"] - rank[m][v] for v in ("llm", "mixed")} for m in labels}
        result.runs.append({"run": name, "scores": scores, "ranks": rank, "rank_change": change})
    compared = {v: compare(q, runs_by_name, measures, baseline=baseline or names[0], **knobs.as_dict(),
                           **options.as_dict())          # the public face of stats: its keywords
                for v, q in sources.items()}
    records = {v: (c.pair_records() if baseline is None else c.table_records()) for v, c in compared.items()}
    for i, row in enumerate(records["human"]):
        system = row.get("system", row.get("system_a"))
        base = row.get("baseline", row.get("system_b"))
        if system == base:
            continue
        entry = {"measure": row["measure"], "system": system, "baseline": base}
        for v in VERSIONS:
            r = records[v][i]
            entry[v] = {"delta": r["delta"], "p_value": r["p_value"], "p_adjusted": r["p_adjusted"],
                        "conclusion": _conclusion(r, knobs.alpha)}
        entry["flips"] = [v for v in ("llm", "mixed") if entry[v]["conclusion"] != entry["human"]["conclusion"]]
        result.comparisons.append(entry)
    if probabilities is not None:
        result.expected = _expected(human, probabilities, runs_by_name, labels, measures, knobs.alpha, draws,
                                    knobs.seed, options)
    return result


def _expected(human, probabilities, runs, labels, measures, alpha, draws, seed, options: Options) -> dict:
    """Expected score (linear measures) and resampled interval, under LLM-only and mixed labels."""
    from rankmeter.judges.sources import Samples, aggregate, mix, read_samples

    s = probabilities if isinstance(probabilities, Samples) else read_samples(probabilities)
    if s.probabilities is None:
        raise ParameterError("probabilities: the file gives single grades; expected scores need a probability "
                             "per grade ({\"query\", \"doc\", \"probabilities\": {grade: p}})")
    opts = options.replace(grades="real")
    mean_qrels = aggregate(s, method="mean")
    exact = {"llm": _evaluate(mean_qrels, runs, measures, opts),
             "mixed": _evaluate(mix(human, mean_qrels).qrels, runs, measures, opts)}
    from rankmeter.io import as_run
    runs = {name: as_run(run, columns=options.columns) for name, run in runs.items()}  # read once, not per draw
    rng = np.random.Generator(np.random.PCG64(seed))
    # one entry per (line, grade listed), in grade order within a line; a line's draw u picks its first grade
    # whose cumulative probability reaches u (its last one when rounding leaves u above them all)
    order = np.lexsort((s.grade, s.line))
    line, grades = s.line[order], s.grade[order]
    lines = len(s.query)
    starts = np.searchsorted(line, np.arange(lines))
    counts = np.bincount(line, minlength=lines)
    total = np.cumsum(s.probability[order])
    cumulative = total - np.concatenate(([0.0], total))[starts][line]
    drawn = {v: {run: {m: [] for m in labels} for run in runs} for v in ("llm", "mixed")}
    from rankmeter.executors.progress import Progress
    bar = Progress(draws, "resampling the LLM's labels")
    try:
        for _ in range(draws):
            _draw_once(rng, (line, grades, starts, counts, cumulative), s, human, runs, measures, labels, opts, drawn)
            bar.update(advance=1)
    finally:
        bar.close()
    return _summarise(labels, runs, exact, drawn, alpha)


def _draw_once(rng, entries, s, human, runs, measures, labels, opts: Options, drawn) -> None:
    """One draw of every pair's grade from the LLM's probabilities, scored under LLM-only and mixed labels
    (``entries``: each probability entry's line and grade in grade order within a line, where each line's
    entries start, how many it has, and their cumulative probability within the line)."""
    from rankmeter.judges.sources import mix
    from rankmeter.io.canonical import Qrels, qrels_table

    line, grades, starts, counts, cumulative = entries
    lines = len(starts)
    u = rng.random((lines, 1))[:, 0]
    picked = np.bincount(line, weights=cumulative < u[line], minlength=lines).astype(np.int64)
    grade = grades[starts + np.minimum(picked, counts - 1)]
    resampled = Qrels(qrels_table(s.query, s.doc, pa.array(grade)), "resampled", origin="dict")
    for v, q in (("llm", resampled), ("mixed", mix(human, resampled).qrels)):
        table = _evaluate(q, runs, measures, opts)
        for run in runs:
            for m in labels:
                drawn[v][run][m].append(table[run][m])


def _summarise(labels, runs, exact, drawn, alpha) -> dict:
    out: dict = {}
    for m in labels:
        linear = bool(LINEAR.match(m))
        out[m] = {}
        for run in runs:
            out[m][run] = {}
            for v in ("llm", "mixed"):
                low, high = np.quantile(drawn[v][run][m], [alpha / 2, 1 - alpha / 2])
                entry = {"expected": exact[v][run][m] if linear else None, "interval": [float(low), float(high)]}
                if not linear:
                    entry["undefined"] = (f"{m} is not linear in the grades: its expectation is not the score under "
                                          "the expected grades (DCG's and graded RBP's with max_grade are); see "
                                          "the interval")
                out[m][run][v] = entry
    return out
