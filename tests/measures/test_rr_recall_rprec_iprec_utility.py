"""trec_eval measure families, part A: RR, Success, R, F/F1, SetAP, RelativeP,
Rprec, RprecMult, IPrec, IPrecAvg and Utility.

Three kinds of checks:

* hand-computed values on small rankings (empty ranking, R = 0, unjudged docs,
  graded judgments, tied scores across a cutoff), through ``rankmeter.evaluate``;
* a plain per-query reference implementation (loops written from trec_eval
  10.0's definitions) against the vectorised kernels on random data;
* every line of these measures in trec_eval 10.0's golden outputs.
"""
from __future__ import annotations

import random
import re
import shlex
import sys
from functools import lru_cache
from io import BytesIO, StringIO
from pathlib import Path

import pytest

import rankmeter
from rankmeter import MeasureError, parse_measure
from rankmeter.measures.trec_eval import expand
from rankmeter.cli.trec_eval import run

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import reference  # noqa: E402
from reference import REFERENCE  # noqa: E402

GOLDEN = Path(__file__).resolve().parent.parent / "golden"

# --------------------------------------------------------------------------- hand-computed cases
#
# q1: R = 5 at rel >= 1 (a, b, c, d, g), R = 1 at rel >= 2 (c); g is not retrieved.
#     ranking a e x b c f d  -> grades 1 0 (unjudged) 1 2 0 1; relevant at ranks 1, 4, 5, 7.
#     precision at ranks 1..7: 1, 1/2, 1/3, 2/4, 3/5, 3/6, 4/7.
# q2: R = 0 (only non-relevant judgments), two docs retrieved.
# q3: R = 1, nothing retrieved (scored because queries="qrels").
QRELS = {
    "q1": {"a": 1, "b": 1, "c": 2, "d": 1, "e": 0, "f": 0, "g": 1},
    "q2": {"h": 0, "i": 0},
    "q3": {"j": 1},
}
RUN = {
    "q1": ["a", "e", "x", "b", "c", "f", "d"],
    "q2": ["h", "z"],
}


def per_query(measure, **kwargs):
    res = rankmeter.evaluate(QRELS, RUN, [measure], queries="qrels", **kwargs)
    assert res.queries == ["q1", "q2", "q3"]
    return [float(v) for v in res.values(measure)]


