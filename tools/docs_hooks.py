"""MkDocs hooks of rankmeter's documentation site (``hooks:`` in mkdocs.yml).

Two jobs, both while the site builds:

* **Generated pages.** One page per command (``commands/<name>.md``) from the command's own
  ``--help`` and an example whose output is the command's real output; the Python API reference
  (``api.md``) with one mkdocstrings entry per name of ``rankmeter.__all__``; the benchmark tables
  (``benchmarks.md``), taken from README.md's *Benchmark* section so they exist in one place.
* **Every example runs.** In each page's Markdown, before it is rendered:

  - a ``python`` block with ``>>>`` prompts runs as a doctest (ELLIPSIS, NORMALIZE_WHITESPACE);
    any other ``python`` block is executed; the blocks of one page share one namespace;
  - in a ``console`` block each ``$ rankmeter ...`` line runs (in process) and must exit 0 and print
    every line shown under it; a command shown without output gets its real output inserted;
    ``$ trec_eval ...`` lines run the C trec_eval named by ``$TREC_EVAL_BIN`` when it is set;
  - a ``sh`` block runs in ``bash -euo pipefail``;
  - ``text`` blocks are output and are not run; a fence without a language is refused.

  A block that cannot run says why on the line before its fence:
  ``<!-- docs-exec: skip (needs Java and a Spark session) -->``. A page or a block that needs an
  optional package says so (``<!-- docs-exec: needs torch -->``: on the line before a fence, for that
  block; elsewhere, for every example of the page) and is not run, with a note on the page, where the
  package does not import; a command page's example names its needs in ``COMMAND_EXAMPLES``. Examples run from a scratch
  directory that links ``examples/``, ``docs/`` and ``tests/`` of the checkout, so files they write
  never land in it; a page whose examples read the files of one folder says
  ``<!-- docs-exec: cwd tests/fixtures/... -->`` (or is listed in ``PAGE_FOLDERS``) and runs in a
  scratch directory linking that folder's files. A failing example fails the build
  (``PluginError``), strict or not.

A developer tool, not part of the installed package.
"""
from __future__ import annotations

import contextlib
import doctest
import importlib
import inspect
import io
import logging
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parent.parent
log = logging.getLogger("mkdocs.hooks.rankmeter")

FENCE = re.compile(r"^```(\S*)\s*$")
SKIP = re.compile(r"<!--\s*docs-exec:\s*skip\s*\((.+?)\)\s*-->")
CWD = re.compile(r"^<!--\s*docs-exec:\s*cwd\s+(\S+)\s*-->\s*$", flags=re.M)  # on a line of its own
#: ``<!-- docs-exec: needs torch torchmetrics jax -->`` on a line of its own: the page's examples (or, on the
#: line before a fence, that block) run only where every named module imports; elsewhere they do not run and
#: the page says so (the README's docs lines then build the site on a machine without those optional
#: packages: tests/test_docs_site.py builds it so; CI installs them and runs every example)
NEEDS = re.compile(r"^<!--\s*docs-exec:\s*needs\s+([\w. ]+?)\s*-->\s*$", flags=re.M)
#: Pages whose examples run in a folder of the checkout other than its root (as if the page said
#: ``<!-- docs-exec: cwd FOLDER -->``): the folder's files are linked into a scratch directory.
PAGE_FOLDERS = {"llm-judges.md": "tests/fixtures/llm_judges/example"}
RUN = {"python", "console", "sh"}
SHOWN = {"text"}
#: the width text tables are laid out for on the site (the content column holds ~100 monospace characters)
COLUMNS = "100"
#: inserted output is cut after this many lines (the rest is summarised)
MAX_OUTPUT_LINES = 40

