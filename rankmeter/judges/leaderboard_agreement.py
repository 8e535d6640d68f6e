"""Leaderboard agreement: how alike two judgment sets (human and LLM) rank the same runs.

For each measure, the runs' scores under qrels A and under qrels B (scored here, or read from
precomputed leaderboards) give two rankings; :func:`leaderboards` puts side by side Kendall's
tau-b, Spearman's rho, Pearson's r, tau_ap (symmetric, TREC AutoJudge's tie rule), rank-biased
overlap, the runs whose rank moves most (``change``: places gained under B), and the overlap of the
top k runs. Ranks are
competition ranks (1 + the runs strictly ahead), so tied runs share a rank; a top k holds every
run ranked k or better. When every run scores alike on one side, each coefficient is undefined,
with the reason.

Precomputed leaderboards (:func:`read_leaderboard`) come as trec_eval output (``measure query
value``; ``-q`` output is fine, its ``all`` rows are read; the run is named by the ``runid`` row
or the file name), as the ``run measure query value`` lines TREC AutoJudge and TIRA use (the
``all`` rows), or as a table with a header naming ``run``, ``measure`` and ``value`` columns.

Examples
--------
>>> a = {"nDCG@10": {"r1": 0.5, "r2": 0.4, "r3": 0.3, "r4": 0.2}}
>>> b = {"nDCG@10": {"r1": 0.45, "r2": 0.47, "r3": 0.2, "r4": 0.1}}
>>> board = from_scores(a, b, top_k=(1, 2))
>>> m = board.measures[0]
>>> round(m["correlations"]["kendall_tau_b"], 4), m["moves"][0]["run"], m["moves"][0]["change"]
(0.6667, 'r1', -1)
>>> [(t["k"], t["common"]) for t in m["top_k"]]
[(1, 0), (2, 2)]
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

from rankmeter.judges.params import TOP_K_OVERLAP
from rankmeter.meta.params import RBO_P
from rankmeter.engine.param import validate_params
from rankmeter.core.keywords import EvaluationOptions, Unpack, takes_options
from rankmeter.core.options import Options, validate_options
from rankmeter.errors import InputError, ParameterError

__all__ = ["Leaderboards", "from_scores", "leaderboards", "leaderboards_with", "read_leaderboard"]


@dataclass
class Leaderboards:
    """Per measure: the two leaderboards, their correlations, the largest moves and the top-k overlaps."""

    a: str
    b: str
    measures: list[dict] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"a": self.a, "b": self.b, "measures": self.measures}

    def entry(self, measure: str | None = None) -> dict:
        """The two leaderboards of ``measure`` (default the first measure)."""
        found = self.measures[0] if measure is None else next((m for m in self.measures if m["measure"] == measure),
                                                              None)
        if found is None:
            raise ParameterError(f"measure {measure!r}: not in these leaderboards ({', '.join(self.names())})")
        return found

    def names(self) -> list[str]:
        """The measures compared."""
        return [m["measure"] for m in self.measures]

    def to_text(self, *, decimals: int = 4, moves: int = 5) -> str:
        from rankmeter.io.output import printable

        def show(value):
            return "undefined" if value is None else f"{value:.{decimals}f}"

        lines = []
        for m in self.measures:
            lines.append(f"{printable(m['measure'])}: {len(m['runs'])} runs ranked under A = {printable(self.a)} "
                         f"and B = {printable(self.b)}")
            c = m["correlations"]
            for key, label in (("kendall_tau_b", "Kendall's tau-b"), ("spearman", "Spearman's rho"),
                               ("pearson", "Pearson's r"), ("tau_ap", "tau_ap (symmetric, ties strict)"),
                               ("rbo", f"RBO (p={m['p']:g})")):
                lines.append(f"  {label:<32} {show(c[key])}")
            for why in dict.fromkeys(c["undefined"].values()):
                lines.append(f"  undefined: {why}")
            lines.append("  top k: " + "; ".join(f"{t['k']}: {t['common']} in common" for t in m["top_k"]))
            moved = [r for r in m["moves"] if r["change"]][:moves]
            if moved:
                lines.append("  largest moves (rank under A -> under B):")
                lines += [f"    {printable(r['run'])}: {r['rank_a']} -> {r['rank_b']} ({r['change']:+d})" for r in moved]
            width = max(len(printable(r["run"])) for r in m["runs"])
            lines.append(f"  {'run':<{width}}  {'A':>{decimals + 2}} rank  {'B':>{decimals + 2}} rank")
            for r in m["runs"]:
                lines.append(f"  {printable(r['run']):<{width}}  {r['score_a']:.{decimals}f} {r['rank_a']:>4}  "
                             f"{r['score_b']:.{decimals}f} {r['rank_b']:>4}")
            lines.append("")
        return "\n".join(lines)


def _ranks(scores: dict) -> dict:
    """Competition ranks: 1 + the number of runs strictly ahead."""
    values = list(scores.values())
    return {run: 1 + sum(v > s for v in values) for run, s in scores.items()}


@validate_params(RBO_P, TOP_K_OVERLAP)
def from_scores(board_a: dict, board_b: dict, *, names: tuple[str, str] = ("A", "B"), p: float = 0.9,
                top_k=(1, 3, 5, 10)) -> Leaderboards:
    """Compare two leaderboards given as ``{measure: {run: score}}`` (the measures and runs both have)."""
    from rankmeter.meta.correlation import correlations

    measures = [m for m in board_a if m in board_b]
    if not measures:
        raise ParameterError(f"the two leaderboards share no measure: {sorted(board_a)} vs {sorted(board_b)}")
    if any(k != int(k) for k in top_k):      # the declaration checks that they are numbers >= 1
        raise ParameterError(f"top_k={top_k!r}: expected positive integers")
    top_k = sorted({int(k) for k in top_k})
    result = Leaderboards(*names)
    for m in measures:
        runs = [r for r in board_a[m] if r in board_b[m]]
        lacking = sorted(set(board_a[m]) ^ set(board_b[m]))
        if lacking:
            raise ParameterError(f"{m}: runs on one leaderboard only: {', '.join(lacking[:5])}; give both the same runs")
        if len(runs) < 2:
            raise ParameterError(f"{m}: {len(runs)} run; a leaderboard comparison needs at least two")
        a = {r: float(board_a[m][r]) for r in runs}
        b = {r: float(board_b[m][r]) for r in runs}
        rank_a, rank_b = _ranks(a), _ranks(b)
        rows = [{"run": r, "score_a": a[r], "rank_a": rank_a[r], "score_b": b[r], "rank_b": rank_b[r],
                 "change": rank_a[r] - rank_b[r]} for r in sorted(runs, key=lambda r: (rank_a[r], r))]
        moves = sorted(rows, key=lambda r: (-abs(r["change"]), r["rank_a"], r["run"]))
        overlaps = []
        for k in top_k:
            in_a = {r for r in runs if rank_a[r] <= k}
            in_b = {r for r in runs if rank_b[r] <= k}
            overlaps.append({"k": k, "common": len(in_a & in_b), "only_a": sorted(in_a - in_b),
                             "only_b": sorted(in_b - in_a)})
        result.measures.append({"measure": m, "p": p, "runs": rows,
                                "correlations": correlations(a, b, p=p, names=(f"{names[0]}", f"{names[1]}")),
                                "moves": moves, "top_k": overlaps})
    return result


@takes_options(in_memory=True)
@validate_params(RBO_P, TOP_K_OVERLAP)
def leaderboards(qrels_a, qrels_b, runs, measures, *, p: float = 0.9, top_k=(1, 3, 5, 10),
                 **options: Unpack[EvaluationOptions]) -> Leaderboards:
    """Score ``runs`` with ``measures`` under both qrels and compare the leaderboards (see the module docstring).

    The evaluation options (``grades="real"`` for LLM grades such as 0.73, ``rel``, ``queries`` ...) are the
    same for both qrels.

    %(evaluation_options)s
    """
    return leaderboards_with(qrels_a, qrels_b, runs, measures, validate_options(**options), p=p, top_k=top_k)


def leaderboards_with(qrels_a, qrels_b, runs, measures, options: Options, *, p: float = 0.9,
                      top_k=(1, 3, 5, 10)) -> Leaderboards:
    """:func:`leaderboards` under evaluation options validated already."""
    from rankmeter.judges.pairs import source_name
    from rankmeter.core.evaluator import Evaluator

    measures = [measures] if isinstance(measures, str) else list(measures)
    if isinstance(runs, (str, bytes, os.PathLike)):
        raise ParameterError("runs: give several runs, as a list of paths or a dict name -> run")
    given = runs if isinstance(runs, dict) else list(runs)
    first = Evaluator.of(qrels_a, measures, options).evaluate_runs(given)
    second = Evaluator.of(qrels_b, measures, options).evaluate_runs(given)
    board_a = {m: {run: first[run][m] for run in first.runs} for m in first.names}
    board_b = {m: {run: second[run][m] for run in second.runs} for m in second.names}
    return from_scores(board_a, board_b, names=(source_name(qrels_a, "A"), source_name(qrels_b, "B")), p=p,
                       top_k=top_k)


def read_leaderboard(paths) -> dict:
    """``{measure: {run: value}}`` from precomputed leaderboard files (formats: the module docstring)."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    board: dict = {}
    for path in paths:
        from rankmeter.io.source import load_bytes
        data, name = load_bytes(path)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(f"byte {exc.start} is not UTF-8", source=name) from None
        lines = [(n, line) for n, line in enumerate(text.splitlines(keepends=True), start=1)
                 if line.strip() and not line.startswith("#")]
        if not lines:
            raise InputError("is empty: expected leaderboard lines (run measure query value, or trec_eval output)",
                             source=name)
        for measure, run, value in _rows(lines, name):
            seen = board.setdefault(measure, {})
            if run in seen:
                raise InputError(f"run {run!r} has two values for {measure}", source=name)
            seen[run] = value
    return board


