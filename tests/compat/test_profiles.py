"""Protocol presets (--profile), ignore_self and the lint for suspicious numbers.

Oracles: pytrec_eval called with BEIR's exact settings (BEIR's EvaluateRetrieval.evaluate pops docs equal to the
query id, then asks pytrec_eval for map_cut, ndcg_cut, recall and P at its k values: BEIR itself is not installed),
MS MARCO's MRR@10 rule (first 10 results, the sum over the qrels queries), trec_eval -c -l 2 -M 1000 through
pytrec_eval's relevance_level and judged-query filling, and hand-built cases for the lint.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from optional_packages import optional

import rankmeter
from rankmeter.check.lint import lint
from rankmeter.compat.profiles import PROFILES, profile
from rankmeter.cli.presets import NAMES

pytrec_eval = optional("pytrec_eval")


def _case(seed, n_q=8, n_d=30, self_ids=True):
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for i in range(n_q):
        docs = [f"d{j}" for j in range(n_d)]
        qrels[f"q{i}"] = {d: int(rng.integers(0, 4)) for d in rng.choice(docs, 12, replace=False)}
        scores = rng.integers(0, 6, n_d).astype(float)
        run[f"q{i}"] = {d: float(s) for d, s in zip(docs, scores)}
        if self_ids and i % 2 == 0:
            run[f"q{i}"][f"q{i}"] = 9.0          # the query's own id, ranked first
            qrels[f"q{i}"][f"q{i}"] = 1          # and judged relevant: counted unless dropped
    qrels["q_unretrieved"] = {"d1": 2}
    return qrels, run


def _close(a, b, tol=1e-12):
    return abs(a - b) <= tol


def test_names_and_precedence():
    assert tuple(PROFILES) == NAMES
    p = profile("trec-dl")
    measures, options = p.settings()
    assert measures == list(p.measures) and options == p.options
    measures, options = p.settings(["P@5"], rel=1)
    assert measures == ["P@5"] and options["rel"] == 1 and options["queries"] == "qrels"
    with pytest.raises(rankmeter.ParameterError, match="^profile='nope': expected one of 'beir', 'mteb'"):
        profile("nope")


@pytest.mark.parametrize("seed", range(5))
def test_beir_profile_equals_pytrec_eval_with_beirs_settings(seed):
    qrels, run = _case(seed)
    k = [1, 3, 5, 10, 100, 1000]
    popped = {q: {d: s for d, s in docs.items() if d != q} for q, docs in run.items()}   # BEIR's loop
    want = pytrec_eval.RelevanceEvaluator(qrels, {"map_cut." + ",".join(map(str, k)), "ndcg_cut." + ",".join(
        map(str, k)), "recall." + ",".join(map(str, k)), "P." + ",".join(map(str, k))}).evaluate(popped)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = profile("beir").evaluate(qrels, run)
    names = {"nDCG": "ndcg_cut", "AP": "map_cut", "R": "recall", "P": "P"}
    for family, key in names.items():
        for cut in k:
            mean = sum(v[f"{key}_{cut}"] for v in want.values()) / len(want)
            assert round(got[f"{family}@{cut}"], 5) == round(mean, 5), (family, cut)
            assert _close(got[f"{family}@{cut}"], mean, 1e-9), (family, cut)


def test_msmarco_dev_profile_is_the_official_mrr_at_10():
    qrels, run = _case(3, self_ids=False)
    got = profile("msmarco-dev").evaluate(qrels, run)["RR@10"]
    total = 0.0
    for q, judged in qrels.items():   # ms_marco_eval.py: the first 10 results, the sum over the qrels' queries
        relevant = {d for d, g in judged.items() if g >= 1}
        ranked = sorted(run.get(q, {}).items(), key=lambda kv: (-kv[1], [-ord(c) for c in kv[0]]))[:10]
        total += next((1 / (i + 1) for i, (d, _) in enumerate(ranked) if d in relevant), 0.0)
    assert _close(got, total / len(qrels))


@pytest.mark.parametrize("name, trec", [("trec-dl", {"nDCG@10": "ndcg_cut_10", "RR": "recip_rank", "AP": "map",
                                                   "R@100": "recall_100", "R@1000": "recall_1000"}),
                                        ("trec-rag", {"nDCG@20": "ndcg_cut_20", "nDCG@100": "ndcg_cut_100",
                                                      "R@100": "recall_100"})])
def test_trec_profiles_equal_trec_eval_c_l2(name, trec):
    qrels, run = _case(4, self_ids=False)
    # trec_eval -c: a judged query the run lacks scores 0 (pytrec_eval: an empty ranking); -l 2
    filled = {**{q: {} for q in qrels}, **run}
    want = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10,20,100", "recip_rank", "map", "recall.100,1000"},
                                          relevance_level=2).evaluate(filled)
    got = profile(name).evaluate(qrels, run)
    for ours, key in trec.items():
        assert _close(got[ours], sum(v[key] for v in want.values()) / len(qrels), 1e-9), ours


FAMILIES = ["nDCG@10", "AP", "RR", "P@5", "R@10", "Success@3", "bpref", "Rprec", "ERR@10", "NumRet", "infAP"]


@pytest.mark.parametrize("measure", FAMILIES)
def test_ignore_self_equals_dropping_the_docs_first_for_every_family(measure):
    qrels, run = _case(1)
    popped = {q: {d: s for d, s in docs.items() if d != q} for q, docs in run.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = rankmeter.evaluate(qrels, run, measure, ignore_self=True)
        want = rankmeter.evaluate(qrels, popped, measure)
        kept = rankmeter.evaluate(qrels, run, measure)
    assert got.queries == want.queries
    assert np.allclose(got.values(measure), want.values(measure), equal_nan=True)
    assert not np.allclose(kept.values(measure), want.values(measure), equal_nan=True) or measure == "Rprec"


def test_ignore_self_keeps_a_query_it_empties_as_pytrec_eval_does_for_beir():
    qrels = {"q1": {"d1": 1}, "q2": {"d2": 1}}
    run = {"q1": {"q1": 1.0}, "q2": {"d2": 1.0}}
    want = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"}).evaluate({"q1": {}, "q2": {"d2": 1.0}})
    got = rankmeter.evaluate(qrels, run, "nDCG@10", ignore_self=True)
    assert got.queries == ["q1", "q2"] and _close(got["nDCG@10"], np.mean([v["ndcg_cut_10"] for v in want.values()]))


def test_ignore_self_streamed_equals_in_memory(tmp_path):
    qrels, run = _case(2)
    path = tmp_path / "run.txt"
    path.write_text("".join(f"{q} Q0 {d} 0 {s} t\n" for q, docs in run.items() for d, s in docs.items()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = rankmeter.evaluate(qrels, str(path), ["nDCG@10", "AP"], ignore_self=True, executor="streamed")
        b = rankmeter.evaluate(qrels, run, ["nDCG@10", "AP"], ignore_self=True)
    assert a.mean == b.mean


def test_lint_constant_scorer_ties_do_the_work():
    """mteb #5092: every doc scores 0 and the relevant one is listed first; in input order MRR@10 is 1."""
    qrels = {f"q{i}": {f"doc{i}": 1, **{f"x{i}{j}": 0 for j in range(9)}} for i in range(4)}
    run = {f"q{i}": {f"doc{i}": 0.0, **{f"x{i}{j}": 0.0 for j in range(9)}} for i in range(4)}
    found = {f.code: f for f in lint(qrels, run, ["RR@10"], ties="input")}
    assert set(found) == {"ties_decide"} and found["ties_decide"].details["worst"] == 0.1
    assert lint(qrels, {q: {d: float(-i) for i, d in enumerate(docs)} for q, docs in run.items()},
                ["RR@10"], ties="input") == []   # the same ranking by real scores: nothing suspicious


