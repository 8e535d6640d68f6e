"""Regenerate tests/fixtures/llm_judges/: the outputs of UMBRELA, TREC AutoJudge and nuggetizer on inputs.

None of the three installs cleanly from PyPI at the commits rankmeter matches, so their outputs are
stored; this script recomputes them by running each project's own code from a checkout at the pinned
commit, outside the rankmeter tree (a temporary folder), and writes only inputs and outputs (never
their code). Run it with an interpreter that has numpy, scipy, pandas, scikit-learn and matplotlib,
Python >= 3.12 (UMBRELA's modules use ``type X = ...``)::

    python3.12 -m venv /tmp/oracle && /tmp/oracle/bin/pip install numpy scipy pandas scikit-learn matplotlib
    /tmp/oracle/bin/python tools/regen_llm_judge_fixtures.py [--mirror DIR] [--out DIR]

``--mirror DIR`` holds bare git copies named ``castorini+umbrela/repo`` etc. (default /work/.mirror);
a project missing there is cloned from GitHub. The random inputs are seeded: a rerun writes the same
files unless a reference changed.
"""
from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import json
import os
import random
import subprocess
import sys
import tempfile
import types
from pathlib import Path

PINS = {"umbrela": ("castorini/umbrela", "e2c4e41"),
        "autojudge": ("trec-auto-judge/auto-judge-code", "5d121df"),
        "nuggetizer": ("castorini/nuggetizer", "d00dc3e")}


