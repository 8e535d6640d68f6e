"""judges.label_impact: scores under human, LLM and mixed labels, bounds, rank changes, flipped conclusions, expectations."""
from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

import rankmeter
from rankmeter.judges.label_impact import impact
from rankmeter.judges.sources import mix
from rankmeter.stats.compare import compare


def _data(seed=5, queries=8, nruns=4):
    rng = np.random.default_rng(seed)
    human = {f"q{q}": {f"d{d}": int(rng.integers(0, 3)) for d in range(8)} for q in range(queries)}
    llm = {q: {**{d: (g if rng.random() < 0.7 else int(rng.integers(0, 3))) for d, g in docs.items()},
               **{f"d{d}": int(rng.integers(0, 3)) for d in range(8, 14)}} for q, docs in human.items()}
    runs = {f"run{r}": {f"q{q}": {f"d{d}": float(20 - i) for i, d in enumerate(rng.permutation(18)[:10])}
                        for q in range(queries)} for r in range(nruns)}
    return human, llm, runs


def test_scores_ranks_and_bounds_equal_evaluate_under_each_version():
    human, llm, runs = _data()
    got = impact(human, llm, runs, ["P@5", "nDCG@10"], baseline="run0")
    mixed = mix(human, llm).qrels
    for version, qrels in (("human", human), ("llm", llm), ("mixed", mixed)):
        table = rankmeter.evaluate_runs(qrels, runs, ["P@5", "nDCG@10"])
        for row in got.runs:
            assert row["scores"]["P@5"][version] == table[row["run"]]["P@5"]
        means = [table[r]["P@5"] for r in runs]
        for row in got.runs:
            assert row["ranks"]["P@5"][version] == 1 + sum(v > table[row["run"]]["P@5"] for v in means)
    for row in got.runs:
        assert row["rank_change"]["P@5"]["llm"] == row["ranks"]["P@5"]["human"] - row["ranks"]["P@5"]["llm"]
        # retrieved docs judged by neither (d14..d17) counted relevant at grade 2: P@5 by hand
        run = runs[row["run"]]
        judged = mix(human, llm).grades()
        by_hand = np.mean([sum(1 for d in sorted(run[q], key=lambda d: -run[q][d])[:5]
                               if judged[q].get(d, 2) >= 1) / 5 for q in run])
        assert row["scores"]["P@5"]["unjudged_relevant"] == pytest.approx(by_hand)
        assert row["scores"]["P@5"]["unjudged_relevant"] >= row["scores"]["P@5"]["mixed"]


@pytest.mark.parametrize("baseline", ["run1", None])
def test_flips_are_the_comparisons_whose_conclusion_differs(baseline):
    human, llm, runs = _data(seed=11, queries=12, nruns=4)
    got = impact(human, llm, runs, ["nDCG@10"], baseline=baseline, test="t", correction="holm")
    records = {}
    for version, qrels in (("human", human), ("llm", llm), ("mixed", mix(human, llm).qrels)):
        c = compare(qrels, runs, ["nDCG@10"], baseline=baseline or "run0", test="t", correction="holm")
        records[version] = c.pair_records() if baseline is None else c.table_records()
    expected_rows = [r for r in records["human"] if r.get("system", r.get("system_a")) != r.get("baseline", r.get("system_b"))]
    assert len(got.comparisons) == len(expected_rows) == (6 if baseline is None else 3)

    def says(r):
        if not r["p_adjusted"] < 0.05:
            return "no significant difference"
        return "better" if r["delta"] > 0 else "worse"
    for entry in got.comparisons:
        conclusions = {}
        for v in ("human", "llm", "mixed"):
            r = next(r for r in records[v] if (r.get("system", r.get("system_a")), r.get("baseline", r.get("system_b")))
                     == (entry["system"], entry["baseline"]))
            assert entry[v]["p_adjusted"] == r["p_adjusted"] and entry[v]["conclusion"] == says(r)
            conclusions[v] = says(r)
        assert entry["flips"] == [v for v in ("llm", "mixed") if conclusions[v] != conclusions["human"]]
    assert got.flips() == [c for c in got.comparisons if c["flips"]]