HAND = [
    # RR: first relevant at rank 1
    ("RR", [1.0, 0.0, 0.0]),
    ("RR@1", [1.0, 0.0, 0.0]),
    ("RR(rel=2)", [1 / 5, 0.0, 0.0]),
    ("RR(rel=2)@4", [0.0, 0.0, 0.0]),
    ("RR(rel=2)@5", [1 / 5, 0.0, 0.0]),
    ("Success@1", [1.0, 0.0, 0.0]),
    ("Success(rel=2)@4", [0.0, 0.0, 0.0]),
    ("Success(rel=2)@5", [1.0, 0.0, 0.0]),
    ("Success", [1.0, 0.0, 0.0]),
    # recall
    ("R@3", [1 / 5, 0.0, 0.0]),
    ("R@5", [3 / 5, 0.0, 0.0]),
    ("R@100", [4 / 5, 0.0, 0.0]),
    ("R", [4 / 5, 0.0, 0.0]),
    ("R(rel=2)@4", [0.0, 0.0, 0.0]),
    ("R(rel=2)", [1.0, 0.0, 0.0]),
    # F: set P = 4/7, set R = 4/5
    ("F", [2 / 3, 0.0, 0.0]),
    ("F1", [2 / 3, 0.0, 0.0]),
    ("F(beta=2)", [5 * (4 / 7) * 0.8 / (4 * (4 / 7) + 0.8), 0.0, 0.0]),   # 16/21.6
    ("F(beta=0)", [4 / 7, 0.0, 0.0]),                                     # beta = 0 is precision
    ("F1@5", [0.6, 0.0, 0.0]),                                            # P@5 = R@5 = 3/5
    ("F1@2", [2 * 0.5 * 0.2 / 0.7, 0.0, 0.0]),                            # P@2 = 1/2, R@2 = 1/5
    ("F(beta=2)@10", [5 * 0.4 * 0.8 / (4 * 0.4 + 0.8), 0.0, 0.0]),        # P@10 = 4/10 (padded)
    # SetAP = rel_ret^2 / (ret * R)
    ("SetAP", [16 / 35, 0.0, 0.0]),
    # RelativeP: relevant in top k / min(k, R)
    ("RelativeP@3", [1 / 3, 0.0, 0.0]),
    ("RelativeP@4", [2 / 4, 0.0, 0.0]),
    ("RelativeP@7", [4 / 5, 0.0, 0.0]),
    ("RelativeP@20", [4 / 5, 0.0, 0.0]),
    ("RelativeP", [4 / 5, 0.0, 0.0]),
    # Rprec: top 5 holds 3 relevant
    ("Rprec", [3 / 5, 0.0, 0.0]),
    ("Rprec(rel=2)", [0.0, 0.0, 0.0]),
    # RprecMult: rank floor(m*R + 0.9)
    ("RprecMult(mult=0.2)", [1.0, 0.0, 0.0]),       # rank 1
    ("RprecMult(mult=0.4)", [1 / 2, 0.0, 0.0]),     # rank 2
    ("RprecMult", [3 / 5, 0.0, 0.0]),               # rank 5
    ("RprecMult(mult=2)", [4 / 10, 0.0, 0.0]),      # rank 10, past the end
    ("RprecMult(mult=0.1)", [1.0, 0.0, 0.0]),       # 0.5 + 0.9 -> rank 1 (trec_eval's +0.9 rule)
    # IPrec: count = lround(r * 5); interpolated precision at the count-th relevant doc
    # suffix max of precision at ranks 1..7: 1, .6, .6, .6, .6, 4/7, 4/7
    ("IPrec@0", [1.0, 0.0, 0.0]),
    ("IPrec@0.1", [1.0, 0.0, 0.0]),                 # 0.5 -> 1 (half away from zero)
    ("IPrec@0.25", [1.0, 0.0, 0.0]),                # 1.25 -> 1 (9.x's +0.9 rule would give 2: 0.6)
    ("IPrec@0.3", [0.6, 0.0, 0.0]),                 # 1.5 -> 2
    ("IPrec@0.5", [0.6, 0.0, 0.0]),                 # 2.5 -> 3
    ("IPrec@0.8", [4 / 7, 0.0, 0.0]),               # 4
    ("IPrec@0.9", [0.0, 0.0, 0.0]),                 # 4.5 -> 5 > 4 relevant retrieved
    ("IPrec@1", [0.0, 0.0, 0.0]),
    ("IPrec(rel=2)@0.5", [1 / 5, 0.0, 0.0]),        # count 1, rank 5: max(1/5, 1/6, 1/7)
    ("IPrecAvg", [229 / 385, 0.0, 0.0]),            # (1+1+1+.6+.6+.6+.6+4/7+4/7+0+0) / 11
    ("IPrecAvg(recalls=[0.5, 0.25, 0.9])", [(0.6 + 1.0 + 0.0) / 3, 0.0, 0.0]),
    ("IPrecAvg(recalls=[0.25, 0.25])", [1.0, 0.0, 0.0]),
    # Utility: a = rel ret, b = nonrel (or unjudged) ret, c = rel not ret, d = rest of the collection
    ("Utility", [4 - 3, -2.0, 0.0]),
    ("Utility(rel_ret=2, nonrel_ret=-1, rel_nonret=-0.5)", [8 - 3 - 0.5, -2.0, -0.5]),
    ("Utility(nonrel_nonret=0.1, num_docs=100)", [1 + 0.1 * (100 + 4 - 7 - 5), -2 + 0.1 * 98, 0.1 * 99]),
]


@pytest.mark.parametrize("name, expected", HAND, ids=[h[0] for h in HAND])
def test_hand_computed(name, expected):
    assert per_query(name) == pytest.approx(expected, abs=1e-12)


