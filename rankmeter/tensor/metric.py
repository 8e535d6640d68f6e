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

__all__ = ["Metric", "check_state", "unit_interval"]

#: families whose value for one query lies in [0, 1] (the tensor path's grades are >= 0); the normalised
#: ones with their own gains: only if no gain map (which may hold a negative gain) is given
_UNIT_FAMILIES = frozenset({"P", "R", "F", "F1", "Rprec", "AP", "RR", "Success", "HitRate", "AUC"})
_NORMALISED = frozenset({"nDCG", "NCG", "nERR"})


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
        """Restore a :meth:`state_dict` (of a Metric with the same measures).

        The state is checked against the measures before anything changes: ``sums`` and ``counts``
        one finite number per measure, in the same library, the counts whole and non-negative, and
        each sum within what its count of values can add up to (0 without values; ``[0, count]`` for
        a measure between 0 and 1). A state that fails is a :class:`~rankmeter.errors.ParameterError`
        naming the key and the measure.
        """
        if not isinstance(state, dict):
            raise ParameterError(f"load_state_dict: expected the dict of state_dict(), got {type(state).__name__}")
        missing = [key for key in ("labels", "sums", "counts") if key not in state]
        if missing:
            raise ParameterError(f"load_state_dict: the state has no {missing[0]!r} (state_dict() gives 'labels', "
                                 "'sums' and 'counts')")
        if list(state["labels"]) != self.labels:
            raise ParameterError(f"load_state_dict: the state is of {state['labels']!r}, this Metric measures "
                                 f"{self.labels!r}")
        sums, counts = state["sums"], state["counts"]
        if sums is None and counts is None:
            self.reset()
            return
        check_state(sums, counts, self.labels, [unit_interval(m) for _, m in self._planned])
        ops = namespace_of(sums)
        self._ops = ops
        self.sums, self.counts = ops.astype(sums, ops.float64), ops.astype(counts, ops.float64)

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


def unit_interval(measure) -> bool:
    """Whether every per-query value of ``measure`` lies in [0, 1] (a sum of n of them is in [0, n])."""
    if measure.name in _NORMALISED:
        return not any(isinstance(value, tuple) for key, value in measure.params if key == "gain")
    return measure.name in _UNIT_FAMILIES


def _host(x):
    """``x`` as a numpy array on the host (torch on any device, CuPy, JAX, numpy), for checking."""
    import numpy as np
    if type(x).__module__.split(".")[0] == "torch":
        return x.detach().cpu().numpy()
    if hasattr(x, "get") and type(x).__module__.split(".")[0] == "cupy":
        return x.get()
    return np.asarray(x)


def check_state(sums, counts, names: list[str], unit: list[bool], *, shape: tuple | None = None,
                where: str = "load_state_dict") -> None:
    """Refuse a state of running sums and counts that no sequence of updates can have made.

    ``names[i]`` is the measure of ``sums[i]`` (for messages), ``unit[i]`` whether its values lie in
    [0, 1]; ``shape`` the shape both must have (default: one number per name); ``counts`` may also be
    one count for all the sums (a curve's). Raises :class:`~rankmeter.errors.ParameterError` naming the
    key (``'sums'`` or ``'counts'``) and the measure.
    """
    import numpy as np

    want = (len(names),) if shape is None else shape
    host = {}
    for key, value in (("sums", sums), ("counts", counts)):
        if value is None or not (hasattr(value, "shape") and hasattr(value, "dtype")):
            raise ParameterError(f"{where}: {key!r} is {type(value).__name__}, not an array of the state's library "
                                 "(what state_dict() gave)")
        array = _host(value)
        if array.dtype.kind not in "fiu":
            raise ParameterError(f"{where}: {key!r} holds {array.dtype} values; expected real numbers")
        if key == "counts" and array.shape == () and shape is not None and len(want) == 1:
            array = np.broadcast_to(array, want)   # one count for every point of a curve
        if array.shape != want:
            per = f" (one number per measure: {', '.join(names[:8])}{', ...' if len(names) > 8 else ''})" \
                if shape is None else ""
            raise ParameterError(f"{where}: {key!r} has shape {tuple(array.shape)}; this metric's state has shape "
                                 f"{want}{per}")
        host[key] = array.astype(np.float64).reshape(-1)
    if namespace_of(sums).name != namespace_of(counts).name:
        raise ParameterError(f"{where}: 'sums' and 'counts' are arrays of different libraries")
    labels = list(names) if len(names) == host["sums"].size else [names[0]] * host["sums"].size
    flags = list(unit) if len(unit) == host["sums"].size else [unit[0]] * host["sums"].size
    for i, (total, count) in enumerate(zip(host["sums"], host["counts"])):
        name = labels[i]
        if not np.isfinite(count) or count < 0 or count != np.floor(count):
            raise ParameterError(f"{where}: 'counts' of {name} is {float(count):g}; a count is a whole number of "
                                 "queries, 0 or more")
        if not np.isfinite(total):
            raise ParameterError(f"{where}: 'sums' of {name} is {float(total):g}; a sum of values is a finite number")
        slack = 1e-9 * max(count, 1.0)
        if count == 0 and total != 0:
            raise ParameterError(f"{where}: 'sums' of {name} is {float(total):g} over 0 queries; with no value it is 0")
        if flags[i] and not -slack <= total <= count + slack:
            raise ParameterError(f"{where}: 'sums' of {name} is {float(total):g} over {int(count)} queries; {name} "
                                 f"lies in [0, 1], so the sum is between 0 and {int(count)}")
