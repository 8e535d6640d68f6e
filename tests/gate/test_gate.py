"""rankmeter baseline / gate: provenance, refusals, the checks against the statistics on the evaluated values,
the four report formats, the ratchet, and the exit statuses of the command."""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import rankmeter
from rankmeter.gate.saved import baseline, load_baseline, save_baseline
from rankmeter.gate.checks import gate
from rankmeter.gate.one_sided import minimum_detectable_drop, regression_test
from rankmeter.stats.corrections import adjust
from rankmeter.errors import InputError, ParameterError


def _collection(tmp_path, queries=30, seed=0):
    rng = np.random.default_rng(seed)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"q{q} 0 d{d} {int(rng.integers(0, 3))}\n" for q in range(queries) for d in range(12)))
    return qrels


def _run(tmp_path, name, *, seed, quality=1.0, queries=30, tag=None):
    """A run that puts the relevant docs (d0..d11 graded at random) in a noisy order; quality < 1 shuffles more."""
    rng = np.random.default_rng(seed)
    path = tmp_path / f"{name}.run"
    lines = []
    grades = np.random.default_rng(0).integers(0, 3, (queries, 12))
    for q in range(queries):
        score = grades[q] * quality + rng.normal(0, 1.0, 12)
        docs = [f"d{d}" for d in range(12)] + [f"x{d}" for d in range(8)]
        scores = list(score) + list(rng.normal(-1, 1.0, 8))
        order = np.argsort(scores)[::-1]
        lines += [f"q{q} Q0 {docs[i]} {r + 1} {scores[i]:.6f} {tag or name}\n" for r, i in enumerate(order)]
    path.write_text("".join(lines))
    return path


def test_baseline_keeps_per_query_values_and_provenance(tmp_path):
    qrels = _collection(tmp_path)
    runs = [_run(tmp_path, f"rep{i}", seed=i) for i in range(3)]
    base = baseline(str(qrels), [str(r) for r in runs], ["nDCG@10", "AP"])
    want = [rankmeter.evaluate(str(qrels), str(r), ["nDCG@10"]) for r in runs]
    assert base.queries == want[0].queries
    assert base.values["nDCG(rel=1)@10"].tolist() == [w.values("nDCG@10").tolist() for w in want]
    assert [r["tag"] for r in base.runs] == ["rep0", "rep1", "rep2"] and len({r["digest"] for r in base.runs}) == 3
    assert base.qrels["judgments"] == 360 and len(base.qrels["digest"]) == 64
    shuffled = tmp_path / "shuffled.qrels"           # the same judgments in another order: the same digest
    shuffled.write_text("".join(reversed(qrels.read_text().splitlines(keepends=True))))
    assert baseline(str(shuffled), str(runs[0]), ["AP"]).qrels["digest"] == base.qrels["digest"]
    save_baseline(base, tmp_path / "base.json")
    again = load_baseline(tmp_path / "base.json")
    assert again.values["AP(rel=1)"].tolist() == base.values["AP(rel=1)"].tolist()
    assert again.options == base.options and again.measures == base.measures


def test_the_checks_are_the_tests_on_the_evaluated_values(tmp_path):
    qrels = _collection(tmp_path)
    base_runs = [str(_run(tmp_path, f"rep{i}", seed=i)) for i in range(2)]
    new = str(_run(tmp_path, "new", seed=9, quality=0.6))
    base = baseline(str(qrels), base_runs, ["nDCG@10", "P@5"])
    result = gate(str(qrels), new, base, margin=0.02, correction="holm")
    p_raw = []
    for check, measure in zip(result.checks, ["nDCG@10", "P@5"]):
        old = np.mean([rankmeter.evaluate(str(qrels), r, [measure]).values(measure) for r in base_runs], axis=0)
        d = rankmeter.evaluate(str(qrels), new, [measure]).values(measure) - old
        want = regression_test(d, margin=0.02)
        assert check["difference"] == pytest.approx(want["difference"]) and check["p_value"] == want["p_value"]
        assert check["mde"] == pytest.approx(minimum_detectable_drop(want["sd"], len(d), margin=0.02, alpha=0.025))
        p_raw.append(want["p_value"])
    assert [c["p_adjusted"] for c in result.checks] == adjust(np.array(p_raw), "holm").tolist()
    assert result.passed == (not any(c["regression"] for c in result.checks))
    assert result.noise and set(result.noise) == {"nDCG@10", "P@5"}


