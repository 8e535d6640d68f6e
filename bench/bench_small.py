"""Small TREC-style runs, side by side with trec_eval 10.0 (C): start-up, default measures, all_trec, many runs.

usage: python bench/bench_small.py --trec-eval /path/to/trec_eval [--repeat 5] [--runs 20]

Makes a TREC ad hoc shaped case (100 topics x 1000 docs, 2000 judgments per topic; ``make_adhoc``)
under bench/data/, then times whole processes, alternating the two tools so load hits both alike:

* ``import rankmeter`` and ``rankmeter --help`` (start-up);
* ``rankmeter trec_eval QRELS RUN`` vs ``trec_eval QRELS RUN`` (default measures) and with ``-m all_trec``;
* the five measures of bench_trec_eval.py (map, P.10, ndcg_cut.10, recip_rank, recall.1000) on one run,
  rankmeter beside trec_eval and beside pytrec_eval, ir_measures and ranx (each its own process, through
  bench_trec_eval.py's workers; peers that are not installed are skipped);
* ``rankmeter eval QRELS RUN1 .. RUNn -m map ...`` (the qrels prepared once) vs a loop of trec_eval
  over the same n runs, and the cost of the 2nd..nth run against the first inside one process.

Prints medians, the ratio per pair and peak RSS (getrusage of the children).

``--stages`` prints instead where one ``rankmeter trec_eval`` process spends its time, step by step (start-up,
imports, reading, preparing the qrels, batches and kernels summed over the parts and threads, output), in CPU
seconds, which a shared machine's load changes far less than wall time, beside trec_eval's CPU on the same
files: the 100k-line case by default, any files with ``--files QRELS RUN`` (the 7M-line MS MARCO case:
``--files bench/data/msmarco/qrels.txt bench/data/msmarco/run.txt``), measures with ``-m`` as trec_eval takes them.
"""
from __future__ import annotations

import sys
import time


def stage_child(trec_eval_args: list[str]) -> None:
    """In a fresh process: run ``rankmeter trec_eval ARGS`` with its steps timed; print them as JSON."""
    start_cpu = time.process_time()  # the interpreter's start-up and site, before any of rankmeter's imports
    import json
    import os
    import resource
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as the command's entry sets it for trec_eval
    steps: dict[str, list[float]] = {}

    def add(label: str, wall: float, cpu: float) -> None:
        totals = steps.setdefault(label, [0.0, 0.0, 0])
        totals[0] += wall
        totals[1] += cpu
        totals[2] += 1

    def timed(module, name: str, label: str, clock=time.process_time) -> None:
        """Time ``module.name``: by the process's CPU (a step that runs alone, its reader threads too)
        or, for the steps the parts run on two threads at once, by the calling thread's CPU."""
        original = getattr(module, name)

        def wrapper(*args, **kwargs):
            wall, cpu = time.perf_counter(), clock()
            try:
                return original(*args, **kwargs)
            finally:
                add(label, time.perf_counter() - wall, clock() - cpu)
        setattr(module, name, wrapper)

    wall, cpu = time.perf_counter(), time.process_time()
    import numpy  # noqa: F401
    add("import numpy", time.perf_counter() - wall, time.process_time() - cpu)
    wall, cpu = time.perf_counter(), time.process_time()
    import rankmeter.cli.app as app
    sys.meta_path.insert(0, app._NoPandas())  # as the command does
    import rankmeter.cli.trec_eval as command
    import rankmeter.compat.trec_eval.ideal_dcg  # noqa: F401
    import rankmeter.core.evaluator as evaluator
    import rankmeter.core.in_memory  # noqa: F401
    import rankmeter.io as rio
    add("import rankmeter (its own modules)", time.perf_counter() - wall, time.process_time() - cpu)
    for module, name, label in [(rio, "read_run", "read the run"), (rio, "read_qrels", "read the qrels"),
                                (evaluator.Evaluator, "__init__", "prepare the qrels (Evaluator)"),
                                (evaluator.Evaluator, "finish", "put the parts together"),
                                (command, "_render", "format the output")]:
        timed(module, name, label)
    timed(evaluator, "build_batch", "order + join: build the batches", time.thread_time)
    timed(evaluator.Evaluator, "kernels", "kernels (every measure, every part)", time.thread_time)
    wall, cpu = time.perf_counter(), time.process_time()
    with open(os.devnull, "wb") as out:
        command.run(trec_eval_args, out=out)
    run_wall, run_cpu = time.perf_counter() - wall, time.process_time() - cpu
    timed_cpu = sum(cpu for label, (_, cpu, _) in steps.items() if not label.startswith("import"))
    steps["the rest of the command (measure names, cutting into parts, columns)"] = [0.0, run_cpu - timed_cpu, 1]
    steps["python start-up (interpreter, site)"] = [0.0, start_cpu, 1]
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({"steps": steps, "total_cpu": usage.ru_utime + usage.ru_stime,
                      "run_wall": run_wall, "peak_mib": usage.ru_maxrss / 1024, "pyarrow": "pyarrow" in sys.modules}))


