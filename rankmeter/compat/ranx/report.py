"""ranx's ``compare`` and its ``Report``: means, pairwise tests and wins/ties/losses of several runs.

The per-query values are :func:`~rankmeter.compat.ranx.evaluation.per_query`'s; the tests are
rankmeter's (:func:`rankmeter.compare_scores`): ``"student"`` its paired t-test (scipy's
``ttest_rel`` p-value; identical runs give p = 1 where scipy gives NaN), ``"fisher"`` its paired
randomization test with ``n_permutations`` random sign flips (ranx permutes each query's two
values, the same null distribution; rankmeter's p is (count + 1) / (B + 1), ranx's count / B, and
the random draws differ, so the two agree within Monte Carlo error). ``"tukey"`` is the classical
Tukey HSD over all runs (``scipy.stats.tukey_hsd``), as ranx computes it; rankmeter's own
``test="tukey"`` is Sakai's randomised version, a different test.

>>> from rankmeter.compat.ranx import Qrels, Run, compare
>>> qrels = Qrels({"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 1}})
>>> good = Run({"q1": {"a": 2.0, "x": 1.0}, "q2": {"b": 2.0, "x": 1.0}, "q3": {"c": 2.0, "x": 1.0}}, name="good")
>>> bad = Run({"q1": {"x": 2.0, "a": 1.0}, "q2": {"x": 2.0, "b": 1.0}, "q3": {"x": 2.0, "c": 1.0}}, name="bad")
>>> report = compare(qrels, [good, bad], ["mrr"], max_p=0.05)
>>> report.results, report.win_tie_loss[("good", "bad")]["mrr"]
({'good': {'mrr': 1.0}, 'bad': {'mrr': 0.5}}, {'W': 3, 'T': 0, 'L': 0})
"""
from __future__ import annotations

import json
import math

import numpy as np

from rankmeter.compat.ranx.evaluation import per_query
from rankmeter.compat.ranx.errors import ParameterNotImplemented
from rankmeter.errors import ParameterError

__all__ = ["FrozensetDict", "Report", "compare"]

_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_SUPERSCRIPTS = "ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖ۹ʳˢᵗᵘᵛʷˣʸᶻ"  # ranx's characters, its q included
#: ranx's column labels
LABELS = {"hits": "Hits", "hit_rate": "Hit Rate", "precision": "P", "recall": "Recall", "f1": "F1",
          "r-precision": "R-Prec", "mrr": "MRR", "map": "MAP", "dcg": "DCG", "dcg_burges": "DCG Burges",
          "ndcg": "NDCG", "ndcg_burges": "NDCG Burges", "bpref": "BPref",
          **{f"rbp.{i}": f"RBP.{i}" for i in range(1, 100)}}
TESTS = {"fisher": "Fisher's randomization test", "student": "paired Student's t-test", "tukey": "Tukey's HSD test"}


class FrozensetDict(dict):
    """A dict keyed by unordered pairs: ``d["a", "b"] is d["b", "a"]`` (ranx's comparisons)."""

    def __getitem__(self, key):
        return super().__getitem__(frozenset(key))

    def __setitem__(self, key, value):
        super().__setitem__(frozenset(key), value)

    def __contains__(self, key):
        return super().__contains__(frozenset(key))


def metric_label(metric: str) -> str:
    """ranx's printed label of a metric name (``ndcg@10`` -> ``NDCG@10``)."""
    name, _, level = metric.partition("-l")
    base, _, cutoff = name.partition("@")
    label = LABELS.get(base, LABELS.get(name, name))
    return label + (f"@{cutoff}" if cutoff and base in LABELS else "") + (f"-l{level}" if level else "")