def test_judged_only_closes_gaps():
    # without x, q1's ranking is a e b c f d: the top 3 hold a and b
    assert per_query("R@3") == pytest.approx([1 / 5, 0, 0])
    assert per_query("R(judged_only=true)@3") == pytest.approx([2 / 5, 0, 0])
    assert per_query("R@3", judged_only=True) == pytest.approx([2 / 5, 0, 0])
    # Utility: the unjudged doc no longer counts as non-relevant retrieved
    assert per_query("Utility(judged_only=true)") == pytest.approx([4 - 2, -1, 0])


def test_rel_threshold_from_evaluate():
    assert per_query("Rprec", rel=2) == pytest.approx([0.0, 0.0, 0.0])    # R = 1, top 1 is a (grade 1)
    assert per_query("RR", rel=2) == pytest.approx([0.2, 0.0, 0.0])
    assert per_query("RprecMult(mult=5)", rel=2) == pytest.approx([1 / 5, 0.0, 0.0])  # floor(5.9) = 5


def test_means():
    res = rankmeter.evaluate(QRELS, RUN, ["RR", "Utility", "SetAP"], queries="qrels")
    assert res["RR"] == pytest.approx(1 / 3)
    assert res["Utility"] == pytest.approx((1 - 2 + 0) / 3)
    assert res["SetAP"] == pytest.approx(16 / 35 / 3)


def test_tied_scores_across_a_cutoff():
    # o scores highest; m and n tie and trec_eval orders ties by docno descending: o, n, m
    qrels = {"q": {"m": 1, "n": 0}}
    run_ = {"q": {"m": 1.0, "n": 1.0, "o": 2.0}}
    res = rankmeter.evaluate(qrels, run_, ["RR", "RR@2", "Success@2", "Success@3", "R@2", "R@3",
                                           "RelativeP@2", "F1@3", "IPrec@1"])
    assert res["RR"] == pytest.approx(1 / 3)
    assert res["RR@2"] == 0.0
    assert res["Success@2"] == 0.0
    assert res["Success@3"] == 1.0
    assert res["R@2"] == 0.0
    assert res["R@3"] == 1.0
    assert res["RelativeP@2"] == 0.0
    assert res["F1@3"] == pytest.approx(2 * (1 / 3) * 1 / (1 / 3 + 1))
    assert res["IPrec@1"] == pytest.approx(1 / 3)


def test_empty_ranking_everything_zero():
    # q is judged but absent from the run: with queries="qrels" it scores as an empty ranking
    qrels = {"q": {"a": 1, "b": 1}, "other": {"o": 1}}
    names = ["RR", "RR@10", "Success@5", "R@5", "R", "F", "F1@5", "SetAP", "RelativeP@5", "RelativeP",
             "Rprec", "RprecMult(mult=0.5)", "IPrec@0", "IPrec@0.5", "IPrecAvg", "Utility",
             "Utility(rel_nonret=-1)"]
    res = rankmeter.evaluate(qrels, {"other": ["o"]}, names, queries="qrels")
    assert res.queries == ["other", "q"]
    for name in names[:-1]:
        assert res.values(name)[1] == 0.0, name
    assert res.values("Utility(rel_nonret=-1)")[1] == -2.0   # the two relevant docs were not retrieved

def test_names_and_parameters():
    assert str(parse_measure("F1@10")) == "F1@10"
    assert str(parse_measure("F(beta=2)@10")) == "F(beta=2)@10"
    assert str(parse_measure("IPrec@0.25")) == "IPrec@0.25"
    assert parse_measure("IPrec@1").cutoff == 1.0
    assert str(parse_measure("RprecMult(mult=0.4)")) == "RprecMult(mult=0.4)"
    assert str(parse_measure("IPrecAvg")) == "IPrecAvg"
    for bad in ["IPrec", "Rprec@10", "SetAP@5", "Utility@5", "IPrecAvg@3", "F(beta=-1)", "F1(beta=2)"]:
        with pytest.raises(MeasureError):
            parse_measure(bad)
    with pytest.raises(MeasureError):
        rankmeter.evaluate(QRELS, RUN, ["IPrecAvg(recalls=[])"], queries="qrels")


