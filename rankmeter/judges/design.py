"""The design file: what ``judges allocate`` chose and how, so that ``judges estimate --design`` estimates by it.

An allocated sample is not a uniform one: Neyman allocation sends more labels to the strata where the LLM errs
more, so the plain PPI++ estimate over the labelled queries (which treats them as a uniform sample) is biased and
its interval wrong. The estimate is right again when each stratum is weighted by its size
(:func:`~rankmeter.judges.allocation.stratified_estimate`; for pairs, the rank bands of
:mod:`.pair_ppi`), which needs to know the strata the labels were drawn in: the design file.

Format (JSON, one object; ``version`` 1; fields may be added, never changed)::

    {"format": "rankmeter judges design", "version": 1,
     "unit": "queries" | "pairs",
     "measure": "nDCG@10", "measures": ["nDCG@10"],   # the measure the strata and the allocation were made for
     "runs": ["bm25", "splade"], "seed": 0, "budget": 20,
     "target": "both", "neyman": 1.0, "round": 1,      # queries: what the labels were allocated for (see below)
     "targets": ["bm25", "splade", "bm25 - splade"],
     "strata": [{"stratum": 0, "size": 30, "labelled": 6, "chosen": 4, "labels": 10, "spread": 1.9,
                 "target_spreads": {"bm25": 0.08, "splade": 0.07, "bm25 - splade": 0.05}}, ...],
     "assignment": [["q1", 0], ["q2", 3], ...],        # every query's stratum (pairs: ["q1", "d7", 2])
     "pilot": ["q5", ...],                              # the units human-labelled before (a uniform sample)
     "chosen": ["q9", ...]}                             # the units to label next

``labels`` = ``labelled`` (the pilot's) + ``chosen`` per stratum: the sample the estimate expects. ``spread`` is
what the allocation weighed the stratum by: for pairs the spread of the LLM's error in the band, for queries
``sqrt(sum_k S_kh^2 / V_k)`` over the ``targets`` (each run's mean, each pair's difference: ``target``), each
target's error spread ``S_kh`` (``target_spreads``) relative to its variance under proportional allocation;
``neyman`` the share of Neyman's allocation kept (1 all, 0 proportional); ``round`` 2 when the pilot was drawn by an
earlier design (``judges allocate --design``), whose strata this one keeps. The pilot and
the chosen units together are a random sample within each stratum when the pilot was a uniform one (or itself drawn by
an earlier design of the same strata).
"""
from __future__ import annotations

import json
import os

import numpy as np

from rankmeter.errors import InputError, ParameterError

__all__ = ["FORMAT", "VERSION", "make", "read", "write", "query_sample", "pair_sample", "earlier_round"]

FORMAT = "rankmeter judges design"
VERSION = 1


def make(unit: str, *, measure: str, runs, seed, budget: int, assignment, pilot, chosen, per_stratum,
         spreads, codes=None, row_spreads=None, targets=None, **more) -> dict:
    """The design document (see the module's docstring). ``assignment``: (unit, stratum) rows (a unit is a query
    id, or a (query, doc) pair); ``pilot``/``chosen``: the units labelled before and to label next;
    ``per_stratum``: labels chosen per stratum in the order of ``codes`` (default 0, 1, ...); ``row_spreads``
    (targets x strata) each target's spread per stratum, named by ``targets``; ``more``: fields added as they are
    (``target``, ``neyman``, ``round``)."""
    strata = np.array([row[-1] for row in assignment], dtype=np.int64)
    codes = list(range(len(per_stratum))) if codes is None else [int(c) for c in codes]
    stratum_of = {_key(row[:-1]): int(row[-1]) for row in assignment}
    before = np.bincount([codes.index(stratum_of[_key(u)]) for u in pilot], minlength=len(codes))
    rows = [{"stratum": c, "size": int((strata == c).sum()), "labelled": int(before[i]),
             "chosen": int(per_stratum[i]), "labels": int(before[i] + per_stratum[i]), "spread": float(spreads[i])}
            for i, c in enumerate(codes)]
    if row_spreads is not None:
        for i, row in enumerate(rows):
            row["target_spreads"] = {name: float(r[i]) for name, r in zip(targets, row_spreads)}
    extra = {**more, "targets": list(targets)} if targets is not None else more
    return {"format": FORMAT, "version": VERSION, "unit": unit, "measure": measure, "measures": [measure],
            "runs": list(runs), "seed": seed, "budget": int(budget), **extra, "strata": rows,
            "assignment": [[*map(str, row[:-1]), int(row[-1])] for row in assignment],
            "pilot": [_plain(u) for u in pilot], "chosen": [_plain(u) for u in chosen]}


