"""trec_eval's ``-Z`` z-score files: per query and measure a mean and a standard deviation.

File format (get_zscores.c): one ``qid measure_name mean stddev`` per line,
whitespace separated. Each per-query value ``v`` of measure ``m`` is printed as
``(v - mean) / stddev`` (convert_zscores.c: te_convert_to_zscore); when
``stddev`` is 0 the value is 0 if ``v == mean`` and -1000000 otherwise; a
query or measure absent from the file also gives -1000000.
"""
from __future__ import annotations

import numpy as np

from rankmeter.errors import InputError

__all__ = ["MISSING_ZSCORE", "read_zscores", "to_zscores"]

#: trec_eval.h MISSING_ZSCORE_VALUE
MISSING_ZSCORE = -1000000.0


def read_zscores(path: str) -> dict[bytes, dict[bytes, tuple[float, float]]]:
    """Read a z-score file into ``{qid: {measure: (mean, stddev)}}`` (ids as bytes).

    Parameters
    ----------
    path : str
        The file (trec_eval's ``-Z`` argument).

    Returns
    -------
    dict

    Examples
    --------
    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("w", suffix=".z", delete=False) as fh:
    ...     _ = fh.write("301 map 0.25 0.1\\n")
    >>> read_zscores(fh.name)
    {b'301': {b'map': (0.25, 0.1)}}
    >>> os.remove(fh.name)
    """
    from rankmeter.io.source import load_bytes  # as every input: compression, bounded, recorded (never overwritten)
    data, _ = load_bytes(path)
    table: dict[bytes, dict[bytes, tuple[float, float]]] = {}
    for number, line in enumerate(data.splitlines(), start=1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 4:
            raise InputError(f"expected 4 fields 'qid measure mean stddev', got {len(fields)}",
                             source=path, line=number)
        try:
            mean, std = float(fields[2]), float(fields[3])
        except ValueError:
            raise InputError("mean and stddev must be numbers", source=path, line=number) from None
        table.setdefault(fields[0], {})[fields[1]] = (mean, std)
    return table


def to_zscores(values: np.ndarray, queries: list[bytes], label: str,
               table: dict[bytes, dict[bytes, tuple[float, float]]]) -> np.ndarray:
    """Standardise one measure's per-query ``values`` as trec_eval's ``-Z`` does.

    Examples
    --------
    >>> t = {b"1": {b"map": (0.5, 0.25)}, b"2": {b"map": (0.5, 0.0)}}
    >>> to_zscores(np.array([1.0, 0.5, 0.2]), [b"1", b"2", b"3"], "map", t).tolist()
    [2.0, 0.0, -1000000.0]
    """
    key = label.encode()
    out = np.full(len(values), MISSING_ZSCORE)
    for i, (q, v) in enumerate(zip(queries, np.asarray(values, dtype=np.float64).tolist())):
        entry = table.get(q, {}).get(key)
        if entry is None:
            continue
        mean, std = entry
        if std:
            out[i] = (v - mean) / std
        elif v == mean:
            out[i] = 0.0
    return out
