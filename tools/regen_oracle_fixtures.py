"""Regenerate the stored oracle outputs under tests/fixtures/oracles/ (one JSON file per oracle).

Each file holds its inputs (generated here from fixed seeds), the oracle's outputs on them, and
its provenance: package, version, the function called, the seeds, the Python and the date.
``tests/compat/test_stored_oracles.py`` compares rankmeter against these files without the oracle
installed; the live tests (marker ``oracle``) keep comparing against the oracle itself.

    python tools/regen_oracle_fixtures.py                 # every oracle
    python tools/regen_oracle_fixtures.py pytrec_eval     # one (pytrec_eval, ir_measures, ranx_fusion, torchmetrics, trectools_pools)
    python tools/regen_oracle_fixtures.py --check         # regenerate in memory; exit 1 if a file would change

Regenerate after upgrading an oracle (the version is in the provenance) or changing a generator
below; review the diff of the JSON like any other change of expected values.
"""
from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import json
import logging
import math
import platform
import sys
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures" / "oracles"
sys.path.insert(0, str(ROOT / "tests"))  # the live tests' own measure tables and case generators


def _provenance(package: str, distribution: str, function: str, seeds, notes: str) -> dict:
    return {
        "package": package,
        "distribution": distribution,
        "version": importlib.metadata.version(distribution),
        "function": function,
        "seeds": list(seeds),
        "generator": "tools/regen_oracle_fixtures.py",
        "python": platform.python_version(),
        "numpy": np.__version__,
        "generated": datetime.date.today().isoformat(),
        "notes": notes,
    }


# ---------------------------------------------------------------------------------------------- pytrec_eval

PYTREC_SEEDS = range(40)
#: trec_eval specs stored (tests/compat/test_pytrec_eval.py compares the same ones live).
PYTREC_SPECS = [
    "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret",
    "map", "Rprec", "bpref", "recip_rank", "infAP",
    "P.1,2,3,5,10,20", "recall.1,2,3,5,10,20", "ndcg_cut.1,2,3,5,10,20", "map_cut.1,2,3,5,10,20",
    "relative_P.1,2,3,5,10,20", "success.1,2,3,5,10",
    "iprec_at_recall", "iprec_at_recall.0.25,0.33,0.75", "11pt_avg", "11pt_avg.0.25,0.5,0.75",
    "Rprec_mult", "Rprec_mult.0.5,1.5,3.0",
    "utility", "binG", "G", "ndcg", "ndcg_rel", "Rndcg",
    "set_P", "set_recall", "set_map", "set_F", "set_F.0.5", "set_relative_P",
]
PYTREC_SUMMARY_SPECS = ["gm_map", "gm_bpref", "num_q"]
_DEFAULT_LEVELS = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
_RECALL_LEVELS = {"iprec_at_recall": _DEFAULT_LEVELS, "iprec_at_recall.0.25,0.33,0.75": [0.25, 0.33, 0.75],
                  "11pt_avg": _DEFAULT_LEVELS, "11pt_avg.0.25,0.5,0.75": [0.25, 0.5, 0.75]}
_DOCS = ["d1", "d2", "d3", "d5", "d10", "d11", "d20", "d01", "D1", "a", "aa", "b", "x9", "z", "\u00e91", "d7"]
_QUERIES = ["1", "2", "10", "q", "q2", "Q3"]


def _pytrec_case(seed: int) -> dict:
    """Graded and negative judgments, unjudged docs, ties on purpose, scores exact in float32.

    Every query is judged (some grade >= 0) and ranked (non-empty): pytrec_eval's query policy
    and its 0/0 on empty rankings (tests/compat/test_pytrec_eval.py's docstring) then never apply.
    """
    rng = np.random.default_rng(seed)
    queries = list(rng.choice(_QUERIES, int(rng.integers(1, 6)), replace=False))
    qrels, run = {}, {}
    for q in queries:
        judged = rng.choice(_DOCS, int(rng.integers(1, 13)), replace=False)
        grades = [int(g) for g in rng.integers(-2, 5, len(judged))]
        if max(grades) < 0:
            grades[0] = int(rng.integers(0, 5))
        qrels[q] = dict(zip(map(str, judged), grades))
        ranked = rng.choice(_DOCS, int(rng.integers(1, len(_DOCS) + 1)), replace=False)
        if rng.random() < 0.5:  # a few distinct scores for many docs: ties decided by docno
            palette = rng.choice([0.0, -0.0, 1.0, 0.5, -1.0, 2.25, -7.5], int(rng.integers(1, 4)))
            scores = rng.choice(palette, len(ranked))
        else:
            scores = rng.uniform(-100, 100, len(ranked)).astype(np.float32).astype(np.float64)
        run[q] = {str(d): float(s) for d, s in zip(ranked, scores)}
    return {"seed": seed, "qrels": qrels, "run": run, "level": int(rng.choice([1, 1, 1, 2, 3])),
            "judged_only": bool(rng.random() < 0.5)}