def _key(unit):
    """A unit as a dict key: a query id, or a (query, doc) tuple."""
    if isinstance(unit, (list, tuple)):
        return tuple(str(x) for x in unit) if len(unit) > 1 else str(unit[0])
    return str(unit)


def _plain(unit):
    return list(map(str, unit)) if isinstance(unit, (list, tuple)) else str(unit)


def write(design: dict, path, *, inputs=()) -> None:
    """Write the design as JSON (never over an input)."""
    from rankmeter.io.output import output_file

    def value(v):   # a list of records one a line; everything else on its key's line
        if isinstance(v, list) and v and isinstance(v[0], dict):
            return "[\n  " + ",\n  ".join(json.dumps(x) for x in v) + "]"
        return json.dumps(v)

    with output_file(path, inputs=inputs) as fh:
        fh.write("{\n" + ",\n".join(f" {json.dumps(k)}: {value(v)}" for k, v in design.items()) + "\n}\n")


_HINT = "give the file `rankmeter judges allocate -o FILE` wrote, unedited"
#: the most strata a design may hold (allocate makes a handful; a code is an index into them)
MAX_STRATA = 10_000
#: the largest count a design's sizes and budgets may hold
MAX_COUNT = 2 ** 40


def _schema(unit: str):
    """The design file's fields (see the module's docstring), for ``unit`` queries or pairs."""
    from rankmeter.io.structured import Int, ListOf, MapOf, Nullable, Num, Record, Str, Tuple

    count = Int(0, MAX_COUNT)
    code = Int(0, MAX_STRATA - 1)
    unit_id = Str() if unit == "queries" else Tuple(Str(), Str())
    row = Tuple(Str(), code) if unit == "queries" else Tuple(Str(), Str(), code)
    stratum = Record({"stratum": code, "size": count, "labelled": count, "chosen": count, "labels": count,
                      "spread": Num(low=0)}, {"target_spreads": MapOf(Num(low=0))})
    return Record(
        {"format": Str(), "version": Int(), "unit": Str(("queries", "pairs")),
         "assignment": ListOf(row, min_items=1), "pilot": ListOf(unit_id), "chosen": ListOf(unit_id),
         "strata": ListOf(stratum, min_items=1, max_items=MAX_STRATA)},
        {"measure": Str(), "measures": ListOf(Str()), "runs": ListOf(Str()), "seed": Nullable(Int(0, 2 ** 64 - 1)),
         "budget": count, "target": Str(), "neyman": Num(0, 1), "round": Int(1, 1000), "targets": ListOf(Str())})


def _design_schema():
    from rankmeter.io.structured import Schema

    class Design(Schema):
        """The format and version first (another file is "not a design"), then every field for its unit."""

        def describe(self):
            return f"a design (\"format\": \"{FORMAT}\")"

        def check(self, value, at, ctx):
            if not isinstance(value, dict) or value.get("format") != FORMAT:
                raise InputError(f"not a design (no \"format\": \"{FORMAT}\"): give the file `rankmeter judges "
                                 "allocate -o FILE` wrote", source=ctx.source)
            version = value.get("version")
            if type(version) is not int or version != VERSION:
                raise InputError(f"design version {version!r}: this rankmeter reads version {VERSION}; "
                                 "allocate again with it", source=ctx.source)
            unit = value.get("unit")
            return _schema(unit if unit in ("queries", "pairs") else "queries").check(value, at, ctx)

    return Design()