def test_a_clear_regression_fails_and_the_same_system_passes(tmp_path):
    qrels = _collection(tmp_path)
    base = baseline(str(qrels), [str(_run(tmp_path, f"rep{i}", seed=i, quality=2.0)) for i in range(3)], ["nDCG@10"])
    worse = gate(str(qrels), str(_run(tmp_path, "worse", seed=7, quality=0.0)), base)
    assert not worse.passed and worse.exit_status == 1 and worse.checks[0]["regression"]
    assert worse.worst["nDCG@10"] and all(w["difference"] < 0 for w in worse.worst["nDCG@10"])
    same = gate(str(qrels), str(_run(tmp_path, "same", seed=11, quality=2.0)), base)
    assert same.passed and same.exit_status == 0


def test_slices_are_checked_and_corrected_with_the_rest(tmp_path):
    qrels = _collection(tmp_path)
    slices = {"head": [f"q{i}" for i in range(10)], "tail": [f"q{i}" for i in range(10, 30)]}
    base = baseline(str(qrels), str(_run(tmp_path, "b", seed=1)), ["AP"], slices=slices)
    result = gate(str(qrels), str(_run(tmp_path, "n", seed=2)), base, correction="bonferroni")
    assert [(c["slice"], c["queries"]) for c in result.checks] == [(None, 30), ("head", 10), ("tail", 20)]
    assert [c["p_adjusted"] for c in result.checks] == [min(1.0, 3 * c["p_value"]) for c in result.checks]


def test_refuses_other_qrels_queries_and_options_unless_allowed(tmp_path):
    qrels = _collection(tmp_path)
    base = baseline(str(qrels), str(_run(tmp_path, "b", seed=1)), ["AP"])
    other = tmp_path / "other.qrels"
    other.write_text(qrels.read_text() + "q0 0 extra 1\n")
    new = str(_run(tmp_path, "n", seed=2))
    refused = gate(str(other), new, base)
    assert refused.refused and "judgments differ" in refused.refused and refused.exit_status == 2
    assert not refused.checks
    accepted = gate(str(other), new, base, allow=["qrels"])
    assert accepted.refused is None and "judgments differ" in accepted.changes[0]
    fewer = tmp_path / "fewer.run"
    fewer.write_text("".join(line for line in open(new) if not line.startswith("q29 ")))
    assert "queries differ: 1 of the baseline's not answered (e.g. 'q29')" in gate(str(qrels), str(fewer), base).refused
    allowed = gate(str(qrels), str(fewer), base, allow=["queries"])   # q29 counts as a loss, never dropped unsaid
    assert (allowed.checks[0]["queries"], allowed.checks[0]["unanswered"]) == (30, 1)
    assert "1 of the baseline's not answered (e.g. 'q29'): counted as losses" in allowed.changes[0]
    assert "judged_only=True" in gate(str(qrels), new, base, judged_only=True).refused
    assert "not in the baseline" in gate(str(qrels), new, base, ["nDCG@10"]).refused
    with pytest.raises(ParameterError, match="allow='everything'"):
        gate(str(qrels), new, base, allow=["everything"])
    with pytest.raises(ParameterError, match="margin=-1"):
        gate(str(qrels), new, base, margin=-1)


def test_unjudged_documents_at_the_top_are_reported(tmp_path):
    qrels = _collection(tmp_path)
    base = baseline(str(qrels), str(_run(tmp_path, "b", seed=1, quality=3.0)), ["P@10"])
    unjudged = tmp_path / "unjudged.run"   # the new run puts 5 unjudged docs first in every query
    unjudged.write_text("".join(f"q{q} Q0 new{d} {d + 1} {100 - d} u\n" for q in range(30) for d in range(5))
                        + open(tmp_path / "b.run").read().replace(" b\n", " u\n"))
    got = gate(str(qrels), str(unjudged), base).unjudged
    assert got["depth"] == 10 and got["new"] <= 0.5 < got["baseline"]   # at most 5 of each top 10 judged now
    assert got["queries_with_more_unjudged"] == 30


