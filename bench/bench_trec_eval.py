#!/usr/bin/env python3
"""Time ``rankmeter trec_eval`` against pytrec_eval, ir_measures and ranx.

usage: python bench/bench_trec_eval.py [--repeat N] [--data DIR] [--profile] [--trec-eval PATH]

The case is MS MARCO-shaped: 6980 queries x 1000 retrieved docs, about 30
judged docs per query (made once by make_synthetic.py into ``bench/data/``,
which git ignores). Every tool runs as its own process, from reading the two
files to the five means (MAP, nDCG@10, RR, R@1000, P@10), ``--repeat`` times;
the table gives the median and best wall time and the peak resident memory
(from ``os.wait4``'s rusage of each process) and the ratio of medians to
pytrec_eval. The means of every tool are printed and compared with
pytrec_eval's (rankmeter prints 4 decimals, so it must agree to 5e-5); the
exit status is 1 when rankmeter's disagree.

``--profile`` runs rankmeter in this process instead and prints where the time
goes: reading each file, building the batch (split into the phases of
``rankmeter.core.build`` by timing the functions it calls), each kernel, and
the output.

Tools that are not installed (ranx usually) are skipped.
"""
from __future__ import annotations

import argparse
import importlib.util
import io
import json
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from child import run_child

HERE = Path(__file__).resolve().parent
SHAPE = (6980, 1000, 30)  # queries, depth, judged per query
DEFAULT_DATA = HERE / "data" / "msmarco"

#: trec_eval label, trec_eval -m argument, ir_measures name, ranx name.
MEASURES = [
    ("map", "map", "AP", "map"),
    ("ndcg_cut_10", "ndcg_cut.10", "nDCG@10", "ndcg@10"),
    ("recip_rank", "recip_rank", "RR", "mrr"),
    ("recall_1000", "recall.1000", "R@1000", "recall@1000"),
    ("P_10", "P.10", "P@10", "precision@10"),
]
TOOLS = ["rankmeter", "pytrec_eval", "ir_measures", "ranx"]


# -- workers: each runs in its own process and prints {label: mean} as JSON ------------------------

def _worker_pytrec_eval(qrels_path: str, run_path: str) -> dict[str, float]:
    import pytrec_eval
    with open(qrels_path) as f:
        qrels = pytrec_eval.parse_qrel(f)
    with open(run_path) as f:
        run = pytrec_eval.parse_run(f)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {arg for _, arg, _, _ in MEASURES})
    per_query = evaluator.evaluate(run)
    return {label: pytrec_eval.compute_aggregated_measure(label, [v[label] for v in per_query.values()])
            for label, _, _, _ in MEASURES}


def _worker_ir_measures(qrels_path: str, run_path: str) -> dict[str, float]:
    import ir_measures
    measures = {ir_measures.parse_measure(name): label for label, _, name, _ in MEASURES}
    qrels = ir_measures.read_trec_qrels(qrels_path)
    run = ir_measures.read_trec_run(run_path)
    means = ir_measures.calc_aggregate(list(measures), qrels, run)
    return {label: float(means[m]) for m, label in measures.items()}


def _worker_ranx(qrels_path: str, run_path: str) -> dict[str, float]:
    from ranx import Qrels, Run, evaluate
    qrels = Qrels.from_file(qrels_path, kind="trec")
    run = Run.from_file(run_path, kind="trec")
    means = evaluate(qrels, run, [name for _, _, _, name in MEASURES])
    return {label: float(means[name]) for label, _, _, name in MEASURES}


WORKERS = {"pytrec_eval": _worker_pytrec_eval, "ir_measures": _worker_ir_measures, "ranx": _worker_ranx}


# -- the driver ---------------------------------------------------------------------------------------

def ensure_data(data: Path) -> tuple[Path, Path]:
    qrels, run = data / "qrels.txt", data / "run.txt"
    if not (qrels.exists() and run.exists()):
        print(f"generating {data} ({SHAPE[0]} queries x {SHAPE[1]} docs, ~{SHAPE[2]} judged) ...", flush=True)
        subprocess.run([sys.executable, str(HERE / "make_synthetic.py"), str(data), *map(str, SHAPE)], check=True)
    return qrels, run


def _lines(path: Path) -> int:
    with open(path, "rb") as f:
        return sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 24), b""))


def rankmeter_command() -> list[str]:
    script = Path(sys.executable).parent / "rankmeter"
    if script.exists():
        return [str(script)]
    found = shutil.which("rankmeter")
    return [found] if found else [sys.executable, "-m", "rankmeter"]


def tool_command(tool: str, qrels: Path, run: Path) -> list[str]:
    if tool == "rankmeter":
        args = [a for _, arg, _, _ in MEASURES for a in ("-m", arg)]
        return rankmeter_command() + ["trec_eval", *args, str(qrels), str(run)]
    return [sys.executable, str(Path(__file__).resolve()), "--worker", tool, str(qrels), str(run)]