#: One example per command, run at build time; its output is shown on the command's page.
#: (argv after ``rankmeter``, exit statuses accepted)
#: Each command page's examples: (argv, the exit statuses it may end with[, the modules it needs]).
COMMAND_EXAMPLES: dict[str, list[tuple]] = {
    "eval": [("eval examples/qrels.txt examples/run.txt examples/run2.txt -m AP -m nDCG@10 -m 'P(rel=2)@5'", (0,)),
             ("eval examples/qrels.txt examples/run.txt -m RR@10 -q --format csv", (0,))],
    "explain": [("explain examples/qrels.txt examples/run.txt --measure nDCG@5 --query 1000", (0,))],
    "compare": [("compare examples/qrels.txt examples/run.txt examples/run2.txt -m AP -m nDCG@10 "
                 "--test randomization --correction holm", (0,))],
    "measures": [],
    "plot": [("plot examples/qrels.txt examples/run.txt examples/run2.txt --kind pr -o pr.svg", (0,))],
    "report": [("report examples/qrels.txt examples/run.txt examples/run2.txt -m AP -m nDCG@10 "
                "--test randomization -o report.html", (0,))],
    # check's exit status: 0 clean, 1 when it found something worth a look (here: shallow judged coverage)
    "check": [("check examples/qrels.txt examples/run.txt", (0, 1))],
    "judged": [("judged examples/qrels.txt examples/run.txt -m AP -m nDCG@10", (0,))],
    "ties": [("ties examples/qrels.txt examples/run.txt -m AP -m nDCG@10", (0,))],
    "diff": [("diff examples/qrels.txt examples/run.txt -m nDCG@10 -m RR@10 --as pytrec_eval,ranx,sklearn", (0,)),
             # TorchMetrics' order of tied scores is asked of torch itself
             ("diff examples/qrels.txt examples/run.txt -m nDCG@10 --as pytrec_eval,torchmetrics", (0,), ("torch",))],
    "fuse": [("fuse examples/run.txt examples/run2.txt --method rrf -o fused.run", (0,)),
             ("eval examples/qrels.txt fused.run -m AP -m nDCG@10", (0,))],
    "pool": [("pool examples/run.txt examples/run2.txt --depth 10 --qrels examples/qrels.txt -o pool.txt", (0,))],
    "agree": [("agree examples/qrels.txt examples/qrels.txt", (0,))],
    "run": [("run cut examples/run.txt -k 10 -o top10.run", (0,)),
            ("run convert examples/run.txt --to parquet -o run.parquet", (0,)),
            ("eval examples/qrels.txt run.parquet -m AP", (0,))],
    "beyond": [],
    "meta": [("meta correlate examples/qrels.txt examples/run.txt examples/run2.txt -m AP -m nDCG@10", (0,)),
             ("meta swap-rate examples/qrels.txt examples/run.txt examples/run2.txt -m AP --size 4", (0,))],
    "trec_eval": [("trec_eval -m map -m ndcg_cut.10 -m P.5,10 examples/qrels.txt examples/run.txt", (0,))],
    "judges": [("judges mix tests/fixtures/llm_judges/example/human.qrels tests/fixtures/llm_judges/example/llm.qrels "
                "-o mixed.qrels", (0,))],
    "baseline": [("baseline examples/qrels.txt examples/run.txt -m AP -m nDCG@10 -o base.json", (0,))],
    "gate": [("baseline examples/qrels.txt examples/run.txt -m AP -m nDCG@10 -o base.json", (0,)),
             ("gate examples/qrels.txt examples/run2.txt --baseline base.json --format markdown", (0, 1))],
    "nuggets": [("nuggets tests/fixtures/llm_judges/example/ragA.jsonl tests/fixtures/llm_judges/example/ragB.jsonl "
                 "--baseline ragB --test randomization", (0,))],
    "leaderboard": [("leaderboard examples/leaderboard/manifest.json -m nDCG@10 -m RR@10 --test t --resamples 2000",
                     (0,)),
                    ("leaderboard examples/leaderboard/published.csv --resamples 2000 --format latex", (0,))],
}

#: Drop-in modules whose public functions and classes the API page documents.
DROP_INS = ["rankmeter.compat.pytrec_eval", "rankmeter.compat.ir_measures"]

#: Docstring problems in rankmeter's source that the API page shows as they are until they are fixed
#: there: (logger, message pattern, what to change). Each is logged at INFO with the fix instead of failing
#: the strict build; remove an entry once its docstring is fixed.
KNOWN_DOCSTRING_ISSUES: list[tuple[str, str, str]] = []

_state: dict = {}


class _KnownIssues(logging.Filter):
    """Turns the warnings of KNOWN_DOCSTRING_ISSUES into INFO lines that say what to fix."""

    def __init__(self, patterns: list[tuple[str, str]]):
        super().__init__()
        self.patterns = [(re.compile(pattern), fix) for pattern, fix in patterns]

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        for pattern, fix in self.patterns:
            if record.levelno == logging.WARNING and pattern.search(message):
                record.levelno, record.levelname = logging.INFO, "INFO"
                record.msg, record.args = f"known docstring issue (fix: {fix}): {message}", ()
        return True