def test_expected_score_is_exact_for_linear_measures_and_the_interval_is_seeded(tmp_path):
    human = {"q1": {"a": 1}, "q2": {"z": 0}}
    probs = {("q1", "a"): {"0": 0.2, "1": 0.5, "2": 0.3}, ("q1", "b"): {"0": 0.6, "2": 0.4},
             ("q2", "c"): {"1": 0.9, "3": 0.1}}
    path = tmp_path / "probs.jsonl"
    path.write_text("".join(json.dumps({"query": q, "doc": d, "probabilities": p}) + "\n" for (q, d), p in probs.items()))
    llm = {"q1": {"a": 1, "b": 0}, "q2": {"c": 1}}
    runs = {"x": {"q1": {"b": 3.0, "a": 2.0}, "q2": {"c": 1.0, "z": 0.5}},
            "y": {"q1": {"a": 3.0, "b": 2.0}, "q2": {"z": 1.0, "c": 0.5}}}
    linear = ["DCG@5", "RBP(p=0.6,gain=graded,max_grade=3)"]
    got = impact(human, llm, runs, [*linear, "nDCG@5", "P@1"], baseline="x", probabilities=path, draws=50, seed=3,
                 grades="real")
    # exact: the mean over every labelling, weighted by its probability
    pairs = list(probs)
    for version, run, measure in itertools.product(("llm", "mixed"), runs, linear):
        total = 0.0
        for combo in itertools.product(*[list(probs[p].items()) for p in pairs]):
            weight = np.prod([pr for _, pr in combo])
            qrels = {}
            for (q, d), (g, _) in zip(pairs, combo):
                qrels.setdefault(q, {})[d] = float(g)
            if version == "mixed":
                for q, docs in human.items():
                    qrels.setdefault(q, {}).update({d: float(g) for d, g in docs.items()})
            total += weight * rankmeter.evaluate_runs(qrels, {run: runs[run]}, [measure], grades="real")[run][measure]
        assert got.expected[measure][run][version]["expected"] == pytest.approx(total, abs=1e-12)
    for nonlinear in ("nDCG@5", "P@1"):
        assert got.expected[nonlinear]["x"]["llm"]["expected"] is None
        assert "not linear" in got.expected[nonlinear]["x"]["llm"]["undefined"]
    again = impact(human, llm, runs, [*linear, "nDCG@5", "P@1"], baseline="x", probabilities=path, draws=50,
                   seed=3, grades="real")
    assert again.expected == got.expected
    low, high = got.expected["DCG@5"]["x"]["llm"]["interval"]
    assert low <= high
    assert "expected score [interval]" in got.to_text()


def test_cli_impact_and_agree_and_sources(tmp_path, capsys):
    import sys

    from cli_runner import run_cli_in_process

    def cli(argv):
        result = run_cli_in_process(*argv)
        sys.stdout.write(result.stdout)
        return result.returncode

    human, llm, runs = _data(seed=2, queries=5, nruns=3)
    paths = {}
    for name, qrels in (("human", human), ("llm", llm)):
        paths[name] = tmp_path / f"{name}.qrels"
        paths[name].write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    run_paths = []
    for name, run in runs.items():
        path = tmp_path / f"{name}.run"
        path.write_text("".join(f"{q} Q0 {d} 1 {s} {name}\n" for q, docs in run.items() for d, s in docs.items()))
        run_paths.append(str(path))
    assert cli(["judges", "impact", str(paths["human"]), str(paths["llm"]), *run_paths, "-m", "P@5",
                "--format", "json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert [r["run"] for r in got["runs"]] == ["run0", "run1", "run2"] and len(got["comparisons"]) == 3
    assert cli(["agree", str(paths["human"]), str(paths["llm"]), "--rel", "2", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["rel"] == 2
    assert cli(["agree", str(paths["human"]), str(paths["llm"])]) == 0
    assert "Krippendorff's alpha, ordinal" in capsys.readouterr().out
    samples = tmp_path / "samples.qrels"
    samples.write_text("q 0 a 1\nq 0 a 2\nq 0 a 2\n")
    out = tmp_path / "agg.qrels"
    assert cli(["judges", "aggregate", str(samples), "--method", "mean", "-o", str(out)]) == 0
    assert out.read_text() == "q 0 a 1.6666666666666667\n"
    mixed, prov = tmp_path / "mixed.qrels", tmp_path / "prov.tsv"
    assert cli(["judges", "mix", str(paths["human"]), str(paths["llm"]), "-o", str(mixed), "--provenance", str(prov)]) == 0
    assert "human" in capsys.readouterr().out and prov.read_text().startswith("query\tdoc\tgrade\tsource\n")


def test_text_table_keeps_columns_aligned_and_the_unjudged_range_in_order():
    """Values >= 10 (DCG with grade 3) widened their cells past the header; nDCG can fall when the unjudged
    docs count as relevant (its ideal grows), which printed the range backwards (0.5446 .. 0.5255)."""
    from rankmeter.judges.label_impact import impact

    docs = [f"d{i}" for i in range(30)]
    human = {"q1": {d: 3 for d in docs[:20]}, "q2": {"d0": 1}}
    llm = {"q1": {d: 3 for d in docs[:25]}, "q2": {"d0": 1, "d1": 1}}
    runs = {"long": {q: {d: 30.0 - i for i, d in enumerate(docs)} for q in human},
            "short": {"q1": {d: 30.0 - i for i, d in enumerate(docs[:3])},
                      "q2": {"d0": 4.0, "d1": 3.0, "d5": 2.0, "d6": 1.0}}}  # unjudged d5, d6 below the cutoff
    got = impact(human, llm, runs, ["DCG", "nDCG@2"], baseline="long")
    dcg = {r["run"]: r["scores"]["DCG"] for r in got.runs}
    # hand check: trec_eval's DCG gains are the grades: q1 sums 3/log2(i+2) over its 20 relevant ranks, q2 has d0 first
    want = (sum(3 / np.log2(i + 2) for i in range(20)) + 1.0) / 2
    assert want > 10
    assert dcg["long"]["human"] == pytest.approx(want)
    ndcg_short = {r["run"]: r["scores"]["nDCG@2"] for r in got.runs}["short"]
    assert ndcg_short["unjudged_relevant"] < ndcg_short["mixed"]   # the case that printed backwards
    text = got.to_text()
    for block in text.split("\n\n"):
        table = [line for line in block.splitlines() if line.startswith("  ") and not line.startswith("    ")
                 and "comparisons" not in line]
        assert len({len(line) for line in table}) == 1, table     # every row as wide as the header
        for line in table[1:]:
            low, high = (float(x) for x in line.split()[-3::2])
            assert low <= high