def test_load_baseline_refuses_what_is_not_one(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "something else"}')
    with pytest.raises(InputError, match="not a baseline"):
        load_baseline(bad)
    bad.write_text("{")
    with pytest.raises(InputError, match="not valid JSON"):
        load_baseline(bad)


def test_command_line_exit_statuses_and_formats(cli, tmp_path):
    qrels = _collection(tmp_path)
    reps = [str(_run(tmp_path, f"rep{i}", seed=i, quality=2.0)) for i in range(2)]
    done = cli("baseline", str(qrels), *reps, "-m", "nDCG@10", "-m", "AP", "-o", str(tmp_path / "base.json"))
    assert done.code == 0, done.err
    good, bad = str(_run(tmp_path, "good", seed=5, quality=2.0)), str(_run(tmp_path, "bad", seed=6, quality=0.0))
    base = ["--baseline", str(tmp_path / "base.json")]
    assert cli("gate", str(qrels), good, *base).code == 0
    failed = cli("gate", str(qrels), bad, *base, "--format", "json")
    assert failed.code == 1
    data = json.loads(failed.out)
    assert data["passed"] is False and data["refused"] is None
    for check in data["checks"]:
        assert {"measure", "slice", "baseline", "new", "difference", "low", "high", "p_value", "mde",
                "regression"} <= set(check)
    junit = ET.fromstring(cli("gate", str(qrels), bad, *base, "--format", "junit").out)
    assert junit.find("testsuite").get("failures") == "2" and len(junit.findall(".//failure")) == 2
    markdown = cli("gate", str(qrels), bad, *base, "--format", "markdown").out
    assert markdown.startswith("### ❌ rankmeter gate") and "| nDCG@10 | all queries |" in markdown
    refused = cli("gate", str(qrels), good, *base, "--rel", "2", "--format", "json")
    assert refused.code == 2 and json.loads(refused.out)["refused"] and "refused" in refused.err
    assert cli("gate", str(qrels), good, *base, "--margin", "-0.1").code == 2
    assert cli("baseline", str(qrels), good, "-m", "AP", "-o", good).code == 2   # never over an input


def test_the_ratchet_only_goes_up(cli, tmp_path):
    qrels = _collection(tmp_path)
    path = tmp_path / "base.json"
    assert cli("baseline", str(qrels), str(_run(tmp_path, "v1", seed=1, quality=1.0)), "-m", "nDCG@10",
               "-o", str(path)).code == 0
    before = path.read_text()
    bad = str(_run(tmp_path, "bad", seed=2, quality=0.0))
    done = cli("gate", str(qrels), bad, "--baseline", str(path), "--update-baseline")
    assert done.code == 1 and "baseline kept: the run regressed" in done.err and path.read_text() == before
    same = str(_run(tmp_path, "same", seed=3, quality=1.0))
    done = cli("gate", str(qrels), same, "--baseline", str(path), "--update-baseline", "--only-if-better")
    assert "not significantly better" in done.err and path.read_text() == before
    better = str(_run(tmp_path, "better", seed=4, quality=3.0))
    done = cli("gate", str(qrels), better, "--baseline", str(path), "--update-baseline", "--only-if-better")
    assert done.code == 0 and "baseline replaced" in done.err, done.err
    now = load_baseline(path)
    assert now.runs[0]["tag"] == "better" and now.history[0]["runs"][0]["tag"] == "v1"


