"""``rankmeter.tensor.evaluate``: per-row values of measures over ``[B, N]`` arrays of any array library."""
from __future__ import annotations

from rankmeter.tensor._dense import DENSE, empty_rows
from rankmeter.tensor._inputs import plan_measures, prepare
from rankmeter.tensor._ranked import Ranked
from rankmeter.errors import MeasureError, ParameterError

__all__ = ["evaluate", "evaluate_planned"]


def evaluate(scores, targets, measures, *, mask=None, indexes=None, ties: str = "input", num_relevant=None,
             ideal_targets=None, empty_target_action: str | None = None, positive_scores_only: bool = False,
             top_k: int | None = None, ignore_index=None) -> dict:
    """Score every row of a batch: ``[B, N]`` scores and graded targets in, per-row values out.

    Each row is one ranked list: its candidates ordered by score, best first
    (equal scores keep their input order), every candidate judged by its
    target. The values are those of :func:`rankmeter.evaluate` on the same
    lists, computed in the input's own library, on its device.

    Parameters
    ----------
    scores : array [B, N]
        Scores of numpy, torch or any library following the Python array API
        standard. float32 scores are scored in float32, anything else in float64.
    targets : array [B, N]
        Grades (0 = not relevant; bool, int or float), of the same library.
    measures : str or list of str
        Names of the grammar (``"nDCG@10"``, ``"AP"``, ``"RR@10"``, ``"P@5"``,
        ``"RBP(p=0.8)"``, ``"DCG(gain=exp)@5"``) or of trec_eval (``"map"``),
        of the families in :data:`SUPPORTED`.
    mask : bool array [B, N], optional
        True where an element is real, False for padding (never ranked nor judged).
    indexes : int array [L], optional
        TorchMetrics' flat form: ``scores`` and ``targets`` are 1-D and
        ``indexes`` names each candidate's query; rows are the queries in
        ascending id order (numpy and torch).
    ties : {"input", "average"}
        Equal scores in input order, or the expected value over every order
        of each tied group (the closed forms of the table API).
    num_relevant : int array [B], optional
        Relevant docs (grade >= 1) of each row's whole judged set when the
        candidates are a cut of it: R, AP, Rprec, nDCG's ideal ... then match
        trec_eval on the full qrels. The missing docs count as grade 1.
    ideal_targets : array [B, M], optional
        Instead of ``num_relevant``: the grades of every relevant doc of each
        row's judged set, listed or not (pad with 0), for graded ideal gains.
    empty_target_action : {"neg", "pos", "skip", "error"}, optional
        TorchMetrics' value for a row without a relevant doc, for the measures
        that take it (P, R, Rprec, AP, RR, HitRate, nDCG, AUC): 0, 1, NaN (left
        out of means) or refuse. Default: each measure's own (``neg``).
    positive_scores_only : bool
        Rank only the candidates scored above 0; the others stay judged.
    top_k : int, optional
        TorchMetrics' cutoff: the ``@k`` of every measure (refused with a
        measure that names its own cutoff or takes none).
    ignore_index : number, optional
        Elements whose target equals it are dropped, as padding.

    Returns
    -------
    dict
        Measure name as given -> per-row values ``[B]``, an array of the
        input's library on its device. A row without any real element is
        no query: its values are NaN (left out of :class:`Metric`'s means),
        as are those of ``empty_target_action="skip"``.

    Examples
    --------
    >>> import numpy as np
    >>> scores = np.array([[0.9, 0.8, 0.7], [0.1, 0.5, 0.3]])
    >>> targets = np.array([[1, 0, 1], [0, 0, 2]])
    >>> out = evaluate(scores, targets, ["AP", "RR", "nDCG@2"])
    >>> [round(float(v), 4) for v in out["AP"]], out["RR"].tolist()
    ([0.8333, 0.5], [1.0, 0.5])
    >>> [round(float(v), 4) for v in out["nDCG@2"]]
    [0.6131, 0.6309]
    """
    planned = plan_measures(measures, top_k=top_k, empty_target_action=empty_target_action, ties=ties)
    inputs = prepare(scores, targets, mask=mask, indexes=indexes, num_relevant=num_relevant,
                     ideal_targets=ideal_targets, ignore_index=ignore_index,
                     positive_scores_only=positive_scores_only)
    return evaluate_planned(inputs, planned, ties)