def test_trec_names_map_to_families():
    by_label = {label: m for label, _, m in expand(["set_F.4", "11pt_avg..5,.25,.5", "utility.2,-1,0,0",
                                                    "Rprec_mult.0.2", "iprec_at_recall..3", "success.2",
                                                    "relative_P.5", "set_map", "recip_rank"])}
    assert by_label["set_F_4"] == parse_measure("F(beta=2)")          # x = beta^2
    assert by_label["11pt_avg_.5,.25,.5"].get("recalls") == (0.5, 0.25, 0.5)
    assert by_label["utility_2,-1,0,0"] == parse_measure("Utility(rel_ret=2)")
    assert by_label["Rprec_mult_0.20"] == parse_measure("RprecMult(mult=0.2)")
    assert by_label["iprec_at_recall_0.30"] == parse_measure("IPrec@0.3")
    assert by_label["success_2"] == parse_measure("Success@2")
    assert by_label["relative_P_5"] == parse_measure("RelativeP@5")
    assert by_label["set_map"] == parse_measure("SetAP")
    assert by_label["recip_rank"] == parse_measure("RR")


# --------------------------------------------------------------------------- plain reference
# The plain reference implementations live in tests/reference (one oracle for every property test).

def _random_case(rng):
    qrels, run_ = {}, {}
    for qi in range(12):
        q = f"q{qi:02d}"
        pool = [f"d{j}" for j in range(rng.randint(0, 25))]
        qrels[q] = {d: rng.choice([-1, 0, 0, 0, 1, 1, 2, 3]) for d in pool} or {"only": 0}
        extra = [f"u{j}" for j in range(rng.randint(0, 8))]
        docs = rng.sample(pool + extra, rng.randint(0, len(pool + extra)))
        if docs or rng.random() < 0.5:
            run_[q] = docs
    run_["zz"] = ["d0"]  # a run needs at least one result
    qrels["zz"] = {"d0": 1}
    return qrels, run_


REF_MEASURES = [
    "RR", "RR@3", "Success@1", "Success@4", "R@5", "R", "F", "F(beta=0.5)", "F1@6", "F(beta=3)@10", "SetAP",
    "RelativeP@4", "RelativeP", "Rprec", "RprecMult(mult=0.2)", "RprecMult(mult=0.6)", "RprecMult(mult=1.8)",
    "IPrec@0", "IPrec@0.1", "IPrec@0.25", "IPrec@0.5", "IPrec@0.7", "IPrec@1", "IPrecAvg",
    "IPrecAvg(recalls=[0.75, 0.25, 0.5, 0.25])", "Utility",
    "Utility(rel_ret=3, nonrel_ret=-0.5, rel_nonret=-1, nonrel_nonret=0.01, num_docs=500)",
]


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("level", [1, 2])
def test_against_plain_reference(seed, level):
    rng = random.Random(seed)
    qrels, run_ = _random_case(rng)
    res = rankmeter.evaluate(qrels, run_, REF_MEASURES, queries="qrels", rel=level)
    for name in REF_MEASURES:
        m = rankmeter.parse_measure(name)
        params = {p.name: m.get(p.name) for p in m.family.all_params}
        params.update(k=m.cutoff, rel=level)
        got = res.values(name)
        for i, q in enumerate(res.queries):
            want = REFERENCE[m.name](qrels[q], reference.rank(qrels[q], run_.get(q, [])), params)
            assert got[i] == pytest.approx(want, abs=1e-12), (name, q)


# --------------------------------------------------------------------------- golden lines