def read(design) -> dict:
    """A design from a file path (or the dict itself), every field checked (:mod:`rankmeter.io.structured`).

    A damaged or hand-edited design (``"pilot": null``, a stratum code of ``10**30``, a count given as a
    string, nesting beyond what the format has, a file that is not UTF-8) is an
    :class:`~rankmeter.errors.InputError` naming the file and the field.
    """
    from rankmeter.io.structured import check, field_error, read_json

    if isinstance(design, dict):
        data, source = check(design, _design_schema(), source="<design>", hint=_HINT), "<design>"
    elif not isinstance(design, (str, os.PathLike)):
        raise ParameterError(f"design={design!r}: expected a file path or the design's dict (what `rankmeter judges "
                             "allocate -o FILE` writes)")
    else:
        source = os.fspath(design)
        data = read_json(source, _design_schema(), what="the design", hint=_HINT, record=True)
    codes = [row["stratum"] for row in data["strata"]]
    if len(set(codes)) != len(codes):
        twice = next(c for c in codes if codes.count(c) > 1)
        raise field_error(source, "strata", f"each stratum once (stratum {twice} is given twice)", got=False,
                          hint=_HINT)
    known = set(codes)
    units = set()
    for i, row in enumerate(data["assignment"]):
        if row[-1] not in known:
            raise field_error(source, ("assignment", i, len(row) - 1), "the code of one of the design's strata "
                              f"({', '.join(map(str, sorted(known)[:8]))})", row[-1], hint=_HINT)
        units.add(tuple(row[:-1]))
    if len(units) != len(data["assignment"]):
        raise field_error(source, "assignment", "each unit once (one stratum each)", got=False, hint=_HINT)
    return data


def _measure_note(design: dict, measures) -> list[str]:
    made = design.get("measures") or []
    other = [m for m in measures if m not in made]
    if made and other:
        return [f"the design's strata were cut by the LLM's {', '.join(made)} and its labels allocated for it; the "
                f"estimate of {', '.join(other)} by them stays unbiased (the strata were fixed before the labels "
                "were drawn), but its interval may be no narrower than a uniform sample's"]
    return []


def query_sample(design: dict, labelled: list[str], unlabelled: list[str], measures) \
        -> tuple[np.ndarray, np.ndarray, list[str]]:
    """For the queries ``labelled + unlabelled`` (HUMAN's, then the others): each one's stratum, whether it counts
    as labelled (in HUMAN and in the design's sample), and the warnings. ParameterError when the design was made
    for other queries."""
    if design["unit"] != "queries":
        raise ParameterError("the design is for human labels on pairs: estimate with unit='pairs' (--unit pairs)")
    stratum = {str(q): h for q, h in design["assignment"]}
    every = labelled + unlabelled
    absent = [q for q in every if q not in stratum]
    extra = len(set(stratum) - set(every))
    if absent or extra:
        example = f" (e.g. {absent[0]!r})" if absent else ""
        raise ParameterError(f"the design was made for other queries: {len(absent)} of the LLM's {len(every)} "
                             f"queries are not in it{example}, and {extra} of its queries are not the LLM's; allocate "
                             "again with these qrels")
    sample = {str(q) for q in design["pilot"]} | {str(q) for q in design["chosen"]}
    outside = [q for q in labelled if q not in sample]
    missing = sample - set(labelled)
    notes = []
    if outside:
        notes.append(f"{len(outside)} human-labelled queries are not in the design's sample (e.g. {outside[0]!r}): "
                     "left out, since queries labelled outside the design would bias the stratified estimate")
    if missing:
        notes.append(f"{len(missing)} of the design's {len(sample)} queries have no human labels: the estimate "
                     "assumes they are missing at random (label them)")
    strata = np.array([stratum[q] for q in every], dtype=np.int64)
    used = np.array([q in sample for q in labelled] + [False] * len(unlabelled), dtype=bool)
    return strata, used, notes + _measure_note(design, measures)


