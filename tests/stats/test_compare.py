"""rankmeter.compare, its Comparison and the `rankmeter compare` command."""
from __future__ import annotations

import sys
import csv
import io
import json
import warnings

import numpy as np
import pytest

import math

import rankmeter
from rankmeter import ParameterError, compare, evaluate
from rankmeter.report.tables import escape_latex, format_comparison, letters

from cli_runner import run_cli_in_process  # noqa: E402  (tests/ is on sys.path: tests/conftest.py)
from optional_packages import optional  # noqa: E402  (tests/ is on sys.path: tests/conftest.py)

pd = optional("pandas")
stats = optional("scipy.stats")

NQ = 30


def _data(seed=0, nq=NQ, docs=20, boosts=(0.0, 0.6, 0.1)):
    rng = np.random.default_rng(seed)
    rel = (rng.random((nq, docs)) < 0.3).astype(int)
    qrels = {f"q{q:02d}": {f"d{d}": int(rel[q, d]) for d in range(docs)} for q in range(nq)}
    runs = {}
    for i, boost in enumerate(boosts):
        score = rng.random((nq, docs)) + boost * rel
        runs[f"sys{i}"] = {f"q{q:02d}": {f"d{d}": float(score[q, d]) for d in range(docs)} for q in range(nq)}
    return qrels, runs