def _dict_files(tmp_path, lowered: int, queries: int = 50):
    """Judgments with one relevant doc per query and a run that ranks it first except in ``lowered`` queries
    (second there): RR drops by 0.5 / queries per lowered query."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"q{i} 0 a 1\nq{i} 0 b 0\n" for i in range(queries)))
    run = tmp_path / f"run{lowered}.txt"
    run.write_text("".join(f"q{i} Q0 a 1 {0.3 if i < lowered else 0.9} r{lowered}\nq{i} Q0 b 2 0.6 r{lowered}\n"
                           for i in range(queries)))
    return str(qrels), str(run)


def test_the_ratchet_never_walks_down_unless_allowed_and_keeps_every_baseline(cli, tmp_path):
    qrels, first = _dict_files(tmp_path, 0)
    path = tmp_path / "base.json"
    assert cli("baseline", qrels, first, "-m", "RR", "-o", path).code == 0
    original = path.read_bytes()
    for lowered in (1, 2, 3):   # RR 1.0 -> 0.99 -> 0.98 -> 0.97: each within the margin of 0.05, each passes
        _, run = _dict_files(tmp_path, lowered)
        done = cli("gate", qrels, run, "--baseline", path, "--margin", "0.05", "--update-baseline")
        assert done.code == 0 and f"baseline kept: the run is lower on 1 check(s): RR (all queries) -0.0{lowered};" \
            in done.err, done.err
        assert path.read_bytes() == original
    assert not (tmp_path / "base.history").exists()
    kept = []
    for lowered in (1, 2, 3):   # asked to: it walks down, and every replaced file is kept, numbered
        kept.append(path.read_bytes())
        _, run = _dict_files(tmp_path, lowered)
        done = cli("gate", qrels, run, "--baseline", path, "--margin", "0.05", "--update-baseline", "--allow-lower")
        assert done.code == 0 and f"the old one kept as base.history/000{lowered}.json" in done.err, done.err
    history = sorted((tmp_path / "base.history").iterdir())
    assert [p.name for p in history] == ["0001.json", "0002.json", "0003.json"]
    assert [p.read_bytes() for p in history] == kept and kept[0] == original
    now = load_baseline(path)
    assert now.values["RR(rel=1)"].mean() == pytest.approx(0.97)
    assert [h["runs"][0]["tag"] for h in now.history] == ["r0", "r1", "r2"]
    assert [h["file"] for h in now.history] == [f"base.history/000{i}.json" for i in (1, 2, 3)]


def test_the_ratchet_in_python_moves_only_up_too(tmp_path):
    from rankmeter.gate.ratchet import update_baseline
    qrels, first = _dict_files(tmp_path, 1)
    path = tmp_path / "base.json"
    save_baseline(baseline(qrels, first, ["RR"]), path)
    base = load_baseline(path)
    _, lower = _dict_files(tmp_path, 2)
    result = gate(qrels, lower, base, margin=0.05)
    assert result.passed
    assert update_baseline(base, result, qrels, lower, path)[0] is False
    assert update_baseline(base, result, qrels, lower, path, allow_lower=True)[0] is True
    _, higher = _dict_files(tmp_path, 0)
    base = load_baseline(path)
    replaced, why = update_baseline(base, gate(qrels, higher, base), qrels, higher, path)
    assert replaced and "base.history/0002.json" in why
    assert load_baseline(path).values["RR(rel=1)"].mean() == 1.0


def test_allowed_missing_queries_count_as_losses(tmp_path):
    qrels, run = _dict_files(tmp_path, 0, queries=20)
    base = baseline(qrels, run, ["RR"])
    fewer = tmp_path / "fewer.txt"          # the run no longer answers 10 queries: RR 1.0 on 10, nothing on 10
    fewer.write_text("".join(line for line in open(run) if int(line.split()[0][1:]) < 10))
    refused = gate(qrels, str(fewer), base)
    assert refused.refused.startswith("the queries differ: 10 of the baseline's not answered (e.g. 'q10', 'q11', "
                                      "'q12', ...)")
    assert "new" not in refused.refused.split("(rankmeter")[0]         # none of them is called new
    allowed = gate(qrels, str(fewer), base, allow=["queries"])
    check = allowed.checks[0]
    assert (check["queries"], check["unanswered"], check["new"], check["difference"]) == (20, 10, 0.5, -0.5)
    assert check["regression"] and not allowed.passed                  # a loss, not dropped in silence
    smaller = baseline(qrels, str(fewer), ["RR"])   # the other way: the run answers 10 queries more
    more = gate(qrels, run, smaller)
    assert more.refused.startswith("the queries differ: 10 new, not in the baseline (e.g. 'q10', 'q11', 'q12', ...)")
    compared = gate(qrels, run, smaller, allow=["queries"])
    assert compared.passed and compared.checks[0]["queries"] == 10 and "not compared" in compared.changes[0]