def _install_known_issue_filters() -> None:
    by_logger: dict[str, list[tuple[str, str]]] = {}
    for logger, pattern, fix in KNOWN_DOCSTRING_ISSUES:
        by_logger.setdefault(logger, []).append((pattern, fix))
    for logger, patterns in by_logger.items():
        target = logging.getLogger(logger)
        for old in [f for f in target.filters if isinstance(f, _KnownIssues)]:
            target.removeFilter(old)
        target.addFilter(_KnownIssues(patterns))


# ------------------------------------------------------------------ running things
class _Captured:
    """sys.stdout / sys.stderr replaced by text streams over bytes (``.buffer`` works) for one call."""

    def __init__(self):
        self.out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", newline="", write_through=True)
        self.err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", newline="", write_through=True)

    def __enter__(self):
        self._saved = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = self.out, self.err
        return self

    def __exit__(self, *exc):
        sys.stdout, sys.stderr = self._saved
        return False

    @staticmethod
    def text(stream) -> str:
        stream.flush()
        return stream.buffer.getvalue().decode("utf-8", "replace")


@contextlib.contextmanager
def _in_workdir():
    old_cwd, old_columns = os.getcwd(), os.environ.get("COLUMNS")
    os.chdir(_state.get("page_dir") or _workdir())
    os.environ["COLUMNS"] = COLUMNS
    try:
        yield
    finally:
        os.chdir(old_cwd)
        if old_columns is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = old_columns


def _workdir() -> Path:
    if _state.get("workdir") is None:
        work = Path(tempfile.mkdtemp(prefix="rankmeter-docs-"))
        for name in ("examples", "docs", "tests"):
            (work / name).symlink_to(ROOT / name, target_is_directory=True)
        _state["workdir"] = work
    return _state["workdir"]