def test_lint_ties_check_scores_only_the_first_whole_queries_of_a_big_run(monkeypatch):
    """A run bigger than the sample: the worst order is scored on its first whole queries only (the
    evaluation's cost stays one pass), and the finding says so; the tie pattern of the test above."""
    from rankmeter.check import lint as lint_module
    monkeypatch.setattr(lint_module, "_SAMPLE", 25)          # 2.5 queries of 10 rows: the first 2 whole ones
    qrels = {f"q{i}": {f"doc{i}": 1, **{f"x{i}{j}": 0 for j in range(9)}} for i in range(6)}
    run = {f"q{i}": {f"doc{i}": 0.0, **{f"x{i}{j}": 0.0 for j in range(9)}} for i in range(6)}
    (found,) = lint(qrels, run, ["RR@10"], ties="input")
    assert found.code == "ties_decide" and found.details["value"] == 1.0 and found.details["worst"] == 0.1
    assert "first 2 queries" in found.message


def test_lint_unjudged_top_and_self_id():
    pool = {f"p{j}": 0 for j in range(10)}   # pooled judgments (10 a query): a top 10 could be all judged
    qrels = {"q1": {"a": 1, **pool}, "q2": {"b": 1, **pool}}
    run = {"q1": {"q1": 5.0, "u1": 4.0, "u2": 3.0, "a": 2.0}, "q2": {"b": 3.0, "u3": 2.0, "u4": 1.0}}
    found = {f.code: f for f in lint(qrels, run, ["nDCG@10"])}
    assert set(found) == {"unjudged_top", "self_id"}
    assert found["self_id"].details["queries"] == ["q1"]
    assert _close(found["unjudged_top"].details["judged@10"], (1 / 4 + 1 / 3) / 2)   # Judged@10, per query
    assert "self_id" not in {f.code for f in lint(qrels, run, ["nDCG@10"], ignore_self=True)}
    sparse = {"q1": {"a": 1}, "q2": {"b": 1}}   # one judgment a query (MS MARCO): no top 10 could be judged
    assert "unjudged_top" not in {f.code for f in lint(sparse, run, ["nDCG@10"])}


