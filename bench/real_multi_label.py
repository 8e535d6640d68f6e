"""`rankmeter judges reliability` on a real file of several LLM labels per pair.

The public file closest to repeated draws of one judge that was found: Arabzadeh and Clarke's prompt-sensitivity
judgments (SIGIR 2025, github.com/Narabzad/prompt-sensitivity-relevance-judgements): one model (GPT-4o, or
LLaMA 3.2) grading each pair of TREC DL 2020 passages 0-3 under each of 27 prompts written by different people
(temperature 0, seed 42). Each prompt's file gives one label a pair; put together, a pair has one line per prompt,
so what `judges reliability` measures here is how far the judge agrees with itself across prompts (a judge whose
prompt is drawn from that pool), not across samples at one temperature. The repository has no licence file, so
its data is not copied here: give this script a checkout.

usage: python bench/real_multi_label.py CHECKOUT [--model gpt-4o] [--year 20] [--rel 2] [--json OUT]

(``git clone https://github.com/Narabzad/prompt-sensitivity-relevance-judgements CHECKOUT``.)
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def combined(checkout: Path, model: str, year: str, out: Path) -> tuple[int, int, int]:
    """The prompts' files of ``model`` and ``year`` as one qrels, each pair's lines in prompt order, keeping the
    pairs at least half the prompts graded (GPT-4o's prompt 32 grades 11,385 pairs, the others 1,586-1,690 of
    them); returns the prompts, the pairs kept and the pairs left out."""
    folder = checkout / "Judgements" / model / "graded"
    files = sorted(folder.glob(f"{model}_graded_dl{year}_*.txt"), key=lambda p: int(re.findall(r"_(\d+)\.txt$",
                                                                                                   p.name)[0]))
    if not files:
        sys.exit(f"{folder}: no {model}_graded_dl{year}_N.txt files (give the repository's checkout)")
    lines = [[line.split() for line in path.read_text().splitlines() if line.strip()] for path in files]
    seen: dict = {}
    for rows in lines:
        for pair in {(r[0], r[2]) for r in rows}:
            seen[pair] = seen.get(pair, 0) + 1
    kept = {pair for pair, n in seen.items() if 2 * n >= len(files)}
    with out.open("w") as fh:
        for rows in lines:
            fh.writelines(" ".join(r) + "\n" for r in rows if (r[0], r[2]) in kept)
    return len(files), len(kept), len(seen) - len(kept)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkout", type=Path)
    parser.add_argument("--model", default="gpt-4o")
    parser.add_argument("--year", default="20")
    parser.add_argument("--rel", default="2", help="relevant at grade >= REL (TREC DL's binary level is 2)")
    parser.add_argument("--json", type=Path, help="also keep the full JSON (per pair) there")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        labels = Path(tmp) / f"{args.model}-dl{args.year}-prompts.qrels"
        prompts, kept, left = combined(args.checkout, args.model, args.year, labels)
        done = subprocess.run([sys.executable, "-m", "rankmeter", "judges", "reliability", str(labels), "--rel",
                               args.rel, "--format", "json"], capture_output=True, text=True, cwd=ROOT)
        if done.returncode:
            sys.exit(done.stderr)
        data = json.loads(done.stdout)
    if args.json:
        args.json.write_text(json.dumps(data))
    unstable = sum(p["unstable"] for p in data["per_pair"])
    print(f"{args.model}, TREC DL 20{args.year}, {prompts} prompts: {data['pairs']} pairs, {data['draws']['min']}-"
          f"{data['draws']['max']} labels a pair ({left} pairs graded under fewer than half the prompts left out)")
    for key in ("alpha_ordinal", "alpha_nominal", "icc", "flip_rate"):
        print(f"  {key:<14} {data[key]}")
    print(f"  pairs whose interval of P(grade >= {args.rel}) holds 1/2: {unstable} of {data['pairs']} "
          f"({unstable / data['pairs']:.1%})")


if __name__ == "__main__":
    main()