def checkout(name: str, mirror: Path, into: Path) -> Path:
    """The project's tree at its pinned commit, extracted under ``into``."""
    repo, commit = PINS[name]
    git_dir = mirror / repo.replace("/", "+") / "repo"
    if not git_dir.exists():
        git_dir = into / f"{name}.git"
        subprocess.run(["git", "clone", "--bare", "--quiet", f"https://github.com/{repo}", str(git_dir)], check=True)
    full = subprocess.run(["git", "--git-dir", str(git_dir), "rev-parse", commit], check=True, capture_output=True,
                          text=True).stdout.strip()
    tree = into / name
    tree.mkdir()
    archive = subprocess.run(["git", "--git-dir", str(git_dir), "archive", full], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    return tree, full


def load(path: Path, module_name: str):
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


# ---------------------------------------------------------------- UMBRELA: mode aggregation, kappa, confusion

def umbrela_cases() -> list[dict]:
    """Human qrels (grades 0-3) and LLM samples per pair, in sample order."""
    own = {"name": "umbrela sample.qrels", "human": [["1", "d0", 0], ["1", "d1", 1], ["1", "d2", 2], ["1", "d3", 3]],
           "samples": [[0, 0, 1], [2, 1, 1], [3, 2, 2], [3, 3, 1]]}
    tie = {"name": "ties: first label seen wins", "human": [["1", "d0", 0], ["1", "d1", 1], ["1", "d2", 2],
                                                           ["1", "d3", 3], ["2", "d0", 1], ["2", "d9", 2]],
           "samples": [[2, 1], [1, 2], [3, 0, 0, 3], [1, 2, 3], [0, 1, 1, 0], [2, 2, 3, 3]]}
    cases = [own, tie]
    rng = random.Random(24)
    for c in range(12):
        k = rng.choice([1, 2, 3, 4, 5])
        human, samples = [], []
        for q in range(rng.randint(1, 6)):
            for d in range(rng.randint(1, 15)):
                g = rng.choice([0, 0, 0, 1, 1, 2, 3])
                human.append([f"{100 + q}", f"doc{d}", g])
                samples.append([min(3, max(0, g + rng.choice([-2, -1, 0, 0, 0, 1, 2]))) for _ in range(k)])
        cases.append({"name": f"random {c}", "human": human, "samples": samples})
    return cases


def umbrela_outputs(tree: Path, cases: list[dict], work: Path) -> list[dict]:
    import matplotlib
    matplotlib.use("Agg")
    sys.path.insert(0, str(tree / "src"))
    from umbrela import evaluation
    from umbrela.utils import common_utils, qrel_utils

    qrel_utils.get_qrels_file = lambda path: path          # a local file: no pyserini lookup
    qrel_utils.prepare_query_passage = lambda holes, qrel: [("q", "p")] * len(holes)  # the fake judge reads none
    seen: dict = {}
    real_kappa, real_confusion = common_utils.cohen_kappa_score, common_utils.confusion_matrix

    def kappa(gts, preds, *args, **kwargs):
        seen.setdefault("kappa", []).append(float(real_kappa(gts, preds, *args, **kwargs)))
        return seen["kappa"][-1]

    def confusion(gts, preds, *args, **kwargs):
        seen["labels"] = sorted(set(map(int, gts)) | set(map(int, preds)))
        seen["confusion"] = real_confusion(gts, preds, *args, **kwargs).tolist()
        return real_confusion(gts, preds, *args, **kwargs)

    common_utils.cohen_kappa_score, common_utils.confusion_matrix = kappa, confusion

    class Judge:
        """Answers each hole with the case's samples, in UMBRELA's order (holes by human grade, samples in a row)."""
        def __init__(self, qrel, labels_of):
            self.qrel, self.labels_of = qrel, labels_of
            self.model_name, self.few_shot_count = "fixture", 0
            self.holes = None

        def judge(self, holes_qp, preprocess=False, max_new_tokens=200):
            out = []
            for i in range(len(holes_qp)):
                out.append({"judgment": self.labels[i], "result_status": 1})
            return out

    results = []
    os.chdir(work)
    for n, case in enumerate(cases):
        path = work / f"human{n}.qrels"
        path.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in case["human"]))
        key = {(q, d): s for (q, d, _), s in zip(case["human"], case["samples"])}
        k = len(case["samples"][0]) if all(len(s) == len(case["samples"][0]) for s in case["samples"]) else None
        modes = {}
        for width in sorted({len(s) for s in case["samples"]}):
            # UMBRELA samples every hole num_samples times: run once per sample count, on the pairs with it
            sub = [(q, d, g) for q, d, g in case["human"] if len(key[(q, d)]) == width]
            sub_path = work / f"human{n}_{width}.qrels"
            sub_path.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in sub))
            holes, _ = qrel_utils.generate_holes(str(sub_path), judge_cat=[0, 1, 2, 3])
            judge = Judge(str(sub_path), None)
            judge.labels = [label for q, d in holes for label in key[(_text(q), _text(d))]]
            with contextlib.redirect_stdout(io.StringIO()):
                written = evaluation.evaluate_judge_results(judge, result_file=None, num_samples=width, regenerate=True,
                                                            return_results_path=True)
            for line in Path(written).read_text().splitlines():
                q, _, d, g = line.split()
                modes[(q, d)] = int(g)
        # pair-level figures: UMBRELA's evaluation with one sample per pair, the sample being the mode
        seen.clear()
        holes, _ = qrel_utils.generate_holes(str(path), judge_cat=[0, 1, 2, 3])
        judge = Judge(str(path), None)
        judge.labels = [modes[(_text(q), _text(d))] for q, d in holes]
        with contextlib.redirect_stdout(io.StringIO()):
            evaluation.evaluate_judge_results(judge, result_file=None, num_samples=1, regenerate=True)
        results.append({"name": case["name"], "human": case["human"], "samples": case["samples"],
                        "uniform_samples": k is not None,
                        "mode": [[q, d, modes[(q, d)]] for q, d, _ in case["human"]],
                        "cohen_kappa": seen["kappa"][0], "cohen_kappa_binary_rel2": seen["kappa"][1],
                        "confusion_labels": seen["labels"], "confusion": seen["confusion"]})
    return results


def _text(value) -> str:
    return str(value)


# ---------------------------------------------------------------- TREC AutoJudge: leaderboard correlations

def autojudge_cases() -> list[dict]:
    up = list(range(1, 11))
    own = [("perfect 01", up, [10 * v for v in up]), ("perfect 02", up, up),
           ("top switch", up, [10, 20, 30, 40, 50, 60, 70, 80, 100, 90]),
           ("bottom switch", up, [20, 10, 30, 40, 50, 60, 70, 80, 90, 100]),
           ("reverse 01", up, [-10 * v for v in up]), ("reverse 02", up, [-v for v in up]),
           ("EXAMPLE_02 M1 vs M2", [4, 3, 2, 1], [1, 3, 2, 4]), ("EXAMPLE_02 M2 vs M2", [4, 3, 2, 1], [4, 3, 2, 1])]
    cases = [{"name": n, "a": list(map(float, a)), "b": list(map(float, b))} for n, a, b in own]
    rng = random.Random(2024)
    for c in range(300):
        n = rng.randint(3, 14)
        levels = rng.choice([3, 5, 8, 1000])    # few levels: many ties
        a = [rng.randint(0, levels) / levels for _ in range(n)]
        b = [rng.randint(0, levels) / levels for _ in range(n)]
        if c % 10 == 0:
            b = [a[0]] * n                       # one side all alike
        cases.append({"name": f"random {c}", "a": a, "b": b})
    return cases


