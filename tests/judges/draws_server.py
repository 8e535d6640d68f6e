"""A judge of known noise: an OpenAI-compatible server on the loopback that draws each pair's grade from known
probabilities, so that every figure computed from its labels has its truth.

Each passage carries a tag ``[pair: KEY]``; :class:`DrawServer` answers a prompt with ``##final score: G``, G
drawn from ``probabilities[KEY]`` (the probabilities of grades 0, 1, 2, ...). The k-th call for a pair is
seeded by ``(seed, KEY, k)``, so a run of calls is the same each time and two calls of one pair differ as a
sampled judge's do. :func:`write_world` writes the queries, the docs and the pool file of such pairs, for
``rankmeter judges label --pool``; :func:`relevant_probability` is each pair's truth of P(grade >= rel).

>>> with DrawServer({"a": [0.0, 0.0, 1.0]}) as server:
...     server.grade_of("x [pair: a] y", 0)
2
"""
from __future__ import annotations

import json
import random
import re
import threading
from collections import Counter
from pathlib import Path

from tests.judges.stand_in import StandIn

__all__ = ["DrawServer", "relevant_probability", "write_world"]

_PAIR = re.compile(r"\[pair: ([^\]]+)\]")


class DrawServer(StandIn):
    """The server (``url`` ends in ``/v1``): ``probabilities`` maps a pair's key to its grades' probabilities;
    ``calls`` counts the calls per key."""

    def __init__(self, probabilities: dict[str, list[float]], *, seed: int = 0):
        self.probabilities, self.seed = probabilities, seed
        self.calls: Counter = Counter()
        self._count_lock = threading.Lock()
        super().__init__(answer=self._answer)

    def grade_of(self, prompt: str, k: int) -> int:
        """The grade the k-th call for the prompt's pair gets (from 0)."""
        key = _PAIR.search(prompt).group(1)
        weights = self.probabilities[key]
        return random.Random(f"{self.seed}:{key}:{k}").choices(range(len(weights)), weights)[0]

    def _answer(self, prompt: str) -> str:
        key = _PAIR.search(prompt).group(1)
        with self._count_lock:
            k = self.calls[key]
            self.calls[key] += 1
        return f"Drawn from the pair's grade distribution.\n##final score: {self.grade_of(prompt, k)}"


def relevant_probability(probabilities: list[float], rel: int = 1) -> float:
    """The truth of a pair: the probability that its grade reaches ``rel``."""
    return float(sum(probabilities[rel:]))


def write_world(folder, probabilities: dict[str, list[float]], *, queries: int = 5) -> dict[str, Path]:
    """Queries, docs and a pool of one pair per key (key ``k`` is doc ``k`` of query ``q{i % queries}``);
    returns the paths (``queries``, ``docs``, ``pool``) and the pairs' keys by (query, doc)."""
    folder = Path(folder)
    pairs = {(f"q{i % queries}", key): key for i, key in enumerate(probabilities)}
    (folder / "queries.tsv").write_text("".join(f"q{i}\tquestion number {i}\n" for i in range(queries)))
    with open(folder / "docs.jsonl", "w") as fh:
        for key in probabilities:
            fh.write(json.dumps({"id": key, "text": f"passage [pair: {key}]"}) + "\n")
    (folder / "pool.txt").write_text("".join(f"{q} 0 {d} -1\n" for q, d in pairs))
    return {"queries": folder / "queries.tsv", "docs": folder / "docs.jsonl", "pool": folder / "pool.txt",
            "pairs": pairs}