def available(tool: str) -> bool:
    module = {"rankmeter": "rankmeter", "pytrec_eval": "pytrec_eval", "ir_measures": "ir_measures",
              "ranx": "ranx"}[tool]
    return importlib.util.find_spec(module) is not None


def parse_means(tool: str, stdout: str) -> dict[str, float]:
    if tool != "rankmeter":
        return json.loads(stdout.strip().splitlines()[-1])
    means = {}
    for line in stdout.splitlines():
        parts = line.split("\t")
        if len(parts) == 3 and parts[1] == "all" and parts[0].strip() != "runid":
            means[parts[0].strip()] = float(parts[2])
    return means


def run_once(cmd: list[str]) -> tuple[float, float, str]:
    """Wall seconds, peak RSS in MiB and stdout of one process."""
    child = run_child(cmd)
    if child.status != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {child.status}: {child.stderr.strip()[-2000:]}")
    return child.wall, child.peak_mib, child.stdout


def all_trec(repeat: int, data: Path, binary: str) -> None:
    """``-m all_trec`` by rankmeter trec_eval and the C trec_eval, alternating, outputs compared byte for byte."""
    qrels, run = ensure_data(data)
    pairs = []
    for i in range(repeat):
        ours = run_once(rankmeter_command() + ["trec_eval", "-m", "all_trec", str(qrels), str(run)])
        theirs = run_once([binary, "-m", "all_trec", str(qrels), str(run)])
        pairs.append((ours, theirs))
        print(f"all_trec run {i + 1}/{repeat}: rankmeter {ours[0]:.2f} s {ours[1]:.0f} MiB, "
              f"trec_eval {theirs[0]:.2f} s {theirs[1]:.0f} MiB", flush=True)
    same = all(o[2] == t[2] for o, t in pairs)
    ratio = statistics.median(o[0] / t[0] for o, t in pairs)
    print(f"\n-m all_trec: rankmeter {statistics.median(o[0] for o, _ in pairs):.2f} s, peak "
          f"{max(o[1] for o, _ in pairs):.0f} MiB; trec_eval 10.0 {statistics.median(t[0] for _, t in pairs):.2f} s, "
          f"peak {max(t[1] for _, t in pairs):.0f} MiB; median ratio per pair {ratio:.2f}; output "
          f"{'byte-identical' if same else 'DIFFERS'}")


def benchmark(repeat: int, data: Path) -> int:
    qrels, run = ensure_data(data)
    results, means = {}, {}
    for tool in TOOLS:
        if not available(tool):
            print(f"{tool}: not installed, skipped", flush=True)
            continue
        cmd = tool_command(tool, qrels, run)
        times, peaks = [], []
        for i in range(repeat):
            wall, peak, out = run_once(cmd)
            times.append(wall)
            peaks.append(peak)
            print(f"{tool} run {i + 1}/{repeat}: {wall:.2f} s, {peak:.0f} MiB", flush=True)
        results[tool] = (statistics.median(times), min(times), max(peaks))
        means[tool] = parse_means(tool, out)

    labels = [label for label, _, _, _ in MEASURES]
    reference = means.get("pytrec_eval")
    print("\nmeans (" + ", ".join(labels) + "):")
    status = 0
    for tool, values in means.items():
        row = "  ".join(f"{values.get(label, float('nan')):.6f}" for label in labels)
        verdict = ""
        if reference is not None and tool != "pytrec_eval":
            tol = 5e-5 + 1e-12 if tool == "rankmeter" else 1e-6
            diffs = {label: abs(values.get(label, float("nan")) - reference[label]) for label in labels}
            bad = [label for label, d in diffs.items() if not d <= tol]
            verdict = "agrees with pytrec_eval" if not bad else "DIFFERS from pytrec_eval on " + ", ".join(
                f"{label} ({diffs[label]:.2e})" for label in bad)
            if bad and tool == "ranx":
                verdict += " (ranx orders tied scores differently)"
            if bad and tool == "rankmeter":
                status = 1
        print(f"  {tool:12s} {row}  {verdict}")

    base = results.get("pytrec_eval", (None,))[0]
    print(f"\n{data}: {_lines(qrels)} qrels lines, {_lines(run)} run lines; {repeat} runs each, "
          f"separate processes\n")
    print("| tool | median s | min s | peak MiB | ratio to pytrec_eval |")
    print("|---|---:|---:|---:|---:|")
    for tool, (median, best, peak) in results.items():
        ratio = f"{median / base:.2f}" if base else "n/a"
        print(f"| {tool} | {median:.2f} | {best:.2f} | {peak:.0f} | {ratio} |")
    return status


# -- --profile: rankmeter in this process, phase by phase ---------------------------------------------

