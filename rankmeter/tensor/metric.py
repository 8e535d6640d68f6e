"""``rankmeter.tensor.Metric``: measures accumulated over batches as sums and counts, never predictions.

Every supported family is a mean over queries (of the queries where it is
defined, under ``empty_target_action="skip"``), so a state of two numbers per
measure, the sum of the defined per-row values and their count, gives the
same value as one call over all the rows, whatever the split into batches
and merges. The state lives in the first batch's library and device; with
``torch.distributed`` initialised, :meth:`Metric.compute` adds the states of
every process (an all-reduce of ``2 x measures`` numbers).

>>> import numpy as np
>>> metric = Metric(["AP", "nDCG@2"])
>>> metric.update(np.array([[0.9, 0.8, 0.7]]), np.array([[1, 0, 1]]))
>>> metric.update(np.array([[0.1, 0.5, 0.3]]), np.array([[0, 0, 2]]))
>>> {name: round(float(v), 4) for name, v in metric.compute().items()}
{'AP': 0.6667, 'nDCG@2': 0.622}
"""
from __future__ import annotations

from rankmeter.tensor._evaluate import evaluate_planned
from rankmeter.tensor._inputs import plan_measures, prepare
from rankmeter.tensor._xp import namespace_of
from rankmeter.errors import MeasureError, ParameterError

__all__ = ["Metric"]


class Metric:
    """Running means of measures over batches (see module docstring).

    Parameters
    ----------
    measures : str or list of str
        As :func:`rankmeter.tensor.evaluate`.
    ties, empty_target_action, positive_scores_only, top_k, ignore_index
        As :func:`rankmeter.tensor.evaluate`, fixed for every batch.
    sync_on_compute : bool, default True
        Add the states of every process when ``torch.distributed`` is initialised.
    process_group : optional
        The ``torch.distributed`` group to reduce over (default: the world).
    """

    def __init__(self, measures, *, ties: str = "input", empty_target_action: str | None = None,
                 positive_scores_only: bool = False, top_k: int | None = None, ignore_index=None,
                 sync_on_compute: bool = True, process_group=None):
        self._planned = plan_measures(measures, top_k=top_k, empty_target_action=empty_target_action, ties=ties)
        for label, m in self._planned:
            if m.name in ("ERR", "nERR") and m.get("max_grade") is None:
                raise MeasureError(f"{label}: ERR's default g_max is the highest grade of all the data, which a "
                                   f"batch does not know; set it, e.g. {m.name}(max_grade=4)")
            if m.name == "RBP" and m.get("max_grade") == "qrels":
                raise MeasureError(f"{label}: max_grade=qrels needs all the data at once; give an integer")
        if not isinstance(sync_on_compute, bool):
            raise ParameterError(f"sync_on_compute={sync_on_compute!r}: expected True or False")
        self._options = dict(ties=ties, positive_scores_only=positive_scores_only, ignore_index=ignore_index)
        self.sync_on_compute = sync_on_compute
        self.process_group = process_group
        self.labels = [label for label, _ in self._planned]
        self.sums = self.counts = None
        self._ops = None

    # ---------------------------------------------------------------- state
    def update(self, scores, targets, mask=None, *, indexes=None, num_relevant=None, ideal_targets=None) -> None:
        """Add one batch (a query's candidates all in this batch; see :func:`rankmeter.tensor.evaluate`)."""
        options = self._options
        inputs = prepare(scores, targets, mask=mask, indexes=indexes, num_relevant=num_relevant,
                         ideal_targets=ideal_targets, ignore_index=options["ignore_index"],
                         positive_scores_only=options["positive_scores_only"])
        values = evaluate_planned(inputs, self._planned, options["ties"])
        ops = namespace_of(scores)
        xp = ops.xp
        if self._ops is None:
            self._start(ops)
        elif ops.name != self._ops.name:
            raise ParameterError(f"this Metric holds {self._ops.name} state; update it with {self._ops.name} arrays")
        stacked = xp.stack([ops.astype(values[label], ops.float64) for label in self.labels])
        defined = ~xp.isnan(stacked)
        self.sums = self.sums + xp.sum(xp.where(defined, stacked, ops.zeros((), ops.float64)), axis=1)
        self.counts = self.counts + xp.sum(ops.astype(defined, ops.float64), axis=1)

    def _start(self, ops) -> None:
        self._ops = ops
        self.sums = ops.zeros((len(self.labels),), ops.float64)
        self.counts = ops.zeros((len(self.labels),), ops.float64)

    def merge(self, other: "Metric") -> "Metric":
        """Add the state of ``other`` (the same measures and options) to this one; returns self."""
        if not isinstance(other, Metric) or other._planned != self._planned or other._options != self._options:
            raise ParameterError("merge: both metrics must have the same measures and options")
        if other.sums is None:
            return self
        if self.sums is None:
            self._start(other._ops)
        self.sums = self.sums + other.sums
        self.counts = self.counts + other.counts
        return self

    def state_dict(self) -> dict:
        """The state (``sums``, ``counts``: arrays of the state's library, None before any update) and what it
        measures; :meth:`load_state_dict` of a Metric with the same measures and options restores it."""
        return {"labels": list(self.labels), "sums": self.sums, "counts": self.counts}

    def load_state_dict(self, state: dict) -> None:
        """Restore a :meth:`state_dict` (of a Metric with the same measures)."""
        if list(state.get("labels", ())) != self.labels:
            raise ParameterError(f"load_state_dict: the state is of {state.get('labels')!r}, this Metric measures "
                                 f"{self.labels!r}")
        if state["sums"] is None:
            self.reset()
            return
        self._ops = namespace_of(state["sums"])
        self.sums, self.counts = state["sums"], state["counts"]

    # pickle and copy.deepcopy: the array namespace (modules) is found again from the state's arrays
    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_ops"] = None
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        if self.sums is not None:
            self._ops = namespace_of(self.sums)

    def reset(self) -> None:
        """Forget every batch (the library and device are chosen again by the next update)."""
        self.sums = self.counts = None
        self._ops = None

    # -------------------------------------------------------------- compute
    def _reduced(self):
        sums, counts = self.sums, self.counts
        dist = _torch_distributed() if self.sync_on_compute else None
        if dist is None:
            return sums, counts
        import torch
        if sums is None:
            device = torch.device("cuda", torch.cuda.current_device()) if dist.get_backend() == "nccl" else "cpu"
            sums = counts = torch.zeros(len(self.labels), dtype=torch.float64, device=device)
        buffer = torch.stack([sums, counts])   # a copy: the local state stays this process's own
        dist.all_reduce(buffer, op=dist.ReduceOp.SUM, group=self.process_group)
        return buffer[0], buffer[1]

    def compute(self) -> dict:
        """Measure -> mean over every row seen (0 when no row defines it), a 0-d array of the state's library."""
        sums, counts = self._reduced()
        if sums is None:
            raise ParameterError("compute() before any update(): nothing to average")
        xp = namespace_of(sums).xp
        ok = counts > 0
        means = xp.where(ok, sums / xp.where(ok, counts, xp.ones_like(counts)), xp.zeros_like(sums))
        return {label: means[i] for i, label in enumerate(self.labels)}

    def __repr__(self) -> str:
        return f"Metric({self.labels!r})"


def _torch_distributed():
    """``torch.distributed`` when torch is already loaded and a process group is initialised, else None."""
    import sys
    torch = sys.modules.get("torch")
    if torch is None:
        return None
    dist = torch.distributed
    return dist if dist.is_available() and dist.is_initialized() else None