def _per_query(qrels, run, measure, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = evaluate(qrels, run, measure, **kw)
    return dict(zip(r.queries, r.values(measure).astype(float)))


def _write(path, run, tag):
    with open(path, "w") as fh:
        for q, docs in run.items():
            for d, s in docs.items():
                fh.write(f"{q} Q0 {d} 0 {s:.6f} {tag}\n")
    return str(path)


def _qrels_file(path, qrels):
    with open(path, "w") as fh:
        for q, docs in qrels.items():
            for d, g in docs.items():
                fh.write(f"{q} 0 {d} {g}\n")
    return str(path)


# --- the table --------------------------------------------------------------------------------------------------

def test_table_columns_and_t_test_against_scipy():
    qrels, runs = _data()
    c = compare(qrels, runs, ["AP", "nDCG@10"], test="t")
    t = c.table
    assert list(t.columns)[:16] == ["measure", "system", "baseline", "mean", "baseline_mean", "delta", "p_value",
                                    "p_adjusted", "ci_low", "ci_high", "effect_size", "effect_low", "effect_high",
                                    "wins", "ties", "losses"]
    assert len(t) == 2 * 3 and set(t["baseline"]) == {"sys0"} and c.baseline == "sys0"
    assert c.systems == ["sys0", "sys1", "sys2"] and c.measures == ["AP", "nDCG@10"]
    for measure in c.measures:
        base = _per_query(qrels, runs["sys0"], measure)
        for name in ("sys1", "sys2"):
            mine = _per_query(qrels, runs[name], measure)
            a = np.array([mine[q] for q in sorted(base)])
            b = np.array([base[q] for q in sorted(base)])
            row = t[(t.measure == measure) & (t.system == name)].iloc[0]
            ref = stats.ttest_rel(a, b)
            ci = ref.confidence_interval(0.95)
            assert row["p_value"] == pytest.approx(ref.pvalue, rel=1e-9)
            assert row["p_adjusted"] == row["p_value"]  # correction="none"
            assert (row["ci_low"], row["ci_high"]) == pytest.approx((ci.low, ci.high), rel=1e-9)
            assert row["mean"] == pytest.approx(a.mean()) and row["baseline_mean"] == pytest.approx(b.mean())
            assert row["delta"] == pytest.approx(a.mean() - b.mean())
            d = a - b
            assert row["effect_size"] == pytest.approx(d.mean() / d.std(ddof=1))
            assert (row["wins"], row["ties"], row["losses"]) == ((d > 0).sum(), (d == 0).sum(), (d < 0).sum())
        base_row = t[(t.measure == measure) & (t.system == "sys0")].iloc[0]
        assert base_row["delta"] == 0 and np.isnan(base_row["p_value"])
        assert base_row["mean"] == pytest.approx(np.mean(list(base.values())))


def test_wilcoxon_and_named_baseline():
    qrels, runs = _data(1)
    c = compare(qrels, runs, "P@5", test="wilcoxon", baseline="sys2")
    t = c.table.set_index("system")
    base = _per_query(qrels, runs["sys2"], "P@5")
    other = _per_query(qrels, runs["sys1"], "P@5")
    qs = sorted(base)
    ref = stats.wilcoxon([other[q] for q in qs], [base[q] for q in qs]).pvalue
    assert t.loc["sys1", "p_value"] == pytest.approx(ref, rel=1e-9)
    assert t.loc["sys1", "baseline"] == "sys2" and t.loc["sys2", "delta"] == 0


def test_correction_across_the_baseline_comparisons_of_each_measure():
    qrels, runs = _data(2, boosts=(0.0, 0.3, 0.15, 0.05))
    plain = compare(qrels, runs, ["AP", "P@10"], test="t").table
    holm = compare(qrels, runs, ["AP", "P@10"], test="t", correction="holm").table
    for measure in ("AP", "P@10"):
        p = plain[(plain.measure == measure) & (plain.system != "sys0")]["p_value"].to_numpy()
        m = len(p)
        order = np.argsort(p)
        expected = np.empty(m)
        running = 0.0
        for rank, i in enumerate(order):  # Holm by hand
            running = max(running, min(1.0, (m - rank) * p[i]))
            expected[i] = running
        got = holm[(holm.measure == measure) & (holm.system != "sys0")]["p_adjusted"].to_numpy()
        np.testing.assert_allclose(got, expected)
    c = compare(qrels, runs, "AP", test="t", correction="bonferroni")
    pw = c.pairwise
    assert len(pw) == 6  # all pairs of 4 systems
    np.testing.assert_allclose(pw["p_adjusted"], np.minimum(1, 6 * pw["p_value"]))


def test_significant_and_beats_use_all_pairs():
    qrels, runs = _data(3, nq=40, boosts=(0.0, 0.8, 0.0))
    c = compare(qrels, runs, "AP", test="randomization", permutations=2000)
    assert c.significant("AP", "sys1", "sys0") and c.significant("AP", "sys0", "sys1")
    assert c.significant("map", "sys1", "sys2")  # any spelling of the measure
    assert not c.significant("AP", "sys0", "sys0")
    assert c.beats("AP", "sys1") == ["sys0", "sys2"] and c.beats("AP", "sys0") == []
    with pytest.raises(KeyError):
        c.significant("AP", "sys1", "nope")
    with pytest.raises(KeyError):
        c.significant("nDCG", "sys1", "sys0")


def test_randomization_and_bootstrap_are_reproducible():
    qrels, runs = _data(4)
    for test in ("randomization", "bootstrap", "tukey"):
        a = compare(qrels, runs, ["AP", "RR"], test=test, permutations=1000, seed=7).table
        b = compare(qrels, runs, ["AP", "RR"], test=test, permutations=1000, seed=7).table
        other = compare(qrels, runs, ["AP", "RR"], test=test, permutations=1000, seed=8).table
        pd.testing.assert_frame_equal(a, b)
        assert not a["p_value"].equals(other["p_value"])


def test_tukey_pairwise_and_rules():
    qrels, runs = _data(5, boosts=(0.0, 0.0, 0.9))
    c = compare(qrels, runs, "AP", test="tukey", permutations=2000)
    pw = c.pairwise.set_index(["system_a", "system_b"])
    assert len(pw) == 3
    assert pw.loc[("sys0", "sys2"), "p_value"] < 0.01 and pw.loc[("sys1", "sys2"), "p_value"] < 0.01
    assert pw.loc[("sys0", "sys1"), "p_value"] > 0.05
    t = c.table.set_index("system")
    assert t.loc["sys2", "p_value"] == pw.loc[("sys0", "sys2"), "p_value"]
    assert t.loc["sys2", "delta"] == pytest.approx(-pw.loc[("sys0", "sys2"), "delta"])
    half = (t.loc["sys2", "ci_high"] - t.loc["sys2", "ci_low"]) / 2
    assert half == pytest.approx((t.loc["sys1", "ci_high"] - t.loc["sys1", "ci_low"]) / 2)  # one HSD
    with pytest.raises(ParameterError, match="family-wise"):
        compare(qrels, runs, "AP", test="tukey", correction="holm")


# --- which queries are paired ------------------------------------------------------------------------------------

def test_query_pairing_when_a_run_misses_a_query():
    qrels, runs = _data(6)
    del runs["sys1"]["q03"]
    with pytest.warns(UserWarning, match="sys1"):
        c = compare(qrels, runs, "AP", test="t")
    t = c.table.set_index("system")
    assert t.loc["sys1", "queries"] == NQ - 1 and t.loc["sys2", "queries"] == NQ
    base = _per_query(qrels, runs["sys0"], "AP")
    one = _per_query(qrels, runs["sys1"], "AP")
    qs = sorted(one)
    assert "q03" not in qs
    ref = stats.ttest_rel([one[q] for q in qs], [base[q] for q in qs])
    assert t.loc["sys1", "p_value"] == pytest.approx(ref.pvalue, rel=1e-9)
    assert t.loc["sys1", "baseline_mean"] == pytest.approx(np.mean([base[q] for q in qs]))
    assert t.loc["sys0", "mean"] == pytest.approx(np.mean(list(base.values())))  # the baseline: all its queries
    assert np.isnan(c.per_query["AP"].loc["q03", "sys1"])
    # every qrels query: the missing one scores 0
    c = compare(qrels, runs, "AP", test="t", queries="qrels")
    t = c.table.set_index("system")
    assert t.loc["sys1", "queries"] == NQ
    assert c.per_query["AP"].loc["q03", "sys1"] == 0
    one = _per_query(qrels, runs["sys1"], "AP", queries="qrels")
    assert t.loc["sys1", "mean"] == pytest.approx(np.mean(list(one.values())))
    # tukey: the queries every run answered
    with pytest.warns(UserWarning):
        c = compare(qrels, runs, "AP", test="tukey", permutations=200)
    assert set(c.table["queries"]) == {NQ - 1}


def test_queries_only_in_a_run_are_not_compared():
    qrels, runs = _data(7)
    runs["sys2"]["extra"] = {"d1": 1.0}
    c = compare(qrels, runs, "AP")
    assert "extra" not in c.per_query["AP"].index and len(c.queries) == NQ


# --- naming and inputs -----------------------------------------------------------------------------------------------

def test_list_of_paths_named_by_tag_or_file(tmp_path):
    qrels, runs = _data(8)
    q = _qrels_file(tmp_path / "qrels", qrels)
    paths = [_write(tmp_path / f"{n}.run", runs[n], f"tag{n[-1]}") for n in runs]
    assert compare(q, paths, "AP").systems == ["tag0", "tag1", "tag2"]
    (tmp_path / "x").mkdir()
    same = [_write(tmp_path / "a.run", runs["sys0"], "dup"), _write(tmp_path / "b.run", runs["sys1"], "dup"),
            _write(tmp_path / "c.run", runs["sys2"], "unique")]
    assert compare(q, same, "AP").systems == ["a.run", "b.run", "unique"]
    clash = [_write(tmp_path / "a.run", runs["sys0"], "dup"), _write(tmp_path / "x" / "a.run", runs["sys1"], "dup")]
    assert compare(q, clash, "AP").systems == clash  # same file name: the paths
    assert compare(qrels, [runs["sys0"], runs["sys1"]], "AP").systems == ["run1", "run2"]


def test_parameter_errors():
    qrels, runs = _data(9)
    bad = [({"test": "anova"}, "test="), ({"correction": "sidak"}, "correction="), ({"alpha": 1.5}, "alpha="),
           ({"permutations": 0}, "permutations="), ({"seed": -1}, "seed="), ({"queries": "run"}, "queries="),
           ({"baseline": "nope"}, "sys0, sys1, sys2")]
    for kwargs, match in bad:
        with pytest.raises(ParameterError, match=match):
            compare(qrels, runs, "AP", **kwargs)
    with pytest.raises(ParameterError, match="at least two"):
        compare(qrels, {"only": runs["sys0"]}, "AP")
    with pytest.raises(ParameterError, match="several runs"):
        compare(qrels, "one.run", "AP")
    with pytest.raises(ParameterError, match="text"):
        compare(qrels, runs, "RelString@5")


def test_scipy_is_optional(monkeypatch):
    qrels, runs = _data(10)
    monkeypatch.setitem(sys.modules, "scipy", None)  # as if scipy were not installed
    monkeypatch.setitem(sys.modules, "scipy.stats", None)
    monkeypatch.setitem(sys.modules, "scipy.special", None)
    with pytest.raises(ImportError, match=r"pip install scipy"):
        compare(qrels, runs, "AP", test="wilcoxon")
    assert len(compare(qrels, runs, "AP", test="t").table) == 3  # Student's t needs no scipy
    for test in ("randomization", "bootstrap", "tukey"):
        assert len(compare(qrels, runs, "AP", test=test, permutations=200).table) == 3


def test_exported_and_repr():
    assert rankmeter.compare is compare and "Comparison" in rankmeter.__all__
    qrels, runs = _data(11)
    c = compare(qrels, runs, "AP")
    assert isinstance(c, rankmeter.Comparison) and "3 systems" in repr(c)
    assert list(c.per_query["AP"].columns) == c.systems


# --- tables and the command line ------------------------------------------------------------------------------------

def test_letters_and_latex_escaping():
    assert letters(3) == ["a", "b", "c"] and letters(27)[-1] == "aa"
    assert escape_latex(r"a_b&c%d$e#f{g}h~i^j\k") == \
        r"a\_b\&c\%d\$e\#f\{g\}h\textasciitilde{}i\textasciicircum{}j\textbackslash{}k"


@pytest.fixture
def cli_files(tmp_path):
    qrels, runs = _data(12, nq=40, boosts=(0.0, 0.9, 0.05))
    q = _qrels_file(tmp_path / "qrels", qrels)
    tags = ["base_1", "strong&50%", "weak#{x}"]
    paths = [_write(tmp_path / f"r{i}.run", runs[n], tags[i]) for i, n in enumerate(runs)]
    return q, paths, tags


def _run_cli(capsys, argv):
    done = run_cli_in_process(*argv)  # the shared runner: streams, warning hooks and import finders restored
    assert done.code == 0, done.err
    return done.out


def test_cli_text_is_plain_off_a_terminal(cli_files, capsys):
    q, paths, tags = cli_files
    out = _run_cli(capsys, ["compare", q, *paths, "-m", "AP", "-m", "P@10", "--test", "randomization",
                            "--permutations", "2000"])
    lines = out.splitlines()
    assert "\x1b[" not in out and lines[0].split() == ["system", "AP", "P@10"]
    strong = next(line for line in lines if "strong&50%" in line)
    assert strong.split()[0] == "b" and strong.split()[2].endswith("^ac")
    assert "a = base_1, b = strong&50%, c = weak#{x}" in out and "randomization test, B=2000" in out


def test_cli_markdown_superscripts_and_bold_best(cli_files, capsys):
    q, paths, _ = cli_files
    out = _run_cli(capsys, ["compare", q, *paths, "-m", "AP", "--format", "markdown"])
    rows = {line.split("|")[1].strip(): line for line in out.splitlines() if line.startswith("| ")}
    assert "**" in rows["b"] and "<sup>ac</sup>" in rows["b"]
    assert "**" not in rows["a"] and "<sup>" not in rows["a"]
    assert "base\\_1" in rows["a"]  # escaped for Markdown
    assert "paired t-test" in out


def test_cli_latex(cli_files, capsys):
    q, paths, _ = cli_files
    out = _run_cli(capsys, ["compare", q, *paths, "-m", "AP", "-m", "ndcg_cut.10", "--format", "latex",
                            "--correction", "holm"])
    assert out.startswith("\\begin{tabular}{llrr}") and out.rstrip().endswith("\\end{tabular}")
    assert "strong\\&50\\%" in out and "weak\\#\\{x\\}" in out and "base\\_1" in out
    assert "ndcg\\_cut.10" in out
    strong = next(line for line in out.splitlines() if line.startswith("b & "))
    assert strong.count("\\textbf{") == 2 and "$^{ac}$" in strong
    assert "Holm correction" in out


def test_cli_csv_and_json(cli_files, capsys):
    q, paths, tags = cli_files
    out = _run_cli(capsys, ["compare", q, *paths, "-m", "AP", "--format", "csv", "--baseline", "weak#{x}"])
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["system"] for r in rows] == tags and {r["baseline"] for r in rows} == {"weak#{x}"}
    assert rows[2]["p_value"] == "" and float(rows[1]["delta"]) > 0
    out = _run_cli(capsys, ["compare", q, *paths, "-m", "AP", "--format", "json", "--test", "bootstrap",
                            "--permutations", "500", "--seed", "3"])
    obj = json.loads(out)
    assert obj["letters"] == {"a": tags[0], "b": tags[1], "c": tags[2]} and obj["test"] == "bootstrap"
    assert len(obj["table"]) == 3 and len(obj["pairwise"]) == 3 and obj["table"][0]["p_value"] is None