def evaluate_planned(inputs, planned, ties: str, *, form: str = "auto") -> dict:
    """Per-row values of ``planned`` measures over validated ``inputs``.

    ``form``: ``"kernels"`` runs the families' numpy kernels (numpy input only),
    ``"dense"`` the array-API form; ``"auto"`` takes the kernels for numpy.
    """
    if form not in ("auto", "kernels", "dense"):
        raise ParameterError(f"form={form!r}: expected auto, kernels or dense")
    if not planned:
        return {}
    use_kernels = form == "kernels" or (form == "auto" and inputs.ops.name == "numpy" and inputs.wrap is None)
    if use_kernels:
        if inputs.ops.name != "numpy":
            raise ParameterError("form='kernels' reads numpy arrays; use form='dense' for other libraries")
        from rankmeter.tensor._kernels import batch_of, kernel_values
        batch = batch_of(Ranked(inputs, ties))
        values = {label: kernel_values(batch, m) for label, m in planned}
    else:
        values = _dense_values(inputs, planned, ties)
    # a row without any real element is no query (rankmeter.evaluate and TorchMetrics have none there)
    if not (inputs.all_judged and inputs.shape[1] > 0):
        xp = inputs.ops.xp
        absent = ~xp.any(inputs.judged_mask, axis=1)
        nan = inputs.ops.full((), float("nan"), values[planned[0][0]].dtype)
        values = {label: xp.where(absent, nan, v) for label, v in values.items()}
    return values if inputs.wrap is None else {label: inputs.wrap(v) for label, v in values.items()}


def _dense_values(inputs, planned, ties: str) -> dict:
    """The array-API form, in blocks of rows where the library asks for them (numpy: the temporaries of
    a block stay in the cache, and reuse memory instead of faulting fresh pages in)."""
    ops, (rows, width) = inputs.ops, inputs.shape
    step = ops.block_rows(rows, width)
    depth = _depth(planned)
    if step is None:
        values, refused = _block_values(Ranked(inputs, ties, depth), planned)
    else:
        blocks = [_block_values(Ranked(inputs.rows(start, start + step), ties, depth, batch=inputs), planned)
                  for start in range(0, rows, step)]
        values = {label: ops.concat([b[0][label] for b in blocks], axis=0) for label, _ in planned}
        refused = {label: ops.concat([b[1][label] for b in blocks], axis=0) for label in blocks[0][1]}
    xp = ops.xp
    for label, empty in refused.items():
        if bool(xp.any(empty)):
            count = int(xp.sum(ops.astype(empty, ops.int64)))
            first = ops.argsort(ops.astype(~empty, xp.int8), axis=0)[:min(count, 5)]
            m = dict(planned)[label]
            raise MeasureError(f"{m}: {count} queries have no relevant doc (e.g. "
                               f"{', '.join(f'row {int(i)}' for i in first)}) and empty_target_action=error "
                               "refuses them; use neg (0), pos (1) or skip")
    return values


def _depth(planned) -> int | None:
    """Ranks the measures read: the largest cutoff, or every rank (None) if one reads past its cutoff."""
    depth = 0
    for _, m in planned:
        reads_all = any(p.name == "ideal" for p in m.family.params) and m.get("ideal") == "run"
        if m.cutoff is None or reads_all:
            return None
        depth = max(depth, m.cutoff)
    return depth


def _block_values(ranked: Ranked, planned) -> tuple[dict, dict]:
    """Per-row values of one block, and the rows each ``empty_target_action="error"`` measure refuses."""
    values, refused = {}, {}
    for label, m in planned:
        value = DENSE[m.name](ranked, m)
        action = m.get("empty_target_action") if any(p.name == "empty_target_action" for p in m.family.params) \
            else "neg"
        if action == "error":
            refused[label] = empty_rows(ranked, m)
        elif action != "neg":
            fill = ranked.ops.full((), 1.0 if action == "pos" else float("nan"), ranked.dtype)
            value = ranked.xp.where(empty_rows(ranked, m), fill, value)
        values[label] = value
    return values, refused