def _page_dir(folder: str) -> Path:
    """A scratch directory holding links to every entry of ``folder`` (relative to the checkout)."""
    source = Path(os.path.normpath(ROOT / folder))  # lexically: a folder linked into the checkout is fine
    if ROOT not in source.parents or not source.is_dir():
        raise PluginError(f"docs-exec cwd {folder!r}: not a folder of the checkout")
    scratch = _workdir() / "pages" / folder.replace("/", "_")
    if not scratch.exists():
        scratch.mkdir(parents=True)
        for entry in source.iterdir():
            (scratch / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    return scratch


def run_rankmeter(argv: list[str]) -> tuple[int, str, str]:
    """``rankmeter ARGV`` in this process: (exit status, stdout, stderr)."""
    from rankmeter.cli.app import main

    # main() is written for a process of its own: it may put an import finder that hides pandas on
    # sys.meta_path (pyarrow's pandas check costs 0.3 s) and replaces warnings.showwarning; both are
    # put back so the examples that run after it in this process see the interpreter as it was.
    meta_path = list(sys.meta_path)
    with _in_workdir(), _Captured() as cap, warnings.catch_warnings():
        try:
            status = main(argv)
        except SystemExit as exc:  # argparse's --help and usage errors
            status = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
        finally:
            sys.meta_path[:] = meta_path
    return status or 0, _Captured.text(cap.out), _Captured.text(cap.err)


def _run_external(argv: list[str]) -> tuple[int, str, str]:
    with _in_workdir():
        done = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    return done.returncode, done.stdout, done.stderr


def _norm(line: str) -> str:
    return " ".join(line.split())


def _shown_output(lines: list[str]) -> list[str]:
    cut = lines[:MAX_OUTPUT_LINES]
    if len(lines) > MAX_OUTPUT_LINES:
        cut.append(f"... ({len(lines) - MAX_OUTPUT_LINES} more lines)")
    return cut


# ------------------------------------------------------------------ the blocks of a page
def _blocks(markdown: str):
    """(index of the opening fence line, index of the closing one, language, skip reason) per fenced block."""
    lines = markdown.split("\n")
    i = 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        start, lang = i, match.group(1)
        i += 1
        while i < len(lines) and lines[i].rstrip() != "```":
            i += 1
        above = next((lines[j] for j in range(start - 1, -1, -1) if lines[j].strip()), "")
        skip = SKIP.search(above)
        needs = NEEDS.match(above.strip())
        missing = [name for name in needs.group(1).split() if not _importable(name)] if needs else []
        yield start, i, lang, (skip.group(1) if skip else _MISSING + ", ".join(missing) if missing else None)
        i += 1


def _run_python(code: str, globs: dict, where: str, lineno: int) -> str | None:
    """None when the block ran as written, else what went wrong."""
    with _in_workdir(), _Captured() as cap:
        if re.search(r"^\s*>>> ", code, flags=re.M):
            test = doctest.DocTestParser().get_doctest(code, globs, where, where, lineno)
            runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
            report = io.StringIO()
            runner.run(test, out=report.write, clear_globs=False)
            globs.update(test.globs)  # DocTest works on a copy; later blocks of the page see these names
            failed = runner.failures
        else:
            report, failed = None, 0
            try:
                exec(compile(code, f"{where}:{lineno + 1}", "exec"), globs)
            except BaseException as exc:  # noqa: BLE001 - any failure of an example fails the build
                import traceback
                return "".join(traceback.format_exception(exc))
    if failed:
        return report.getvalue()
    return None


def _run_console(body: list[str], where: str) -> tuple[list[str], list[str]]:
    """Run the ``$`` lines of a console block: (the block's new body, problems)."""
    problems, new_body = [], []
    commands: list[tuple[str, list[str]]] = []
    for line in body:
        if line.startswith("$ "):
            commands.append((line[2:], []))
        elif commands and line.strip() and line.strip() != "...":
            commands[-1][1].append(line)
        elif not commands and line.strip():
            problems.append(f"{where}: output before any `$` command: {line!r}")
    for command, expected in commands:
        argv = shlex.split(command)
        if argv[0] == "rankmeter":
            status, out, err = run_rankmeter(argv[1:])
        elif argv[0] == "trec_eval":
            binary = os.environ.get("TREC_EVAL_BIN")
            if not binary:
                _state["not_run"].append(f"{where}: `{command}` (TREC_EVAL_BIN is not set)")
                new_body += [f"$ {command}"] + expected
                continue
            status, out, err = _run_external([binary] + argv[1:])
        else:
            problems.append(f"{where}: `{command}`: only rankmeter and trec_eval commands run in console "
                            "blocks (use an sh block, or mark the block docs-exec: skip (reason))")
            continue
        _state["ran"] += 1
        if status != 0:
            problems.append(f"{where}: `{command}` exited {status}:\n{err.strip()}")
            continue
        printed = {_norm(line) for line in out.splitlines()}
        missing = [line for line in expected if _norm(line) not in printed]
        if missing:
            shown = "\n".join(f"  {line!r}" for line in missing[:10])
            more = f"\n  ... and {len(missing) - 10} more" if len(missing) > 10 else ""
            problems.append(f"{where}: `{command}` did not print {len(missing)} line(s) the page shows:\n"
                            f"{shown}{more}\nit printed:\n{out}")
        new_body.append(f"$ {command}")
        new_body += expected if expected else _shown_output(out.rstrip("\n").split("\n") if out.strip() else [])
    return new_body, problems


def _run_sh(code: str, where: str) -> str | None:
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
               COLUMNS=COLUMNS)
    with _in_workdir():
        done = subprocess.run(["bash", "-euo", "pipefail", "-c", code], capture_output=True, text=True, env=env,
                              timeout=600)
    _state["ran"] += 1
    if done.returncode:
        return f"{where}: sh block exited {done.returncode}:\n{done.stderr.strip()}"
    return None


def execute_page(markdown: str, src_uri: str) -> str:
    """Run every example of one page; the Markdown with console output filled in. Raises PluginError."""
    lines = markdown.split("\n")
    globs: dict = {"__name__": f"docs:{src_uri}"}
    needs = next((m for m in NEEDS.finditer(markdown) if not _above_a_fence(markdown, m.end())), None)
    missing = [name for name in needs.group(1).split() if not _importable(name)] if needs else []
    if missing:
        _state["not_run"].append(f"docs/{src_uri}: every example (needs {', '.join(missing)}, not installed)")
        return markdown[:needs.start()] + _not_run_note(missing, "The examples on this page need") \
            + markdown[needs.end():]
    folder = CWD.search(markdown)
    folder = folder.group(1) if folder else PAGE_FOLDERS.get(src_uri)
    _state["page_dir"] = _page_dir(folder) if folder else None
    try:
        return _execute_blocks(markdown, lines, globs, src_uri)
    finally:
        _state["page_dir"] = None


_MISSING = "missing optional package: "