def test_cli_errors(cli_files, cli):
    q, paths, _ = cli_files
    bad = cli("compare", q, *paths, "-m", "AP", "--baseline", "nope")
    assert bad.code == 2 and "not one of the runs" in bad.err
    assert cli("compare", q, paths[0], "-m", "AP").code == 2


def test_format_comparison_bolds_no_tie_and_shows_deltas(cli_files):
    """A tie at the printed precision is not a best value; the table under it gives delta, p and the interval."""
    q, paths, _ = cli_files
    c = compare(q, [paths[0], paths[0]], "AP")  # the same run twice: tied, nothing significant
    out = format_comparison(c, "markdown")
    assert "**" not in out and "<sup>" not in out
    assert "| delta | p | p adjusted | 95% CI |" in out and "+0.0000" in out and "-0.0000" not in out
    two = compare(q, paths[:2], "AP", test="randomization", permutations=500)
    text = format_comparison(two, "text")
    row = two.table_records()[1]
    assert f"{row['delta']:+.4f}" in text and f"[{row['ci_low']:.4f}, {row['ci_high']:.4f}]" in text
    assert format_comparison(two, "markdown").count("**") == 2  # one best value, bold (opened and closed)


def test_several_baselines_share_one_family_and_effect_sizes_have_intervals():
    from rankmeter.stats.corrections import adjust

    qrels, runs = _data()
    c = compare(qrels, runs, ["AP"], test="t", baseline=["sys0", "sys1"], correction="holm")
    t = c.table
    assert c.baselines == ["sys0", "sys1"] and c.baseline == "sys0"
    assert len(t) == 2 * 3  # each baseline: its own row and the two others
    compared = t[t["system"] != t["baseline"]]
    # sys0-sys1 is one comparison listed twice; the family is {sys0-sys1, sys2-sys0, sys2-sys1}
    p = {frozenset((r.system, r.baseline)): r.p_value for r in compared.itertuples()}
    family = list(p)
    want = dict(zip(family, adjust([p[k] for k in family], "holm")))
    for r in compared.itertuples():
        assert r.p_adjusted == pytest.approx(want[frozenset((r.system, r.baseline))])
    for r in compared.itertuples():  # d_z +- 1.96 sqrt(1/n + d^2 / 2n)
        half = 1.959963984540054 * math.sqrt(1 / r.queries + r.effect_size ** 2 / (2 * r.queries))
        assert (r.effect_low, r.effect_high) == (pytest.approx(r.effect_size - half, rel=1e-9),
                                                 pytest.approx(r.effect_size + half, rel=1e-9))
    with pytest.raises(rankmeter.ParameterError, match="'nope'"):
        compare(qrels, runs, ["AP"], baseline=["sys0", "nope"])