def earlier_round(design, *, measure: str, runs, strata: int, assignment: dict, labelled) \
        -> tuple[dict, set, list[str]]:
    """A second round of allocation: HUMAN's labels were drawn by ``design`` (allocate's earlier design), so the new
    one keeps its strata, which must be what the LLM's qrels, ``runs``, ``measure`` and ``strata`` give now
    (``assignment``: query -> stratum, cut again); ParameterError saying what differs if not. Returns the design,
    the labelled queries that count as the pilot (those in its sample) and the warnings."""
    earlier = read(design)
    if earlier["unit"] != "queries":
        raise ParameterError("the earlier design is for human labels on pairs: allocate again with --unit pairs")
    differ = []
    if earlier.get("measure") != measure:
        differ.append(f"its measure is {earlier.get('measure')}, not {measure}")
    if list(earlier.get("runs", [])) != list(runs):
        differ.append(f"its runs are {', '.join(map(str, earlier.get('runs', [])))}, not {', '.join(runs)}")
    if len(earlier["strata"]) != strata:
        differ.append(f"it has {len(earlier['strata'])} strata, not strata={strata}")
    before = {str(q): h for q, h in earlier["assignment"]}
    if set(before) != set(assignment):
        differ.append(f"it holds {len(set(before) - set(assignment))} queries the LLM's qrels do not, and the LLM's "
                      f"qrels {len(set(assignment) - set(before))} it does not")
    elif not differ and any(before[q] != h for q, h in assignment.items()):
        moved = sum(before[q] != h for q, h in assignment.items())
        differ.append(f"the LLM's qrels put {moved} queries in other strata than it (other LLM labels)")
    if differ:
        raise ParameterError("the earlier design's strata are not these (" + "; ".join(differ) + "): allocate the "
                             "second round with the first's LLM qrels, runs, measure and strata")
    sample = {str(q) for q in earlier["pilot"]} | {str(q) for q in earlier["chosen"]}
    kept = {q for q in labelled if q in sample}
    notes = []
    outside = [q for q in labelled if q not in sample]
    if outside:
        notes.append(f"{len(outside)} human-labelled queries are not in the earlier design's sample (e.g. "
                     f"{outside[0]!r}): not counted as labelled, since labels chosen otherwise would bias the estimate")
    missing = len(sample - kept)
    if missing:
        notes.append(f"{missing} of the earlier design's {len(sample)} queries have no human labels yet: the new "
                     "design takes them as unlabelled (label them, or they may be chosen again)")
    return earlier, kept, notes


def pair_sample(design: dict, frame, measures) -> tuple[np.ndarray, list[str]]:
    """For the pairs of ``frame`` (:class:`~rankmeter.judges.pair_ppi.PairFrame`): each one's stratum from
    the design, and the warnings; the frame's labelled pairs outside the design's sample are unlabelled (in place).
    ParameterError when the design does not cover the frame."""
    from rankmeter.judges.pair_ppi import decode

    if design["unit"] != "pairs":
        raise ParameterError("the design is for human labels on whole queries: estimate with unit='queries' "
                             "(--unit queries)")
    stratum = {(str(q), str(d)): h for q, d, h in design["assignment"]}
    queries = np.array(frame.queries, dtype=object)[frame.pair_query]
    keys = [(str(q), decode(d)) for q, d in zip(queries, frame.docs)]
    absent = [k for k in keys if k not in stratum]
    if absent:
        raise ParameterError(f"the design was made for other pairs: {len(absent)} of the {len(keys)} pairs the LLM "
                             f"judged within the runs' depth are not in it (e.g. query {absent[0][0]!r} doc "
                             f"{absent[0][1]!r}); allocate again with these runs, qrels and measure")
    sample = {tuple(map(str, u)) for u in design["pilot"]} | {tuple(map(str, u)) for u in design["chosen"]}
    chosen = np.array([k in sample for k in keys], dtype=bool)
    outside = frame.labelled & ~chosen
    notes = []
    if outside.any():
        notes.append(f"{int(outside.sum())} human-labelled pairs are not in the design's sample: left out, since "
                     "pairs labelled outside the design would bias the stratified estimate")
        frame.labelled = frame.labelled & chosen
        frame.human = np.where(frame.labelled, frame.human, np.nan)
    missing = int((chosen & ~frame.labelled).sum())
    if missing:
        notes.append(f"{missing} of the design's {int(chosen.sum())} pairs in the frame have no human labels: the "
                     "estimate assumes they are missing at random (label them)")
    strata = np.array([stratum[k] for k in keys], dtype=np.int64)
    for h in np.unique(strata):
        have = int(frame.labelled[strata == h].sum())
        if have < 2:
            raise ParameterError(f"the design's stratum {h} has {have} human-labelled pairs: each needs two or more "
                                 "(label the pairs the design chose)")
    return strata, notes + _measure_note(design, measures)