def _above_a_fence(markdown: str, end: int) -> bool:
    """Whether the next line that is not blank after ``end`` opens a fenced block."""
    rest = markdown[end:].lstrip("\n").split("\n", 1)[0]
    return FENCE.match(rest) is not None


def _not_run_note(missing: list[str], lead: str) -> str:
    return (f'!!! note "Not run in this build"\n    {lead} {", ".join(missing)}, which '
            f'{"was" if len(missing) == 1 else "were"} not installed where this copy of the site was built, so '
            f'{"it was" if lead.startswith("This") else "they were"} not run here; `bash .ci/run` installs '
            f'{"it" if len(missing) == 1 else "them"} and runs every example.\n')


def _importable(module: str) -> bool:
    import importlib.util
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _execute_blocks(markdown: str, lines: list[str], globs: dict, src_uri: str) -> str:
    problems: list[str] = []
    replacements: list[tuple[int, int, list[str]]] = []
    notes: list[tuple[int, str]] = []
    for start, end, lang, skip in _blocks(markdown):
        where = f"docs/{src_uri}:{start + 1}"
        if lang not in RUN | SHOWN:
            problems.append(f"{where}: fence language {lang!r}: use python, console or sh (run) or text (shown)")
            continue
        if lang in SHOWN:
            continue
        if skip is not None and skip.startswith(_MISSING):   # an optional package this block needs is missing
            missing = skip[len(_MISSING):].split(", ")
            _state["not_run"].append(f"{where}: an example (needs {', '.join(missing)}, not installed)")
            notes.append((start, _not_run_note(missing, "This example needs")))
            continue
        if skip is not None:
            _state["skipped"].append(f"{where}: {skip}")
            continue
        code = "\n".join(lines[start + 1:end]) + "\n"
        if lang == "python":
            problem = _run_python(code, globs, where, start + 1)
            _state["ran"] += 1
            if problem:
                problems.append(f"{where}: python block failed:\n{problem}")
        elif lang == "sh":
            problem = _run_sh(code, where)
            if problem:
                problems.append(problem)
        else:
            body, found = _run_console(lines[start + 1:end], where)
            problems += found
            replacements.append((start + 1, end, body))
    if problems:
        raise PluginError("examples failed:\n" + "\n\n".join(problems))
    edits = [(first, stop, body) for first, stop, body in replacements]
    edits += [(start, start, note.rstrip("\n").split("\n") + [""]) for start, note in notes]
    for first, stop, body in sorted(edits, key=lambda e: e[0], reverse=True):
        lines[first:stop] = body
    return "\n".join(lines)


# ------------------------------------------------------------------ generated pages
def _help(argv: list[str]) -> str:
    status, out, err = run_rankmeter(argv + ["--help"])
    if status != 0:
        raise PluginError(f"`rankmeter {' '.join(argv)} --help` exited {status}: {err}")
    return out.rstrip("\n")


def command_names() -> list[tuple[str, str]]:
    """(command, one-line description) in the order ``rankmeter --help`` lists them."""
    text = _help([])
    listing = text[text.index("COMMAND\n") + len("COMMAND\n"):].split("\n\n")[0]
    out: list[tuple[str, str]] = []
    for line in listing.splitlines():
        match = re.match(r"^    (\S+)(?:\s{2,}(.*))?$", line)
        if match:
            out.append((match.group(1), (match.group(2) or "").strip()))
        elif out and line.strip():  # a wrapped description (argparse also breaks after a hyphen)
            joint = "" if out[-1][1].endswith("-") else " "
            out[-1] = (out[-1][0], f"{out[-1][1]}{joint}{line.strip()}".strip())
    return out


def _subcommands(command: str) -> list[str]:
    """meta's kinds (listed as sub-parsers); run's actions are a choice of one parser and stay on its page."""
    text = _help([command])
    match = re.search(r"^  KIND[^\n]*\n((?:    .*\n?)+)", text, flags=re.M)
    if not match:
        return []
    return re.findall(r"^    (\S+)", match.group(1), flags=re.M)