def _rules_agree(p: float, num_rel: int) -> bool:
    """trec_eval 9.x's (long)(p*R+0.9) and 10.0's lround(p*R) give the same count of relevant docs."""
    x = p * num_rel
    return int(x + 0.9) == math.floor(x) + (1 if x - math.floor(x) >= 0.5 else 0)


def pytrec_eval_fixture() -> dict:
    import pytrec_eval

    cases = []
    for seed in PYTREC_SEEDS:
        case = _pytrec_case(seed)
        values, means, summaries = {}, {}, {}
        for spec in PYTREC_SPECS + PYTREC_SUMMARY_SPECS:
            evaluator = pytrec_eval.RelevanceEvaluator(case["qrels"], {spec}, relevance_level=case["level"],
                                                       judged_docs_only_flag=case["judged_only"])
            got = evaluator.evaluate(case["run"])
            labels = sorted(next(iter(got.values())))
            if spec in PYTREC_SUMMARY_SPECS:
                summaries[spec] = pytrec_eval.compute_aggregated_measure(spec, [v[spec] for v in got.values()])
                continue
            values[spec], means[spec] = {}, {}
            for label in labels:
                level = next((p for p in _RECALL_LEVELS.get(spec, []) if label.endswith(f"_{p:3.2f}")), None)
                kept = {}
                for q in sorted(got):
                    num_rel = sum(1 for g in case["qrels"][q].values() if g >= case["level"])
                    if spec.startswith("iprec_at_recall") and not _rules_agree(level, num_rel):
                        continue  # 9.x and 10.0 count this recall level's relevant docs differently
                    if spec.startswith("11pt_avg") and not all(_rules_agree(p, num_rel)
                                                                for p in _RECALL_LEVELS[spec]):
                        continue
                    value = got[q][label]
                    if math.isnan(value):
                        ranked = [d for d in case["run"][q]
                                  if not case["judged_only"] or case["qrels"][q].get(d, -1) >= 0]
                        assert not ranked, (seed, spec, label, q)
                        value = 0.0  # pytrec_eval's 0/0 on a ranking -J empties; trec_eval 10.0 -c prints 0
                    kept[q] = value
                values[spec][label] = kept
                if len(kept) == len(got):
                    means[spec][label] = pytrec_eval.compute_aggregated_measure(label, list(kept.values()))
        cases.append({**case, "values": values, "means": means, "summaries": summaries})
    return {
        "provenance": _provenance(
            "pytrec_eval", "pytrec-eval-terrier",
            "pytrec_eval.RelevanceEvaluator(qrels, {spec}, relevance_level=level, "
            "judged_docs_only_flag=judged_only).evaluate(run); pytrec_eval.compute_aggregated_measure",
            PYTREC_SEEDS,
            "pytrec_eval wraps trec_eval 9.0.8. Per-query values of iprec_at_recall / 11pt_avg are left out "
            "where 9.x's (long)(p*R+0.9) and 10.0's lround(p*R) differ, and a mean only where every query was "
            "kept. A NaN of pytrec_eval (0/0 on a ranking that -J leaves empty) is stored as 0, what trec_eval 10.0 prints. trec_eval's -l applies to every family but nDCG, G and rbp (rankmeter.measures.trec_eval."
            "uses_level decides)."),
        "specs": PYTREC_SPECS, "summary_specs": PYTREC_SUMMARY_SPECS, "cases": cases,
    }


# ---------------------------------------------------------------------------------------------- ir_measures

IR_MEASURES_SEEDS = range(1, 7)