#: trec_eval measure name -> the labels of its output lines
PATTERNS = {
    "Rprec": r"Rprec", "recip_rank": r"recip_rank", "iprec_at_recall": r"iprec_at_recall_.+",
    "recall": r"recall_\d+", "Rprec_mult": r"Rprec_mult_.+", "utility": r"utility(_.+)?",
    "11pt_avg": r"11pt_avg(_.+)?", "relative_P": r"relative_P_\d+", "success": r"success_\d+",
    "set_recall": r"set_recall", "set_map": r"set_map", "set_F": r"set_F(_.+)?",
    "set_relative_P": r"set_relative_P",
}
MINE = list(PATTERNS)
LABEL = re.compile("^(?:" + "|".join(PATTERNS.values()) + ")$")

CASES = {
    "out.test": "qrels.test results.test",
    "out.comment.test": "qrels.comment.test results.comment.test",
    "out.test.a": "-m all_trec qrels.test results.test",
    "out.test.aq": "-m all_trec -q qrels.test results.test",
    "out.test.aqc": "-m all_trec -q -c qrels.test results.trunc",
    "out.test.aqcM": "-m all_trec -q -c -M100 qrels.test results.trunc",
    "out.test.aql": "-m all_trec -mrelstring.20 -q -l2 qrels.rel_level results.test",
    "out.test.meas_params": (
        "-q -miprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3 -m recall.20,2000 -m Rprec_mult.5.0,0.2,0.35 "
        "-mutility.2,-1,0,0 -m 11pt_avg..25,.5,.75 -mndcg.1=3,2=9,4=4.5 -mndcg_cut.10,20,23.4 "
        "-msuccess.2,5,20 qrels.test results.test"),
    "out.test-302.aq": "-q -m all_trec qrels-302.test results-302.test",
}


def _only_mine(args: str) -> list[str]:
    """The case's arguments with -m restricted to this module's measures (others are not our concern)."""
    toks, argv, i = shlex.split(args), [], 0
    if "-m" not in args:  # the default is "official": our members of it
        argv += ["-m", "Rprec", "-m", "recip_rank", "-m", "iprec_at_recall"]
    while i < len(toks):
        tok = toks[i]
        if tok.startswith("-m"):
            spec = tok[2:] or toks[i + 1]
            i += 1 if tok[2:] else 2
            if spec == "all_trec":
                for name in MINE:
                    argv += ["-m", name]
            elif spec.split(".")[0] in MINE:
                argv += ["-m", spec]
            continue
        argv.append(str(GOLDEN / tok) if tok.startswith(("qrels", "results")) else tok)
        i += 1
    return argv


@lru_cache(maxsize=None)
def _lines(case: str) -> tuple[dict, dict]:
    want = {}
    for line in (GOLDEN / case).read_text().splitlines():
        label, query, value = line.split("\t")
        if LABEL.match(label.strip()):
            want[(label.strip(), query)] = value
    out = BytesIO()
    assert run(_only_mine(CASES[case]), out=out, err=StringIO()) == 0
    got = {}
    for line in out.getvalue().decode().splitlines():
        label, query, value = line.split("\t")
        got[(label.strip(), query)] = value
    return want, got


def _has_lines(case: str, trec_name: str) -> bool:
    pattern = re.compile(f"^(?:{PATTERNS[trec_name]})$")
    return any(pattern.match(line.split("\t")[0].strip()) for line in (GOLDEN / case).read_text().splitlines())


GOLDEN_PARAMS = [(case, name) for case in CASES for name in MINE if _has_lines(case, name)]


@pytest.mark.parametrize("case, trec_name", GOLDEN_PARAMS, ids=[f"{c}:{n}" for c, n in GOLDEN_PARAMS])
def test_golden_lines(case, trec_name):
    want, got = _lines(case)
    pattern = re.compile(f"^(?:{PATTERNS[trec_name]})$")
    keys = [k for k in want if pattern.match(k[0])]
    assert keys
    bad = [(k, want[k], got.get(k)) for k in keys if got.get(k) != want[k]]
    assert not bad, bad[:10]

def test_golden_line_count():
    """Every golden line of these measures is checked by some test above."""
    total = sum(len(_lines(case)[0]) for case in CASES)
    assert total == 1036
