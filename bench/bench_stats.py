"""Time the resampling tests: 10,000 permutations x 5,000 queries x 5 systems.

usage: python bench/bench_stats.py [--repeat N]
Prints the median and min wall time of each test over N runs (default 5).
"""
import argparse
import statistics
import time

import numpy as np

from rankmeter.stats.significance import bootstrap, randomization, tukey_hsd


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    scores = np.random.default_rng(0).random((5000, 5))
    diffs = scores[:, 1:] - scores[:, :1]
    cases = {
        "randomization, 4 pairs vs baseline": lambda: randomization(diffs, permutations=10000, seed=0),
        "bootstrap, 4 pairs vs baseline": lambda: bootstrap(diffs, permutations=10000, seed=0),
        "tukey HSD, 5 systems": lambda: tukey_hsd(scores, permutations=10000, seed=0),
    }
    print("| test (10,000 x 5,000 queries) | median s | min s |")
    print("|---|---|---|")
    for name, fn in cases.items():
        times = []
        for _ in range(a.repeat):
            t = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t)
        print(f"| {name} | {statistics.median(times):.2f} | {min(times):.2f} |")


if __name__ == "__main__":
    main()