def autojudge_outputs(tree: Path, cases: list[dict]) -> list[dict]:
    import math
    import warnings

    tira = types.ModuleType("tira")
    check_format = types.ModuleType("tira.check_format")
    check_format.TrecEvalLeaderboard, check_format._fmt = object, object  # only the leaderboard reader uses tira
    sys.modules["tira"], sys.modules["tira.check_format"] = tira, check_format
    package = types.ModuleType("trec_auto_judge")   # the package without its __init__ (pydantic, LLM clients)
    package.__path__ = [str(tree / "trec_auto_judge")]
    sys.modules["trec_auto_judge"] = package
    from trec_auto_judge import evaluation

    out = []
    for case in cases:
        row = {**case}
        for key, call in (("kendall", lambda a, b: evaluation.correlation(a, b, "kendall")),
                          ("pearson", lambda a, b: evaluation.correlation(a, b, "pearson")),
                          ("spearman", lambda a, b: evaluation.correlation(a, b, "spearman")),
                          ("tauap_b", evaluation.tauap_b)):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    value = float(call(case["a"], case["b"]))
                row[key] = None if math.isnan(value) else value
            except (ZeroDivisionError, ValueError) as exc:
                row[key] = None
                row[f"{key}_error"] = type(exc).__name__
        out.append(row)
    return out


# ---------------------------------------------------------------- nuggetizer: nugget scores

def nuggetizer_records(seed: int, count: int) -> list[dict]:
    rng = random.Random(seed)
    records = []
    for r in range(count):
        nuggets = [{"text": f"nugget {i}", "importance": rng.choice(["vital", "okay"]),
                    "assignment": rng.choice(["support", "partial_support", "not_support", "support", "failed"])}
                   for i in range(rng.choice([0, 1, 2, 3, 5, 8, 13]))]
        records.append({"qid": f"q{r}", "run_id": f"sys{seed}", "nuggets": nuggets})
    return records


def nuggetizer_outputs(tree: Path, records: list[dict]) -> dict:
    metrics = load(tree / "src" / "nuggetizer" / "core" / "metrics.py", "nuggetizer_metrics_fixture")
    per = [metrics.calculate_nugget_scores(r["qid"], r["nuggets"]) for r in records]
    return {"per_record": [{"qid": m.qid, "strict_vital_score": m.strict_vital_score,
                            "strict_all_score": m.strict_all_score, "vital_score": m.vital_score,
                            "all_score": m.all_score} for m in per],
            "global": metrics.calculate_global_metrics(records)}


def main() -> int:
    here = Path(__file__).resolve().parent.parent
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--out", type=Path, default=here / "tests" / "fixtures" / "llm_judges")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        trees = {name: checkout(name, args.mirror, tmp) for name in PINS}
        provenance = {name: {"repository": PINS[name][0], "commit": full} for name, (_, full) in trees.items()}
        provenance["python"] = sys.version.split()[0]
        import numpy
        import pandas
        import scipy
        import sklearn
        provenance["libraries"] = {"numpy": numpy.__version__, "scipy": scipy.__version__,
                                   "pandas": pandas.__version__, "scikit-learn": sklearn.__version__}
        work = tmp / "work"
        work.mkdir()
        umbrela = umbrela_outputs(trees["umbrela"][0], umbrela_cases(), work)
        autojudge = autojudge_outputs(trees["autojudge"][0], autojudge_cases())
        systems = {f"sys{seed}": nuggetizer_records(seed, 40) for seed in range(3)}
        nuggets = {name: nuggetizer_outputs(trees["nuggetizer"][0], records) for name, records in systems.items()}
    for name, records in systems.items():
        (args.out / f"nuggetizer_{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    for name, data in (("umbrela", umbrela), ("autojudge", autojudge), ("nuggetizer", nuggets)):
        (args.out / f"{name}.json").write_text(json.dumps({"provenance": provenance, "cases": data}, indent=1) + "\n")
    print(f"wrote {args.out}: {len(umbrela)} UMBRELA cases, {len(autojudge)} AutoJudge cases, "
          f"{sum(len(r) for r in systems.values())} nuggetizer records")
    return 0


if __name__ == "__main__":
    sys.exit(main())
