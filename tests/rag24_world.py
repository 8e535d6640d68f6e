"""TREC RAG 2024's NIST judgments of 31 queries (tests/golden/qrels.comment.test) and two runs over the judged
documents: the truth the judges' simulations (tests/judges/test_ppi_pairs.py, tests/judges/test_design.py) draw from.
Test modules import it (``from rag24_world import rag24_world``; tests/ is on sys.path)."""
from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np

GOLDEN = Path(__file__).resolve().parent / "golden"


def read_columns(path, value) -> dict:
    """{query: {doc: value(fields)}} of a whitespace-separated TREC file (comments and blank lines skipped)."""
    out: dict = defaultdict(dict)
    for line in open(path):
        if line.strip() and not line.startswith("#"):
            parts = line.split()
            out[parts[0]][parts[2]] = value(parts)
    return dict(out)


def rag24_world() -> tuple[dict, dict]:
    """(truth, runs): the NIST grades, and {"real", "weak"} runs ranking every judged document: the real run's
    order (condensed to the judged documents, the unretrieved ones after it) and a weaker simulated reranker
    (0.6 x grade + N(0, 1)), seeded."""
    truth = read_columns(GOLDEN / "qrels.comment.test", lambda p: int(p[3]))
    real = read_columns(GOLDEN / "results.comment.test", lambda p: float(p[4]))
    rng = np.random.default_rng(11)
    runs: dict = {"real": {}, "weak": {}}
    for q, docs in truth.items():
        runs["real"][q] = {d: real.get(q, {}).get(d, -1.0 - rng.random()) for d in docs}
        runs["weak"][q] = {d: 0.6 * g + rng.normal(0, 1) for d, g in docs.items()}
    return truth, runs