def test_lint_value_out_of_range():
    from rankmeter.check.lint import lint_results
    from rankmeter.core.results import Results
    from rankmeter.measures.names import resolve_name
    (label, m), = resolve_name("nDCG@10")
    bad = Results([b"q1", b"q2"], [(label, m)], {m: np.array([0.5, 1.2])})
    (f,) = lint_results(bad, "run")
    assert f.code == "out_of_range" and f.details["queries"] == ["q2"]
    good = Results([b"q1"], [(label, m)], {m: np.array([1.0])})
    assert lint_results(good) == []


def test_cli_profile_flags_override_and_lint_warnings(cli, tmp_path):
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text("q1 0 d1 1\nq2 0 d2 1\nq3 0 d3 1\n")
    run.write_text("".join(f"q{i} Q0 {d} 0 0.0 t\n" for i in (1, 2) for d in [f"d{i}", "x1", "x2", f"q{i}"]))
    out = cli("eval", str(qrels), str(run), "--profile", "msmarco-dev", "--format", "json")
    import json
    data = json.loads(out.out)
    assert data["options"]["queries"] == "qrels" and data["measures"] == ["RR@10"]
    out = cli("eval", str(qrels), str(run), "--profile", "msmarco-dev", "--queries", "both", "-m", "P@1",
              "--ignore-self", "--ties", "input", "--format", "json")
    data = json.loads(out.out)
    assert data["options"]["queries"] == "both" and data["measures"] == ["P@1"] and data["options"]["ignore_self"]
    assert data["runs"][0]["mean"]["P@1"] == 1.0
    warned = [line for line in out.err.splitlines() if line.startswith("rankmeter: warning:")]
    assert any("worst order" in line for line in warned)
    quiet = cli("eval", str(qrels), str(run), "--profile", "msmarco-dev", "-m", "P@1", "--ignore-self",
                "--ties", "input", "--no-lint")
    assert "worst order" not in quiet.err
    bad = cli("eval", str(qrels), str(run), "--profile", "trec")
    assert bad.code == 2 and "trec" in bad.err


