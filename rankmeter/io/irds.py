"""Qrels from ir_datasets, and each dataset's evaluation profile (its official measures).

``evaluate("irds:msmarco-passage/trec-dl-2019/judged", run, ...)`` and
``rankmeter eval msmarco-passage/trec-dl-2019/judged run.txt`` take the
judgments from `ir_datasets <https://ir-datasets.com>`_ (the optional extra
``pip install ir_datasets``, imported only when a dataset is named).
Its download cache is used as ir_datasets sets it up.

:func:`profile` gives the measures a dataset is officially reported with,
with their relevance levels: TREC DL passage judgments are graded 0-3 and
its binary measures count grade 2 and up as relevant (the TREC DL 2019
overview, Craswell et al. 2020, section 2), hence ``RR(rel=2)@10``. The
lists follow ir_datasets' ``official_measures`` where it has them, the
track overviews and leaderboards otherwise.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass

import numpy as np

from rankmeter.errors import InputError, ParameterError
from rankmeter.io.canonical import Qrels

__all__ = ["irds_qrels", "dataset_qrels", "profile", "relevance_level", "looks_like_dataset", "PROFILES"]

_EXTRA = 'pip install ir_datasets'


@dataclass(frozen=True)
class Profile:
    """The official measures of a family of datasets; ``rel`` is their default relevance level."""
    pattern: str
    measures: tuple[str, ...]
    rel: int = 1


_DL_PASSAGE = ("nDCG@10", "RR(rel=2)@10", "AP(rel=2)@1000", "R(rel=2)@1000")
#: First match wins: (a regular expression over the dataset id, measures, rel).
PROFILES = (
    Profile(r"msmarco-passage/trec-dl-(2019|2020|hard)(/.*)?", _DL_PASSAGE, 2),
    Profile(r"msmarco-passage-v2/trec-dl-202[1-3](/.*)?", ("nDCG@10", "RR(rel=2)@100", "AP(rel=2)@100",
                                                           "P(rel=2)@10"), 2),
    Profile(r"msmarco-document/trec-dl-(2019|2020|hard)(/.*)?", ("nDCG@10", "RR@100", "AP@100")),
    Profile(r"msmarco-document-v2/trec-dl-202[1-3](/.*)?", ("nDCG@10", "RR@100", "AP@100", "P@10")),
    Profile(r"msmarco-passage(-v2)?/(dev|eval|train)(/.*)?", ("RR@10",)),
    Profile(r"msmarco-document(-v2)?/(dev|eval|train)(/.*)?", ("RR@100",)),  # the leaderboard's MRR@100
    Profile(r"beir/.*", ("nDCG@10", "R@100")),
    Profile(r"(disks45/nocr/trec-robust-2004|trec-robust04)(/.*)?", ("AP", "P@20", "nDCG@20")),
    Profile(r"lotte/.*", ("Success@5",)),
    Profile(r"bright/.*-long", ("Success@1",)),
    Profile(r"bright/.*", ("nDCG@10",)),
)
_DATASET_ID = re.compile(r"[a-z0-9][a-z0-9_.-]*(/[A-Za-z0-9_.-]+)+")


def _match(name: str) -> Profile:
    name = name.removeprefix("irds:")
    for p in PROFILES:
        if re.fullmatch(p.pattern, name):
            return p
    raise ParameterError(f"no evaluation profile for the dataset {name!r}; name the measures "
                         "(-m nDCG@10 ...). Profiles exist for TREC DL, MS MARCO, BEIR, Robust04, LoTTE "
                         "and BRIGHT")


def profile(name: str) -> list[str]:
    """The official measures of an ir_datasets dataset, relevance levels included.

    >>> profile("msmarco-passage/trec-dl-2019/judged")
    ['nDCG@10', 'RR(rel=2)@10', 'AP(rel=2)@1000', 'R(rel=2)@1000']
    >>> profile("irds:beir/scifact/test")
    ['nDCG@10', 'R@100']
    """
    return list(_match(name).measures)


def relevance_level(name: str) -> int:
    """The relevance threshold of the dataset's binary measures (``rel=`` of :func:`rankmeter.evaluate`).

    >>> relevance_level("msmarco-passage/trec-dl-2020"), relevance_level("msmarco-passage/dev/small")
    (2, 1)
    """
    return _match(name).rel


def looks_like_dataset(source: object) -> bool:
    """True for ``irds:name``, or a ``family/sub`` id that is not an existing path."""
    if not isinstance(source, str):
        return False
    if source.startswith("irds:"):
        return True
    return bool(_DATASET_ID.fullmatch(source)) and not os.path.exists(source)


def dataset_qrels(source: object, columns, grades: str) -> Qrels | None:
    """The qrels of ``source`` when it names an ir_datasets dataset (:func:`looks_like_dataset`), else None.

    ``irds:name`` always means ir_datasets; a bare ``family/sub`` id only when ir_datasets has it (without
    ir_datasets installed it is a file that does not exist). ``columns=`` is refused: the dataset's qrels
    have their own columns."""
    if not looks_like_dataset(source):
        return None
    from rankmeter.io.canonical import with_grades
    from rankmeter.io.columns import Borrowed
    if columns and not isinstance(columns, Borrowed):
        raise InputError(f"columns={dict(columns)!r}: ir_datasets qrels have their own columns; drop "
                         "columns= (or give it to the run)", source=os.fsdecode(source))
    try:
        return with_grades(irds_qrels(source), grades)
    except ImportError:
        if source.startswith("irds:"):
            raise
        raise InputError('no such file; check the path (for an ir_datasets dataset of this id, '
                         'pip install ir_datasets)', source=source) from None


def import_irds():
    try:
        import ir_datasets
    except ImportError:
        raise ImportError(f"reading qrels from ir_datasets needs the irds extra: {_EXTRA}") from None
    return ir_datasets


def irds_qrels(name: str) -> Qrels:
    """The judgments of an ir_datasets dataset as :class:`Qrels` (source ``irds:name``).

    Raises
    ------
    ImportError
        ir_datasets is not installed (the message names the extra).
    InputError
        Unknown dataset, a dataset without judgments, or a download that failed.
    """
    import pyarrow as pa
    name = name.removeprefix("irds:")
    source = f"irds:{name}"
    ir_datasets = import_irds()
    try:
        dataset = ir_datasets.load(name)
    except KeyError:
        raise InputError("no such file, and no ir_datasets dataset of this id; check the path, or the id "
                         "at https://ir-datasets.com", source=name) from None
    if not dataset.has_qrels():
        raise InputError("this dataset has no judgments; pick a split with qrels, e.g. "
                         "msmarco-passage/trec-dl-2019/judged", source=source)
    try:
        queries, docs, rels = [], [], []
        for qrel in dataset.qrels_iter():
            queries.append(qrel.query_id)
            docs.append(qrel.doc_id)
            rels.append(qrel.relevance)
    except Exception as exc:  # a download or parse failure inside ir_datasets
        detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InputError(f"ir_datasets could not provide the qrels ({type(exc).__name__}: {detail}); "
                         "check the network or ir_datasets' cache (IR_DATASETS_HOME)", source=source) from None
    if not queries:
        raise InputError("the dataset's qrels are empty", source=source)
    table = pa.table({"query": pa.array(queries, pa.string()).cast(pa.binary()),
                      "doc": pa.array(docs, pa.string()).cast(pa.binary()),
                      "rel": pa.array(np.asarray(rels, dtype=np.int64))})
    return Qrels(table, source, origin="dict")
