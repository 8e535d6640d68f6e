"""Damaged baselines and slices files, and non-finite values: each refused with the file and the field named
(an InputError; exit 2 with one line on the command line), never an internal error, never a coercion, and
never a passing gate."""
from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rankmeter.errors import InputError, RankmeterError
from rankmeter.gate import checks as gate_checks
from rankmeter.gate.checks import gate
from rankmeter.gate.saved import baseline, load_baseline, read_slices, save_baseline

QRELS = {f"q{i}": {"a": 1, "b": 0} for i in range(8)}
RUN = {f"q{i}": {"a": 0.9, "b": 0.3} for i in range(8)}
AP = "AP(rel=1)"
SPAN = "[-9007199254740992, 9007199254740992]"


@pytest.fixture(scope="module")
def saved():
    """A good baseline's JSON, as rankmeter baseline writes it (two runs, a slice)."""
    made = baseline(QRELS, [RUN, RUN], ["AP", "RR"], slices={"head": ["q0", "q1", "q2"]})
    return made.to_dict()


def _set(data, path, value):
    out = copy.deepcopy(data)
    *parents, last = path
    node = out
    for key in parents:
        node = node[key]
    if value is _DELETE:
        del node[last]
    else:
        node[last] = value
    return out


_DELETE = object()

# (what was damaged, the field path to set, the value, the field named in the message, what it must hold)
BASELINES = [
    ("measures null", ["measures"], None, "measures", "a list of at least 1, each entry an object with name, "
                                                       "canonical"),
    ("measures a string", ["measures"], "AP", "measures", "a list of at least 1"),
    ("a measure without canonical", ["measures", 0, "canonical"], _DELETE, "measures[0].canonical",
     "a non-empty string (the field is missing)"),
    ("a measure name a number", ["measures", 0, "name"], 5, "measures[0].name", "a non-empty string"),
    ("a measure twice", ["measures", 1], {"name": "AP", "canonical": AP}, "measures", "each measure once"),
    ("values of a measure missing", ["values", AP], _DELETE, f'values["{AP}"]', "the per-query values"),
    ("values of a measure not named", ["values", "P(rel=1)@5"], [[0.0] * 8] * 2, 'values["P(rel=1)@5"]',
     "values of a measure the baseline names"),
    ("a value as a string", ["values", AP, 0, 3], "0.5", f'values["{AP}"][0][3]', "a number in [-9007199254740992, "
                                                                                    "9007199254740992]"),
    ("a value as a boolean", ["values", AP, 1, 0], True, f'values["{AP}"][1][0]', "a number in"),
    ("a value of 1e308", ["values", AP, 0, 0], 1e308, f'values["{AP}"][0][0]', "a finite number in "
                                                                                "[-9007199254740992, "),
    ("a huge integer value", ["values", AP, 0, 0], 10 ** 30, f'values["{AP}"][0][0]', "a finite number in "),
    ("a row of other length", ["values", AP, 0], [1.0] * 7, f'values["{AP}"][0]', "a list of 8 numbers"),
    ("values of one run", ["values", AP], [[1.0] * 8], f'values["{AP}"]', "one list per run (2, as in runs)"),
    ("values a flat list", ["values", AP], [1.0] * 8, f'values["{AP}"][0]', "a list of 8 numbers"),
    ("judged above 1", ["judged", 0, 0], 1.5, "judged[0][0]", "a finite number in [0, 1]"),
    ("qrels null", ["qrels"], None, "qrels", "an object with source, judgments, digest"),
    ("qrels digest short", ["qrels", "digest"], "abc", "qrels.digest", "a sha256 digest (64 hexadecimal digits)"),
    ("qrels count a string", ["qrels", "judgments"], "16", "qrels.judgments", "an integer in [0, 9007199254740992]"),
    ("qrels count huge", ["qrels", "judgments"], 10 ** 30, "qrels.judgments", "an integer in [0, "),
    ("qrels count negative", ["qrels", "judgments"], -1, "qrels.judgments", "an integer in [0, "),
    ("option bool a string", ["options", "judged_only"], "yes", "options.judged_only", "True or False"),
    ("option bool a number", ["options", "judged_only"], 0, "options.judged_only", "True or False"),
    ("option grade a string", ["options", "rel"], "1", "options.rel", "a relevance threshold"),
    ("option choice unknown", ["options", "ties"], "random", "options.ties", "one of 'trec_eval'"),
    ("option integer huge", ["options", "max_docs"], 10 ** 30, "options.max_docs", "an integer in [0, inf)"),
    ("option unknown", ["options", "depth"], 3, "options.depth", "no such field here"),
    ("options a list", ["options"], [], "options", "an object"),
    ("query ids numbers", ["queries", 0], 0, "queries[0]", "a string"),
    ("a query twice", ["queries", 1], "q0", "queries[1]", "an entry not given before in the list"),
    ("no runs", ["runs"], [], "runs", "a list of at least 1"),
    ("run digest a number", ["runs", 0, "digest"], 5, "runs[0].digest", "a string"),
    ("judged at another depth", ["judged_at"], 5, "judged_at", "the integer 10"),
    ("slices a string", ["slices", "head"], "q1", "slices.head", "a list, each entry a query id"),
    ("slice member a boolean", ["slices", "head", 0], True, "slices.head[0]", "a query id (a string, or an integer)"),
    ("slice member a real", ["slices", "head", 0], 1.5, "slices.head[0]", "a query id"),
    ("history a string", ["history"], "x", "history", "a list, each entry a JSON value"),
    ("history nested too deep", ["history"], [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]],
     "history" + "[0]" * 31, "at most 32 levels of nested lists and objects"),
]