def test_ranks_given_as_scores_are_warned_for_a_streamed_run_too(tmp_path):
    qrels = {"q1": {"a": 1}, "q2": {"c": 1}}
    path = tmp_path / "run.txt"
    path.write_text("q1 Q0 a 1 1 t\nq1 Q0 b 2 2 t\nq2 Q0 c 1 1 t\nq2 Q0 d 2 2 t\nq2 Q0 e 3 3 t\n")
    for executor in ("memory", "streamed"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            rankmeter.evaluate(qrels, str(path), "RR", executor=executor)
        assert any("exactly 1, 2, 3" in str(w.message) for w in caught), executor
    path.write_text("q1 Q0 a 1 1 t\nq1 Q0 b 2 2 t\nq2 Q0 c 1 1.5 t\nq2 Q0 d 2 2 t\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rankmeter.evaluate(qrels, str(path), "RR", executor="streamed")
    assert not any("exactly 1, 2, 3" in str(w.message) for w in caught)


def test_check_names_self_ids_and_ties_deciding_the_value(cli, tmp_path):
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text("".join(f"q{i} 0 z{i} 1\n" for i in range(3)))
    # every doc scores 0; docno descending puts z{i} first, the query's own id second
    run.write_text("".join(f"q{i} Q0 {d} 0 0.0 t\n" for i in range(3) for d in (f"z{i}", f"q{i}", "a", "b")))
    out = cli("check", str(qrels), str(run), "--format", "json")
    import json
    codes = {f["code"] for f in json.loads(out.out)["findings"]}
    assert {"self_id", "ties_decide"} <= codes and "unjudged_top" not in codes


def test_gate_reads_a_baseline_saved_before_ignore_self_as_false(cli, tmp_path):
    import json
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text("".join(f"q{i} 0 d{i} 1\n" for i in range(6)))
    run.write_text("".join(f"q{i} Q0 d{i} 1 2.0 t\nq{i} Q0 x 2 1.0 t\n" for i in range(6)))
    base = tmp_path / "base.json"
    assert cli("baseline", str(qrels), str(run), "--profile", "msmarco-dev", "-o", str(base)).code == 0
    data = json.loads(base.read_text())
    assert data["options"]["queries"] == "qrels" and data["options"]["ignore_self"] is False
    del data["options"]["ignore_self"]          # as a baseline written before the option existed
    base.write_text(json.dumps(data))
    assert cli("gate", str(qrels), str(run), "--baseline", str(base), "--profile", "msmarco-dev").code == 0
    refused = cli("gate", str(qrels), str(run), "--baseline", str(base), "--profile", "beir")
    assert refused.code == 2 and "ignore_self" in refused.out + refused.err


def test_compare_under_a_profile_tests_its_main_measure_with_its_options(cli, tmp_path):
    import json
    qrels, a, b = tmp_path / "q.txt", tmp_path / "a.txt", tmp_path / "b.txt"
    qrels.write_text("".join(f"q{i} 0 d{i} 2\nq{i} 0 e{i} 1\n" for i in range(8)))
    a.write_text("".join(f"q{i} Q0 e{i} 1 2.0 a\nq{i} Q0 d{i} 2 1.0 a\n" for i in range(8)))
    b.write_text("".join(f"q{i} Q0 d{i} 1 2.0 b\nq{i} Q0 e{i} 2 1.0 b\n" for i in range(7)))
    out = json.loads(cli("compare", str(qrels), str(a), str(b), "--profile", "trec-dl", "--format", "json").out)
    want = rankmeter.profile("trec-dl").compare(str(qrels), [str(a), str(b)])
    assert out["measures"] == ["nDCG@10"] == want.measures
    # -c: q7, which run b lacks, is compared as a 0 (rel=2 for the binary measures; nDCG reads the grades)
    got = rankmeter.evaluate(str(qrels), str(b), "RR", queries="qrels", rel=2)
    assert _close(rankmeter.profile("trec-dl").evaluate(str(qrels), str(b), ["RR"])["RR"], got["RR"])
    assert _close(got["RR"], 7 / 8)