if __name__ == "__main__" and sys.argv[1:2] == ["--stage-child"]:  # before the imports below: not counted
    stage_child(sys.argv[sys.argv.index("--") + 1:])
    sys.exit(0)

import argparse  # noqa: E402
import importlib.util  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
from pathlib import Path  # noqa: E402

from child import run_child  # noqa: E402

DATA = Path(__file__).resolve().parent / "data"


def make_adhoc(folder: Path, *, topics: int = 100, depth: int = 1000, judged: int = 2000, runs: int = 20,
               seed: int = 7) -> tuple[Path, list[Path]]:
    folder.mkdir(parents=True, exist_ok=True)
    qrels = folder / "adhoc.qrels"
    paths = [folder / f"adhoc{i:02d}.run" for i in range(runs)]
    if qrels.exists() and all(p.exists() for p in paths):
        return qrels, paths
    import numpy as np
    rng = np.random.default_rng(seed)
    pool = 5 * judged // 2
    with open(qrels, "w") as q:
        for t in range(topics):
            for j in rng.choice(pool, judged, replace=False):
                q.write(f"{301 + t} 0 FBIS{t}-{j:05d} {int(rng.random() < 0.1) + int(rng.random() < 0.03)}\n")
    for i, path in enumerate(paths):
        with open(path, "w") as r:
            for t in range(topics):
                docs = rng.choice(pool, depth, replace=False)
                scores = np.sort(rng.random(depth) * 20)[::-1]
                r.writelines(f"{301 + t} Q0 FBIS{t}-{d:05d} {k + 1} {s:.4f} run{i}\n"
                             for k, (d, s) in enumerate(zip(docs, scores)))
    return qrels, paths


def side_by_side(label: str, ours: list[str], theirs: list[str] | None, repeat: int, *,
                 peer: str = "trec_eval") -> None:
    pairs = []
    for _ in range(repeat):
        a = _timed(ours)
        b = _timed(theirs) if theirs else None
        pairs.append((a, b))
    ours_s = statistics.median(p[0][0] for p in pairs)
    line = f"{label:<44} rankmeter {ours_s:6.3f} s, {max(p[0][1] for p in pairs):4.0f} MiB"
    if theirs:
        theirs_s = statistics.median(p[1][0] for p in pairs)
        ratio = statistics.median(p[0][0] / p[1][0] for p in pairs)
        peak = max(p[1][1] for p in pairs)
        line += f"   {peer} {theirs_s:6.3f} s, {peak:4.0f} MiB   ratio {ratio:5.2f}"
    print(line, flush=True)


def _timed(argv: list[str]) -> tuple[float, float]:
    """Wall seconds and the peak RSS (MiB) of this one child process."""
    child = run_child(argv)
    if child.status:
        raise SystemExit(f"failed ({child.status}): {' '.join(argv)}")
    return child.wall, child.peak_mib