class Report:
    """What :func:`compare` returns: ``results``, ``comparisons``, ``win_tie_loss`` and their views."""

    def __init__(self, model_names, results, comparisons, metrics, max_p, win_tie_loss, rounding_digits=3,
                 show_percentages=False, stat_test="student"):
        self.model_names = model_names
        self.results = results
        self.comparisons = comparisons
        self.metrics = metrics
        self.max_p = max_p
        self.win_tie_loss = win_tie_loss
        self.rounding_digits = rounding_digits
        self.show_percentages = show_percentages
        self.stat_test = stat_test

    def format_score(self, score: float) -> str:
        if self.show_percentages:
            digits = max(0, self.rounding_digits - 2)
            return f"{round(score * 100, digits):.{self.rounding_digits - 2}f}"
        return f"{round(score, self.rounding_digits):.{self.rounding_digits}f}"

    def get_metric_label(self, metric: str) -> str:
        return metric_label(metric)

    def get_stat_test_label(self, stat_test: str) -> str:
        return TESTS[stat_test]

    def _beaten(self, model: str, metric: str) -> list[int]:
        """Positions of the runs ``model`` is significantly better than on ``metric``."""
        return [j for j, other in enumerate(self.model_names) if other != model
                and self.comparisons[model, other][metric]["significant"]
                and self.results[model][metric] > self.results[other][metric]]

    def get_superscript_for_table(self, model: str, metric: str) -> str:
        return "".join(_SUPERSCRIPTS[j] for j in self._beaten(model, metric))

    def to_table(self) -> str:
        """The plain-text table ranx prints: one row per run, a superscript letter per run it beats."""
        rows = [[_LETTERS[i], run] + [self.format_score(v[m]) + self.get_superscript_for_table(run, m)
                                      for m in self.metrics]
                for i, (run, v) in enumerate(self.results.items())]
        headers = ["#", "Model"] + [metric_label(m) for m in self.metrics]
        try:
            from tabulate import tabulate
        except ImportError:  # the same layout without tabulate: left-aligned columns
            widths = [max(len(str(r[c])) for r in rows + [headers]) for c in range(len(headers))]

            def line(cells) -> str:
                return "  ".join(str(x).ljust(w) for x, w in zip(cells, widths)).rstrip()
            return "\n".join([line(headers), "  ".join("-" * w for w in widths)] + [line(r) for r in rows])
        return tabulate(tabular_data=rows, headers=headers)

    def to_latex(self) -> str:
        """A booktabs LaTeX table: the best score per metric in bold, superscripts as in :meth:`to_table`."""
        best = {}
        for m in self.metrics:
            top, best[m] = 0.0, None
            for model in self.model_names:
                if top < round(self.results[model][m], self.rounding_digits):
                    top, best[m] = round(self.results[model][m], self.rounding_digits), model
        head = " & ".join([r"\textbf{\#}", r"\textbf{Model}"] + [rf"\textbf{{{metric_label(m)}}}" for m in self.metrics])
        lines = [r"% needs \usepackage{graphicx} and \usepackage{booktabs}", r"\begin{table*}[ht]", r"\centering",
                 (rf"\caption{{Scores of the runs; best in bold. A superscript letter marks a run this one beats "
                  rf"significantly ({TESTS[self.stat_test]}, $p \le {self.max_p}$).}}"),
                 r"\resizebox{0.8\textwidth}{!}{", r"\begin{tabular}{c|l" + "|c" * len(self.metrics) + "}",
                 r"\toprule", head + r" \\", r"\midrule"]
        for i, model in enumerate(self.model_names):
            cells = []
            for m in self.metrics:
                score = self.format_score(self.results[model][m])
                score = rf"\textbf{{{score}}}" if best[m] == model else score
                beaten = "".join(_LETTERS[j] for j in self._beaten(model, m))
                others = "".join(_LETTERS[j] for j, o in enumerate(self.model_names) if o != model
                                 and _LETTERS[j] not in beaten)
                cells.append(score + (f"$^{{{beaten}}}$" if beaten else "")
                             + (rf"\hphantom{{$^{{{others}}}$}}" if others else ""))
            lines.append(" & ".join([_LETTERS[i], model.replace("_", r"\_")] + cells) + r" \\")
        lines += [r"\bottomrule", r"\end{tabular}", "}", r"\label{tab:results}", r"\end{table*}"]
        return "\n".join(lines)

    def to_dict(self) -> dict:
        out = {"stat_test": self.stat_test, "metrics": self.metrics, "model_names": self.model_names}
        for a in self.model_names:
            out[a] = {"scores": self.results[a], "comparisons": {}, "win_tie_loss": {}}
            for b in self.model_names:
                if a != b:
                    out[a]["comparisons"][b] = {m: self.comparisons[a, b][m]["p_value"] for m in self.metrics}
                    out[a]["win_tie_loss"][b] = {m: self.win_tie_loss[(a, b)][m] for m in self.metrics}
        return out

    def to_dataframe(self):
        import pandas as pd
        frame = pd.DataFrame.from_dict({name: self.results[name] for name in self.model_names}, orient="index")
        return frame.reset_index().rename(columns={"index": "model_names"})

    def save(self, path: str) -> None:
        """The report as JSON, through rankmeter's guarded writer: never over an input, never half a file, the
        file synced before its rename and the folder after."""
        from rankmeter.compat.ranx.files import write_guarded
        text = json.dumps(self.to_dict(), indent=4, default=float)
        write_guarded(path, lambda f: f.write(text))

    def print_results(self) -> None:
        print(json.dumps(self.results, indent=4))

    def __repr__(self) -> str:
        return self.to_table()

    __str__ = __repr__


