"""The LLM-judge analyses refuse a bad keyword by its declaration (rankmeter/judges/params.py), in the
vocabulary's one message shape ("alpha=5: expected a number in (0, 1)"), in Python and on the command line alike;
``agree --sampled`` and ``judges impact --draws`` are the Python keywords' names (``--samples`` is judges label's
count of labels per pair only); the older spellings ``--labels`` and ``--samples`` are still read."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from rankmeter.judges.allocation import allocate, labels_needed, pairs_needed
from rankmeter.judges.judge_agreement import agreement
from rankmeter.judges.label_impact import impact
from rankmeter.judges.labelling import label
from rankmeter.judges.leaderboard_agreement import from_scores
from rankmeter.judges.many_raters import many_rater_agreement
from rankmeter.judges.ppi import estimate
from rankmeter.judges.sources import aggregate
from rankmeter.errors import ParameterError

EXAMPLE = Path(__file__).resolve().parents[1] / "fixtures" / "llm_judges" / "example"
QRELS = {"q1": {"a": 1, "b": 0}, "q2": {"a": 2, "c": 1}}
RUNS = {"x": {"q1": {"a": 2.0, "b": 1.0}, "q2": {"a": 1.0, "c": 2.0}},
        "y": {"q1": {"a": 1.0, "b": 2.0}, "q2": {"a": 2.0, "c": 1.0}}}
BOARDS = ({"nDCG@10": {"a": 0.6, "b": 0.5, "c": 0.4}}, {"nDCG@10": {"a": 0.5, "b": 0.6, "c": 0.4}})


def _label(**kw):
    return label(["run"], queries="q.tsv", docs="d.tsv", base_url="http://127.0.0.1:9/v1", model="m",
                 cache="c.db", **kw)


@pytest.mark.parametrize("call, message", [
    (lambda: estimate(QRELS, QRELS, RUNS, ["P@1"], alpha=5), "alpha=5: expected a number in (0, 1)"),
    (lambda: estimate(QRELS, QRELS, RUNS, ["P@1"], unit="docs"),
     "unit='docs': expected one of 'auto', 'queries', 'pairs'"),
    (lambda: allocate([0.1, 0.2], [0.1, 0.3], [0.2, 0.5], 0), "budget=0: expected an integer in [1, inf)"),
    (lambda: allocate([0.1, 0.2], [0.1, 0.3], [0.2, 0.5], 1, strata=0), "strata=0: expected an integer in [1, 100]"),
    (lambda: allocate([0.1, 0.2], [0.1, 0.3], [0.2, 0.5], 1, seed=-1), "seed=-1: expected an integer in [0, "),
    (lambda: allocate([0.1, 0.2], [0.1, 0.3], [0.2, 0.5], 1.5), "budget=1.5: expected an integer in [1, inf)"),
    (lambda: labels_needed([0.1, 0.2], [0.1, 0.3], [0.2, 0.5], 0), "width=0: expected a number in (0, inf)"),
    (lambda: pairs_needed([1.0, 0.0], [1.0, 1.0], [True, True], [0, 0], -1.0, queries=1),
     "width=-1.0: expected a number in (0, inf)"),
    (lambda: agreement(QRELS, QRELS, rel=float("nan")), "rel=nan: expected a relevance threshold"),
    (lambda: many_rater_agreement([QRELS, QRELS, QRELS], rel=True), "rel=True: expected a relevance threshold"),
    (lambda: aggregate(EXAMPLE / "samples.qrels", method="max"),
     "method='max': expected one of 'mode', 'mean', 'median'"),
    (lambda: impact(QRELS, QRELS, RUNS, ["P@1"], draws=1), "draws=1: expected an integer in [2, 1000000]"),
    (lambda: _label(samples=0), "samples=0: expected an integer in [1, 100]"),
    (lambda: _label(concurrency=0), "concurrency=0: expected an integer in [1, 256]"),
    (lambda: _label(top_k=0), "top_k=0: expected an integer in [1, inf)"),
    (lambda: _label(timeout=0), "timeout=0: expected a number in (0, 3600]"),
    (lambda: _label(retries=21), "retries=21: expected an integer in [0, 20]"),
    (lambda: _label(temperature=-1), "temperature=-1: expected a number in [0, 2]"),
    (lambda: from_scores(*BOARDS, p=0), "p=0: expected a number in (0, 1]"),
    (lambda: from_scores(*BOARDS, top_k=[0, 3]), "top_k=0: expected numbers, each in [1, inf)"),
])
def test_a_bad_keyword_is_refused_by_its_declaration(call, message):
    with pytest.raises(ParameterError) as caught:
        call()
    assert str(caught.value).startswith(message), str(caught.value)


def test_what_the_declarations_cannot_say_is_still_checked():
    # a top k that is not a whole number; a budget larger than the queries without labels (a bound of the data)
    with pytest.raises(ParameterError, match=r"top_k=\(2.5,\): expected positive integers"):
        from_scores(*BOARDS, top_k=(2.5,))
    with pytest.raises(ParameterError, match="budget=3, strata=1: 2 queries have no human labels"):
        allocate([0.1, 0.2], [0.1, 0.3], [0.2, 0.5], 3, strata=1)
    # a valid call goes through, its values normalised
    got = from_scores(*BOARDS, top_k=[2, 1.0])
    assert [o["k"] for o in got.measures[0]["top_k"]] == [1, 2]
    rng = np.random.default_rng(0)
    truth = rng.random(40)
    assert labels_needed(truth[:10], truth[:10], truth[10:], 1) == 3    # the estimate's t with n - 1 degrees of freedom


def test_the_command_line_refuses_alike(cli):
    done = cli("judges", "impact", EXAMPLE / "human.qrels", EXAMPLE / "llm.qrels", EXAMPLE / "bm25.run",
               EXAMPLE / "splade.run", "-m", "P@5", "--draws", "1")
    assert done.code == 2 and "--draws" in done.err and "expected an integer in [2, 1000000]" in done.err
    done = cli("judges", "aggregate", EXAMPLE / "samples.qrels", "--method", "max", "-o", "x.qrels")
    assert done.code == 2 and "expected one of 'mode', 'mean', 'median'" in done.err


def test_agree_sampled_is_the_keywords_name_and_the_older_spellings_are_still_read(cli):
    new = cli("agree", "--sampled", EXAMPLE / "samples.qrels", "--format", "json")
    assert new.code == 0, new.err
    data = json.loads(new.out)
    for older in ("--labels", "--samples"):
        old = cli("agree", older, EXAMPLE / "samples.qrels", "--format", "json")
        assert old.code == 0 and json.loads(old.out) == data, old.err
    assert data == json.loads(json.dumps(many_rater_agreement(sampled=EXAMPLE / "samples.qrels")))
    shown = cli("agree", "--help").out
    assert "--sampled" in shown and "--labels" not in shown and "--samples" not in shown


def test_impact_draws_is_the_keywords_name_and_samples_is_still_read(cli):
    args = ["judges", "impact", EXAMPLE / "human.qrels", EXAMPLE / "llm.qrels", EXAMPLE / "bm25.run",
            EXAMPLE / "splade.run", "-m", "P@5", "--format", "json"]
    new, old = cli(*args, "--draws", "1"), cli(*args, "--samples", "1")
    assert new.code == old.code == 2 and "expected an integer in [2, 1000000]" in new.err + old.err
    shown = cli("judges", "impact", "--help").out
    assert "--draws" in shown and "--samples" not in shown
