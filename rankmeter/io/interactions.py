"""Tables of interactions (training data of recommenders: user, item, ...) read like every other input.

The file is opened by :func:`rankmeter.io.source.load_bytes`, as runs and qrels are: any compression,
``-`` for standard input, the guarded reading of special files, and the record of inputs that keeps
every output off it. The format comes from the suffix: Parquet, JSON Lines, TSV (``.tsv``, ``.txt``)
or CSV, each with a header row.
"""
from __future__ import annotations

__all__ = ["read_interactions"]


def read_interactions(path):
    """A table of interactions with a header row as an Arrow table (see the module docstring).

    >>> import tempfile, os
    >>> folder = tempfile.mkdtemp()
    >>> with open(os.path.join(folder, "train.csv"), "w") as f:
    ...     _ = f.write("user,item\\nu1,i1\\nu1,i2\\n")
    >>> read_interactions(os.path.join(folder, "train.csv")).num_rows
    2
    """
    import io
    import os

    import pyarrow as pa

    from rankmeter.errors import InputError
    from rankmeter.io.source import load_bytes

    data, name = load_bytes(path)
    lower = os.fsdecode(path).lower() if isinstance(path, (str, os.PathLike)) else ""
    for suffix in (".gz", ".bz2", ".xz", ".zst"):
        lower = lower[: -len(suffix)] if lower.endswith(suffix) else lower
    try:
        if lower.endswith(".parquet") or data[:4] == b"PAR1":
            import pyarrow.parquet as pq
            return pq.read_table(io.BytesIO(data))
        if lower.endswith((".jsonl", ".json")):
            from rankmeter.io.jsonl import json_lines_table
            return json_lines_table(data, name)  # never a line Arrow's reader would crash on
        import pyarrow.csv as pacsv
        delimiter = "\t" if lower.endswith((".tsv", ".txt")) else ","
        return pacsv.read_csv(io.BytesIO(data), parse_options=pacsv.ParseOptions(delimiter=delimiter))
    except (pa.ArrowException, OSError) as exc:
        detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InputError(f"cannot read it as a table with a header row ({detail[:200]}); use CSV, TSV, Parquet "
                         "or JSON Lines with user and item columns", source=name) from None
