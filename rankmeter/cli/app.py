"""The ``rankmeter`` command: a thin layer over the Python API.

Subcommands: ``eval`` (tables for people, JSON, CSV), ``trec_eval``
(trec_eval 10.0's exact output), ``explain`` (one measure on one query, step
by step), ``compare`` (significance tests, paper tables), ``plot``,
``report`` (a self-contained HTML file) and ``measures`` (the measure list).
Errors print on one line and exit with status 2.
"""
from __future__ import annotations

import os
import sys
import warnings
from typing import TYPE_CHECKING

from rankmeter.errors import printable  # light: --help never loads numpy

if TYPE_CHECKING:  # argparse is loaded by the commands that parse flags (trec_eval reads its own)
    import argparse

__all__ = ["main"]


#: The one registry of commands, in the order ``rankmeter --help`` lists them: name -> module. Each
#: module has ``HELP``, ``add_arguments(parser)`` (flags from the parameter table, rankmeter.cli.flags)
#: and ``run(args) -> int``; ``trec_eval`` reads trec_eval's own arguments.
COMMANDS = {
    "eval": "rankmeter.cli.evaluate", "trec_eval": "rankmeter.cli.trec_eval", "explain": "rankmeter.cli.explain",
    "compare": "rankmeter.cli.compare", "measures": "rankmeter.cli.measures", "plot": "rankmeter.cli.plot",
    "report": "rankmeter.cli.report", "check": "rankmeter.cli.check", "judged": "rankmeter.cli.judged",
    "ties": "rankmeter.cli.ties", "fuse": "rankmeter.cli.fuse", "pool": "rankmeter.cli.pool",
    "agree": "rankmeter.cli.agree", "judges": "rankmeter.cli.judges", "nuggets": "rankmeter.cli.nuggets",
    "run": "rankmeter.cli.run", "beyond": "rankmeter.cli.beyond", "meta": "rankmeter.cli.meta",
    "baseline": "rankmeter.cli.baseline", "gate": "rankmeter.cli.gate",
    "diff": "rankmeter.cli.diff", "leaderboard": "rankmeter.cli.leaderboard",
}
_TREC_EVAL_HELP = "trec_eval 10.0 compatible output (same options)"