@pytest.mark.parametrize("damage, path, value, field, expected", BASELINES, ids=[b[0] for b in BASELINES])
def test_a_damaged_baseline_names_the_file_and_the_field(saved, tmp_path, damage, path, value, field, expected):
    target = tmp_path / "base.json"
    target.write_text(json.dumps(_set(saved, path, value)))
    with pytest.raises(InputError) as refused:
        load_baseline(target)
    message = str(refused.value)
    assert message.startswith(f"{target}: field {field}: expected {expected}"), message
    assert message.endswith("give the file `rankmeter baseline` wrote, unedited (or make it again)")


WHOLE = [
    ("NaN literal", lambda t: t.replace('"values": {"AP(rel=1)": [[1.0', '"values": {"AP(rel=1)": [[NaN', 1),
     f'field values["{AP}"][0][0]: expected a finite number in {SPAN}, got NaN'),
    ("Infinity literal",
     lambda t: t.replace('"values": {"AP(rel=1)": [[1.0', '"values": {"AP(rel=1)": [[Infinity', 1),
     f'field values["{AP}"][0][0]: expected a finite number in {SPAN}, got Infinity'),
    ("1e999", lambda t: t.replace('"values": {"AP(rel=1)": [[1.0', '"values": {"AP(rel=1)": [[1e999', 1),
     f'field values["{AP}"][0][0]: expected a finite number in {SPAN}, got Infinity'),
    ("a key twice", lambda t: t.replace('"judged_at": 10', '"judged_at": 10, "judged_at": 10'),
     "an object names the key 'judged_at' twice"),
    ("deep nesting", lambda t: t[:-1] + ', "extra": ' + "[" * 50_000 + "]" * 50_000 + "}",
     "nested deeper than 32 levels"),
    ("Latin-1", lambda t: t.replace('"created": "', '"created": "caf\xe9 ', 1), "not UTF-8 text (byte 0xe9"),
    ("truncated", lambda t: t[: len(t) // 2], "not valid JSON"),
    ("another format", lambda t: t.replace("rankmeter-baseline/1", "rankmeter-baseline/9"),
     "not a baseline: expected format 'rankmeter-baseline/1'"),
]


@pytest.mark.parametrize("damage, edit, expected", WHOLE, ids=[w[0] for w in WHOLE])
def test_a_damaged_baseline_file(saved, tmp_path, damage, edit, expected):
    target = tmp_path / "base.json"
    text = edit(json.dumps(saved))
    target.write_bytes(text.encode("latin-1") if damage == "Latin-1" else text.encode())
    with pytest.raises(InputError) as refused:
        load_baseline(target)
    assert str(refused.value).startswith(f"{target}: ") and expected in str(refused.value), str(refused.value)


def test_on_the_command_line_each_damage_is_one_line_and_exit_2(cli, saved, tmp_path):
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in QRELS.items() for d, g in docs.items()))
    run.write_text("".join(f"{q} Q0 {d} 1 {s} r\n" for q, docs in RUN.items() for d, s in docs.items()))
    for damage, path, value, field, _ in BASELINES[::3]:
        target = tmp_path / "base.json"
        target.write_text(json.dumps(_set(saved, path, value)))
        done = cli("gate", qrels, run, "--baseline", target)
        assert done.code == 2, (damage, done.err)
        assert done.err.startswith(f"rankmeter: error: {target}: field {field}: expected"), (damage, done.err)
        assert done.err.count("\n") == 1 and "Traceback" not in done.err and "internal error" not in done.err