def stages(qrels: Path, run: Path, measures: list[str], trec_eval: str | None, repeat: int) -> None:
    """The medians of ``repeat`` stage children (and of trec_eval's CPU on the same files), as a table."""
    import json
    import os
    args = [a for m in measures for a in ("-m", m)] + [str(qrels), str(run)]
    child = [sys.executable, str(Path(__file__).resolve()), "--stage-child", "--", *args]
    results = []
    for _ in range(repeat):
        done = run_child(child)
        if done.status:
            raise SystemExit(f"failed ({done.status}): {done.stderr.strip()[-2000:]}")
        results.append(json.loads(done.stdout.strip().splitlines()[-1]))
    c_cpu = []
    for _ in range(repeat if trec_eval else 0):
        proc = subprocess.Popen([trec_eval, *args], stdout=subprocess.DEVNULL)
        _, _, usage = os.wait4(proc.pid, 0)
        c_cpu.append(usage.ru_utime + usage.ru_stime)
    total = statistics.median(r["total_cpu"] for r in results)
    print(f"\nrankmeter trec_eval {' '.join(args)}: where one process spends its CPU (medians of {repeat}; "
          "parts and threads summed)\n")
    print("| step | CPU s | share | calls |")
    print("|---|---:|---:|---:|")
    order = ["python start-up (interpreter, site)"] + [k for k in results[0]["steps"] if k.startswith("import")]
    order += [k for k in results[0]["steps"] if k not in order]
    for label in order:
        cpu = statistics.median(r["steps"].get(label, [0, 0, 0])[1] for r in results)
        calls = results[0]["steps"].get(label, [0, 0, 0])[2]
        print(f"| {label} | {cpu:.3f} | {cpu / total:.0%} | {calls} |")
    print(f"| **total (getrusage)** | {total:.3f} | 100% | |")
    if c_cpu:
        print(f"| trec_eval 10.0 (C), same files | {statistics.median(c_cpu):.3f} | ratio "
              f"{total / statistics.median(c_cpu):.2f} | |")
    print(f"\npeak RSS {max(r['peak_mib'] for r in results):.0f} MiB; the command's wall time "
          f"{statistics.median(r['run_wall'] for r in results):.3f} s after its imports; pyarrow imported: "
          f"{'yes' if any(r['pyarrow'] for r in results) else 'no'}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trec-eval", help="the trec_eval 10.0 binary (built by shared/anchors/build_trec_eval.sh)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--stages", action="store_true", help="where one trec_eval process spends its time, step by step")
    ap.add_argument("--files", nargs=2, type=Path, metavar=("QRELS", "RUN"), help="--stages on these files")
    ap.add_argument("-m", dest="measures", action="append", help="--stages: trec_eval measures (default: "
                    "its default set, then all_trec)")
    args = ap.parse_args()
    from bytecode import compile_rankmeter
    compile_rankmeter()  # as an installed copy has it (bench/bytecode.py)
    if args.stages:
        qrels, run = args.files if args.files else (make_adhoc(DATA, runs=1)[0], DATA / "adhoc00.run")
        for measures in [args.measures] if args.measures else [[], ["all_trec"]]:
            stages(qrels, run, measures, args.trec_eval, args.repeat)
        return 0
    qrels, runs = make_adhoc(DATA, runs=args.runs)
    rankmeter = [sys.executable, "-c", "import _rankmeter_cli; _rankmeter_cli.main()"]
    te = args.trec_eval
    side_by_side("python start-up alone (floor)", [sys.executable, "-c", "pass"], None, args.repeat)
    side_by_side("import numpy (the compiled text path's floor)",  # one OpenBLAS thread, as eval and trec_eval set
                 ["env", "OPENBLAS_NUM_THREADS=1", sys.executable, "-c", "import numpy"], None, args.repeat)
    side_by_side("numpy + pyarrow imports (the Arrow path's floor)",
                 [sys.executable, "-c", "import numpy, pyarrow, pyarrow.compute, pyarrow.csv"], None, args.repeat)
    side_by_side("import rankmeter", [sys.executable, "-c", "import rankmeter"], None, args.repeat)
    side_by_side("rankmeter --help", rankmeter + ["--help"], None, args.repeat)
    side_by_side("100k-line run, default measures", rankmeter + ["trec_eval", str(qrels), str(runs[0])],
                 [te, str(qrels), str(runs[0])] if te else None, args.repeat)
    side_by_side("100k-line run, -m all_trec", rankmeter + ["trec_eval", "-m", "all_trec", str(qrels), str(runs[0])],
                 [te, "-m", "all_trec", str(qrels), str(runs[0])] if te else None, args.repeat)
    measures = ["-m", "map", "-m", "P.10", "-m", "ndcg_cut.10", "-m", "recall.1000", "-m", "recip_rank"]
    five = rankmeter + ["trec_eval", *measures, str(qrels), str(runs[0])]
    if te:
        side_by_side("100k-line run, five measures", five, [te, *measures, str(qrels), str(runs[0])], args.repeat)
    worker = [sys.executable, str(Path(__file__).resolve().parent / "bench_trec_eval.py"), "--worker"]
    for tool in ("pytrec_eval", "ir_measures", "ranx"):
        if importlib.util.find_spec(tool) is None:
            print(f"{tool} is not installed: skipped")
            continue
        side_by_side("100k-line run, five measures", five, worker + [tool, str(qrels), str(runs[0])],
                     args.repeat, peer=tool)
    loop = None
    if te:
        loop = ["bash", "-c", " ".join(f"{te} {' '.join(measures)} {qrels} {r} >/dev/null;" for r in runs)]
    side_by_side(f"{len(runs)} runs, one qrels (eval vs a trec_eval loop)",
                 rankmeter + ["eval", str(qrels), *map(str, runs), *measures], loop, args.repeat)

    # inside one process: the first run pays for preparing the qrels, the others do not
    import rankmeter as rm
    evaluator_start = time.perf_counter()
    evaluator = rm.Evaluator(str(qrels), ["map", "P.10", "ndcg_cut.10", "recip_rank", "recall.1000"])
    prepare = time.perf_counter() - evaluator_start
    costs = []
    for path in runs:
        t0 = time.perf_counter()
        evaluator.evaluate(str(path))
        costs.append(time.perf_counter() - t0)
    first = prepare + costs[0]
    later = statistics.median(costs[1:])
    print(f"{'one Evaluator, first run (incl. qrels)':<44} {first:6.3f} s; later runs median {later:6.3f} s "
          f"(ratio {later / first:4.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