def _parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command line; ``only``: build just that command's parser (what a run needs)."""
    import importlib

    from rankmeter._version import __version__
    from rankmeter.cli.flags import Parser

    p = Parser(prog="rankmeter", description="Score ranked results against relevance judgments.")
    p.add_argument("--version", action="version", version=f"rankmeter {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=Parser)
    for name, module_name in COMMANDS.items():
        if name == "trec_eval":
            sub.add_parser(name, help=_TREC_EVAL_HELP, add_help=False)
            continue
        if only is not None and name != only:
            sub.add_parser(name, help="")  # listed, not built: a run builds only its own command
            continue
        module = importlib.import_module(module_name)
        command = sub.add_parser(name, help=module.HELP,
                                 description=module.__doc__.strip().splitlines()[0].replace("``", ""))
        module.add_arguments(command)
        command.set_defaults(func=module.run, subparser=command)
    return p


_WITHOUT_PANDAS = {"trec_eval", "eval", "explain", "measures", "check", "ties", "judged", "fuse", "pool", "run"}


class _NoPandas:
    """An import finder under which ``import pandas`` fails, as if pandas were not installed."""

    def find_spec(self, name, path=None, target=None):
        if name == "pandas" or name.startswith("pandas."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


def _cli_words(message: str, flags: dict[str, str] | None = None) -> str:
    """A message written for Python in the CLI's words: ``queries='qrels'`` as ``--queries qrels``,
    ``columns={'query': 0, 'doc': 1}`` as ``--columns query=0,doc=1``, ``name=True`` as ``--name``.

    ``flags``: the running command's own flags by keyword (``{"unit": "--unit"}``); an evaluation
    option is named by its flag whatever the command. A keyword that is no flag stays as it is.

    >>> _cli_words("read them with columns={'query': 0, 'doc': 1, 'rank': 2}, or use executor='memory'")
    'read them with --columns query=0,doc=1,rank=2, or use --executor memory'
    >>> _cli_words("judge at rel=2, as AP(rel=2) or read_qrels(path, rel=2) do; P: parameter rel='x' is invalid")
    "judge at --rel 2, as AP(rel=2) or read_qrels(path, rel=2) do; P: parameter rel='x' is invalid"
    >>> _cli_words("pass grades='real' (--grades real) to keep fractional grades, or truncate_grades=True")
    'pass --grades real to keep fractional grades, or --truncate-grades'
    """
    import re

    from rankmeter.core.options import OPTIONS

    def flag_of(name: str) -> str | None:
        if flags and name in flags:
            return flags[name]
        return "--" + name.replace("_", "-") if name in OPTIONS else None

    def in_call(match) -> bool:
        """Inside ``AP(rel=2)`` or ``read_run(..., columns=...)``, or a measure's ``parameter rel=x``: Python
        and the command line spell it the same (a measure) or it is Python's alone (a function)."""
        text, depth = match.string, 0
        if text[:match.start()].endswith("parameter "):
            return True
        for at in range(match.start() - 1, -1, -1):
            if text[at] == ")":
                depth += 1
            elif text[at] == "(":
                if depth == 0:
                    return at > 0 and (text[at - 1].isalnum() or text[at - 1] == "_")
                depth -= 1
        return False

    def mapping(match):
        flag = None if in_call(match) else flag_of(match.group(1))
        items = [item.strip() for item in match.group(2).split(",") if item.strip()]
        pairs = [re.fullmatch(r"'([^']*)'\s*:\s*'?([^']*?)'?", item) for item in items]
        if flag is None or not all(pairs):
            return match.group(0)
        return f"{flag} " + ",".join(f"{p.group(1)}={p.group(2)}" for p in pairs)

    def scalar(match):
        flag = None if in_call(match) else flag_of(match.group(1))
        if flag is None:
            return match.group(0)
        return flag + ("" if match.group(2) == "True" else f" {match.group(2)}")
    message = re.sub(r"\b([a-z_]+)=\{([^{}]*)\}", mapping, message)
    message = re.sub(r"\b([a-z_]+)='?([\w.-]*\w[\w.-]*)'?", scalar, message)
    # a message that gave both spellings ("grades='real' (--grades real)") names the flag once
    return re.sub(r"(--[\w-]+(?: [^\s()]+)?) \(\1\)", r"\1", message)


def _command_flags(parser) -> dict[str, str]:
    """Keyword -> long flag of every option of a command's parser (``"explain_queries": "--explain-queries"``)."""
    out = {}
    for action in getattr(parser, "_actions", ()):
        long = [o for o in action.option_strings if o.startswith("--")]
        if long and action.dest not in ("help", "version"):
            out[action.dest] = long[0]
    return out


class _ClosedOutput:
    """Standard output when the process started without one: every write fails as writing a closed
    descriptor does, so a command that prints says so in one line (exit 2), and one writing -o FILE works."""

    def write(self, text):
        import errno
        raise OSError(errno.EBADF, "standard output is closed")

    def flush(self):
        pass

    @property
    def buffer(self):
        return self


def main(argv: list[str] | None = None) -> int:
    """Run ``rankmeter ARGV`` and return its exit status; the process's globals are left as they were.

    Warnings print as ``rankmeter: warning: ...`` while it runs. What only the console script does
    (signals, standard streams, hiding pandas from pyarrow) is in :func:`entry`.
    """
    global _OUTPUT_FAILED
    _OUTPUT_FAILED = False
    argv = list(sys.argv[1:] if argv is None else argv)
    with warnings.catch_warnings():  # restored on return: called in process, main leaves the process as it was
        warnings.simplefilter("default")
        # the interpreter's own cleanup (a file an import had open when Ctrl-C came), not the user's input:
        # ignored, as Python's default filters ignore it
        warnings.simplefilter("ignore", ResourceWarning)
        warnings.showwarning = _show_warning
        return _run(argv)


def _show_warning(message, *args, flags: dict[str, str] | None = None, **kwargs) -> None:
    print(f"rankmeter: warning: {printable(_cli_words(str(message), flags))}", file=sys.stderr)


def _run(argv: list[str]) -> int:
    import functools

    from rankmeter.errors import RankmeterError

    flags: dict[str, str] = {}
    try:
        if argv and argv[0] == "trec_eval":
            from rankmeter.cli.trec_eval import run
            return run(argv[1:])
        command = next((a for a in argv if not a.startswith("-")), None)
        parser = _parser(only=command if command in COMMANDS and "-h" not in argv and "--help" not in argv
                         else None)
        args, extra = parser.parse_known_args(argv)
        flags.update(_command_flags(getattr(args, "subparser", parser)))
        # inside main()'s catch_warnings: restored on return
        warnings.showwarning = functools.partial(_show_warning, flags=flags)
        if extra:  # an unknown flag: named with the command it was given to
            getattr(args, "subparser", parser).error(f"unrecognized arguments: {' '.join(extra)}")
        code = args.func(args)
        sys.stdout.flush()
        return code
    except RankmeterError as exc:
        print(f"rankmeter: error: {printable(_cli_words(str(exc), flags))}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except ImportError as exc:  # an optional dependency missing where no friendlier message was given
        if _INTERRUPTED:  # Ctrl-C inside an import (numpy turns it into an ImportError): an interrupt
            _interrupted()
        from rankmeter.errors import install_hint
        missing = getattr(exc, "name", None)
        hint = install_hint(missing.split(".")[0]) if missing else "install the package it names"
        print(f"rankmeter: error: {printable(exc)}; {hint}", file=sys.stderr)
        return 2
    except OSError as exc:  # writing standard output failed: a full disk, a closed terminal
        _output_failed(exc)
        return 2
    except MemoryError:
        print("rankmeter: error: out of memory", file=sys.stderr)
        return 2


def entry() -> None:
    """Console entry point: run, flush, and leave without interpreter teardown.

    Ctrl-C at any moment (even while modules load) ends with one line and
    status 130; outputs are written through temporary files, so none is left
    half-written. pyarrow's thread pool can abort at interpreter shutdown
    ("terminate called without an active exception") after all output was
    written; exiting at once after flushing keeps the exit status and stderr clean.
    """
    import signal

    from rankmeter.cli.streams import guard_standard_streams

    guard_standard_streams()  # every write to standard output checked; closed standard streams made safe
    if sys.stdout is None:  # started with standard output closed (>&-): writing to it is an error, reported
        sys.stdout = _ClosedOutput()
    # A file-size limit (ulimit -f) fails the write (EFBIG), reported in one line, rather than killing the
    # process; SIGTERM and SIGHUP remove a temporary output file before they end the process.
    if hasattr(signal, "SIGXFSZ"):
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    for name in ("SIGTERM", "SIGHUP"):
        signum = getattr(signal, name, None)
        if signum is not None and signal.getsignal(signum) is not signal.SIG_IGN:  # nohup's SIGHUP stays ignored
            signal.signal(signum, _on_terminate)
    # numpy's OpenBLAS starts one thread per core, which spin for a while once started. eval and trec_eval
    # do no BLAS work, and the spinning cost a 100k-line trec_eval 0.352 -> 0.245 s of CPU (measured side
    # by side; the same wall time on an idle machine, not on a busy one). Not for the other commands:
    # compare's randomization and bootstrap multiply matrices, faster on more threads, and their last digits
    # follow the thread count as the Python API's do. Set before numpy is imported, unless the user chose.
    command = next((a for a in sys.argv[1:] if not a.startswith("-")), None)
    if command in ("eval", "trec_eval"):
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    if sys.argv[1:2] and sys.argv[1] in _WITHOUT_PANDAS and "pandas" not in sys.modules:
        # TREC text never loads pyarrow; the CSV/TSV/JSON Lines/Parquet readers do, and pyarrow imports
        # pandas inside to_numpy, to_pandas_dtype and pyarrow.dataset only to check whether an object is a
        # pandas one. These commands never use pandas, so pyarrow is told it is absent: `rankmeter eval` of a
        # 100k-line CSV run, medians of 7 side by side, 0.93 s of CPU without this, 0.38 s with it (TREC
        # files: the same CPU with and without, within noise). Here, not in main(): pyarrow remembers that
        # pandas is absent for the rest of the process.
        sys.meta_path.insert(0, _NoPandas())
    code = 130
    signal.signal(signal.SIGINT, _on_interrupt)
    try:
        code = main()
        sys.stdout.flush()
        sys.stderr.flush()
    except KeyboardInterrupt:
        _interrupted()
    except BrokenPipeError:
        code = 0
    except OSError as exc:  # the last flush of standard output failed (once reported, the rest is not)
        _output_failed(exc)
        code = 2
    except BaseException as exc:  # noqa: BLE001 - an interrupt inside C code can surface as another error
        if _INTERRUPTED:
            _interrupted()
        if os.environ.get("RANKMETER_DEBUG") or not isinstance(exc, Exception):
            raise
        # a bug of rankmeter's own: one line, as for every failure (RANKMETER_DEBUG=1 shows the traceback)
        print(f"rankmeter: internal error: {type(exc).__name__}: {exc} (please report it; run with "
              "RANKMETER_DEBUG=1 for the traceback)", file=sys.stderr)
        code = 2
    os._exit(code)


_INTERRUPTED = False
_OUTPUT_FAILED = False


def _output_failed(exc: OSError) -> None:
    """Say once that standard output could not be written (what is still buffered fails again on exit)."""
    global _OUTPUT_FAILED
    if not _OUTPUT_FAILED:
        print(f"rankmeter: error: cannot write the output ({exc.strerror or exc})", file=sys.stderr)
    _OUTPUT_FAILED = True


def _on_interrupt(signum, frame) -> None:
    global _INTERRUPTED
    _INTERRUPTED = True
    raise KeyboardInterrupt


def _remove_partial_outputs() -> None:
    output = sys.modules.get("rankmeter.io.output")  # not loaded: no output file was begun
    if output is not None:
        output.remove_partial_outputs()


def _on_terminate(signum, frame) -> None:
    """SIGTERM, SIGHUP: remove the temporary output files, then end as the signal does by default."""
    import signal

    _remove_partial_outputs()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def _interrupted() -> None:
    _remove_partial_outputs()
    try:
        sys.stderr.write("rankmeter: interrupted\n")
        sys.stderr.flush()
    except OSError:
        pass
    os._exit(130)


if __name__ == "__main__":
    entry()
