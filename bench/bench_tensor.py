"""rankmeter.tensor against TorchMetrics' retrieval metrics, side by side: one training step and one epoch.

* step: update + compute of one (8000, 40) batch (``--step-rows``, ``--step-width``), the median of
  ``--repeats`` runs, for nDCG@10, MAP and MRR: TorchMetrics' class, rankmeter's drop-in class of the same
  name on the same flat ``preds, target, indexes`` (the same values: ties averaged for nDCG, relevant docs
  counted at scores > 0 for MAP and MRR, as TorchMetrics 1.9 does; ``--whole-queries``: with
  ``whole_queries=True``) and rankmeter.tensor.Metric on ``[rows, candidates]``;
* epoch: ``--rows`` queries of ``--width`` candidates (1M x 100 by default) in batches of
  ``--step-rows``, update after update, one compute at the end, each tool in a child process of its
  own (wall time and peak memory from bench/child.py), TorchMetrics stopped after ``--timeout`` s.
  The drop-in runs with TorchMetrics' state (tool ``rankmeter``: every prediction kept) and with
  ``whole_queries=True`` (tool ``rankmeter-whole``, the ratio's side), which is run on a tenth of the
  rows too: its peak memory does not depend on the number of batches.
  TorchMetrics' time is linear in the queries (its compute loops over them; the sort of the stored
  ids grows a little faster), so when it is stopped, or given ``--torchmetrics-rows`` fewer rows, it
  is run on those (default a tenth) and its seconds are scaled to ``--rows``: marked "extrapolated",
  an underestimate of its full epoch.

Every time is given twice: wall seconds and the CPU seconds of the process (``time.process_time``,
every thread): on a shared machine other processes stretch wall time, not CPU time, so the ratios
are printed for both. Both sides run with the same torch thread count (``--threads``; torch's
intra-op threads contend with other processes, so say which). ``--device cuda`` runs both on the GPU
(CPU seconds then mean little).

    python bench/bench_tensor.py                       # the issue's sizes (the epoch takes minutes)
    python bench/bench_tensor.py --rows 20000 --repeats 3 --threads 1   # a quick run

A quick run's epoch is three updates, and rankmeter's first update pays the process's warm-up (its
heap grows: ~2000 page faults, 8 ms more than the next ones), so its epoch ratios understate the
full epoch's, where 125 updates share that cost.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

METRICS = {"nDCG@10": ("RetrievalNormalizedDCG", {"top_k": 10}), "MAP": ("RetrievalMAP", {}),
           "MRR": ("RetrievalMRR", {})}
OWN_NAMES = {"nDCG@10": ("nDCG@10", {"ties": "average"}),
             "MAP": ("AP(denom=hits)", {"positive_scores_only": True}),
             "MRR": ("RR", {"positive_scores_only": True})}


def _batch(torch, rows: int, width: int, seed: int, device: str, graded: bool):
    g = torch.Generator().manual_seed(seed)
    scores = torch.randn(rows, width, generator=g)
    targets = torch.randint(0, 4 if graded else 2, (rows, width), generator=g)
    return scores.to(device), targets.to(device)


def _sync(torch, device: str):
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def step(args) -> None:
    import torch
    import torchmetrics.retrieval as tm

    from rankmeter.tensor import Metric
    from rankmeter.tensor import torchmetrics as dropin

    print(f"step: update + compute of one ({args.step_rows}, {args.step_width}) batch, median of {args.repeats}, "
          f"device {args.device}, torch threads {torch.get_num_threads()}")
    print(f"{'metric':<9}{'TorchMetrics s':>15}{'drop-in s':>11}{'Metric s':>10}{'ratio':>9}{'ratio Metric':>14}"
          f"{'values (TorchMetrics / drop-in / Metric)':>44}")
    for label, (cls_name, kwargs) in METRICS.items():
        scores, targets = _batch(torch, args.step_rows, args.step_width, 0, args.device, label.startswith("nDCG"))
        indexes = torch.arange(args.step_rows, device=args.device).repeat_interleave(args.step_width)
        flat = (scores.flatten(), targets.flatten())
        own_name, own_options = OWN_NAMES[label]

        def theirs():
            metric = getattr(tm, cls_name)(**kwargs).to(args.device)
            metric.update(*flat, indexes=indexes)
            return float(metric.compute())

        def ours():
            metric = getattr(dropin, cls_name)(**kwargs, whole_queries=args.whole_queries).to(args.device)
            metric.update(*flat, indexes=indexes)
            return float(metric.compute())

        def ours_rows():
            metric = Metric(own_name, **own_options)
            metric.update(scores, targets)
            return float(metric.compute()[own_name])

        times, cpu, values = {}, {}, {}
        for name, fn in (("tm", theirs), ("dropin", ours), ("rows", ours_rows)):
            values[name] = fn()   # warm-up (and the value)
            runs, cpu_runs = [], []
            for _ in range(args.repeats):
                _sync(torch, args.device)
                start, start_cpu = time.perf_counter(), time.process_time()
                fn()
                _sync(torch, args.device)
                runs.append(time.perf_counter() - start)
                cpu_runs.append(time.process_time() - start_cpu)
            times[name], cpu[name] = statistics.median(runs), statistics.median(cpu_runs)
        print(f"{label:<9}{times['tm']:>15.4f}{times['dropin']:>11.4f}{times['rows']:>10.4f}"
              f"{times['tm'] / times['dropin']:>8.1f}x{times['tm'] / times['rows']:>13.1f}x"
              f"{values['tm']:>16.6f} / {values['dropin']:.6f} / {values['rows']:.6f}")
        print(f"{'  CPU s':<9}{cpu['tm']:>15.4f}{cpu['dropin']:>11.4f}{cpu['rows']:>10.4f}"
              f"{cpu['tm'] / cpu['dropin']:>8.1f}x{cpu['tm'] / cpu['rows']:>13.1f}x")


def epoch_child(args) -> None:
    """One tool over one epoch (run in a child process); prints JSON: value and seconds."""
    import torch
    if args.threads:
        torch.set_num_threads(args.threads)
    cls_name, kwargs = METRICS[args.metric]
    if args.tool == "torchmetrics":
        import torchmetrics.retrieval as tm
        metric = getattr(tm, cls_name)(**kwargs).to(args.device)
    else:
        from rankmeter.tensor import torchmetrics as dropin
        metric = getattr(dropin, cls_name)(**kwargs, whole_queries=args.tool == "rankmeter-whole").to(args.device)
    seconds = cpu = 0.0   # in the metric's update and compute only, not in making the batches
    done = 0
    while done < args.rows:
        rows = min(args.step_rows, args.rows - done)
        scores, targets = _batch(torch, rows, args.width, done, args.device, args.metric.startswith("nDCG"))
        indexes = torch.arange(done, done + rows, device=args.device).repeat_interleave(args.width)
        _sync(torch, args.device)
        start, start_cpu = time.perf_counter(), time.process_time()
        metric.update(scores.flatten(), targets.flatten(), indexes=indexes)
        _sync(torch, args.device)
        seconds += time.perf_counter() - start
        cpu += time.process_time() - start_cpu
        done += rows
    start, start_cpu = time.perf_counter(), time.process_time()
    value = float(metric.compute())
    _sync(torch, args.device)
    print(json.dumps({"value": value, "seconds": seconds + time.perf_counter() - start,
                      "cpu": cpu + time.process_time() - start_cpu}))


def epoch(args) -> None:
    from child import run_child

    print(f"\nepoch: {args.rows} queries x {args.width} candidates in batches of {args.step_rows}, one compute; "
          f"each tool in its own process (TorchMetrics stopped after {args.timeout:.0f} s)")
    print(f"{'metric':<9}{'tool':<26}{'rows':>9}{'wall s':>10}{'CPU s':>10}{'peak MiB':>10}{'value':>12}   (seconds: "
          "in update and compute; peak: the whole process)")
    base = [sys.executable, __file__, "--device", args.device, "--width", str(args.width),
            "--step-rows", str(args.step_rows)] + (["--threads", str(args.threads)] if args.threads else [])

    def run(tool: str, label: str, rows: int, timeout):
        """(wall s, CPU s, peak MiB, value) of one child, or None when stopped or failed (printed)."""
        child = run_child(base + ["--child", "--tool", tool, "--metric", label, "--rows", str(rows)], timeout=timeout)
        if child.status is None:
            print(f"{label:<9}{tool:<26}{rows:>9}{'>' + format(args.timeout, '.0f'):>10}{'':>10}{child.peak_mib:>10.0f}"
                  f"{'stopped':>12}")
            return None
        if child.status != 0:
            print(f"{label:<9}{tool:<26}{rows:>9}  failed: {child.stderr.strip().splitlines()[-1:]}")
            return None
        result = json.loads(child.stdout.strip().splitlines()[-1])
        print(f"{label:<9}{tool:<26}{rows:>9}{result['seconds']:>10.2f}{result['cpu']:>10.2f}{child.peak_mib:>10.0f}"
              f"{result['value']:>12.6f}")
        return result["seconds"], result["cpu"], child.peak_mib, result["value"]

    for label in METRICS:
        theirs = None
        if not args.skip_torchmetrics_epoch and label in args.torchmetrics_epoch:
            sample = args.torchmetrics_rows or args.rows
            theirs = run("torchmetrics", label, sample, args.timeout)
            if theirs is None and sample == args.rows:
                sample = max(args.rows // 10, 1)
                theirs = run("torchmetrics", label, sample, args.timeout)
            if theirs is not None and sample != args.rows:
                scale = args.rows / sample
                theirs = (theirs[0] * scale, theirs[1] * scale, None, None)
                print(f"{label:<9}{'torchmetrics extrapolated':<26}{args.rows:>9}{theirs[0]:>10.2f}{theirs[1]:>10.2f}"
                      f"{'':>10}{'':>12}   (x{scale:g}, linear in the queries)")
        run("rankmeter", label, args.rows, None)   # TorchMetrics' state: every prediction, grouped at compute
        ours = run("rankmeter-whole", label, args.rows, None)
        run("rankmeter-whole", label, max(args.rows // 10, 1), None)
        if theirs is not None and ours is not None:
            print(f"{label:<9}{'ratio TorchMetrics/rankmeter':<35}{theirs[0] / ours[0]:>9.1f}x{theirs[1] / ours[1]:>9.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="cpu", help="cpu or cuda (default cpu)")
    parser.add_argument("--step-rows", type=int, default=8000)
    parser.add_argument("--step-width", type=int, default=40)
    parser.add_argument("--rows", type=int, default=1_000_000, help="queries in the epoch (default 1M)")
    parser.add_argument("--width", type=int, default=100, help="candidates per query in the epoch (default 100)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", type=int, default=0, help="torch threads for both sides (default: torch's)")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds before TorchMetrics' epoch is stopped")
    parser.add_argument("--torchmetrics-rows", type=int, default=0,
                        help="run TorchMetrics' epoch on this many rows and scale its seconds to --rows (default: "
                             "all the rows; a tenth of them when the full run is stopped after --timeout)")
    parser.add_argument("--skip-torchmetrics-epoch", action="store_true")
    parser.add_argument("--whole-queries", action="store_true",
                        help="step: the drop-in with whole_queries=True (bounded state) instead of TorchMetrics' state")
    parser.add_argument("--torchmetrics-epoch", nargs="*", default=list(METRICS), metavar="METRIC",
                        help="the metrics TorchMetrics runs the epoch for (default: all; each can take minutes)")
    parser.add_argument("--no-epoch", action="store_true", help="only the per-step table")
    parser.add_argument("--no-step", action="store_true", help="only the epoch table")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--tool", help=argparse.SUPPRESS)
    parser.add_argument("--metric", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        epoch_child(args)
        return
    import torch
    if args.threads:
        torch.set_num_threads(args.threads)
    if not args.no_step:
        step(args)
    if not args.no_epoch:
        epoch(args)


if __name__ == "__main__":
    main()