def ir_measures_fixture() -> dict:
    import ir_measures
    import test_ir_measures_registry as registry  # its measure table, parameterisation and case generator

    logging.getLogger("ir_measures").setLevel(logging.ERROR)
    cases = []
    for seed in IR_MEASURES_SEEDS:
        qrels, run = registry._data(seed)
        measures, oracle_failed = {}, {}
        for name in registry.COMPARED:
            measure = registry._standard(name)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    values = {m.query_id: float(m.value) for m in ir_measures.iter_calc([measure], qrels, run)}
            except Exception as exc:  # the oracle's own failure on this case (Accuracy divides by zero)
                oracle_failed[name] = f"{type(exc).__name__}: {exc}"
                continue
            measures[name] = {"ir_measures": str(measure), "rankmeter": registry.DIFFERENT_DEFAULT.get(name,
                                                                                                         str(measure)),
                              "tolerance": registry.TOLERANCE.get(name, 1e-9), "values": values}
        cases.append({"seed": seed, "qrels": qrels, "run": run, "oracle_failed": oracle_failed, "measures": measures})
    providers = sorted(p.NAME for p in ir_measures.providers.registry.values() if p.is_available())
    return {
        "provenance": {
            **_provenance("ir_measures", "ir_measures", "ir_measures.iter_calc([measure], qrels, run) for every "
                          "name of ir_measures.measures.registry, parameterised by tests/test_ir_measures_registry."
                          "_standard; cases from its _data(seed)", IR_MEASURES_SEEDS,
                          "ir_measures picks the first available provider of a measure; the providers installed "
                          "are listed. ERR is compared as ERR(max_grade=4)@5 (gdeval's g_max), as the live test."),
            "providers_installed": providers,
            "provider_versions": {d: _version(d) for d in ("pytrec-eval-terrier", "cwl-eval", "pyndeval",
                                                             "trectools", "ranx")},
        },
        "cases": cases,
    }