SLICES = [
    ("Latin-1 lines", "q1 caf\xe9\n".encode("latin-1"), ":1: not UTF-8 text (byte 0xe9 at offset 6)"),
    ("Latin-1 JSON", '{"caf\xe9": ["q1"]}'.encode("latin-1"), "not UTF-8 text (byte 0xe9"),
    ("deep JSON", b'{"head": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "nested deeper than 32 levels"),
    ("a member true", b'{"head": [true]}', "field head[0]: expected a query id (a string, or an integer), got true"),
    ("a member 1.5", b'{"head": [1.5]}', "field head[0]: expected a query id (a string, or an integer), got 1.5"),
    ("a member NaN", b'{"head": [NaN]}', "field head[0]: expected a query id (a string, or an integer), got NaN"),
    ("a slice a string", b'{"head": "q1"}', "field head: expected a list, each entry a query id"),
    ("a list at the top", b'["q1", "q2"]', "field (the whole file): expected an object, each value a list"),
    ("no slice", b"{}", "field (the whole file): expected an object, each value a list, each entry a query id "
                        "(a string, or an integer) (not empty), got an empty object"),
    ("an empty name", b'{"": ["q1"]}', 'field [""]: expected a non-empty string'),
    ("a name twice", b'{"head": ["q1"], "head": ["q2"]}', "an object names the key 'head' twice"),
    ("a huge id", b'{"head": [1' + b"0" * 60 + b"]}",
     "field head[0]: expected a query id (a string, or an integer), got an integer of 61 digits"),
]


@pytest.mark.parametrize("damage, data, expected", SLICES, ids=[s[0] for s in SLICES])
def test_a_damaged_slices_file(tmp_path, damage, data, expected):
    path = tmp_path / "slices.txt"
    path.write_bytes(data)
    with pytest.raises(InputError) as refused:
        read_slices(str(path))
    assert str(refused.value).startswith(f"{path}") and expected in str(refused.value), str(refused.value)


def test_slices_read_as_written():
    assert read_slices(__import__("io").BytesIO(b'{"head": ["q1", 301]}')) == {"head": ["q1", "301"]}


def test_a_damaged_slices_file_on_the_command_line(cli, tmp_path):
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in QRELS.items() for d, g in docs.items()))
    run.write_text("".join(f"{q} Q0 {d} 1 {s} r\n" for q, docs in RUN.items() for d, s in docs.items()))
    save_baseline(baseline(str(qrels), str(run), ["AP"]), tmp_path / "base.json")
    for damage, data, expected in SLICES:
        (tmp_path / "slices").write_bytes(data)
        for args in (("baseline", qrels, run, "-m", "AP", "-o", tmp_path / "other.json", "--slices",
                      tmp_path / "slices"),
                     ("gate", qrels, run, "--baseline", tmp_path / "base.json", "--slices", tmp_path / "slices")):
            done = cli(*args)
            assert done.code == 2 and expected in done.err and done.err.count("\n") == 1, (damage, done.err)
            assert "Traceback" not in done.err and "internal error" not in done.err


def test_a_baseline_with_nan_never_passes_a_regression(tmp_path):
    """The issue's case: nDCG@10 fell from 1.0 to 0.0, the baseline holds one NaN; the gate refused to pass."""
    base = baseline(QRELS, RUN, ["nDCG@10"])
    base.values["nDCG(rel=1)@10"][0, 0] = np.nan          # a baseline made in Python is not a file: checked here
    zero = {q: {"b": 0.7} for q in QRELS}
    result = gate(QRELS, zero, base)
    assert result.refused and "no verdict: the baseline's nDCG@10 is not a finite number" in result.refused
    assert (result.passed, result.exit_status) == (False, 2)


NONFINITE = st.sampled_from([np.nan, np.inf, -np.inf, 1e308, -1e308, 2.0 ** 60])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), bad=NONFINITE, where=st.sampled_from(["baseline", "run", "file"]),
       drop=st.floats(0, 1), queries=st.integers(2, 12))
def test_no_nan_turns_into_a_passing_gate(tmp_path, monkeypatch, data, bad, where, drop, queries):
    """Whatever the values, whichever value is not finite (in a baseline made in Python, in the file, or in the
    new run's per-query values), the verdict is never a pass: a refusal (exit 2) or an input error."""
    qrels = {f"q{i}": {"a": 1, "b": 0} for i in range(queries)}
    run = {f"q{i}": {"a": 0.9, "b": 0.3} if data.draw(st.booleans()) else {"b": 0.9, "a": 0.3}
           for i in range(queries)}
    base = baseline(qrels, run, ["RR", "P@1"])
    measure = data.draw(st.sampled_from(["RR(rel=1)", "P(rel=1)@1"]))
    position = data.draw(st.integers(0, queries - 1))
    if where == "baseline":
        base.values[measure][0, position] = bad
    elif where == "file":
        path = tmp_path / "base.json"
        text = json.dumps(base.to_dict(), allow_nan=True)
        saved = json.loads(text)
        saved["values"][measure][0][position] = "__BAD__"
        path.write_text(json.dumps(saved).replace('"__BAD__"', json.dumps(bad)))
        base = path
    else:
        real = gate_checks.score_run

        def poisoned(evaluator, new_run):
            queries_, values, judged = real(evaluator, new_run)
            values[measure] = values[measure] * (1 - drop)
            values[measure][position] = bad
            return queries_, values, judged
        monkeypatch.setattr(gate_checks, "score_run", poisoned)
    try:
        result = gate(qrels, run, base, margin=0.0)
    except RankmeterError:
        return
    finally:
        monkeypatch.undo()
    assert not result.passed and result.exit_status == 2, result.to_dict()