def command_page(command: str, summary: str) -> str:
    # no table of contents column (two entries): the room goes to the command's output and help
    lines = ["---", "hide:", "  - toc", "---", "", f"# rankmeter {command}", "",
             summary[:1].upper() + summary[1:] + ".", ""]
    examples = COMMAND_EXAMPLES.get(command)
    if examples is None:  # a command added since: its page shows its help until it gets an example here
        log.info("docs: command %r has no example in COMMAND_EXAMPLES (tools/docs_hooks.py)", command)
    if examples:
        lines += ["## Example", "", "Run from the repository root; the output below is the command's own,"
                  " printed when this page was built.", ""]
        for argv, statuses, *needs in examples:
            missing = [name for name in (needs[0] if needs else ()) if not _importable(name)]
            if missing:
                _state["not_run"].append(f"docs/commands/{command}.md: an example (needs {', '.join(missing)}, "
                                         "not installed)")
                lines += [_not_run_note(missing, "This example needs"), "```text", f"$ rankmeter {argv}", "```", ""]
                continue
            status, out, err = run_rankmeter(shlex.split(argv))
            if status not in statuses:
                raise PluginError(f"commands/{command}.md: `rankmeter {argv}` exited {status}: {err}")
            _state["ran"] += 1
            shown = _shown_output((out + err).rstrip("\n").split("\n") if (out + err).strip() else [])
            lines += ["```text", f"$ rankmeter {argv}"] + shown + ["```", ""]
    lines += ["## Usage", "", "```text", _help([command]), "```", ""]
    for kind in _subcommands(command):
        lines += [f"### rankmeter {command} {kind}", "", "```text", _help([command, kind]), "```", ""]
    lines += ["See [all commands](index.md) and the [Python API](../api.md): every option here has the same "
              "name there.", ""]
    return "\n".join(lines)


def commands_index(commands: list[tuple[str, str]]) -> str:
    from rankmeter.cli import flags
    shared = ", ".join(f"`{flags.SHARED[name].long_flag}`" for name in flags.EVALUATION)  # from the declarations
    lines = ["# Commands", "", "`rankmeter COMMAND --help` prints what each page shows under *Usage*. The options "
             f"shared by every scoring command ({shared}) have the names of `rankmeter.evaluate`'s keyword "
             "arguments.", "", "| command | what it does |", "|---|---|"]
    lines += [f"| [`{name}`]({name}.md) | {summary} |" for name, summary in commands]
    lines += ["", "## rankmeter --help", "", "```text", _help([]), "```", ""]
    return "\n".join(lines)


def api_page() -> str:
    import rankmeter

    lines = ["# Python API", "",
             "Every name below is importable from `rankmeter` itself (`rankmeter.evaluate`, `rankmeter.Evaluator`,"
             " ...); each is documented where it is defined. The names load on first use, so `import rankmeter`"
             " stays fast. Generated from the docstrings of `rankmeter.__all__` when the site is built.", ""]
    groups = [("Scoring", ["evaluate", "evaluate_runs", "Evaluator", "Results", "RunsResults", "read_qrels", "read_run",
                           "Qrels", "Run"]),
              ("Measures", ["parse_measure", "Measure"]),
              ("Explaining a value", ["explain", "Explanation"]),
              ("Comparing systems", ["compare", "compare_scores", "Comparison"]),
              ("Leaderboards over many collections", ["leaderboard", "Leaderboard"]),
              ("Fusion, judged coverage, ties", ["fuse", "judged", "tie_report", "TieReport"]),
              ("Errors", ["RankmeterError", "InputError", "ParameterError", "MeasureError"])]
    public = [name for name in rankmeter.__all__ if name != "__version__"]
    groups = [(title, [n for n in names if n in public]) for title, names in groups]
    listed = {name for _, names in groups for name in names}
    if set(public) - listed:  # a name added to rankmeter.__all__ since: documented all the same
        groups.append(("More", [name for name in public if name not in listed]))
    for title, names in groups:
        lines += [f"## {title}", ""]
        for name in names:
            obj = getattr(rankmeter, name)
            # where it is defined (some packages re-export lazily); a module is documented as itself
            target = obj.__name__ if inspect.ismodule(obj) else f"{obj.__module__}.{name}"
            lines += [f"::: {target}", "    options:", "      heading_level: 3",
                      f"      toc_label: {name}", ""]
    lines += ["## Drop-ins", "",
              "Modules that take another tool's calls unchanged: `from rankmeter.compat.pytrec_eval import "
              "RelevanceEvaluator`, `import rankmeter.compat.ir_measures as ir_measures`; see the "
              "[migration guides](migrate-pytrec-eval.md).", ""]
    for module_name in DROP_INS:
        module = importlib.import_module(module_name)
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            if not (inspect.isfunction(obj) or inspect.isclass(obj)) or not obj.__doc__:
                continue  # measure objects and aliases: their module's docstring names them
            lines += [f"::: {obj.__module__}.{obj.__qualname__}", "    options:", "      heading_level: 3",
                      f"      toc_label: {module_name.rsplit('.', 1)[1]}.{name}", ""]
    return "\n".join(lines)


