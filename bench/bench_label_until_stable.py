"""What ``judges label --until-stable`` saves: draws spent against uniform draws for the same verdict accuracy.

usage: python bench/bench_label_until_stable.py [--pairs 20000] [--seed 0] [--server-pairs 200]

A judge of known noise: each pair's probability ``p`` of a relevant grade is drawn from a mixture like an LLM
judge's (most pairs nearly sure either way, some near the middle): 40% Beta(0.5, 8), 40% Beta(8, 0.5), 20%
uniform. A pair's verdict is the majority of its draws (a tie counts half right); it is right when it agrees
with ``p >= 1/2``. For each --until-stable setting (start, most draws, level) the simulation uses the stop rule
label uses (rankmeter.judges.stopping.unstable) and prints the draws spent per pair and the verdict accuracy,
beside the smallest uniform number of draws per pair that is at least as accurate, and the share of calls
saved. Then the same through ``judges label`` itself against the loopback judge (tests.judges.draws_server)
for ``--server-pairs`` pairs: the calls the server counted.
"""
from __future__ import annotations

import argparse
import random
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rankmeter.judges.draws import unstable  # noqa: E402


def world(n: int, rng: random.Random) -> list[float]:
    out = []
    for _ in range(n):
        u = rng.random()
        out.append(rng.betavariate(0.5, 8) if u < 0.4 else rng.betavariate(8, 0.5) if u < 0.8 else rng.random())
    return out


def verdict_right(k: int, n: int, p: float) -> float:
    if 2 * k == n:
        return 0.5
    return float((2 * k > n) == (p >= 0.5))


def until_stable(ps, rng, *, start, most, level):
    draws = right = 0.0
    for p in ps:
        grades = [int(rng.random() < p) for _ in range(start)]
        while len(grades) < most and unstable(grades, rel=1, level=level):
            grades.append(int(rng.random() < p))
        draws += len(grades)
        right += verdict_right(sum(grades), len(grades), p)
    return draws / len(ps), right / len(ps)


def uniform(ps, n):
    """The expected accuracy of n uniform draws a pair, exactly (binomial), over the pairs."""
    from math import comb
    return sum(sum(comb(n, k) * p ** k * (1 - p) ** (n - k) * verdict_right(k, n, p) for k in range(n + 1))
               for p in ps) / len(ps)


def through_label(n_pairs: int, seed: int) -> None:
    from rankmeter.judges.labelling import label
    from tests.judges.draws_server import DrawServer, write_world
    rng = random.Random(seed)
    probabilities = {f"p{i}": [1 - p, 0, 0, p] for i, p in enumerate(world(n_pairs, rng))}
    with tempfile.TemporaryDirectory() as tmp:
        paths = write_world(tmp, probabilities, queries=10)
        for mode in ("uniform", "until-stable"):
            with DrawServer(probabilities, seed=seed) as server:
                kw = dict(samples=9) if mode == "uniform" else dict(samples=2, until_stable=True, max_samples=15)
                got = label(queries=paths["queries"], docs=paths["docs"], pool=paths["pool"], base_url=server.url,
                            model="m", temperature=0.7, cache=Path(tmp) / f"{mode}.db", progress=False, rel=1,
                            concurrency=8, **kw)
                right = 0.0
                for (q, d), key in paths["pairs"].items():
                    g = got.grades(q, d)
                    right += verdict_right(sum(x >= 1 for x in g), len(g), probabilities[key][3])
                print(f"  judges label {mode:12} ({kw}): {sum(server.calls.values())} calls counted by the server "
                      f"({sum(server.calls.values()) / n_pairs:.2f} a pair), verdict accuracy {right / n_pairs:.4f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--server-pairs", type=int, default=200)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    ps = world(args.pairs, rng)
    accuracy = {n: uniform(ps, n) for n in range(1, 32, 2)}
    print(f"{args.pairs} pairs; uniform draws per pair -> verdict accuracy (exact, binomial):")
    print("  " + ", ".join(f"{n}: {a:.4f}" for n, a in accuracy.items()))
    print("until-stable (start, most, level): draws a pair, accuracy | fewest uniform draws as accurate: saved")
    for start, most, level in ((2, 10, 0.95), (2, 15, 0.95), (3, 15, 0.95), (2, 15, 0.8), (2, 31, 0.95)):
        spent, acc = until_stable(ps, random.Random(args.seed + 100), start=start, most=most, level=level)
        match = next((n for n, a in accuracy.items() if a >= acc), None)
        saved = "none as accurate up to 31" if match is None else f"{match} ({1 - spent / match:.0%} of calls saved)"
        print(f"  ({start}, {most}, {level}): {spent:.2f}, {acc:.4f} | {saved}")
    if args.server_pairs:
        print(f"through judges label against the loopback judge, {args.server_pairs} pairs:")
        through_label(args.server_pairs, args.seed)


if __name__ == "__main__":
    main()
