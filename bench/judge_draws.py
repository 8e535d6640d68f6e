"""The judge's draw noise at scale: coverage of the intervals, each pair's P(relevant) interval, drawing until
stable against uniform draws, and allocate's sizing, with a judge of known per-pair probabilities
(tests/judges/known_judge.py; the tests run the same simulations small).

usage: python bench/judge_draws.py [--reps 4000] [--seed 0] [--parts coverage,fixed,pass,stable,allocate,tau,tau-why]

Every coverage is printed with its Monte-Carlo standard error, sqrt(c (1 - c) / reps).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "judges"), str(ROOT / "tests")]

from known_judge import dcg10, draw, expected_dcg10, population  # noqa: E402
from until_stable import uniform, until_stable  # noqa: E402

from rankmeter.judges.allocation import design_rows, labels_needed  # noqa: E402
from rankmeter.judges.draws import ranking_agreement, two_stage_mean  # noqa: E402
from rankmeter.judges.ppi_means import classical_mean, ppi_mean  # noqa: E402
from rankmeter.judges.stopping import wilson  # noqa: E402


def shown(hits, reps) -> str:
    c = hits / reps
    return f"{c:.4f} (MC se {np.sqrt(c * (1 - c) / reps):.4f})"


def coverage(rng, reps: int) -> None:
    human, probs = population(rng, 20_000)
    orders = [np.argsort(-(s * human + rng.normal(0, 1, human.shape)), axis=1, kind="stable") for s in (1.2, 0.7)]
    expected = [expected_dcg10(probs, o) for o in orders]
    truth_human = dcg10(human.astype(float), orders[0])
    pop = [e.mean() for e in expected]
    for Q, m in ((100, 3), (50, 5)):
        hits = dict.fromkeys(("two-stage", "one draw as fixed (t over queries)", "redraw (these queries)",
                              "one draw as fixed, these queries", "difference two-stage", "difference one draw",
                              "difference redraw", "PPI++ one draw", "PPI++ mean of draws"), 0)
        share = []
        for _ in range(reps):
            which = rng.choice(len(human), Q, replace=False)
            grades = draw(rng, probs[which], m)
            v = [np.stack([dcg10(grades[..., d], o[which]) for d in range(m)], axis=1) for o in orders]
            these = [e[which].mean() for e in expected]
            two, one = two_stage_mean(v[0]), classical_mean(v[0][:, 0])
            hits["two-stage"] += two["low"] <= pop[0] <= two["high"]
            hits["one draw as fixed (t over queries)"] += one["low"] <= pop[0] <= one["high"]
            hits["redraw (these queries)"] += two["redraw"]["low"] <= these[0] <= two["redraw"]["high"]
            hits["one draw as fixed, these queries"] += v[0][:, 0].mean() == these[0]     # no interval: a point
            diff, one_d = two_stage_mean(v[0] - v[1]), classical_mean(v[0][:, 0] - v[1][:, 0])
            hits["difference two-stage"] += diff["low"] <= pop[0] - pop[1] <= diff["high"]
            hits["difference one draw"] += one_d["low"] <= pop[0] - pop[1] <= one_d["high"]
            hits["difference redraw"] += diff["redraw"]["low"] <= these[0] - these[1] <= diff["redraw"]["high"]
            n = Q // 3
            y = truth_human[which][:n]
            for key, f in (("PPI++ one draw", v[0][:, 0]), ("PPI++ mean of draws", v[0].mean(1))):
                e = ppi_mean(y, f[:n], f[n:], small_sample=True)
                hits[key] += e["low"] <= truth_human.mean() <= e["high"]
            share.append(two["judge_share"])
        print(f"\n{Q} queries of 20,000, {m} draws a pair, {reps} repetitions; judge's share of the two-stage "
              f"variance {np.mean(share):.3f}")
        for key, h in hits.items():
            print(f"  {key:<40} {shown(h, reps)}")


def fixed_collection(rng, reps: int) -> None:
    """Treating one draw as fixed, against the collection's mean of the judge's expected DCG@10: N queries, Q of
    them evaluated. One draw's finite-population interval drops the judge's part of the variance, which the
    queries' part no longer hides once Q / N is large."""
    from rankmeter.stats.student import stdtrit

    print("\ntreating one draw as fixed: each run's mean and a pair's difference, the truth the collection's mean of "
          "the judge's expected DCG@10")
    for N, Q, m, unsettled in ((20_000, 100, 3, 0.3), (200, 100, 2, 0.3), (200, 160, 3, 0.6), (200, 200, 2, 0.6)):
        human, probs = population(rng, N, uncertain=unsettled)
        orders = [np.argsort(-(s * human + rng.normal(0, 1, human.shape)), axis=1, kind="stable") for s in (1.2, 0.7)]
        truth = [expected_dcg10(probs, o).mean() for o in orders]
        finite = N if N < 20_000 else None
        f = Q / N if finite else 0.0
        t = stdtrit(Q - 1, 0.975)
        hits = {(k, kind): 0 for k in ("mean", "difference") for kind in ("two", "fixed", "plain")}
        share = []
        for _ in range(reps):
            which = rng.choice(N, Q, replace=False)
            grades = draw(rng, probs[which], m)
            v = [np.stack([dcg10(grades[..., d], o[which]) for d in range(m)], axis=1) for o in orders]
            for key, values, want in (("mean", v[0], truth[0]), ("difference", v[0] - v[1], truth[0] - truth[1])):
                got = two_stage_mean(values, population=finite)
                hits[key, "two"] += got["low"] <= want <= got["high"]
                one = values[:, 0]
                for kind, keep in (("fixed", 1 - f), ("plain", 1.0)):
                    half = t * np.sqrt(keep * np.var(one, ddof=1) / Q)
                    hits[key, kind] += one.mean() - half <= want <= one.mean() + half
                if key == "mean":
                    share.append(got["judge_share"])
        print(f"  {Q} of {N} queries (f = {f:.2f}), {m} draws a pair, {unsettled:.0%} of pairs unsettled, {reps} "
              f"repetitions; judge's share of the two-stage variance {np.mean(share):.3f}")
        for key in ("mean", "difference"):
            print(f"    {key:<10} queries and draws {shown(hits[key, 'two'], reps)}; one draw as fixed "
                  f"{shown(hits[key, 'fixed'], reps)}; one draw, no finite-population correction "
                  f"{shown(hits[key, 'plain'], reps)}")