class _Timer:
    """Exclusive time per phase: a timed call inside another is not counted twice."""

    def __init__(self):
        self.spent: dict[str, float] = {}
        self._inner: list[float] = []  # time of timed calls nested in each open call

    def wrap(self, module, name: str, phase: str) -> None:
        """Time every call of ``module.name`` under ``phase`` (skipped when the name is gone)."""
        original = getattr(module, name, None) if module is not None else None
        if original is None:
            return
        timer = self

        def timed(*args, **kwargs):
            timer._inner.append(0.0)
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                elapsed = time.perf_counter() - start
                nested = timer._inner.pop()
                timer.spent[phase] = timer.spent.get(phase, 0.0) + elapsed - nested
                if timer._inner:
                    timer._inner[-1] += elapsed

        setattr(module, name, timed)


def _rss_mib() -> float:
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def profile(data: Path) -> int:
    qrels_path, run_path = ensure_data(data)
    import rankmeter.core.build as build
    import rankmeter.core.judgments as judgments
    import rankmeter.engine.keys as keys
    import rankmeter.io.compiled as compiled
    import rankmeter.io.source as source
    from rankmeter.measures.trec_eval import expand, format_value
    from rankmeter.core import Evaluator
    from rankmeter.io import read_qrels, read_run

    timer = _Timer()
    for module, name, phase in [
            (source, "load_bytes", "load file bytes"), (compiled, "_parse_all", "compiled parse"),
            (keys, "id_hash", "ids -> hashes"), (keys, "HashIndex", "hash index (sort)"),
            (judgments, "duplicate_rows", "duplicate check"), (build, "rank_order", "rank order (score, docno)"),
            (build, "local_queries", "query ids -> codes")]:
        timer.wrap(module, name, phase)

    rows: list[tuple[str, float, float | None]] = []

    def step(label, fn):
        timer.spent.clear()
        start = time.perf_counter()
        value = fn()
        spent = time.perf_counter() - start
        rows.append((label, spent, _rss_mib()))
        phases = sorted(timer.spent.items(), key=lambda kv: -kv[1])
        if phases:
            for phase, s in phases:
                rows.append((f"&nbsp;&nbsp;{phase}", s, None))
            rows.append(("&nbsp;&nbsp;rest", spent - sum(s for _, s in phases), None))
        return value

    t0 = time.perf_counter()
    entries = step("parse measure names", lambda: [(lbl, m) for lbl, _, m in expand([a for _, a, _, _ in MEASURES])])
    qrels = step("read qrels", lambda: read_qrels(str(qrels_path), format="trec"))
    run = step("read run", lambda: read_run(str(run_path), format="trec"))
    measures = [m.with_params(rel=1) if m.get("rel") is None else m for _, m in entries]
    evaluator = step("prepare qrels (Evaluator)", lambda: Evaluator(qrels, measures))
    batch = step("order + join (build batch)", lambda: evaluator.batch(run))
    values = {}
    for (label, _), m in zip(entries, measures):
        values.update(step(f"kernel {label}", lambda m=m: evaluator.kernels(batch, [m])))

    def output():
        buf = io.BytesIO()
        for label, m in zip((lbl for lbl, _ in entries), measures):
            buf.write(b"%-22s\tall\t%s\n" % (label.encode(), format_value(m, m.summarize(values[m])).encode()))
        return buf.getvalue()

    text = step("summaries + output", output)
    total = time.perf_counter() - t0

    print(f"rankmeter in-process ({len(batch.queries)} queries, {len(batch.rel)} ranked rows); "
          "imports not included\n")
    print("| step | s | share | peak RSS MiB after |")
    print("|---|---:|---:|---:|")
    for label, spent, rss in rows:
        print(f"| {label} | {spent:.3f} | {spent / total:.0%} | {'' if rss is None else f'{rss:.0f}'} |")
    print(f"| **total** | {total:.3f} | 100% | {_rss_mib():.0f} |\n")
    sys.stdout.write(text.decode())
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5, help="runs per tool (default 5)")
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA, help="folder with qrels.txt and run.txt")
    ap.add_argument("--profile", action="store_true", help="profile rankmeter in-process instead")
    ap.add_argument("--trec-eval", metavar="PATH", help="also time -m all_trec against this trec_eval 10.0 binary")
    ap.add_argument("--worker", nargs=3, metavar=("TOOL", "QRELS", "RUN"), help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    from bytecode import compile_rankmeter
    compile_rankmeter()  # as an installed copy has it (bench/bytecode.py)
    if a.worker:
        tool, qrels, run = a.worker
        print(json.dumps(WORKERS[tool](qrels, run)))
        return 0
    if a.repeat < 1:
        ap.error("--repeat must be at least 1")
    if a.profile:
        return profile(a.data)
    status = benchmark(a.repeat, a.data)
    if a.trec_eval:
        all_trec(a.repeat, a.data, a.trec_eval)
    return status


if __name__ == "__main__":
    sys.exit(main())