def _rows(lines, name):
    sep = "," if "," in lines[0][1] else "\t" if "\t" in lines[0][1] and len(lines[0][1].split("\t")) > 1 else None
    header = [h.strip().lower() for h in lines[0][1].split(sep)]
    if {"run", "measure", "value"} <= set(header):
        at = {h: header.index(h) for h in ("run", "measure", "value", "query") if h in header}
        for n, line in lines[1:]:
            cells = [c.strip() for c in line.split(sep)]
            if "query" in at and cells[at["query"]] != "all":
                continue
            yield cells[at["measure"]], cells[at["run"]], _value(cells[at["value"]], name, n)
        return
    width = len(lines[0][1].split())
    if width == 3:  # trec_eval: measure query value, the run named by its runid line
        run = next((line.split()[2] for _, line in lines if line.split()[:2] == ["runid", "all"]),
                   os.path.splitext(os.path.basename(name))[0])
        for n, line in lines:
            cells = line.split()
            if len(cells) != 3:
                raise InputError(f"expected 3 fields (measure query value) like the first line, got {len(cells)}",
                                 source=name, line=n)
            if cells[1] == "all" and cells[0] != "runid":
                yield cells[0], run, _value(cells[2], name, n)
        return
    if width == 4:  # TREC AutoJudge / TIRA: run measure query value
        for n, line in lines:
            cells = line.split()
            if len(cells) != 4:
                raise InputError(f"expected 4 fields (run measure query value), got {len(cells)}", source=name, line=n)
            if cells[2] == "all":
                yield cells[1], cells[0], _value(cells[3], name, n)
        return
    raise InputError(f"{width} fields: expected trec_eval output (measure query value), run measure query value "
                     "lines, or a table with a header naming run, measure and value", source=name, line=lines[0][0])


def _value(text: str, name: str, line: int) -> float:
    import math
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"value {text!r} is not a number", source=name, line=line) from None
    if not math.isfinite(value):
        raise InputError(f"value {text!r} is not a finite number", source=name, line=line)
    return value