def _p_values(names, scores, metrics, stat_test, n_permutations, random_seed) -> dict:
    """{frozenset pair: {metric: p}} from rankmeter's tests (Tukey: scipy's classical HSD, as ranx)."""
    out: dict = {}
    if stat_test == "tukey":
        from scipy.stats import tukey_hsd
        for m in metrics:
            matrix = tukey_hsd(*[scores[name][m] for name in names]).pvalue
            for i, a in enumerate(names):
                for j, b in enumerate(names):
                    out.setdefault(frozenset((a, b)), {})[m] = float(matrix[i, j])
        return out
    from rankmeter.stats.compare import compare_scores
    by_system = {name: {m: {f"q{i}": v for i, v in enumerate(scores[name][m].tolist())} for m in metrics}
                 for name in names}
    comparison = compare_scores(by_system, test="t" if stat_test == "student" else "randomization",
                                permutations=n_permutations, seed=random_seed)
    for row in comparison.pair_records():
        out.setdefault(frozenset((row["system_a"], row["system_b"])), {})[row["measure"]] = row["p_value"]
    return out


def compare(qrels, runs, metrics, stat_test: str = "student", n_permutations: int = 1000, max_p: float = 0.01,
            random_seed: int = 42, threads: int = 0, rounding_digits: int = 3, show_percentages: bool = False,
            make_comparable: bool = False) -> Report:
    """ranx's ``compare``: score ``runs`` on ``metrics`` and test every pair with ``stat_test``."""
    from rankmeter.compat.ranx.data import Run

    if stat_test not in TESTS:
        raise ParameterNotImplemented(f"stat_test={stat_test!r}: ranx's tests are {', '.join(TESTS)}")
    metrics = [metrics] if isinstance(metrics, str) else list(metrics)
    names = [run.name if getattr(run, "name", None) is not None else f"run_{i + 1}" for i, run in enumerate(runs)]
    if len(set(names)) != len(names):
        raise ParameterError(f"compare: two runs are named alike ({', '.join(names)}); give each a distinct name")
    scores = {}
    for name, run in zip(names, runs):
        # in place, as ranx's compare (through its evaluate) changes each run
        scored = run.make_comparable(qrels) if make_comparable and isinstance(run, Run) else run
        scores[name] = per_query(qrels, scored, metrics)[1]
    results = {name: {m: float(np.mean(scores[name][m])) for m in metrics} for name in names}
    p = _p_values(names, scores, metrics, stat_test, n_permutations, random_seed)
    comparisons = FrozensetDict()
    for key, by_metric in p.items():
        comparisons[key] = {m: {"p_value": v, "significant": bool(v <= max_p) if not math.isnan(v) else False}
                            for m, v in by_metric.items()}
    win_tie_loss = {(a, b): {m: {"W": int(np.sum(scores[a][m] > scores[b][m])),
                                 "T": int(np.sum(scores[a][m] == scores[b][m])),
                                 "L": int(np.sum(scores[a][m] < scores[b][m]))} for m in metrics}
                    for a in names for b in names if a != b}
    return Report(model_names=names, results=results, comparisons=comparisons, metrics=metrics, max_p=max_p,
                  win_tie_loss=win_tie_loss, rounding_digits=rounding_digits, show_percentages=show_percentages,
                  stat_test=stat_test)