def pass_probability(rng, reps: int) -> None:
    print("\neach pair's 95% Wilson interval of P(relevant) holding its true probability (p ~ Beta(0.7, 0.7))")
    pairs = reps * 5
    p = rng.beta(0.7, 0.7, pairs)
    for n in (3, 5, 10, 20, 40):
        k = rng.binomial(n, p)
        low, high = wilson(k, np.full(pairs, n))
        hit = int(((low <= p) & (p <= high)).sum())
        flagged = (low < 0.5) & (high > 0.5)
        print(f"  {n:>2} draws: {shown(hit, pairs)}; unstable {flagged.mean():.3f} of pairs "
              f"(of those with |p - 1/2| > 0.3: {flagged[np.abs(p - 0.5) > 0.3].mean():.3f})")


def stable_against_uniform(rng, reps: int) -> None:
    _, probs = population(rng, 50, 10, uncertain=0.3)
    p = probs[..., 2:].sum(-1).ravel()
    truth = (p > 0.5).mean()

    def verdict(hits, n):
        share = hits / n
        return np.where(share == 0.5, rng.random(len(share)) < 0.5, share > 0.5).mean()

    def spread(sample):
        return float(np.std(sample, ddof=1)), float(np.sqrt(np.mean((np.array(sample) - truth) ** 2)))

    print(f"\nuntil stable (start 3, at most 25) against uniform draws, {len(p)} pairs, majority-verdict P@10, "
          f"{reps // 4} repetitions")
    uniform_sd = {k: spread([verdict(*uniform(rng, p, k)) for _ in range(reps // 4)]) for k in range(3, 31, 2)}
    for k in (5, 9, 15):
        calls, got = [], []
        for _ in range(reps // 4):
            hits, n = until_stable(rng, p, start=3, most=25, budget=k * len(p))
            calls.append(n.sum())
            got.append(verdict(hits, n))
        sd, rmse = spread(got)
        same = next((u for u, (s, _) in uniform_sd.items() if s <= sd), None)
        print(f"  budget {k} a pair ({k * len(p)} calls): until stable spent {np.mean(calls):.0f}, sd {sd:.4f} "
              f"(RMSE {rmse:.4f}); uniform at {k}: sd {uniform_sd.get(k, spread([verdict(*uniform(rng, p, k)) for _ in range(reps // 4)]))[0]:.4f}; "
              f"uniform reaches sd {sd:.4f} at " + (f"{same} draws a pair ({same * len(p)} calls: "
                                                    f"{1 - np.mean(calls) / (same * len(p)):.0%} saved)"
                                                    if same else "more than 30 draws a pair"))


def allocate_sizing(rng, reps: int) -> None:
    from statistics import NormalDist

    def before(y, f, fu, width):        # the sizing before issue 41: the runs' average, normal, biased variances
        lam = ppi_mean(y, f, fu)["lam"]
        total = len(f) + len(fu)
        n = np.arange(2, total)
        z = NormalDist().inv_cdf(0.975)
        w = 2 * z * np.sqrt(np.var(lam * fu) / (total - n) + np.var(y - lam * f) / n)
        ok = np.flatnonzero(w <= width)
        return int(n[ok[0]]) if len(ok) else None

    from test_ppi import _judge, _ndcg10         # tests/judges/test_ppi.py

    queries, pilot = 200, 40
    for width in (0.05, 0.1):
        got = {"before": [], "after": []}
        for _ in range(reps // 20):
            grades = rng.choice([0, 0, 0, 1, 1, 2, 3], size=(queries, 20)).astype(float)
            order = [np.argsort(-(s * grades + rng.normal(0, 1, grades.shape)), axis=1, kind="stable")
                     for s in (1.2, 0.7)]
            llm = _judge(rng, grades.astype(int)).astype(float)
            y, _ = design_rows([_ndcg10(grades, o) for o in order], target="both")
            f, _ = design_rows([_ndcg10(llm, o) for o in order], target="both")
            sizes = {"before": before(y[:2, :pilot].mean(0), f[:2, :pilot].mean(0), f[:2, pilot:].mean(0), width),
                     "after": labels_needed(y[:, :pilot], f[:, :pilot], f[:, pilot:], width)}
            for kind, n in sizes.items():
                n = queries - 1 if n is None else max(n, pilot)
                got[kind].append([n] + [(lambda e: e["high"] - e["low"])(
                    ppi_mean(y[k, :n], f[k, :n], f[k, n:], small_sample=True)) for k in range(3)])
        print(f"\nallocate --width {width}: two runs, a pilot of {pilot} of {queries} queries, {reps // 20} worlds")
        for kind, rows in got.items():
            rows = np.array(rows)
            print(f"  {kind:<6} labelled {np.median(rows[:, 0]):.0f} (median); widths (run a, run b, a - b) "
                  f"{np.round(np.median(rows[:, 1:], 0), 4).tolist()}; at most {width}: "
                  f"{np.round((rows[:, 1:] <= width).mean(0), 3).tolist()}, all three "
                  f"{(rows[:, 1:] <= width).all(1).mean():.3f}")


def tau_worlds(rng):
    """Three worlds of 8 systems over 20,000 queries: ``near-tied``, systems that differ only in where they put the
    grade-1 documents (neighbours 0.01 to 0.2 standard errors of 60 queries apart: the population's tau is set by
    differences no sample of 60 queries can see); ``separated``, systems mixing the human grade with the judge's
    own lean (its expected gain less the human grade: systems built with the same model as the judge), so the
    judge ranks them otherwise than humans do and its population tau is 0.5, not 1 (three pairs of the judge's
    top are still 0.3-0.8 standard errors of 150 queries apart); and ``apart``, systems of growing skill, every
    other one leaning the judge's way, whose closest pair is 0.85 standard errors of 30 queries apart (4 of 600):
    as queries grow every sample ranks them as the population does."""
    human, probs = population(rng, 20_000)
    gain = probs @ np.arange(4.0)
    near = [1.0 * human + b * (human == 1) for b in np.linspace(-0.8, 0.8, 8)]
    apart = [(0.4 + 0.15 * k) * human + b * (gain - human)
             for k, b in enumerate((0.0, 1.2, 0.2, 1.0, 0.0, 0.8, 0.3, 0.0))]
    skilled = [k * human + b * (gain - human) for k, b in zip((0.1, 0.3, 0.6, 1.0, 1.6, 2.5, 4.0, 7.0), (0, 4) * 4)]
    out = {}
    for name, scores in (("near-tied", near), ("separated", apart), ("apart", skilled)):
        orders = [np.argsort(-(s + rng.normal(0, 1, human.shape)), axis=1, kind="stable") for s in scores]
        out[name] = human, probs, orders
    return out


def tau_coverage(rng, reps: int) -> None:
    from rankmeter.meta.correlation import kendall_tau, tau_ap

    reps = max(reps // 8, 50)
    for world, (human, probs, orders) in tau_worlds(rng).items():
        h_pop = np.array([dcg10(human.astype(float), o).mean() for o in orders])
        f_pop = np.array([expected_dcg10(probs, o).mean() for o in orders])
        truth = {"kendall_tau": kendall_tau(f_pop, h_pop), "tau_ap": tau_ap(f_pop, h_pop)}
        for Q in {"near-tied": (60,), "separated": (30, 60, 150), "apart": (30, 150, 600)}[world]:
            hits = {(k, kind): 0 for k in truth for kind in ("draws", "one draw", "exact")}
            shares, estimates, unresolved = [], {k: [] for k in truth}, []
            for _ in range(reps):
                which = rng.choice(len(human), Q, replace=False)
                grades = draw(rng, probs[which], 3)
                h = np.array([dcg10(human[which].astype(float), o[which]) for o in orders])
                f = np.array([np.stack([dcg10(grades[..., d], o[which]) for d in range(3)], axis=1) for o in orders])
                seed = int(rng.integers(1 << 31))
                got = ranking_agreement(h, f, reps=400, seed=seed)
                one = ranking_agreement(h, f[..., :1], reps=400, seed=seed)
                for k, t in truth.items():
                    hits[k, "draws"] += got[k]["low"] <= t <= got[k]["high"]
                    hits[k, "one draw"] += one[k]["low"] <= t <= one[k]["high"]
                    hits[k, "exact"] += abs(got[k]["estimate"] - t) < 1e-12
                    estimates[k].append(got[k]["estimate"])
                shares.append(got["kendall_tau"]["judge_share"] or 0.0)
                unresolved.append(got["unresolved_pairs"])
            print(f"\n{world} systems, {Q} queries of 20,000, 3 draws, {reps} repetitions (400 resamples): judge's "
                  f"share of tau's variance {np.mean(shares):.3f}; system pairs unresolved {np.mean(unresolved):.1f} "
                  f"of 28")
            for k, t in truth.items():
                print(f"  {k:<12} population {t:.3f}, mean estimate {np.mean(estimates[k]):.3f}: covered, mean of "
                      f"the draws {shown(hits[k, 'draws'], reps)}; one draw as fixed {shown(hits[k, 'one draw'], reps)}; the "
                      f"estimate is the population's in {shown(hits[k, 'exact'], reps)} (the least coverage of any "
                      f"interval holding it)")


def calibrated_percentile(f, h, picks, rng, inner: int = 100, alpha: float = 0.05):
    """The percentile interval of (Kendall's tau, tau_ap) at levels calibrated by a second bootstrap level (Davison
    and Hinkley 1997, 3.9): ``inner`` resamples of each of the resamples ``picks`` (resamples, queries) say how
    often the percentile limit at level q holds the sample's value; each tail's level is set where that rate is
    alpha / 2. Returns ((low, high) of tau, (low, high) of tau_ap) and the levels."""
    from rankmeter.meta.correlation import kendall_tau_rows, tau_ap_rows

    def both(a, b):
        return np.stack([kendall_tau_rows(a, b), tau_ap_rows(a, b)])

    systems, queries = f.shape
    values = np.concatenate([f, h])
    t = both(f.mean(1)[None], h.mean(1)[None])
    first = values[:, picks].mean(2).T
    outer = both(first[:, :systems], first[:, systems:])
    at_most, below = np.empty_like(outer), np.empty_like(outer)
    step = max(1, (1 << 21) // (2 * systems * inner * queries))
    for a in range(0, len(picks), step):
        b = min(len(picks), a + step)
        again = np.take_along_axis(picks[a:b, None, :], rng.integers(0, queries, (b - a, inner, queries)), 2)
        second = values[:, again].mean(3).reshape(2 * systems, -1).T
        deeper = both(second[:, :systems], second[:, systems:]).reshape(2, b - a, inner)
        at_most[:, a:b] = (deeper <= t[..., None] + 1e-12).mean(2)
        below[:, a:b] = (deeper < t[..., None] - 1e-12).mean(2)
    levels = [(np.quantile(at_most[k], alpha / 2), np.quantile(below[k], 1 - alpha / 2)) for k in range(2)]
    return [np.nanquantile(outer[k], levels[k]) for k in range(2)], levels


def tau_why(rng, reps: int) -> None:
    """Why the percentile interval of Kendall's tau over-covers in the separated world: the spread of its bootstrap
    against the spread of the estimate over repetitions (a variance counted twice would show there), the
    coverage of three intervals from the same resamples, and each system pair's flip rate in samples and in
    resamples (the bootstrap of a sign is not its sampling distribution), and the percentile interval at levels a
    second bootstrap level calibrates (which sees the first level's over-coverage magnified and over-corrects)."""
    from statistics import NormalDist

    from rankmeter.meta.correlation import kendall_tau, tau_ap

    human, probs, orders = tau_worlds(rng)["separated"]
    h_pop = np.array([dcg10(human.astype(float), o).mean() for o in orders])
    f_pop = np.array([expected_dcg10(probs, o).mean() for o in orders])
    statistics = {"kendall_tau": kendall_tau, "tau_ap": lambda a, b: tau_ap(a, b)}
    truth = {k: fn(f_pop, h_pop) for k, fn in statistics.items()}
    i, j = np.triu_indices(len(orders), 1)
    order_pop = np.sign(f_pop[i] - f_pop[j]) * np.sign(h_pop[i] - h_pop[j])
    normal = NormalDist()
    z = normal.inv_cdf(0.975)
    reps, resamples = max(reps // 8, 50), 1000
    for Q in (30, 60, 150):
        hits = {(k, kind): 0 for k in statistics for kind in ("percentile", "estimate +- z sd", "bias-corrected",
                                                                  "calibrated")}
        estimates, spreads = {k: [] for k in statistics}, {k: [] for k in statistics}
        flips, flips_resampled = np.zeros(len(i)), np.zeros(len(i))
        level_sums = []
        for _ in range(reps):
            which = rng.choice(len(human), Q, replace=False)
            grades = draw(rng, probs[which], 3)
            h = np.array([dcg10(human[which].astype(float), o[which]) for o in orders])
            f = np.array([np.stack([dcg10(grades[..., d], o[which]) for d in range(3)], axis=1) for o in orders])
            f = f.mean(2)
            picks = rng.integers(0, Q, (resamples, Q))
            hb, fb = h[:, picks].mean(2), f[:, picks].mean(2)          # (systems, resamples)
            calibrated, levels = calibrated_percentile(f, h, picks, rng)
            for k, (low, high) in zip(statistics, calibrated):
                hits[k, "calibrated"] += low <= truth[k] <= high
            level_sums.append(np.ravel(levels))
            sample = np.sign(f.mean(1)[i] - f.mean(1)[j]) * np.sign(h.mean(1)[i] - h.mean(1)[j])
            flips += sample != order_pop
            flips_resampled += ((np.sign(fb[i] - fb[j]) * np.sign(hb[i] - hb[j])) != sample[:, None]).mean(1)
            for k, fn in statistics.items():
                est, t = fn(f.mean(1), h.mean(1)), truth[k]
                boot = np.array([fn(a, b) for a, b in zip(fb.T, hb.T)])
                low, high = np.quantile(boot, [0.025, 0.975])
                hits[k, "percentile"] += low <= t <= high
                hits[k, "estimate +- z sd"] += abs(est - t) <= z * boot.std(ddof=1)
                below = np.mean(boot < est - 1e-12) + 0.5 * np.mean(np.abs(boot - est) <= 1e-12)
                z0 = normal.inv_cdf(min(max(below, 1e-6), 1 - 1e-6))
                low, high = np.quantile(boot, [normal.cdf(2 * z0 - z), normal.cdf(2 * z0 + z)])
                hits[k, "bias-corrected"] += low <= t <= high
                estimates[k].append(est)
                spreads[k].append(boot.std(ddof=1))
        print(f"\nwhy: separated systems, {Q} queries, 3 draws, {reps} repetitions of {resamples} resamples")
        for k in statistics:
            print(f"  {k:<12} population {truth[k]:.3f}, mean estimate {np.mean(estimates[k]):.3f}; sd of the "
                  f"estimate over repetitions {np.std(estimates[k], ddof=1):.4f}, mean bootstrap sd "
                  f"{np.mean(spreads[k]):.4f}; covered: " + ", ".join(
                      f"{kind} {shown(hits[k, kind], reps)}" for kind in ("percentile", "estimate +- z sd",
                                                                          "bias-corrected", "calibrated")))
        low_tau, high_tau, low_ap, high_ap = np.mean(level_sums, 0)
        print(f"  calibrated levels (means): Kendall's tau {low_tau:.3f}-{high_tau:.3f}, tau_ap {low_ap:.3f}-"
              f"{high_ap:.3f} for 0.025-0.975")
        flips, flips_resampled = flips / reps, flips_resampled / reps
        order = np.argsort(flips)
        print("  each system pair's concordance flipped: in samples (against the population) / in resamples "
              "(against the sample): " + ", ".join(f"{flips[k]:.3f}/{flips_resampled[k]:.3f}" for k in order
                                                   if flips[k] > 0 or flips_resampled[k] > 0.01))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--parts", default="coverage,fixed,pass,stable,allocate,tau",
                        help="which simulations, comma-separated (tau, tau-why: reps / 8 repetitions; tau-why is "
                        "not in the default)")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    parts = {"coverage": coverage, "fixed": fixed_collection, "pass": pass_probability, "stable": stable_against_uniform,
             "allocate": allocate_sizing, "tau": tau_coverage, "tau-why": tau_why}
    for name in args.parts.split(","):
        parts[name](rng, args.reps)


if __name__ == "__main__":
    main()
