"""Write examples/leaderboard/: a small BEIR-style benchmark (five collections, four systems) as TREC files
and a manifest, for docs/leaderboard.md. Deterministic (seed 7); run it again to rebuild the files.

Each query has 12 candidate docs with graded relevance; a system ranks them by relevance plus noise, the
noise smaller for better systems and different per collection (so the order changes between collections).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent.parent / "examples" / "leaderboard"
COLLECTIONS = {"scifacts": 1.0, "finqa": 1.3, "newsroom": 0.8, "medline": 1.1, "forum": 1.2}  # noise scale per collection
SYSTEMS = {"bm25": 2.2, "dense": 1.7, "hybrid": 1.25, "rerank": 1.15}  # noise per system
QUERIES, DOCS, DEPTH = 20, 30, 10


def main() -> None:
    rng = np.random.default_rng(7)
    OUT.mkdir(parents=True, exist_ok=True)
    manifest = {"collections": {}}
    for collection, scale in COLLECTIONS.items():
        grades = rng.choice([0] * 8 + [1, 1, 2], size=(QUERIES, DOCS))
        qrels = [f"q{q + 1} 0 {collection}-d{q + 1}-{d + 1} {grades[q, d]}"
                 for q in range(QUERIES) for d in range(DOCS)]
        (OUT / f"{collection}.qrels").write_text("\n".join(qrels) + "\n")
        runs = {}
        for system, noise in SYSTEMS.items():
            lines = []
            affinity = rng.normal(0, 0.2)  # how this system suits this collection
            for q in range(QUERIES):
                score = grades[q] + rng.normal(0, noise * scale - affinity, DOCS)
                order = np.argsort(-score, kind="stable")[:DEPTH]
                lines += [f"q{q + 1} Q0 {collection}-d{q + 1}-{d + 1} {r + 1} {score[d]:.4f} {system}"
                          for r, d in enumerate(order)]
            path = f"{collection}.{system}.run"
            (OUT / path).write_text("\n".join(lines) + "\n")
            runs[system] = path
        manifest["collections"][collection] = {"qrels": f"{collection}.qrels", "runs": runs}
    (OUT / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    published(np.random.default_rng(11))


#: per-collection scores in the shape BEIR and MTEB publish (system, collection, measure, value); the
#: collection names are BEIR's, the numbers are made up for the example (illustrative, not anyone's results)
BOARD_SYSTEMS = {"bm25": 0.0, "contriever": 0.02, "e5-base": 0.055, "gte-base": 0.065, "bge-base": 0.07,
                 "e5-large": 0.075}
BOARD_COLLECTIONS = {"arguana": 0.42, "fiqa": 0.30, "nfcorpus": 0.33, "scidocs": 0.17, "scifact": 0.68,
                     "trec-covid": 0.62, "quora": 0.80, "touche2020": 0.30}


def published(rng) -> None:
    lines = ["system,collection,measure,value"]
    for system, skill in BOARD_SYSTEMS.items():
        for collection, level in BOARD_COLLECTIONS.items():
            value = min(0.99, max(0.01, level + skill + rng.normal(0, 0.035)))
            lines.append(f"{system},{collection},nDCG@10,{value:.3f}")
    (OUT / "published.csv").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