def test_cli_several_baselines_and_all_pairs(tmp_path, cli):
    qrels, runs = _data()
    qp = tmp_path / "q.txt"
    qp.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    paths = []
    for name, run in runs.items():
        p = tmp_path / f"{name}.run"
        p.write_text("".join(f"{q} Q0 {d} {i + 1} {s} {name}\n" for q, docs in run.items()
                             for i, (d, s) in enumerate(sorted(docs.items(), key=lambda t: -t[1]))))
        paths.append(str(p))
    done = cli("compare", qp, *paths, "-m", "AP", "--baseline", "sys0", "--baseline", "sys1", "--all-pairs",
               "--correction", "holm")
    assert done.returncode == 0, done.stderr
    assert "Against the baselines sys0, sys1:" in done.stdout and "Every pair (holm correction" in done.stdout
    pairs = compare(str(qp), paths, ["AP"], correction="holm").pairwise
    shown = done.stdout.split("Every pair")[1]
    for r in pairs.itertuples():
        text = "<0.0001" if r.p_adjusted < 1e-4 else f"{r.p_adjusted:.4f}"
        assert f"{r.delta:+.4f}" in shown and text in shown


def test_compare_scores_of_evaluated_values_is_compare():
    """Per-query values computed elsewhere give the table compare gives for the runs themselves."""
    import warnings

    import numpy as np

    import rankmeter
    rng = np.random.default_rng(4)
    qrels = {f"q{i}": {f"d{j}": int(rng.integers(0, 3)) for j in range(12)} for i in range(25)}
    runs = {name: {q: {f"d{j}": float(rng.random()) for j in range(12) if rng.random() < 0.8}
                   for q in qrels if rng.random() < 0.9} for name in ("A", "B", "C")}
    measures = ["AP", "nDCG@5"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        direct = rankmeter.compare(qrels, runs, measures, baseline="B", test="randomization", correction="holm")
        scores = {}
        for name, run in runs.items():
            r = rankmeter.evaluate(qrels, run, measures)
            scores[name] = {m: dict(zip(r.queries, r.values(m).tolist())) for m in measures}
    via = rankmeter.compare_scores(scores, baseline="B", test="randomization", correction="holm")
    assert via.table_records() == direct.table_records()
    assert via.pair_records() == direct.pair_records()
    with pytest.raises(rankmeter.ParameterError, match="at least two systems"):
        rankmeter.compare_scores({"A": scores["A"]})
