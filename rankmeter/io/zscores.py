"""trec_eval's ``-Z`` z-score files: per query and measure a mean and a standard deviation.

File format (get_zscores.c): one ``qid measure_name mean stddev`` per line,
whitespace separated. :func:`read_zscores` reads one (``rankmeter trec_eval -Z``),
:func:`write_zscores` writes one (``rankmeter meta zscores``); what the numbers do to a
value is :mod:`rankmeter.meta.zscores`'s (trec_eval's convert_zscores.c).
"""
from __future__ import annotations

from rankmeter.errors import InputError

__all__ = ["read_zscores", "write_zscores"]


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


def write_zscores(table: dict, path, *, inputs=()) -> None:
    """Write ``table`` as a trec_eval ``-Z`` file: ``qid measure mean stddev`` per line (repr precision, so
    trec_eval reads back the very doubles: a value equal to the mean of a topic whose runs all scored it
    gives z = 0). ``inputs``: the files the table was computed from, which the writer refuses to replace."""
    from rankmeter.io.output import output_file

    lines = [f"{q} {m} {float(mean)!r} {float(sd)!r}\n" for q in sorted(table)
             for m, (mean, sd) in sorted(table[q].items())]
    with output_file(path, inputs=inputs) as fh:
        fh.write("".join(lines))