def benchmarks_page() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index("## Benchmark\n")
    end = readme.find("\n## ", start + 1)
    body = readme[start + len("## Benchmark\n"):end if end >= 0 else None].strip("\n")
    # README links are relative to the repository root, the site's to docs/
    body = re.sub(r"\]\(docs/([^)]+)\)", r"](\1)", body)
    return "\n".join(["# Benchmarks", "",
                      "The figures of the README's *Benchmark* section (this page is built from it). The "
                      "scripts are in `bench/` of the repository; run them on your own machine for your own "
                      "numbers.", "", body, ""])


# ------------------------------------------------------------------ the nav
#: Pages other work adds to docs/: listed in their section of the nav when they exist.
OPTIONAL_PAGES = {"Guides": ["llm-judges.md", "training.md"],
                  "Migrating": ["migrate-ranx.md", "migrate-ir-measures.md"]}


def _title(path: Path) -> str:
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            return line[2:].replace("`", "").strip()
    return path.stem


def measure_pages(docs_dir: Path) -> list[dict]:
    """The measure pages in the order and with the titles of docs/index.md's table."""
    index = (docs_dir / "index.md").read_text(encoding="utf-8")
    listed = re.findall(r"^\| \[([^\]]+)\]\((measures/[^)]+\.md)\)", index, flags=re.M)
    on_disk = {f"measures/{p.name}" for p in (docs_dir / "measures").glob("*.md")}
    if {uri for _, uri in listed} != on_disk:
        raise PluginError(f"docs/index.md's measure table and docs/measures/ differ: "
                          f"{sorted({uri for _, uri in listed} ^ on_disk)}")
    return [{title: uri} for title, uri in listed]


def expand_nav(nav: list, docs_dir: Path) -> list:
    """Fill the Commands and Measures sections; add the optional pages that exist."""
    out = []
    for item in nav:
        (title, value), = item.items()
        if title == "Commands":
            value = [{"All commands": "commands/index.md"}] + [{f"rankmeter {name}": f"commands/{name}.md"}
                                                               for name, _ in command_names()]
        elif title == "Measures":
            value = measure_pages(docs_dir)
        elif title in OPTIONAL_PAGES:
            value = list(value) + [{_title(docs_dir / name): name} for name in OPTIONAL_PAGES[title]
                                   if (docs_dir / name).exists()]
        out.append({title: value})
    return out


# ------------------------------------------------------------------ MkDocs events
def on_config(config):
    _state.update(workdir=None, ran=0, skipped=[], not_run=[], started=time.perf_counter())
    config["nav"] = expand_nav(config["nav"], Path(config["docs_dir"]))
    _install_known_issue_filters()
    return config


def on_files(files, config):
    commands = command_names()
    gone = set(COMMAND_EXAMPLES) - {name for name, _ in commands}
    if gone:
        raise PluginError(f"COMMAND_EXAMPLES (tools/docs_hooks.py) names commands rankmeter does not have: {sorted(gone)}")
    pages = {"commands/index.md": commands_index(commands), "api.md": api_page(),
             "benchmarks.md": benchmarks_page()}
    pages.update({f"commands/{name}.md": command_page(name, summary) for name, summary in commands})
    for uri, content in pages.items():
        if files.get_file_from_path(uri) is not None:
            raise PluginError(f"docs/{uri} exists but is generated by tools/docs_hooks.py: remove it")
        files.append(File.generated(config, uri, content=content))
    return files


def on_page_markdown(markdown, page, config, files):
    return execute_page(markdown, page.file.src_uri)


def on_post_build(config):
    log.info("docs-exec: %d examples ran, %d skipped with a reason, %d not run here, %.1f s",
             _state["ran"], len(_state["skipped"]), len(_state["not_run"]),
             time.perf_counter() - _state["started"])
    for line in _state["skipped"] + _state["not_run"]:
        log.info("docs-exec: not run: %s", line)
    work = _state.get("workdir")
    if work is not None:
        shutil.rmtree(work, ignore_errors=True)
        _state["workdir"] = None
