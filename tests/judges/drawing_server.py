"""A stand-in model that answers each pair with a grade drawn from known probabilities, seeded per call: the
passage carries ``[p: p0,p1,p2,p3]`` and the k-th call of the same prompt draws with seed (prompt, k), so a
rerun of the same draws answers alike and every figure computed from the labels has its truth."""
from __future__ import annotations

import hashlib
import re
import threading

import numpy as np

from tests.judges.stand_in import StandIn

_TAG = re.compile(r"\[p:\s*([0-9.,\s]+)\]")


class DrawingServer(StandIn):
    """:class:`~tests.judges.stand_in.StandIn` drawing each answer's grade from the passage's probabilities."""

    def __init__(self):
        self.calls: dict[str, int] = {}
        self._count = threading.Lock()
        super().__init__(answer=self.draw)

    def draw(self, prompt: str) -> str:
        probs = np.array([float(x) for x in _TAG.search(prompt).group(1).split(",")])
        with self._count:
            k = self.calls.get(prompt, 0)
            self.calls[prompt] = k + 1
        seed = int.from_bytes(hashlib.sha256(f"{k}\x00{prompt}".encode()).digest()[:8], "little")
        grade = np.random.default_rng(seed).choice(len(probs), p=probs / probs.sum())
        return f"Drawn from the passage's probabilities.\n##final score: {grade}"


def tag(probabilities) -> str:
    """The passage tag of a pair's probabilities."""
    return "[p: " + ",".join(f"{p:.6f}" for p in probabilities) + "]"
