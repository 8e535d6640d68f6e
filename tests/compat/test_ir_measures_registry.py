"""Every measure of ir_measures' registry, spelled as ir_measures prints it, gives ir_measures' numbers here.

The test walks ``ir_measures.measures.registry`` (every name and alias), gives
each measure its standard parameterisation (a cutoff where one is required,
``max_rel`` = the qrels' top grade for the C/W/L measures, ``rel=1`` for RBP,
which ir_measures requires), evaluates ``str(measure)`` with rankmeter and the
measure object with ir_measures on the same random qrels and run, and
compares per query. Runs have distinct scores (tools break ties differently)
and numeric query ids (gdeval's requirement).

The diversity names go through pyndeval with the defaults ``parse_measure``
fills in, on qrels of one subtopic per query (their own module tests real
subtopic qrels). Nothing is left out (:data:`SKIPPED` would say why); the count
is printed by :func:`test_report_counts` (``pytest -s``).
"""
from __future__ import annotations

import logging
import math
import warnings

import numpy as np
import pytest

import rankmeter

from optional_packages import optional  # noqa: E402  (tests/ on sys.path: tests/conftest.py)

ir_measures = optional("ir_measures")  # the registry walk needs it to collect: without it the module skips
logging.getLogger("ir_measures").setLevel(logging.ERROR)

#: registry names not compared here, and why
SKIPPED: dict[str, str] = {}
#: ndeval's measures (through pyndeval): the qrels here have one subtopic per query (no iteration field)
_DIVERSITY_NAMES = {"ERR_IA", "nERR_IA", "alpha_DCG", "α_DCG", "alpha_nDCG", "α_nDCG", "NRBP", "nNRBP", "AP_IA",
                    "MAP_IA", "P_IA", "StRecall"}
#: names whose ir_measures default differs from rankmeter's; compared under the parameters that make them equal
DIFFERENT_DEFAULT = {
    # gdeval fixes g_max = 4 in R = (2^g - 1) / 2^g_max; rankmeter's ERR takes the whole qrels' top grade
    "ERR": "ERR(max_grade=4)@5",
}
#: gdeval prints 5 decimals
TOLERANCE = {"ERR": 1e-5}

TOP_GRADE = 3


def _standard(name: str):
    """ir_measures' measure for a registry name, with the parameters it cannot do without."""
    measure = ir_measures.measures.registry[name]
    params = measure.SUPPORTED_PARAMS
    if "max_rel" in params:
        measure = measure(max_rel=TOP_GRADE)
    if name == "RBP":
        measure = measure(rel=1)
    if name in _DIVERSITY_NAMES:  # the pyndeval provider reads the defaults parse_measure fills in
        return ir_measures.parse_measure(name + ("@5" if "cutoff" in params else ""))
    cutoff = params.get("cutoff")
    if cutoff is not None and cutoff.required or name == "ERR":  # ERR's one provider (gdeval) needs a cutoff
        measure = measure @ 5
    if "recall" in params and params["recall"].required:
        measure = measure(recall=0.5)
    return measure


def _data(seed: int):
    """Numeric query ids, grades 0..3, unjudged docs retrieved, distinct scores."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for qi in range(1, 16):
        q = str(qi)
        docs = [f"d{j}" for j in range(12)]
        qrels[q] = {d: int(rng.choice([0, 0, 1, 1, 2, 3])) for d in docs[:int(rng.integers(2, 13))]}
        qrels[q]["d0"] = TOP_GRADE if qi == 1 else qrels[q]["d0"]  # the qrels' top grade is 3
        chosen = rng.choice(docs + ["x1", "x2", "x3"], size=int(rng.integers(1, 16)), replace=False)
        run[q] = {str(d): float(s) for d, s in zip(chosen, rng.permutation(len(chosen)) + 1)}
    return qrels, run


def _skip_without_provider(measure):
    """C/W/L (cwl-eval) and ndeval (pyndeval) are the only ir_measures providers of some names: a visible skip."""
    supporting = [p for p in ir_measures.providers.registry.values() if _supports(p, measure)]
    if supporting and not any(p.is_available() for p in supporting):
        pytest.skip(f"{measure}: ir_measures' providers of it ({', '.join(p.NAME for p in supporting)}) are not "
                    "installed (pip install cwl-eval pyndeval)")


def _supports(provider, measure) -> bool:
    try:
        return provider.supports(measure)
    except Exception:  # a provider that cannot parse these parameters does not support them
        return False


def _oracle(measure, qrels, run) -> dict[str, float]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {m.query_id: float(m.value) for m in ir_measures.iter_calc([measure], qrels, run)}


def _ours(text: str, qrels, run) -> dict[str, float]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = rankmeter.evaluate(qrels, run, text)
    return dict(zip(result.queries, (float(v) for v in result.values(text))))


COMPARED = sorted(set(ir_measures.measures.registry) - set(SKIPPED))


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("name", COMPARED)
def test_registry_measure_equals_ir_measures(name, seed):
    qrels, run = _data(seed)
    measure = _standard(name)
    _skip_without_provider(measure)
    want = _oracle(measure, qrels, run)
    assert want, f"ir_measures computed nothing for {measure}"
    text = DIFFERENT_DEFAULT.get(name, str(measure))
    got = _ours(text, qrels, run)
    tol = TOLERANCE.get(name, 1e-9)
    wrong = [(q, got.get(q), v) for q, v in want.items()
             if q not in got or not math.isclose(got[q], v, rel_tol=tol, abs_tol=tol)]
    assert not wrong, f"{name}: rankmeter {text!r} vs ir_measures {measure}: {wrong[:5]}"


def test_err_under_ir_measures_spelling_is_rankmeters_err():
    """The one spelling whose numbers differ: ``ERR@5`` here takes g_max from the qrels (3), gdeval 4."""
    qrels, run = _data(1)
    ours, gdeval = _ours("ERR@5", qrels, run), _oracle(ir_measures.parse_measure("ERR@5"), qrels, run)
    assert any(abs(ours[q] - gdeval[q]) > 1e-3 for q in gdeval)


def test_report_counts(capsys):
    registry = ir_measures.measures.registry
    with capsys.disabled():
        print(f"\nir_measures registry: {len(registry)} names; compared {len(COMPARED)} "
              f"({len(DIFFERENT_DEFAULT)} under other parameters: {', '.join(DIFFERENT_DEFAULT)}); "
              f"skipped {len(SKIPPED)}: {', '.join(sorted(SKIPPED))}")
    assert len(COMPARED) + len(SKIPPED) == len(registry)