def _version(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


# ---------------------------------------------------------------------------------------------- ranx fusion

RANX_SEEDS = range(4)
#: (method, norm, params): every fusion and normalisation tests/fusion/test_fusion.py compares live.
RANX_CASES = [("sum", None, {}), ("mnz", None, {}), ("gmnz", None, {"gamma": 0.5}), ("anz", None, {}),
              ("max", None, {}), ("min", None, {}), ("med", None, {}), ("wsum", None, {"weights": [0.2, 0.5, 0.3]}),
              ("wmnz", None, {"weights": [0.2, 0.5, 0.3]}), ("rrf", None, {"k": 60}), ("rrf", None, {"k": 5}),
              ("rbc", None, {"phi": 0.7}), ("isr", None, {}), ("log_isr", None, {}),
              ("logn_isr", None, {"sigma": 0.01}), ("sum", "min-max", {}), ("sum", "max", {}), ("sum", "sum", {}),
              ("sum", "zmuv", {}), ("sum", "rank", {}), ("mnz", "min-max-inverted", {}),
              ("wsum", "min-max", {"weights": [1.0, 2.0, 0.5]}), ("bordafuse", None, {}), ("sum", "borda", {}),
              ("mnz", "borda", {})]


def _fusion_runs(seed: int, nruns: int = 3) -> list[dict]:
    """Distinct scores within a query (ranx's order of tied scores is arbitrary), some negative."""
    rng = np.random.default_rng(seed)
    runs = []
    for r in range(nruns):
        run = {}
        for q in range(6):
            docs = rng.choice(40, int(rng.integers(1, 25)), replace=False)
            scores = rng.permutation(len(docs)) * 0.37 + rng.random() - 0.5 + r
            run[f"q{q}"] = {f"d{d}": float(s) for d, s in zip(docs, scores)}
        runs.append(run)
    return runs


def ranx_fusion_fixture() -> dict:
    import ranx

    cases = []
    for seed in RANX_SEEDS:
        runs = _fusion_runs(seed)
        fused = []
        for method, norm, params in RANX_CASES:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                got = ranx.fuse([ranx.Run(r, name=f"r{i}") for i, r in enumerate(runs)], norm=norm, method=method,
                                params=params or None).to_dict()
            fused.append({"method": method, "norm": norm, "params": params,
                          "scores": {q: {d: float(s) for d, s in docs.items()} for q, docs in got.items()}})
        cases.append({"seed": seed, "runs": runs, "fused": fused})
    return {
        "provenance": _provenance("ranx", "ranx", "ranx.fuse([ranx.Run(run, name=f'r{i}') ...], norm=norm, "
                                  "method=method, params=params or None).to_dict()", RANX_SEEDS,
                                  "three runs of six queries, distinct scores per query (no ties)"),
        "cases": cases,
    }


# ---------------------------------------------------------------------------------------------- torchmetrics

TORCH_SEEDS = range(12)
TORCH_ACTIONS = ("neg", "pos", "skip")


def _torch_case(seed: int) -> tuple[dict, dict]:
    """Every ranked doc judged and every judged doc ranked (TorchMetrics sees only the scored candidates);
    distinct scores; grades 0..2, some queries without a relevant doc (empty_target_action decides those)."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(int(rng.integers(1, 6))):
        n = int(rng.integers(1, 11))
        grades = rng.integers(0, 3, n) if rng.random() < 0.75 else np.zeros(n, dtype=int)
        scores = rng.permutation(n) + rng.random()
        qrels[f"q{q}"] = {f"d{i}": int(g) for i, g in enumerate(grades)}
        run[f"q{q}"] = {f"d{i}": float(s) for i, s in enumerate(scores)}
    return qrels, run


def torchmetrics_fixture() -> dict:
    import torch
    import torchmetrics.retrieval as retrieval
    from test_measures_peers import TORCH_SPECS  # the live test's table: class, keyword arguments, rankmeter name

    from rankmeter.measures import parse_measure

    cases = []
    for seed in TORCH_SEEDS:
        qrels, run = _torch_case(seed)
        queries = sorted(qrels)
        values = []
        for cls_name, kwargs, name in TORCH_SPECS:
            for action in TORCH_ACTIONS:
                if cls_name == "RetrievalFallOut" or action != "neg":  # as test_torchmetrics_conventions
                    measure = str(parse_measure(name).with_params(empty_target_action=action)) if action != "neg" \
                        else name
                    arguments = dict(kwargs, empty_target_action=action)
                else:
                    measure, arguments = name, dict(kwargs)
                preds, target, index = [], [], []
                for i, q in enumerate(queries):
                    for d, score in run[q].items():
                        grade = qrels[q].get(d, 0)
                        preds.append(score)
                        target.append(grade if cls_name == "RetrievalNormalizedDCG" else int(grade >= 1))
                        index.append(i)
                metric = getattr(retrieval, cls_name)(**arguments)
                value = float(metric(torch.tensor(preds, dtype=torch.float64), torch.tensor(target),
                                     indexes=torch.tensor(index)))
                values.append({"class": cls_name, "kwargs": arguments, "rankmeter": measure, "value": value})
        cases.append({"seed": seed, "qrels": qrels, "run": run, "values": values})
    return {
        "provenance": {
            **_provenance("torchmetrics", "torchmetrics", "torchmetrics.retrieval.<class>(**kwargs)(preds float64, "
                          "target, indexes=query index) over the table TORCH_SPECS of tests/compat/test_measures_peers.py, "
                          "each with empty_target_action neg/pos/skip", TORCH_SEEDS,
                          "binary targets (grade >= 1) except RetrievalNormalizedDCG (the grades); compared to "
                          "rankmeter's mean at 1e-6 as the live test"),
            "torch": _version("torch"),
        },
        "cases": cases,
    }


# ---------------------------------------------------------------------------------------------- trectools pools

TRECTOOLS_SEEDS = range(4)
TRECTOOLS_DEPTHS = (1, 5, 10, 30)
TRECTOOLS_TAKES = (3, 10, 25)


def _pool_runs(seed: int, nruns: int = 3) -> list[str]:
    """Runs (TREC text) with distinct scores per query, rank column in score order."""
    rng = np.random.default_rng(seed)
    texts = []
    for r in range(nruns):
        lines = []
        for q in range(1, 6):
            docs = rng.choice(60, int(rng.integers(5, 40)), replace=False)
            scores = rng.permutation(len(docs)) * 1.5 + 0.25
            ranked = sorted(zip(docs, scores), key=lambda t: -t[1])
            lines += [f"{q} Q0 D{d} {i + 1} {float(s)} r{r}\n" for i, (d, s) in enumerate(ranked)]
        texts.append("".join(lines))
    return texts


def _take_ties(texts: list[str], n: int, priority: str) -> list[str]:
    """Queries whose n-th and (n+1)-th priorities tie: trectools keeps whichever pandas' sort puts first."""
    tied = []
    for q in sorted({line.split()[0] for text in texts for line in text.splitlines()}):
        priorities: dict[str, float] = {}
        for text in texts:
            docs = [line.split()[2] for line in text.splitlines() if line.split()[0] == q]
            for i, d in enumerate(docs):
                priorities[d] = priorities.get(d, 0.0) + (1 / (60 + i + 1) if priority == "rrf" else 0.2 * 0.8 ** i)
        ordered = sorted(priorities.values(), reverse=True)
        if len(ordered) > n and abs(ordered[n - 1] - ordered[n]) < 1e-12:
            tied.append(q)
    return tied


def trectools_fixture() -> dict:
    import tempfile

    import trectools

    cases = []
    for seed in TRECTOOLS_SEEDS:
        texts = _pool_runs(seed)
        with tempfile.TemporaryDirectory() as folder:
            paths = []
            for i, text in enumerate(texts):
                path = Path(folder) / f"r{i}.run"
                path.write_text(text)
                paths.append(str(path))
            maker = trectools.TrecPoolMaker()
            pools = []
            for k in TRECTOOLS_DEPTHS:
                pool = maker.make_pool_from_files(paths, strategy="topX", topX=k).pool
                pools.append({"depth": k, "pool": {str(q): sorted(docs) for q, docs in pool.items()}})
            for priority in ("rrf", "rbp"):
                for n in TRECTOOLS_TAKES:
                    pool = maker.make_pool_from_files(paths, strategy=priority, topX=n).pool
                    tied = _take_ties(texts, n, priority)
                    pools.append({"take": n, "priority": priority, "left_out_ties": tied,
                                  "pool": {str(q): sorted(docs) for q, docs in pool.items() if str(q) not in tied}})
        cases.append({"seed": seed, "runs": texts, "pools": pools})
    return {
        "provenance": _provenance("trectools", "trectools", "trectools.TrecPoolMaker().make_pool_from_files(paths, "
                                  "strategy='topX'|'rrf'|'rbp', topX=k).pool", TRECTOOLS_SEEDS,
                                  "three runs of five queries, distinct scores; take@N (RRF k=60, RBP p=0.8) leaves "
                                  "out queries whose N-th and (N+1)-th priorities tie (trectools' pick is then "
                                  "pandas' sort order)"),
        "cases": cases,
    }


# ---------------------------------------------------------------------------------------------- main

FIXTURES = {"pytrec_eval": pytrec_eval_fixture, "ir_measures": ir_measures_fixture, "ranx_fusion": ranx_fusion_fixture,
            "torchmetrics": torchmetrics_fixture, "trectools_pools": trectools_fixture}


def _text(data: dict) -> str:
    """Provenance indented for review; each case on one line (the files stay small, a diff names its case)."""
    head = {k: v for k, v in data.items() if k != "cases"}
    lines = json.dumps(head, indent=1, ensure_ascii=False, allow_nan=False)[:-2]
    cases = ",\n".join("  " + json.dumps(case, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
                        for case in data["cases"])
    return f'{lines},\n "cases": [\n{cases}\n ]\n}}\n'


def _without_date(text: str) -> dict:
    data = json.loads(text)
    data["provenance"].pop("generated", None)
    return data


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("oracles", nargs="*", metavar="ORACLE", help=f"which fixtures ({', '.join(FIXTURES)}); "
                        "default all")
    parser.add_argument("--check", action="store_true", help="regenerate in memory; exit 1 if a stored file differs")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.oracles) - set(FIXTURES))
    if unknown:
        parser.error(f"unknown oracle(s) {', '.join(unknown)}: choose from {', '.join(FIXTURES)}")
    OUT.mkdir(parents=True, exist_ok=True)
    status = 0
    for name in args.oracles or FIXTURES:
        text = _text(FIXTURES[name]())
        path = OUT / f"{name}.json"
        if args.check:
            same = path.exists() and _without_date(path.read_text(encoding="utf-8")) == _without_date(text)
            print(f"{path.relative_to(ROOT)}: {'up to date' if same else 'DIFFERS'}")
            status |= not same
        else:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(ROOT)} ({len(text) // 1024} KiB)")
    return status


if __name__ == "__main__":
    sys.exit(main())
